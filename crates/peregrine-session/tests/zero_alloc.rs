//! Proves the steady-state path (receive an application message, validate it against the
//! dictionary, echo it back through the store) allocates nothing after warm-up, with a
//! counting allocator.
mod support;

use std::sync::Arc;

use peregrine_codec::value::Decimal;
use peregrine_codec::MessageView;
use peregrine_dict::Dictionaries;
use peregrine_messages::fix44::{
    self,
    enums::{ExecType, OrdStatus, Side},
    prelude::*,
};
use peregrine_session::{
    AdminMessage, AppEvent, AppReject, Application, DoNotSend, EchoApp, Outbox, OutgoingMessage,
    Role, Session, SessionConfig, SessionEvent, SessionId, SECOND,
};
use peregrine_store::MemoryStore;
use support::{message, new_order, T0};

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

/// Allocations `f` makes on this thread (tests run in parallel threads).
fn allocs_during(f: impl FnOnce()) -> usize {
    peregrine_alloc::allocations_in(f).1 as usize
}

/// EchoApp with every hook in use: `to_admin` adds SenderSubID(50) to each admin
/// message, `to_app` reads each outgoing message decoded, `on_event` counts.
struct Hooked {
    echo: EchoApp,
    events: u64,
    seen: u64,
}

impl Application for Hooked {
    fn on_logon(&mut self, id: &SessionId, out: &mut Outbox<'_>) {
        self.echo.on_logon(id, out);
    }
    fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
        msg.str(50, b"DESK1");
    }
    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
        if msg.view().is_ok_and(|v| v.get(11).is_some()) {
            self.seen += 1;
        }
        Ok(())
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.echo.from_app(msg, id, out)
    }
    fn on_event(&mut self, _id: &SessionId, _event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        self.events += 1;
    }
}

#[test]
fn receive_validate_echo_allocates_nothing_after_warm_up() {
    let dicts = support::fix44();
    steady_state(&mut EchoApp::new(Some(dicts.clone())), dicts, Sends::None);
}

#[test]
fn the_application_hooks_allocate_nothing_after_warm_up() {
    let dicts = support::fix44();
    let mut app = Hooked {
        echo: EchoApp::new(Some(dicts.clone())),
        events: 0,
        seen: 0,
    };
    steady_state(&mut app, dicts, Sends::Untyped);
    // The order sent after each inbound message (the Logon, 2,200 orders, 220
    // TestRequests) went through to_app, and so did each of the 2,200 echoes
    // sent from from_app (kept until it returned), without allocating.
    assert_eq!(app.seen, 2_421 + 2_200);
}

/// A venue written with the typed API: `crack` dispatches each order to
/// `on_new_order_single`, which answers with a typed ExecutionReport through the outbox.
#[derive(Default)]
struct Venue {
    orders: u64,
    qty: Decimal,
}

impl fix44::MessageHandler<Outbox<'_>> for Venue {
    type Error = AppReject;
    fn on_new_order_single(
        &mut self,
        order: fix44::NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.orders += 1;
        let cl_ord_id = order.cl_ord_id().and_then(Result::ok).unwrap_or("?");
        let side = order.side().and_then(Result::ok).unwrap_or(Side::Buy);
        let qty = order.order_qty().and_then(Result::ok).unwrap_or_default();
        self.qty = qty;
        // The parties group, read without copies.
        let parties = order.no_party_ids().count();
        assert_eq!(parties, 2);
        out.send_typed::<fix44::ExecutionReport>(|er| {
            er.order_id(cl_ord_id)
                .exec_id(cl_ord_id)
                .cl_ord_id(cl_ord_id)
                .exec_type(ExecType::New)
                .ord_status(OrdStatus::New)
                .side(side)
                .leaves_qty(qty)
                .cum_qty(Decimal::new(0, 0))
                .avg_px(Decimal::new(0, 0));
            er.symbol("MSFT");
        })
        .map(|_| ())
        .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }
}

#[test]
fn typed_dispatch_and_typed_sends_allocate_nothing_after_warm_up() {
    let mut app = Venue::default();
    steady_state(&mut app, support::fix44(), Sends::Typed);
    assert_eq!(app.orders, 2_200);
    assert_eq!(app.qty, Decimal::new(100, 0));
}

/// What `steady_state` sends from outside the callbacks after each inbound message.
#[derive(Clone, Copy, PartialEq)]
enum Sends {
    None,
    Untyped,
    Typed,
}

/// The parties group every inbound order carries (two entries), after the body of
/// [`new_order`].
const PARTIES: [(u32, &[u8]); 7] = [
    (453, b"2"),
    (448, b"A"),
    (447, b"D"),
    (452, b"1"),
    (448, b"B"),
    (447, b"D"),
    (452, b"3"),
];

/// Logon, warm-up, then 2,000 orders echoed (and TestRequests answered, and a
/// Heartbeat on the timer; with `send`, an order sent from outside a callback after
/// each one) under the counting allocator: nothing may be allocated.
fn steady_state(app: &mut dyn Application, dicts: Arc<Dictionaries>, send: Sends) {
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    cfg.dictionaries = Some(dicts.clone());
    cfg.enable_last_msg_seq_num_processed = true;
    let store = MemoryStore::with_capacity(T0, 10_000, 4 << 20);
    let mut session = Session::new(cfg, store, T0);

    const WARM: u64 = 200;
    const MEASURED: u64 = 2_000;
    // Inbound messages are prepared up front: building them is the peer's work.
    let mut now = T0;
    let mut inbound = vec![message(b"A", 1, now, &[(98, b"0"), (108, b"30")])];
    let ids: Vec<String> = (0..WARM + MEASURED).map(|i| format!("ORD{i:08}")).collect();
    let mut seq = 1;
    for (i, id) in ids.iter().enumerate() {
        now += 1_000_000; // 1 ms apart
        seq += 1;
        if i % 10 == 9 {
            // Now and then a TestRequest, answered with a Heartbeat.
            inbound.push(message(b"1", seq, now, &[(112, b"PING")]));
            seq += 1;
        }
        let mut order = new_order(id.as_bytes());
        order.extend_from_slice(&PARTIES);
        inbound.push(message(b"D", seq, now, &order));
    }

    let mut now = T0;
    session.on_connected(now, app);
    let step =
        |session: &mut Session<MemoryStore>, app: &mut dyn Application, msg: &[u8], now: i64| {
            session.on_bytes(msg, now, app);
            if send == Sends::Untyped && session.is_logged_on() {
                session
                    .send(now, app, b"D", |m| {
                        m.str(11, b"OUT").str(55, b"MSFT");
                    })
                    .unwrap();
            }
            if send == Sends::Typed && session.is_logged_on() {
                session
                    .send_typed::<fix44::NewOrderSingle>(now, app, |order| {
                        order
                            .cl_ord_id("OUT")
                            .symbol("MSFT")
                            .side(Side::Sell)
                            .order_qty(Decimal::new(5, 0));
                    })
                    .unwrap();
            }
            let typed_reply = send == Sends::Typed
                && msg.windows(6).any(|w| w == b"\x0135=D\x01")
                && session.is_logged_on();
            session.commit().unwrap();
            let n = session.outbound().len();
            assert!(n > 0);
            if typed_reply {
                // The typed ExecutionReport, then the typed order.
                let out = session.outbound();
                let er = out.windows(6).position(|w| w == b"\x0135=8\x01");
                let nos = out.windows(6).rposition(|w| w == b"\x0135=D\x01");
                assert!(er.is_some() && nos.is_some() && er < nos);
            }
            session.consume_outbound(n, app);
            while let Some(ev) = session.poll_event() {
                assert!(
                    !matches!(
                        ev,
                        SessionEvent::Disconnect(_) | SessionEvent::Rejected { .. }
                    ),
                    "{ev:?}"
                );
            }
        };
    // One phase (the warm-up, then the measured one): its messages, then a
    // heartbeat on the timer path too.
    let mut run = |msgs: &[Vec<u8>]| {
        for msg in msgs {
            now += 1_000_000;
            step(&mut session, app, msg, now);
        }
        now += 30 * SECOND;
        session.on_timer(now, app);
        session.commit().unwrap();
        session.consume_outbound(session.outbound().len(), app);
    };
    let warm = WARM as usize + WARM as usize / 10;
    run(&inbound[..=warm]);
    let allocs = allocs_during(|| run(&inbound[warm + 1..]));
    assert_eq!(session.next_target_seq(), seq + 1);
    assert_eq!(allocs, 0, "allocations on the steady-state path");
}

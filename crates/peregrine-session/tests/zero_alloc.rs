//! Proves the steady-state path (receive an application message, validate it against the
//! dictionary, echo it back through the store) allocates nothing after warm-up, with a
//! counting allocator.
use std::sync::Arc;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, MessageView};
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{
    AdminMessage, AppEvent, AppReject, Application, DoNotSend, EchoApp, Outbox, OutgoingMessage,
    Role, Session, SessionConfig, SessionEvent, SessionId, SECOND,
};
use peregrine_store::MemoryStore;

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

/// Allocations `f` makes on this thread (tests run in parallel threads).
fn allocs_during(f: impl FnOnce()) -> usize {
    peregrine_alloc::allocations_in(f).1 as usize
}

const T0: i64 = 1_795_341_600_250_000_000;

fn message(msg_type: &[u8], seq: u64, now: i64, body: &[(u32, &[u8])]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(b"FIX.4.4", msg_type);
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Millis);
    m.uint(34, seq)
        .str(49, b"TW")
        .timestamp(52, &ts, TimePrecision::Millis)
        .str(56, b"ISLD");
    for &(t, v) in body {
        m.str(t, v);
    }
    m.finish().to_vec()
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
    fn on_event(&mut self, _id: &SessionId, _event: &AppEvent<'_>) {
        self.events += 1;
    }
}

#[test]
fn receive_validate_echo_allocates_nothing_after_warm_up() {
    let dicts = dicts();
    steady_state(&mut EchoApp::new(Some(dicts.clone())), dicts, false);
}

#[test]
fn the_application_hooks_allocate_nothing_after_warm_up() {
    let dicts = dicts();
    let mut app = Hooked {
        echo: EchoApp::new(Some(dicts.clone())),
        events: 0,
        seen: 0,
    };
    steady_state(&mut app, dicts, true);
    // The order sent after each inbound message (the Logon, 2,200 orders, 220
    // TestRequests) went through to_app.
    assert_eq!(app.seen, 2_421);
}

fn dicts() -> Arc<Dictionaries> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    );
    Arc::new(Dictionaries::single(Dictionary::from_file(path).unwrap()))
}

/// Logon, warm-up, then 2,000 orders echoed (and TestRequests answered, and a
/// Heartbeat on the timer; with `send`, an order sent from outside a callback after
/// each one) under the counting allocator: nothing may be allocated.
fn steady_state(app: &mut dyn Application, dicts: Arc<Dictionaries>, send: bool) {
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
        inbound.push(message(
            b"D",
            seq,
            now,
            &[
                (11, id.as_bytes()),
                (21, b"1"),
                (38, b"100"),
                (40, b"2"),
                (44, b"10.25"),
                (54, b"1"),
                (55, b"MSFT"),
                (60, b"20261122-10:00:00.250"),
                (453, b"2"),
                (448, b"A"),
                (447, b"D"),
                (452, b"1"),
                (448, b"B"),
                (447, b"D"),
                (452, b"3"),
            ],
        ));
    }

    let mut now = T0;
    session.on_connected(now, app);
    let step =
        |session: &mut Session<MemoryStore>, app: &mut dyn Application, msg: &[u8], now: i64| {
            session.on_bytes(msg, now, app);
            if send && session.is_logged_on() {
                session
                    .send(now, app, b"D", |m| {
                        m.str(11, b"OUT").str(55, b"MSFT");
                    })
                    .unwrap();
            }
            session.commit().unwrap();
            let n = session.outbound().len();
            assert!(n > 0);
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
    let warm = WARM as usize + WARM as usize / 10;
    for msg in &inbound[..=warm] {
        now += 1_000_000;
        step(&mut session, app, msg, now);
    }
    // A heartbeat on the timer path too.
    now += 30 * SECOND;
    session.on_timer(now, app);
    session.commit().unwrap();
    session.consume_outbound(session.outbound().len(), app);

    let allocs = allocs_during(|| {
        for msg in &inbound[warm + 1..] {
            now += 1_000_000;
            step(&mut session, app, msg, now);
        }
        now += 30 * SECOND;
        session.on_timer(now, app);
        session.commit().unwrap();
        session.consume_outbound(session.outbound().len(), app);
    });
    assert_eq!(session.next_target_seq(), seq + 1);
    assert_eq!(allocs, 0, "allocations on the steady-state path");
}

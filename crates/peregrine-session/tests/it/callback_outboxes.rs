//! Every callback that is told something (`on_event`, `from_admin`,
//! `on_logout`) is given an outbox: what it sends on other sessions goes to
//! the engine with the call's forwards; what it sends on its own session goes
//! at the end of the call, as `Session::send` would send it then (through
//! `to_app` when logged on, stored for after the Logon otherwise), never in
//! the middle of the session's own work.

use crate::support;

use std::sync::Arc;

use peregrine_codec::MessageView;
use peregrine_session::{
    AppEvent, AppReject, Application, LogoutReason, Outbox, OutgoingMessage, PeerStatus, Peers,
    RejectLogon, SendError, Session, SessionId, SessionRef, To,
};
use peregrine_store::{MemoryStore, MessageStore};
use support::{config, log_on, message, T0};

/// The engine's other session: VENUE, logged on.
#[derive(Debug)]
struct Engine;

impl Peers for Engine {
    fn find(&self, to: &To<'_>) -> Option<PeerStatus> {
        match to {
            To::Id(id) if id.target_comp_id == "VENUE" => Some(PeerStatus {
                reference: SessionRef::new(3, 1),
                state: peregrine_session::SessionState::LoggedOn,
                logged_on: true,
                queue_while_logged_out: true,
                next_sender_seq: 1,
                next_target_seq: 1,
            }),
            _ => None,
        }
    }
}

fn venue() -> SessionId {
    SessionId::new("FIX.4.4", "ISLD", "VENUE")
}

/// Tells the venue of every disconnect and logout, and greets its own
/// counterparty from `from_admin` (on a Logon) and `on_event` (on connect);
/// keeps what each send answered and which session each outbox named.
#[derive(Default)]
struct Watcher {
    said: Vec<String>,
    to_app: Vec<u64>,
}

impl Watcher {
    fn note<T: std::fmt::Debug>(&mut self, what: &str, r: Result<T, SendError>) {
        self.said.push(format!(
            "{what}: {}",
            match r {
                Ok(v) => format!("{v:?}"),
                Err(e) => e.to_string(),
            }
        ));
    }
}

impl Application for Watcher {
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), RejectLogon> {
        if msg.msg_type() == b"5" {
            let r = out.send(b"B", |m| {
                m.str(148, b"goodbye");
            });
            self.note("from_admin logout send", r);
        }
        if msg.msg_type() == b"A" {
            let r = out.send(b"B", |m| {
                m.str(148, b"welcome");
            });
            self.note("from_admin send", r);
        }
        Ok(())
    }

    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, out: &mut Outbox<'_>) {
        assert_eq!(out.session_id(), id);
        match event {
            AppEvent::CallbackSendRefused { .. } => self.said.push(event.to_string()),
            AppEvent::Connected => {
                let r = out.send(b"B", |m| {
                    m.str(148, b"connected");
                });
                self.note("connected send", r);
            }
            AppEvent::Disconnected { .. } => {
                let r = out.send_to(&venue(), b"B", |m| {
                    m.str(148, id.target_comp_id.as_bytes()).str(58, b"gone");
                });
                self.note("disconnected send_to", r.map(|r| r.index()));
                let r = out.send(b"B", |m| {
                    m.str(148, b"while away");
                });
                self.note("disconnected send", r);
            }
            _ => {}
        }
    }

    fn on_logout(&mut self, _id: &SessionId, _why: &LogoutReason<'_>, out: &mut Outbox<'_>) {
        let r = out.send_to(&venue(), b"B", |m| {
            m.str(148, b"logged out");
        });
        self.note("on_logout send_to", r.map(|r| r.index()));
    }

    fn to_app(
        &mut self,
        msg: &mut OutgoingMessage<'_>,
        _id: &SessionId,
    ) -> Result<(), peregrine_session::DoNotSend> {
        self.to_app.push(msg.seq_num());
        Ok(())
    }

    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        Ok(())
    }
}

fn forwards(session: &mut Session<MemoryStore>) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    session.take_forwards(&mut |f| {
        out.push((
            f.to.index(),
            String::from_utf8_lossy(f.body).replace('\x01', "|"),
        ))
    });
    out
}

#[test]
fn from_admin_and_on_event_send_on_their_session_as_a_send_would() {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    let mut app = Watcher::default();
    log_on(&mut session, &mut app);
    // Connected: not logged on, so at the end of on_connected it is stored
    // under 1, for the resend the counterparty will ask for (as a send while
    // not logged on). The Logon's from_admin: the call ends logged on, so it
    // goes after our Logon (2) as new message 3, through to_app.
    assert_eq!(app.said, ["connected send: 1", "from_admin send: 2"]);
    assert_eq!(
        app.to_app,
        [3],
        "only the message sent logged on meets to_app"
    );
    let mut stored = Vec::new();
    session
        .store_mut()
        .for_each_in_range(1, u64::MAX, &mut |seq, m| {
            let m = String::from_utf8_lossy(m);
            stored.push((seq, m.contains("148=connected"), m.contains("148=welcome")))
        })
        .unwrap();
    assert_eq!(
        stored,
        [(1, true, false), (2, false, false), (3, false, true)]
    );
    assert_eq!(session.next_sender_seq(), 4);
}

#[test]
fn on_event_and_on_logout_forward_when_the_connection_goes() {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    session.set_peers(Some(Arc::new(Engine)));
    let mut app = Watcher::default();
    log_on(&mut session, &mut app);
    forwards(&mut session);
    app.said.clear();
    let next = session.next_sender_seq();
    session.on_disconnected(T0, &mut app);
    assert_eq!(
        app.said,
        [
            "on_logout send_to: 3",
            "disconnected send_to: 3",
            format!("disconnected send: {next}").as_str()
        ]
    );
    assert_eq!(
        forwards(&mut session),
        [
            (3, "148=logged out|".to_string()),
            (3, "148=TW|58=gone|".to_string())
        ]
    );
    // session is not logged on: stored for after the next Logon, not sent (nothing to send on).
    assert!(session.outbound().is_empty());
    assert_eq!(session.next_sender_seq(), next + 1);
    let mut stored = Vec::new();
    session
        .store_mut()
        .for_each_in_range(next, next, &mut |_, m| {
            stored.push(String::from_utf8_lossy(m).contains("148=while away"))
        })
        .unwrap();
    assert_eq!(stored, [true]);
}

#[test]
fn a_session_that_keeps_nothing_while_logged_out_refuses_at_once() {
    let mut cfg = config("FIX.4.4");
    cfg.queue_while_logged_out = false;
    let mut session = Session::new(cfg, MemoryStore::new(T0), T0);
    let mut app = Watcher::default();
    session.on_connected(T0, &mut app);
    assert_eq!(app.said, ["connected send: session is not logged on"]);
    let logon = message(b"A", 1, T0, &[(98, b"0"), (108, b"30")]);
    session.on_bytes(&logon, T0, &mut app);
    assert!(session.is_logged_on());
    // from_admin of the Logon runs before the session is logged on.
    assert_eq!(app.said[1], "from_admin send: session is not logged on");
    assert!(app.to_app.is_empty());
    let next = session.next_sender_seq();
    session.on_disconnected(T0, &mut app);
    assert_eq!(
        app.said.last().map(String::as_str),
        Some("disconnected send: session is not logged on")
    );
    assert_eq!(session.next_sender_seq(), next, "no number used");
}

#[test]
fn a_callback_send_the_same_call_cannot_keep_is_refused_to_the_application() {
    let mut cfg = config("FIX.4.4");
    cfg.queue_while_logged_out = false;
    let mut session = Session::new(cfg, MemoryStore::new(T0), T0);
    let mut app = Watcher::default();
    log_on(&mut session, &mut app);
    app.said.clear();
    let next = session.next_sender_seq();
    // The peer logs out: from_admin sends while still logged on (taken, a
    // number given), then the same call answers the Logout and the session is
    // no longer logged on, keeping nothing: the application hears it.
    session.on_bytes(&message(b"5", 2, T0, &[]), T0, &mut app);
    assert_eq!(
        app.said,
        [
            format!("from_admin logout send: {next}"),
            "a B a callback sent on this session was not sent: not logged on".to_string()
        ]
    );
}

/// One typed handler for every session: `crack` gives it the outbox, and the
/// outbox names the session (`Outbox::session_id`).
#[derive(Default)]
struct Desk {
    orders: Vec<(String, String)>,
}

impl peregrine_messages::fix44::MessageHandler<Outbox<'_>> for Desk {
    type Error = AppReject;
    fn on_new_order_single(
        &mut self,
        order: peregrine_messages::fix44::NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let id = order.cl_ord_id().and_then(Result::ok).unwrap_or("?");
        self.orders
            .push((out.session_id().target_comp_id.clone(), id.to_string()));
        Ok(())
    }
}

impl Application for Desk {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        peregrine_messages::fix44::crack(self, msg, out)
    }
}

#[test]
fn a_typed_handler_knows_the_session_of_each_message_from_its_outbox() {
    let mut desk = Desk::default();
    for (target, order) in [("TW", "ORD-1"), ("TW2", "ORD-2")] {
        let mut cfg = config("FIX.4.4");
        cfg.id = SessionId::new("FIX.4.4", "ISLD", target);
        let mut session = Session::new(cfg, MemoryStore::new(T0), T0);
        session.on_connected(T0, &mut desk);
        let logon = support::message_from(target, b"A", 1, T0, &[(98, b"0"), (108, b"30")]);
        session.on_bytes(&logon, T0, &mut desk);
        assert!(session.is_logged_on(), "{target}");
        let body = support::new_order(order.as_bytes());
        session.on_bytes(
            &support::message_from(target, b"D", 2, T0, &body),
            T0,
            &mut desk,
        );
    }
    assert_eq!(
        desk.orders,
        [
            ("TW".to_string(), "ORD-1".to_string()),
            ("TW2".to_string(), "ORD-2".to_string())
        ]
    );
}

//! A callback sends on other sessions of its engine (`Outbox::send_to`): the
//! session keeps those messages for the engine (`take_forwards`) instead of
//! sending them itself, refuses what the engine would (an unknown session, one
//! not logged on that does not queue), and bounds them with its own.

use crate::support;

use std::sync::{Arc, Mutex};

use peregrine_codec::MessageView;
use peregrine_session::{
    AppReject, Application, Outbox, PeerStatus, Peers, SendError, Session, SessionId, SessionRef,
    To,
};
use peregrine_store::{MemoryStore, MessageStore};
use support::{config, drain_rendered, log_on, message, new_order, T0};

/// The engine's other sessions: VENUE (logged on), DOWN (not logged on,
/// refuses to queue), QUEUED (not logged on, queues).
#[derive(Debug)]
struct Engine;

impl Peers for Engine {
    fn find(&self, to: &To<'_>) -> Option<PeerStatus> {
        let name = match to {
            To::Id(id) => id.target_comp_id.clone(),
            To::Ref(r) if *r == SessionRef::new(7, 2) => "VENUE".into(),
            To::Ref(_) => return None,
        };
        let (index, logged_on, queue) = match name.as_str() {
            "VENUE" => (7, true, false),
            "DOWN" => (8, false, false),
            "QUEUED" => (9, false, true),
            _ => return None,
        };
        Some(PeerStatus {
            reference: SessionRef::new(index, 2),
            state: if logged_on {
                peregrine_session::SessionState::LoggedOn
            } else {
                peregrine_session::SessionState::Disconnected
            },
            logged_on,
            queue_while_logged_out: queue,
            next_sender_seq: 1,
            next_target_seq: 1,
        })
    }
}

/// Forwards each order to every destination it names in Text(58), and
/// answers the client itself; keeps what each send said.
#[derive(Default)]
struct Router {
    said: Arc<Mutex<Vec<Result<u32, String>>>>,
}

impl Application for Router {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let cl_ord_id = msg.get(11).unwrap_or(b"?");
        let targets = String::from_utf8_lossy(msg.get(58).unwrap_or(b"")).into_owned();
        for target in targets.split(',').filter(|t| !t.is_empty()) {
            let sent = if target == "REF" {
                out.send_to(SessionRef::new(7, 2), b"D", |m| {
                    m.str(11, cl_ord_id);
                })
            } else {
                let to = SessionId::new("FIX.4.4", "ISLD", target);
                out.send_to_with_header(&to, b"D", &[(115, b"CLIENT1")], |m| {
                    m.str(11, cl_ord_id).str(55, b"MSFT");
                })
            };
            self.said
                .lock()
                .unwrap()
                .push(sent.map(|r| r.index()).map_err(|e| e.to_string()));
        }
        out.send(b"8", |m| {
            m.str(11, cl_ord_id).str(39, b"0");
        })
        .map(|_| ())
        .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

fn order(seq: u64, id: &[u8], targets: &[u8]) -> Vec<u8> {
    let mut body = new_order(id);
    body.push((58, targets));
    message(b"D", seq, T0, &body)
}

type Taken = Vec<(SessionRef, String, Vec<(u32, String)>, String)>;

fn take(session: &mut Session<MemoryStore>) -> Taken {
    let mut out = Vec::new();
    session.take_forwards(&mut |f| {
        out.push((
            f.to,
            String::from_utf8_lossy(f.msg_type).into_owned(),
            f.header
                .iter()
                .map(|(t, v)| (*t, String::from_utf8_lossy(v).into_owned()))
                .collect(),
            String::from_utf8_lossy(f.body).replace('\x01', "|"),
        ))
    });
    out
}

#[test]
fn a_callback_sends_on_other_sessions_through_the_engine() {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    session.set_peers(Some(Arc::new(Engine)));
    let mut app = Router::default();
    log_on(&mut session, &mut app);
    session.on_bytes(&order(2, b"C-1", b"VENUE,REF"), T0, &mut app);
    assert!(session.has_forwards());
    assert_eq!(
        *app.said.lock().unwrap(),
        [Ok(7), Ok(7)],
        "by SessionId and by SessionRef"
    );
    // The client's own answer goes out on its own session, the forwards not.
    assert_eq!(
        drain_rendered(&mut session, &mut app),
        ["35=8|34=2|49=ISLD|56=TW|11=C-1|39=0"]
    );
    assert_eq!(
        take(&mut session),
        [
            (
                SessionRef::new(7, 2),
                "D".into(),
                vec![(115, "CLIENT1".into())],
                "11=C-1|55=MSFT|".into()
            ),
            (SessionRef::new(7, 2), "D".into(), vec![], "11=C-1|".into()),
        ]
    );
    assert!(!session.has_forwards(), "taken once");
    assert!(take(&mut session).is_empty());
    assert_eq!(
        session.store().next_sender_seq(),
        3,
        "forwards use none of ours"
    );
}

#[test]
fn a_send_the_engine_would_refuse_is_refused_in_the_callback() {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    session.set_peers(Some(Arc::new(Engine)));
    let mut app = Router::default();
    log_on(&mut session, &mut app);
    session.on_bytes(&order(2, b"C-2", b"NOBODY,DOWN,QUEUED"), T0, &mut app);
    assert_eq!(
        *app.said.lock().unwrap(),
        [
            Err("no session FIX.4.4:ISLD->NOBODY in this engine".into()),
            Err(SendError::NotLoggedOn.to_string()),
            Ok(9),
        ]
    );
    let taken = take(&mut session);
    assert_eq!(taken.len(), 1, "only the queued one: {taken:?}");
    assert_eq!(taken[0].0, SessionRef::new(9, 2));
}

#[test]
fn a_session_alone_has_no_peers() {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    let mut app = Router::default();
    log_on(&mut session, &mut app);
    session.on_bytes(&order(2, b"C-3", b"VENUE"), T0, &mut app);
    assert_eq!(
        *app.said.lock().unwrap(),
        [Err("no session FIX.4.4:ISLD->VENUE in this engine".into())]
    );
    assert!(!session.has_forwards());
}

#[test]
fn forwards_count_against_the_callback_outbox_bound() {
    let mut cfg = config("FIX.4.4");
    cfg.max_outbound_bytes = 4096;
    let mut session = Session::new(cfg, MemoryStore::new(T0), T0);
    session.set_peers(Some(Arc::new(Engine)));
    let mut app = Router::default();
    log_on(&mut session, &mut app);
    let targets = vec!["VENUE"; 400].join(",");
    session.on_bytes(&order(2, b"C-4", targets.as_bytes()), T0, &mut app);
    let said = app.said.lock().unwrap();
    let kept = said.iter().filter(|r| r.is_ok()).count();
    assert!(kept > 50 && kept < 400, "{kept} kept");
    assert!(said[kept..]
        .iter()
        .all(|r| r.as_ref().is_err_and(|e| e.contains("holds 4096 bytes"))));
    drop(said);
    assert_eq!(take(&mut session).len(), kept);
}

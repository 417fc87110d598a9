//! A callback sends on another session of its engine (`Outbox::send_to`),
//! over 127.0.0.1: a router's client session forwards each order to the
//! venue session and each report back, in the same turn; with an engine
//! journal the forward and the order's sequence number are one transaction.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::{AppEngine, Engine, EngineBuilder, Idle};
use peregrine_session::{
    AppReject, Application, LogoutReason, Outbox, SendError, SessionId, SharedApp,
};

use crate::support;
use support::{engine_with, options, send_order};

/// The router: client sessions C1, C2 and the venue session, all accepted
/// on one port. An order from a client goes to the venue with the client's
/// CompID in Account(1); a report from the venue goes to the client its
/// Account names. A venue that is down (QueueWhileLoggedOut=N) is answered
/// with a rejection at once. One router serves every session (`SharedApp`):
/// its counts span them, with no locking of its own.
#[derive(Default)]
struct Router {
    refused: Vec<String>,
    /// Orders forwarded, by client.
    forwarded: std::collections::BTreeMap<String, u32>,
    /// The orders the venue session had stored when it went, read from
    /// another session's callback (ClOrdIDs).
    venue_stored: Vec<String>,
}

impl Application for Router {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let cl_ord_id = msg.get(11).unwrap_or(b"?");
        if id.target_comp_id == "VENUE" {
            let client = String::from_utf8_lossy(msg.get(1).unwrap_or(b"")).into_owned();
            let to = SessionId::new("FIX.4.4", "ISLD", &client);
            out.send_to(&to, b"8", |m| {
                m.str(11, cl_ord_id).str(39, b"2").str(150, b"F");
            })
            .map_err(|e| AppReject::business(0, e.to_string()))?;
            return Ok(());
        }
        let venue = SessionId::new("FIX.4.4", "ISLD", "VENUE");
        let sent = out.send_to(&venue, b"D", |m| {
            m.str(1, id.target_comp_id.as_bytes())
                .str(11, cl_ord_id)
                .str(55, b"PEREGRINE");
        });
        match sent {
            Ok(_) => {
                *self.forwarded.entry(id.target_comp_id.clone()).or_default() += 1;
                Ok(())
            }
            Err(e @ SendError::NotLoggedOn) => {
                self.refused.push(e.to_string());
                out.send(b"8", |m| {
                    m.str(11, cl_ord_id).str(39, b"8").str(58, b"venue down");
                })
                .map(|_| ())
                .map_err(|e| AppReject::business(0, e.to_string()))
            }
            Err(e) => Err(AppReject::business(0, e.to_string())),
        }
    }

    /// The venue is gone: each client hears it, from this callback.
    /// An order for the venue with ClOrdID VETO does not leave.
    fn to_app(
        &mut self,
        msg: &mut peregrine_session::OutgoingMessage<'_>,
        id: &SessionId,
    ) -> Result<(), peregrine_session::DoNotSend> {
        let veto =
            id.target_comp_id == "VENUE" && msg.view().is_ok_and(|v| v.get(11) == Some(b"VETO"));
        if veto {
            Err(peregrine_session::DoNotSend)
        } else {
            Ok(())
        }
    }

    /// A forward the venue session refused when it was handed over: the
    /// router, told it was taken, hears it was not.
    fn on_event(
        &mut self,
        _id: &SessionId,
        event: &peregrine_session::AppEvent<'_>,
        _out: &mut Outbox<'_>,
    ) {
        if let peregrine_session::AppEvent::CallbackSendRefused { .. } = event {
            self.refused.push(event.to_string());
        }
    }

    fn on_logout(&mut self, id: &SessionId, _why: &LogoutReason<'_>, out: &mut Outbox<'_>) {
        if id.target_comp_id != "VENUE" {
            return;
        }
        // What the venue session stored, read as a client's callback could.
        let mut stored = Vec::new();
        let read = out.peer_messages(id, 1, peregrine_store::SEQ_END, &mut |_, m| {
            let text = String::from_utf8_lossy(m).into_owned();
            if text.contains("\x0135=D\x01") {
                let at = text.find("\x0111=").unwrap_or(0) + 4;
                stored.push(text[at..].split('\x01').next().unwrap_or("").to_string());
            }
        });
        assert!(matches!(read, Some(Ok(()))), "{read:?}");
        self.venue_stored = stored;
        for client in ["C1", "C2"] {
            let to = SessionId::new("FIX.4.4", "ISLD", client);
            let sent = out.send_to(&to, b"B", |m| {
                m.str(148, b"venue down");
            });
            if let Err(e) = sent {
                self.refused.push(e.to_string());
            }
        }
    }
}

/// The venue: fills every order, keeping its Account.
struct Venue(Arc<AtomicUsize>);

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.fetch_add(1, Ordering::Relaxed);
        let (account, cl_ord_id) = (msg.get(1).unwrap_or(b""), msg.get(11).unwrap_or(b""));
        out.send(b"8", |m| {
            m.str(1, account).str(11, cl_ord_id).str(39, b"2");
        })
        .map(|_| ())
        .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

/// What a client receives: (ClOrdID, OrdStatus).
#[derive(Clone, Default)]
struct Reports(Arc<Mutex<Vec<(String, String)>>>);

impl Application for Reports {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let f = |t| String::from_utf8_lossy(msg.get(t).unwrap_or(b"")).into_owned();
        if msg.msg_type() == b"B" {
            self.0.lock().unwrap().push((f(148), "news".into()));
            return Ok(());
        }
        self.0.lock().unwrap().push((f(11), f(39)));
        Ok(())
    }
}

fn router_cfg(dir: &std::path::Path) -> String {
    format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=ISLD\nUseDataDictionary=N\nFileStorePath={}\nFileStoreSync=N\n\
         EngineJournal=Y\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=C1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=C2\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=VENUE\nQueueWhileLoggedOut=N\n",
        dir.join("store").display()
    )
}

fn initiators_cfg(port: u16, names: &[&str]) -> String {
    let mut cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=ISLD\nUseDataDictionary=N\nReconnectInterval=1\n"
    );
    for n in names {
        cfg.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID={n}\n"
        ));
    }
    cfg
}

fn turn_all(
    router: &mut AppEngine<SharedApp<Router>>,
    others: &mut [&mut Engine<BoxedFixSession>],
    what: &str,
    mut done: impl FnMut(&AppEngine<SharedApp<Router>>) -> bool,
) {
    let start = Instant::now();
    while !done(router) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        router.poll().unwrap();
        for e in others.iter_mut() {
            e.poll().unwrap();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn a_router_forwards_orders_to_the_venue_and_reports_back_in_one_journal_turn() {
    let dir = tempfile::tempdir().unwrap();
    let app = SharedApp::new(Router::default());
    let mut router = EngineBuilder::parse(&router_cfg(dir.path()), dir.path().join("r.cfg"))
        .unwrap()
        .build({
            let app = app.clone();
            move |_| app.clone()
        })
        .unwrap();
    let port = router.listener_addrs()[0].port();
    let reports = Reports::default();
    let seen = reports.clone();
    let mut clients = engine_with(
        &initiators_cfg(port, &["C1", "C2"]),
        &dir.path().join("c.cfg"),
        options(Idle::default(), false),
        StoreKind::Memory,
        &mut |_| Box::new(seen.clone()),
    );
    turn_all(
        &mut router,
        &mut [&mut clients],
        "the clients' logons",
        |r| r.sessions().iter().filter(|s| s.logged_on).count() == 2,
    );

    // The venue is not logged on and refuses to queue: the router answers
    // the order itself, in the callback.
    send_order(&mut clients, "FIX.4.4:C1->ISLD", b"D", "EARLY").unwrap();
    turn_all(&mut router, &mut [&mut clients], "the rejection", |_| {
        !reports.0.lock().unwrap().is_empty()
    });
    assert_eq!(
        *reports.0.lock().unwrap(),
        [("EARLY".to_string(), "8".to_string())]
    );
    assert_eq!(app.lock().refused, ["session is not logged on"]);

    let filled = Arc::new(AtomicUsize::new(0));
    let orders = filled.clone();
    let mut venue = engine_with(
        &initiators_cfg(port, &["VENUE"]),
        &dir.path().join("v.cfg"),
        options(Idle::default(), false),
        StoreKind::Memory,
        &mut |_| Box::new(Venue(orders.clone())),
    );
    turn_all(
        &mut router,
        &mut [&mut clients, &mut venue],
        "the venue's logon",
        |r| r.sessions().iter().all(|s| s.logged_on),
    );
    let turns_before = router.journals()[0].stats().turns;
    for n in 0..20 {
        let client = if n % 2 == 0 { "C1" } else { "C2" };
        send_order(
            &mut clients,
            &format!("FIX.4.4:{client}->ISLD"),
            b"D",
            &format!("O-{n}"),
        )
        .unwrap();
    }
    turn_all(
        &mut router,
        &mut [&mut clients, &mut venue],
        "20 fills",
        |_| reports.0.lock().unwrap().len() == 21,
    );
    assert_eq!(
        filled.load(Ordering::Relaxed),
        20,
        "the venue saw each order once"
    );
    let got = reports.0.lock().unwrap();
    for n in 0..20 {
        assert!(
            got.contains(&(format!("O-{n}"), "2".to_string())),
            "O-{n} filled: {got:?}"
        );
    }
    let turns = router.journals()[0].stats().turns - turns_before;
    assert!(
        turns > 0 && turns <= 60,
        "{turns} journal turns for 40 forwards"
    );
    // Each session's numbers: C1 and C2 each sent 10 orders (after their Logon
    // and, for C1, the early one), the venue received 20 and was sent 20.
    let names: Vec<(String, u64, u64)> = router
        .sessions()
        .iter()
        .map(|s| (s.name.clone(), s.next_sender_seq, s.next_target_seq))
        .collect();
    assert!(
        names.contains(&("FIX.4.4:ISLD->VENUE".into(), 22, 22)),
        "{names:?}"
    );
    assert!(
        names.contains(&("FIX.4.4:ISLD->C2".into(), 12, 12)),
        "{names:?}"
    );
    assert!(
        names.contains(&("FIX.4.4:ISLD->C1".into(), 13, 13)),
        "{names:?}"
    );

    drop(got);
    // One router saw both clients' orders.
    assert_eq!(
        app.lock()
            .forwarded
            .iter()
            .map(|(c, n)| (c.as_str(), *n))
            .collect::<Vec<_>>(),
        [("C1", 10), ("C2", 10)]
    );

    // An order the venue session's to_app vetoes: send_to took it, the
    // delivery did not; the sending session's application hears it.
    send_order(&mut clients, "FIX.4.4:C1->ISLD", b"D", "VETO").unwrap();
    turn_all(
        &mut router,
        &mut [&mut clients, &mut venue],
        "the veto",
        |_| app.lock().refused.len() == 2,
    );
    let said = app.lock().refused[1].clone();
    assert!(
        said.starts_with("a D a callback sent to session #")
            && said.ends_with("was not sent: vetoed by to_app"),
        "{said}"
    );

    // The venue goes: the router's on_logout for it tells both clients.
    drop(venue);
    turn_all(&mut router, &mut [&mut clients], "the news", |_| {
        reports
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.1 == "news")
            .count()
            == 2
    });
    let mut stored = app.lock().venue_stored.clone();
    stored.sort();
    let mut sent: Vec<String> = (0..20).map(|n| format!("O-{n}")).collect();
    sent.sort();
    assert_eq!(
        stored, sent,
        "the venue's stored orders, read from a callback"
    );
    let news: Vec<_> = reports
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.1 == "news")
        .cloned()
        .collect();
    assert_eq!(
        news,
        vec![("venue down".to_string(), "news".to_string()); 2]
    );
    assert_eq!(
        app.lock().refused.len(),
        2,
        "no send refused but the early one and the vetoed one"
    );
}

//! Sessions that come and go while the engine runs: created from an acceptor
//! template by a Logon (within its allow list), added and removed by command
//! and over the admin interface. Over real sockets on 127.0.0.1.

use std::net::SocketAddr;
use std::time::Duration;

use peregrine_engine::{Command, CommandError, EngineBuilder, Outcome, RunningEngine};
use peregrine_session::EchoApp;
use peregrine_testkit::Peer;

use crate::support;
use support::peer_logon;

const WAIT: Duration = Duration::from_secs(5);

/// Logs on as `sender` to VENUE; the answer (None: closed).
fn logon(addr: SocketAddr, sender: &str) -> (Peer, Option<String>) {
    peer_logon(addr, sender, "VENUE", WAIT)
}

/// The names of the venue's sessions.
fn session_names(venue: &RunningEngine<EchoApp>) -> Vec<String> {
    venue
        .sessions(WAIT)
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect()
}

#[test]
fn a_logon_that_fits_a_template_creates_its_session() {
    let cfg =
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
               SenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\nAcceptorTemplate=Y\n\
               AllowedTargetCompIDs=A,B\n";
    let venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let addr = venue.listener_addrs()[0];
    assert!(
        venue.sessions(WAIT).unwrap().is_empty(),
        "a template is no session"
    );
    let (mut a, answer) = logon(addr, "A");
    let answer = answer.expect("A is allowed");
    assert!(
        answer.contains("|35=A|") && answer.contains("|49=VENUE|") && answer.contains("|56=A|"),
        "{answer}"
    );
    // An echo through the new session.
    a.send("35=D|11=ORDER-1|55=X|54=1|38=1|40=1|60=20260101-00:00:00.000");
    let echo = a.read(WAIT, || {}).expect("echo");
    assert!(echo.contains("|11=ORDER-1|"), "{echo}");
    // C is not on the allow list; FIX.4.2 fits no template.
    let (_c, answer) = logon(addr, "C");
    assert_eq!(answer, None, "C is refused");
    assert_eq!(session_names(&venue), ["FIX.4.4:VENUE->A"]);
    // The session the template made is reachable from another thread: its
    // SessionRef is in the snapshot (RunningEngine::session_ref knows only the
    // sessions that existed at start).
    assert_eq!(venue.session_ref("FIX.4.4:VENUE->A"), None);
    let made = venue.sessions(WAIT).unwrap()[0].session_ref;
    let sender = venue.sender();
    std::thread::spawn(move || {
        sender.send(made, b"B", |m| {
            m.str(148, b"from another thread");
        })
    })
    .join()
    .unwrap()
    .unwrap();
    let news = a.read(WAIT, || {}).expect("the news");
    assert!(
        news.contains("|35=B|") && news.contains("|148=from another thread|"),
        "{news}"
    );
    venue.stop().unwrap();
}

/// A template open to any counterparty keeps at most `MaxTemplateSessions`
/// sessions: past that a Logon is refused and no session (no store, no
/// logs) is made; the sessions it made still log on.
#[test]
fn a_template_makes_at_most_max_template_sessions() {
    let cfg =
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
               SenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\nAcceptorTemplate=Y\n\
               MaxTemplateSessions=2\n";
    let venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let addr = venue.listener_addrs()[0];
    let (a, answer) = logon(addr, "A");
    assert!(answer.expect("A logs on").contains("|35=A|"));
    let (_b, answer) = logon(addr, "B");
    assert!(answer.expect("B logs on").contains("|35=A|"));
    let (_c, answer) = logon(addr, "C");
    assert_eq!(answer, None, "a third session is refused");
    let mut names = session_names(&venue);
    names.sort();
    assert_eq!(names, ["FIX.4.4:VENUE->A", "FIX.4.4:VENUE->B"]);
    // A session the template made is still A's: its connection reaches it
    // (answered, here with a Logout, as the peer starts again at 1), where
    // C's is closed unanswered.
    drop(a);
    std::thread::sleep(Duration::from_millis(200));
    let (_a, answer) = logon(addr, "A");
    let answer = answer.expect("A is answered");
    assert!(
        answer.contains("|49=VENUE|") && answer.contains("|56=A|"),
        "{answer}"
    );
    let (_c, answer) = logon(addr, "C");
    assert_eq!(answer, None, "C is still refused");
    venue.stop().unwrap();
}

#[test]
fn max_template_sessions_is_for_templates_and_checked() {
    for (cfg, says) in [
        (
            "[SESSION]\nConnectionType=acceptor\nSocketAcceptPort=5001\nBeginString=FIX.4.4\n\
             SenderCompID=V\nTargetCompID=A\nMaxTemplateSessions=5\n",
            "venue.cfg:7: MaxTemplateSessions: applies to a template only",
        ),
        (
            "[SESSION]\nConnectionType=acceptor\nSocketAcceptPort=5001\nBeginString=FIX.4.4\n\
             SenderCompID=V\nTargetCompID=*\nAcceptorTemplate=Y\nMaxTemplateSessions=0\n",
            "venue.cfg:8: MaxTemplateSessions",
        ),
    ] {
        let e = peregrine_engine::config::Settings::parse(cfg, "venue.cfg".as_ref())
            .expect_err("refused")
            .to_string();
        assert!(e.starts_with(says), "{e}");
    }
}

#[test]
fn sessions_are_added_and_removed_while_the_engine_runs() {
    let cfg =
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
               SenderCompID=VENUE\nUseDataDictionary=N\nLogoutTimeout=2\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let addr = venue.listener_addrs()[0];
    let handle = venue.handle();
    // B does not exist yet.
    assert_eq!(logon(addr, "B").1, None);
    let added = handle.call(
        Command::AddSessionLike {
            session: "FIX.4.4:VENUE->B".into(),
            like: "FIX.4.4:VENUE->A".into(),
        },
        WAIT,
    );
    let Ok(Ok(Outcome::SessionAdded { session, reference })) = added else {
        panic!("{added:?}")
    };
    assert_eq!(session, "FIX.4.4:VENUE->B");
    let again = handle.call(
        Command::AddSessionLike {
            session: "FIX.4.4:VENUE->B".into(),
            like: "FIX.4.4:VENUE->A".into(),
        },
        WAIT,
    );
    assert!(
        matches!(again, Ok(Err(CommandError::SessionExists { .. }))),
        "{again:?}"
    );
    let (mut b, answer) = logon(addr, "B");
    assert!(answer.expect("B logs on").contains("|35=A|"));
    // Removed while logged on: it logs out first, then it is gone.
    let removed = handle.call(
        Command::RemoveSession {
            session: "FIX.4.4:VENUE->B".into(),
        },
        WAIT,
    );
    assert!(
        matches!(
            removed,
            Ok(Ok(Outcome::SessionRemoved {
                logging_out: true,
                ..
            }))
        ),
        "{removed:?}"
    );
    let logout = b.read(WAIT, || {}).expect("a Logout");
    assert!(
        logout.contains("|35=5|") && logout.contains("|58=session removed|"),
        "{logout}"
    );
    b.send("35=5");
    assert!(b.closed_within(WAIT, || {}));
    let start = std::time::Instant::now();
    while venue.sessions(WAIT).unwrap().len() != 1 {
        assert!(start.elapsed() < WAIT, "B still there");
        std::thread::sleep(Duration::from_millis(10));
    }
    // A reference to the removed session is refused, not sent elsewhere.
    venue
        .sender()
        .send(reference, b"D", |m| {
            m.str(11, b"LOST");
        })
        .unwrap();
    assert_eq!(logon(addr, "B").1, None, "B is gone");
    venue.stop().unwrap();
}

/// `GET target` with the bearer `token`: the status and the body.
fn http(addr: SocketAddr, target: &str, token: &str) -> (u16, String) {
    let (status, _head, body) = support::get(addr, target, Some(token));
    (status, body)
}

#[test]
fn the_admin_interface_adds_and_removes_sessions_with_the_token() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nAdminHttpPort={port}\nAdminHttpToken=secret\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n"
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let admin = venue.admin_addr().unwrap();
    let add = "/addsession?SESSION=FIX.4.4:VENUE-%3EB&LIKE=FIX.4.4:VENUE-%3EA";
    assert_eq!(http(admin, add, "wrong").0, 401);
    assert_eq!(
        http(admin, add, "secret"),
        (200, "OK added FIX.4.4:VENUE->B\n".into())
    );
    assert_eq!(http(admin, add, "secret").0, 409);
    assert_eq!(
        http(
            admin,
            "/addsession?SESSION=FIX.4.2:VENUE-%3EC&LIKE=FIX.4.4:VENUE-%3EA",
            "secret"
        )
        .0,
        400,
        "another BeginString"
    );
    assert_eq!(venue.sessions(WAIT).unwrap().len(), 2);
    assert_eq!(
        http(admin, "/removesession?SESSION=FIX.4.4:VENUE-%3EB", "secret"),
        (200, "OK removed FIX.4.4:VENUE->B\n".into())
    );
    assert_eq!(
        http(admin, "/removesession?SESSION=FIX.4.4:VENUE-%3EB", "secret").0,
        404
    );
    assert_eq!(venue.sessions(WAIT).unwrap().len(), 1);
    venue.stop().unwrap();
}

/// A session added at run time on the port of a running listener must agree
/// with it on the address (and TLS) as at start-up: one port is one listener.
/// Its own address used to be ignored without a word.
#[test]
fn a_session_added_on_a_running_port_with_another_address_is_refused() {
    let cfg =
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
               SenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let added = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
                 SocketAcceptAddress=127.0.0.2\nSenderCompID=VENUE\nUseDataDictionary=N\n\
                 [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\n";
    let settings = peregrine_engine::config::Settings::parse(added, "added.cfg".as_ref())
        .unwrap()
        .sessions
        .remove(0);
    let answer = venue
        .handle()
        .call(Command::AddSession(Box::new(settings)), WAIT);
    let Ok(Err(CommandError::CannotAdd { name, why })) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(name, "FIX.4.4:VENUE->B");
    assert!(
        why.to_string()
            .contains("added.cfg:4: SocketAcceptAddress: 127.0.0.2 differs from 127.0.0.1"),
        "{why}"
    );
    assert_eq!(session_names(&venue), ["FIX.4.4:VENUE->A"]);
    venue.stop().unwrap();
}

/// An application whose state is shared, single-threaded, with the test's loop.
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<(&'static str, i64)>>>);

impl peregrine_session::Application for Shared {
    fn on_logon(
        &mut self,
        _: &peregrine_session::SessionId,
        out: &mut peregrine_session::Outbox<'_>,
    ) {
        self.0.borrow_mut().push(("on_logon", out.received_at()));
    }
    fn from_app(
        &mut self,
        _: &peregrine_codec::MessageView<'_>,
        _: &peregrine_session::SessionId,
        out: &mut peregrine_session::Outbox<'_>,
    ) -> Result<(), peregrine_session::AppReject> {
        self.0.borrow_mut().push(("from_app", out.received_at()));
        Ok(())
    }
}

#[test]
fn a_local_engine_runs_applications_sharing_rc_state_and_stamps_their_arrival() {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut engine = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .build_local(|_| Shared(seen.clone()))
        .unwrap();
    let addr = engine.listener_addrs()[0];
    let before = peregrine_session::system_now();
    let mut peer = Peer::connect(addr, "A", "VENUE");
    peer.send("35=A|98=0|108=30");
    let answer = peer.read(WAIT, || {
        engine.turn().unwrap();
    });
    assert!(answer.is_some_and(|a| a.contains("35=A")), "logged on");
    peer.send("35=B|148=news");
    let deadline = std::time::Instant::now() + WAIT;
    while seen.borrow().len() < 2 && std::time::Instant::now() < deadline {
        engine.turn().unwrap();
    }
    let after = peregrine_session::system_now();
    let seen = seen.borrow();
    let names: Vec<&str> = seen.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["on_logon", "from_app"]);
    // Stamped by the engine as each read returned: after the peer sent, in order.
    assert!(
        before <= seen[0].1 && seen[0].1 <= seen[1].1 && seen[1].1 <= after,
        "{seen:?}"
    );
}

#[test]
fn a_local_engine_refuses_templates_and_makes_no_session_while_it_runs() {
    let template = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
                    UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\n\
                    AcceptorTemplate=Y\n";
    let refused = EngineBuilder::parse(template, "venue.cfg")
        .unwrap()
        .build_local(|_| EchoApp::new(None));
    let Err(e @ peregrine_engine::BuildError::TemplateNeedsFactory { .. }) = refused else {
        panic!("{refused:?}")
    };
    assert!(e.to_string().contains("FIX.4.4:VENUE->*"), "{e}");

    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
               UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let mut engine = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .build_local(|_| EchoApp::new(None))
        .unwrap();
    let handle = engine.handle();
    let added = cfg.replace("TargetCompID=A", "TargetCompID=B");
    let settings = peregrine_engine::config::Settings::parse(&added, "added.cfg".as_ref())
        .unwrap()
        .sessions
        .remove(0);
    let asker =
        std::thread::spawn(move || handle.call(Command::AddSession(Box::new(settings)), WAIT));
    while !asker.is_finished() {
        engine.turn().unwrap();
    }
    let answer = asker.join().unwrap();
    assert!(
        matches!(answer, Ok(Err(CommandError::CannotAdd { .. }))),
        "{answer:?}"
    );
    assert_eq!(engine.sessions().len(), 1);
}

/// A session that could not be added leaves nothing behind: its store (a
/// view of the engine journal) closes, so it can be added again at once.
#[test]
fn a_session_refused_at_add_can_be_added_again_with_its_store() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nFileStorePath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n",
        dir.path().join("store").display()
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let b = |address: &str| {
        let text = format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
             SocketAcceptAddress={address}\nSenderCompID=VENUE\nUseDataDictionary=N\n\
             FileStorePath={}\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\n",
            dir.path().join("store").display()
        );
        let settings = peregrine_engine::config::Settings::parse(&text, "added.cfg".as_ref())
            .unwrap()
            .sessions
            .remove(0);
        venue
            .handle()
            .call(Command::AddSession(Box::new(settings)), WAIT)
    };
    let refused = b("127.0.0.2");
    assert!(
        matches!(refused, Ok(Err(CommandError::CannotAdd { .. }))),
        "{refused:?}"
    );
    let added = b("127.0.0.1");
    assert!(
        matches!(added, Ok(Ok(Outcome::SessionAdded { .. }))),
        "added again: {added:?}"
    );
    assert_eq!(
        session_names(&venue),
        ["FIX.4.4:VENUE->A", "FIX.4.4:VENUE->B"]
    );
    venue.stop().unwrap();
}

/// The event log of a session made from a template is in time order: its
/// creation lines come before "accepted connection", and their timestamps
/// do not go back (the connection's line once carried the turn's earlier clock).
#[test]
fn a_template_made_session_logs_its_events_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nFileLogPath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\nAcceptorTemplate=Y\n",
        dir.path().display()
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let (a, answer) = logon(venue.listener_addrs()[0], "A");
    assert!(answer.is_some(), "A logs on");
    drop(a);
    venue.stop().unwrap();
    let text = std::fs::read_to_string(dir.path().join("FIX.4.4-VENUE-A.event.log")).unwrap();
    let lines: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once(" : ").expect("time : text"))
        .collect();
    let texts: Vec<&str> = lines.iter().map(|(_, t)| *t).collect();
    let created = texts.iter().position(|t| *t == "session created");
    let accepted = texts
        .iter()
        .position(|t| t.starts_with("accepted connection"));
    assert!(
        matches!((created, accepted), (Some(c), Some(a)) if c < a),
        "{text}"
    );
    // Its schedule is written as it is made (the template has none).
    let schedule = texts.iter().position(|t| *t == "no schedule (always on)");
    assert!(
        matches!((created, schedule, accepted), (Some(c), Some(s), Some(a)) if c < s && s < a),
        "{text}"
    );
    // YYYYMMDD-HH:MM:SS.ffffff sorts as text.
    for pair in lines.windows(2) {
        assert!(pair[0].0 <= pair[1].0, "out of order:\n{text}");
    }
}

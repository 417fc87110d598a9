//! What an application sees of the engine from inside its callbacks (issue 25
//! §3): `EngineHandle::call` on the engine's own reactor thread is refused at
//! once instead of freezing every session for its timeout, and the factory's
//! `SessionContext` carries the `SessionRef` each session will have (configured,
//! template-made and added at run time alike). Over real sockets on 127.0.0.1.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::command::CallError;
use peregrine_engine::{
    Command, EngineBuilder, EngineHandle, Outcome, Reply, RunningEngine, SessionRef,
};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};
use peregrine_testkit::Peer;

use crate::support;
use support::peer_logon;

const WAIT: Duration = Duration::from_secs(5);
/// What the application's call would wait for, were it not refused.
const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// One acceptor session, VENUE for CLIENT, on a free port of 127.0.0.1.
const VENUE_CFG: &str = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
                         SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
                         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";

/// What a callback's call answered, and how long it took.
type Seen = Arc<Mutex<Vec<(Result<Reply, CallError>, Duration)>>>;

/// Asks an engine (through `handle`, set once the engine is built) for its
/// sessions from `on_logon`, as a router looking its sessions up would.
struct AsksOnLogon {
    handle: Arc<OnceLock<EngineHandle>>,
    seen: Seen,
}

impl Application for AsksOnLogon {
    fn on_logon(&mut self, _: &SessionId, _: &mut Outbox<'_>) {
        let handle = self
            .handle
            .get()
            .expect("the handle is set before the engine runs");
        let start = Instant::now();
        let answer = handle.call(Command::ListSessions, CALL_TIMEOUT);
        self.seen.lock().unwrap().push((answer, start.elapsed()));
    }

    fn from_app(
        &mut self,
        _: &MessageView<'_>,
        _: &SessionId,
        _: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        Ok(())
    }
}

/// The venue of [`VENUE_CFG`], whose application calls `target` (this engine's
/// own handle when `None`) from `on_logon`.
fn asking_venue(target: Option<EngineHandle>) -> (RunningEngine<AsksOnLogon>, Seen) {
    let handle = Arc::new(OnceLock::new());
    let seen = Seen::default();
    let (h, s) = (handle.clone(), seen.clone());
    let engine = EngineBuilder::parse(VENUE_CFG, "venue.cfg")
        .unwrap()
        .build(move |_| AsksOnLogon {
            handle: h.clone(),
            seen: s.clone(),
        })
        .unwrap();
    handle
        .set(target.unwrap_or_else(|| engine.handle()))
        .unwrap();
    (RunningEngine::start(engine, None).unwrap(), seen)
}

/// Logs on as CLIENT: the answer, and how long it took to come.
fn timed_logon(addr: SocketAddr) -> (Peer, Option<String>, Duration) {
    let start = Instant::now();
    let (peer, answer) = peer_logon(addr, "CLIENT", "VENUE", WAIT);
    (peer, answer, start.elapsed())
}

/// The reproduction: an `on_logon` that calls its own engine's handle
/// with a 2 s timeout used to hold the reactor (and so the Logon answer, and
/// every other session) for the whole 2 s, then got `None`.
#[test]
fn a_call_on_the_engines_own_thread_is_refused_at_once() {
    let (venue, seen) = asking_venue(None);
    let (mut client, answer, took) = timed_logon(venue.listener_addrs()[0]);
    assert!(answer.expect("a Logon answer").contains("|35=A|"));
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (answer, call_took) = &seen[0];
    assert_eq!(
        answer.as_ref().err(),
        Some(&CallError::OnEngineThread),
        "{answer:?}"
    );
    // Correctness bounds, not benchmarks: the refusal does not wait for the
    // 2 s timeout, and neither does the Logon.
    assert!(
        *call_took < Duration::from_secs(1),
        "the call took {call_took:?}"
    );
    assert!(took < Duration::from_secs(1), "the Logon took {took:?}");
    // The session works on, and the same call from another thread is answered.
    client.send("35=0");
    let sessions = venue.handle().call(Command::ListSessions, WAIT);
    assert!(
        matches!(&sessions, Ok(Ok(Outcome::Sessions(s))) if s.len() == 1 && s[0].logged_on),
        "{sessions:?}"
    );
    venue.stop().unwrap();
}

/// The refusal is for the engine that is turning, not for any engine: a
/// callback of one engine may call another engine (running on its own thread).
#[test]
fn a_callback_may_call_another_engine() {
    let other = EngineBuilder::parse(VENUE_CFG, "other.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let (venue, seen) = asking_venue(Some(other.handle()));
    let (_client, answer, _) = timed_logon(venue.listener_addrs()[0]);
    assert!(answer.expect("a Logon answer").contains("|35=A|"));
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert!(
        matches!(&seen[..], [(Ok(Ok(Outcome::Sessions(s))), _)] if s.len() == 1),
        "{seen:?}"
    );
    venue.stop().unwrap();
    other.stop().unwrap();
}

/// On a thread that turns the engine itself: refused inside the engine's work
/// (`with_session`), and not once a turn is over (the mark is taken down).
#[test]
fn the_mark_holds_during_the_engines_work_only() {
    let mut engine = EngineBuilder::parse(VENUE_CFG, "venue.cfg")
        .unwrap()
        .build_local(|_| EchoApp::new(None))
        .unwrap();
    let handle = engine.handle();
    let inside = engine
        .with_session("FIX.4.4:VENUE->CLIENT", |_, _| {
            handle.call(Command::ListSessions, CALL_TIMEOUT)
        })
        .expect("the session");
    assert_eq!(inside.err(), Some(CallError::OnEngineThread));
    engine.turn().unwrap();
    engine.poll().unwrap();
    // Nobody turns the engine while this thread waits: no answer in time.
    let between = handle.call(Command::ListSessions, Duration::from_millis(20));
    assert_eq!(between.err(), Some(CallError::TimedOut));
    engine.shutdown().unwrap();
    drop(engine);
    let gone = handle.call(Command::ListSessions, CALL_TIMEOUT);
    assert_eq!(gone.err(), Some(CallError::EngineGone));
}

/// `Sender::send_timeout` from the engine's own thread does not wait for room
/// that only this thread can make: a full queue is `QueueFull` at once (it
/// froze every session for the whole timeout); from another thread it waits.
#[test]
fn send_timeout_on_the_engines_own_thread_does_not_wait() {
    let mut engine = EngineBuilder::parse(VENUE_CFG, "venue.cfg")
        .unwrap()
        .options(peregrine_engine::EngineOptions {
            send_queue: 1,
            ..peregrine_engine::EngineOptions::default()
        })
        .build_local(|_| EchoApp::new(None))
        .unwrap();
    let sender = engine.sender();
    let session = engine.session_ref("FIX.4.4:VENUE->CLIENT").unwrap();
    let news = |m: &mut peregrine_codec::MessageEncoder<'_>| {
        m.str(148, b"news");
    };
    sender.send(session, b"B", news).unwrap(); // the queue is full
    let (inside, took) = engine
        .with_session("FIX.4.4:VENUE->CLIENT", |_, _| {
            let start = Instant::now();
            let sent = sender.send_timeout(session, b"B", CALL_TIMEOUT, news);
            (sent, start.elapsed())
        })
        .expect("the session");
    assert_eq!(inside, Err(peregrine_engine::SubmitError::QueueFull));
    assert!(took < Duration::from_secs(1), "it waited {took:?}");
    // Outside the engine's work it waits for its timeout.
    let start = Instant::now();
    let outside = sender.send_timeout(session, b"B", Duration::from_millis(30), news);
    assert_eq!(outside, Err(peregrine_engine::SubmitError::QueueFull));
    assert!(start.elapsed() >= Duration::from_millis(30));
    engine.shutdown().unwrap();
}

/// Every session's name and the reference its factory was told, in the order made.
type Made = Arc<Mutex<Vec<(String, SessionRef)>>>;

/// Starts an engine on `cfg` whose factory records each session's reference.
fn recording(cfg: &str) -> (RunningEngine<EchoApp>, Made) {
    let made = Made::default();
    let m = made.clone();
    let engine = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(move |cx| {
            m.lock().unwrap().push((cx.id.to_string(), cx.session_ref));
            EchoApp::new(None)
        })
        .unwrap();
    (engine, made)
}

/// A session a template made is addressed, from another thread, by the
/// reference its application was given when it was made (no lookup through
/// `Command::ListSessions`).
#[test]
fn a_template_made_session_is_addressed_by_the_ref_its_factory_was_given() {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\nAcceptorTemplate=Y\n\
               AllowedTargetCompIDs=A,B\n";
    let (venue, made) = recording(cfg);
    let addr = venue.listener_addrs()[0];
    // The configured session: the reference the engine gives it.
    let configured = made.lock().unwrap()[0].clone();
    assert_eq!(configured.0, "FIX.4.4:VENUE->CLIENT");
    assert_eq!(venue.session_ref(&configured.0), Some(configured.1));

    let (mut b, answer) = peer_logon(addr, "B", "VENUE", WAIT);
    assert!(answer.expect("B logs on").contains("|35=A|"));
    let (mut a, answer) = peer_logon(addr, "A", "VENUE", WAIT);
    assert!(answer.expect("A logs on").contains("|35=A|"));
    let made = made.lock().unwrap().clone();
    let names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "FIX.4.4:VENUE->CLIENT",
            "FIX.4.4:VENUE->B",
            "FIX.4.4:VENUE->A"
        ]
    );
    let (to_a, to_b) = (made[2].1, made[1].1);
    assert_ne!(to_a, to_b);
    let sender = venue.sender();
    std::thread::spawn(move || {
        sender.send(to_a, b"B", |m| {
            m.str(148, b"for A");
        })?;
        sender.send(to_b, b"B", |m| {
            m.str(148, b"for B");
        })
    })
    .join()
    .unwrap()
    .unwrap();
    let news = a.read(WAIT, || {}).expect("A's news");
    assert!(
        news.contains("|35=B|") && news.contains("|56=A|") && news.contains("|148=for A|"),
        "{news}"
    );
    let news = b.read(WAIT, || {}).expect("B's news");
    assert!(
        news.contains("|56=B|") && news.contains("|148=for B|"),
        "{news}"
    );
    // The engine's own list agrees.
    let listed = venue.sessions(WAIT).unwrap();
    for (name, reference) in &made {
        let info = listed.iter().find(|s| &s.name == name).expect(name);
        assert_eq!(info.session_ref, *reference, "{name}");
    }
    venue.stop().unwrap();
}

/// A `Sender` addresses a session by its `SessionId` too, template-made ones
/// included (looked up among the engine's sessions when sent); an identity no
/// session has is refused at once.
#[test]
fn a_sender_addresses_a_template_made_session_by_its_session_id() {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=*\nAcceptorTemplate=Y\n\
               AllowedTargetCompIDs=A\n";
    let (venue, _made) = recording(cfg);
    let addr = venue.listener_addrs()[0];
    let sender = venue.sender();
    let a_id = peregrine_session::SessionId::new("FIX.4.4", "VENUE", "A");
    // Before A logs on, no session has that identity yet.
    assert_eq!(
        sender.send(&a_id, b"B", |m| {
            m.str(148, b"too early");
        }),
        Err(peregrine_engine::SubmitError::NoSuchSession)
    );
    let (mut a, answer) = peer_logon(addr, "A", "VENUE", WAIT);
    assert!(answer.expect("A logs on").contains("|35=A|"));
    std::thread::spawn(move || {
        sender.send(&a_id, b"B", |m| {
            m.str(148, b"by id");
        })
    })
    .join()
    .unwrap()
    .unwrap();
    let news = a.read(WAIT, || {}).expect("A's news");
    assert!(
        news.contains("|35=B|") && news.contains("|148=by id|"),
        "{news}"
    );
    assert!(!news.contains("too early"), "{news}");
    venue.stop().unwrap();
}

/// A session added at run time is told the reference the command answers with;
/// a reference told to a session that then could not be added names no later
/// session.
#[test]
fn a_session_added_at_run_time_is_told_its_ref_and_a_failed_one_names_nothing() {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let (venue, made) = recording(cfg);
    let addr = venue.listener_addrs()[0];
    let handle = venue.handle();
    // Made by the factory, then refused: its listener's address differs.
    let refused = cfg
        .replace("127.0.0.1", "127.0.0.2")
        .replace("TargetCompID=A", "TargetCompID=C");
    let settings = peregrine_engine::config::Settings::parse(&refused, "added.cfg".as_ref())
        .unwrap()
        .sessions
        .remove(0);
    let answer = handle.call(Command::AddSession(Box::new(settings)), WAIT);
    assert!(
        matches!(
            answer,
            Ok(Err(peregrine_engine::CommandError::CannotAdd { .. }))
        ),
        "{answer:?}"
    );
    let added = handle.call(
        Command::AddSessionLike {
            session: "FIX.4.4:VENUE->B".into(),
            like: "FIX.4.4:VENUE->A".into(),
        },
        WAIT,
    );
    let Ok(Ok(Outcome::SessionAdded { reference, .. })) = added else {
        panic!("{added:?}")
    };
    let made = made.lock().unwrap().clone();
    let names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["FIX.4.4:VENUE->A", "FIX.4.4:VENUE->C", "FIX.4.4:VENUE->B"]
    );
    let (stale, told) = (made[1].1, made[2].1);
    assert_eq!(told, reference);
    assert_ne!(stale, told, "the refused session's reference is not reused");

    let (mut b, answer) = peer_logon(addr, "B", "VENUE", WAIT);
    assert!(answer.expect("B logs on").contains("|35=A|"));
    let sender = venue.sender();
    sender
        .send(stale, b"B", |m| {
            m.str(148, b"stale");
        })
        .unwrap();
    sender
        .send(told, b"B", |m| {
            m.str(148, b"for B");
        })
        .unwrap();
    // In order through one queue: the stale message would have come first.
    let news = b.read(WAIT, || {}).expect("B's news");
    assert!(news.contains("|148=for B|"), "{news}");
    venue.stop().unwrap();
}

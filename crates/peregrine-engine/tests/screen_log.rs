//! The screen log (`ScreenLogShowEvents`, `ScreenLogShowIncoming`,
//! `ScreenLogShowOutgoing`): what an engine prints to its standard output with
//! no `tracing` subscriber installed. The test runs itself again as a child
//! process (the engine's lines go to the real stdout, which the parent reads),
//! with peers logging on over 127.0.0.1.

use std::time::Duration;

use peregrine_engine::EngineBuilder;
use peregrine_session::EchoApp;

mod support;
use support::{child_test, peer_logon};

const WAIT: Duration = Duration::from_secs(5);
const CHILD: &str = "PEREGRINE_SCREEN_LOG_CHILD";

/// In the child: an acceptor for A with the screen log's keys as `keys`; A logs
/// on (a Logon with a newline in a field, which must be printed escaped), then
/// C, whom the venue does not know.
fn run_engine(keys: &str) {
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\n{keys}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n"
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let addr = venue.listener_addrs()[0];
    let (mut a, answer) = peer_logon(addr, "A", "VENUE", WAIT);
    assert!(answer.is_some(), "A logs on");
    a.send("35=D|11=LINE\nFORGED|55=X|54=1|38=1|40=1|60=20260101-00:00:00.000");
    a.read(WAIT, || {}).expect("echo");
    let (_c, answer) = peer_logon(addr, "C", "VENUE", WAIT);
    assert_eq!(answer, None, "C is refused");
    // Closed first: the engine's Logout at stop waits for no answer.
    drop(a);
    venue.stop().unwrap();
}

/// Runs `run_engine(keys)` in a child process; its standard output.
fn child_stdout(test: &str, keys: &str) -> String {
    let out = child_test(test, CHILD, keys).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn events_are_printed_with_screen_log_show_events() {
    if let Ok(keys) = std::env::var(CHILD) {
        return run_engine(&keys);
    }
    let out = child_stdout(
        "events_are_printed_with_screen_log_show_events",
        "ScreenLogShowEvents=Y\nScreenLogShowIncoming=N\nScreenLogShowOutgoing=N",
    );
    assert!(
        out.contains(" : FIX.4.4:VENUE->A : event : session created\n"),
        "{out}"
    );
    assert!(
        out.contains(" : FIX.4.4:VENUE->A : event : logged on\n"),
        "{out}"
    );
    // The refused CompID, which belongs to no session: said for the listener.
    let refused = out
        .lines()
        .find(|l| l.contains(" : event : closed connection from "))
        .unwrap_or_else(|| panic!("no line for C's refused Logon: {out}"));
    assert!(refused.contains(" : listener 127.0.0.1:"), "{refused}");
    assert!(refused.contains("C"), "{refused}");
    assert!(
        !out.contains(" : incoming : ") && !out.contains(" : outgoing : "),
        "{out}"
    );
}

#[test]
fn messages_are_printed_escaped_as_the_messages_log_writes_them() {
    if let Ok(keys) = std::env::var(CHILD) {
        return run_engine(&keys);
    }
    // Incoming and outgoing default to Y once a ScreenLog key is set.
    let out = child_stdout(
        "messages_are_printed_escaped_as_the_messages_log_writes_them",
        "ScreenLogShowEvents=N",
    );
    assert!(!out.contains(" : event : "), "{out}");
    let order = out
        .lines()
        .find(|l| l.contains(" : FIX.4.4:VENUE->A : incoming : ") && l.contains("\x0135=D\x01"))
        .unwrap_or_else(|| panic!("no incoming order: {out}"));
    // The newline in ClOrdID is escaped: the line is not forged in two.
    assert!(order.contains("\x0111=LINE\\x0aFORGED\x01"), "{order:?}");
    assert!(
        out.lines()
            .any(|l| l.contains(" : FIX.4.4:VENUE->A : outgoing : ") && l.contains("\x0135=A\x01")),
        "{out}"
    );
}

#[test]
fn nothing_is_printed_without_screen_log_keys() {
    if let Ok(keys) = std::env::var(CHILD) {
        return run_engine(&keys);
    }
    let out = child_stdout("nothing_is_printed_without_screen_log_keys", "");
    assert!(!out.contains("VENUE->A"), "{out}");
    assert!(!out.contains("closed connection"), "{out}");
}

/// A TLS acceptor that a peer speaks plain FIX to: the failed handshake is
/// printed for the listener (no session is known yet).
#[test]
fn a_failed_tls_handshake_is_printed() {
    if let Ok(dir) = std::env::var(CHILD) {
        let pki = peregrine_testkit::tls::TestPki::write(std::path::Path::new(&dir));
        let cfg = format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
             SenderCompID=VENUE\nUseDataDictionary=N\nScreenLogShowEvents=Y\nSocketUseSSL=Y\n\
             SocketCertificateFile={}\nSocketPrivateKeyFile={}\n\
             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n",
            pki.server_cert.display(),
            pki.server_key.display()
        );
        let venue = EngineBuilder::parse(&cfg, "venue.cfg")
            .unwrap()
            .start(|_| EchoApp::new(None))
            .unwrap();
        let (_a, answer) = peer_logon(venue.listener_addrs()[0], "A", "VENUE", WAIT);
        assert_eq!(answer, None, "plain FIX to a TLS port is closed");
        venue.stop().unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = child_test(
        "a_failed_tls_handshake_is_printed",
        CHILD,
        dir.path().to_str().unwrap(),
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.contains(" : listener 127.0.0.1:") && l.contains("closed connection from"))
        .unwrap_or_else(|| panic!("no line for the failed handshake: {stdout}"));
    assert!(line.contains("TLS") || line.contains("tls"), "{line}");
}

/// Refuses every Logon, as an application checking credentials would.
struct Refuse;

impl peregrine_session::Application for Refuse {
    fn from_admin(
        &mut self,
        msg: &peregrine_codec::MessageView<'_>,
        _id: &peregrine_session::SessionId,
        _out: &mut peregrine_session::Outbox<'_>,
    ) -> Result<(), peregrine_session::RejectLogon> {
        match msg.msg_type() {
            b"A" => Err(peregrine_session::RejectLogon::new("bad credentials")),
            _ => Ok(()),
        }
    }
    fn from_app(
        &mut self,
        _msg: &peregrine_codec::MessageView<'_>,
        _id: &peregrine_session::SessionId,
        _out: &mut peregrine_session::Outbox<'_>,
    ) -> Result<(), peregrine_session::AppReject> {
        Ok(())
    }
}

/// A Logon the application refuses is printed (its disconnect; the
/// application's text goes to the peer in the Logout, not to the event log).
#[test]
fn a_logon_refused_by_the_application_is_printed() {
    if std::env::var(CHILD).is_ok() {
        let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
                   SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nUseDataDictionary=N\n\
                   ScreenLogShowEvents=Y\nScreenLogShowIncoming=N\nScreenLogShowOutgoing=N\n\
                   [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
        let venue = EngineBuilder::parse(cfg, "venue.cfg")
            .unwrap()
            .start(|_| Refuse)
            .unwrap();
        let (mut a, answer) = peer_logon(venue.listener_addrs()[0], "A", "VENUE", WAIT);
        let answer = answer.expect("a Logout");
        assert!(answer.contains("|35=5|"), "{answer}");
        assert_eq!(a.read(WAIT, || {}), None, "then closed");
        venue.stop().unwrap();
        return;
    }
    let out = child_test("a_logon_refused_by_the_application_is_printed", CHILD, "")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.lines().any(|l| l.ends_with(
            " : FIX.4.4:VENUE->A : event : disconnected: the application refused the Logon"
        )),
        "{stdout}"
    );
}

//! An operator's control of running sessions through the handle: log out and
//! keep down, let log on again, reset sequence numbers. Over real sockets on
//! 127.0.0.1.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use peregrine_engine::{Command, EngineBuilder, Outcome, RunningEngine};
use peregrine_session::EchoApp;
use peregrine_testkit::Peer;

use crate::support;
use support::peer_logon;

const WAIT: Duration = Duration::from_secs(5);
const VENUE: &str = "FIX.4.4:VENUE->CLIENT";

fn venue() -> RunningEngine<EchoApp> {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";
    EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap()
}

fn logon(addr: SocketAddr) -> (Peer, Option<String>) {
    peer_logon(addr, "CLIENT", "VENUE", WAIT)
}

fn command(engine: &RunningEngine<EchoApp>, command: Command) -> Outcome {
    engine
        .handle()
        .call(command, WAIT)
        .expect("answered")
        .unwrap()
}

fn venue_info(engine: &RunningEngine<EchoApp>) -> peregrine_engine::SessionInfo {
    engine.sessions(WAIT).unwrap().remove(0)
}

/// Waits for the venue's session to be disconnected.
fn wait_disconnected(engine: &RunningEngine<EchoApp>) {
    let deadline = Instant::now() + WAIT;
    while venue_info(engine).connected {
        assert!(Instant::now() < deadline, "still connected");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_logged_out_session_stays_down_until_logon() {
    let venue = venue();
    let addr = venue.listener_addrs()[0];
    let (mut client, answer) = logon(addr);
    assert!(answer.unwrap().contains("|35=A|"));

    let outcome = command(
        &venue,
        Command::Logout {
            session: VENUE.into(),
            text: Some("end of day".into()),
        },
    );
    assert_eq!(
        outcome,
        Outcome::LoggedOut {
            session: VENUE.into(),
            logging_out: true
        }
    );
    let logout = client.read(WAIT, || {}).expect("Logout");
    assert!(
        logout.contains("|35=5|") && logout.contains("|58=end of day|"),
        "{logout}"
    );
    client.send("35=5");
    assert!(client.closed_within(WAIT, || {}));
    wait_disconnected(&venue);
    assert!(!venue_info(&venue).enabled);

    // Down: the counterparty's Logon is refused.
    let (_refused, answer) = logon(addr);
    assert_eq!(answer, None, "a logged-out session refuses Logon");

    assert_eq!(
        command(
            &venue,
            Command::Logon {
                session: VENUE.into()
            }
        ),
        Outcome::Enabled {
            session: VENUE.into(),
            already: false
        }
    );
    let mut again = Peer::connect(addr, "CLIENT", "VENUE");
    again.seq = client.seq;
    again.send("35=A|98=0|108=30");
    let answer = again.read(WAIT, || {}).expect("Logon accepted again");
    assert!(answer.contains("|35=A|"), "{answer}");
    assert!(venue_info(&venue).enabled);
    venue.stop().unwrap();
}

#[test]
fn a_reset_logs_out_first_then_starts_both_sides_at_one() {
    let venue = venue();
    let addr = venue.listener_addrs()[0];
    let (mut client, answer) = logon(addr);
    assert!(answer.unwrap().contains("|35=A|"));
    for i in 0..3 {
        client.send(&format!(
            "35=D|11=ORDER-{i}|55=X|54=1|38=1|40=1|60=20260101-00:00:00.000"
        ));
        assert!(client.read(WAIT, || {}).expect("echo").contains("|35=D|"));
    }
    let before = venue_info(&venue);
    assert_eq!((before.next_sender_seq, before.next_target_seq), (5, 5));

    let outcome = command(
        &venue,
        Command::ResetSeqNums {
            session: VENUE.into(),
        },
    );
    assert_eq!(
        outcome,
        Outcome::Reset {
            session: VENUE.into(),
            after_logout: true
        }
    );
    let logout = client.read(WAIT, || {}).expect("Logout");
    assert!(logout.contains("|35=5|"), "{logout}");
    client.send("35=5");
    assert!(client.closed_within(WAIT, || {}));
    wait_disconnected(&venue);
    let after = venue_info(&venue);
    assert_eq!((after.next_sender_seq, after.next_target_seq), (1, 1));
    assert!(after.enabled, "a reset does not keep the session down");

    // Both sides start again at 1.
    let (_client, answer) = logon(addr);
    let answer = answer.expect("Logon at 1 accepted");
    assert!(
        answer.contains("|35=A|") && answer.contains("|34=1|"),
        "{answer}"
    );
    venue.stop().unwrap();
}

#[test]
fn a_reset_while_disconnected_is_done_at_once() {
    let venue = venue();
    let addr = venue.listener_addrs()[0];
    let (mut client, _) = logon(addr);
    client.send("35=5");
    let _ = client.read(WAIT, || {});
    wait_disconnected(&venue);
    assert_eq!(venue_info(&venue).next_target_seq, 3);
    assert_eq!(
        command(
            &venue,
            Command::ResetSeqNums {
                session: VENUE.into()
            }
        ),
        Outcome::Reset {
            session: VENUE.into(),
            after_logout: false
        }
    );
    let info = venue_info(&venue);
    assert_eq!((info.next_sender_seq, info.next_target_seq), (1, 1));
    venue.stop().unwrap();
}

#[test]
fn a_logged_out_initiator_does_not_reconnect_until_logon() {
    let venue = venue();
    let port = venue.listener_addrs()[0].port();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nReconnectInterval=1\nHeartBtInt=30\n\
         UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\n\
         TargetCompID=VENUE\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n"
    );
    let client = EngineBuilder::parse(&cfg, "client.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    assert!(client.wait_logged_on(WAIT) && venue.wait_logged_on(WAIT));
    let name = "FIX.4.4:CLIENT->VENUE";
    assert_eq!(
        command(
            &client,
            Command::Logout {
                session: name.into(),
                text: None
            }
        ),
        Outcome::LoggedOut {
            session: name.into(),
            logging_out: true
        }
    );
    wait_disconnected(&venue);
    // Three reconnect intervals pass: it stays down.
    std::thread::sleep(Duration::from_secs(3));
    let info = client.sessions(WAIT).unwrap().remove(0);
    assert!(!info.connected && !info.enabled, "{info:?}");
    assert!(!venue_info(&venue).connected);

    command(
        &client,
        Command::Logon {
            session: name.into(),
        },
    );
    assert!(client.wait_logged_on(WAIT) && venue.wait_logged_on(WAIT));
    client.stop().unwrap();
    venue.stop().unwrap();
}

#[test]
fn control_commands_name_an_unknown_session() {
    let venue = venue();
    for c in [
        Command::Logout {
            session: "FIX.4.4:NO->ONE".into(),
            text: None,
        },
        Command::Logon {
            session: "FIX.4.4:NO->ONE".into(),
        },
        Command::ResetSeqNums {
            session: "FIX.4.4:NO->ONE".into(),
        },
    ] {
        let reply = venue.handle().call(c, WAIT).unwrap();
        assert_eq!(reply.unwrap_err().to_string(), "no session FIX.4.4:NO->ONE");
    }
    venue.stop().unwrap();
}

/// `QueueWhileLoggedOut`: an order sent while the session is not logged on is
/// stored for the resend (Y, the default) or refused (N).
#[test]
fn queue_while_logged_out_stores_or_refuses() {
    for (key, stored) in [("", true), ("QueueWhileLoggedOut=N\n", false)] {
        // An initiator whose counterparty is not there: never logged on.
        let cfg = format!(
            "[DEFAULT]\nConnectionType=initiator\nReconnectInterval=30\nHeartBtInt=30\n\
             UseDataDictionary=N\n{key}[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\n\
             TargetCompID=VENUE\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\n"
        );
        let mut engine = EngineBuilder::parse(&cfg, "client.cfg")
            .unwrap()
            .build(|_| Watcher::default())
            .unwrap();
        let session = engine.session_ref("FIX.4.4:CLIENT->VENUE").unwrap();
        engine
            .sender()
            .send(session, b"D", |m| {
                m.str(11, b"ORDER-1");
            })
            .unwrap();
        let deadline = Instant::now() + WAIT;
        let info = loop {
            engine.turn().unwrap();
            let info = engine.sessions().remove(0);
            if info.next_sender_seq > 1 || info.send_failures > 0 {
                break info;
            }
            assert!(Instant::now() < deadline, "{info:?}");
        };
        assert!(!info.logged_on);
        let refused = &engine.application("FIX.4.4:CLIENT->VENUE").unwrap().refused;
        if stored {
            assert_eq!((info.next_sender_seq, info.send_failures), (2, 0));
            assert!(refused.is_empty(), "{refused:?}");
        } else {
            assert_eq!((info.next_sender_seq, info.send_failures), (1, 1));
            // The Sender's caller was told only that the engine took it: the
            // application hears that it was not sent.
            assert_eq!(
                refused,
                &["a D from the send handle was not sent: not logged on"]
            );
        }
    }
}

/// Keeps what the session tells the application about its connection.
#[derive(Default)]
struct Watcher {
    logouts: Vec<String>,
    disconnects: Vec<Option<peregrine_session::DisconnectReason>>,
    refused: Vec<String>,
}

impl peregrine_session::Application for Watcher {
    fn from_app(
        &mut self,
        _: &peregrine_codec::MessageView<'_>,
        _: &peregrine_session::SessionId,
        _: &mut peregrine_session::Outbox<'_>,
    ) -> Result<(), peregrine_session::AppReject> {
        Ok(())
    }
    fn on_logout(
        &mut self,
        _: &peregrine_session::SessionId,
        reason: &peregrine_session::LogoutReason<'_>,
        _out: &mut peregrine_session::Outbox<'_>,
    ) {
        self.logouts.push(reason.to_string());
    }
    fn on_event(
        &mut self,
        _: &peregrine_session::SessionId,
        event: &peregrine_session::AppEvent<'_>,
        _out: &mut peregrine_session::Outbox<'_>,
    ) {
        match event {
            peregrine_session::AppEvent::Disconnected { reason } => self.disconnects.push(*reason),
            peregrine_session::AppEvent::SendRefused { .. } => self.refused.push(event.to_string()),
            _ => {}
        }
    }
}

/// The application hears why the engine saw the connection go: here the
/// counterparty closed it without a Logout.
#[test]
fn the_application_hears_that_the_peer_closed_the_connection() {
    use peregrine_session::DisconnectReason;
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";
    let mut venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .build(|_| Watcher::default())
        .unwrap();
    let addr = venue.listener_addrs()[0];
    let mut client = Peer::connect(addr, "CLIENT", "VENUE");
    client.send("35=A|98=0|108=30");
    let answer = client.read(WAIT, || {
        venue.turn().unwrap();
    });
    assert!(answer.unwrap().contains("|35=A|"));
    drop(client);
    let deadline = Instant::now() + WAIT;
    while venue.sessions()[0].connected {
        venue.turn().unwrap();
        assert!(Instant::now() < deadline, "the close was never seen");
    }
    let app = venue.application(VENUE).unwrap();
    assert_eq!(app.disconnects, [Some(DisconnectReason::PeerClosed)]);
    assert_eq!(
        app.logouts,
        ["disconnected: the counterparty closed the connection"]
    );
}

//! `GET /metrics` against real engines over 127.0.0.1: an acceptor (file
//! store, message log, admin port) and an initiator exchange orders, a
//! sequence gap (made with `/seqnum`) is filled, a message is rejected, the
//! initiator vanishes; the scraped counters equal what the message log says
//! happened. Also: scraping goes on while the reactor sends, and needs no
//! reactor at all.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use peregrine_engine::admin::AdminOptions;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::{Engine, EngineHandle, EngineOptions, Idle, SessionMetrics};
use peregrine_session::RejectKind;

use crate::support;
use support::{
    echo, engine_with, get, http, initiator_cfg, send_order, serve_admin, Count, TW_ISLD,
};

const TOKEN: &str = "metrics-test-token";
const ACCEPTOR: &str = "FIX.4.4:ISLD->TW";
const INITIATOR: &str = TW_ISLD;

fn engine_from(text: &str, dir: &Path, store: StoreKind, idle: Idle) -> Engine<BoxedFixSession> {
    engine_with(
        text,
        &dir.join("x.cfg"),
        EngineOptions {
            idle,
            ..EngineOptions::default()
        },
        store,
        &mut echo,
    )
}

/// An echoing acceptor (ISLD) with a file store (fsync on every commit, the
/// default) and a message log, on its own thread, with an admin interface.
fn acceptor(
    dir: &Path,
) -> (
    SocketAddr,
    SocketAddr,
    EngineHandle,
    JoinHandle<std::io::Result<()>>,
) {
    let text = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\n\
         UseDataDictionary=N\nFileStorePath={}\nFileLogPath={}\n[SESSION]\nBeginString=FIX.4.4\n",
        dir.join("store").display(),
        dir.join("log").display()
    );
    let engine = engine_from(&text, dir, StoreKind::File, Idle::default());
    let fix = engine.listener_addrs()[0];
    let handle = engine.handle();
    let options = AdminOptions {
        token: Some(TOKEN.into()),
        ..AdminOptions::default()
    };
    let admin = serve_admin(&handle, options);
    let mut engine = engine;
    (fix, admin, handle, std::thread::spawn(move || engine.run()))
}

/// An initiator (TW) that counts the echoes, turned by the test.
fn initiator(dir: &Path, port: u16, echoes: Arc<AtomicUsize>) -> Engine<BoxedFixSession> {
    engine_with(
        &initiator_cfg(port, "HeartBtInt=30"),
        &dir.join("initiator.cfg"),
        EngineOptions {
            idle: Idle::busy_spin(),
            ..EngineOptions::default()
        },
        StoreKind::Memory,
        &mut |_| Box::new(Count(echoes.clone())),
    )
}

/// Turns `engine` until `done` holds, failing after `limit`.
fn pump(engine: &mut Engine<BoxedFixSession>, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        engine.turn().unwrap();
        std::thread::sleep(Duration::from_micros(100));
    }
}

fn send(engine: &mut Engine<BoxedFixSession>, msg_type: &[u8], cl_ord_id: &str) {
    send_order(engine, INITIATOR, msg_type, cl_ord_id).unwrap();
}

/// One sample of the text: its name, labels and value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: HashMap<String, String>,
    value: f64,
}

/// Parses the samples of an OpenMetrics/Prometheus text (comments skipped;
/// label values unescaped: `\\`, `\"`, `\n`).
fn parse(text: &str) -> Vec<Sample> {
    let mut samples = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, rest) = match line.find(['{', ' ']) {
            Some(i) => line.split_at(i),
            None => panic!("no value: {line}"),
        };
        let mut labels = HashMap::new();
        let mut chars = rest.chars().peekable();
        if chars.peek() == Some(&'{') {
            chars.next();
            loop {
                let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
                assert_eq!(chars.next(), Some('"'), "{line}");
                let mut value = String::new();
                loop {
                    match chars.next().expect("unterminated label value") {
                        '"' => break,
                        '\\' => value.push(match chars.next().unwrap() {
                            'n' => '\n',
                            c => c,
                        }),
                        c => value.push(c),
                    }
                }
                labels.insert(key, value);
                match chars.next() {
                    Some(',') => continue,
                    Some('}') => break,
                    other => panic!("{other:?} in {line}"),
                }
            }
        }
        let value = chars.collect::<String>();
        let value = match value.trim() {
            "+Inf" => f64::INFINITY,
            v => v
                .parse()
                .unwrap_or_else(|_| panic!("value {v:?} in {line}")),
        };
        samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    samples
}

/// The value of the one sample named `name` with these labels (others may
/// be there too).
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let mut found = samples.iter().filter(|s| {
        s.name == name
            && labels
                .iter()
                .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
    });
    let first = found.next()?;
    assert!(found.next().is_none(), "several {name} {labels:?}");
    Some(first.value)
}

/// (messages, bytes) the acceptor's message log shows it received and sent.
fn logged(dir: &Path) -> ((u64, u64), (u64, u64)) {
    let text = std::fs::read_to_string(dir.join("log/FIX.4.4-ISLD-TW.messages.log")).unwrap();
    let (mut received, mut sent) = ((0, 0), (0, 0));
    for line in text.lines() {
        // `<timestamp> : <message>`, the message as it went over the wire.
        let message = line.split_once(" : ").unwrap().1;
        let side = if message.contains("\x0149=ISLD\x01") {
            &mut sent
        } else {
            assert!(message.contains("\x0149=TW\x01"), "{line}");
            &mut received
        };
        side.0 += 1;
        side.1 += message.len() as u64;
    }
    (received, sent)
}

#[test]
fn scraped_counters_equal_what_the_sessions_did() {
    let dir = tempfile::tempdir().unwrap();
    let (fix, admin, handle, reactor) = acceptor(dir.path());
    let echoes = Arc::new(AtomicUsize::new(0));
    let mut ini = initiator(dir.path(), fix.port(), echoes.clone());
    let ours: Arc<SessionMetrics> = ini.metrics().session(INITIATOR).unwrap();
    let theirs: Arc<SessionMetrics> = handle.metrics().session(ACCEPTOR).unwrap();

    pump(&mut ini, "logon", || ours.counters().logons() == 1);
    const ORDERS: usize = 25;
    for i in 0..ORDERS {
        send(&mut ini, b"D", &format!("ORDER-{i}"));
    }
    pump(&mut ini, "the echoes", || {
        echoes.load(Ordering::Relaxed) == ORDERS
    });
    assert_eq!(ours.counters().messages_received(), 1 + ORDERS as u64);

    // A gap: the acceptor skips five sequence numbers; its next echo shows the
    // gap to the initiator, which asks for them and gets one gap fill.
    let next = theirs.counters().next_sender_seq();
    let target = format!(
        "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM={}",
        next + 5
    );
    let (status, _, body) = get(admin, &target, Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    send(&mut ini, b"D", "AFTER-THE-GAP");
    pump(&mut ini, "the gap filled", || {
        ours.counters().gap_fills_received() == 1 && echoes.load(Ordering::Relaxed) == ORDERS + 1
    });

    // A message type the acceptor's application does not take: 35=j, 380=3.
    send(&mut ini, b"AE", "UNSUPPORTED");
    pump(&mut ini, "the reject", || {
        ours.counters()
            .rejects_received(RejectKind::Business, Some(3))
            == 1
    });
    // Everything either side sent has arrived.
    pump(&mut ini, "quiet", || {
        theirs.counters().messages_sent() == ours.counters().messages_received()
            && theirs.counters().messages_received() == ours.counters().messages_sent()
    });

    // The initiator vanishes without a Logout: the acceptor sees it close.
    let (ini_sent, ini_received) = (ours.bytes_sent(), ours.bytes_received());
    drop(ini);
    let start = Instant::now();
    while theirs
        .counters()
        .disconnects_by_reason()
        .map(|(_, n)| n)
        .sum::<u64>()
        == 0
    {
        assert!(start.elapsed() < Duration::from_secs(20), "no disconnect");
        std::thread::sleep(Duration::from_millis(5));
    }

    let (status, head, body) = get(admin, "/metrics", None);
    assert_eq!(status, 200, "{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text; version=1.0.0; charset=utf-8"),
        "{head}"
    );
    assert!(body.ends_with("# EOF\n"));
    let samples = parse(&body);
    let session = [("session", ACCEPTOR)];
    let v = |name: &str| value(&samples, name, &session).unwrap_or_else(|| panic!("no {name}"));
    let with = |name: &str, more: &[(&str, &str)]| {
        let labels: Vec<_> = session.iter().chain(more).copied().collect();
        value(&samples, name, &labels)
    };

    // Messages and bytes: exactly what the acceptor's message log holds (written
    // up to now: ListSessions flushes the logs), and what the initiator counted.
    let _ = handle.call(
        peregrine_engine::Command::ListSessions,
        std::time::Duration::from_secs(5),
    );
    let (received, sent) = logged(dir.path());
    assert_eq!(
        v("peregrine_session_messages_received_total") as u64,
        received.0
    );
    assert_eq!(v("peregrine_session_messages_sent_total") as u64, sent.0);
    assert_eq!(
        v("peregrine_session_received_bytes_total") as u64,
        received.1
    );
    assert_eq!(v("peregrine_session_sent_bytes_total") as u64, sent.1);
    assert_eq!(received.1, ini_sent);
    assert_eq!(sent.1, ini_received);
    // Logon, the orders, the ResendRequest, the unsupported message.
    assert_eq!(received.0, 1 + ORDERS as u64 + 1 + 1 + 1);
    // Logon, the echoes, the gap fill and the echo after the gap again (the
    // ResendRequest asked "to the end"), the reject.
    assert_eq!(sent.0, 1 + ORDERS as u64 + 1 + 2 + 1);

    assert_eq!(v("peregrine_session_logons_total"), 1.0);
    assert_eq!(v("peregrine_session_resend_requests_received_total"), 1.0);
    assert_eq!(v("peregrine_session_resends_answered_total"), 1.0);
    assert_eq!(v("peregrine_session_gap_fills_sent_total"), 1.0);
    assert_eq!(v("peregrine_session_messages_resent_total"), 1.0);
    assert_eq!(v("peregrine_session_gaps_detected_total"), 0.0);
    let reject = [("type", "business"), ("reason", "3")];
    assert_eq!(
        with("peregrine_session_rejects_sent_total", &reject),
        Some(1.0)
    );
    assert_eq!(
        with("peregrine_session_rejects_received_total", &reject),
        None
    );
    let closed = [("reason", "peer_closed")];
    assert_eq!(
        with("peregrine_session_disconnects_total", &closed),
        Some(1.0)
    );
    let disconnects: f64 = samples
        .iter()
        .filter(|s| s.name == "peregrine_session_disconnects_total")
        .map(|s| s.value)
        .sum();
    assert_eq!(disconnects, 1.0);
    assert_eq!(
        with("peregrine_session_state", &[("state", "Disconnected")]),
        Some(1.0)
    );
    assert_eq!(
        with("peregrine_session_state", &[("state", "LoggedOn")]),
        Some(0.0)
    );
    assert_eq!(
        v("peregrine_session_next_sender_seq_num") as u64,
        next + 5 + 2 // the echo after the gap, the reject
    );
    assert_eq!(
        v("peregrine_session_next_target_seq_num") as u64,
        received.0 + 1
    );

    // The file store was written and fsynced at every commit.
    let writes = v("peregrine_session_store_write_seconds_count");
    let fsyncs = v("peregrine_session_store_fsync_seconds_count");
    assert!(writes >= 3.0 && fsyncs >= writes, "{writes} {fsyncs}");
    assert_eq!(
        with(
            "peregrine_session_store_write_seconds_bucket",
            &[("le", "+Inf")]
        ),
        Some(writes)
    );
    assert!(v("peregrine_session_store_fsync_seconds_sum") > 0.0);
    // No TestRequest was needed: no round-trip to show.
    assert_eq!(
        value(
            &samples,
            "peregrine_session_heartbeat_rtt_seconds_count",
            &session
        ),
        None
    );

    // The reactor's own counters.
    let engine = |name: &str| value(&samples, name, &[]).unwrap_or_else(|| panic!("no {name}"));
    assert_eq!(engine("peregrine_engine_connections_accepted_total"), 1.0);
    assert_eq!(engine("peregrine_engine_sessions"), 1.0);
    assert!(engine("peregrine_engine_commands_total") >= 1.0); // the /seqnum
    assert!(engine("peregrine_engine_turns_total") >= engine("peregrine_engine_idle_turns_total"));
    assert!(engine("peregrine_engine_readiness_events_total") > 0.0);
    assert!(engine("peregrine_engine_polls_total") > 0.0);

    // The initiator's side of the same story, read through the library.
    let c = ours.counters();
    assert_eq!((c.gaps_detected(), c.resend_requests_sent()), (1, 1));
    assert_eq!(
        c.rejects_sent_by_reason(RejectKind::Business)
            .map(|(_, n)| n)
            .sum::<u64>(),
        0
    );
    assert_eq!(c.messages_sent(), received.0);

    handle.stop();
    reactor.join().unwrap().unwrap();
}

#[test]
fn scraping_while_the_reactor_sends_does_not_stop_it() {
    let dir = tempfile::tempdir().unwrap();
    let (fix, admin, handle, reactor) = acceptor(dir.path());
    let echoes = Arc::new(AtomicUsize::new(0));
    let mut ini = initiator(dir.path(), fix.port(), echoes.clone());
    let theirs = handle.metrics().session(ACCEPTOR).unwrap();
    let ours = ini.metrics().session(INITIATOR).unwrap();
    // Both sides logged on (an order sent before the initiator is would wait
    // in its store for the acceptor's ResendRequest).
    pump(&mut ini, "logon", || {
        theirs.counters().logons() == 1 && ours.counters().logons() == 1
    });

    let scrape = move || {
        let (status, _, body) = get(admin, "/metrics", None);
        assert_eq!(status, 200);
        let samples = parse(&body);
        let received = [("session", ACCEPTOR)];
        value(
            &samples,
            "peregrine_session_messages_received_total",
            &received,
        )
        .unwrap() as u64
    };
    assert_eq!(scrape(), 1); // the Logon
                             // A scraper as fast as it can go, for as long as the orders flow.
    let done = Arc::new(AtomicBool::new(false));
    let scraper = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !done.load(Ordering::Relaxed) {
                seen.push(scrape());
            }
            seen
        })
    };
    const ORDERS: usize = 2_000;
    for i in 0..ORDERS {
        send(&mut ini, b"D", &format!("ORDER-{i}"));
        if i % 50 == 49 {
            ini.turn().unwrap();
        }
    }
    pump(&mut ini, "every echo", || {
        echoes.load(Ordering::Relaxed) == ORDERS
    });
    done.store(true, Ordering::Relaxed);
    let mut seen = scraper.join().unwrap();
    seen.push(scrape());
    // Every order went through while scrapes ran all along; the count they
    // saw never went back, and ends at every message.
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&(1 + ORDERS as u64)));
    assert_eq!(theirs.counters().messages_received(), 1 + ORDERS as u64);

    drop(ini);
    handle.stop();
    reactor.join().unwrap().unwrap();
}

#[test]
fn metrics_are_served_while_the_reactor_does_not_answer() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\n\
                TargetCompID=TW\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    // Built, never turned: a reactor that is stuck, as far as anyone can tell.
    let engine = engine_from(text, dir.path(), StoreKind::Memory, Idle::default());
    let options = AdminOptions {
        reactor_timeout: Duration::from_millis(200),
        ..AdminOptions::default()
    };
    let admin = serve_admin(&engine.handle(), options);
    // A command waits for the reactor, in vain.
    assert_eq!(get(admin, "/sessions", None).0, 503);
    // The counters are read without it.
    let (status, _, body) = get(admin, "/metrics", None);
    assert_eq!(status, 200, "{body}");
    let samples = parse(&body);
    let state = [("session", ACCEPTOR), ("state", "Disconnected")];
    assert_eq!(
        value(&samples, "peregrine_session_state", &state),
        Some(1.0)
    );
    assert_eq!(
        value(&samples, "peregrine_engine_turns_total", &[]),
        Some(0.0)
    );
    // Only GET.
    let (status, _, _) = http(
        admin,
        "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
    );
    assert_eq!(status, 405);
    drop(engine);
}

/// Over a socket, from a raw counterparty: the acceptor's TestRequest answered by a
/// Heartbeat with its TestReqID is one heartbeat round-trip, and a PossDupFlag=Y
/// message without OrigSendingTime(122) is one session-level Reject with reason 1
/// (RequiredTagMissing), both in `/metrics`.
#[test]
fn heartbeat_round_trip_and_session_rejects_by_reason_over_a_socket() {
    use peregrine_testkit::Peer;
    let dir = tempfile::tempdir().unwrap();
    let (fix, admin, handle, reactor) = acceptor(dir.path());
    let mut peer = Peer::connect(fix, "TW", "ISLD");
    peer.send("35=A|98=0|108=1");
    let logon = peer
        .read(Duration::from_secs(5), || {})
        .expect("Logon answered");
    assert!(logon.contains("|35=A|"), "{logon}");
    // Silent: the acceptor's heartbeats come, then its TestRequest, answered at once.
    let deadline = Instant::now() + Duration::from_secs(10);
    let test_req_id = loop {
        assert!(Instant::now() < deadline, "no TestRequest");
        let Some(m) = peer.read(Duration::from_secs(5), || {}) else {
            continue;
        };
        if m.contains("|35=1|") {
            let id = m.split("|112=").nth(1).unwrap().split('|').next().unwrap();
            break id.to_string();
        }
    };
    peer.send(&format!("35=0|112={test_req_id}"));
    // A possible duplicate without its OrigSendingTime.
    peer.send("35=D|43=Y|11=ORD-1|21=1|38=1|40=1|54=1|55=X|60=20260101-00:00:00.000");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < deadline, "no Reject");
        if let Some(m) = peer.read(Duration::from_secs(5), || {}) {
            if m.contains("|35=3|") {
                assert!(m.contains("|373=1|") && m.contains("|371=122|"), "{m}");
                break;
            }
        }
    }
    let session = [("session", ACCEPTOR)];
    let scraped = |name: &str, labels: &[(&str, &str)]| {
        let (status, _, body) = get(admin, "/metrics", None);
        assert_eq!(status, 200);
        value(&parse(&body), name, labels)
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while scraped("peregrine_session_heartbeat_rtt_seconds_count", &session) != Some(1.0) {
        assert!(
            Instant::now() < deadline,
            "no heartbeat round-trip recorded"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let rejects = [("session", ACCEPTOR), ("type", "session"), ("reason", "1")];
    assert_eq!(
        scraped("peregrine_session_rejects_sent_total", &rejects),
        Some(1.0)
    );
    // The round trip was short: less than the second the test waited to answer.
    let sum = scraped("peregrine_session_heartbeat_rtt_seconds_sum", &session).unwrap();
    assert!(sum > 0.0 && sum < 1.0, "{sum}");
    handle.stop();
    reactor.join().unwrap().unwrap();
}

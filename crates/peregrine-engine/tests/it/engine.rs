//! The engine over loopback TCP with real sessions: an acceptor and an
//! initiator exchange application messages and heartbeats, the initiator
//! reconnects after the acceptor restarts, shutdown logs out; routing closes
//! strangers and duplicates without disturbing the live session.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::{build_session, BoxedFixSession};
use peregrine_engine::{now_nanos, Engine, Idle};
use peregrine_session::{AppReject, Application, Outbox, SessionId};
use peregrine_store::StoreError;
use peregrine_testkit::frame;

use crate::support;
use support::{echo, engine_with, log_on, logged_on, options, pump, TW_ISLD};

type Received = Arc<Mutex<Vec<String>>>;

/// Records every application message it receives.
struct Recorder(Received);

impl Application for Recorder {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(msg.as_bytes()).replace('\x01', "|"));
        Ok(())
    }
}

fn acceptor(dir: &Path, port: u16) -> Engine<BoxedFixSession> {
    let text = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nSenderCompID=ISLD\nTargetCompID=TW\n\
         ResetOnLogon=Y\nFileLogPath=log-acceptor\nLogoutTimeout=2\nUseDataDictionary=N\n\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    );
    engine_from(&text, dir, "acceptor.cfg", Idle::busy_spin())
}

fn initiator(dir: &Path, port: u16, received: Received) -> Engine<BoxedFixSession> {
    let text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=1\nReconnectInterval=1\nResetOnLogon=Y\n\
         FileLogPath=log-initiator\nUseDataDictionary=N\n\n[SESSION]\nBeginString=FIX.4.4\n"
    );
    engine_with(
        &text,
        &dir.join("initiator.cfg"),
        options(Idle::busy_spin(), true),
        StoreKind::Memory,
        &mut |_| Box::new(Recorder(received.clone())),
    )
}

/// An echoing engine (memory store, message logs) from `text`, read as `dir/name`.
fn engine_from(text: &str, dir: &Path, name: &str, idle: Idle) -> Engine<BoxedFixSession> {
    engine_with(
        text,
        &dir.join(name),
        options(idle, true),
        StoreKind::Memory,
        &mut echo,
    )
}

/// A recording [`initiator`] logged on to `acc` that sent ORDER-1 and received
/// the answer; what it received.
fn ordered(dir: &Path, acc: &mut Engine<BoxedFixSession>) -> (Engine<BoxedFixSession>, Received) {
    let port = acc.listener_addrs()[0].port();
    let received: Received = Arc::default();
    let mut ini = initiator(dir, port, received.clone());
    log_on(acc, &mut ini);
    send_order(&mut ini, "ORDER-1");
    pump(
        &mut [acc, &mut ini],
        Duration::from_secs(10),
        "the answer to ORDER-1",
        |_| !received.lock().unwrap().is_empty(),
    );
    (ini, received)
}

/// TW with two hosts, 127.0.0.1:`first` then 127.0.0.1:`second` (a reconnect
/// every second, its event log under `log-initiator`).
fn failover_initiator(dir: &Path, first: u16, second: u16) -> Engine<BoxedFixSession> {
    let text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={first}\n\
         SocketConnectHost1=127.0.0.1\nSocketConnectPort1={second}\nSenderCompID=TW\nTargetCompID=ISLD\n\
         HeartBtInt=30\nReconnectInterval=1\nResetOnLogon=Y\nFileLogPath=log-initiator\nUseDataDictionary=N\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    );
    engine_from(&text, dir, "i.cfg", Idle::busy_spin())
}

/// A second acceptor, B (on a free port), and a [`failover_initiator`] trying
/// `a`'s port first and then B's, turned with `a` (for `limit` at most, waiting
/// for `what`) until the initiator is logged on at host `at` (0: A, 1: B).
/// B, its port and the initiator.
fn failover_pair(
    dir: &Path,
    a: &mut Engine<BoxedFixSession>,
    at: usize,
    limit: Duration,
    what: &str,
) -> (Engine<BoxedFixSession>, u16, Engine<BoxedFixSession>) {
    let port_a = a.listener_addrs()[0].port();
    let mut b = acceptor(dir, 0);
    let port_b = b.listener_addrs()[0].port();
    let mut ini = failover_initiator(dir, port_a, port_b);
    pump(&mut [a, &mut b, &mut ini], limit, what, |e| {
        logged_on(e[at]) && logged_on(e[2])
    });
    (b, port_b, ini)
}

fn send_order(e: &mut Engine<BoxedFixSession>, cl_ord_id: &str) {
    support::send_order(e, TW_ISLD, b"D", cl_ord_id).unwrap();
}

#[test]
fn acceptor_and_initiator_exchange_messages_heartbeats_reconnect_and_log_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut acc = acceptor(dir.path(), 0);
    let port = acc.listener_addrs()[0].port();
    // Logon; an order goes out and comes back echoed.
    let (mut ini, received) = ordered(dir.path(), &mut acc);
    let echo = received.lock().unwrap()[0].clone();
    assert!(echo.contains("|35=D|"), "{echo}");
    assert!(echo.contains("|11=ORDER-1|"), "{echo}");

    // Heartbeats flow both ways with HeartBtInt=1.
    let start = Instant::now();
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(10),
        "heartbeats",
        |_| start.elapsed() > Duration::from_millis(2500),
    );
    assert!(logged_on(&acc) && logged_on(&ini));
    ini.flush_logs();
    let ini_log = std::fs::read_to_string(
        dir.path()
            .join("log-initiator/FIX.4.4-TW-ISLD.messages.log"),
    )
    .unwrap();
    let beats = ini_log
        .lines()
        .filter(|l| l.contains("\x0135=0\x01"))
        .count();
    assert!(beats >= 2, "{beats} heartbeats in\n{ini_log}");
    assert!(
        ini_log.lines().all(|l| l.contains(" : 8=FIX.4.4\x01")),
        "one message per line"
    );

    // The acceptor restarts: graceful shutdown (Logout), then a new one on the same port.
    let t = Instant::now();
    // The initiator must keep turning to answer the Logout: do it on a thread.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ini_thread = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                ini.turn().unwrap();
                std::thread::sleep(Duration::from_micros(200));
            }
            ini
        })
    };
    acc.shutdown().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "logout answered, not timed out"
    );
    assert!(!acc.sessions()[0].connected);
    drop(acc);
    let acc_log =
        std::fs::read_to_string(dir.path().join("log-acceptor/FIX.4.4-ISLD-TW.messages.log"))
            .unwrap();
    let logouts = acc_log
        .lines()
        .filter(|l| l.contains("\x0135=5\x01"))
        .count();
    assert_eq!(logouts, 2, "our Logout and the answer:\n{acc_log}");
    let events =
        std::fs::read_to_string(dir.path().join("log-acceptor/FIX.4.4-ISLD-TW.event.log")).unwrap();
    assert!(events.contains("shutting down: sending Logout"), "{events}");

    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut ini = ini_thread.join().unwrap();
    assert!(!logged_on(&ini));
    let mut acc = acceptor(dir.path(), port);
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(10),
        "the reconnect",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
    send_order(&mut ini, "ORDER-2");
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(10),
        "the second echo",
        |_| received.lock().unwrap().len() >= 2,
    );
    assert!(received.lock().unwrap()[1].contains("|11=ORDER-2|"));
    ini.flush_logs();
    let events =
        std::fs::read_to_string(dir.path().join("log-initiator/FIX.4.4-TW-ISLD.event.log"))
            .unwrap();
    assert!(events.matches("logged on").count() >= 2, "{events}");
}

fn logon(sender: &str, target: &str) -> Vec<u8> {
    let now = peregrine_engine::log::timestamp(now_nanos());
    frame(&format!(
        "35=A|34=1|49={sender}|52={}|56={target}|98=0|108=30|141=Y|",
        &now[..21]
    ))
}

/// Turns `engine` until the raw client sees the connection closed (or data).
fn wait_closed(engine: &mut Engine<BoxedFixSession>, client: &mut TcpStream) -> bool {
    client.set_nonblocking(true).unwrap();
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    while start.elapsed() < Duration::from_secs(5) {
        engine.turn().unwrap();
        match client.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => return false,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return true,
        }
    }
    false
}

/// Turns `engine` until one whole message arrives on `client`; rendered with `|`.
fn read_message(engine: &mut Engine<BoxedFixSession>, client: &mut TcpStream) -> String {
    client.set_nonblocking(true).unwrap();
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while start.elapsed() < Duration::from_secs(5) {
        engine.turn().unwrap();
        match client.read(&mut buf) {
            Ok(0) => panic!("closed; received {:?}", String::from_utf8_lossy(&got)),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
        let text = String::from_utf8_lossy(&got).replace('\x01', "|");
        if let Some(at) = text.find("|10=") {
            if text.len() >= at + 8 {
                return text;
            }
        }
    }
    panic!(
        "no whole message within 5 s: {:?}",
        String::from_utf8_lossy(&got)
    );
}

#[test]
fn strangers_and_duplicates_are_closed_without_disturbing_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut acc = acceptor(dir.path(), 0);
    let addr = acc.listener_addrs()[0];

    // A valid Logon.
    let mut first = TcpStream::connect(addr).unwrap();
    first.write_all(&logon("TW", "ISLD")).unwrap();
    let start = Instant::now();
    while !logged_on(&acc) {
        assert!(start.elapsed() < Duration::from_secs(5));
        acc.turn().unwrap();
    }

    // Unknown CompIDs, a wrong BeginString, garbage: closed.
    for bytes in [
        logon("XX", "ISLD"),
        logon("TW", "NOPE"),
        logon("TW", "ISLD")
            .iter()
            .map(|&b| if b == b'4' { b'3' } else { b })
            .collect(),
        // Stray bytes are skipped (as QuickFIX's parser skips them); the message
        // after them fails its CheckSum: closed.
        b"GET / HTTP/1.0\r\n\r\n8=FIX.4.4\x019=5\x0135=A\x0110=000\x01".to_vec(),
    ] {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(&bytes).unwrap();
        assert!(
            wait_closed(&mut acc, &mut c),
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
    // The same session again (asking for a reset, which would rewind the live
    // session's numbers if it reached it): closed, the first one stays.
    let mut dup = TcpStream::connect(addr).unwrap();
    dup.write_all(&logon("TW", "ISLD")).unwrap();
    assert!(wait_closed(&mut acc, &mut dup));
    assert!(logged_on(&acc));
    assert!(acc.sessions()[0].connected);
    let info = &acc.sessions()[0];
    assert_eq!((info.next_sender_seq, info.next_target_seq), (2, 2));
    // The first connection still works, in sequence.
    let now = peregrine_engine::log::timestamp(now_nanos());
    first
        .write_all(&frame(&format!(
            "35=1|34=2|49=TW|52={}|56=ISLD|112=STILL-HERE|",
            &now[..21]
        )))
        .unwrap();
    let reply = read_message(&mut acc, &mut first);
    assert!(reply.contains("|35=0|34=2|49=ISLD|"), "{reply}");
    assert!(reply.contains("|112=STILL-HERE|"), "{reply}");
    assert_eq!(acc.sessions()[0].next_target_seq, 3);

    // A connection that says nothing, then goes: no harm.
    drop(TcpStream::connect(addr).unwrap());
    for _ in 0..100 {
        acc.turn().unwrap();
    }
    assert!(logged_on(&acc));
}

#[test]
fn initiator_fails_over_to_the_next_host() {
    let dir = tempfile::tempdir().unwrap();
    let mut acc = acceptor(dir.path(), 0);
    let port = acc.listener_addrs()[0].port();
    // A port nobody listens on.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut ini = failover_initiator(dir.path(), dead, port);
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(10),
        "failover logon",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
    ini.flush_logs();
    let events =
        std::fs::read_to_string(dir.path().join("log-initiator/FIX.4.4-TW-ISLD.event.log"))
            .unwrap();
    assert!(
        events.contains(&format!("connecting to 127.0.0.1:{dead}")),
        "{events}"
    );
    assert!(
        events.contains(&format!("connected to Some(127.0.0.1:{port})")),
        "{events}"
    );
}

/// The ports of the `connecting to …` lines in the initiator's event log
/// (under `dir/log-initiator`), in order.
fn connect_attempts(dir: &Path) -> Vec<u16> {
    let log = dir.join("log-initiator/FIX.4.4-TW-ISLD.event.log");
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| l.split("connecting to 127.0.0.1:").nth(1))
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

#[test]
fn initiator_fails_over_after_a_refused_logon_and_stays_with_the_host_that_took_it() {
    let dir = tempfile::tempdir().unwrap();
    // Host A listens but knows no session TW->ISLD: it closes the connection the Logon
    // came on. Host B is the right one.
    let text = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=OTHER\nUseDataDictionary=N\n\
                [SESSION]\nBeginString=FIX.4.4\n";
    let mut a = engine_from(text, dir.path(), "a.cfg", Idle::busy_spin());
    let port_a = a.listener_addrs()[0].port();
    let (b, port_b, mut ini) = failover_pair(
        dir.path(),
        &mut a,
        1,
        Duration::from_secs(15),
        "logon at the second host",
    );
    ini.flush_logs();
    let attempts = connect_attempts(dir.path());
    assert_eq!(attempts, [port_a, port_b], "refused at A, then B");

    // B goes away and comes back on the same port: the initiator, logged on at B,
    // tries B again first (a host that took its Logon is kept).
    drop(b);
    pump(
        &mut [&mut a, &mut ini],
        Duration::from_secs(10),
        "the drop",
        |e| !logged_on(e[1]),
    );
    let mut b = acceptor(dir.path(), port_b);
    pump(
        &mut [&mut a, &mut b, &mut ini],
        Duration::from_secs(15),
        "logon at B again",
        |e| logged_on(e[1]) && logged_on(e[2]),
    );
    ini.flush_logs();
    let attempts = connect_attempts(dir.path());
    assert_eq!(attempts, [port_a, port_b, port_b], "back to B, not A");
}

/// Two working acceptors: the initiator logs on at the first; taken down, it is tried
/// once more (the host that took the Logon is kept), refused, and the initiator moves to
/// the second and logs on there.
#[test]
fn initiator_moves_to_the_second_acceptor_when_the_first_is_taken_down() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = acceptor(dir.path(), 0);
    let port_a = a.listener_addrs()[0].port();
    let (mut b, port_b, mut ini) =
        failover_pair(dir.path(), &mut a, 0, Duration::from_secs(10), "logon at A");
    assert!(!logged_on(&b));
    // A goes down: its listener and its connection close.
    drop(a);
    pump(
        &mut [&mut b, &mut ini],
        Duration::from_secs(20),
        "logon at B",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
    ini.flush_logs();
    let attempts = connect_attempts(dir.path());
    assert_eq!(attempts.first(), Some(&port_a), "{attempts:?}");
    assert_eq!(attempts.last(), Some(&port_b), "{attempts:?}");
    // After the drop: A once more (kept), then B.
    assert_eq!(
        attempts.iter().filter(|&&p| p == port_b).count(),
        1,
        "{attempts:?}"
    );
    assert!(
        attempts.iter().filter(|&&p| p == port_a).count() >= 2,
        "{attempts:?}"
    );
}

#[test]
fn every_idle_strategy_runs_a_session() {
    for idle in ["busy-spin", "spin-then-yield:10", "backoff:500", "block"] {
        let idle: Idle = idle.parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let text = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                    ResetOnLogon=Y\n[SESSION]\nBeginString=FIX.4.2\n";
        let mut acc = engine_from(text, dir.path(), "a.cfg", idle);
        let port = acc.listener_addrs()[0].port();
        let text = format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=1\nResetOnLogon=Y\nUseDataDictionary=N\n\
             [SESSION]\nBeginString=FIX.4.2\n"
        );
        let mut ini = engine_from(&text, dir.path(), "i.cfg", idle);
        let t = Instant::now();
        log_on(&mut acc, &mut ini);
        // A heartbeat each way within the interval (plus slack).
        let seqs = |e: &Engine<BoxedFixSession>| e.sessions()[0].next_target_seq;
        pump(
            &mut [&mut acc, &mut ini],
            Duration::from_secs(10),
            "heartbeats",
            |e| seqs(e[0]) >= 3 && seqs(e[1]) >= 3,
        );
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{idle}: {:?}",
            t.elapsed()
        );
    }
}

#[test]
fn many_sessions_on_one_port_and_one_thread() {
    const N: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    let mut acc_text = String::from(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nUseDataDictionary=N\nResetOnLogon=Y\n",
    );
    for i in 0..N {
        acc_text.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nTargetCompID=C{i}\n"
        ));
    }
    let mut acc = engine_from(&acc_text, dir.path(), "a.cfg", Idle::busy_spin());
    assert_eq!(acc.listener_addrs().len(), 1, "one listener for all");
    let port = acc.listener_addrs()[0].port();
    let mut ini_text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=ISLD\nHeartBtInt=30\nUseDataDictionary=N\nResetOnLogon=Y\n"
    );
    for i in 0..N {
        ini_text.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=C{i}\n"
        ));
    }
    let mut ini = engine_from(&ini_text, dir.path(), "i.cfg", Idle::busy_spin());
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(20),
        "all logons",
        |e| e.iter().all(|e| e.sessions().iter().all(|s| s.logged_on)),
    );
    let names: Vec<String> = acc.sessions().into_iter().map(|s| s.name).collect();
    assert_eq!(names[N - 1], format!("FIX.4.4:ISLD->C{}", N - 1));
}

#[test]
fn the_message_log_splits_any_chunking_into_one_message_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = peregrine_engine::SessionLog::open(dir.path(), "FIX.4.4:A->B").unwrap();
    let one = frame("35=0|34=1|49=A|56=B|52=20260101-00:00:00|");
    let two = frame("35=0|34=2|49=A|56=B|52=20260101-00:00:00|");
    let mut all = one.clone();
    all.extend_from_slice(&two);
    all.extend_from_slice(&one);
    // Byte by byte for the first message, then the rest in one go.
    for b in &all[..one.len()] {
        log.incoming(std::slice::from_ref(b), 0);
    }
    log.incoming(&all[one.len()..], 0);
    log.outgoing(&two, 0);
    log.flush();
    let text = std::fs::read_to_string(log.messages_path().unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[1].ends_with(&*String::from_utf8_lossy(&two)),
        "{text}"
    );
    assert!(lines
        .iter()
        .all(|l| l.starts_with("19700101-00:00:00.000000 : 8=FIX.4.4")));
}

#[test]
fn nodelay_and_buffer_sizes_are_applied_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let acc_text = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                    ResetOnLogon=Y\nSocketNodelay=N\nSocketSendBufferSize=6000\nSocketReceiveBufferSize=7000\n\
                    [SESSION]\nBeginString=FIX.4.4\n";
    let mut acc = engine_from(acc_text, dir.path(), "a.cfg", Idle::busy_spin());
    let port = acc.listener_addrs()[0].port();
    let ini_text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nResetOnLogon=Y\nUseDataDictionary=N\n\
         SocketSendBufferSize=9000\nSocketReceiveBufferSize=10000\n[SESSION]\nBeginString=FIX.4.4\n"
    );
    let mut ini = engine_from(&ini_text, dir.path(), "i.cfg", Idle::busy_spin());
    assert!(
        acc.socket_options("FIX.4.4:ISLD->TW").is_none(),
        "not connected yet"
    );
    log_on(&mut acc, &mut ini);
    // Linux doubles what was asked for; other systems report it as set.
    let within = |v: usize, asked: usize| (asked..=2 * asked).contains(&v);
    let a = acc.socket_options("FIX.4.4:ISLD->TW").unwrap().unwrap();
    assert!(!a.nodelay, "SocketNodelay=N: {a:?}");
    assert!(within(a.send_buffer_size, 6000), "{a:?}");
    assert!(within(a.recv_buffer_size, 7000), "{a:?}");
    let i = ini.socket_options("FIX.4.4:TW->ISLD").unwrap().unwrap();
    assert!(i.nodelay, "SocketNodelay defaults to Y: {i:?}");
    assert!(within(i.send_buffer_size, 9000), "{i:?}");
    assert!(within(i.recv_buffer_size, 10000), "{i:?}");
    assert!(acc.socket_options("FIX.4.4:NOPE->TW").is_none());
}

#[test]
fn an_initiator_outside_its_weekly_window_does_not_connect() {
    let dir = tempfile::tempdir().unwrap();
    let mut acc = acceptor(dir.path(), 0);
    let port = acc.listener_addrs()[0].port();
    // A window two days from today (UTC), one day long: now is outside it.
    let today = ((now_nanos() / 1_000_000_000 / 86_400 + 4) % 7) as usize;
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let text = |start: &str, end: &str| {
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nReconnectInterval=1\nResetOnLogon=Y\n\
             UseDataDictionary=N\nStartTime=00:00:00\nEndTime=00:00:00\nStartDay={start}\nEndDay={end}\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        )
    };
    let mut outside = engine_from(
        &text(days[(today + 2) % 7], days[(today + 3) % 7]),
        dir.path(),
        "outside.cfg",
        Idle::busy_spin(),
    );
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(500) {
        acc.turn().unwrap();
        outside.turn().unwrap();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(!outside.sessions()[0].connected);
    assert!(!acc.sessions()[0].connected);
    // The same session with a window that contains today logs on.
    drop(outside);
    let mut inside = engine_from(
        &text(days[today], days[(today + 1) % 7]),
        dir.path(),
        "inside.cfg",
        Idle::busy_spin(),
    );
    pump(
        &mut [&mut acc, &mut inside],
        Duration::from_secs(10),
        "logon inside the window",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
}

#[test]
fn username_and_password_from_the_cfg_reach_the_acceptors_application() {
    type Seen = Arc<Mutex<Vec<(String, String)>>>;
    /// Accepts user "trader" with password "secret" only.
    struct Auth(Seen);
    impl Application for Auth {
        fn from_admin(
            &mut self,
            msg: &MessageView<'_>,
            _id: &SessionId,
            _out: &mut Outbox<'_>,
        ) -> Result<(), peregrine_session::RejectLogon> {
            if msg.msg_type() != b"A" {
                return Ok(());
            }
            let get = |t| String::from_utf8_lossy(msg.get(t).unwrap_or(b"")).into_owned();
            let (user, password) = (get(553), get(554));
            self.0
                .lock()
                .unwrap()
                .push((user.clone(), password.clone()));
            if user == "trader" && password == "secret" {
                Ok(())
            } else {
                Err(peregrine_session::RejectLogon::new("bad credentials"))
            }
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
    let dir = tempfile::tempdir().unwrap();
    let seen: Seen = Arc::default();
    let text =
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                ResetOnLogon=Y\nFileLogPath=log-acceptor\n[SESSION]\nBeginString=FIX.4.4\n";
    let mut acc = engine_with(
        text,
        &dir.path().join("a.cfg"),
        options(Idle::busy_spin(), true),
        StoreKind::Memory,
        &mut |_| Box::new(Auth(seen.clone())),
    );
    let port = acc.listener_addrs()[0].port();
    let ini_text = |password: &str| {
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nReconnectInterval=30\nResetOnLogon=Y\n\
             UseDataDictionary=N\nUsername=trader\nPassword={password}\n[SESSION]\nBeginString=FIX.4.4\n"
        )
    };
    // A wrong password: refused with a Logout, never logged on.
    let mut wrong = engine_from(&ini_text("guess"), dir.path(), "w.cfg", Idle::busy_spin());
    pump(
        &mut [&mut acc, &mut wrong],
        Duration::from_secs(10),
        "the refusal",
        |_| !seen.lock().unwrap().is_empty(),
    );
    pump(
        &mut [&mut acc, &mut wrong],
        Duration::from_secs(10),
        "the disconnect",
        |e| !e[0].sessions()[0].connected && !e[1].sessions()[0].connected,
    );
    assert!(!logged_on(&acc));
    acc.flush_logs();
    let log = std::fs::read_to_string(dir.path().join("log-acceptor/FIX.4.4-ISLD-TW.messages.log"))
        .unwrap();
    assert!(log.contains("\x0135=5\x01"), "{log}");
    assert!(log.contains("\x0158=bad credentials\x01"), "{log}");
    drop(wrong);
    // The right one.
    let mut right = engine_from(&ini_text("secret"), dir.path(), "r.cfg", Idle::busy_spin());
    log_on(&mut acc, &mut right);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("trader".to_string(), "guess".to_string()),
            ("trader".to_string(), "secret".to_string())
        ]
    );
}

/// A stand-in session whose store wants an fsync every 20 ms.
struct SyncCounter(Arc<std::sync::atomic::AtomicUsize>);

impl peregrine_engine::SessionView for SyncCounter {
    fn state_name(&self) -> String {
        "Idle".into()
    }
    fn next_sender_seq(&self) -> u64 {
        1
    }
    fn next_target_seq(&self) -> u64 {
        1
    }
    fn set_next_sender_seq(&mut self, _seq: u64) -> Result<(), StoreError> {
        Ok(())
    }
    fn set_next_target_seq(&mut self, _seq: u64) -> Result<(), StoreError> {
        Ok(())
    }
}

impl peregrine_engine::SessionDriver for SyncCounter {
    fn on_connected(&mut self, _now: i64) {}
    fn on_bytes(&mut self, _data: &[u8], _now: i64) {}
    fn on_timer(&mut self, _now: i64) {}
    fn next_deadline(&self) -> Option<i64> {
        None
    }
    fn on_disconnected(&mut self, _now: i64) {}
    fn commit(&mut self) {}
    fn outbound(&self) -> &[u8] {
        &[]
    }
    fn consume_outbound(&mut self, _n: usize) {}
    fn send_body(
        &mut self,
        _now: i64,
        _msg_type: &[u8],
        _body: &[u8],
    ) -> Result<u64, peregrine_session::SendError> {
        Err(peregrine_session::SendError::NotLoggedOn)
    }
    fn poll_event(&mut self) -> Option<peregrine_engine::DriverEvent> {
        None
    }
    fn logout(&mut self, _now: i64, _text: Option<&str>) {}
    fn is_logged_on(&self) -> bool {
        false
    }
    fn store_sync_interval(&self) -> Option<i64> {
        Some(20_000_000)
    }
    fn sync_store_if_due(&mut self) -> Result<bool, StoreError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(true)
    }
}

#[test]
fn an_idle_session_s_store_gets_its_timed_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                [SESSION]\nBeginString=FIX.4.4\n";
    let settings = Settings::parse(text, &dir.path().join("a.cfg")).unwrap();
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut engine = Engine::new(options(Idle::block(), false)).unwrap();
    engine
        .add_session(&settings.sessions[0], SyncCounter(calls.clone()))
        .unwrap();
    let start = Instant::now();
    while calls.load(std::sync::atomic::Ordering::Relaxed) < 3 {
        assert!(start.elapsed() < Duration::from_secs(5), "no timed fsync");
        engine.turn().unwrap();
    }
    // The file store under FileStoreSync=25 asks for exactly that.
    let text = format!(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         FileStorePath={}\nFileStoreSync=25\n[SESSION]\nBeginString=FIX.4.4\n",
        dir.path().join("store").display()
    );
    let settings = Settings::parse(&text, &dir.path().join("f.cfg")).unwrap();
    let mut d = build_session(
        &settings.sessions[0],
        StoreKind::File,
        now_nanos(),
        &mut echo,
    )
    .unwrap();
    use peregrine_engine::SessionDriver;
    assert_eq!(d.store_sync_interval(), Some(25_000_000));
    d.sync_store_if_due().unwrap();
    let memory = build_session(
        &settings.sessions[0],
        StoreKind::Memory,
        now_nanos(),
        &mut echo,
    )
    .unwrap();
    assert_eq!(memory.store_sync_interval(), None);
}

#[test]
fn a_connection_that_never_logs_on_is_closed_after_logon_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                LogonTimeout=1\n[SESSION]\nBeginString=FIX.4.4\n";
    let mut acc = engine_from(text, dir.path(), "a.cfg", Idle::block());
    let addr = acc.listener_addrs()[0];
    // Silent, and half a Logon: both closed, neither bound to the session.
    let mut silent = TcpStream::connect(addr).unwrap();
    let mut half = TcpStream::connect(addr).unwrap();
    let l = logon("TW", "ISLD");
    half.write_all(&l[..l.len() / 2]).unwrap();
    let t = Instant::now();
    assert!(wait_closed(&mut acc, &mut silent), "silent connection kept");
    assert!(wait_closed(&mut acc, &mut half), "half a Logon kept");
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "closed before LogonTimeout: {:?}",
        t.elapsed()
    );
    assert!(!acc.sessions()[0].connected);
    // The session is still free for a real Logon.
    let mut c = TcpStream::connect(addr).unwrap();
    c.write_all(&logon("TW", "ISLD")).unwrap();
    let answer = read_message(&mut acc, &mut c);
    assert!(answer.contains("|35=A|"), "{answer}");
}

#[test]
fn an_unanswered_initiator_logon_times_out_and_reconnects() {
    let dir = tempfile::tempdir().unwrap();
    // An "acceptor" that takes connections and says nothing.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    server.set_nonblocking(true).unwrap();
    let port = server.local_addr().unwrap().port();
    let text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nReconnectInterval=1\nLogonTimeout=1\n\
         UseDataDictionary=N\nFileLogPath=log\n[SESSION]\nBeginString=FIX.4.4\n"
    );
    let mut ini = engine_from(&text, dir.path(), "i.cfg", Idle::block());
    let mut accepted: Vec<(TcpStream, Vec<u8>)> = Vec::new();
    let start = Instant::now();
    // Two connections, each carrying a Logon, the first closed by the initiator.
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{} connection(s)",
            accepted.len()
        );
        ini.turn().unwrap();
        if let Ok((s, _)) = server.accept() {
            s.set_nonblocking(true).unwrap();
            accepted.push((s, Vec::new()));
        }
        let mut buf = [0u8; 4096];
        for (s, got) in &mut accepted {
            if let Ok(n) = s.read(&mut buf) {
                got.extend_from_slice(&buf[..n]);
            }
        }
        if accepted.len() >= 2 && accepted[1].1.windows(5).any(|w| w == b"\x0135=A") {
            break;
        }
    }
    assert!(accepted[0].1.windows(5).any(|w| w == b"\x0135=A"));
    ini.flush_logs();
    let events = std::fs::read_to_string(dir.path().join("log/FIX.4.4-TW-ISLD.event.log")).unwrap();
    assert!(
        events.contains(&format!(
            "disconnected: {}",
            peregrine_session::DisconnectReason::LogonTimeout
        )),
        "{events}"
    );
}

/// Answers each order with a News, after a pause (an application that takes its time).
struct SlowNews;

impl Application for SlowNews {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        std::thread::sleep(Duration::from_millis(50));
        out.send(b"B", |m| {
            m.str(148, b"late");
        })
        .map(|_| ())
        .map_err(AppReject::from)
    }
}

#[test]
fn an_outgoing_message_is_never_logged_before_its_sending_time() {
    // SendingTime is read when a message is encoded; its log line is stamped when it is
    // written, after. (An application that takes 50 ms inside its callback.)
    let dir = tempfile::tempdir().unwrap();
    let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\n\
                ResetOnLogon=Y\nFileLogPath=log-acceptor\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    let mut acc = engine_with(
        text,
        &dir.path().join("a.cfg"),
        options(Idle::busy_spin(), true),
        StoreKind::Memory,
        &mut |_| Box::new(SlowNews),
    );
    let (_ini, _received) = ordered(dir.path(), &mut acc);
    drop(acc);
    let log = std::fs::read_to_string(dir.path().join("log-acceptor/FIX.4.4-ISLD-TW.messages.log"))
        .unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("\u{1}35=B\u{1}"))
        .unwrap_or_else(|| panic!("no News in the log:\n{log}"));
    // "YYYYMMDD-HH:MM:SS.ffffff : 8=FIX.4.4␁…␁52=YYYYMMDD-HH:MM:SS.sss␁…": compare to the
    // millisecond, as text (both are UTC in the same format).
    let logged = &line[..21];
    let sending_time = line
        .split('\u{1}')
        .find_map(|f| f.strip_prefix("52="))
        .expect("SendingTime");
    assert!(
        logged >= &sending_time[..21],
        "logged at {logged}, sent with SendingTime {sending_time}"
    );
}

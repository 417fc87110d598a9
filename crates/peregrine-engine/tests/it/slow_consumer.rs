//! Slow-consumer detection: a session whose peer does not read piles up
//! outbound bytes; past `MaxOutboundQueueBytes` the engine disconnects it (or,
//! with `SlowConsumerAction=flag`, flags it and clears the flag once the peer
//! catches up, and disconnects it all the same past `SlowConsumerHardLimit`).
//! A stand-in session floods on every input.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use peregrine_engine::config::Settings;
use peregrine_engine::{DriverEvent, Engine, Idle, Nanos, SessionDriver, SessionView};
use peregrine_store::StoreError;
use peregrine_testkit::frame;

use crate::support;
use support::options;

/// Queues `flood` bytes for every chunk it receives.
#[derive(Default)]
struct Flood {
    received: usize,
    out: Vec<u8>,
    sent: usize,
    flood: usize,
    connected: bool,
}

impl SessionView for Flood {
    fn state_name(&self) -> String {
        "Flooding".into()
    }
    fn next_sender_seq(&self) -> u64 {
        1
    }
    fn next_target_seq(&self) -> u64 {
        // Reported through /sessions: the bytes received so far.
        self.received as u64
    }
    fn set_next_sender_seq(&mut self, _seq: u64) -> Result<(), StoreError> {
        Ok(())
    }
    fn set_next_target_seq(&mut self, _seq: u64) -> Result<(), StoreError> {
        Ok(())
    }
}

impl SessionDriver for Flood {
    fn on_connected(&mut self, _now: Nanos) {
        self.connected = true;
    }
    fn on_bytes(&mut self, data: &[u8], _now: Nanos) {
        self.received += data.len();
        self.out.resize(self.out.len() + self.flood, b'x');
    }
    fn on_timer(&mut self, _now: Nanos) {}
    fn next_deadline(&self) -> Option<Nanos> {
        None
    }
    fn on_disconnected(&mut self, _now: Nanos) {
        self.connected = false;
        self.out.clear();
        self.sent = 0;
    }
    fn commit(&mut self) {}
    fn outbound(&self) -> &[u8] {
        &self.out[self.sent..]
    }
    fn consume_outbound(&mut self, n: usize) {
        self.sent += n;
        if self.sent == self.out.len() {
            self.out.clear();
            self.sent = 0;
        }
    }
    fn send_body(
        &mut self,
        _now: Nanos,
        _msg_type: &[u8],
        _body: &[u8],
    ) -> Result<u64, peregrine_session::SendError> {
        Err(peregrine_session::SendError::NotLoggedOn)
    }
    fn poll_event(&mut self) -> Option<DriverEvent> {
        None
    }
    fn logout(&mut self, _now: Nanos, _text: Option<&str>) {}
    fn is_logged_on(&self) -> bool {
        self.connected
    }
}

fn logon() -> Vec<u8> {
    frame("35=A|49=TW|56=ISLD|")
}

fn engine(dir: &Path, action: &str) -> Engine<Flood> {
    engine_with(dir, action, 64 << 20, 8 << 20)
}

fn engine_with(dir: &Path, action: &str, hard: usize, flood: usize) -> Engine<Flood> {
    let text = format!(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nFileLogPath=log\n\
         MaxOutboundQueueBytes=1048576\nSlowConsumerAction={action}\nSocketSendBufferSize=65536\n\
         SlowConsumerHardLimit={hard}\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    );
    let settings = Settings::parse(&text, &dir.join("a.cfg")).unwrap();
    let mut e = Engine::new(options(Idle::backoff(Duration::from_micros(100)), true)).unwrap();
    e.add_session(
        &settings.sessions[0],
        Flood {
            flood,
            ..Flood::default()
        },
    )
    .unwrap();
    e
}

/// A client; a tiny receive buffer makes a peer that cannot keep up.
/// (Set before the handshake: a receive buffer shrunk after it can stall
/// loopback TCP in retransmission back-off.)
fn connect(e: &Engine<Flood>, tiny_buffer: bool) -> TcpStream {
    let addr = e.listener_addrs()[0];
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    if tiny_buffer {
        sock.set_recv_buffer_size(4096).unwrap();
    }
    sock.connect(&addr.into()).unwrap();
    sock.into()
}

#[test]
fn a_peer_that_does_not_read_is_disconnected() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(dir.path(), "disconnect");
    let mut c = connect(&e, true);
    c.write_all(&logon()).unwrap();
    let start = Instant::now();
    let log = dir.path().join("log/FIX.4.4-ISLD-TW.event.log");
    let mut events = String::new();
    while !events.contains("disconnected:") {
        e.turn().unwrap();
        events = std::fs::read_to_string(&log).unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not disconnected: {events}"
        );
    }
    assert!(!e.sessions()[0].connected);
    assert!(events.contains("slow consumer:"), "{events}");
    assert!(events.contains("limit 1048576), disconnecting"), "{events}");
    // The client sees the end of the stream after what was sent.
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0;
    loop {
        match c.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
    assert!(total < 8 << 20, "not everything was delivered");
}

#[test]
fn flag_marks_the_session_until_the_peer_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(dir.path(), "flag");
    // Not reading at first is enough to fall more than 1 MiB behind.
    let mut c = connect(&e, false);
    c.write_all(&logon()).unwrap();
    let start = Instant::now();
    while !e.sessions()[0].slow_consumer {
        e.turn().unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "never flagged");
    }
    assert!(e.sessions()[0].connected, "flagged, not disconnected");
    // /metrics says so too (the PeregrineSlowConsumer alert), with the unsent bytes.
    let metrics = e.metrics().session("FIX.4.4:ISLD->TW").unwrap();
    assert!(metrics.slow_consumer());
    assert_eq!(metrics.slow_consumer_flags(), 1);
    assert!(metrics.outbound_pending() > 1 << 20);
    // Now read everything.
    c.set_nonblocking(true).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0usize;
    while total < 8 << 20 {
        e.turn().unwrap();
        match c.read(&mut buf) {
            Ok(0) => panic!("closed"),
            Ok(n) => total += n,
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(err) => panic!("{err}"),
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "only {total} bytes"
        );
    }
    e.turn().unwrap();
    let s = &e.sessions()[0];
    assert!(!s.slow_consumer && s.connected && s.pending_outbound == 0);
    assert!(!metrics.slow_consumer());
    assert_eq!(metrics.slow_consumer_flags(), 1);
    assert_eq!(metrics.outbound_pending(), 0);
    drop(e);
    let events = std::fs::read_to_string(dir.path().join("log/FIX.4.4-ISLD-TW.event.log")).unwrap();
    assert!(events.contains("no longer a slow consumer"), "{events}");
}

#[test]
fn a_peer_sending_more_than_one_turn_can_read_is_served_completely() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\nBeginString=FIX.4.4\n";
    let settings = Settings::parse(text, &dir.path().join("a.cfg")).unwrap();
    let mut e = Engine::new(options(Idle::busy_spin(), false)).unwrap();
    e.add_session(&settings.sessions[0], Flood::default())
        .unwrap();
    let addr = e.listener_addrs()[0];
    const TOTAL: usize = 32 << 20;
    let writer = std::thread::spawn(move || {
        let mut c = TcpStream::connect(addr).unwrap();
        let mut first = logon();
        first.resize(TOTAL, b'y');
        c.write_all(&first).unwrap();
        c
    });
    let start = Instant::now();
    while e.sessions()[0].next_target_seq < TOTAL as u64 {
        e.turn().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} of {TOTAL} bytes",
            e.sessions()[0].next_target_seq
        );
    }
    drop(writer.join().unwrap());
}

#[test]
fn flag_still_disconnects_past_the_hard_limit() {
    // The reliability issue: with flag, the queue grew without any cap (268 MB
    // with an 8 MiB limit). Now it is flagged past 1 MiB and cut past 4 MiB.
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine_with(dir.path(), "flag", 4 << 20, 256 << 10);
    let mut c = connect(&e, true);
    c.write_all(&logon()).unwrap();
    c.set_nonblocking(true).unwrap();
    let start = Instant::now();
    let mut most = 0;
    let mut flagged = false;
    while e.sessions()[0].connected || start.elapsed() < Duration::from_millis(50) {
        // Keep sending (each chunk makes the stand-in queue 256 KiB more), never read.
        let _ = c.write(b"8=FIX.4.4\x019=5\x0135=0\x0110=000\x01");
        e.turn().unwrap();
        let s = &e.sessions()[0];
        most = most.max(s.pending_outbound);
        flagged |= s.slow_consumer;
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "never cut: {} pending",
            s.pending_outbound
        );
    }
    assert!(flagged, "flagged first");
    assert!(
        most <= (4 << 20) + (256 << 10),
        "the queue reached {most} bytes"
    );
    e.flush_logs();
    let events = std::fs::read_to_string(dir.path().join("log/FIX.4.4-ISLD-TW.event.log")).unwrap();
    assert!(
        events.contains("over SlowConsumerHardLimit (4194304)"),
        "{events}"
    );
}

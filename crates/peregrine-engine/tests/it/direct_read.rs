//! A spinning engine with few connections reads their sockets directly and asks
//! epoll only every few turns (`engine/read.rs`). What only epoll tells must still
//! arrive: new connections (past the threshold, where epoll takes over, and back),
//! a peer's close, and a socket writable again after a write would have blocked.

use std::time::{Duration, Instant};

use peregrine_engine::fix::StoreKind;
use peregrine_engine::{Engine, Idle};
use peregrine_testkit::Peer;

use crate::support;
use support::{echo, engine_with, options};

/// More sessions than the engine reads directly (its threshold is 4).
const SESSIONS: usize = 6;

/// ISLD accepting `C0`…`C5`, each its own session, under busy-spin; messages echoed.
fn acceptor(dir: &std::path::Path) -> Engine<peregrine_engine::internal::BoxedFixSession> {
    acceptor_under(dir, Idle::busy_spin())
}

/// [`acceptor`] under `idle`.
fn acceptor_under(
    dir: &std::path::Path,
    idle: Idle,
) -> Engine<peregrine_engine::internal::BoxedFixSession> {
    let mut text = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nUseDataDictionary=N\n\
                    HeartBtInt=30\nSocketSendBufferSize=65536\n"
        .to_string();
    for i in 0..SESSIONS {
        text.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nTargetCompID=C{i}\n"
        ));
    }
    engine_with(
        &text,
        &dir.join("a.cfg"),
        options(idle, false),
        StoreKind::Memory,
        &mut echo,
    )
}

/// Logs `peer` on and reads the engine's Logon answer.
fn log_on(e: &mut Engine<peregrine_engine::internal::BoxedFixSession>, peer: &mut Peer) {
    peer.send("35=A|98=0|108=30|141=Y");
    let answer = peer.read(Duration::from_secs(10), || {
        e.turn().unwrap();
    });
    let answer = answer.expect("a Logon answer");
    assert!(answer.contains("|35=A|"), "{answer}");
}

/// A TestRequest from `peer` is answered with its Heartbeat.
fn answered(
    e: &mut Engine<peregrine_engine::internal::BoxedFixSession>,
    peer: &mut Peer,
    id: &str,
) {
    peer.send(&format!("35=1|112={id}"));
    let start = Instant::now();
    loop {
        let m = peer
            .read(Duration::from_secs(10), || {
                e.turn().unwrap();
            })
            .unwrap_or_else(|| panic!("no answer to TestRequest {id}"));
        if m.contains("|35=0|") && m.contains(&format!("|112={id}|")) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{m}");
    }
}

#[test]
fn connections_past_the_threshold_are_accepted_and_every_one_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor(dir.path());
    let addr = e.listener_addrs()[0];
    let mut peers = Vec::new();
    // One at a time: each accept happens while the engine reads directly (up to
    // four connections) or polls epoll (past them).
    for i in 0..SESSIONS {
        let mut p = Peer::connect(addr, &format!("C{i}"), "ISLD");
        log_on(&mut e, &mut p);
        peers.push(p);
        for (j, p) in peers.iter_mut().enumerate() {
            answered(&mut e, p, &format!("up-{i}-{j}"));
        }
    }
    // Back below the threshold: the closes are seen, the rest still answered.
    for p in peers.drain(..3) {
        drop(p);
    }
    let start = Instant::now();
    while e.sessions().iter().filter(|s| s.connected).count() > SESSIONS - 3 {
        e.turn().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the closes were not seen"
        );
    }
    for (j, p) in peers.iter_mut().enumerate() {
        answered(&mut e, p, &format!("after-{j}"));
    }
}

/// A peer with a small receive buffer (set before the handshake) that logs on, then
/// sends `requests` TestRequests without reading, each answered with a Heartbeat
/// carrying its 2 KiB id: far more than the socket buffers hold, so the engine's
/// writes block. Returns once the engine has bytes waiting.
fn peer_that_does_not_read(
    e: &mut Engine<peregrine_engine::internal::BoxedFixSession>,
    requests: usize,
) -> Peer {
    let addr = e.listener_addrs()[0];
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    sock.connect(&addr.into()).unwrap();
    let mut p = Peer::over(sock.into(), "C0", "ISLD");
    log_on(e, &mut p);
    let id = "x".repeat(2048);
    for i in 0..requests {
        p.send(&format!("35=1|112={i}-{id}"));
        for _ in 0..20 {
            e.turn().unwrap();
        }
    }
    let start = Instant::now();
    while e.sessions()[0].pending_outbound == 0 {
        e.turn().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the engine never had bytes waiting"
        );
    }
    p
}

#[test]
fn a_blocked_write_is_finished_when_the_peer_reads_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor(dir.path());
    const REQUESTS: usize = 400;
    let mut p = peer_that_does_not_read(&mut e, REQUESTS);
    // Now the peer reads: every answer arrives, in order, with no help but turns.
    for i in 0..REQUESTS {
        let prefix = format!("|112={i}-");
        loop {
            let m = p
                .read(Duration::from_secs(10), || {
                    e.turn().unwrap();
                })
                .unwrap_or_else(|| panic!("answer {i} never came"));
            if m.contains("|35=0|") {
                assert!(m.contains(&prefix), "answer {i} out of order: {m:.60}");
                break;
            }
        }
    }
    assert_eq!(e.sessions()[0].pending_outbound, 0);
}

/// How many turns asked epoll while one logged-on peer's TestRequests were answered.
fn polls_per_turn(idle: Idle) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor_under(dir.path(), idle);
    let addr = e.listener_addrs()[0];
    let mut p = Peer::connect(addr, "C0", "ISLD");
    log_on(&mut e, &mut p);
    let metrics = e.metrics();
    let (turns, polls) = (metrics.engine().turns(), metrics.engine().polls());
    for i in 0..400 {
        answered(&mut e, &mut p, &format!("poll-{i}"));
    }
    let turns = metrics.engine().turns() - turns;
    let polls = metrics.engine().polls() - polls;
    assert!(turns >= 400, "{turns} turns");
    polls as f64 / turns as f64
}

#[test]
fn busy_spin_reads_its_connection_directly_and_asks_epoll_one_turn_in_eight() {
    // Under busy-spin, 7 turns in 8 read the socket without epoll (1 in 9 would be 0.111).
    let direct = polls_per_turn(Idle::busy_spin());
    assert!((0.12..=0.13).contains(&direct), "{direct} polls per turn");
    // Under a strategy that yields its core, every turn asks epoll.
    let epoll = polls_per_turn(Idle::spin_then_yield(100));
    assert_eq!(epoll, 1.0);
}

/// The inode of the engine's end of `peer`'s connection: the socket in
/// `/proc/net/tcp` (IPv4: the tests listen on 127.0.0.1) whose local port is the
/// listener's and remote port the peer's.
fn engine_end_inode(listener: std::net::SocketAddr, peer: &Peer) -> u64 {
    let peer_port = peer.stream.local_addr().unwrap().port();
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port = |addr: &str| u16::from_str_radix(addr.rsplit(':').next().unwrap(), 16).unwrap();
    table
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|f| port(f[1]) == listener.port() && port(f[2]) == peer_port)
        .map(|f| f[9].parse().unwrap())
        .expect("the engine's end of the connection in /proc/net/tcp")
}

/// Whether any epoll instance of this process watches the socket `inode`
/// (`/proc/self/fdinfo`: an epoll descriptor lists a `tfd:` line per watched file,
/// with its inode in hex).
fn in_epoll(inode: u64) -> bool {
    let needle = format!(" ino:{inode:x} ");
    std::fs::read_dir("/proc/self/fdinfo")
        .unwrap()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .flat_map(|info| info.lines().map(str::to_owned).collect::<Vec<_>>())
        .any(|line| line.starts_with("tfd:") && format!("{line} ").contains(&needle))
}

#[test]
fn a_connection_read_directly_is_out_of_epoll_and_back_in_past_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor(dir.path());
    let addr = e.listener_addrs()[0];
    let mut first = Peer::connect(addr, "C0", "ISLD");
    log_on(&mut e, &mut first);
    answered(&mut e, &mut first, "direct");
    let inode = engine_end_inode(addr, &first);
    // Read directly: no epoll entry wakes on its segments.
    assert!(
        !in_epoll(inode),
        "a connection read directly is still in epoll"
    );
    // Past the threshold epoll takes over: the first connection is back in it, and
    // still served.
    let mut peers = Vec::new();
    for i in 1..SESSIONS {
        let mut p = Peer::connect(addr, &format!("C{i}"), "ISLD");
        log_on(&mut e, &mut p);
        peers.push(p);
    }
    assert!(
        in_epoll(inode),
        "past the threshold the connection is not in epoll"
    );
    answered(&mut e, &mut first, "epoll");
    // Back under it: out again.
    drop(peers);
    let start = Instant::now();
    while e.sessions().iter().filter(|s| s.connected).count() > 1 {
        e.turn().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the closes were not seen"
        );
    }
    answered(&mut e, &mut first, "direct again");
    assert!(!in_epoll(inode), "back under the threshold, still in epoll");
}

#[test]
fn a_strategy_that_waits_keeps_its_connections_in_epoll() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor_under(dir.path(), Idle::spin_then_yield(100));
    let addr = e.listener_addrs()[0];
    let mut p = Peer::connect(addr, "C0", "ISLD");
    log_on(&mut e, &mut p);
    answered(&mut e, &mut p, "epoll");
    assert!(in_epoll(engine_end_inode(addr, &p)));
}

#[test]
fn a_blocked_write_goes_on_within_turns_of_the_peer_reading_not_at_housekeeping() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = acceptor(dir.path());
    let mut p = peer_that_does_not_read(&mut e, 200);
    // Out of epoll no writable event comes; the timers pass would write again, but only
    // a millisecond later. Each round: the peer takes everything the kernel holds for it
    // without a turn (so the engine's socket has room), then three turns must write more
    // of what waits. (Without the retry a round passes only when a timers pass falls into
    // it: a few in a hundred here, unless each round takes about a millisecond — a slow
    // machine can let the test pass without the retry, never fail with it.)
    p.stream.set_nonblocking(true).unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut drain = |p: &mut Peer| loop {
        match std::io::Read::read(&mut p.stream, &mut buf) {
            Ok(0) => panic!("closed"),
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(err) => panic!("{err}"),
        }
    };
    let (mut rounds, mut written) = (0, 0);
    while e.sessions()[0].pending_outbound > 0 && rounds < 20 {
        rounds += 1;
        let before = e.sessions()[0].pending_outbound;
        drain(&mut p);
        for _ in 0..3 {
            e.turn().unwrap();
        }
        if e.sessions()[0].pending_outbound < before {
            written += 1;
        }
    }
    assert!(
        rounds >= 2,
        "only {rounds} rounds: the test wrote too little"
    );
    assert!(
        written * 10 >= rounds * 9,
        "{written} of {rounds} rounds wrote within three turns"
    );
}

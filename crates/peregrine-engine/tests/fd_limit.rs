//! The acceptor recovers from running out of file descriptors.
//!
//! Under `ulimit -n 256` an idle-connection flood made `accept` fail with
//! EMFILE; after the attackers closed and the descriptors were free again, the
//! listen queue stayed full (dead connections nobody accepted) and, readiness
//! being edge-triggered, no event ever came again: every new logon failed,
//! forever. Now the engine sheds connections with a reserve descriptor while it
//! is out of them (the queue keeps draining) and retries `accept` on a timer.
//!
//! The flood comes from a child process (this test binary, re-executed), so
//! that only the engine's process is short of descriptors. One test per
//! binary: the descriptor limit is the process's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Stdio;
use std::time::{Duration, Instant};

use peregrine_engine::fix::StoreKind;
use peregrine_engine::Idle;
use peregrine_testkit::{frame, sending_time};

mod support;
use support::{child_test, echo, engine_with, options};

const CHILD_ENV: &str = "PEREGRINE_FD_FLOOD_ADDR";
const FLOOD: usize = 1200;

/// The flooding child: opens as many connections as it can (more than the
/// engine's descriptors and its listen backlog together), says how many, holds
/// them until its stdin closes.
#[test]
fn flood_child_entry_point() {
    let Ok(addr) = std::env::var(CHILD_ENV) else {
        return;
    };
    let addr: SocketAddr = addr.parse().unwrap();
    let mut held = Vec::new();
    let start = Instant::now();
    for _ in 0..FLOOD {
        if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            held.push(s);
        }
    }
    let connecting = start.elapsed();
    // How many the engine closed at once (shed): their read says end of stream.
    std::thread::sleep(Duration::from_millis(500));
    let mut shed = 0;
    for s in &mut held {
        s.set_nonblocking(true).unwrap();
        if matches!(s.read(&mut [0u8; 16]), Ok(0) | Err(_)) && s.peer_addr().is_ok() {
            shed += 1;
        }
    }
    println!(
        "holding {} shed {shed} in {} ms",
        held.len(),
        connecting.as_millis()
    );
    std::io::stdout().flush().unwrap();
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
    drop(held);
}

fn logon() -> Vec<u8> {
    let ts = sending_time();
    frame(&format!(
        "35=A|34=1|49=TW|52={ts}|56=ISLD|98=0|108=30|141=Y|"
    ))
}

/// Whether a logon on a fresh connection is answered within `limit`.
fn logs_on(addr: SocketAddr, limit: Duration) -> bool {
    let Ok(mut c) = TcpStream::connect_timeout(&addr, limit) else {
        return false;
    };
    c.set_read_timeout(Some(limit)).unwrap();
    if c.write_all(&logon()).is_err() {
        return false;
    }
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = c.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        if got.windows(5).any(|w| w == b"\x0135=A") && got.ends_with(b"\x01") {
            return true;
        }
    }
    false
}

#[cfg(unix)]
#[test]
fn the_listener_recovers_after_running_out_of_descriptors() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = "[DEFAULT]\nSocketAcceptPort=0\nSocketAcceptHost=127.0.0.1\nSenderCompID=ISLD\n\
                TargetCompID=TW\nUseDataDictionary=N\nLogonTimeout=2\n[SESSION]\nBeginString=FIX.4.4\n";
    let mut engine = engine_with(
        text,
        &dir.path().join("a.cfg"),
        options(Idle::block(), false),
        StoreKind::Memory,
        &mut echo,
    );
    let addr = engine.listener_addrs()[0];
    let handle = engine.handle();

    // The child first (spawning needs descriptors), then the limit.
    let mut child = child_test("flood_child_entry_point", CHILD_ENV, &addr.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (_, hard) = rlimit::Resource::NOFILE.get().unwrap();
    let open = std::fs::read_dir("/proc/self/fd").map_or(32, |d| d.count() as u64);
    rlimit::Resource::NOFILE.set(open + 64, hard).unwrap();
    let reactor = std::thread::spawn(move || engine.run());

    // The test harness prints its own lines first.
    let held = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.find("holding ").map(|at| l[at..].to_string()))
        .expect("the child's count");
    // While out of descriptors, the engine shed the connections it could not
    // keep, so the listen queue drained and every connect succeeded at once.
    let words: Vec<&str> = held.split(' ').collect();
    let count = |word: &str| -> u64 {
        let at = words.iter().position(|w| *w == word).unwrap();
        words[at + 1].parse().unwrap()
    };
    assert_eq!(count("holding") as usize, FLOOD, "{held}");
    assert!(count("shed") as usize > FLOOD - 200, "{held}");
    assert!(count("in") < 20_000, "{held}");
    // The attacker goes: every descriptor comes back as the engine sees the closes.
    drop(child.stdin.take());
    child.wait().unwrap();

    let start = Instant::now();
    let mut ok = false;
    while start.elapsed() < Duration::from_secs(20) {
        if logs_on(addr, Duration::from_secs(2)) {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    handle.stop();
    reactor.join().unwrap().unwrap();
    assert!(
        ok,
        "no logon succeeded within 20 s after the flood ({held})"
    );
}

//! `kill -9` of a process writing to a `PostgresStore`, at several points:
//! the test re-executes its own binary as a child (selected by an
//! environment variable) that stores messages, one to five per commit, and
//! prints `ack <seq>` after each commit returned. The parent SIGKILLs it,
//! opens the store again and checks: every acknowledged message is there,
//! intact; the next sender number is exactly one past the last stored
//! message (a message and the numbers are committed together, never one
//! without the other); the target number moved with them. Rounds continue
//! on the same session, so each starts from what the last one left.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use peregrine_store::contract::{collect, msg, T0};
use peregrine_store::{MessageStore, SEQ_END};
use peregrine_store_sql::{PostgresStore, SessionKey, SqlStoreConfig};
use support::pg::PgCluster;

const CHILD_ENV: &str = "PEREGRINE_STORE_SQL_KILL9_PORT";

fn open(port: u16) -> PostgresStore {
    let mut c = postgres::Config::new();
    c.host("127.0.0.1")
        .port(port)
        .user("postgres")
        .dbname("postgres");
    let key = SessionKey::new("FIX.4.4", "BANK", "KILL9");
    PostgresStore::connect(&c, key, &SqlStoreConfig::default(), T0).unwrap()
}

/// The child's body; a no-op unless the parent started this process.
#[test]
fn kill9_child_entry_point() {
    let Some(port) = std::env::var(CHILD_ENV).ok().and_then(|p| p.parse().ok()) else {
        return;
    };
    let mut s = open(port);
    let mut out = std::io::stdout().lock();
    let started = Instant::now();
    // Bounded in case the parent dies: 60 s or 100,000 commits.
    for round in 0..100_000u64 {
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
        let mut last = 0;
        for _ in 0..=round % 5 {
            let seq = s.next_sender_seq();
            s.store(seq, &msg(seq, 9)).expect("store");
            s.incr_next_sender_seq().expect("incr");
            last = seq;
        }
        s.incr_next_target_seq().expect("incr target");
        s.commit().expect("commit");
        writeln!(out, "ack {last}").expect("pipe");
        out.flush().expect("pipe");
    }
}

#[cfg(unix)]
#[test]
fn acknowledged_messages_survive_kill_9() {
    let pg = PgCluster::start();
    let exe = std::env::current_exe().unwrap();
    let mut last_acked = 0;
    for kill_after in [40usize, 1, 173, 7, 61] {
        let mut child = Command::new(&exe)
            .args(["--exact", "kill9_child_entry_point", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD_ENV, pg.port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acks = 0;
        while acks < kill_after {
            let line = lines.next().expect("the child ended early").unwrap();
            if let Some(seq) = line.strip_prefix("ack ") {
                last_acked = seq.parse().unwrap();
                acks += 1;
            }
        }
        child.kill().unwrap(); // SIGKILL, mid-stream
        child.wait().unwrap();
        // Acks the child printed before it died count too.
        for line in lines.map_while(Result::ok) {
            if let Some(seq) = line.strip_prefix("ack ") {
                last_acked = seq.parse().unwrap();
            }
        }

        let mut s = open(pg.port);
        let stored = collect(&mut s, 1, SEQ_END);
        let n = stored.len() as u64;
        assert!(n >= last_acked, "acknowledged {last_acked}, stored {n}");
        for (i, (seq, m)) in stored.iter().enumerate() {
            assert_eq!(*seq, i as u64 + 1);
            assert_eq!(*m, msg(*seq, 9), "message {seq}");
        }
        assert_eq!(
            s.next_sender_seq(),
            n + 1,
            "the next number is one past the last stored message"
        );
        assert!(s.next_target_seq() > 1);
        last_acked = n;
    }
}

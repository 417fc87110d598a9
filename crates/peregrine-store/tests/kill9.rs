//! `kill -9` in the middle of a stream of stores.
//!
//! The test re-executes its own binary as a child process (selected by an
//! environment variable) that opens a FileStore with fsync on every message
//! and stores messages as fast as it can, printing `ack <seq>` on a pipe after
//! each `store` + `incr_next_sender_seq` + `commit` returned. The parent SIGKILLs it at
//! an arbitrary point, re-opens the store and checks that every acknowledged
//! message is there, intact, and that the sequence numbers moved past them.
//! It does so for several rounds on the same store, so recovery also runs on
//! journals that were recovered before.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{msg, open_file};
use peregrine_store::{FsyncPolicy, MessageStore, SEQ_END};

const CHILD_ENV: &str = "PEREGRINE_STORE_KILL9_CHILD_DIR";

/// The child's body; a no-op unless the parent started this process.
#[test]
fn kill9_child_entry_point() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let mut s = open_file(std::path::Path::new(&dir), FsyncPolicy::EveryCommit);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let started = Instant::now();
    // Bounded in case the parent dies: at most 60 s or 1M messages.
    for _ in 0..1_000_000 {
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
        let seq = s.next_sender_seq();
        s.store(seq, &msg(seq, 9)).expect("store");
        s.incr_next_sender_seq().expect("incr");
        s.incr_next_target_seq().expect("incr target");
        s.commit().expect("commit");
        writeln!(out, "ack {seq}").expect("pipe");
        out.flush().expect("pipe");
    }
}

#[cfg(unix)]
#[test]
fn acknowledged_messages_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut all_acked: Vec<u64> = Vec::new();
    for (round, kill_after) in [40usize, 1, 173, 7, 500, 61].into_iter().enumerate() {
        let mut child = Command::new(&exe)
            .args(["--exact", "kill9_child_entry_point", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn child");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acked = Vec::new();
        let mut killed = false;
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(seq) = line.strip_prefix("ack ") {
                acked.push(seq.parse::<u64>().unwrap());
                if acked.len() == kill_after {
                    child.kill().expect("SIGKILL"); // SIGKILL on Unix
                    killed = true;
                    break;
                }
            }
        }
        // Acks already in the pipe when the signal landed count too.
        for line in lines {
            if let Some(seq) = line.unwrap().strip_prefix("ack ") {
                acked.push(seq.parse().unwrap());
            }
        }
        let status = child.wait().unwrap();
        assert!(killed, "round {round}: child ended before it was killed");
        assert!(!status.success(), "round {round}: child was not killed");
        assert!(acked.len() >= kill_after);
        all_acked.extend(&acked);

        let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
        let last_acked = *all_acked.last().unwrap();
        assert!(
            s.next_sender_seq() > last_acked,
            "round {round}: next sender {} must be past the last ack {last_acked}",
            s.next_sender_seq()
        );
        // Target seq is incremented once per ack (before the ack).
        assert!(s.next_target_seq() > all_acked.len() as u64);
        let mut present = Vec::new();
        s.for_each_in_range(1, SEQ_END, &mut |seq, m| {
            assert_eq!(m, &msg(seq, 9)[..], "round {round}: seq {seq} damaged");
            present.push(seq);
        })
        .unwrap();
        for seq in &all_acked {
            assert!(
                present.binary_search(seq).is_ok(),
                "round {round}: acknowledged seq {seq} lost"
            );
        }
        // Nothing beyond what the store had handed out.
        assert!(present.iter().all(|&q| q < s.next_sender_seq()));
        eprintln!(
            "round {round}: {} acked in total, {} stored, next sender {}",
            all_acked.len(),
            present.len(),
            s.next_sender_seq()
        );
        // No sequence number was ever handed out twice across the rounds
        // (a message stored but killed before its ack keeps its number).
        assert!(all_acked.windows(2).all(|w| w[1] > w[0]));
    }
}

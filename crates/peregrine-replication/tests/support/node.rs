//! `replication-node` children: started, their lines read, killed with SIGKILL.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use peregrine_store::JournalPosition;

/// A child process and the lines it prints.
pub struct Node {
    pub child: Child,
    lines: Receiver<String>,
}

impl Node {
    /// Starts `replication-node args`, under `prefix` (e.g. `ip netns exec ns`)
    /// when given.
    pub fn start(prefix: &[&str], args: &[&str]) -> Node {
        let bin = env!("CARGO_BIN_EXE_replication-node");
        let mut cmd = match prefix.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        let mut child = cmd
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start replication-node");
        let out = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Node { child, lines }
    }

    /// The positions in the lines starting with `what` printed so far, the
    /// newest last; waits at most `wait` for the first.
    pub fn positions(&self, what: &str, wait: Duration) -> Vec<JournalPosition> {
        let mut got = Vec::new();
        let end = Instant::now() + wait;
        loop {
            while let Ok(line) = self.lines.try_recv() {
                let mut parts = line.split_whitespace();
                if parts.next() == Some(what) {
                    let n: Vec<u64> = parts.filter_map(|p| p.parse().ok()).collect();
                    if let [turn, offset] = n[..] {
                        got.push(JournalPosition { turn, offset });
                    }
                }
            }
            if !got.is_empty() || Instant::now() >= end {
                return got;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// SIGKILL, and reaped; its embedded driver's directory (which a killed
    /// driver cannot delete: tens of MB of term buffers in /dev/shm) removed.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let prefix = format!("peregrine-aeron-{}-", self.child.id());
        for base in [std::path::PathBuf::from("/dev/shm"), std::env::temp_dir()] {
            let Ok(entries) = std::fs::read_dir(&base) else {
                continue;
            };
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

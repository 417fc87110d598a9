//! What the leadership tests share: a real etcd (etcd.rs, also used by the
//! `peregrine` command's tests) and `ha-candidate` child processes.
#![allow(dead_code)]

mod etcd;
#[allow(unused_imports)]
pub use etcd::{signal, wall_now, Etcd};

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One `ha-candidate` process and the lines it printed, read on a thread.
pub struct Candidate {
    pub name: String,
    child: Child,
    lines: mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

impl Candidate {
    pub fn start(name: &str, group: &str, endpoint: &str, ttl: u64) -> Candidate {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ha-candidate"))
            .args(["--node", name, "--group", group, "--endpoints", endpoint])
            .args(["--ttl", &ttl.to_string(), "--for", "60"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ha-candidate starts");
        let stdout: ChildStdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Candidate {
            name: name.to_string(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Reads lines until one starts with `prefix` (returned, split on spaces), or
    /// `None` after `wait`.
    pub fn wait_for(&mut self, prefix: &str, wait: Duration) -> Option<Vec<String>> {
        let end = Instant::now() + wait;
        loop {
            let left = end.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            self.seen.push(line.clone());
            if line.starts_with(prefix) && line[prefix.len()..].starts_with(' ') {
                return Some(line.split(' ').map(str::to_string).collect());
            }
        }
    }

    /// Takes in every line printed so far (waiting `settle` for more).
    pub fn drain(&mut self, settle: Duration) {
        while let Ok(line) = self.lines.recv_timeout(settle) {
            self.seen.push(line);
        }
    }

    /// The lines read so far that start with `kind`, split on spaces.
    pub fn lines_of(&self, kind: &str) -> Vec<Vec<String>> {
        self.seen
            .iter()
            .filter(|l| l.split(' ').next() == Some(kind))
            .map(|l| l.split(' ').map(str::to_string).collect())
            .collect()
    }
}

impl Drop for Candidate {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-CONT")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

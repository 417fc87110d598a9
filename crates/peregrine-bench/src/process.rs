//! Benchmarks of two processes (an acceptor and an initiator, a receiver and a sender):
//! start a harness, wait until it says `ready` on stdout, read its result lines, end it.
//!
//! The contract every such harness keeps (peers/README.md): the listening side prints one
//! line `ready` on stdout once it listens, the reporting side prints one JSON object per
//! case per line (read as in [`crate::peers`]), everything else goes to stderr. A harness
//! that has not finished in time is ended with SIGTERM, then SIGKILL after
//! [`TERM_GRACE`].

use crate::peers::{self, PeerError};
use crate::report::Record;
use rustix::process::{kill_process, Pid, Signal};
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a harness has to exit after SIGTERM before it is killed.
pub const TERM_GRACE: Duration = Duration::from_secs(5);

/// Lines of a harness's stderr kept for the error that reports its failure.
const STDERR_TAIL_LINES: usize = 20;

/// One running harness process.
///
/// ```no_run
/// use std::time::Duration;
/// use peregrine_bench::process::Harness;
///
/// let mut acceptor = Harness::spawn("quickfixj", "peers/quickfixj/run.sh".as_ref(), ["RoundTrip", "--role", "acceptor"])?;
/// acceptor.wait_ready(Duration::from_secs(60))?;
/// let mut initiator = Harness::spawn("quickfixj", "peers/quickfixj/run.sh".as_ref(), ["RoundTrip", "--role", "initiator"])?;
/// let records = initiator.wait_records(Duration::from_secs(600))?;
/// acceptor.terminate();
/// println!("{} records", records.len());
/// # Ok::<(), peregrine_bench::peers::PeerError>(())
/// ```
#[derive(Debug)]
pub struct Harness {
    engine: String,
    program: PathBuf,
    child: Child,
    stdout: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl Harness {
    /// Starts `program args` with stdout and stderr piped (stderr kept as a tail of
    /// 20 lines for error reports).
    ///
    /// ```
    /// use peregrine_bench::{peers::PeerError, process::Harness};
    /// let h = Harness::spawn("demo", "/bin/sh".as_ref(), ["-c", "exit 0"])?;
    /// h.terminate();
    /// let missing = Harness::spawn("demo", "/nowhere/harness".as_ref(), ["--role", "acceptor"]);
    /// assert!(matches!(missing, Err(PeerError::Start { .. })));
    /// # Ok::<(), PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Start`] when the program cannot be started.
    pub fn spawn<I, S>(engine: &str, program: &Path, args: I) -> Result<Harness, PeerError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| PeerError::Start {
                engine: engine.into(),
                program: program.into(),
                source,
            })?;
        let (tx, stdout) = mpsc::channel();
        if let Some(out) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr_tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL_LINES)));
        if let Some(err) = child.stderr.take() {
            let tail = stderr_tail.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines() {
                    let Ok(line) = line else { break };
                    let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            });
        }
        Ok(Harness {
            engine: engine.into(),
            program: program.into(),
            child,
            stdout,
            stderr_tail,
        })
    }

    /// The process id (for reading `/proc/PID/status`).
    ///
    /// ```
    /// let h = peregrine_bench::process::Harness::spawn("demo", "/bin/sh".as_ref(), ["-c", "exit 0"])?;
    /// assert!(h.pid() > 0);
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The engine name the harness reports for.
    ///
    /// ```
    /// let h = peregrine_bench::process::Harness::spawn("quickfixj", "/bin/sh".as_ref(), ["-c", "exit 0"])?;
    /// assert_eq!(h.engine(), "quickfixj");
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// Waits for the line `ready` on stdout.
    ///
    /// ```
    /// use std::time::Duration;
    /// use peregrine_bench::{peers::PeerError, process::Harness};
    /// let mut acceptor = Harness::spawn("demo", "/bin/sh".as_ref(), ["-c", "echo starting; echo ready; sleep 5"])?;
    /// acceptor.wait_ready(Duration::from_secs(10))?;
    /// acceptor.terminate();
    /// let mut silent = Harness::spawn("demo", "/bin/sh".as_ref(), ["-c", "exit 3"])?;
    /// assert!(matches!(silent.wait_ready(Duration::from_secs(10)), Err(PeerError::Failed { .. })));
    /// # Ok::<(), PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Timeout`] after `patience`, [`PeerError::Failed`] when the process
    /// exits first.
    pub fn wait_ready(&mut self, patience: Duration) -> Result<(), PeerError> {
        self.wait_line("ready", patience)
    }

    /// Waits for the line `expected` on stdout (lines before it are dropped).
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use peregrine_bench::process::Harness;
    /// let mut load = Harness::spawn("peregrine", "target/release/peregrine-bench".as_ref(), ["scale-peer", "--role", "load"])?;
    /// load.wait_line("logged-on", Duration::from_secs(60))?;
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`wait_ready`](Self::wait_ready).
    pub fn wait_line(
        &mut self,
        expected: &'static str,
        patience: Duration,
    ) -> Result<(), PeerError> {
        let deadline = Instant::now() + patience;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) if line.trim() == expected => return Ok(()),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => return Err(self.timeout(expected)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.failed()),
            }
        }
    }

    /// The next JSON line (one that starts with `{`) the process prints while it
    /// runs, within `patience` (lines before it are dropped).
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use peregrine_bench::process::Harness;
    /// let mut acceptor = Harness::spawn("peregrine", "target/release/peregrine-bench".as_ref(), ["scale-peer", "--role", "acceptor"])?;
    /// acceptor.wait_ready(Duration::from_secs(60))?;
    /// let line = acceptor.next_json_line(Duration::from_secs(60))?;
    /// assert!(line.starts_with('{'));
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`wait_ready`](Self::wait_ready).
    pub fn next_json_line(&mut self, patience: Duration) -> Result<String, PeerError> {
        let deadline = Instant::now() + patience;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) if line.trim_start().starts_with('{') => return Ok(line.trim().into()),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => return Err(self.timeout("a JSON line")),
                Err(RecvTimeoutError::Disconnected) => return Err(self.failed()),
            }
        }
    }

    /// Waits for the process to exit by itself (within `patience`) and returns the
    /// records of its JSON lines.
    ///
    /// ```
    /// use std::time::Duration;
    /// let line = r#"{"engine":"demo","case":"balanced","min":1,"p50":2,"mean":2,"p90":3,"p99":4,"p999":5,"max":6,"throughput_per_s":7,"settings":""}"#;
    /// let mut h = peregrine_bench::process::Harness::spawn("demo", "/bin/echo".as_ref(), [line])?;
    /// let records = h.wait_records(Duration::from_secs(10))?;
    /// assert_eq!((records.len(), records[0].case.as_str(), records[0].stats.p99), (1, "balanced", 4.0));
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Timeout`] (the process is then ended), [`PeerError::Failed`] on a
    /// failed exit, [`PeerError::BadLine`] for a result line that does not read.
    pub fn wait_records(&mut self, patience: Duration) -> Result<Vec<Record>, PeerError> {
        let engine = self.engine.clone();
        self.wait_lines(patience)?
            .iter()
            .map(|l| peers::record_of_line(&engine, l))
            .collect()
    }

    /// Waits for the process to exit by itself (within `patience`) and returns its JSON
    /// lines (those of stdout that start with `{`), trimmed, as they are: for harnesses
    /// that report more than a [`Record`] holds.
    ///
    /// ```
    /// use std::time::Duration;
    /// let mut h = peregrine_bench::process::Harness::spawn("demo", "/bin/sh".as_ref(), ["-c", r#"echo hello; echo '  {"sessions": 3}'"#])?;
    /// assert_eq!(h.wait_lines(Duration::from_secs(10))?, [r#"{"sessions": 3}"#]);
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Timeout`] (the process is then ended), [`PeerError::Failed`] on a
    /// failed exit.
    pub fn wait_lines(&mut self, patience: Duration) -> Result<Vec<String>, PeerError> {
        let deadline = Instant::now() + patience;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) => lines.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    let err = self.timeout("its results");
                    self.end();
                    return Err(err);
                }
            }
        }
        // stdout closed: the process is exiting.
        let left = deadline.saturating_duration_since(Instant::now());
        if !self
            .wait_exit(left.max(TERM_GRACE))
            .is_some_and(|s| s.success())
        {
            self.end();
            return Err(self.failed());
        }
        Ok(lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with('{'))
            .map(str::to_string)
            .collect())
    }

    /// Ends the process: SIGTERM, then SIGKILL after [`TERM_GRACE`]. Idempotent.
    ///
    /// ```
    /// let h = peregrine_bench::process::Harness::spawn("demo", "/bin/sleep".as_ref(), ["60"])?;
    /// let pid = h.pid();
    /// h.terminate(); // `sleep` ends at SIGTERM: this returns at once
    /// assert!(!std::path::Path::new(&format!("/proc/{pid}/status")).exists());
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    pub fn terminate(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        if let Some(pid) = i32::try_from(self.child.id()).ok().and_then(Pid::from_raw) {
            let _ = kill_process(pid, Signal::TERM);
        }
        if self.wait_exit(TERM_GRACE).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    fn wait_exit(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + patience;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }

    fn tail(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap_or_else(|p| p.into_inner());
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    fn timeout(&self, waiting_for: &'static str) -> PeerError {
        PeerError::Timeout {
            engine: self.engine.clone(),
            program: self.program.clone(),
            waiting_for,
            stderr_tail: self.tail(),
        }
    }

    fn failed(&mut self) -> PeerError {
        let status = self.wait_exit(TERM_GRACE);
        // Give the stderr reader a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(50));
        match status {
            Some(status) => PeerError::Failed {
                engine: self.engine.clone(),
                status,
                stderr_tail: self.tail(),
            },
            None => self.timeout("its exit"),
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.end();
    }
}

/// The CPU time a process has used, all its threads: in user space and in the kernel
/// (system calls, and the network stack's work the kernel does in the process's
/// context: on loopback a `send` runs the receiver's TCP input too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// In user space.
    pub user: Duration,
    /// In the kernel.
    pub system: Duration,
}

impl CpuTimes {
    /// User and kernel time together.
    ///
    /// ```
    /// use std::time::Duration;
    /// use peregrine_bench::process::CpuTimes;
    /// let t = CpuTimes { user: Duration::from_millis(30), system: Duration::from_millis(70) };
    /// assert_eq!(t.total(), Duration::from_millis(100));
    /// ```
    pub fn total(self) -> Duration {
        self.user + self.system
    }

    /// What was used between `earlier` and `self` (zero where a clock went back).
    ///
    /// ```
    /// use std::time::Duration;
    /// use peregrine_bench::process::CpuTimes;
    /// let a = CpuTimes { user: Duration::from_millis(10), system: Duration::from_millis(20) };
    /// let b = CpuTimes { user: Duration::from_millis(15), system: Duration::from_millis(50) };
    /// assert_eq!(b.since(a), CpuTimes { user: Duration::from_millis(5), system: Duration::from_millis(30) });
    /// ```
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }
}

/// The CPU time process `pid` has used so far (`utime` and `stime` of
/// `/proc/PID/stat`, in clock ticks: 10 ms resolution at Linux's usual 100 Hz). Where
/// the kernel accounts by tick (no `CONFIG_VIRT_CPU_ACCOUNTING`), the split between
/// user and kernel time is sampled, a few per cent over seconds; softirq work the
/// kernel defers to `ksoftirqd` counts for neither process.
///
/// ```
/// let me = std::process::id();
/// let before = peregrine_bench::process::cpu_times(me).unwrap();
/// let mut x = 0u64;
/// for i in 0..50_000_000u64 { x = std::hint::black_box(x ^ i); }
/// let used = peregrine_bench::process::cpu_times(me).unwrap().since(before);
/// assert!(used.total() > std::time::Duration::ZERO);
/// ```
///
/// # Errors
///
/// The I/O error of reading the file; `InvalidData` when it is not the format the
/// kernel writes.
pub fn cpu_times(pid: u32) -> std::io::Result<CpuTimes> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "unexpected /proc/PID/stat");
    // The command name, field 2, is in parentheses and may hold spaces: count the
    // fields after its closing one (field 3, the state, is the first of them).
    let after_name = stat.rsplit_once(')').ok_or_else(bad)?.1;
    // utime and stime are fields 14 and 15: the 12th and 13th after the name.
    let mut fields = after_name.split_whitespace().skip(11);
    let mut ticks =
        || -> std::io::Result<u64> { fields.next().ok_or_else(bad)?.parse().map_err(|_| bad()) };
    let (user, system) = (ticks()?, ticks()?);
    let hz = rustix::param::clock_ticks_per_second().max(1);
    let time = |t: u64| Duration::from_nanos(t.saturating_mul(1_000_000_000) / hz);
    Ok(CpuTimes {
        user: time(user),
        system: time(system),
    })
}

/// The resident set size of process `pid` in bytes (`VmRSS` of `/proc/PID/status`).
///
/// ```
/// let rss = peregrine_bench::process::rss_bytes(std::process::id()).unwrap();
/// assert!(rss > 0);
/// ```
///
/// # Errors
///
/// The I/O error of reading the file; `InvalidData` when it has no `VmRSS` line.
pub fn rss_bytes(pid: u32) -> std::io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "no VmRSS line"))
}

/// Raises this process's open-file limit (RLIMIT_NOFILE) to its hard limit, which
/// children inherit; returns the new soft limit.
///
/// ```
/// let limit = peregrine_bench::process::raise_open_files_limit().unwrap();
/// assert!(limit >= 1);
/// ```
///
/// # Errors
///
/// The error of `setrlimit`.
pub fn raise_open_files_limit() -> std::io::Result<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    setrlimit(Resource::Nofile, raised).map_err(std::io::Error::from)?;
    Ok(limit.maximum.unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Harness {
        Harness::spawn("sh", Path::new("/bin/sh"), ["-c", script]).unwrap()
    }

    #[test]
    fn ready_then_records() {
        let line = r#"{"engine":"sh","case":"c","min":1,"p50":2,"mean":2,"p90":3,"p99":4,"p999":5,"max":6,"throughput_per_s":7}"#;
        let mut h = sh(&format!("echo noise; echo ready; sleep 0.1; echo '{line}'"));
        h.wait_ready(Duration::from_secs(5)).unwrap();
        let records = h.wait_records(Duration::from_secs(5)).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!((records[0].case.as_str(), records[0].stats.p50), ("c", 2.0));
    }

    #[test]
    fn exit_before_ready_is_a_failure_with_the_stderr_tail() {
        let mut h = sh("echo 'bad port' >&2; exit 3");
        match h.wait_ready(Duration::from_secs(5)) {
            Err(PeerError::Failed { stderr_tail, .. }) => assert!(stderr_tail.contains("bad port")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_hung_harness_times_out_and_is_ended() {
        let mut h = sh("exec sleep 30");
        let started = Instant::now();
        assert!(matches!(
            h.wait_ready(Duration::from_millis(200)),
            Err(PeerError::Timeout { .. })
        ));
        let pid = h.pid();
        h.terminate();
        assert!(started.elapsed() < TERM_GRACE);
        assert!(rss_bytes(pid).is_err(), "process {pid} still there");
    }

    #[test]
    fn failed_exit_after_results_is_an_error() {
        let mut h = sh("echo ready; exit 1");
        h.wait_ready(Duration::from_secs(5)).unwrap();
        assert!(matches!(
            h.wait_records(Duration::from_secs(5)),
            Err(PeerError::Failed { .. })
        ));
    }
}

//! Running scripts against an acceptor over TCP.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::admin::{self, AdminError};
use crate::fix::{complete_message, frame_message, render, FrameOutcome};
use crate::matcher::{logout_before_disconnect, FieldPatterns, MatchRule, Mismatch};
use crate::read::{read_some, ReadSome};
use crate::script::{Script, Step};

/// Where the acceptor is and how long to wait for it.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The acceptor's FIX port.
    pub addr: SocketAddr,
    /// The acceptor's HTTP admin endpoint (used by `iSET_SESSION`).
    pub admin_addr: SocketAddr,
    /// The bearer token sent with `iSET_SESSION` (Peregrine's
    /// `AdminHttpToken`); default none.
    pub admin_token: Option<String>,
    /// Tags matched by pattern (`fields.fmt`), under [`MatchRule::Strict`].
    pub patterns: FieldPatterns,
    /// How `E` lines are compared; default [`MatchRule::Strict`].
    pub rule: MatchRule,
    /// Longest wait for one `E` line. It must exceed the heartbeat waits of the
    /// scripts (6_SendTestRequest waits ~34 s in all); default 40 s.
    pub timeout_expect: Duration,
    /// Longest wait for an `eDISCONNECT`; default 10 s, as the README specifies.
    pub timeout_disconnect: Duration,
    /// Longest wait to open a connection; default 5 s.
    pub timeout_connect: Duration,
    /// Longest wait for an admin request's response; default 5 s.
    pub timeout_admin: Duration,
    /// Open and close an empty probe connection before each script, as the
    /// reference runner does; default true.
    pub probe: bool,
}

impl RunConfig {
    /// A configuration with the default timeouts.
    pub fn new(addr: SocketAddr, admin_addr: SocketAddr, patterns: FieldPatterns) -> RunConfig {
        RunConfig {
            addr,
            admin_addr,
            admin_token: None,
            patterns,
            rule: MatchRule::Strict,
            timeout_expect: Duration::from_secs(40),
            timeout_disconnect: Duration::from_secs(10),
            timeout_connect: Duration::from_secs(5),
            timeout_admin: Duration::from_secs(5),
            probe: true,
        }
    }
}

/// The outcome of one script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptResult {
    /// The script's name.
    pub name: String,
    /// Whether every step succeeded.
    pub passed: bool,
    /// For a failure: the script line and the first difference found there.
    pub first_difference: Option<String>,
    /// Wall-clock time the script took.
    pub duration: Duration,
}

impl ScriptResult {
    /// A failed result for a script that could not be run at all.
    pub fn failed(name: impl Into<String>, why: impl Into<String>) -> ScriptResult {
        ScriptResult {
            name: name.into(),
            passed: false,
            first_difference: Some(why.into()),
            duration: Duration::ZERO,
        }
    }
}

struct Connection {
    stream: TcpStream,
    buf: Vec<u8>,
    write_error: Option<io::Error>,
    /// Whether an `E` line took a message from this connection.
    received: bool,
}

enum ReadError {
    TimedOut,
    /// The peer closed the connection (`None`), or reading failed.
    Closed(Option<io::Error>),
    /// Bytes that cannot start a FIX message: why, and the bytes.
    Garbage(String, Vec<u8>),
}

/// Why a script failed, at a step or before its first: the text of
/// [`ScriptResult::first_difference`].
#[derive(Debug)]
enum Failure {
    /// The empty probe connection before the script could not be opened.
    Probe { addr: SocketAddr, source: io::Error },
    /// A step failed on this script line.
    Step { line: usize, failure: StepFailure },
}

/// Why a step failed.
#[derive(Debug)]
enum StepFailure {
    Connect {
        n: u32,
        addr: SocketAddr,
        source: io::Error,
    },
    /// The step names a connection that is not open, while doing this.
    NotOpen { n: u32, doing: &'static str },
    /// No whole message in time: the one expected, and any partial data.
    Timeout {
        expected: Vec<u8>,
        after: Duration,
        partial: Vec<u8>,
    },
    /// The acceptor closed the connection (or reading failed) while a message
    /// was expected; an earlier write may have failed already.
    Closed {
        n: u32,
        read: Option<io::Error>,
        earlier_write: Option<String>,
        expected: Vec<u8>,
    },
    /// Bytes that cannot start a FIX message while a message was expected.
    Garbage {
        expected: Vec<u8>,
        why: String,
        data: Vec<u8>,
    },
    /// The message received differs from the expected one.
    Mismatch(Mismatch),
    /// A message arrived where a disconnect was expected.
    NotClosed { n: u32, received: String },
    /// No disconnect in time.
    DisconnectTimeout { n: u32, after: Duration },
    /// The `iSET_SESSION` request failed.
    Admin(AdminError),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Probe { addr, source } => {
                write!(f, "probe connection to {addr} failed: {source}")
            }
            Failure::Step { line, failure } => write!(f, "line {line}: {failure}"),
        }
    }
}

impl fmt::Display for StepFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepFailure::Connect { n, addr, source } => {
                write!(f, "cannot open connection {n} to {addr}: {source}")
            }
            StepFailure::NotOpen { n, doing } => {
                write!(f, "connection {n} is not open ({doing})")
            }
            StepFailure::Timeout {
                expected,
                after,
                partial,
            } => {
                write!(
                    f,
                    "timed out waiting for {} (after {after:?})",
                    render(expected)
                )?;
                if !partial.is_empty() {
                    write!(f, "; partial data: {}", render(partial))?;
                }
                Ok(())
            }
            StepFailure::Closed {
                n,
                read,
                earlier_write,
                expected,
            } => {
                write!(f, "connection {n} closed by the acceptor (")?;
                match read {
                    Some(e) => write!(f, "{e}")?,
                    None => f.write_str("connection closed")?,
                }
                if let Some(e) = earlier_write {
                    write!(f, "; an earlier send failed: {e}")?;
                }
                write!(f, ") while waiting for {}", render(expected))
            }
            StepFailure::Garbage {
                expected,
                why,
                data,
            } => write!(
                f,
                "unreadable data while waiting for {}: {why}: {}",
                render(expected),
                render(data)
            ),
            StepFailure::Mismatch(m) => write!(f, "{m}"),
            StepFailure::NotClosed { n, received } => {
                write!(
                    f,
                    "expected connection {n} to be closed, received {received}"
                )
            }
            StepFailure::DisconnectTimeout { n, after } => write!(
                f,
                "timed out waiting for disconnect of connection {n} (after {after:?})"
            ),
            StepFailure::Admin(e) => write!(f, "{e}"),
        }
    }
}

impl Connection {
    /// Reads until one whole message is buffered and returns it; extra bytes stay buffered.
    fn read_message(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        loop {
            match frame_message(&self.buf) {
                FrameOutcome::Complete(n) => return Ok(self.buf.drain(..n).collect()),
                FrameOutcome::Invalid(why) => {
                    return Err(ReadError::Garbage(why, self.buf.clone()))
                }
                FrameOutcome::Incomplete => {}
            }
            self.fill(deadline)?;
        }
    }

    /// One read into the buffer, waiting at most until `deadline`.
    fn fill(&mut self, deadline: Instant) -> Result<(), ReadError> {
        match read_some(&mut self.stream, &mut self.buf, deadline) {
            Ok(ReadSome::Bytes) => Ok(()),
            Ok(ReadSome::Eof) => Err(ReadError::Closed(None)),
            Ok(ReadSome::TimedOut) => Err(ReadError::TimedOut),
            Err(e) => Err(ReadError::Closed(Some(e))),
        }
    }
}

/// Runs one script against the acceptor at `cfg.addr`, stopping at the first
/// failure. All connections are closed at the end.
pub fn run_script(script: &Script, cfg: &RunConfig) -> ScriptResult {
    let start = Instant::now();
    let outcome = probe(cfg).and_then(|()| {
        let mut connections = BTreeMap::new();
        let outcome = run_steps(script, cfg, &mut connections);
        for (_, c) in connections {
            let _ = c.stream.shutdown(Shutdown::Both);
        }
        outcome
    });
    ScriptResult {
        name: script.name.clone(),
        passed: outcome.is_ok(),
        first_difference: outcome.err().map(|f| f.to_string()),
        duration: start.elapsed(),
    }
}

fn probe(cfg: &RunConfig) -> Result<(), Failure> {
    if cfg.probe {
        let stream =
            TcpStream::connect_timeout(&cfg.addr, cfg.timeout_connect).map_err(|source| {
                Failure::Probe {
                    addr: cfg.addr,
                    source,
                }
            })?;
        let _ = stream.shutdown(Shutdown::Both);
    }
    Ok(())
}

fn run_steps(
    script: &Script,
    cfg: &RunConfig,
    connections: &mut BTreeMap<u32, Connection>,
) -> Result<(), Failure> {
    for s in &script.steps {
        run_step(&s.step, cfg, connections).map_err(|failure| Failure::Step {
            line: s.line,
            failure,
        })?;
    }
    Ok(())
}

fn open<'a>(
    connections: &'a mut BTreeMap<u32, Connection>,
    n: u32,
    doing: &'static str,
) -> Result<&'a mut Connection, StepFailure> {
    connections
        .get_mut(&n)
        .ok_or(StepFailure::NotOpen { n, doing })
}

fn run_step(
    step: &Step,
    cfg: &RunConfig,
    connections: &mut BTreeMap<u32, Connection>,
) -> Result<(), StepFailure> {
    match step {
        Step::Connect(n) => {
            let stream =
                TcpStream::connect_timeout(&cfg.addr, cfg.timeout_connect).map_err(|source| {
                    StepFailure::Connect {
                        n: *n,
                        addr: cfg.addr,
                        source,
                    }
                })?;
            let _ = stream.set_nodelay(true);
            if let Some(old) = connections.insert(
                *n,
                Connection {
                    stream,
                    buf: Vec::new(),
                    write_error: None,
                    received: false,
                },
            ) {
                let _ = old.stream.shutdown(Shutdown::Both);
            }
        }
        Step::Disconnect(n) => {
            if let Some(c) = connections.remove(n) {
                let _ = c.stream.shutdown(Shutdown::Both);
            }
        }
        Step::Send(n, template) => {
            let conn = open(connections, *n, "sending")?;
            let msg = complete_message(template, SystemTime::now());
            // A failed write is not a failure in itself: the acceptor may rightly
            // have closed the connection, which a later eDISCONNECT expects.
            if let Err(e) = conn.stream.write_all(&msg) {
                conn.write_error.get_or_insert(e);
            }
        }
        Step::Expect(n, template) => {
            let expected = complete_message(template, SystemTime::now());
            let conn = open(connections, *n, "expecting a message")?;
            let deadline = Instant::now() + cfg.timeout_expect;
            let actual = match conn.read_message(deadline) {
                Ok(actual) => {
                    conn.received = true;
                    actual
                }
                Err(ReadError::TimedOut) => {
                    return Err(StepFailure::Timeout {
                        expected,
                        after: cfg.timeout_expect,
                        partial: conn.buf.clone(),
                    })
                }
                Err(ReadError::Closed(read)) => {
                    return Err(StepFailure::Closed {
                        n: *n,
                        read,
                        earlier_write: conn.write_error.as_ref().map(|e| e.to_string()),
                        expected,
                    })
                }
                Err(ReadError::Garbage(why, data)) => {
                    return Err(StepFailure::Garbage {
                        expected,
                        why,
                        data,
                    })
                }
            };
            cfg.rule
                .match_message(&cfg.patterns, &expected, &actual)
                .map_err(StepFailure::Mismatch)?;
        }
        Step::ExpectDisconnect(n) => {
            let conn = open(connections, *n, "expecting a disconnect")?;
            let deadline = Instant::now() + cfg.timeout_disconnect;
            let result = loop {
                if !conn.buf.is_empty() {
                    // Data instead of a disconnect: read the rest of the message
                    // briefly, to report it whole.
                    let grace = Instant::now() + Duration::from_millis(500);
                    let received = match conn.read_message(grace) {
                        Ok(m) if logout_before_disconnect(&m, conn.received) => {
                            // A refused Logon's Logout: the close is still due.
                            conn.received = true;
                            continue;
                        }
                        Ok(m) => render(&m),
                        Err(_) => render(&conn.buf),
                    };
                    break Err(StepFailure::NotClosed { n: *n, received });
                }
                match conn.fill(deadline) {
                    Ok(()) | Err(ReadError::Garbage(..)) => {} // fill does not judge the bytes
                    Err(ReadError::Closed(_)) => break Ok(()),
                    Err(ReadError::TimedOut) => {
                        break Err(StepFailure::DisconnectTimeout {
                            n: *n,
                            after: cfg.timeout_disconnect,
                        })
                    }
                }
            };
            result?;
            connections.remove(n);
        }
        Step::SetSession {
            session,
            next_sender,
            next_target,
        } => admin::set_session_with_token(
            cfg.admin_addr,
            cfg.admin_token.as_deref(),
            session,
            *next_sender,
            *next_target,
            cfg.timeout_admin,
        )
        .map_err(StepFailure::Admin)?,
    }
    Ok(())
}

/// The `.def` files directly in `dir`, sorted by file name, keeping those whose
/// name contains `filter` (if given).
///
/// # Errors
///
/// The [`io::Error`] of reading `dir` or one of its entries.
pub fn list_scripts(dir: &Path, filter: Option<&str>) -> io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let is_def = path.extension().is_some_and(|e| e == "def") && path.is_file();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_def && filter.map_or(true, |f| name.contains(f)) {
            paths.push(path);
        }
    }
    paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(paths)
}

/// Runs every script of `dir` in sorted order against one acceptor.
/// A script that cannot be parsed counts as failed.
///
/// # Errors
///
/// As [`list_scripts`]: `dir` cannot be read. Failures of the scripts
/// themselves are in the results, not errors.
pub fn run_suite(dir: &Path, cfg: &RunConfig) -> io::Result<Vec<ScriptResult>> {
    run_suite_filtered(dir, cfg, None)
}

/// Like [`run_suite`], keeping only the scripts whose file name contains `filter`.
///
/// # Errors
///
/// As [`run_suite`].
pub fn run_suite_filtered(
    dir: &Path,
    cfg: &RunConfig,
    filter: Option<&str>,
) -> io::Result<Vec<ScriptResult>> {
    Ok(list_scripts(dir, filter)?
        .iter()
        .map(|path| match Script::parse(path) {
            Ok(script) => run_script(&script, cfg),
            Err(e) => {
                let name = path.file_stem().unwrap_or_default().to_string_lossy();
                ScriptResult::failed(name, format!("cannot parse: {e}"))
            }
        })
        .collect())
}

/// The final report line: exactly `N passed, M failed`.
///
/// ```
/// use peregrine_acceptance::{summary_line, ScriptResult};
/// let results = vec![ScriptResult::failed("x", "why")];
/// assert_eq!(summary_line(&results), "0 passed, 1 failed");
/// ```
pub fn summary_line(results: &[ScriptResult]) -> String {
    let passed = results.iter().filter(|r| r.passed).count();
    format!("{passed} passed, {} failed", results.len() - passed)
}

/// Writes one line per failing script (`FAIL <name>: <first difference>`) and
/// then the [`summary_line`].
///
/// # Errors
///
/// The first [`io::Error`] of writing to `out`.
pub fn write_report(results: &[ScriptResult], out: &mut dyn Write) -> io::Result<()> {
    for r in results.iter().filter(|r| !r.passed) {
        writeln!(
            out,
            "FAIL {}: {}",
            r.name,
            r.first_difference.as_deref().unwrap_or("failed")
        )?;
    }
    writeln!(out, "{}", summary_line(results))
}

//! Running scripts against an acceptor over TCP.

use std::collections::BTreeMap;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::admin;
use crate::fix::{complete_message, frame_message, render, Frame};
use crate::matcher::FieldPatterns;
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
    /// Tags matched by pattern (`fields.fmt`).
    pub patterns: FieldPatterns,
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
}

enum ReadError {
    TimedOut,
    Closed(String),
    Garbage(String),
}

impl Connection {
    /// Reads until one whole message is buffered and returns it; extra bytes stay buffered.
    fn read_message(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadError> {
        loop {
            match frame_message(&self.buf) {
                Frame::Complete(n) => return Ok(self.buf.drain(..n).collect()),
                Frame::Invalid(why) => {
                    return Err(ReadError::Garbage(format!("{why}: {}", render(&self.buf))))
                }
                Frame::Incomplete => {}
            }
            self.fill(deadline)?;
        }
    }

    /// One read into the buffer, waiting at most until `deadline`.
    fn fill(&mut self, deadline: Instant) -> Result<(), ReadError> {
        let mut chunk = [0u8; 8192];
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(ReadError::TimedOut);
            }
            self.stream
                .set_read_timeout(Some(remaining))
                .map_err(|e| ReadError::Closed(e.to_string()))?;
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(ReadError::Closed("connection closed".into())),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(ReadError::Closed(e.to_string())),
            }
        }
    }

    fn closed_reason(&self, reason: &str) -> String {
        match &self.write_error {
            Some(e) => format!("{reason}; an earlier send failed: {e}"),
            None => reason.to_string(),
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
        first_difference: outcome.err(),
        duration: start.elapsed(),
    }
}

fn probe(cfg: &RunConfig) -> Result<(), String> {
    if cfg.probe {
        let stream = TcpStream::connect_timeout(&cfg.addr, cfg.timeout_connect)
            .map_err(|e| format!("probe connection to {} failed: {e}", cfg.addr))?;
        let _ = stream.shutdown(Shutdown::Both);
    }
    Ok(())
}

fn run_steps(
    script: &Script,
    cfg: &RunConfig,
    connections: &mut BTreeMap<u32, Connection>,
) -> Result<(), String> {
    for s in &script.steps {
        run_step(&s.step, cfg, connections).map_err(|e| format!("line {}: {e}", s.line))?;
    }
    Ok(())
}

fn open<'a>(
    connections: &'a mut BTreeMap<u32, Connection>,
    n: u32,
    what: &str,
) -> Result<&'a mut Connection, String> {
    connections
        .get_mut(&n)
        .ok_or_else(|| format!("connection {n} is not open ({what})"))
}

fn run_step(
    step: &Step,
    cfg: &RunConfig,
    connections: &mut BTreeMap<u32, Connection>,
) -> Result<(), String> {
    match step {
        Step::Connect(n) => {
            let stream = TcpStream::connect_timeout(&cfg.addr, cfg.timeout_connect)
                .map_err(|e| format!("cannot open connection {n} to {}: {e}", cfg.addr))?;
            let _ = stream.set_nodelay(true);
            if let Some(old) = connections.insert(
                *n,
                Connection {
                    stream,
                    buf: Vec::new(),
                    write_error: None,
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
            let actual = conn.read_message(deadline).map_err(|e| match e {
                ReadError::TimedOut => {
                    let mut text = format!(
                        "timed out waiting for {} (after {:?})",
                        render(&expected),
                        cfg.timeout_expect
                    );
                    if !conn.buf.is_empty() {
                        text.push_str(&format!("; partial data: {}", render(&conn.buf)));
                    }
                    text
                }
                ReadError::Closed(why) => format!(
                    "connection {n} closed by the acceptor ({}) while waiting for {}",
                    conn.closed_reason(&why),
                    render(&expected)
                ),
                ReadError::Garbage(why) => format!(
                    "unreadable data while waiting for {}: {why}",
                    render(&expected)
                ),
            })?;
            cfg.patterns
                .match_message(&expected, &actual)
                .map_err(|m| m.to_string())?;
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
                        Ok(m) => render(&m),
                        Err(_) => render(&conn.buf),
                    };
                    break Err(format!(
                        "expected connection {n} to be closed, received {received}"
                    ));
                }
                match conn.fill(deadline) {
                    Ok(()) => {}
                    Err(ReadError::Closed(_)) => break Ok(()),
                    Err(ReadError::TimedOut) => {
                        break Err(format!(
                            "timed out waiting for disconnect of connection {n} (after {:?})",
                            cfg.timeout_disconnect
                        ))
                    }
                    Err(ReadError::Garbage(g)) => break Err(g), // not produced by fill
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
        )?,
    }
    Ok(())
}

/// The `.def` files directly in `dir`, sorted by file name, keeping those whose
/// name contains `filter` (if given).
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
pub fn run_suite(dir: &Path, cfg: &RunConfig) -> io::Result<Vec<ScriptResult>> {
    run_suite_filtered(dir, cfg, None)
}

/// Like [`run_suite`], keeping only the scripts whose file name contains `filter`.
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

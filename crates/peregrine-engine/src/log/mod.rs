//! Per-session logs in the usual QuickFIX layout: one message per line in
//! `<FileLogPath>/<session>.messages.log` (incoming and outgoing, with a UTC
//! timestamp), and session events in `<session>.event.log`; and, with
//! `ScreenLogShowEvents`/`ScreenLogShowIncoming`/`ScreenLogShowOutgoing`
//! (QuickFIX's `ScreenLog`), the same lines on standard output, each after
//! the session's name: `<time> : <session> : event : <text>`.
//!
//! Bytes from the wire never reach a log line unescaped ([`Escaped`]): in the
//! messages log a message keeps its SOH separators, but a control character
//! (a newline that would forge a line), DEL and `\` are written `\xNN`/`\\`;
//! in event lines and `tracing`, SOH is shown as `|` too. Lines an attacker can
//! repeat at will (garbled input, rejects) go through a [`RateLimit`] per
//! session: [`RATE_BURST`] lines, then [`RATE_PER_SEC`] a second, with a count
//! of what was left out.
//!
//! **Off the reactor.** Formatting a line and writing it are not the reactor's
//! work: a [`SessionLog`] call copies the raw bytes of a read or a write (or an
//! event's text) and the time the reactor already has into a bounded ring
//! ([`RING_BYTES`], 1 MiB), and one logging thread per engine ([`LogWriter`])
//! frames, timestamps, escapes and writes them. What that promises:
//!
//! - **Order and completeness**: every line is written, in the order handed
//!   over; when the ring is full the reactor waits for the logging thread
//!   (never drops a line; [`LogStats::ring_full_waits`] counts the waits).
//! - **Where the work runs**: a reactor that spins does it in its idle turns,
//!   a bounded step at a time ([`LogWriter::help`]), so that on a machine whose
//!   cores all spin the logging thread need not preempt it; the thread reads
//!   what the reactor leaves.
//! - **Delay**: a line reaches the file (the operating system's page cache)
//!   within [`POLL_IDLE`] (10 ms; about 1 ms under a spinning reactor with idle
//!   turns), at once when the ring is half full; a
//!   [`SessionLog::flush`], a `ListSessions` command (the console's reads),
//!   the engine's shutdown and a log's drop wait until it is written.
//! - **`kill -9`**: loses at most what the ring held and each file's 64 KiB
//!   write buffer (in practice the last few milliseconds of lines); the last
//!   line can be torn. What a crash must not lose is in the store (and the
//!   engine journal), which commit before a message leaves.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let mut log = peregrine_engine::SessionLog::open(dir.path(), "FIX.4.4:ISLD->TW")?;
//! log.incoming(b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01", 0);
//! log.event("connected", 0);
//! log.flush();
//! let text = std::fs::read_to_string(dir.path().join("FIX.4.4-ISLD-TW.messages.log"))?;
//! assert_eq!(text, "19700101-00:00:00.000000 : 8=FIX.4.4\x019=5\x0135=0\x0110=163\x01\n");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use peregrine_codec::value::{format_timestamp, TimePrecision, UtcTimestamp};

use crate::driver::Nanos;

mod reader;
mod ring;
#[cfg(test)]
mod tests;
mod thread;
mod writer;

use ring::{Kind, Shared};
pub use ring::{LogStats, MIN_RING_BYTES, RING_BYTES};
pub use thread::{POLL_BUSY, POLL_IDLE};

/// Bytes from the wire, for a log line: printable ASCII as it is, SOH as `|`
/// (or kept, with [`Escaped::keep_soh`]), `\` as `\\`, any other byte below
/// 0x20, DEL, and bytes that are not valid UTF-8 as `\xNN`.
///
/// ```
/// use peregrine_engine::log::Escaped;
/// assert_eq!(Escaped(b"49=EVIL\n2026 forged\x01").to_string(), "49=EVIL\\x0a2026 forged|");
/// assert_eq!(Escaped(b"a\\b \xc3\xa9 \xff").to_string(), "a\\\\b \u{e9} \\xff");
/// ```
#[derive(Clone, Copy)]
pub struct Escaped<'a>(pub &'a [u8]);

impl Escaped<'_> {
    /// Writes the escaped bytes with SOH kept as it is (the messages log).
    ///
    /// # Errors
    ///
    /// The first error of writing to `out`; what was written before it stays.
    pub fn keep_soh(bytes: &[u8], out: &mut impl Write) -> std::io::Result<()> {
        let mut start = 0;
        while let Some(i) = next_escape_keeping_soh(bytes, start) {
            let b = bytes[i];
            out.write_all(&bytes[start..i])?;
            if b == b'\\' {
                out.write_all(b"\\\\")?;
            } else {
                write!(out, "\\x{b:02x}")?;
            }
            start = i + 1;
        }
        out.write_all(&bytes[start..])
    }
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == b'\\'
}

/// The first byte at or after `from` that the messages log escapes (SOH kept).
/// Eight bytes a step (SWAR, safe code): the logging thread's inner loop, where
/// a byte-at-a-time scan cost about as much as everything else it does per
/// message.
fn next_escape_keeping_soh(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // 0x80 in each byte of `x` that is zero, exactly (no borrow between bytes).
    let zero = |x: u64| !(((x & !HIGH) + !HIGH) | x) & HIGH;
    let rest = &bytes[from..];
    let mut chunks = rest.chunks_exact(8);
    let mut at = from;
    for c in chunks.by_ref() {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let control = zero(w & (0xE0 * ONES)) & !zero(w ^ ONES);
        let hit = control | zero(w ^ (0x7F * ONES)) | zero(w ^ (b'\\' as u64 * ONES));
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| needs_escape(b) && b != 0x01)
        .map(|i| at + i)
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\x01' => f.write_str("|")?,
                    '\\' => f.write_str("\\\\")?,
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
                    c => fmt::Write::write_char(f, c)?,
                }
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// Lines a peer can make the engine write at will, per session: this many at once…
pub const RATE_BURST: u32 = 100;
/// …then this many a second.
pub const RATE_PER_SEC: u32 = 10;

/// A token bucket for log lines: [`RATE_BURST`] at once, then [`RATE_PER_SEC`]
/// a second; what it refuses is counted and said with the next line let through.
///
/// ```
/// use peregrine_engine::log::RateLimit;
/// let mut r = RateLimit::new(0);
/// assert!((0..100).all(|_| r.allow(0).is_some()));
/// assert_eq!(r.allow(0), None);
/// assert_eq!(r.allow(0), None);
/// // 100 ms later: one more line, which says two were left out.
/// assert_eq!(r.allow(100_000_000), Some(2));
/// ```
#[derive(Debug, Clone)]
pub struct RateLimit {
    tokens: u32,
    /// Nanoseconds of refill not yet turned into a token.
    credit: i64,
    last: Nanos,
    suppressed: u64,
}

impl RateLimit {
    /// A full bucket at `now`.
    pub fn new(now: Nanos) -> Self {
        RateLimit {
            tokens: RATE_BURST,
            credit: 0,
            last: now,
            suppressed: 0,
        }
    }

    /// Whether a line may be written at `now`: `Some(n)` with the number of lines
    /// left out since the last one, or `None` (counted).
    pub fn allow(&mut self, now: Nanos) -> Option<u64> {
        const PER_TOKEN: i64 = 1_000_000_000 / RATE_PER_SEC as i64;
        if now > self.last {
            self.credit = self.credit.saturating_add(now - self.last);
            self.last = now;
            let earned = self.credit / PER_TOKEN;
            if earned > 0 {
                self.credit -= earned * PER_TOKEN;
                self.tokens = (self.tokens as i64 + earned).min(RATE_BURST as i64) as u32;
            }
        }
        if self.tokens == 0 {
            self.suppressed += 1;
            return None;
        }
        self.tokens -= 1;
        Some(std::mem::take(&mut self.suppressed))
    }

    /// Lines left out and not said yet.
    pub fn suppressed(&self) -> u64 {
        self.suppressed
    }
}

/// The file-name stem of a session's logs: `FIX.4.4:ISLD->TW` becomes
/// `FIX.4.4-ISLD-TW` (any other character outside `[A-Za-z0-9._-]` becomes `_`).
///
/// ```
/// assert_eq!(peregrine_engine::log::file_stem("FIXT.1.1:ISLD->TW:FIX50"), "FIXT.1.1-ISLD-TW-FIX50");
/// ```
pub fn file_stem(session: &str) -> String {
    session
        .replace("->", "-")
        .replace(':', "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What a session writes to standard output, by `.cfg` keys of QuickFIX's
/// `ScreenLog`. A session that sets none of them prints nothing; one that sets
/// any has the others at QuickFIX's defaults (Y).
///
/// ```
/// use peregrine_engine::log::ScreenLogSettings;
/// let s = ScreenLogSettings { events: true, incoming: false, outgoing: false };
/// assert!(s.any());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenLogSettings {
    /// `ScreenLogShowEvents`: the event log's lines.
    pub events: bool,
    /// `ScreenLogShowIncoming`: the messages received.
    pub incoming: bool,
    /// `ScreenLogShowOutgoing`: the messages sent.
    pub outgoing: bool,
}

impl ScreenLogSettings {
    /// Whether anything is printed.
    pub fn any(&self) -> bool {
        self.events || self.incoming || self.outgoing
    }
}

/// One line on standard output, written whole (one `write_all` under the lock,
/// so lines of sessions on other threads do not interleave).
pub(crate) fn print_line(line: &[u8]) {
    let out = std::io::stdout();
    let mut out = out.lock();
    let _ = out.write_all(line);
    let _ = out.flush();
}

/// Prints an engine's line that belongs to no session (a connection that never
/// named one: a TLS handshake that failed, a Logon naming unknown CompIDs) to
/// standard output, as [`SessionLog`] prints a session's events:
/// `<time> : <listener> : event : <text>`.
pub fn print_event(source: &str, text: &str, now: Nanos) {
    print_line(format!("{} : {source} : event : {text}\n", timestamp(now)).as_bytes());
}

fn open_append(p: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(p)
}

/// `YYYYMMDD-HH:MM:SS.ffffff` for a time in nanoseconds.
///
/// ```
/// assert_eq!(peregrine_engine::log::timestamp(1_500_000_000), "19700101-00:00:01.500000");
/// ```
pub fn timestamp(now: Nanos) -> String {
    let mut buf = [0u8; 32];
    let n = format_stamp(now, &mut buf);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

pub(crate) fn format_stamp(now: Nanos, buf: &mut [u8; 32]) -> usize {
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Micros);
    format_timestamp(&ts, TimePrecision::Micros, buf)
}

/// Payload bytes one [`LogWriter::help`] step reads at most (a record more):
/// about 2 µs of the logging thread's work, what a message arriving in that
/// idle turn waits at worst.
pub const HELP_BYTES: usize = 2048;

/// A helping reactor reads the ring once it holds [`HELP_BYTES`] or its
/// oldest record is this old (ns): in batches, rather than a record or two
/// after every message, which costs the next message the caches it finds.
pub(crate) const HELP_AGE: Nanos = 200_000;

/// Sessions whose file buffers one [`LogWriter::help`] step hands over at most.
const HELP_FLUSH_FILES: usize = 2;

/// How long [`SessionLog::flush`] waits for the logging thread before it gives
/// up (saying so in `tracing`): a disk that stalls longer stalls only the logs.
pub const FLUSH_LIMIT: Duration = Duration::from_secs(10);

/// One logging thread and its ring: every [`SessionLog`] opened through it
/// hands its lines to that thread. An engine has one; the thread ends once the
/// writer and all its logs are dropped.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let writer = peregrine_engine::log::LogWriter::start()?;
/// let mut a = writer.open(Some(dir.path()), "FIX.4.4:A->B", None)?;
/// let mut b = writer.open(Some(dir.path()), "FIX.4.4:B->A", None)?;
/// a.event("connected", 0);
/// b.event("connected", 0);
/// writer.flush(); // both sessions' lines are in their files
/// let text = std::fs::read_to_string(dir.path().join("FIX.4.4-B-A.event.log"))?;
/// assert_eq!(text, "19700101-00:00:00.000000 : connected\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct LogWriter {
    shared: Arc<Shared>,
}

impl fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LogWriter").finish_non_exhaustive()
    }
}

impl LogWriter {
    /// Starts a logging thread with an empty ring of [`RING_BYTES`].
    ///
    /// # Errors
    ///
    /// The operating system's refusal to start a thread.
    pub fn start() -> std::io::Result<LogWriter> {
        Self::with_ring_bytes(RING_BYTES)
    }

    /// Starts a logging thread with a ring of `bytes` (at least
    /// [`MIN_RING_BYTES`]): a bigger ring rides out longer disk stalls without
    /// making the reactor wait, and a `kill -9` can lose more.
    ///
    /// # Errors
    ///
    /// The operating system's refusal to start a thread.
    pub fn with_ring_bytes(bytes: usize) -> std::io::Result<LogWriter> {
        let shared = Shared::new(bytes);
        thread::spawn(shared.clone())?;
        Ok(LogWriter { shared })
    }

    /// Opens (appending) the logs of `session`: files in `dir` (if any,
    /// creating the directory), and lines on standard output as `screen`
    /// asks (if any).
    ///
    /// # Errors
    ///
    /// The I/O error of creating `dir` or of opening the messages or the
    /// event log for appending (e.g. permission denied, or a file where the
    /// directory should be).
    pub fn open(
        &self,
        dir: Option<&Path>,
        session: &str,
        screen: Option<ScreenLogSettings>,
    ) -> std::io::Result<SessionLog> {
        let (files, messages_path) = match dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let stem = file_stem(session);
                let messages_path = dir.join(format!("{stem}.messages.log"));
                let messages = open_append(&messages_path)?;
                let events = open_append(&dir.join(format!("{stem}.event.log")))?;
                (
                    Some(writer::LogFiles::open(messages, events)),
                    Some(messages_path),
                )
            }
            None => (None, None),
        };
        let screen = screen
            .filter(ScreenLogSettings::any)
            .map(|show| writer::Screen {
                show,
                // A template-made session's CompIDs come from the wire.
                session: Escaped(session.as_bytes()).to_string(),
            });
        let id = self.shared.next_id();
        self.shared
            .opening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, writer::Entry::new(files, screen)));
        self.shared.push(Kind::Open, id, 0, &[], false);
        Ok(SessionLog {
            id,
            shared: self.shared.clone(),
            messages_path,
        })
    }

    /// Returns once every line handed over before this call is written to the
    /// operating system (at most [`FLUSH_LIMIT`]).
    pub fn flush(&self) {
        self.shared.flush(FLUSH_LIMIT);
    }

    /// A spinning reactor's idle turn: once the ring holds [`HELP_BYTES`] or
    /// its oldest record is 200 µs old, reads a bounded step of it (about
    /// [`HELP_BYTES`] of payload) and, once it is empty, hands the files'
    /// buffers to the operating system when due (16 KiB or 1 ms old, a few
    /// files a step) — the logging thread's work, done where the core is
    /// spinning anyway. Returns at once when the logging thread is reading.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let writer = peregrine_engine::log::LogWriter::start()?;
    /// let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None)?;
    /// log.event("connected", 1);
    /// writer.help(5_000_000); // 4 ms later: written, even if the thread slept
    /// # writer.flush();
    /// let text = std::fs::read_to_string(dir.path().join("FIX.4.4-A-B.event.log"))?;
    /// assert!(text.ends_with(" : connected\n"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn help(&self, now: Nanos) {
        self.shared.helped(now);
        let mut reader = match self.shared.reader.try_lock() {
            Ok(r) => r,
            Err(std::sync::TryLockError::WouldBlock) => return,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        };
        if reader.batch_ready(now, HELP_BYTES, HELP_AGE)
            && reader.drain(&self.shared, HELP_BYTES)
            && !reader.is_empty()
        {
            return;
        }
        if reader.flush_due(now) {
            reader.flush(HELP_FLUSH_FILES);
        }
    }

    /// How the hand-over has gone: records, waits for a full ring.
    pub fn stats(&self) -> &LogStats {
        &self.shared.stats
    }
}

/// A session's message and event logs: each call copies its bytes into the
/// [`LogWriter`]'s ring and returns; the logging thread formats and writes them.
pub struct SessionLog {
    id: u32,
    shared: Arc<Shared>,
    messages_path: Option<PathBuf>,
}

impl fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLog")
            .field("id", &self.id)
            .field("messages_path", &self.messages_path)
            .finish_non_exhaustive()
    }
}

impl SessionLog {
    /// Opens (appending) the logs of `session` in `dir`, creating the
    /// directory, with a logging thread of its own ([`LogWriter::open`] shares one).
    ///
    /// # Errors
    ///
    /// As [`LogWriter::open`], or the thread could not start.
    pub fn open(dir: &Path, session: &str) -> std::io::Result<SessionLog> {
        Self::with_screen(Some(dir), session, None)
    }

    /// The logs of `session`: files in `dir` (if any, as [`open`](Self::open)),
    /// and lines on standard output as `screen` asks (if any), with a logging
    /// thread of its own.
    ///
    /// ```
    /// use peregrine_engine::{log::ScreenLogSettings, SessionLog};
    /// let show = ScreenLogSettings { events: true, incoming: false, outgoing: false };
    /// let mut log = SessionLog::with_screen(None, "FIX.4.4:ISLD->TW", Some(show))?;
    /// log.event("connected", 0); // stdout: 19700101-00:00:00.000000 : FIX.4.4:ISLD->TW : event : connected
    /// assert_eq!(log.messages_path(), None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn with_screen(
        dir: Option<&Path>,
        session: &str,
        screen: Option<ScreenLogSettings>,
    ) -> std::io::Result<SessionLog> {
        LogWriter::start()?.open(dir, session, screen)
    }

    /// Bounds what the log holds of a message still arriving (the session's
    /// `MaxMessageSize`; 16 MiB until set).
    pub fn set_max_message_size(&mut self, max: usize) {
        let max = max as u64;
        self.shared
            .push(Kind::MaxMessageSize, self.id, 0, &max.to_le_bytes(), false);
    }

    /// The messages log's path (`None`: it writes only to the screen).
    pub fn messages_path(&self) -> Option<&Path> {
        self.messages_path.as_deref()
    }

    /// Bytes received (any chunking): each complete message becomes one line.
    pub fn incoming(&mut self, bytes: &[u8], now: Nanos) {
        self.shared.push(Kind::Incoming, self.id, now, bytes, true);
    }

    /// Bytes sent (any chunking): each complete message becomes one line.
    pub fn outgoing(&mut self, bytes: &[u8], now: Nanos) {
        self.shared.push(Kind::Outgoing, self.id, now, bytes, true);
    }

    /// Says in the messages log how many garbled lines the limit left out: once
    /// the limit lets a line through again, or at once with `force` (shutdown).
    pub fn report_left_out(&mut self, now: Nanos, force: bool) {
        self.shared
            .push(Kind::LeftOut, self.id, now, &[u8::from(force)], false);
    }

    /// One line in the event log (and on the screen, with
    /// `ScreenLogShowEvents`); a text over a quarter of the ring is cut.
    pub fn event(&mut self, text: &str, now: Nanos) {
        self.shared
            .push(Kind::Event, self.id, now, text.as_bytes(), false);
    }

    /// Returns once every line of this log's [`LogWriter`] handed over before
    /// this call is written to the operating system.
    pub fn flush(&mut self) {
        self.shared.flush(FLUSH_LIMIT);
    }
}

impl Drop for SessionLog {
    /// Closes the files; first waits for the lines still in the ring, if any.
    fn drop(&mut self) {
        self.shared.push(Kind::Close, self.id, 0, &[], false);
        if self.shared.unflushed() {
            self.shared.flush(FLUSH_LIMIT);
        }
    }
}

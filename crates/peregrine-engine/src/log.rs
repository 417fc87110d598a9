//! Per-session logs in the usual QuickFIX layout: one message per line in
//! `<FileLogPath>/<session>.messages.log` (incoming and outgoing, raw, with a
//! UTC timestamp), and session events in `<session>.event.log`.
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

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use peregrine_codec::frame::{FrameEvent, Framer};
use peregrine_codec::value::{format_timestamp, TimePrecision, UtcTimestamp};

use crate::driver::Nanos;

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

/// A session's message and event logs.
#[derive(Debug)]
pub struct SessionLog {
    messages: BufWriter<File>,
    events: BufWriter<File>,
    messages_path: PathBuf,
    in_tail: Vec<u8>,
    out_tail: Vec<u8>,
    framer: Framer,
}

fn open_append(p: &Path) -> std::io::Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(
        64 * 1024,
        OpenOptions::new().create(true).append(true).open(p)?,
    ))
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

fn format_stamp(now: Nanos, buf: &mut [u8; 32]) -> usize {
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Micros);
    format_timestamp(&ts, TimePrecision::Micros, buf)
}

impl SessionLog {
    /// Opens (appending) the logs of `session` in `dir`, creating the directory.
    pub fn open(dir: &Path, session: &str) -> std::io::Result<SessionLog> {
        std::fs::create_dir_all(dir)?;
        let stem = file_stem(session);
        let messages_path = dir.join(format!("{stem}.messages.log"));
        Ok(SessionLog {
            messages: open_append(&messages_path)?,
            events: open_append(&dir.join(format!("{stem}.event.log")))?,
            messages_path,
            in_tail: Vec::new(),
            out_tail: Vec::new(),
            framer: Framer::new(16 << 20),
        })
    }

    /// The messages log's path.
    pub fn messages_path(&self) -> &Path {
        &self.messages_path
    }

    /// Bytes received (any chunking): each complete message becomes one line.
    pub fn incoming(&mut self, bytes: &[u8], now: Nanos) {
        let mut tail = std::mem::take(&mut self.in_tail);
        self.split(&mut tail, bytes, now);
        self.in_tail = tail;
    }

    /// Bytes sent (any chunking): each complete message becomes one line.
    pub fn outgoing(&mut self, bytes: &[u8], now: Nanos) {
        let mut tail = std::mem::take(&mut self.out_tail);
        self.split(&mut tail, bytes, now);
        self.out_tail = tail;
    }

    fn split(&mut self, tail: &mut Vec<u8>, bytes: &[u8], now: Nanos) {
        let mut ts = [0u8; 32];
        let ts_len = format_stamp(now, &mut ts);
        let ts = &ts[..ts_len];
        let messages = &mut self.messages;
        let mut line = |m: &[u8]| {
            let _ = messages.write_all(ts);
            let _ = messages.write_all(b" : ");
            let _ = messages.write_all(m);
            let _ = messages.write_all(b"\n");
        };
        if tail.is_empty() {
            let mut frames = self.framer.frames(bytes);
            for f in frames.by_ref() {
                match f {
                    FrameEvent::Message(m) => line(m),
                    FrameEvent::Garbled { bytes, .. } => line(bytes),
                }
            }
            tail.extend_from_slice(&bytes[frames.consumed()..]);
        } else {
            tail.extend_from_slice(bytes);
            let mut frames = self.framer.frames(tail);
            for f in frames.by_ref() {
                match f {
                    FrameEvent::Message(m) => line(m),
                    FrameEvent::Garbled { bytes, .. } => line(bytes),
                }
            }
            let consumed = frames.consumed();
            tail.drain(..consumed);
        }
    }

    /// One line in the event log.
    pub fn event(&mut self, text: &str, now: Nanos) {
        let _ = writeln!(self.events, "{} : {text}", timestamp(now));
    }

    /// Hands buffered lines to the operating system.
    pub fn flush(&mut self) {
        let _ = self.messages.flush();
        let _ = self.events.flush();
    }
}

impl Drop for SessionLog {
    fn drop(&mut self) {
        self.flush();
    }
}

//! A session's log as the ring's reader keeps it: frames the raw bytes into
//! messages, timestamps, escapes and writes the QuickFIX layout (and the
//! screen's lines) into the files' buffers.

use std::fs::File;
use std::io::{BufWriter, Write};

use peregrine_codec::frame::{FrameEvent, Framer};

use super::{format_stamp, print_line, Escaped, RateLimit, ScreenLogSettings};
use crate::driver::Nanos;

/// Each log file's write buffer (a `kill -9` loses at most this much of a file
/// beyond the ring).
pub(super) const FILE_BUFFER: usize = 64 * 1024;

/// What a session's buffer for a message split across reads holds before it
/// grows (a message seldom is longer): one allocation per way at the first
/// split rather than one at each longer split after it.
const TAIL_CAPACITY: usize = 1024;

/// A session's log, as the ring's reader keeps it.
#[derive(Debug)]
pub(super) struct Entry {
    files: Option<LogFiles>,
    screen: Option<Screen>,
    /// Each way's bytes after its last whole message ([`Direction`] as index).
    tails: [Vec<u8>; 2],
    framer: Framer,
    /// Garbled input is logged within this limit.
    garbled: RateLimit,
    dirty: bool,
}

/// The files of `FileLogPath`.
#[derive(Debug)]
pub(super) struct LogFiles {
    pub messages: BufWriter<File>,
    pub events: BufWriter<File>,
}

impl LogFiles {
    /// The two files, opened for appending.
    pub fn open(messages: File, events: File) -> LogFiles {
        LogFiles {
            messages: BufWriter::with_capacity(FILE_BUFFER, messages),
            events: BufWriter::with_capacity(FILE_BUFFER, events),
        }
    }
}

/// What a session writes to standard output.
#[derive(Debug)]
pub(super) struct Screen {
    pub show: ScreenLogSettings,
    /// The session's name, escaped (a template-made session's CompIDs come from the wire).
    pub session: String,
}

/// Which way a message went.
#[derive(Clone, Copy)]
pub(super) enum Direction {
    Incoming = 0,
    Outgoing = 1,
}

impl Entry {
    pub fn new(files: Option<LogFiles>, screen: Option<Screen>) -> Entry {
        Entry {
            files,
            screen,
            tails: [Vec::new(), Vec::new()],
            framer: Framer::new(16 << 20),
            garbled: RateLimit::new(0),
            dirty: false,
        }
    }

    /// Bytes read or written (any chunking): a line per whole message.
    pub fn bytes(&mut self, bytes: &[u8], now: Nanos, way: Direction) {
        self.dirty = true;
        let mut tail = std::mem::take(&mut self.tails[way as usize]);
        self.split(&mut tail, bytes, now, way);
        self.tails[way as usize] = tail;
    }

    /// The session's `MaxMessageSize`: what the framer accepts as one message.
    pub fn set_max_message_size(&mut self, max: usize) {
        self.framer = Framer::new(max);
    }

    /// Whether lines were written since the last [`flush`](Self::flush).
    pub fn dirty(&self) -> bool {
        self.dirty
    }

    /// Each complete message in `tail` + `bytes` becomes one line.
    fn split(&mut self, tail: &mut Vec<u8>, bytes: &[u8], now: Nanos, way: Direction) {
        let mut ts = [0u8; 32];
        let ts_len = format_stamp(now, &mut ts);
        let ts = &ts[..ts_len];
        let mut messages = self.files.as_mut().map(|f| &mut f.messages);
        // The screen's line: the file's, after the session's name and the way.
        let screen = self.screen.as_ref().and_then(|s| {
            let (show, word) = match way {
                Direction::Incoming => (s.show.incoming, "incoming"),
                Direction::Outgoing => (s.show.outgoing, "outgoing"),
            };
            show.then(|| format!(" : {} : {word} : ", s.session))
        });
        let mut screen_line = Vec::new();
        let garbled = &mut self.garbled;
        let mut line = |m: &[u8], is_garbled: bool| {
            if is_garbled {
                match garbled.allow(now) {
                    None => return,
                    Some(0) => {}
                    Some(n) => {
                        if let Some(messages) = messages.as_mut() {
                            left_out_line(messages, ts, n);
                        }
                    }
                }
            }
            if let Some(messages) = messages.as_mut() {
                let _ = messages.write_all(ts);
                let _ = messages.write_all(b" : ");
                let _ = Escaped::keep_soh(m, messages);
                let _ = messages.write_all(b"\n");
            }
            if let Some(prefix) = &screen {
                screen_line.clear();
                screen_line.extend_from_slice(ts);
                screen_line.extend_from_slice(prefix.as_bytes());
                let _ = Escaped::keep_soh(m, &mut screen_line);
                screen_line.push(b'\n');
                print_line(&screen_line);
            }
        };
        if tail.is_empty() {
            let mut frames = self.framer.frames(bytes);
            for f in frames.by_ref() {
                match f {
                    FrameEvent::Message(m) => line(m, false),
                    FrameEvent::Garbled { bytes, .. } => line(bytes, true),
                }
            }
            let rest = &bytes[frames.consumed()..];
            if !rest.is_empty() && tail.capacity() < TAIL_CAPACITY {
                // Once, at the first split message: not again at each longer split.
                tail.reserve(TAIL_CAPACITY);
            }
            tail.extend_from_slice(rest);
        } else {
            tail.extend_from_slice(bytes);
            let mut frames = self.framer.frames(tail);
            for f in frames.by_ref() {
                match f {
                    FrameEvent::Message(m) => line(m, false),
                    FrameEvent::Garbled { bytes, .. } => line(bytes, true),
                }
            }
            let consumed = frames.consumed();
            tail.drain(..consumed);
        }
    }

    /// Says in the messages log how many garbled lines the limit left out: once
    /// the limit lets a line through again, or at once with `force` (shutdown).
    pub fn report_left_out(&mut self, now: Nanos, force: bool) {
        let left_out = self.garbled.suppressed();
        if left_out == 0 {
            return;
        }
        let n = if force {
            self.garbled = RateLimit::new(now);
            left_out
        } else {
            match self.garbled.allow(now) {
                Some(n) => n,
                None => return,
            }
        };
        if let Some(f) = &mut self.files {
            self.dirty = true;
            let mut ts = [0u8; 32];
            let ts_len = format_stamp(now, &mut ts);
            left_out_line(&mut f.messages, &ts[..ts_len], n);
        }
    }

    pub fn event(&mut self, text: &[u8], now: Nanos) {
        let mut stamp = [0u8; 32];
        let ts_len = format_stamp(now, &mut stamp);
        let ts = &stamp[..ts_len];
        if let Some(f) = &mut self.files {
            self.dirty = true;
            let _ = f.events.write_all(ts);
            let _ = f.events.write_all(b" : ");
            let _ = f.events.write_all(text);
            let _ = f.events.write_all(b"\n");
        }
        if let Some(s) = self.screen.as_ref().filter(|s| s.show.events) {
            let mut line = Vec::with_capacity(ts.len() + s.session.len() + text.len() + 16);
            line.extend_from_slice(ts);
            line.extend_from_slice(b" : ");
            line.extend_from_slice(s.session.as_bytes());
            line.extend_from_slice(b" : event : ");
            line.extend_from_slice(text);
            line.push(b'\n');
            print_line(&line);
        }
    }

    /// Hands what the file buffers hold to the operating system.
    pub fn flush(&mut self) {
        if std::mem::take(&mut self.dirty) {
            if let Some(f) = &mut self.files {
                let _ = f.messages.flush();
                let _ = f.events.flush();
            }
        }
    }
}

/// The messages log's line saying how many garbled lines the rate limit left out.
fn left_out_line(messages: &mut impl Write, ts: &[u8], n: u64) {
    let _ = messages.write_all(ts);
    let _ = writeln!(messages, " : ({n} garbled lines left out)");
}

//! The logging thread: it reads the ring's records in order, frames the raw
//! bytes into messages, timestamps, escapes and writes the QuickFIX layout
//! (and the screen's lines), so that the reactor pays only a copy.
//!
//! When the ring is empty it hands what its file buffers hold to the
//! operating system, then parks: [`POLL_BUSY`] while lines came recently,
//! [`POLL_IDLE`] after that; the reactor wakes it only when the ring is half
//! full or someone waits for a flush. A line therefore reaches the file within
//! [`POLL_IDLE`] of the reactor handing it over, at once on
//! [`SessionLog::flush`](super::SessionLog::flush).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use peregrine_codec::frame::{FrameEvent, Framer};

use super::ring::{Header, Kind, Shared};
use super::{format_stamp, print_line, Escaped, RateLimit, ScreenLogSettings};
use crate::driver::Nanos;

/// Each log file's write buffer (a `kill -9` loses at most this much of a file
/// beyond the ring).
pub(super) const FILE_BUFFER: usize = 64 * 1024;

/// How long the logging thread parks while lines keep coming…
pub const POLL_BUSY: Duration = Duration::from_millis(1);
/// …and once none came for [`IDLE_AFTER`] polls.
pub const POLL_IDLE: Duration = Duration::from_millis(10);
const IDLE_AFTER: u32 = 50;

/// A session's log, as the logging thread keeps it.
#[derive(Debug)]
pub(super) struct Entry {
    files: Option<LogFiles>,
    screen: Option<Screen>,
    in_tail: Vec<u8>,
    out_tail: Vec<u8>,
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
enum Direction {
    Incoming,
    Outgoing,
}

impl Entry {
    pub fn new(files: Option<LogFiles>, screen: Option<Screen>) -> Entry {
        Entry {
            files,
            screen,
            in_tail: Vec::new(),
            out_tail: Vec::new(),
            framer: Framer::new(16 << 20),
            garbled: RateLimit::new(0),
            dirty: false,
        }
    }

    fn bytes(&mut self, bytes: &[u8], now: Nanos, way: Direction) {
        self.dirty = true;
        let mut tail = std::mem::take(match way {
            Direction::Incoming => &mut self.in_tail,
            Direction::Outgoing => &mut self.out_tail,
        });
        self.split(&mut tail, bytes, now, way);
        match way {
            Direction::Incoming => self.in_tail = tail,
            Direction::Outgoing => self.out_tail = tail,
        }
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
            tail.extend_from_slice(&bytes[frames.consumed()..]);
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
    fn report_left_out(&mut self, now: Nanos, force: bool) {
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

    fn event(&mut self, text: &[u8], now: Nanos) {
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

    fn flush(&mut self) {
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

/// Starts the logging thread of `shared`; it ends once every handle on
/// `shared` is gone and the ring is empty.
pub(super) fn spawn(shared: Arc<Shared>, consumer: rtrb::Consumer<u8>) -> std::io::Result<()> {
    let thread_shared = shared.clone();
    let handle = std::thread::Builder::new()
        .name("peregrine-log".into())
        .spawn(move || run(&thread_shared, consumer))?;
    *shared.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle.thread().clone());
    Ok(())
}

fn run(shared: &Arc<Shared>, mut consumer: rtrb::Consumer<u8>) {
    let mut sessions: HashMap<u32, Entry> = HashMap::new();
    // Holds any one record's payload: no allocation after the start.
    let mut scratch = Vec::with_capacity(shared.max_payload());
    let mut empty_polls = 0u32;
    loop {
        if drain(shared, &mut consumer, &mut sessions, &mut scratch) {
            empty_polls = 0;
            continue;
        }
        for e in sessions.values_mut() {
            e.flush();
        }
        if Arc::strong_count(shared) == 1 && consumer.is_empty() {
            return;
        }
        shared.sleeping.store(true, Ordering::SeqCst);
        // A record pushed before the flag was up would not wake us: look once more.
        if !consumer.is_empty() {
            shared.sleeping.store(false, Ordering::SeqCst);
            continue;
        }
        empty_polls = empty_polls.saturating_add(1);
        std::thread::park_timeout(if empty_polls < IDLE_AFTER {
            POLL_BUSY
        } else {
            POLL_IDLE
        });
        shared.sleeping.store(false, Ordering::SeqCst);
    }
}

/// Handles every whole record in the ring; whether there was one.
fn drain(
    shared: &Shared,
    consumer: &mut rtrb::Consumer<u8>,
    sessions: &mut HashMap<u32, Entry>,
    scratch: &mut Vec<u8>,
) -> bool {
    let mut any = false;
    loop {
        let Ok(chunk) = consumer.read_chunk(Header::LEN) else {
            return any;
        };
        let mut h = [0u8; Header::LEN];
        let (a, b) = chunk.as_slices();
        h[..a.len()].copy_from_slice(a);
        h[a.len()..].copy_from_slice(b);
        let Some(header) = Header::decode(&h) else {
            // Only `ring.rs` writes the ring, so this is a bug: say it, and skip
            // what the ring holds rather than stop logging.
            tracing::error!(
                "the log ring holds a record of unknown kind {}: skipped",
                h[0]
            );
            let slots = consumer.slots();
            if let Ok(all) = consumer.read_chunk(slots) {
                all.commit_all();
            }
            return true;
        };
        // The payload follows the header's push; wait for it if it is not all here.
        let Ok(chunk) = consumer.read_chunk(Header::LEN + header.len) else {
            return any;
        };
        any = true;
        let (a, b) = chunk.as_slices();
        let (p1, p2) = if a.len() >= Header::LEN {
            (&a[Header::LEN..], b)
        } else {
            (&b[Header::LEN - a.len()..], &[][..])
        };
        handle(shared, header, p1, p2, sessions, scratch);
        chunk.commit_all();
    }
}

fn handle(
    shared: &Shared,
    header: Header,
    p1: &[u8],
    p2: &[u8],
    sessions: &mut HashMap<u32, Entry>,
    scratch: &mut Vec<u8>,
) {
    let id = header.id;
    let now = header.now;
    let joined = |scratch: &mut Vec<u8>| {
        scratch.clear();
        scratch.extend_from_slice(p1);
        scratch.extend_from_slice(p2);
    };
    match header.kind {
        Kind::Open => {
            let mut opening = shared.opening.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = opening.iter().position(|(k, _)| *k == id) {
                let (_, entry) = opening.swap_remove(i);
                sessions.insert(id, entry);
            }
        }
        Kind::Flush => {
            joined(scratch);
            let ticket = u64::from_le_bytes(scratch.as_slice().try_into().unwrap_or([0; 8]));
            for e in sessions.values_mut() {
                e.flush();
            }
            let mut flushed = shared.flushed.lock().unwrap_or_else(|p| p.into_inner());
            *flushed = (*flushed).max(ticket);
            shared.flushed_changed.notify_all();
        }
        Kind::Close => {
            if let Some(mut e) = sessions.remove(&id) {
                e.flush();
            }
        }
        kind => {
            let Some(e) = sessions.get_mut(&id) else {
                return;
            };
            match kind {
                Kind::Incoming | Kind::Outgoing => {
                    let way = if kind == Kind::Incoming {
                        Direction::Incoming
                    } else {
                        Direction::Outgoing
                    };
                    if p2.is_empty() {
                        e.bytes(p1, now, way);
                    } else {
                        // The record wrapped round the ring's end: joined in the scratch
                        // (sized at the start), so that the session's partial-message
                        // buffer does not grow for a split the reactor never made.
                        joined(scratch);
                        e.bytes(scratch, now, way);
                    }
                }
                Kind::Event => {
                    joined(scratch);
                    e.event(scratch, now);
                }
                Kind::LeftOut => e.report_left_out(now, p1.first().or(p2.first()) == Some(&1)),
                Kind::MaxMessageSize => {
                    joined(scratch);
                    let max = u64::from_le_bytes(scratch.as_slice().try_into().unwrap_or([0; 8]));
                    e.framer = Framer::new(usize::try_from(max).unwrap_or(usize::MAX));
                }
                Kind::Open | Kind::Flush | Kind::Close => {}
            }
        }
    }
}

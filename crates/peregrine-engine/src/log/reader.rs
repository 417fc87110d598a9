//! The ring's one reader: it takes the records in order and hands each to its
//! session's [`Entry`]. The logging thread runs it; so does a reactor that
//! spins, in its idle turns ([`LogWriter::help`](super::LogWriter::help)), a
//! bounded step at a time, so that on a machine whose cores all spin the
//! logging thread need not preempt the reactor to keep up. One lock around the
//! reader decides who reads; the reactor only ever tries it.

use std::collections::HashMap;

use super::ring::{Header, Kind, Shared};
use super::writer::{Direction, Entry};
use crate::driver::Nanos;

/// Past this many bytes in the files' buffers a helping reactor hands them to
/// the operating system (one `write` of about 2 µs), whatever their age.
pub(super) const FLUSH_BYTES: usize = 16 * 1024;

/// A helping reactor hands the files' buffers over once their oldest line is
/// this old: the delay of a line under a spinning engine.
pub(super) const FLUSH_AFTER: Nanos = 1_000_000;

/// What the reader keeps besides the ring.
pub(super) struct Reader {
    consumer: rtrb::Consumer<u8>,
    /// Holds any one record's payload (sized at the start): a record that
    /// wrapped round the ring's end is joined here, without allocating.
    scratch: Vec<u8>,
    logs: Logs,
}

/// The sessions' logs and what their file buffers hold.
struct Logs {
    sessions: HashMap<u32, Entry>,
    /// Sessions with lines in their files' buffers, each once.
    dirty: Vec<u32>,
    /// Payload bytes handled since `dirty` was last empty (about what the
    /// buffers hold).
    unflushed: usize,
    /// The reactor's time of the oldest of them.
    unflushed_since: Nanos,
}

impl Reader {
    /// A reader of `consumer`, whose records carry at most `max_payload` bytes.
    pub fn new(consumer: rtrb::Consumer<u8>, max_payload: usize) -> Reader {
        Reader {
            consumer,
            scratch: Vec::with_capacity(max_payload),
            logs: Logs {
                sessions: HashMap::new(),
                dirty: Vec::new(),
                unflushed: 0,
                unflushed_since: 0,
            },
        }
    }

    /// Whether the ring holds nothing.
    pub fn is_empty(&self) -> bool {
        self.consumer.is_empty()
    }

    /// Handles whole records in order until `budget` payload bytes are
    /// handled (at least one record) or none is left; whether it handled any.
    pub fn drain(&mut self, shared: &Shared, budget: usize) -> bool {
        let mut handled = 0usize;
        let mut any = false;
        while handled < budget {
            let Some(h) = self.peek_header() else {
                break;
            };
            let Some(header) = Header::decode(&h) else {
                // Only `ring.rs` writes the ring, so this is a bug: say it, and skip
                // what the ring holds rather than stop logging.
                tracing::error!(
                    "the log ring holds a record of unknown kind {}: skipped",
                    h[0]
                );
                let slots = self.consumer.slots();
                if let Ok(all) = self.consumer.read_chunk(slots) {
                    all.commit_all();
                }
                return true;
            };
            // The payload follows the header's push; wait for it if it is not all here.
            let Ok(chunk) = self.consumer.read_chunk(Header::LEN + header.len) else {
                break;
            };
            any = true;
            handled += header.len.max(1);
            let (a, b) = chunk.as_slices();
            let (p1, p2) = if a.len() >= Header::LEN {
                (&a[Header::LEN..], b)
            } else {
                (&b[Header::LEN - a.len()..], &[][..])
            };
            self.logs.handle(shared, header, p1, p2, &mut self.scratch);
            chunk.commit_all();
        }
        any
    }

    /// Whether the ring holds `bytes` or more, or a record handed over `age`
    /// or longer before `now`.
    pub fn batch_ready(&mut self, now: Nanos, bytes: usize, age: Nanos) -> bool {
        let held = self.consumer.slots();
        if held >= bytes {
            return true;
        }
        let Some(h) = self.peek_header() else {
            return false;
        };
        Header::decode(&h).map_or(true, |h| now < h.now || now - h.now >= age)
    }

    /// The next record's header bytes, left in the ring (`None`: not all there yet).
    fn peek_header(&mut self) -> Option<[u8; Header::LEN]> {
        let chunk = self.consumer.read_chunk(Header::LEN).ok()?;
        let mut h = [0u8; Header::LEN];
        let (a, b) = chunk.as_slices();
        h[..a.len()].copy_from_slice(a);
        h[a.len()..].copy_from_slice(b);
        Some(h)
    }

    /// Whether a helping reactor should hand the files' buffers over at `now`:
    /// [`FLUSH_BYTES`] wait, or the oldest line waited [`FLUSH_AFTER`] (or the
    /// clock went back).
    pub fn flush_due(&self, now: Nanos) -> bool {
        let logs = &self.logs;
        !logs.dirty.is_empty()
            && (logs.unflushed >= FLUSH_BYTES
                || now < logs.unflushed_since
                || now - logs.unflushed_since >= FLUSH_AFTER)
    }

    /// Hands the buffers of at most `max` sessions to the operating system.
    pub fn flush(&mut self, max: usize) {
        self.logs.flush(max);
    }
}

impl Logs {
    fn handle(&mut self, shared: &Shared, h: Header, p1: &[u8], p2: &[u8], scratch: &mut Vec<u8>) {
        let joined = |scratch: &mut Vec<u8>| {
            scratch.clear();
            scratch.extend_from_slice(p1);
            scratch.extend_from_slice(p2);
        };
        let kind = match h.kind {
            Kind::Open => {
                let mut opening = shared.opening.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(i) = opening.iter().position(|(k, _)| *k == h.id) {
                    let (_, entry) = opening.swap_remove(i);
                    self.sessions.insert(h.id, entry);
                }
                return;
            }
            Kind::Flush => {
                joined(scratch);
                let ticket = u64::from_le_bytes(scratch.as_slice().try_into().unwrap_or([0; 8]));
                self.flush(usize::MAX);
                let mut flushed = shared.flushed.lock().unwrap_or_else(|p| p.into_inner());
                *flushed = (*flushed).max(ticket);
                shared.flushed_changed.notify_all();
                return;
            }
            Kind::Close => {
                if let Some(mut e) = self.sessions.remove(&h.id) {
                    e.flush();
                }
                return;
            }
            kind => kind,
        };
        let Some(e) = self.sessions.get_mut(&h.id) else {
            return;
        };
        let was_dirty = e.dirty();
        match kind {
            Kind::Incoming | Kind::Outgoing => {
                let way = if kind == Kind::Incoming {
                    Direction::Incoming
                } else {
                    Direction::Outgoing
                };
                if p2.is_empty() {
                    e.bytes(p1, h.now, way);
                } else {
                    // The record wrapped round the ring's end: joined, so that the
                    // session's partial-message buffer does not grow for a split
                    // the reactor never made.
                    joined(scratch);
                    e.bytes(scratch, h.now, way);
                }
            }
            Kind::Event => {
                joined(scratch);
                e.event(scratch, h.now);
            }
            Kind::LeftOut => e.report_left_out(h.now, p1.first().or(p2.first()) == Some(&1)),
            Kind::MaxMessageSize => {
                joined(scratch);
                let max = u64::from_le_bytes(scratch.as_slice().try_into().unwrap_or([0; 8]));
                e.set_max_message_size(usize::try_from(max).unwrap_or(usize::MAX));
            }
            Kind::Open | Kind::Flush | Kind::Close => {}
        }
        if e.dirty() && !was_dirty {
            if self.dirty.is_empty() {
                self.unflushed_since = h.now;
            }
            self.dirty.push(h.id);
        }
        self.unflushed += h.len;
    }

    fn flush(&mut self, max: usize) {
        for _ in 0..max {
            let Some(id) = self.dirty.pop() else {
                self.unflushed = 0;
                return;
            };
            // A session closed since was flushed then.
            if let Some(e) = self.sessions.get_mut(&id) {
                e.flush();
            }
        }
        if self.dirty.is_empty() {
            self.unflushed = 0;
        }
    }
}

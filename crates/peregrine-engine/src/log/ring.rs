//! The hand-over between the reactor and the logging thread: records in a
//! bounded SPSC byte ring ([`rtrb`]), each a fixed [`Header`] and its payload
//! (the raw bytes of a read or a write, an event's text).
//!
//! The producer side is behind one lock: every [`SessionLog`](super::SessionLog)
//! of an engine shares it, and they are all used from the engine's one reactor
//! thread, so the lock is never contended (about 20 ns). The ring holds
//! [`RING_BYTES`]; when it is full the reactor waits for the logging thread
//! (lines are never dropped: a message log is what firms keep for their
//! regulators), and [`LogStats::ring_full_waits`] counts how often.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::Thread;
use std::time::Duration;

use super::reader::Reader;
use crate::driver::Nanos;

/// Bytes the ring between the reactor and the logging thread holds by
/// default: what a `kill -9` can lose of the logs, with each log file's write
/// buffer (64 KiB).
pub const RING_BYTES: usize = 1 << 20;

/// The smallest ring a [`LogWriter`](super::LogWriter) makes.
pub const MIN_RING_BYTES: usize = 4096;

/// The largest payload of one record in a ring of `capacity` bytes.
const fn max_payload(capacity: usize) -> usize {
    capacity / 4
}

/// What a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    /// A session's log is opened: its files wait in [`Shared::opening`].
    Open = 1,
    /// Bytes received (any chunking).
    Incoming = 2,
    /// Bytes sent (any chunking).
    Outgoing = 3,
    /// An event line's text.
    Event = 4,
    /// Say how many garbled lines were left out (payload: 1 = at once).
    LeftOut = 5,
    /// The session's `MaxMessageSize` (payload: u64).
    MaxMessageSize = 6,
    /// The session's log is closed.
    Close = 7,
    /// Write everything before this record (payload: the ticket, u64).
    Flush = 8,
}

impl Kind {
    pub(super) fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Open,
            2 => Kind::Incoming,
            3 => Kind::Outgoing,
            4 => Kind::Event,
            5 => Kind::LeftOut,
            6 => Kind::MaxMessageSize,
            7 => Kind::Close,
            8 => Kind::Flush,
            _ => return None,
        })
    }
}

/// A record's fixed part: kind (1 byte), session id (4), time (8), payload
/// length (4), little-endian.
#[derive(Debug, Clone, Copy)]
pub(super) struct Header {
    pub kind: Kind,
    pub id: u32,
    pub now: Nanos,
    pub len: usize,
}

impl Header {
    pub const LEN: usize = 17;

    fn encode(&self) -> [u8; Self::LEN] {
        let mut h = [0u8; Self::LEN];
        h[0] = self.kind as u8;
        h[1..5].copy_from_slice(&self.id.to_le_bytes());
        h[5..13].copy_from_slice(&self.now.to_le_bytes());
        h[13..17].copy_from_slice(&(self.len as u32).to_le_bytes());
        h
    }

    /// `None`: not a record this module wrote (cannot happen; checked anyway).
    pub fn decode(h: &[u8; Self::LEN]) -> Option<Header> {
        Some(Header {
            kind: Kind::from_u8(h[0])?,
            id: u32::from_le_bytes(h[1..5].try_into().ok()?),
            now: Nanos::from_le_bytes(h[5..13].try_into().ok()?),
            len: u32::from_le_bytes(h[13..17].try_into().ok()?) as usize,
        })
    }
}

/// How the hand-over has gone, for the engine's metrics.
#[derive(Debug, Default)]
pub struct LogStats {
    /// Times the reactor found the ring full and waited for the logging thread.
    pub ring_full_waits: AtomicU64,
    /// Records handed over.
    pub records: AtomicU64,
}

/// What the reactor and the logging thread share.
pub(super) struct Shared {
    producer: Mutex<rtrb::Producer<u8>>,
    capacity: usize,
    /// Files opened on the reactor thread (so that an error reaches the caller),
    /// taken by the logging thread at their [`Kind::Open`] record.
    pub opening: Mutex<Vec<(u32, super::writer::Entry)>>,
    next_id: AtomicU64,
    /// The logging thread, to wake it; set once it runs.
    pub thread: Mutex<Option<Thread>>,
    /// The logging thread is parked (the producer wakes it only then).
    pub sleeping: AtomicBool,
    /// Data records handed over, and the count the last flush covered.
    pushed: AtomicU64,
    pub flushed: Mutex<u64>,
    pub flushed_changed: Condvar,
    pub stats: LogStats,
    /// The ring's reader: the logging thread's, lent to a helping reactor.
    pub reader: Mutex<Reader>,
    /// The reactor's time when it last helped read the ring (0: never).
    helped_at: AtomicI64,
}

impl Shared {
    /// A ring of `bytes` (at least [`MIN_RING_BYTES`]).
    pub fn new(bytes: usize) -> Arc<Shared> {
        let capacity = bytes.max(MIN_RING_BYTES);
        let (producer, consumer) = rtrb::RingBuffer::new(capacity);
        Arc::new(Shared {
            producer: Mutex::new(producer),
            capacity,
            opening: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
            thread: Mutex::new(None),
            sleeping: AtomicBool::new(false),
            pushed: AtomicU64::new(0),
            flushed: Mutex::new(0),
            flushed_changed: Condvar::new(),
            stats: LogStats::default(),
            reader: Mutex::new(Reader::new(consumer, max_payload(capacity))),
            helped_at: AtomicI64::new(0),
        })
    }

    /// The reader, waiting for a helping reactor's step to end.
    pub fn reader(&self) -> MutexGuard<'_, Reader> {
        // A panic while reading leaves the ring consistent (records are committed whole).
        self.reader.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The reactor is helping at `now` (written at most once a millisecond).
    pub fn helped(&self, now: Nanos) {
        if now - self.helped_at.load(Ordering::Relaxed) >= 1_000_000 {
            self.helped_at.store(now, Ordering::Relaxed);
        }
    }

    /// Whether the reactor helped within `within` of `now`.
    pub fn helped_recently(&self, now: Nanos, within: Duration) -> bool {
        let at = self.helped_at.load(Ordering::Relaxed);
        at != 0 && now.saturating_sub(at) < within.as_nanos() as Nanos
    }

    /// A session id never used before in this ring (4 billion of them).
    pub fn next_id(&self) -> u32 {
        self.next_id.fetch_add(1, Ordering::Relaxed) as u32
    }

    fn producer(&self) -> MutexGuard<'_, rtrb::Producer<u8>> {
        // A panic while pushing leaves the ring consistent (rtrb commits whole slices).
        self.producer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The largest payload of one record, a quarter of the ring: bigger reads
    /// and writes are handed over in pieces (the logging thread's framer joins
    /// them), bigger event texts cut.
    pub fn max_payload(&self) -> usize {
        max_payload(self.capacity)
    }

    /// Hands one record over: its payload in pieces of at most
    /// [`max_payload`](Self::max_payload) when `split`, else cut to that.
    /// Waits while the ring is full.
    pub fn push(&self, kind: Kind, id: u32, now: Nanos, payload: &[u8], split: bool) {
        let mut producer = self.producer();
        let mut rest = payload;
        loop {
            let n = rest.len().min(self.max_payload());
            let (piece, more) = rest.split_at(n);
            self.push_one(
                &mut producer,
                Header {
                    kind,
                    id,
                    now,
                    len: n,
                },
                piece,
            );
            rest = more;
            if rest.is_empty() || !split {
                break;
            }
        }
        if matches!(
            kind,
            Kind::Incoming | Kind::Outgoing | Kind::Event | Kind::LeftOut
        ) {
            self.pushed.fetch_add(1, Ordering::Relaxed);
        }
        // Past half full: wake the logging thread now rather than at its next poll.
        if producer.slots() < self.capacity / 2 {
            self.wake();
        }
    }

    fn push_one(&self, producer: &mut rtrb::Producer<u8>, header: Header, payload: &[u8]) {
        let need = Header::LEN + payload.len();
        if producer.slots() < need {
            self.stats.ring_full_waits.fetch_add(1, Ordering::Relaxed);
            while producer.slots() < need {
                self.wake();
                std::thread::sleep(Duration::from_micros(50));
            }
        }
        // Both fit (the lock keeps other producers out); the consumer reads a
        // record only once its payload is there too.
        let _ = producer.push_entire_slice(&header.encode());
        let _ = producer.push_entire_slice(payload);
        self.stats.records.fetch_add(1, Ordering::Relaxed);
    }

    /// Wakes the logging thread if it is parked (a system call: only then).
    pub fn wake(&self) {
        if self.sleeping.swap(false, Ordering::AcqRel) {
            self.unpark();
        }
    }

    fn unpark(&self) {
        if let Some(t) = &*self.thread.lock().unwrap_or_else(|p| p.into_inner()) {
            t.unpark();
        }
    }

    /// Whether data records were handed over since the last flush.
    pub fn unflushed(&self) -> bool {
        let pushed = self.pushed.load(Ordering::Relaxed);
        *self.flushed.lock().unwrap_or_else(|p| p.into_inner()) < pushed
    }

    /// Returns once the logging thread has written (to the operating system)
    /// every record handed over before this call. Gives up after `limit` (the
    /// logging thread gone or stuck on a disk), saying so in `tracing`.
    pub fn flush(&self, limit: Duration) {
        let ticket = self.pushed.load(Ordering::Relaxed);
        self.push(Kind::Flush, 0, 0, &ticket.to_le_bytes(), false);
        self.unpark();
        let flushed = self.flushed.lock().unwrap_or_else(|p| p.into_inner());
        let (flushed, timeout) = self
            .flushed_changed
            .wait_timeout_while(flushed, limit, |f| *f < ticket)
            .unwrap_or_else(|p| p.into_inner());
        if timeout.timed_out() && *flushed < ticket {
            tracing::warn!("the logging thread did not write the logs within {limit:?}");
        }
    }
}

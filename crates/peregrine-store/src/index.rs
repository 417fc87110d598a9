//! A sequence-number index shared by the stores: entries sorted by sequence
//! number, in room reserved up front ([`Locations`]).
//!
//! FIX sessions store outgoing messages in increasing sequence order, so the
//! common insert is a push at the end (amortised O(1), no allocation once the
//! vector has capacity). A repeated sequence number replaces the earlier entry
//! (the newest message wins, as in QuickFIX); an out-of-order one is inserted
//! in place, which is O(n) but only happens after an operator lowers the
//! sequence number without a reset.

/// Where one stored message lives: at `offset` (in the memory arena or the
/// journal file), `len` bytes long. Plain integers: any bytes are a valid
/// `Location`, which the mapping that holds them relies on (`mapped.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Location {
    pub(crate) seq: u64,
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

use crate::mapped::Locations;

/// Writes `blank` over `v`'s spare capacity and takes it off again, so that the
/// operating system backs that room now (a write faults each page in) rather than while
/// entries arrive; what `v` holds is kept.
pub(crate) fn touch_spare_capacity<T: Clone>(v: &mut Vec<T>, blank: T) {
    let len = v.len();
    v.resize(v.capacity(), blank);
    v.truncate(len);
}

/// Room kept ready past the end of a growing `Vec` by a store's `settle`, so
/// that the pushes of the next commits neither reallocate nor fault a page in
/// on the way of the messages that wait for them: a quarter of what the
/// vector holds (an idle session's stays a few bytes), at most `max`
/// elements. A page fault costs 1–3 µs on these VMs, and a store growing one
/// 24-byte index entry per message faults once every 170 messages: about one
/// round trip in a hundred of the §4 benchmark, its whole p99 (BENCHMARKS.md).
#[derive(Debug, Default)]
pub(crate) struct RoomAhead {
    /// Elements up to here have been written once (their pages are backed).
    touched: usize,
}

impl RoomAhead {
    /// Grows `v` (amortised doubling) if the room is short, and writes
    /// `blank` over the room once it is half used, taking it off again:
    /// amortised, two element writes per push.
    pub(crate) fn keep<T: Clone>(&mut self, v: &mut Vec<T>, max: usize, blank: T) {
        let len = v.len();
        let ahead = (len / 4).min(max);
        if len + ahead > v.capacity() {
            v.reserve(ahead);
            // The vector may have moved to memory not written yet.
            self.touched = len;
        }
        if self.touched < len + ahead / 2 {
            v.resize(len + ahead, blank);
            v.truncate(len);
            self.touched = len + ahead;
        }
    }

    /// The whole capacity of `v` was written (a prefault).
    pub(crate) fn touched_all<T>(&mut self, v: &Vec<T>) {
        self.touched = v.capacity();
    }
}

/// Growth since the last `settle` (bytes of journal or arena) below which a
/// store prepares room ahead: commits of a few messages, whose latency the
/// room is for. A larger batch amortises its own growth.
pub(crate) const SMALL_GROWTH: u64 = 4096;

/// Index entries kept ready ahead at most (12 KiB: the next pages, what a
/// small commit needs; more would only crowd the cache of a thread serving
/// many sessions).
const INDEX_AHEAD_MAX: usize = 512;

const BLANK: Location = Location {
    seq: 0,
    offset: 0,
    len: 0,
};

/// The entries live in [`Locations`]: room reserved up front in a memory
/// mapping, so a push never allocates (`mapped.rs`).
#[derive(Debug, Default)]
pub(crate) struct Index {
    entries: Locations,
    /// Entries up to here have been written once (their pages are backed).
    touched: usize,
    /// Room asked for by `with_capacity`/`reserve`: what `prefault` backs.
    wanted: usize,
}

impl Index {
    pub(crate) fn with_capacity(n: usize) -> Self {
        Index {
            entries: Locations::with_room(n),
            touched: 0,
            wanted: n,
        }
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        self.wanted = self.wanted.max(self.entries.len() + additional);
    }

    /// Writes the room asked for once (see `MemoryStore::prefault`).
    pub(crate) fn prefault(&mut self) {
        let ahead = self.wanted.saturating_sub(self.entries.len());
        self.entries.touch_ahead(ahead, BLANK);
        self.touched = self.touched.max(self.entries.len() + ahead);
    }

    /// Keeps the next entries' room backed: a quarter of what the index
    /// holds, at most `INDEX_AHEAD_MAX`, written once half of it is used (as
    /// [`RoomAhead`] does for a `Vec`); the mapping needs no growing.
    pub(crate) fn keep_room_ahead(&mut self) {
        let len = self.entries.len();
        let ahead = (len / 4).min(INDEX_AHEAD_MAX);
        if len + ahead > self.entries.capacity() {
            self.entries.reserve(ahead);
            self.touched = len;
        }
        if self.touched < len + ahead / 2 {
            self.entries.touch_ahead(ahead, BLANK);
            self.touched = len + ahead;
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.touched = 0;
    }

    /// Records `entry`, replacing any earlier entry with the same sequence
    /// number.
    pub(crate) fn insert(&mut self, entry: Location) {
        match self.entries.as_slice().last() {
            None => self.entries.push(entry),
            Some(last) if entry.seq > last.seq => self.entries.push(entry),
            Some(_) => match self
                .entries
                .as_slice()
                .binary_search_by_key(&entry.seq, |e| e.seq)
            {
                Ok(i) => self.entries.as_mut_slice()[i] = entry,
                Err(i) => self.entries.insert(i, entry),
            },
        }
    }

    /// Every entry, in sequence order.
    pub(crate) fn all(&self) -> &[Location] {
        self.entries.as_slice()
    }

    /// The entries with `begin <= seq <= end`, in sequence order.
    pub(crate) fn range(&self, begin: u64, end: u64) -> &[Location] {
        if begin > end {
            return &[];
        }
        let entries = self.entries.as_slice();
        let lo = entries.partition_point(|e| e.seq < begin);
        let hi = entries.partition_point(|e| e.seq <= end);
        if lo >= hi {
            &[]
        } else {
            &entries[lo..hi]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(seq: u64, offset: u64) -> Location {
        Location {
            seq,
            offset,
            len: 1,
        }
    }

    #[test]
    fn push_replace_and_insert() {
        let mut ix = Index::default();
        ix.insert(e(2, 0));
        ix.insert(e(4, 1));
        ix.insert(e(3, 2)); // out of order
        ix.insert(e(4, 3)); // replace
        ix.insert(e(1, 4)); // before first
        let seqs: Vec<_> = ix.range(0, u64::MAX).iter().map(|x| x.seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4]);
        assert_eq!(ix.range(4, 4)[0].offset, 3);
        assert_eq!(ix.len(), 4);
    }

    #[test]
    fn room_ahead_grows_and_writes_past_the_end() {
        let mut v: Vec<u32> = Vec::new();
        let mut ahead = RoomAhead::default();
        for i in 0..10_000u32 {
            v.push(i);
            ahead.keep(&mut v, 1000, 0);
            let want = (v.len() / 4).min(1000);
            assert!(v.capacity() >= v.len() + want, "room at {}", v.len());
            assert!(
                ahead.touched >= v.len() + want / 2,
                "written at {}",
                v.len()
            );
        }
        assert_eq!(v, (0..10_000).collect::<Vec<_>>(), "what it holds is kept");
    }

    #[test]
    fn ranges() {
        let mut ix = Index::default();
        for s in [1, 2, 3, 7, 8] {
            ix.insert(e(s, s));
        }
        let r = |b, en| ix.range(b, en).iter().map(|x| x.seq).collect::<Vec<_>>();
        assert_eq!(r(2, 7), [2, 3, 7]);
        assert_eq!(r(4, 6), Vec::<u64>::new());
        assert_eq!(r(8, 2), Vec::<u64>::new());
        assert_eq!(r(0, 1), [1]);
        assert_eq!(r(8, u64::MAX), [8]);
        assert_eq!(r(9, u64::MAX), Vec::<u64>::new());
    }
}

//! [`MemoryStore`]: everything since the last reset, held in memory.

use crate::index::{Index, Location, RoomAhead};
use crate::{check_len, check_seq, MessageStore, StoreError};

/// Arena bytes kept ready ahead at most ([`RoomAhead`]).
const ARENA_AHEAD_MAX: usize = 16 * 1024;

/// A [`MessageStore`] that keeps its state in memory only.
///
/// Messages are appended to one arena (`Vec<u8>`) and located through a
/// sorted index of `(seq, offset, len)` entries, so storing a message copies
/// its bytes once and allocates nothing unless the arena or the index has to
/// grow. Growth is amortised (capacity doubles); call
/// [`reserve`](MemoryStore::reserve) or build with
/// [`with_capacity`](MemoryStore::with_capacity) to make even that happen up
/// front. Growth is the only allocation on the write path.
///
/// Memory bound: like QuickFIX's `MemoryStore`, this store keeps every
/// message stored since the last [`reset`](MessageStore::reset) (a stored
/// message costs its length plus 24 bytes of index). A message stored again
/// under the same sequence number replaces the earlier one for reads, but the
/// earlier bytes stay in the arena until the next reset. Sessions that run for
/// long without a reset should use a [`FileStore`](crate::FileStore).
///
/// Nothing survives the process: [`refresh`](MessageStore::refresh) and
/// [`sync`](MessageStore::sync) do nothing.
///
/// ```
/// use peregrine_store::{MemoryStore, MessageStore, SEQ_END};
///
/// let mut store = MemoryStore::with_capacity(0, 16, 4096);
/// store.store(1, b"8=FIX.4.4|35=D|34=1|...")?;
/// store.store(2, b"8=FIX.4.4|35=D|34=2|...")?;
/// store.store(2, b"8=FIX.4.4|35=F|34=2|...")?; // replaces the first 2 for reads
/// assert_eq!(store.len(), 2);
/// assert_eq!(store.arena_bytes(), 3 * 23); // but its bytes stay until a reset
///
/// let mut resent = Vec::new();
/// store.for_each_in_range(1, SEQ_END, &mut |seq, msg| resent.push((seq, msg[13])))?;
/// assert_eq!(resent, [(1, b'D'), (2, b'F')]);
///
/// store.reset(1)?;
/// assert!(store.is_empty());
/// assert_eq!((store.next_sender_seq(), store.creation_time()), (1, 1));
/// # Ok::<(), peregrine_store::StoreError>(())
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    arena: Vec<u8>,
    arena_ahead: RoomAhead,
    /// The arena's length at the last [`settle`](MessageStore::settle).
    settled_len: usize,
    index: Index,
    next_sender: u64,
    next_target: u64,
    creation_time: i64,
}

impl MemoryStore {
    /// An empty store created at `creation_time` (nanoseconds since the Unix
    /// epoch, UTC), with both next sequence numbers at 1.
    ///
    /// ```
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// let t0 = 1_700_000_000_000_000_000;
    /// let store = MemoryStore::new(t0);
    /// assert_eq!(store.creation_time(), t0);
    /// assert_eq!((store.next_sender_seq(), store.next_target_seq()), (1, 1));
    /// assert!(store.is_empty());
    /// ```
    pub fn new(creation_time: i64) -> Self {
        Self::with_capacity(creation_time, 0, 0)
    }

    /// Like [`new`](Self::new), with room for `messages` messages totalling
    /// `bytes` bytes before any further allocation.
    ///
    /// ```
    /// use peregrine_alloc::{allocations_in, CountingAllocator};
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// #[global_allocator]
    /// static ALLOCATOR: CountingAllocator = CountingAllocator;
    ///
    /// let mut store = MemoryStore::with_capacity(0, 1_000, 1_000 * 64);
    /// let msg = [b'x'; 64];
    /// let (stored, allocations) =
    ///     allocations_in(|| (1..=1_000).try_for_each(|seq| store.store(seq, &msg)));
    /// stored?;
    /// assert_eq!(allocations, 0); // all within the capacity
    /// assert_eq!(store.len(), 1_000);
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn with_capacity(creation_time: i64, messages: usize, bytes: usize) -> Self {
        MemoryStore {
            arena: Vec::with_capacity(bytes),
            arena_ahead: RoomAhead::default(),
            settled_len: 0,
            index: Index::with_capacity(messages),
            next_sender: 1,
            next_target: 1,
            creation_time,
        }
    }

    /// Makes room for `messages` more messages totalling `bytes` more bytes.
    ///
    /// ```
    /// use peregrine_alloc::{allocations_in, CountingAllocator};
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// #[global_allocator]
    /// static ALLOCATOR: CountingAllocator = CountingAllocator;
    ///
    /// let mut store = MemoryStore::new(0);
    /// store.store(1, b"logon")?;
    /// // Before a burst of 100 messages of up to 200 bytes:
    /// store.reserve(100, 100 * 200);
    /// let order = [b'x'; 200];
    /// let (stored, allocations) =
    ///     allocations_in(|| (2..=101).try_for_each(|seq| store.store(seq, &order)));
    /// stored?;
    /// assert_eq!(allocations, 0);
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn reserve(&mut self, messages: usize, bytes: usize) {
        self.index.reserve(messages);
        self.arena.reserve(bytes);
    }

    /// Writes the whole reserved room once, so that the operating system backs it
    /// with memory now rather than one page fault per 4 KiB while messages arrive
    /// (what [`with_capacity`](Self::with_capacity) and [`reserve`](Self::reserve)
    /// only ask for). Stored messages are kept. For a session sized up front whose
    /// latency tail matters: the faults cost the §4 round trip of BENCHMARKS.md
    /// 2.5–3 µs at its p99; this costs about a millisecond per 10 MB, once, here.
    ///
    /// ```
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// let mut store = MemoryStore::with_capacity(0, 100_000, 100_000 * 256);
    /// store.store(1, b"logon")?;
    /// store.prefault();
    /// assert_eq!((store.len(), store.arena_bytes()), (1, 5));
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn prefault(&mut self) {
        self.index.prefault();
        crate::index::touch_spare_capacity(&mut self.arena, 0);
        self.arena_ahead.touched_all(&self.arena);
    }

    /// Number of distinct sequence numbers stored.
    ///
    /// ```
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// let mut store = MemoryStore::new(0);
    /// store.store(1, b"order")?;
    /// store.store(3, b"cancel")?; // gaps are allowed
    /// store.store(3, b"cancel, sent again")?; // replaces 3 for reads
    /// assert_eq!(store.len(), 2);
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no message is stored.
    ///
    /// ```
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// let mut store = MemoryStore::new(0);
    /// assert!(store.is_empty());
    /// store.store(1, b"order")?;
    /// assert!(!store.is_empty());
    /// store.reset(1)?; // a sequence reset forgets the messages
    /// assert!(store.is_empty());
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.index.len() == 0
    }

    /// Bytes held in the arena (including bytes of replaced messages).
    ///
    /// ```
    /// use peregrine_store::{MemoryStore, MessageStore};
    ///
    /// let mut store = MemoryStore::new(0);
    /// store.store(1, b"12345")?;
    /// store.store(1, b"123")?; // replaced: the first bytes stay...
    /// assert_eq!((store.len(), store.arena_bytes()), (1, 8));
    /// store.reset(1)?; // ...until a reset
    /// assert_eq!(store.arena_bytes(), 0);
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn arena_bytes(&self) -> usize {
        self.arena.len()
    }
}

impl MessageStore for MemoryStore {
    crate::seq_fields!();

    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        let len = check_len(msg.len())?;
        let offset = self.arena.len() as u64;
        self.arena.extend_from_slice(msg);
        self.index.insert(Location { seq, offset, len });
        Ok(())
    }

    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        for e in self.index.range(begin, end) {
            let start = e.offset as usize;
            visitor(e.seq, &self.arena[start..start + e.len as usize]);
        }
        Ok(())
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        self.arena.clear();
        self.index.clear();
        self.next_sender = 1;
        self.next_target = 1;
        self.creation_time = creation_time;
        Ok(())
    }

    fn refresh(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Keeps room ready past the arena's and the index's ends (a quarter of
    /// what each holds, at most 16 KiB and 512 entries), grown and written
    /// once here, so that storing the next messages neither reallocates nor
    /// faults a page in on their way; after commits that stored less than
    /// 4 KiB only (a larger batch amortises its own growth).
    fn settle(&mut self) -> Result<(), StoreError> {
        // Only after small commits, as the file store (a large batch
        // amortises its own growth).
        let grew = self.arena.len().saturating_sub(self.settled_len);
        self.settled_len = self.arena.len();
        if (grew as u64) < crate::index::SMALL_GROWTH {
            self.arena_ahead.keep(&mut self.arena, ARENA_AHEAD_MAX, 0);
            self.index.keep_room_ahead();
        }
        Ok(())
    }
}

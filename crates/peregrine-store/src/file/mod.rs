//! [`FileStore`]: a durable store in one directory per session.

mod config;
mod dir;
mod load;
mod message_store;
#[cfg(test)]
mod read_buffer_tests;
mod stats;
mod write;

use std::fmt;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::format::{SeqState, COMMIT_LEN, JOURNAL_HEADER_LEN, RECORD_HEADER_LEN, SLOT_VERSION};
use crate::index::Index;
use crate::recover::Recovery;
use crate::{StoreError, StoreObserver};

// For the documentation's links only.
#[cfg(doc)]
use crate::{
    recover::{Loss, OnDamage},
    MessageStore,
};

pub use config::{FileStoreConfig, FsyncPolicy};
pub use dir::{sanitize_session_id, JOURNAL_FILE, SEQNUMS_FILE};
pub use stats::StoreStats;

use dir::{open_rw, sync_dir};

/// A durable [`MessageStore`]: an append-only, checksummed journal of the
/// outgoing messages and of the sequence numbers, in one directory per
/// session.
///
/// * **Transactions.** `store`, `set_*` and `incr_*` change the store at
///   once for its readers and join the current transaction;
///   [`commit`](MessageStore::commit) appends the transaction's message
///   records and a commit record with the sequence numbers to the journal in
///   one positioned write, then fsyncs as the [`FsyncPolicy`] says. A session
///   commits once per batch of input it handled, before any of the replies
///   leave: the incoming sequence number and the replies sent while handling
///   the message are durable together or not at all. Changes that were not
///   committed when the store is dropped are lost, as in a crash.
/// * **Write path.** Records are encoded into a reusable buffer (written
///   ahead of the commit when they would not fit); the index entry goes into
///   a vector with reserved capacity. Nothing is allocated once the buffers
///   are warm (the index grows amortised past
///   [`FileStoreConfig::index_capacity`]). After each commit a 64-byte
///   witness slot in the `seqnums` file records where the journal ends:
///   written by [`settle`](MessageStore::settle) once the commit's messages
///   have left (a second write, kept off their way), or else by the next
///   commit, a sync or fsync (after the journal's), or a drop.
///   After a small commit (under 4 KiB) `settle` also keeps 64 KiB of zeros
///   written past the journal's end, so that the next commits' writes land
///   on pages that exist instead of growing the file on their way (a drop
///   cuts the space off); a large batch's write amortises that itself.
/// * **Read path.** [`for_each_in_range`](MessageStore::for_each_in_range)
///   looks the range up in the in-memory index and reads exactly those
///   records with positioned reads into a reusable buffer, checking each
///   record's CRC.
/// * **Recovery.** [`open`](FileStore::open) reads the committed transactions
///   back and cuts off an uncommitted tail (what a crash mid-write leaves;
///   zeros written ahead are kept as space).
///   Damage in the middle costs only the damaged records: the scan
///   resynchronises on the next valid record. Damaged or missing
///   acknowledged data (a journal shorter than its witness) is a [`Loss`]:
///   by default the store refuses to open ([`StoreError::Damaged`]); with
///   [`OnDamage::Report`] it opens, says what was lost in
///   [`recovery`](FileStore::recovery), and continues the sequence numbers
///   after the highest one it knew of, so that none is used twice.
///
/// One process at a time may write a session directory (nothing enforces
/// it yet). The file format is described in the crate documentation.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, MessageStore, SEQ_END};
///
/// let base = tempfile::tempdir()?;
/// let open = || FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0);
/// let mut store = open()?;
///
/// // Handling one batch of input: the incoming number and the reply join
/// // one transaction, seen at once by the store's readers...
/// store.set_next_target_seq(2)?;
/// store.store(1, b"execution report")?;
/// store.incr_next_sender_seq()?;
/// assert_eq!((store.next_sender_seq(), store.len()), (2, 1));
/// store.commit()?; // ...and durable together: now the reply may be sent.
///
/// store.store(2, b"never committed")?;
/// store.incr_next_sender_seq()?;
/// drop(store); // the open transaction is lost, as in a crash
///
/// let mut store = open()?;
/// assert_eq!((store.next_sender_seq(), store.next_target_seq()), (2, 2));
/// let mut kept = Vec::new();
/// store.for_each_in_range(1, SEQ_END, &mut |seq, msg| kept.push((seq, msg.to_vec())))?;
/// assert_eq!(kept, [(1, b"execution report".to_vec())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FileStore {
    dir: PathBuf,
    journal_path: PathBuf,
    seqnums_path: PathBuf,
    journal: File,
    seqnums: File,
    config: FileStoreConfig,
    epoch: u64,
    creation_time: i64,
    next_sender: u64,
    next_target: u64,
    /// The sequence numbers of the last commit.
    committed: (u64, u64),
    /// Where the journal ends after the last commit.
    committed_end: u64,
    /// Bytes of the journal handed to the operating system.
    end: u64,
    /// `end` at the last [`settle`](MessageStore::settle).
    settled_end: u64,
    /// The journal file's length: `end`, then zeros written ahead by
    /// [`settle`](MessageStore::settle) (see [`write::RESERVE_AHEAD`]).
    reserved: u64,
    /// Bytes of the current transaction not written yet (they go at `end`).
    pending: Vec<u8>,
    index: Index,
    read_buf: Vec<u8>,
    /// The witness slot last written.
    witness: SeqState,
    /// The last commit is not in the witness yet: [`settle`](MessageStore::settle)
    /// writes it once the commit's messages have left, or the next commit,
    /// sync or fsync does first.
    witness_due: bool,
    journal_dirty: bool,
    seqnums_dirty: bool,
    last_sync: Instant,
    recovery: Recovery,
    stats: StoreStats,
    /// Told how long writes and fsyncs take (the clock is read only then).
    observer: Option<Arc<dyn StoreObserver>>,
}

impl fmt::Debug for FileStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileStore")
            .field("dir", &self.dir)
            .field("config", &self.config)
            .field("next_sender", &self.next_sender)
            .field("next_target", &self.next_target)
            .field("creation_time", &self.creation_time)
            .field("messages", &self.index.len())
            .field("journal_len", &self.journal_len())
            .finish()
    }
}

impl Drop for FileStore {
    /// Writes the last commit's witness if no one settled it and cuts the
    /// zeros written ahead, so that a closed journal ends where its records
    /// do (best effort: a store dropped in an unwinding panic, say, must not
    /// fail again; recovery handles either left as it is).
    fn drop(&mut self) {
        let _ = self.write_witness_if_due();
        // Only zeros: whatever else lies past `end` is not ours to cut.
        if self.reserved > self.end
            && matches!(self.data_end(self.end, self.reserved), Ok(e) if e == self.end)
        {
            let _ = self.journal.set_len(self.end);
        }
    }
}

impl FileStore {
    /// Opens (creating if needed) the store of `session_id` in
    /// `base_dir/<sanitize_session_id(session_id)>/`, recovering from any
    /// crash. `now` (nanoseconds since the Unix epoch, UTC) becomes the
    /// creation time if the store is new; an existing store keeps its own.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when a file cannot be created, read or written;
    /// [`StoreError::Corrupt`] for files that are not a Peregrine store;
    /// [`StoreError::Damaged`] when acknowledged data is damaged or missing
    /// and [`FileStoreConfig::on_damage`] is [`OnDamage::Refuse`].
    ///
    /// # Example
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let t0 = 1_700_000_000_000_000_000;
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:BANK->VENUE", FileStoreConfig::default(), t0)?;
    /// // One directory per session, named after it.
    /// assert!(store.dir().starts_with(base.path()));
    /// store.set_next_target_seq(8)?;
    /// store.commit()?;
    /// drop(store);
    ///
    /// // Opened again later: the store keeps its own creation time and numbers.
    /// let store = FileStore::open(base.path(), "FIX.4.4:BANK->VENUE", FileStoreConfig::default(), t0 + 1)?;
    /// assert_eq!(store.creation_time(), t0);
    /// assert_eq!(store.next_target_seq(), 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(
        base_dir: impl AsRef<Path>,
        session_id: &str,
        config: FileStoreConfig,
        now: i64,
    ) -> Result<FileStore, StoreError> {
        let dir = base_dir.as_ref().join(sanitize_session_id(session_id));
        Self::open_dir(dir, config, now)
    }

    /// Like [`open`](Self::open), with the session directory given directly.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let dir = base.path().join("venue-a"); // made if missing
    /// let mut store = FileStore::open_dir(&dir, FileStoreConfig::default(), 0)?;
    /// assert_eq!(store.dir(), dir);
    /// store.set_next_sender_seq(5)?;
    /// store.commit()?;
    /// drop(store);
    /// assert_eq!(FileStore::open_dir(&dir, FileStoreConfig::default(), 0)?.next_sender_seq(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_dir(
        dir: impl Into<PathBuf>,
        config: FileStoreConfig,
        now: i64,
    ) -> Result<FileStore, StoreError> {
        let dir = dir.into();
        let existed = dir.is_dir();
        fs::create_dir_all(&dir).map_err(|e| StoreError::io("create store directory", &dir, e))?;
        if !existed {
            if let Some(parent) = dir.parent() {
                sync_dir(parent)?;
            }
        }
        let journal_path = dir.join(JOURNAL_FILE);
        let seqnums_path = dir.join(SEQNUMS_FILE);
        let journal = open_rw(&journal_path)?;
        let seqnums = open_rw(&seqnums_path)?;
        let mut store = FileStore {
            dir,
            journal_path,
            seqnums_path,
            journal,
            seqnums,
            config,
            epoch: 1,
            creation_time: now,
            next_sender: 1,
            next_target: 1,
            committed: (1, 1),
            committed_end: JOURNAL_HEADER_LEN,
            end: JOURNAL_HEADER_LEN,
            settled_end: 0,
            reserved: 0,
            pending: Vec::with_capacity(config.write_buffer_capacity),
            index: Index::with_capacity(config.index_capacity),
            read_buf: Vec::new(),
            witness: SeqState {
                version: SLOT_VERSION,
                generation: 0,
                epoch: 0,
                next_sender: 1,
                next_target: 1,
                creation_time: now,
                journal_end: 0,
            },
            witness_due: false,
            journal_dirty: false,
            seqnums_dirty: false,
            last_sync: Instant::now(),
            recovery: Recovery::default(),
            stats: StoreStats::default(),
            observer: None,
        };
        store.load(now)?;
        // The scan's buffer goes: a store holds none until a resend reads (10,000
        // sessions' stores held 64 KiB each, BENCHMARKS.md §5).
        store.read_buf = Vec::new();
        // Opening fsyncs what it writes: the interval starts now.
        store.last_sync = Instant::now();
        Ok(store)
    }

    /// The session directory: the base directory given to
    /// [`open`](Self::open) joined with the sanitised session identifier.
    ///
    /// ```
    /// use peregrine_store::{sanitize_session_id, FileStore, FileStoreConfig};
    ///
    /// let base = tempfile::tempdir()?;
    /// let store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// assert_eq!(store.dir(), base.path().join(sanitize_session_id("FIX.4.4:A->B")));
    /// assert!(store.dir().is_dir());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the journal file ([`JOURNAL_FILE`] in [`dir`](Self::dir)).
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// store.store(1, b"order")?;
    /// store.commit()?;
    /// // The committed journal is on disk, all of it (no zeros ahead yet:
    /// // `settle` writes those).
    /// assert_eq!(std::fs::metadata(store.journal_path())?.len(), store.journal_len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn journal_path(&self) -> &Path {
        &self.journal_path
    }

    /// Path of the sequence-number witness file ([`SEQNUMS_FILE`] in
    /// [`dir`](Self::dir)).
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig};
    ///
    /// let base = tempfile::tempdir()?;
    /// let store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// assert_eq!(store.seqnums_path().parent(), Some(store.dir()));
    /// assert!(store.seqnums_path().is_file());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn seqnums_path(&self) -> &Path {
        &self.seqnums_path
    }

    /// The settings the store was opened with.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy};
    ///
    /// let base = tempfile::tempdir()?;
    /// let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
    /// let store = FileStore::open(base.path(), "FIX.4.4:A->B", config, 0)?;
    /// assert_eq!(store.config().fsync, FsyncPolicy::Never);
    /// // The engine asks the policy how often to call sync_if_due.
    /// # use peregrine_store::MessageStore;
    /// assert_eq!(store.sync_interval(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn config(&self) -> &FileStoreConfig {
        &self.config
    }

    /// What recovery found when the store was opened (see [`Recovery`] for a
    /// store reopened after a crash).
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, Recovery};
    ///
    /// let base = tempfile::tempdir()?;
    /// let store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// // A new store: nothing cut off, nothing lost, nothing rewritten.
    /// assert_eq!(store.recovery(), &Recovery::default());
    /// assert_eq!(store.recovery().lost_messages(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// Commits and fsyncs so far.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", config, 0)?;
    /// for seq in 1..=3 {
    ///     store.store(seq, b"order")?;
    ///     store.commit()?;
    /// }
    /// // Three commits written, none fsynced: `Never` leaves that to `sync`.
    /// assert_eq!((store.stats().commits, store.stats().journal_fsyncs), (3, 0));
    /// store.sync()?;
    /// assert_eq!(store.stats().journal_fsyncs, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stats(&self) -> StoreStats {
        self.stats
    }

    /// Number of distinct sequence numbers stored.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// store.store(1, b"order")?;
    /// store.store(2, b"cancel")?;
    /// store.store(2, b"cancel, sent again")?; // replaces 2 for reads
    /// assert_eq!(store.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no message is stored.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// assert!(store.is_empty());
    /// store.store(1, b"order")?;
    /// assert!(!store.is_empty());
    /// store.reset(1)?; // a sequence reset forgets the messages
    /// assert!(store.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.index.len() == 0
    }

    /// Length of the journal in bytes, the current transaction included.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// let base = tempfile::tempdir()?;
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
    /// let empty = store.journal_len(); // the header
    /// store.store(1, b"order")?;
    /// let stored = store.journal_len();
    /// assert!(stored > empty + 5); // the record: a header and the 5 bytes
    /// store.commit()?;
    /// assert!(store.journal_len() > stored); // and a commit record
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn journal_len(&self) -> u64 {
        self.end + self.pending.len() as u64
    }

    /// Reserves index room for `messages` more messages and write-buffer
    /// room for a message of `max_message_len` bytes.
    ///
    /// ```
    /// use peregrine_alloc::{allocations_in, CountingAllocator};
    /// use peregrine_store::{FileStore, FileStoreConfig, MessageStore};
    ///
    /// #[global_allocator]
    /// static ALLOCATOR: CountingAllocator = CountingAllocator;
    ///
    /// let base = tempfile::tempdir()?;
    /// let config = FileStoreConfig {
    ///     index_capacity: 0,
    ///     write_buffer_capacity: 0,
    ///     ..FileStoreConfig::default()
    /// };
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", config, 0)?;
    /// let big = vec![b'x'; 10_000];
    /// store.reserve(100, big.len());
    /// // Storing up to 100 messages of up to 10,000 bytes now allocates nothing.
    /// let (stored, allocations) = allocations_in(|| -> Result<(), peregrine_store::StoreError> {
    ///     for seq in 1..=100 {
    ///         store.store(seq, &big[..(seq as usize * 100)])?;
    ///     }
    ///     Ok(())
    /// });
    /// stored?;
    /// assert_eq!(allocations, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reserve(&mut self, messages: usize, max_message_len: usize) {
        self.index.reserve(messages);
        let need = max_message_len + RECORD_HEADER_LEN + COMMIT_LEN;
        if self.pending.capacity() < need {
            self.pending.reserve(need - self.pending.len());
        }
    }

    /// Under [`FsyncPolicy::EveryMillis`], fsyncs the dirty files if the
    /// interval has passed since the last fsync, and says whether it did.
    /// Under the other policies it does nothing and returns `false`. Meant to
    /// be called from the engine's timer so that an idle session's last
    /// commits do not stay un-fsynced.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the fsync fails.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
    /// use std::time::Duration;
    ///
    /// let base = tempfile::tempdir()?;
    /// let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryMillis(500));
    /// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", config, 0)?;
    /// store.store(1, b"order")?;
    /// store.commit()?; // written at once, fsynced once 500 ms have passed
    /// let fsyncs = store.stats().journal_fsyncs;
    /// assert!(!store.sync_if_due()?); // not due yet
    /// std::thread::sleep(Duration::from_millis(500));
    /// assert!(store.sync_if_due()?); // no commit came: fsynced now
    /// assert!(!store.sync_if_due()?); // nothing left to fsync
    /// assert_eq!(store.stats().journal_fsyncs, fsyncs + 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        if let FsyncPolicy::EveryMillis(ms) = self.config.fsync {
            if (self.journal_dirty || self.seqnums_dirty || self.witness_due)
                && self.last_sync.elapsed() >= Duration::from_millis(ms)
            {
                self.sync_files()?;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

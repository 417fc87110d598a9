//! [`FileStore`]: a durable store in one directory per session.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::format::{
    self, JournalHeader, SeqState, COMMIT_LEN, JOURNAL_HEADER_LEN, JOURNAL_HEADER_LEN_V1,
    RECORD_HEADER_LEN, SLOT_LEN, SLOT_VERSION, SLOT_VERSION_V1,
};
use crate::index::{Entry, Index};
use crate::posio;
use crate::recover::{self, Loss, LossKind, OnDamage, Recovery, Window};
use crate::{check_len, check_seq, MessageStore, StoreError, StoreObserver};

/// File name of the message journal inside a session directory.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, JOURNAL_FILE};
///
/// let base = tempfile::tempdir()?;
/// let store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
/// assert_eq!(store.journal_path(), store.dir().join(JOURNAL_FILE));
/// assert!(store.journal_path().is_file()); // made when the store was created
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const JOURNAL_FILE: &str = "messages.journal";
/// File name of the sequence-number witness inside a session directory.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, SEQNUMS_FILE};
///
/// let base = tempfile::tempdir()?;
/// let store = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0)?;
/// assert_eq!(store.seqnums_path(), store.dir().join(SEQNUMS_FILE));
/// // Two 64-byte slots, written alternately after each commit.
/// assert_eq!(std::fs::metadata(store.seqnums_path())?.len(), 128);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const SEQNUMS_FILE: &str = "seqnums";
/// The journal being rewritten (format conversion, damage removal); renamed
/// over [`JOURNAL_FILE`] when complete.
const JOURNAL_REWRITE_FILE: &str = "messages.journal.rewrite";

/// When a [`FileStore`] calls `fsync` (`fdatasync` on Linux).
///
/// Independently of the policy, [`commit`](MessageStore::commit) hands the
/// transaction to the operating system (one `pwrite`) before it returns, so a
/// *process* crash (`kill -9`, a panic, an abort) loses nothing that was
/// committed. The policy decides what survives a *machine* crash or power
/// loss: exactly what was fsynced.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
/// use std::time::Duration;
///
/// let dir = tempfile::tempdir()?;
/// // At most 5 ms of commits can be lost with the machine.
/// let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryMillis(5));
/// let mut store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
/// // The store has no thread: its owner calls sync_if_due on this period.
/// assert_eq!(store.sync_interval(), Some(Duration::from_millis(5)));
///
/// store.store(1, b"order")?;
/// store.incr_next_sender_seq()?;
/// store.commit()?; // written (safe from kill -9), fsynced once 5 ms have passed
/// std::thread::sleep(Duration::from_millis(5));
/// assert!(store.sync_if_due()?); // the session went quiet: fsync now
///
/// // Under EveryCommit (the default) there is nothing to call.
/// assert_eq!(FsyncPolicy::default(), FsyncPolicy::EveryCommit);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// Never fsync on the write path; only [`MessageStore::sync`] and
    /// [`MessageStore::reset`] do.
    ///
    /// A process crash loses nothing that was committed (the writes are in
    /// the operating system's cache). A machine crash or power cut may lose
    /// any commit since the last fsync, and the witness of it alike: when the
    /// journal's tail and the newest `seqnums` slot are both lost, the store
    /// opens on the older numbers without knowing of the loss, and sequence
    /// numbers sent since the last fsync may be used again for different
    /// messages (the counterparty then sees them as too low or as
    /// duplicates). QuickFIX's file stores without sync share this; choose
    /// [`EveryMillis`](Self::EveryMillis) to bound the window, or
    /// [`EveryCommit`](Self::EveryCommit) to close it.
    Never,
    /// Fsync from within a commit once at least this many milliseconds have
    /// passed since the last fsync, measured with [`std::time::Instant`]
    /// (monotonic). The store has no thread of its own: when commits stop,
    /// nothing is fsynced until the next one,
    /// [`MessageStore::sync_if_due`] (the engine calls it every
    /// [`MessageStore::sync_interval`]) or [`MessageStore::sync`].
    EveryMillis(u64),
    /// Fsync the journal in every commit, before it returns: a message is on
    /// disk before it is sent. The changes a session makes while it handles
    /// one batch of input (every message read in one go, and the replies)
    /// form one commit and share one fsync, so the cost per message falls as
    /// the load rises.
    #[default]
    EveryCommit,
}

/// Settings of a [`FileStore`].
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, OnDamage};
///
/// let config = FileStoreConfig {
///     fsync: FsyncPolicy::EveryCommit,
///     // Start even if acknowledged data was lost, with the loss reported.
///     on_damage: OnDamage::Report,
///     // A busy session: room for 100,000 messages before the index grows.
///     index_capacity: 100_000,
///     ..FileStoreConfig::default()
/// };
/// let dir = tempfile::tempdir()?;
/// let store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
/// assert_eq!(store.config(), &config);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStoreConfig {
    /// When to fsync.
    pub fsync: FsyncPolicy,
    /// What to do when recovery finds acknowledged data damaged or missing.
    pub on_damage: OnDamage,
    /// Index entries to reserve on open (24 bytes each), so that storing
    /// that many messages does not grow the index.
    pub index_capacity: usize,
    /// Bytes reserved on open for the transaction being built: records wait
    /// there for the commit, and are written ahead of it when they would not
    /// fit. A message larger than this grows the buffer once.
    pub write_buffer_capacity: usize,
    /// Resend reads coalesce records that are adjacent in the journal into
    /// one positioned read of up to this many bytes (a single larger record
    /// is read on its own). The buffer is reserved on open and reused.
    pub read_chunk: usize,
}

impl Default for FileStoreConfig {
    /// Fsync every commit, refuse to open on damage, 1,024 index entries,
    /// 64 KiB write buffer and read chunk.
    fn default() -> Self {
        FileStoreConfig {
            fsync: FsyncPolicy::default(),
            on_damage: OnDamage::default(),
            index_capacity: 1024,
            write_buffer_capacity: 64 * 1024,
            read_chunk: 64 * 1024,
        }
    }
}

impl FileStoreConfig {
    /// The default settings with the given fsync policy.
    ///
    /// ```
    /// use peregrine_store::{FileStoreConfig, FsyncPolicy};
    ///
    /// let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryMillis(2));
    /// assert_eq!(config.fsync, FsyncPolicy::EveryMillis(2));
    /// assert_eq!(
    ///     config,
    ///     FileStoreConfig { fsync: FsyncPolicy::EveryMillis(2), ..FileStoreConfig::default() }
    /// );
    /// ```
    pub fn with_fsync(fsync: FsyncPolicy) -> Self {
        FileStoreConfig {
            fsync,
            ..Self::default()
        }
    }
}

/// Turns a session identifier (e.g. `"FIX.4.4:SENDER->TARGET"`) into a
/// directory name that is safe on every file system.
///
/// An identifier made only of ASCII letters, digits, `.`, `_` and `-` (and
/// not `.`/`..`, not longer than 120 bytes) is used as it is. Any other is
/// mapped to its safe characters (others become `_`, at most 100 of them)
/// followed by `~` and a 16-digit hash of the whole identifier, so that two
/// different identifiers never share a directory by accident.
///
/// ```
/// use peregrine_store::sanitize_session_id;
/// assert_eq!(sanitize_session_id("FIX.4.4-A-B"), "FIX.4.4-A-B");
/// assert!(sanitize_session_id("FIX.4.4:A->B").starts_with("FIX.4.4_A-_B~"));
/// ```
pub fn sanitize_session_id(session_id: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if !session_id.is_empty()
        && session_id.len() <= 120
        && session_id != "."
        && session_id != ".."
        && session_id.chars().all(safe)
    {
        return session_id.to_owned();
    }
    let mut out: String = session_id
        .chars()
        .take(100)
        .map(|c| if safe(c) { c } else { '_' })
        .collect();
    // FNV-1a, 64 bit: a stable, dependency-free hash of the original bytes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in session_id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    out.push('~');
    out.push_str(&format!("{h:016x}"));
    out
}

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
///   [`FileStoreConfig::index_capacity`]). After each commit, a 64-byte
///   witness slot in the `seqnums` file records where the journal ends.
/// * **Read path.** [`for_each_in_range`](MessageStore::for_each_in_range)
///   looks the range up in the in-memory index and reads exactly those
///   records with positioned reads into a reusable buffer, checking each
///   record's CRC.
/// * **Recovery.** [`open`](FileStore::open) reads the committed transactions
///   back and cuts off an uncommitted tail (what a crash mid-write leaves).
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
/// drop(store); // as in a crash: the open transaction is lost
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
    /// Bytes of the journal handed to the operating system.
    end: u64,
    /// Bytes of the current transaction not written yet (they go at `end`).
    pending: Vec<u8>,
    index: Index,
    read_buf: Vec<u8>,
    /// The witness slot last written.
    witness: SeqState,
    journal_dirty: bool,
    seqnums_dirty: bool,
    last_sync: Instant,
    recovery: Recovery,
    stats: StoreStats,
    /// Told how long writes and fsyncs take (the clock is read only then).
    observer: Option<Arc<dyn StoreObserver>>,
}

/// What a [`FileStore`] has done since it was opened (for metrics and tests).
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, StoreStats};
///
/// let base = tempfile::tempdir()?;
/// let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit);
/// let mut store = FileStore::open(base.path(), "FIX.4.4:A->B", config, 0)?;
/// assert_eq!(store.stats(), StoreStats::default());
/// store.store(1, b"order")?;
/// store.commit()?; // one write, one fsync
/// store.commit()?; // nothing changed: no write, no fsync
/// assert_eq!(store.stats(), StoreStats { commits: 1, journal_fsyncs: 1 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Commits that wrote something.
    pub commits: u64,
    /// `fsync`s of the journal.
    pub journal_fsyncs: u64,
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

fn open_rw(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| StoreError::io("open store file", path, e))
}

/// Makes the directory entries of newly created or renamed files durable.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::io("fsync store directory", dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Where the store stands after reading its files.
struct Loaded {
    epoch: u64,
    creation_time: i64,
    seqs: (u64, u64),
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
            end: JOURNAL_HEADER_LEN,
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
            journal_dirty: false,
            seqnums_dirty: false,
            last_sync: Instant::now(),
            recovery: Recovery::default(),
            stats: StoreStats::default(),
            observer: None,
        };
        store.read_buf.resize(config.read_chunk, 0);
        store.load(now)?;
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
    /// // The committed journal is on disk, all of it.
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
            if (self.journal_dirty || self.seqnums_dirty)
                && self.last_sync.elapsed() >= Duration::from_millis(ms)
            {
                self.sync_files()?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    // -----------------------------------------------------------------------
    // Opening

    /// Reads the durable state from disk, recovering from a crash, and
    /// rebuilds the index. `now` is the creation time of a new store.
    fn load(&mut self, now: i64) -> Result<(), StoreError> {
        self.index.clear();
        self.pending.clear();
        self.journal_dirty = false;
        self.seqnums_dirty = false;
        self.recovery = Recovery::default();

        let mut slots = [0u8; 2 * SLOT_LEN];
        let n = posio::read_up_to_at(&self.seqnums, &mut slots, 0)
            .map_err(|e| StoreError::io("read sequence numbers", &self.seqnums_path, e))?;
        let witness = SeqState::decode_file(&slots[..n]);
        if let Some(w) = witness {
            self.witness = w;
        }
        let journal_len = self
            .journal
            .metadata()
            .map_err(|e| StoreError::io("stat journal", &self.journal_path, e))?
            .len();

        let mut header = [0u8; JOURNAL_HEADER_LEN as usize];
        let got = posio::read_up_to_at(&self.journal, &mut header, 0)
            .map_err(|e| StoreError::io("read journal header", &self.journal_path, e))?;
        let parsed = format::parse_journal_header(&header[..got]);
        let loaded = match (parsed, witness) {
            // A new store, or one whose creation was cut short before its
            // first commit: creation writes the witness before the journal.
            (None, None) if journal_len <= JOURNAL_HEADER_LEN => {
                return self.create(1, now, (1, 1));
            }
            (None, Some(w)) if journal_len < JOURNAL_HEADER_LEN_V1 => {
                // Cut short while being created or reset (the witness is
                // written first): the journal holds no record.
                return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
            }
            (None, None) => {
                return Err(StoreError::corrupt(
                    &self.journal_path,
                    0,
                    "not a Peregrine journal (bad magic), and no sequence-number witness",
                ))
            }
            (None, Some(_)) => {
                return Err(StoreError::corrupt(
                    &self.journal_path,
                    0,
                    "not a Peregrine journal (bad magic or damaged header)",
                ))
            }
            (Some(JournalHeader::V1 { epoch }), w) => {
                let Some(w) = w.filter(|w| w.version == SLOT_VERSION_V1) else {
                    return Err(StoreError::corrupt(
                        &self.seqnums_path,
                        0,
                        "no valid sequence-number slot next to a format-1 journal",
                    ));
                };
                if epoch != w.epoch {
                    // Format 1's interrupted reset: the journal is stale.
                    return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
                }
                return self.convert_v1(w, journal_len);
            }
            (Some(JournalHeader::V2 { epoch, .. }), Some(w))
                if w.version == SLOT_VERSION && w.epoch > epoch =>
            {
                // A reset wrote its witness, then stopped before it emptied
                // the journal: the journal is stale.
                return self.create(w.epoch, w.creation_time, (w.next_sender, w.next_target));
            }
            (
                Some(JournalHeader::V2 {
                    epoch,
                    creation_time,
                }),
                _,
            ) => Loaded {
                epoch,
                creation_time,
                seqs: (1, 1),
            },
        };
        self.epoch = loaded.epoch;
        self.creation_time = loaded.creation_time;

        let mut buf = std::mem::take(&mut self.read_buf);
        let scanned = {
            let mut w = Window::new(&self.journal, journal_len, &mut buf);
            recover::scan(&mut w, JOURNAL_HEADER_LEN, false)
        };
        self.read_buf = buf;
        let scan = scanned.map_err(|e| StoreError::io("read journal", &self.journal_path, e))?;
        let same_epoch = witness.filter(|w| w.version == SLOT_VERSION && w.epoch == self.epoch);
        // No commit at all: a creation cut short after its witness.
        let (mut sender, mut target) = scan
            .state
            .unwrap_or_else(|| same_epoch.map_or(loaded.seqs, |w| (w.next_sender, w.next_target)));
        let mut losses = scan.losses;
        // The witness knows where a commit ended and its numbers: a journal
        // that ends before it lost acknowledged data. One that reaches it or
        // goes on holds that commit or later ones (the journal only grows
        // within an epoch, and a rewrite writes its witness first), so its
        // own numbers win, also when a later commit lowered one (an operator
        // may; a torn newest slot then leaves an older, higher witness).
        if let Some(w) = same_epoch {
            if w.journal_end > scan.committed_end {
                losses.push(Loss {
                    kind: LossKind::Truncated,
                    offset: scan.committed_end,
                    len: w.journal_end.saturating_sub(scan.committed_end),
                    seqs: (w.next_sender > sender).then(|| (sender, w.next_sender - 1)),
                });
                sender = sender.max(w.next_sender);
                target = target.max(w.next_target);
            }
        }
        if !losses.is_empty() {
            if self.config.on_damage == OnDamage::Refuse {
                return Err(StoreError::Damaged {
                    path: self.journal_path.clone(),
                    losses,
                });
            }
            self.recovery.losses = losses;
            return self.rewrite(&scan.entries, (sender, target), true);
        }
        for e in &scan.entries {
            self.index.insert(*e);
        }
        if journal_len > scan.committed_end {
            self.recovery.uncommitted_bytes = journal_len - scan.committed_end;
            self.journal
                .set_len(scan.committed_end)
                .and_then(|()| self.journal.sync_data())
                .map_err(|e| {
                    StoreError::io("cut off an uncommitted tail", &self.journal_path, e)
                })?;
        }
        self.end = scan.committed_end;
        self.next_sender = sender;
        self.next_target = target;
        self.committed = (sender, target);
        Ok(())
    }

    /// An empty journal of `epoch` with these sequence numbers, durably: the
    /// witness first (saying that nothing is committed beyond the header, so
    /// that a crash before the journal is written is no loss), then the
    /// journal's header and first commit, then the witness again.
    fn create(
        &mut self,
        epoch: u64,
        creation_time: i64,
        seqs: (u64, u64),
    ) -> Result<(), StoreError> {
        self.epoch = epoch;
        self.creation_time = creation_time;
        self.index.clear();
        self.pending.clear();
        self.next_sender = seqs.0;
        self.next_target = seqs.1;
        self.committed = seqs;
        self.end = JOURNAL_HEADER_LEN;
        self.write_witness()?;
        self.sync_seqnums()?;
        let mut bytes = Vec::with_capacity(JOURNAL_HEADER_LEN as usize + COMMIT_LEN);
        bytes.extend_from_slice(&format::journal_header(epoch, creation_time));
        format::encode_commit(&mut bytes, seqs.0, seqs.1);
        let path = &self.journal_path;
        self.journal
            .set_len(0)
            .and_then(|()| posio::write_all_at(&self.journal, &bytes, 0))
            .and_then(|()| self.journal.sync_data())
            .map_err(|e| StoreError::io("write journal header", path, e))?;
        self.journal_dirty = false;
        self.end = bytes.len() as u64;
        self.write_witness()?;
        sync_dir(&self.dir)
    }

    /// Converts a format-1 journal: its records up to the first bad one (a
    /// torn tail), with the witness's numbers (format 1 kept them there).
    fn convert_v1(&mut self, w: SeqState, journal_len: u64) -> Result<(), StoreError> {
        self.epoch = w.epoch;
        self.creation_time = w.creation_time;
        let mut buf = std::mem::take(&mut self.read_buf);
        let scanned = {
            let mut win = Window::new(&self.journal, journal_len, &mut buf);
            recover::scan(&mut win, JOURNAL_HEADER_LEN_V1, true)
        };
        self.read_buf = buf;
        let scan = scanned.map_err(|e| StoreError::io("read journal", &self.journal_path, e))?;
        // A record stored after the slot was last written was never
        // acknowledged by an increment, but its number may have been used.
        let mut sender = w.next_sender;
        if let Some(max) = scan
            .entries
            .iter()
            .filter(|e| e.offset >= w.journal_end)
            .map(|e| e.seq)
            .max()
        {
            sender = sender.max(max + 1);
        }
        self.rewrite(&scan.entries, (sender, w.next_target), false)
    }

    /// Writes a new journal holding `entries` (records of the current file)
    /// and one commit with `seqs`, and renames it over the journal. With
    /// `witness_first`, the witness of the new journal is written durably
    /// before the rename (a crash in between finds the old journal, its
    /// damage again, and a witness that claims no more than the new one);
    /// otherwise after it (a format-1 journal's slot must stay readable until
    /// the new journal is in place).
    fn rewrite(
        &mut self,
        entries: &[Entry],
        seqs: (u64, u64),
        witness_first: bool,
    ) -> Result<(), StoreError> {
        let tmp_path = self.dir.join(JOURNAL_REWRITE_FILE);
        let tmp = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp_path)
            .map_err(|e| StoreError::io("create journal rewrite", &tmp_path, e))?;
        let io = |e| StoreError::io("write journal rewrite", &tmp_path, e);
        posio::write_all_at(
            &tmp,
            &format::journal_header(self.epoch, self.creation_time),
            0,
        )
        .map_err(io)?;
        self.index.clear();
        let mut at = JOURNAL_HEADER_LEN;
        let mut rec = Vec::new();
        for e in entries {
            rec.resize(RECORD_HEADER_LEN + e.len as usize, 0);
            posio::read_exact_at(&self.journal, &mut rec, e.offset)
                .map_err(|err| StoreError::io("read journal", &self.journal_path, err))?;
            posio::write_all_at(&tmp, &rec, at).map_err(io)?;
            self.index.insert(Entry {
                seq: e.seq,
                offset: at,
                len: e.len,
            });
            at += rec.len() as u64;
        }
        rec.clear();
        format::encode_commit(&mut rec, seqs.0, seqs.1);
        posio::write_all_at(&tmp, &rec, at).map_err(io)?;
        at += rec.len() as u64;
        tmp.sync_data().map_err(io)?;
        self.end = at;
        self.next_sender = seqs.0;
        self.next_target = seqs.1;
        self.committed = seqs;
        if witness_first {
            self.write_witness()?;
            self.sync_seqnums()?;
        }
        fs::rename(&tmp_path, &self.journal_path)
            .map_err(|e| StoreError::io("replace journal", &self.journal_path, e))?;
        sync_dir(&self.dir)?;
        self.journal = tmp;
        self.journal_dirty = false;
        self.recovery.rewritten = true;
        if !witness_first {
            self.write_witness()?;
            self.sync_seqnums()?;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------
    // Writing

    /// Writes the bytes of the current transaction built so far (without a
    /// commit record), so that they can be read back or the buffer reused.
    fn write_ahead(&mut self) -> Result<(), StoreError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if let Err(e) = posio::write_all_at(&self.journal, &self.pending, self.end) {
            // Best effort: the journal ends on a record boundary again. If
            // this fails too, recovery cuts the uncommitted tail off.
            let _ = self.journal.set_len(self.end);
            return Err(StoreError::io(
                "append journal records",
                &self.journal_path,
                e,
            ));
        }
        self.end += self.pending.len() as u64;
        self.pending.clear();
        self.journal_dirty = true;
        Ok(())
    }

    /// Records the journal's committed end and numbers in the witness slot
    /// not holding the newest state.
    fn write_witness(&mut self) -> Result<(), StoreError> {
        let state = SeqState {
            version: SLOT_VERSION,
            generation: self.witness.generation.wrapping_add(1),
            epoch: self.epoch,
            next_sender: self.next_sender,
            next_target: self.next_target,
            creation_time: self.creation_time,
            journal_end: self.end,
        };
        posio::write_all_at(&self.seqnums, &state.encode(), state.slot_offset())
            .map_err(|e| StoreError::io("write sequence numbers", &self.seqnums_path, e))?;
        self.witness = state;
        self.seqnums_dirty = true;
        Ok(())
    }

    /// The time now, if an observer is to be told how long something takes.
    fn clock(&self) -> Option<Instant> {
        self.observer.as_ref().map(|_| Instant::now())
    }

    fn observe_fsync(&self, started: Option<Instant>) {
        if let (Some(o), Some(t)) = (&self.observer, started) {
            o.on_fsync(t.elapsed());
        }
    }

    fn sync_journal(&mut self) -> Result<(), StoreError> {
        let started = self.clock();
        self.journal
            .sync_data()
            .map_err(|e| StoreError::io("fsync journal", &self.journal_path, e))?;
        self.observe_fsync(started);
        self.journal_dirty = false;
        self.stats.journal_fsyncs += 1;
        Ok(())
    }

    fn sync_seqnums(&mut self) -> Result<(), StoreError> {
        let started = self.clock();
        self.seqnums
            .sync_data()
            .map_err(|e| StoreError::io("fsync sequence numbers", &self.seqnums_path, e))?;
        self.observe_fsync(started);
        self.seqnums_dirty = false;
        Ok(())
    }

    fn sync_files(&mut self) -> Result<(), StoreError> {
        // Journal first: a durable witness then never points past journal
        // bytes that are not durable yet.
        if self.journal_dirty {
            self.sync_journal()?;
        }
        if self.seqnums_dirty {
            self.sync_seqnums()?;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    fn has_changes(&self) -> bool {
        !self.pending.is_empty()
            || self.end > self.witness.journal_end
            || (self.next_sender, self.next_target) != self.committed
    }
}

impl MessageStore for FileStore {
    fn next_sender_seq(&self) -> u64 {
        self.next_sender
    }

    fn next_target_seq(&self) -> u64 {
        self.next_target
    }

    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.next_sender = check_seq(seq)?;
        Ok(())
    }

    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.next_target = check_seq(seq)?;
        Ok(())
    }

    fn creation_time(&self) -> i64 {
        self.creation_time
    }

    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        let len = check_len(msg.len())?;
        let rec_len = RECORD_HEADER_LEN + msg.len();
        if self.pending.len() + rec_len + COMMIT_LEN > self.pending.capacity() {
            let started = self.clock();
            self.write_ahead()?;
            if let (Some(o), Some(t)) = (&self.observer, started) {
                o.on_write(t.elapsed());
            }
        }
        let offset = self.journal_len();
        format::encode_record(&mut self.pending, seq, msg);
        self.index.insert(Entry { seq, offset, len });
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        if !self.has_changes() {
            return Ok(());
        }
        let before = self.pending.len();
        format::encode_commit(&mut self.pending, self.next_sender, self.next_target);
        let started = self.clock();
        if let Err(e) = self.write_ahead() {
            self.pending.truncate(before);
            return Err(e);
        }
        self.committed = (self.next_sender, self.next_target);
        self.stats.commits += 1;
        // The writes, not an fsync between them (an observer hears it apart):
        // without one, two clock reads time the whole commit.
        let mut writing = Duration::ZERO;
        let mut witness_from = started;
        match self.config.fsync {
            FsyncPolicy::Never => {}
            FsyncPolicy::EveryCommit => {
                writing = started.map_or(Duration::ZERO, |t| t.elapsed());
                self.sync_journal()?;
                self.last_sync = Instant::now();
                witness_from = started.map(|_| self.last_sync);
            }
            FsyncPolicy::EveryMillis(ms) => {
                if self.last_sync.elapsed() >= Duration::from_millis(ms) {
                    writing = started.map_or(Duration::ZERO, |t| t.elapsed());
                    self.sync_files()?;
                    witness_from = started.map(|_| self.last_sync);
                }
            }
        }
        self.write_witness()?;
        if let (Some(o), Some(t)) = (&self.observer, witness_from) {
            o.on_write(writing + t.elapsed());
        }
        Ok(())
    }

    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        // Records of the current transaction are read back from the file
        // like the others (they stay uncommitted until the commit record).
        self.write_ahead()?;
        let entries = self.index.range(begin, end);
        let chunk = self.config.read_chunk as u64;
        let rec_len = |e: &Entry| RECORD_HEADER_LEN as u64 + u64::from(e.len);
        let mut i = 0;
        while i < entries.len() {
            // Coalesce records that are adjacent in the journal into one read.
            let start = entries[i].offset;
            let mut stop = start + rec_len(&entries[i]);
            let mut j = i + 1;
            while j < entries.len()
                && entries[j].offset == stop
                && stop + rec_len(&entries[j]) - start <= chunk
            {
                stop += rec_len(&entries[j]);
                j += 1;
            }
            let n = (stop - start) as usize;
            if self.read_buf.len() < n {
                self.read_buf.resize(n, 0);
            }
            let buf = &mut self.read_buf[..n];
            posio::read_exact_at(&self.journal, buf, start)
                .map_err(|e| StoreError::io("read journal record", &self.journal_path, e))?;
            for e in &entries[i..j] {
                let at = (e.offset - start) as usize;
                let rec = &buf[at..at + rec_len(e) as usize];
                let ok = match format::parse_record_header(rec) {
                    Some(h) => {
                        h.seq == e.seq
                            && h.len == e.len
                            && format::record_crc_ok(rec, &h, &rec[RECORD_HEADER_LEN..])
                    }
                    None => false,
                };
                if !ok {
                    return Err(StoreError::corrupt(
                        &self.journal_path,
                        e.offset,
                        "record changed on disk since it was written",
                    ));
                }
                visitor(e.seq, &rec[RECORD_HEADER_LEN..]);
            }
            i = j;
        }
        Ok(())
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        // The witness of the new epoch first (durably), then the journal: a
        // crash in between leaves a journal of the old epoch, which the next
        // open recognises as stale and empties.
        let epoch = self.epoch.wrapping_add(1);
        self.create(epoch, creation_time, (1, 1))?;
        self.last_sync = Instant::now();
        Ok(())
    }

    fn refresh(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        let now = self.creation_time;
        self.load(now)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        self.sync_files()
    }

    fn sync_interval(&self) -> Option<Duration> {
        match self.config.fsync {
            FsyncPolicy::EveryMillis(ms) => Some(Duration::from_millis(ms)),
            _ => None,
        }
    }

    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        FileStore::sync_if_due(self)
    }

    fn recovery(&self) -> Option<&Recovery> {
        Some(&self.recovery)
    }

    fn set_observer(&mut self, observer: Option<Arc<dyn StoreObserver>>) {
        self.observer = observer;
    }
}

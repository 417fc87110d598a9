//! How a [`FileStore`] is set up: its fsync policy and buffer sizes.

use crate::recover::OnDamage;

// For the documentation's links only.
#[cfg(doc)]
use super::FileStore;
#[cfg(doc)]
use crate::MessageStore;

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
    /// that many messages does not grow the index. From 512 on, the index
    /// reserves room for at least two million entries in a memory mapping
    /// (address space; pages are backed as entries are written), and grows
    /// without allocating.
    pub index_capacity: usize,
    /// Bytes reserved on open for the transaction being built: records wait
    /// there for the commit, and are written ahead of it when they would not
    /// fit. A message larger than this grows the buffer once.
    pub write_buffer_capacity: usize,
    /// Resend reads coalesce records that are adjacent in the journal into
    /// one positioned read of up to this many bytes (a single larger record
    /// is read on its own). The buffer is made by the first resend read and
    /// reused.
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

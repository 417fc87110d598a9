//! What a [`FileStore`] has done since it was opened.

// For the documentation's links only.
#[cfg(doc)]
use super::FileStore;

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

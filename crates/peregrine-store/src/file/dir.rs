//! The session directory: its name, its files, and making their entries durable.

use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::StoreError;

// For the documentation's links only.
#[cfg(doc)]
use super::FileStore;

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
pub(super) const JOURNAL_REWRITE_FILE: &str = "messages.journal.rewrite";

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

/// Opens a store file for reading and writing, creating it if missing.
pub(super) fn open_rw(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| StoreError::io("open store file", path, e))
}

/// Makes the directory entries of newly created or renamed files durable.
pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
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

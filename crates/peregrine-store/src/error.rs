//! The error type of every store operation.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a store operation failed.
///
/// Errors are values: no store method panics on bad input or a failing disk.
/// Building an error may allocate (it records the path involved); the success
/// path never does.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, MemoryStore, MessageStore, StoreError};
///
/// // Bad input is refused and leaves the store as it was.
/// let mut store = MemoryStore::new(0);
/// assert!(matches!(store.set_next_sender_seq(0), Err(StoreError::InvalidSeqNum(0))));
/// assert_eq!(store.next_sender_seq(), 1);
///
/// // A failing file system says what the store was doing, and where.
/// let base = tempfile::tempdir()?;
/// std::fs::write(base.path().join("blocked"), b"a file, not a directory")?;
/// match FileStore::open_dir(base.path().join("blocked"), FileStoreConfig::default(), 0) {
///     Err(StoreError::Io { context, path, source }) => {
///         assert_eq!(context, "create store directory");
///         assert!(path.ends_with("blocked"));
///         println!("{source}");
///     }
///     other => panic!("expected an I/O error, got {other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// An operating-system I/O call failed.
    Io {
        /// What the store was doing, e.g. `"append journal record"`.
        context: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A file holds bytes that are not what the store wrote there.
    ///
    /// Recovery on open never reports this for a torn or garbled *tail* of the
    /// journal (that is cut off silently, as a crash leaves it); it is reported
    /// for a file that is not a Peregrine store at all, or for a record that
    /// fails its checksum when it is read back for a resend.
    Corrupt {
        /// The file involved.
        path: PathBuf,
        /// Byte offset of the bad data in that file.
        offset: u64,
        /// What was wrong.
        reason: &'static str,
    },
    /// The journal has lost data it had acknowledged (see
    /// [`Recovery`](crate::Recovery)); the store refused to open
    /// ([`OnDamage::Refuse`](crate::OnDamage::Refuse)) and left its files as
    /// they are.
    Damaged {
        /// The journal.
        path: PathBuf,
        /// What was lost.
        losses: Vec<crate::Loss>,
    },
    /// An [`EngineJournal`](crate::EngineJournal) was asked for a second store
    /// of a session whose store is still open.
    SessionInUse {
        /// The session's name.
        name: String,
    },
    /// A session name longer than an [`EngineJournal`](crate::EngineJournal)
    /// takes (its CompIDs may come from the wire through a template).
    NameTooLong {
        /// The name's length in bytes.
        len: usize,
        /// The most the journal takes.
        max: usize,
    },
    /// An earlier write or fsync of the [`EngineJournal`](crate::EngineJournal)
    /// failed: nothing more is committed until it is opened again (recovery
    /// then keeps every transaction that was committed).
    JournalFailed {
        /// The journal.
        path: PathBuf,
    },
    /// A sequence number outside `1..u64::MAX` was given (FIX sequence numbers
    /// start at 1), or incrementing one would overflow.
    InvalidSeqNum(u64),
    /// A database store's statement or connection failed, or a value does
    /// not fit the database's column (a sequence number above a 32-bit
    /// `INTEGER` column's range, a NUL byte in a `TEXT` message column).
    /// Nothing of the failed operation is committed; the store keeps its
    /// uncommitted changes, so a later commit can write them.
    Database {
        /// What the store was doing, e.g. `"commit"`.
        context: &'static str,
        /// The driver's error, or what did not fit.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A message longer than [`MAX_MESSAGE_LEN`](crate::MAX_MESSAGE_LEN) was
    /// given to `store`.
    MessageTooLarge {
        /// Length of the rejected message.
        len: usize,
        /// The limit.
        max: usize,
    },
}

impl StoreError {
    pub(crate) fn io(context: &'static str, path: &Path, source: io::Error) -> Self {
        StoreError::Io {
            context,
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn corrupt(path: &Path, offset: u64, reason: &'static str) -> Self {
        StoreError::Corrupt {
            path: path.to_path_buf(),
            offset,
            reason,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io {
                context,
                path,
                source,
            } => write!(f, "{context} ({}): {source}", path.display()),
            StoreError::Corrupt {
                path,
                offset,
                reason,
            } => write!(
                f,
                "corrupt store file {} at byte {offset}: {reason}",
                path.display()
            ),
            StoreError::Damaged { path, losses } => {
                write!(f, "journal {} has lost acknowledged data: ", path.display())?;
                for (i, l) in losses.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{l}")?;
                }
                f.write_str(
                    " (the files are left as they are; open with OnDamage::Report to start \
                     with the loss reported and the damage removed)",
                )
            }
            StoreError::SessionInUse { name } => {
                write!(f, "the store of session {name} is open already")
            }
            StoreError::NameTooLong { len, max } => {
                write!(f, "a session name of {len} bytes (the engine journal takes at most {max})")
            }
            StoreError::JournalFailed { path } => write!(
                f,
                "engine journal {} failed on an earlier write: nothing more is committed until it is opened again",
                path.display()
            ),
            StoreError::Database { context, source } => write!(f, "database store: {context}: {source}"),
            StoreError::InvalidSeqNum(seq) => {
                write!(f, "invalid FIX sequence number {seq} (must be >= 1)")
            }
            StoreError::MessageTooLarge { len, max } => {
                write!(f, "message of {len} bytes exceeds the store limit of {max}")
            }
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Database { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

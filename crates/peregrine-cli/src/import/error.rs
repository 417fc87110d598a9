//! [`ImportError`]: why `peregrine store import` stopped.

use std::fmt;
use std::path::PathBuf;

use peregrine_engine::store::StoreError;
use peregrine_engine::ConfigError;

/// Why an import stopped. Nothing of a session is written unless all of its
/// QuickFIX store was read.
#[derive(Debug)]
pub enum ImportError {
    /// The settings file does not load, or a session's Peregrine store cannot
    /// be opened (the text names the key and the line).
    Settings(ConfigError),
    /// A QuickFIX store file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A QuickFIX store file is not what its format says.
    Malformed {
        /// The file.
        path: PathBuf,
        /// The byte offset in the file where it goes wrong.
        offset: u64,
        /// What is wrong there.
        what: String,
    },
    /// The Peregrine store already holds the session: importing would
    /// overwrite sequence numbers it may have used.
    AlreadyThere {
        /// The session (`FIX.4.4:GW->VENUE`).
        session: String,
        /// Where Peregrine keeps it.
        place: PathBuf,
    },
    /// Writing the Peregrine store failed.
    Store {
        /// The session.
        session: String,
        /// Why.
        source: StoreError,
    },
    /// No session of the settings file has a QuickFIX store in the directory.
    NothingFound {
        /// The QuickFIX store directory.
        dir: PathBuf,
        /// The file names looked for (one per session).
        looked_for: Vec<String>,
    },
}

impl ImportError {
    /// [`ImportError::Malformed`] for `path` at `offset`.
    pub fn malformed(path: &std::path::Path, offset: u64, what: impl Into<String>) -> ImportError {
        ImportError::Malformed {
            path: path.to_path_buf(),
            offset,
            what: what.into(),
        }
    }

    /// [`ImportError::Io`] for `path`, as a closure for `map_err`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
        move |source| ImportError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Settings(e) => write!(f, "{e}"),
            ImportError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ImportError::Malformed { path, offset, what } => {
                write!(f, "{} at byte {offset}: {what}", path.display())
            }
            ImportError::AlreadyThere { session, place } => write!(
                f,
                "session {session} already has a Peregrine store in {} (nothing imported for it; \
                 move that store away to import again)",
                place.display()
            ),
            ImportError::Store { session, source } => {
                write!(
                    f,
                    "session {session}: writing the Peregrine store: {source}"
                )
            }
            ImportError::NothingFound { dir, looked_for } => write!(
                f,
                "{}: no QuickFIX store of any session of the settings file (looked for {})",
                dir.display(),
                looked_for.join(", ")
            ),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Settings(e) => Some(e),
            ImportError::Io { source, .. } => Some(source),
            ImportError::Store { source, .. } => Some(source),
            ImportError::Malformed { .. }
            | ImportError::AlreadyThere { .. }
            | ImportError::NothingFound { .. } => None,
        }
    }
}

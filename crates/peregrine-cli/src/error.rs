//! [`Error`]: what stops the `peregrine` program, by kind.

use std::fmt;
use std::path::PathBuf;

use peregrine_engine::config::ConfigError;

/// What stops the program.
#[derive(Debug)]
pub enum Error {
    /// The command line is not understood (the text says why, and how it goes).
    Usage(String),
    /// A benchmark failed.
    Bench(peregrine_bench::Error),
    /// The trading topology's demo failed.
    Topology(peregrine_topology::Error),
    /// The acceptor's or initiator's settings file does not load, or a session's settings
    /// do not build a session.
    Settings(ConfigError),
    /// The engine could not be built from the settings, or could not start.
    Build(peregrine_engine::BuildError),
    /// The settings file has no session of the role.
    NoSession {
        /// The settings file.
        file: PathBuf,
        /// `acceptor` or `initiator`.
        role: &'static str,
    },
    /// The acceptor's or initiator's engine could not be set up (signal handlers, the
    /// reactor, a session's socket), or the reactor failed.
    Engine {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
}

impl Error {
    /// [`Error::Engine`]: `what` failed because of an I/O error, as a closure for
    /// `map_err`.
    pub fn engine(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        move |source| Error::Engine {
            what: what.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(text) => f.write_str(text),
            Error::Bench(e) => write!(f, "{e}"),
            Error::Topology(e) => write!(f, "{e}"),
            Error::Settings(e) => write!(f, "{e}"),
            Error::Build(e) => write!(f, "{e}"),
            Error::NoSession { file, role } => write!(
                f,
                "{}: no {role} session (ConnectionType={role})",
                file.display()
            ),
            Error::Engine { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // The benchmark's and the topology's errors say what they are; their
            // sources are the next link.
            Error::Bench(e) => e.source(),
            Error::Topology(e) => e.source(),
            Error::Settings(e) => Some(e),
            Error::Build(e) => e.source(),
            Error::Engine { source, .. } => Some(source),
            Error::Usage(_) | Error::NoSession { .. } => None,
        }
    }
}

impl From<peregrine_bench::Error> for Error {
    fn from(e: peregrine_bench::Error) -> Self {
        Error::Bench(e)
    }
}

impl From<peregrine_topology::Error> for Error {
    fn from(e: peregrine_topology::Error) -> Self {
        Error::Topology(e)
    }
}

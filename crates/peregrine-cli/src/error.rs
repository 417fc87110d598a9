//! [`Error`]: what stops the `peregrine` program, by kind.

use std::fmt;
use std::path::PathBuf;

use peregrine_engine::config::ConfigError;

/// What stops the program.
#[derive(Debug)]
pub enum Error {
    /// A value on the command line that clap could not check (the text says
    /// why): an unknown name in a `decode` filter, a `--session` without `->`.
    Usage(String),
    /// `bench` or `run`: the `peregrine-bench` binary is neither next to this
    /// one nor on PATH.
    NoBenchBinary {
        /// This binary's directory, when known.
        next_to: Option<PathBuf>,
    },
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
    /// A file could not be read, or the output written.
    Io {
        /// What was being done, naming the file.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A dictionary given with `decode --dict` does not load.
    Dictionary(peregrine_dict::DictError),
    /// `decode` reported problems in its input (each on stderr with its line).
    BadInput {
        /// How many.
        problems: u64,
    },
    /// `store import` failed.
    Import(crate::import::ImportError),
    /// `check-config` found errors (each printed on stderr).
    CheckFailed {
        /// The settings file.
        file: PathBuf,
        /// How many errors.
        errors: usize,
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

impl From<peregrine_decode::Error> for Error {
    fn from(e: peregrine_decode::Error) -> Error {
        match e {
            peregrine_decode::Error::Usage(text) => Error::Usage(text),
            peregrine_decode::Error::Dictionary(e) => Error::Dictionary(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(text) => f.write_str(text),
            Error::NoBenchBinary { next_to } => write!(
                f,
                "the benchmarks and the topology's demo are the {bin} binary's, and there \
                 is none {where_} nor on PATH: build it with `make build` (beside \
                 target/release/peregrine), or `cargo build --release -p peregrine-bench` \
                 (from the repository: it is not published; it builds Aeron's C driver with cmake)",
                bin = crate::external::BENCH_BINARY,
                where_ = match next_to {
                    Some(d) => format!("in {}", d.display()),
                    None => "next to this binary".into(),
                },
            ),
            Error::Settings(e) => write!(f, "{e}"),
            Error::Build(e) => write!(f, "{e}"),
            Error::NoSession { file, role } => write!(
                f,
                "{}: no {role} session (ConnectionType={role})",
                file.display()
            ),
            Error::Engine { what, source } | Error::Io { what, source } => {
                write!(f, "{what}: {source}")
            }
            Error::Dictionary(e) => write!(f, "--dict: {e}"),
            Error::Import(e) => write!(f, "store import: {e}"),
            Error::BadInput { problems } => write!(
                f,
                "{problems} problem{} in the input, reported above",
                if *problems == 1 { "" } else { "s" }
            ),
            Error::CheckFailed { file, errors } => write!(
                f,
                "{}: {errors} error{}, reported above (nothing was started)",
                file.display(),
                if *errors == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Settings(e) => Some(e),
            Error::Build(e) => e.source(),
            Error::Engine { source, .. } | Error::Io { source, .. } => Some(source),
            Error::Dictionary(e) => Some(e),
            Error::Import(e) => e.source(),
            Error::Usage(_)
            | Error::NoBenchBinary { .. }
            | Error::NoSession { .. }
            | Error::BadInput { .. }
            | Error::CheckFailed { .. } => None,
        }
    }
}

//! [`Error`]: what stops a benchmark, by kind.

use std::fmt;
use std::path::PathBuf;

use crate::peers::PeerError;

/// An underlying error, boxed.
///
/// ```
/// let source: peregrine_bench::BoxedError = "bad CheckSum".into();
/// let e = peregrine_bench::Error::Check { what: "decode".into(), source: Some(source) };
/// assert_eq!(e.to_string(), "decode: bad CheckSum");
/// ```
pub type BoxedError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What stopped a benchmark.
///
/// ```
/// use std::error::Error as _;
/// use peregrine_bench::Error;
///
/// let e = Error::check("ExecutionReport does not decode", std::io::Error::other("bad CheckSum"));
/// assert_eq!(e.to_string(), "ExecutionReport does not decode: bad CheckSum");
/// assert!(e.source().is_some());
/// assert!(matches!(e, Error::Check { .. }));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A peer's harness is unknown, not built, did not start, failed, or printed results
    /// that do not read.
    Peer(PeerError),
    /// Peregrine's trading topology or the transport floor failed.
    Topology {
        /// `peregrine` or `floor`.
        engine: &'static str,
        /// What failed.
        source: peregrine_topology::Error,
    },
    /// Peregrine's side did not do what it says before being timed (a message that does
    /// not decode, encodes other bytes than the reference, reads back other values).
    Check {
        /// What is wrong.
        what: String,
        /// The underlying error, when there is one.
        source: Option<BoxedError>,
    },
    /// The FIX44 dictionary is missing or does not load.
    Dictionary {
        /// Where it was looked for.
        path: PathBuf,
        /// Why it does not load (`None`: not there).
        source: Option<Box<peregrine_dict::DictError>>,
    },
    /// The send benchmark's engine or its counterparty failed: it did not start, log
    /// on, deliver a message in time, or stop; or [`peregrine_engine::Sender::send`]
    /// refused with something other than a full queue.
    ///
    /// ```
    /// let e = peregrine_bench::Error::Engine { what: "the initiator did not log on".into(), source: None };
    /// assert_eq!(e.to_string(), "the initiator did not log on");
    /// ```
    Engine {
        /// What failed.
        what: String,
        /// The underlying error, when there is one.
        source: Option<BoxedError>,
    },
    /// A benchmark that must not allocate in steady state did (the send benchmark).
    ///
    /// ```
    /// let e = peregrine_bench::Error::Allocates { case: "wire_latency_spin".into(), run: 2, allocations: 3, messages: 1000 };
    /// assert_eq!(e.to_string(), "wire_latency_spin (run 2): 3 allocations in 1000 measured messages (0.003 per message); 0 expected in steady state");
    /// ```
    Allocates {
        /// The case.
        case: String,
        /// The run (from 1).
        run: usize,
        /// Allocations counted during the measured messages.
        allocations: u64,
        /// The measured messages.
        messages: u64,
    },
    /// A command line that does not read (`peregrine-bench roundtrip-peer …`, `--configs`).
    ///
    /// ```
    /// let e = peregrine_bench::Error::Usage("--port needs a value".into());
    /// assert_eq!(e.to_string(), "--port needs a value");
    /// ```
    Usage(String),
    /// The results (JSON, plot) could not be written.
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        source: BoxedError,
    },
}

impl Error {
    /// [`Error::Check`]: `what` went wrong, because of `source`.
    ///
    /// ```
    /// let e = peregrine_bench::Error::check("NewOrderSingle encodes wrong", "byte 12 differs");
    /// assert_eq!(e.to_string(), "NewOrderSingle encodes wrong: byte 12 differs");
    /// ```
    pub fn check(what: impl Into<String>, source: impl Into<BoxedError>) -> Error {
        Error::Check {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// [`Error::Check`] with no underlying error.
    ///
    /// ```
    /// let e = peregrine_bench::Error::failed_check("a wrong CheckSum was accepted");
    /// assert_eq!(e.to_string(), "a wrong CheckSum was accepted");
    /// ```
    pub fn failed_check(what: impl Into<String>) -> Error {
        Error::Check {
            what: what.into(),
            source: None,
        }
    }

    /// [`Error::Output`] for `path`, because of `source` (an error, or text).
    ///
    /// ```
    /// let e = peregrine_bench::Error::output("codec.json", "read-only file system");
    /// assert_eq!(e.to_string(), "cannot write codec.json: read-only file system");
    /// ```
    pub fn output(path: impl Into<PathBuf>, source: impl Into<BoxedError>) -> Error {
        Error::Output {
            path: path.into(),
            source: source.into(),
        }
    }

    /// [`Error::Engine`]: `what` failed because of the error given, as a closure for
    /// `map_err` (`what` becomes text only if it did fail).
    pub(crate) fn engine<E: Into<BoxedError>>(what: impl Into<String>) -> impl FnOnce(E) -> Error {
        move |source| Error::Engine {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// [`Error::Topology`] of `engine`, as a closure for `map_err`.
    pub(crate) fn topology(engine: &'static str) -> impl Fn(peregrine_topology::Error) -> Error {
        move |source| Error::Topology { engine, source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Peer(e) => write!(f, "{e}"),
            Error::Topology { engine, source } => write!(f, "{engine}: {source}"),
            Error::Check { what, source } => match source {
                Some(s) => write!(f, "{what}: {s}"),
                None => f.write_str(what),
            },
            Error::Dictionary { path, source } => match source {
                Some(s) => write!(f, "FIX44 dictionary {}: {s}", path.display()),
                None => write!(f, "FIX44 dictionary not found at {}", path.display()),
            },
            Error::Engine { what, source } => match source {
                Some(s) => write!(f, "{what}: {s}"),
                None => f.write_str(what),
            },
            Error::Allocates {
                case,
                run,
                allocations,
                messages,
            } => write!(
                f,
                "{case} (run {run}): {allocations} allocations in {messages} measured messages ({} per message); 0 expected in steady state",
                *allocations as f64 / (*messages).max(1) as f64
            ),
            Error::Usage(what) => f.write_str(what),
            Error::Output { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Peer(e) => e.source(),
            Error::Topology { source, .. } => Some(source),
            Error::Check { source, .. } => source.as_deref().map(|s| s as _),
            Error::Dictionary { source, .. } => source.as_deref().map(|s| s as _),
            Error::Engine { source, .. } => source.as_deref().map(|s| s as _),
            Error::Allocates { .. } | Error::Usage(_) => None,
            Error::Output { source, .. } => Some(&**source),
        }
    }
}

impl From<PeerError> for Error {
    fn from(e: PeerError) -> Self {
        Error::Peer(e)
    }
}

/// A result of this crate.
///
/// ```
/// fn smoke() -> peregrine_bench::Result<()> {
///     peregrine_bench::typed::check()
/// }
/// assert!(smoke().is_ok());
/// ```
pub type Result<T> = std::result::Result<T, Error>;

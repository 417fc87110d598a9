//! [`Error`]: what stops a topology run, by kind, so that a caller can tell a part that
//! did not start from a transport that failed, a reply that never came, or fills that
//! came back wrong.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// An underlying error, shared so that an [`Error`] can be cloned (the gateway's thread
/// hands its set-up error both to the thread that waits for it and to its own result).
///
/// ```
/// let source: peregrine_topology::Source = std::sync::Arc::new(std::io::Error::other("boom"));
/// let e = peregrine_topology::Error::Output { path: "x.json".into(), source };
/// assert_eq!(e.clone().to_string(), "cannot write x.json: boom");
/// ```
pub type Source = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// What stopped a run of the topology, the floor or the demo.
///
/// Each variant names the part (`gateway`, `floor venue`, …) and what it was doing;
/// [`Display`](fmt::Display) says it in a line, and [`source`](std::error::Error::source)
/// gives the underlying error where there is one.
///
/// ```
/// use std::error::Error as _;
/// use peregrine_topology::Error;
///
/// let e = Error::setup("executor", "orders subscription", std::io::Error::other("no driver"));
/// assert_eq!(e.to_string(), "executor: orders subscription: no driver");
/// assert!(e.source().is_some());
/// assert!(matches!(e, Error::Setup { part: "executor", .. }));
///
/// let late = Error::Timeout { part: "venue", waiting_for: "logon".into(), after: std::time::Duration::from_secs(20) };
/// assert_eq!(late.to_string(), "venue: no logon within 20s");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
    /// A part could not be set up: the media driver, an Aeron client, publication or
    /// subscription, the engine, a session, its store, settings or dictionary, a socket,
    /// a thread.
    Setup {
        /// The part (`gateway`, `executor`, `venue`, `floor gateway`, …).
        part: &'static str,
        /// What it was setting up.
        what: &'static str,
        /// Why it failed, when another error says so.
        source: Option<Source>,
    },
    /// A transport failed while the part ran: the engine's poll, an Aeron poll or
    /// publication, a socket's read, write or epoll, a connection that closed.
    Transport {
        /// The part.
        part: &'static str,
        /// What it was doing.
        what: &'static str,
        /// Why it failed, when another error says so.
        source: Option<Source>,
    },
    /// What a part waited for did not come within the run's timeout.
    Timeout {
        /// The part that waited.
        part: &'static str,
        /// What it waited for (`logon`, `ExecutionReport for order 42`, …).
        waiting_for: String,
        /// How long it waited.
        after: Duration,
    },
    /// The settings do not fit together (an idle strategy the loops cannot honour, …).
    Config {
        /// What does not fit, and why.
        reason: String,
    },
    /// A part's thread panicked.
    Panicked {
        /// The part.
        part: &'static str,
    },
    /// The run finished, but what came back is not what was sent (fills missing or
    /// wrong, an executor that saw bad orders).
    Check {
        /// What is wrong.
        what: String,
    },
    /// The results (JSON, plot) could not be written.
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Source,
    },
}

/// Anything that converts into a boxed error: an error type, or text.
type BoxedError = Box<dyn std::error::Error + Send + Sync + 'static>;

impl Error {
    /// [`Error::Setup`] of `part` setting up `what`, because of `source` (an error, or
    /// text).
    ///
    /// ```
    /// let e = peregrine_topology::Error::setup("venue", "engine", std::io::Error::other("epoll"));
    /// assert_eq!(e.to_string(), "venue: engine: epoll");
    /// ```
    pub fn setup(part: &'static str, what: &'static str, source: impl Into<BoxedError>) -> Error {
        Error::Setup {
            part,
            what,
            source: Some(Arc::from(source.into())),
        }
    }

    /// [`Error::Transport`] of `part` while doing `what`, because of `source` (an error,
    /// or text).
    ///
    /// ```
    /// let e = peregrine_topology::Error::transport("gateway", "engine poll", std::io::Error::other("reset"));
    /// assert_eq!(e.to_string(), "gateway: engine poll: reset");
    /// ```
    pub fn transport(
        part: &'static str,
        what: &'static str,
        source: impl Into<BoxedError>,
    ) -> Error {
        Error::Transport {
            part,
            what,
            source: Some(Arc::from(source.into())),
        }
    }

    /// [`Error::Output`] for `path`, because of `source` (an error, or text).
    ///
    /// ```
    /// let e = peregrine_topology::Error::output("out.svg", "disk full");
    /// assert_eq!(e.to_string(), "cannot write out.svg: disk full");
    /// ```
    pub fn output(path: impl Into<PathBuf>, source: impl Into<BoxedError>) -> Error {
        Error::Output {
            path: path.into(),
            source: Arc::from(source.into()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Setup { part, what, source } | Error::Transport { part, what, source } => {
                write!(f, "{part}: {what}")?;
                match source {
                    Some(s) => write!(f, ": {s}"),
                    None => Ok(()),
                }
            }
            Error::Timeout {
                part,
                waiting_for,
                after,
            } => write!(f, "{part}: no {waiting_for} within {after:?}"),
            Error::Config { reason } => f.write_str(reason),
            Error::Panicked { part } => write!(f, "the {part} thread panicked"),
            Error::Check { what } => f.write_str(what),
            Error::Output { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Setup { source, .. } | Error::Transport { source, .. } => {
                source.as_deref().map(|s| s as _)
            }
            Error::Output { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

/// A result of this crate.
///
/// ```
/// fn parts_ran(r: peregrine_topology::Result<()>) -> bool {
///     !matches!(r, Err(peregrine_topology::Error::Config { .. }))
/// }
/// assert!(parts_ran(Ok(())));
/// ```
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn every_kind_says_where_and_why() {
        let io = || std::io::Error::other("boom");
        assert_eq!(
            Error::transport("floor venue", "read", io()).to_string(),
            "floor venue: read: boom"
        );
        let closed = Error::Transport {
            part: "floor venue",
            what: "the gateway closed the connection",
            source: None,
        };
        assert_eq!(
            closed.to_string(),
            "floor venue: the gateway closed the connection"
        );
        assert!(closed.source().is_none());
        assert_eq!(
            Error::Panicked { part: "executor" }.to_string(),
            "the executor thread panicked"
        );
        let out = Error::output("x.json", "no room");
        assert_eq!(
            out.source().map(ToString::to_string).as_deref(),
            Some("no room")
        );
        let clone = Error::setup("gateway", "engine", io()).clone();
        assert_eq!(
            clone.source().map(ToString::to_string).as_deref(),
            Some("boom")
        );
    }
}

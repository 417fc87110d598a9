//! Commands for a running engine from other threads (the admin interface,
//! signal handlers, tests), and their typed answers.
//!
//! A [`Command`] goes through the [`EngineHandle`]'s channel and wakes the
//! reactor; the reactor carries it out between two turns and answers with a
//! [`Reply`]: what it did ([`Outcome`]) or why it could not ([`CommandError`]).
//! The admin interface maps these to HTTP statuses; a library caller matches
//! on them.
//!
//! ```no_run
//! use std::time::Duration;
//! use peregrine_engine::{Command, CommandError, Outcome};
//! # let engine: peregrine_engine::Engine<Box<dyn peregrine_engine::SessionDriver>> = unimplemented!();
//! let handle = engine.handle(); // before the engine moves to its thread
//! let set = Command::SetSeqNum {
//!     session: "FIX.4.4:ISLD->TW".into(),
//!     next_sender: Some(2000),
//!     next_target: None,
//! };
//! match handle.call(set, Duration::from_secs(5)) {
//!     Ok(Ok(Outcome::SeqNums { next_sender_seq, .. })) => assert_eq!(next_sender_seq, 2000),
//!     Ok(Err(CommandError::NoSuchSession { name })) => eprintln!("no session {name}"),
//!     Ok(other) => eprintln!("{other:?}"),
//!     Err(e) => eprintln!("no answer: {e}"), // see CallError
//! }
//! ```

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use peregrine_store::StoreError;
use tokio::sync::oneshot;

use crate::config::ConfigError;
use crate::session_info::SessionInfo;

/// A request for the reactor.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Set a session's next sequence numbers.
    SetSeqNum {
        /// The session, e.g. `FIX.4.4:ISLD->TW` (a qualifier may be left out
        /// when it names one session).
        session: String,
        /// The next outgoing sequence number.
        next_sender: Option<u64>,
        /// The next expected incoming sequence number.
        next_target: Option<u64>,
    },
    /// A snapshot of every session.
    ListSessions,
    /// Add a session while the engine runs (made by the engine's session
    /// factory, which [`EngineBuilder`](crate::EngineBuilder) sets).
    AddSession(Box<crate::config::SessionSettings>),
    /// Add a session with the settings of another (`like`) and the CompIDs
    /// and qualifier of `session` (`FIX.4.4:VENUE->NEW[:qualifier]`): what
    /// the admin interface's `/addsession` does.
    AddSessionLike {
        /// The new session's name.
        session: String,
        /// The session whose settings it takes.
        like: String,
    },
    /// Remove a session: a logged-on session logs out first.
    RemoveSession {
        /// The session (a qualifier may be left out when it names one session).
        session: String,
    },
    /// Log a session out and keep it down (QuickFIX/J's `Session.logout()`):
    /// an initiator does not reconnect and an acceptor refuses the
    /// counterparty's Logon until [`Command::Logon`].
    Logout {
        /// The session (a qualifier may be left out when it names one session).
        session: String,
        /// Text(58) of the Logout.
        text: Option<String>,
    },
    /// Let a session log on again after [`Command::Logout`] (an initiator
    /// connects at once).
    Logon {
        /// The session (a qualifier may be left out when it names one session).
        session: String,
    },
    /// Reset a session's sequence numbers to 1 and forget its stored messages
    /// (QuickFIX/J's `Session.reset()`): a logged-on session logs out first and
    /// is reset once disconnected.
    ResetSeqNums {
        /// The session (a qualifier may be left out when it names one session).
        session: String,
    },
    /// Send a TestRequest on a logged-on session now (its Heartbeat answer is
    /// a heartbeat round-trip in the metrics).
    TestRequest {
        /// The session (a qualifier may be left out when it names one session).
        session: String,
    },
    /// `command`, asked for by `operator` (a name and where the request came
    /// from, e.g. `alice (127.0.0.1:51234)`): the session's event log says
    /// who asked. The admin interface wraps every command that changes the
    /// engine in one.
    ByOperator {
        /// Who asked.
        operator: String,
        /// What was asked.
        command: Box<Command>,
    },
    /// Stop the engine gracefully (Logout on every session).
    Stop,
}

impl Command {
    /// Whether the command changes the engine (over HTTP it then needs the
    /// token).
    ///
    /// ```
    /// use peregrine_engine::Command;
    /// assert!(!Command::ListSessions.is_mutating());
    /// assert!(Command::Stop.is_mutating());
    /// ```
    pub fn is_mutating(&self) -> bool {
        !matches!(self, Command::ListSessions)
    }
}

/// What the reactor did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// [`Command::Stop`]: the engine logs out every session and stops.
    Stopping,
    /// [`Command::ListSessions`]: every session, in the order they were added
    /// (their message and event logs written up to the answer).
    Sessions(Vec<SessionInfo>),
    /// [`Command::AddSession`]: the session is added (an initiator connects
    /// on the next turn).
    SessionAdded {
        /// Its full name.
        session: String,
        /// How a [`Sender`](crate::Sender) names it.
        reference: crate::SessionRef,
    },
    /// [`Command::RemoveSession`]: the session is gone, or logging out and
    /// gone once that is over (`logging_out`).
    SessionRemoved {
        /// Its full name.
        session: String,
        /// It is logging out first.
        logging_out: bool,
    },
    /// [`Command::Logout`]: the session is down (`logging_out`: its Logout
    /// is on the way) and stays down until [`Command::Logon`].
    LoggedOut {
        /// Its full name.
        session: String,
        /// It was connected and is logging out.
        logging_out: bool,
    },
    /// [`Command::Logon`]: the session may log on again.
    Enabled {
        /// Its full name.
        session: String,
        /// It was not logged out by a command: nothing changed.
        already: bool,
    },
    /// [`Command::ResetSeqNums`]: the sequence numbers are reset, or will be
    /// once the session has logged out (`after_logout`).
    Reset {
        /// Its full name.
        session: String,
        /// It was connected: it logs out first.
        after_logout: bool,
    },
    /// [`Command::SetSeqNum`]: the session's sequence numbers now in force.
    SeqNums {
        /// The session's full name (with its qualifier, if it has one).
        session: String,
        /// Next outgoing sequence number.
        next_sender_seq: u64,
        /// Next expected incoming sequence number.
        next_target_seq: u64,
    },
    /// [`Command::TestRequest`]: sent, or not (`sent: false`: not logged on).
    TestRequest {
        /// Its full name.
        session: String,
        /// The TestRequest was sent.
        sent: bool,
    },
}

/// Why the reactor could not carry a command out.
#[derive(Debug)]
pub enum CommandError {
    /// No session has that name.
    NoSuchSession {
        /// The name given.
        name: String,
    },
    /// The name, given without a qualifier, fits several sessions.
    AmbiguousSession {
        /// The name given.
        name: String,
    },
    /// [`Command::AddSession`]: a session of that name exists.
    SessionExists {
        /// The name.
        name: String,
    },
    /// [`Command::AddSession`] or [`Command::AddSessionLike`]: the session
    /// could not be made.
    CannotAdd {
        /// The session's name.
        name: String,
        /// Why: its name, its settings, its store, its listener.
        why: AddSessionError,
    },
    /// The session's store failed to record the change (the sequence numbers
    /// are as they were before the failing step).
    Store {
        /// The session.
        session: String,
        /// What the store reported.
        error: StoreError,
    },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::NoSuchSession { name } => write!(f, "no session {name}"),
            CommandError::AmbiguousSession { name } => {
                write!(f, "{name} names several sessions; add the qualifier")
            }
            CommandError::Store { session, error } => write!(f, "{session}: {error}"),
            CommandError::SessionExists { name } => write!(f, "session {name} exists already"),
            CommandError::CannotAdd { name, why } => write!(f, "cannot add {name}: {why}"),
        }
    }
}

impl std::error::Error for CommandError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommandError::Store { error, .. } => Some(error),
            CommandError::CannotAdd { why, .. } => Some(why),
            _ => None,
        }
    }
}

/// Why a session could not be added while the engine runs
/// ([`CommandError::CannotAdd`]).
#[derive(Debug)]
pub enum AddSessionError {
    /// [`Command::AddSessionLike`]: the new name is not
    /// `BEGINSTRING:SENDER->TARGET[:QUALIFIER]`.
    BadName,
    /// The settings are an acceptor template (`AcceptorTemplate=Y`): a
    /// template is added with the settings, not at run time.
    Template,
    /// The engine has no session factory
    /// ([`Engine::set_session_factory`](crate::Engine::set_session_factory);
    /// [`EngineBuilder`](crate::EngineBuilder) sets one).
    NoFactory,
    /// The session factory refused the settings.
    Settings(ConfigError),
    /// The session's message log, listener or TLS configuration could not be
    /// set up.
    Io(std::io::Error),
}

impl fmt::Display for AddSessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddSessionError::BadName => {
                f.write_str("a session is named BEGINSTRING:SENDER->TARGET[:QUALIFIER]")
            }
            AddSessionError::Template => {
                f.write_str("a template is added with the settings, not at run time")
            }
            AddSessionError::NoFactory => {
                f.write_str("the engine has no session factory (EngineBuilder sets one)")
            }
            AddSessionError::Settings(e) => write!(f, "{e}"),
            AddSessionError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AddSessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AddSessionError::Settings(e) => Some(e),
            AddSessionError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// The reactor's answer to a [`Command`].
pub type Reply = Result<Outcome, CommandError>;

/// Where the reactor sends its [`Reply`]: a blocking caller's channel
/// ([`EngineHandle::call`]) or the admin server's one-shot channel, which a
/// connection's task awaits without blocking the runtime. Either way sending
/// never blocks the reactor.
pub(crate) enum ReplyTo {
    /// A thread waiting in [`EngineHandle::call`].
    Blocking(mpsc::Sender<Reply>),
    /// A task of the admin server.
    Async(oneshot::Sender<Reply>),
}

impl ReplyTo {
    /// Hands the reply over; gives it back if nobody waits for it any more.
    pub(crate) fn send(self, reply: Reply) -> Result<(), Reply> {
        match self {
            ReplyTo::Blocking(tx) => tx.send(reply).map_err(|e| e.0),
            ReplyTo::Async(tx) => tx.send(reply),
        }
    }
}

/// A command and where its answer goes.
pub(crate) type Request = (Command, ReplyTo);

/// Why [`EngineHandle::call`] has no [`Reply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallError {
    /// The caller is the engine's own reactor thread, inside one of its turns
    /// (an application callback such as `on_logon`, a session factory,
    /// [`Engine::with_session`](crate::Engine::with_session)'s closure): the
    /// reactor cannot answer while it waits for itself, so the command was not
    /// sent and the call returned at once (waiting would have frozen every
    /// session of the engine for the whole timeout).
    OnEngineThread,
    /// The engine is gone: dropped, or it dropped the command without
    /// answering (it stopped with the command still waiting).
    EngineGone,
    /// No answer within the timeout: the engine is not being turned (stopped,
    /// not started yet, or its turning thread is busy elsewhere), or it is
    /// behind. The command may still be carried out later.
    TimedOut,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallError::OnEngineThread => {
                "EngineHandle::call on the engine's own thread (the reactor cannot answer itself)"
            }
            CallError::EngineGone => "the engine is gone",
            CallError::TimedOut => "the engine did not answer in time",
        })
    }
}

impl std::error::Error for CallError {}

/// Where engine ids come from (0 is no engine).
static NEXT_ENGINE_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The id of the engine whose turn runs on this thread (0: none).
    static TURNING: Cell<u64> = const { Cell::new(0) };
}

/// Whether this thread is turning engine `id` now (inside its sessions and
/// callbacks), where waiting for that engine can only wait for itself.
pub(crate) fn turning_engine(id: u64) -> bool {
    TURNING.with(Cell::get) == id
}

/// A new engine's id, unique in the process.
pub(crate) fn next_engine_id() -> u64 {
    NEXT_ENGINE_ID.fetch_add(1, Ordering::Relaxed)
}

/// Marks this thread as turning engine `id` until dropped (then it marks what
/// it marked before: an engine turned from inside another's callback). A
/// thread-local read and two writes: no system call, no allocation.
pub(crate) struct Turning {
    previous: u64,
}

impl Turning {
    #[inline]
    pub(crate) fn enter(id: u64) -> Turning {
        Turning {
            previous: TURNING.with(|t| t.replace(id)),
        }
    }
}

impl Drop for Turning {
    #[inline]
    fn drop(&mut self) {
        TURNING.with(|t| t.set(self.previous));
    }
}

/// A cloneable, thread-safe handle to a running engine: sends it commands and
/// wakes its reactor.
#[derive(Clone)]
pub struct EngineHandle {
    pub(crate) tx: mpsc::Sender<Request>,
    pub(crate) waker: Arc<mio::Waker>,
    pub(crate) metrics: crate::metrics::Metrics,
    /// The engine's id (see [`Turning`]).
    pub(crate) engine: u64,
}

impl fmt::Debug for EngineHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EngineHandle")
    }
}

impl EngineHandle {
    /// The engine's metrics, read without a command (the reactor is not
    /// involved: see [`crate::metrics`]).
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.metrics
    }

    /// Sends `command` and waits up to `timeout` for the reactor's answer.
    ///
    /// Called on the engine's own reactor thread while the engine turns (from
    /// an application callback such as `on_logon` or `from_app`, a session
    /// factory, or [`Engine::with_session`](crate::Engine::with_session)'s
    /// closure), it returns [`CallError::OnEngineThread`] at once and sends
    /// nothing: the reactor carries commands out between turns, so it could
    /// only answer after the call gave up, and every session of the engine
    /// would stand still meanwhile. A callback reads what it needs from its
    /// own state or its [`Outbox`](crate::session::Outbox) instead, or hands
    /// the command to another thread.
    ///
    /// A thread that turns the engine itself ([`Engine::turn`](crate::Engine::turn)
    /// or [`Engine::poll`](crate::Engine::poll) in its own loop) and calls
    /// this *between* turns is not told apart: nobody turns the engine while
    /// it waits, so it gets [`CallError::TimedOut`].
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use peregrine_codec::MessageView;
    /// use peregrine_engine::command::CallError;
    /// use peregrine_engine::{Command, EngineBuilder, EngineHandle, Outcome};
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// Looks at the engine's sessions when a counterparty logs on.
    /// struct Curious(Option<EngineHandle>);
    ///
    /// impl Application for Curious {
    ///     fn on_logon(&mut self, _: &SessionId, _: &mut Outbox<'_>) {
    ///         let Some(handle) = &self.0 else { return };
    ///         match handle.call(Command::ListSessions, Duration::from_secs(2)) {
    ///             // A callback runs on the reactor's thread: this, at once.
    ///             Err(CallError::OnEngineThread) => {}
    ///             other => unreachable!("{other:?}"),
    ///         }
    ///     }
    ///     fn from_app(&mut self, _: &MessageView<'_>, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
    ///            TargetCompID=CLIENT\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let mut engine = EngineBuilder::parse(cfg, "venue.cfg")?.build(|_| Curious(None))?;
    /// let handle = engine.handle();
    /// // The same holds for anything the engine runs on its thread:
    /// let started = Instant::now();
    /// let inside = engine.with_session("FIX.4.4:VENUE->CLIENT", |_, _| {
    ///     handle.call(Command::ListSessions, Duration::from_secs(2))
    /// });
    /// assert_eq!(inside.unwrap().err(), Some(CallError::OnEngineThread));
    /// assert!(started.elapsed() < Duration::from_secs(1));
    ///
    /// // From another thread, while the engine runs on its own, it is answered.
    /// let venue = peregrine_engine::RunningEngine::start(engine, None)?;
    /// let reply = venue.handle().call(Command::ListSessions, Duration::from_secs(5));
    /// assert!(matches!(reply, Ok(Ok(Outcome::Sessions(s))) if s.len() == 1));
    /// venue.stop()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`CallError::OnEngineThread`] at once on the engine's reactor thread,
    /// [`CallError::EngineGone`] when the engine is gone or dropped the
    /// command, [`CallError::TimedOut`] when `timeout` passed first. The
    /// reactor's own refusal (no such session, …) is the `Err` of the
    /// [`Reply`].
    pub fn call(&self, command: Command, timeout: Duration) -> Result<Reply, CallError> {
        if TURNING.with(Cell::get) == self.engine {
            return Err(CallError::OnEngineThread);
        }
        let (tx, rx) = mpsc::channel();
        self.tx
            .send((command, ReplyTo::Blocking(tx)))
            .map_err(|_| CallError::EngineGone)?;
        let _ = self.waker.wake();
        rx.recv_timeout(timeout).map_err(|e| match e {
            mpsc::RecvTimeoutError::Timeout => CallError::TimedOut,
            mpsc::RecvTimeoutError::Disconnected => CallError::EngineGone,
        })
    }

    /// Sends `command` and awaits the reactor's answer (`None` if the engine
    /// is gone, or stopped without answering); the caller bounds the wait.
    pub(crate) async fn call_async(&self, command: Command) -> Option<Reply> {
        let (tx, rx) = oneshot::channel();
        self.tx.send((command, ReplyTo::Async(tx))).ok()?;
        let _ = self.waker.wake();
        rx.await.ok()
    }

    /// Asks the engine to stop (log out every session, then return from `run`).
    pub fn stop(&self) {
        let (tx, _rx) = mpsc::channel();
        let _ = self.tx.send((Command::Stop, ReplyTo::Blocking(tx)));
        let _ = self.waker.wake();
    }
}

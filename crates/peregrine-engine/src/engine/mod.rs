//! The reactor: one thread, many sessions, non-blocking sockets polled with
//! `mio` (epoll on Linux).

mod commands;
mod connect;
mod connection;
mod forward;
pub(crate) use forward::EnginePeers;
mod gate;
mod hours;
pub use crate::session_info::SessionInfo;
pub use gate::WriteGate;
mod ids;
mod journal;
mod lifecycle;
mod listener;
mod read;
mod routing;
mod sending;
mod session;
mod shutdown;
mod status;
mod timers;
mod transport;
mod write;

use self::ids::{Connections, ListenerKey, SessionKey, Sessions, WAKER};
use self::listener::{open_reserve, Listener};

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use mio::{Events, Poll, Waker};

use crate::command::{next_engine_id, EngineHandle, Request, Turning};
use crate::config::SessionSettings;
use crate::driver::{now_nanos, Nanos, SessionDriver};
use crate::log::RateLimit;
use crate::metrics::Metrics;
use crate::sender::{QueuedSend, SendQueue, Sender, SessionRef, DEFAULT_SEND_QUEUE};
use peregrine_agent::{run_agent, Agent, Idle, IdleStrategy};
use peregrine_session::WindowState;

const SEC: Nanos = 1_000_000_000;
/// The most one `read` takes in (the reactor's one read buffer).
const READ_CHUNK: usize = 64 * 1024;
/// [`Engine::poll`] runs timers, commands and log flushes once every this many passes
/// (FIX timers have a resolution of seconds; the socket work is what must not wait).
const POLLS_PER_HOUSEKEEPING: u32 = 16;
/// Under a strategy that never waits in `epoll` (spinning), [`Engine::turn`] runs the
/// sessions' timers and reconnects at most this often per 1,000 sessions (at least
/// every millisecond): that pass visits every session, and once per spin it would cost
/// a 1,000-session acceptor most of its time. Commands are taken, and logs flushed,
/// every turn.
const HOUSEKEEPING_NANOS_PER_1000_SESSIONS: Nanos = 1_000_000;
/// Engine-wide options.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// How the reactor waits when there is no work. Under [`Idle::BusySpin`] the
    /// thread owns its core, and an engine turned by its own loop ([`Engine::run`],
    /// [`Engine::turn`], an agent runner's `do_work`: set this to the strategy that
    /// runner idles with) with at most four connections reads their sockets
    /// directly, asking epoll only every 8th turn.
    pub idle: Idle,
    /// Write the per-session message and event logs (under each session's
    /// `FileLogPath`, when it has one).
    pub message_logs: bool,
    /// Raised (e.g. by a SIGINT/SIGTERM handler) to ask for a graceful stop.
    pub stop_flag: Option<Arc<AtomicBool>>,
    /// Messages that may wait in the [`Sender`] queue (see [`crate::sender`]).
    pub send_queue: usize,
    /// High availability: write to the sessions' sockets only while this gate names
    /// a term this node leads; hold them (no accept, no connect) until it does, and
    /// close every connection, without a Logout, when it stops (see [`WriteGate`]).
    /// `None` (the default): always write.
    pub write_gate: Option<std::sync::Arc<dyn WriteGate>>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            idle: Idle::default(),
            message_logs: true,
            stop_flag: None,
            send_queue: DEFAULT_SEND_QUEUE,
            write_gate: None,
        }
    }
}

/// Socket options of a session's connection ([`Engine::socket_options`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketOptions {
    /// TCP_NODELAY (`SocketNodelay`).
    pub nodelay: bool,
    /// SO_SNDBUF (`SocketSendBufferSize`).
    pub send_buffer_size: usize,
    /// SO_RCVBUF (`SocketReceiveBufferSize`).
    pub recv_buffer_size: usize,
}

/// The I/O engine: owns listeners, connections and sessions, and runs them on
/// the calling thread.
///
/// ```no_run
/// use peregrine_engine::{Engine, EngineOptions, config::Settings};
/// # fn driver_for(_: &peregrine_engine::config::SessionSettings) -> Box<dyn peregrine_engine::SessionDriver> { unimplemented!() }
/// let settings = Settings::load("acceptor.cfg")?;
/// let mut engine = Engine::new(EngineOptions::default())?;
/// for s in &settings.sessions {
///     engine.add_session(s, driver_for(s))?;
/// }
/// engine.run()?; // until stopped; then Logout on every session
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Engine<D: SessionDriver> {
    poll: Poll,
    events: Events,
    waker: Arc<Waker>,
    tx: mpsc::Sender<Request>,
    rx: mpsc::Receiver<Request>,
    listeners: Vec<Listener>,
    connections: Connections,
    sessions: Sessions<D>,
    /// Acceptor sessions by (BeginString, their SenderCompID, their
    /// TargetCompID): where a Logon is routed (several, told apart by
    /// qualifier or address).
    routes: HashMap<(String, String, String), Vec<SessionKey>>,
    options: EngineOptions,
    /// The idle strategy [`turn`](Engine::turn) uses.
    idle: Idle,
    read_buf: Vec<u8>,
    /// Connections that still had data when their read budget ran out.
    ready: Vec<ids::ConnectionKey>,
    /// [`Engine::poll`] passes since the last housekeeping.
    polls: u32,
    /// Turns since epoll was last asked, while the connections are read directly
    /// (see `read.rs`).
    direct_turns: u32,
    /// The last turn could read the connections directly (see `read.rs`; the turns
    /// that ask epoll instead included): those it read may be out of epoll, and go
    /// back in when a turn may not.
    reading_directly: bool,
    /// When [`Engine::turn`] under a spinning strategy runs the housekeeping next.
    next_housekeeping: Nanos,
    /// The logging thread every session's message and event logs hand their
    /// lines to (started with the first session that has logs).
    pub(super) log_writer: Option<crate::log::LogWriter>,
    stopping: bool,
    stop_requested: bool,
    /// Its sessions, as their callbacks see them (forward.rs).
    peers: Arc<forward::EnginePeers>,
    /// Scratch space for the forwards being handed over.
    forwards: forward::Forwards,
    /// The engine journals it writes once per turn (journal.rs).
    journals: Vec<peregrine_store::EngineJournal>,
    /// Sessions that had input this turn and have not written their output.
    touched: Vec<SessionKey>,
    /// Sessions whose timers fired in this housekeeping pass: with a journal
    /// they commit together, one write (timers.rs). Reused.
    fired: Vec<SessionKey>,
    /// A journal write failed: no session output leaves any more.
    journal_failed: bool,
    /// A descriptor held in reserve: when `accept` fails because the process is
    /// out of descriptors, it is closed to accept (and at once close) the
    /// waiting connections, so the listen queue drains and the listener keeps
    /// working once descriptors are free again.
    reserve: Option<std::fs::File>,
    /// Lines about connections that never named a session, within this limit.
    unrouted_lines: RateLimit,
    /// Messages from [`Sender`]s on other threads.
    send_queue: Arc<SendQueue>,
    /// Messages from [`Sender`]s held for sessions whose sockets are not
    /// taking bytes (see `sending.rs`), in order; as many as the queue holds,
    /// allocated up front.
    held_sends: VecDeque<Box<QueuedSend>>,
    /// Passes over `held_sends` so far.
    hold_pass: u32,
    /// Messages for sessions that were removed (a stale [`SessionRef`]).
    sends_to_removed_sessions: u64,
    /// Acceptor templates (`AcceptorTemplate=Y`) and the listener each is on.
    templates: Vec<(SessionSettings, ListenerKey)>,
    /// Makes the driver of a session added at run time (from a template, a
    /// command); set by [`EngineBuilder`](crate::EngineBuilder).
    factory: Option<SessionFactory<D>>,
    /// Every session's and the reactor's counters, for readers on other threads.
    metrics: Metrics,
    /// Sessions were added or removed since the list readers see was made.
    metrics_stale: bool,
    /// Unique in the process: how an [`EngineHandle`] tells that it is called
    /// on this engine's reactor thread, during a turn.
    id: u64,
    /// The term [`EngineOptions::write_gate`] named at its last check (gate.rs).
    led_term: Option<u64>,
}

/// Makes a session's driver from its settings, for sessions added while the
/// engine runs ([`Engine::set_session_factory`]); it is told the
/// [`SessionRef`] the engine will give the session (a [`Sender`] can name it
/// by that as soon as it is added).
pub type SessionFactory<D> =
    Box<dyn FnMut(&SessionSettings, SessionRef) -> Result<D, crate::config::ConfigError> + Send>;

impl<D: SessionDriver> std::fmt::Debug for Engine<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("sessions", &self.sessions.len())
            .field("listeners", &self.listeners.len())
            .finish()
    }
}

impl<D: SessionDriver> Engine<D> {
    /// An engine with no sessions yet.
    ///
    /// # Errors
    ///
    /// The operating system refused the poller or its waker (on Linux an
    /// epoll instance and an eventfd, e.g. when the process is out of file
    /// descriptors).
    pub fn new(options: EngineOptions) -> io::Result<Self> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let (tx, rx) = mpsc::channel();
        let send_queue = SendQueue::new(options.send_queue, waker.clone());
        let held_sends = VecDeque::with_capacity(options.send_queue.max(1));
        Ok(Engine {
            poll,
            events: Events::with_capacity(1024),
            waker,
            tx,
            rx,
            listeners: Vec::new(),
            connections: Connections::default(),
            sessions: Sessions::default(),
            routes: HashMap::new(),
            idle: options.idle.fresh(),
            options,
            read_buf: vec![0; READ_CHUNK],
            ready: Vec::new(),
            stopping: false,
            stop_requested: false,
            peers: Arc::default(),
            forwards: forward::Forwards::default(),
            journals: Vec::new(),
            touched: Vec::new(),
            fired: Vec::new(),
            journal_failed: false,
            polls: 0,
            direct_turns: 0,
            reading_directly: false,
            next_housekeeping: 0,
            log_writer: None,
            reserve: open_reserve(),
            unrouted_lines: RateLimit::new(now_nanos()),
            held_sends,
            hold_pass: 0,
            send_queue,
            sends_to_removed_sessions: 0,
            templates: Vec::new(),
            factory: None,
            metrics: Metrics::default(),
            metrics_stale: false,
            id: next_engine_id(),
            led_term: None,
        })
    }

    /// A handle for other threads (the admin server, tests, signal handlers).
    pub fn handle(&self) -> EngineHandle {
        self.publish_metrics();
        EngineHandle {
            tx: self.tx.clone(),
            waker: self.waker.clone(),
            metrics: self.metrics.clone(),
            engine: self.id,
        }
    }

    /// The engine's metrics: every session's counters and the reactor's, read
    /// from any thread while it runs (see [`crate::metrics`]).
    pub fn metrics(&self) -> Metrics {
        self.publish_metrics();
        self.metrics.clone()
    }

    /// Shows readers the sessions as they are now.
    fn publish_metrics(&self) {
        let list = self.sessions.iter().map(|s| s.metrics.clone()).collect();
        self.metrics.publish(list);
    }

    /// Shows readers the sessions, if some came or went (a new list: not on
    /// the hot path).
    pub(super) fn publish_metrics_if_stale(&mut self) {
        if std::mem::take(&mut self.metrics_stale) {
            self.publish_metrics();
        }
    }

    /// The options it runs with.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// A handle that sends messages through this engine's sessions from any
    /// thread (see [`Sender`]).
    pub fn sender(&self) -> Sender {
        Sender {
            queue: self.send_queue.clone(),
            peers: self.peers.clone(),
            engine: self.id,
        }
    }

    /// The [`SessionRef`] a [`Sender`] names the session `name` by (its full
    /// name, or without the qualifier when that is unambiguous).
    pub fn session_ref(&self, name: &str) -> Option<SessionRef> {
        let key = self.find_session(name).ok()?;
        Some(self.sessions.reference(key))
    }

    /// Every session's name and [`SessionRef`], in one pass (a lookup by name per
    /// session would be quadratic in the number of sessions).
    pub(crate) fn session_refs(&self) -> Vec<(String, SessionRef)> {
        self.sessions
            .keys()
            .map(|k| (self.sessions[k].name.clone(), self.sessions.reference(k)))
            .collect()
    }

    /// The QuickFIX XML dictionaries its sessions validate with
    /// (`DataDictionary`, `TransportDataDictionary`, `AppDataDictionary[.<v>]`
    /// of the sessions with `UseDataDictionary=Y`), each file once, in the
    /// order of the sessions: what the console decodes their logs with.
    pub fn dictionary_files(&self) -> Vec<std::path::PathBuf> {
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        for s in self.sessions.iter().map(|s| &s.settings) {
            if !s.use_data_dictionary {
                continue;
            }
            let named = [
                &s.data_dictionary,
                &s.transport_data_dictionary,
                &s.app_data_dictionary,
            ];
            let versions = s.app_data_dictionaries.iter().map(|v| &v.path);
            for f in named.into_iter().flatten().chain(versions) {
                if !files.contains(f) {
                    files.push(f.clone());
                }
            }
        }
        files
    }

    /// The addresses the acceptor listens on, in the order the ports were first named.
    pub fn listener_addrs(&self) -> Vec<SocketAddr> {
        self.listeners.iter().map(|l| l.local).collect()
    }

    /// A snapshot of every session.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        let now = now_nanos();
        self.sessions
            .keys()
            .map(|k| (k, &self.sessions[k]))
            .map(|(k, s)| (k, s, s.schedule.as_ref().map(|w| w.window_state(now))))
            .map(|(k, s, window)| SessionInfo {
                session_ref: self.sessions.reference(k),
                name: s.name.clone(),
                state: s.driver.state_name(),
                connected: s.connection.is_some(),
                logged_on: s.driver.is_logged_on(),
                next_sender_seq: s.driver.next_sender_seq(),
                next_target_seq: s.driver.next_target_seq(),
                pending_outbound: s.driver.outbound().len(),
                slow_consumer: s.slow,
                store_lost_messages: s.driver.store_lost_messages(),
                send_failures: s.send_failures,
                enabled: s.enabled,
                role: status::role(&s.settings),
                schedule: status::schedule_text(&s.settings),
                logon_allowed: !matches!(window, Some(WindowState::Closed { .. })),
                schedule_changes_at: match window {
                    Some(WindowState::Open { closes }) => closes,
                    Some(WindowState::Closed { opens }) => opens,
                    None => None,
                },
                last_logon: s.status.last_logon,
                note: s.status.note.clone(),
                messages_log: s
                    .log
                    .as_ref()
                    .and_then(|l| l.messages_path().map(|p| p.to_path_buf())),
            })
            .collect()
    }

    /// The socket options in force on the named session's connection, as the
    /// operating system reports them (`None`: no such session, or not connected).
    /// Linux reports twice the buffer sizes that were asked for (its bookkeeping).
    pub fn socket_options(&self, name: &str) -> Option<io::Result<SocketOptions>> {
        let id = self.find_session(name).ok()?;
        let connection = self.connections.get(self.sessions[id].connection?)?;
        let sock = socket2::SockRef::from(&connection.io.stream);
        Some((|| {
            Ok(SocketOptions {
                nodelay: connection.io.stream.nodelay()?,
                send_buffer_size: sock.send_buffer_size()?,
                recv_buffer_size: sock.recv_buffer_size()?,
            })
        })())
    }

    /// The driver of the session `name` (its full name, or without the
    /// qualifier when that is unambiguous): what the builder's typed
    /// [`application`](crate::AppEngine) accessors read, so that the reactor
    /// never names an application type.
    pub(crate) fn driver(&self, name: &str) -> Option<&D> {
        let key = self.find_session(name).ok()?;
        Some(&self.sessions[key].driver)
    }

    /// [`driver`](Self::driver), to change it.
    pub(crate) fn driver_mut(&mut self, name: &str) -> Option<&mut D> {
        let key = self.find_session(name).ok()?;
        Some(&mut self.sessions[key].driver)
    }

    /// Every session's name and driver, in the order they were added.
    pub(crate) fn drivers(&self) -> impl Iterator<Item = (&str, &D)> {
        self.sessions.iter().map(|s| (s.name.as_str(), &s.driver))
    }

    /// Runs `f` on the named session's driver (to send application messages,
    /// for instance); the engine writes what it queued on this same call.
    pub fn with_session<R>(&mut self, name: &str, f: impl FnOnce(&mut D, Nanos) -> R) -> Option<R> {
        let _turning = self.turning();
        let id = self.find_session(name).ok()?;
        let now = now_nanos();
        let r = f(&mut self.sessions[id].driver, now);
        self.service(id, now);
        Some(r)
    }

    /// Whether a graceful stop was asked for (by a handle, the stop flag, or
    /// the admin interface).
    pub fn stop_requested(&self) -> bool {
        self.stop_requested
            || self
                .options
                .stop_flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Runs until a stop is requested, then shuts down gracefully: the engine
    /// as an [`Agent`] under its [`EngineOptions::idle`] strategy.
    ///
    /// # Errors
    ///
    /// Polling the sockets failed (an interrupted poll is retried, not an
    /// error): the engine stops turning, still shuts down, and returns that
    /// error; or, as [`shutdown`](Self::shutdown), polling failed while it
    /// waited for the Logout answers.
    pub fn run(&mut self) -> io::Result<()> {
        let mut idle = self.options.idle.fresh();
        run_agent(self, &mut idle, &AtomicBool::new(true))
    }

    /// One iteration of the reactor: poll (waiting as the idle strategy says),
    /// handle readiness, commands, timers and reconnects, then idle if nothing
    /// happened. Returns whether anything happened.
    ///
    /// # Errors
    ///
    /// Polling the sockets failed (an interrupted poll is not an error: the
    /// turn did nothing). A failure on one connection is not an error either:
    /// that connection is closed and the session told why.
    pub fn turn(&mut self) -> io::Result<bool> {
        let work = self.work(self.idle.max_wait())?;
        self.idle.idle(work);
        Ok(work > 0)
    }

    /// One duty cycle: the sockets (waiting for readiness up to `may_wait`,
    /// or the next timer if sooner), then housekeeping.
    fn work(&mut self, may_wait: Duration) -> io::Result<usize> {
        let _turning = self.turning();
        if self.options.write_gate.is_some() {
            self.may_write(now_nanos());
        }
        if may_wait.is_zero() {
            // Spinning: no timeout to compute (that visits every session).
            let owns_core = matches!(self.options.idle, Idle::BusySpin(_));
            let mut work = self.io(Duration::ZERO, owns_core)?;
            let now = now_nanos();
            if now >= self.next_housekeeping {
                let every = (self.sessions.len() as Nanos * HOUSEKEEPING_NANOS_PER_1000_SESSIONS
                    / 1000)
                    .max(HOUSEKEEPING_NANOS_PER_1000_SESSIONS);
                self.next_housekeeping = now + every;
                work |= self.housekeeping();
            } else {
                work |= self.drain_commands();
            }
            if !work {
                // The core spins anyway: do the logging thread's work here, a
                // bounded step, rather than have that thread preempt this one.
                if let Some(w) = &self.log_writer {
                    w.help(now);
                }
            }
            self.metrics.engine().turn(work);
            return Ok(usize::from(work));
        }
        let timeout = if self.ready.is_empty() && !self.held_sends_ready() {
            let now = now_nanos();
            let until_timer = self
                .next_timer()
                .map(|t| Duration::from_nanos(t.saturating_sub(now).max(0) as u64));
            until_timer.map_or(may_wait, |t| t.min(may_wait))
        } else {
            Duration::ZERO
        };
        let mut work = self.io(timeout, false)?;
        work |= self.housekeeping();
        self.metrics.engine().turn(work);
        Ok(usize::from(work))
    }

    /// Marks this thread as turning the engine until the guard drops: sessions
    /// and applications run under it, and [`EngineHandle::call`] from them
    /// returns [`CallError::OnEngineThread`](crate::command::CallError::OnEngineThread)
    /// instead of waiting for a reactor that cannot answer. Every public path
    /// into the drivers takes it (a thread-local swap, a few ns a turn).
    #[inline]
    pub(super) fn turning(&self) -> Turning {
        Turning::enter(self.id)
    }

    /// One pass that never waits and never idles, for a caller that runs its own loop
    /// with its own idle strategy (a gateway that also polls Aeron, say): the sockets
    /// every time; timers, reconnects, admin commands and log flushes every
    /// 16th pass. Returns whether anything happened.
    ///
    /// # Errors
    ///
    /// As [`turn`](Self::turn): polling the sockets failed.
    #[inline]
    pub fn poll(&mut self) -> io::Result<bool> {
        let _turning = self.turning();
        if self.options.write_gate.is_some() {
            self.may_write(now_nanos());
        }
        let mut work = self.io(Duration::ZERO, false)?;
        self.polls += 1;
        if self.polls >= POLLS_PER_HOUSEKEEPING {
            self.polls = 0;
            work |= self.housekeeping();
        }
        if !work {
            // As a spinning turn: the logging thread's work in a bounded step.
            if let Some(w) = &self.log_writer {
                w.help(now_nanos());
            }
        }
        self.metrics.engine().turn(work);
        Ok(work)
    }
}

/// The engine is an [`Agent`]: [`AgentRunner`](peregrine_agent::AgentRunner)
/// can run it on a thread of its own, and [`Engine::run`] runs it on the
/// calling one. Its cycles wait in `epoll` under [`Idle::Block`]; it is done
/// once a stop is requested, and closing it logs every session out.
impl<D: SessionDriver> Agent for Engine<D> {
    type Error = io::Error;

    fn do_work(&mut self, may_wait: Duration) -> io::Result<usize> {
        self.work(may_wait)
    }

    fn role_name(&self) -> &str {
        "peregrine-engine"
    }

    fn on_close(&mut self) -> io::Result<()> {
        self.shutdown()
    }

    fn is_done(&self) -> bool {
        self.stop_requested()
    }
}

impl<D: SessionDriver> Drop for Engine<D> {
    /// Senders see [`SubmitError::EngineStopped`](crate::SubmitError::EngineStopped) from now on.
    fn drop(&mut self) {
        self.send_queue.close();
    }
}

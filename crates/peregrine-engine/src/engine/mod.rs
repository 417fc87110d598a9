//! The reactor: one thread, many sessions, non-blocking sockets polled with
//! `mio` (epoll on Linux).

mod commands;
mod connect;
mod connection;
mod listener;
mod read;
mod routing;
mod session;
mod shutdown;
mod timers;
mod write;

use self::connection::Conn;
use self::listener::{listen, open_reserve, Listener};
use self::session::Slot;

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use mio::{Events, Interest, Poll, Token, Waker};

use crate::admin::{json_escape, EngineHandle, Request};
use crate::config::{ConnectionType, SessionSettings};
use crate::driver::{now_nanos, Nanos, SessionDriver};
use crate::idle::{IdleStrategy, Idler};
use crate::log::{RateLimit, SessionLog};

const WAKER: Token = Token(0);
const LISTENER_BASE: usize = 1;
const CONN_BASE: usize = 1 << 16;
const SEC: Nanos = 1_000_000_000;
const READ_CHUNK: usize = 64 * 1024;
/// Reads per readiness before the connection waits for the next turn, so that
/// one busy peer cannot starve the others.
const READS_PER_TURN: usize = 16;
/// [`Engine::poll`] runs timers, commands and log flushes once every this many passes
/// (FIX timers have a resolution of seconds; the socket work is what must not wait).
const POLLS_PER_HOUSEKEEPING: u32 = 16;
/// Listen backlog (the kernel caps it at `net.core.somaxconn`): room for a
/// burst of a thousand initiators logging on at once.
const LISTEN_BACKLOG: i32 = 1024;
/// After `accept` failed for want of resources (descriptors, memory) and the
/// reserve descriptor could not help, the listener is tried again this often.
const ACCEPT_RETRY: Nanos = 50_000_000;

/// Engine-wide options.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// How the reactor waits when there is no work.
    pub idle: IdleStrategy,
    /// Write the per-session message and event logs (under each session's
    /// `FileLogPath`, when it has one).
    pub message_logs: bool,
    /// Raised (e.g. by a SIGINT/SIGTERM handler) to ask for a graceful stop.
    pub stop_flag: Option<Arc<AtomicBool>>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            idle: IdleStrategy::Block,
            message_logs: true,
            stop_flag: None,
        }
    }
}

/// What `/sessions` shows about one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// `FIX.4.4:ISLD->TW`.
    pub name: String,
    /// The session's state name.
    pub state: String,
    /// Whether a connection is bound to it.
    pub connected: bool,
    /// Whether it is logged on.
    pub logged_on: bool,
    /// Next outgoing sequence number.
    pub next_sender_seq: u64,
    /// Next expected incoming sequence number.
    pub next_target_seq: u64,
    /// Bytes waiting to be written.
    pub pending_outbound: usize,
    /// Flagged as a slow consumer.
    pub slow_consumer: bool,
    /// Messages the store found lost when it opened (with `FileStoreDamage=report`).
    pub store_lost_messages: u64,
}

impl SessionInfo {
    /// A JSON object.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"session\":\"{}\",\"state\":\"{}\",\"connected\":{},\"logged_on\":{},\"next_sender_seq\":{},\"next_target_seq\":{},\"pending_outbound\":{},\"slow_consumer\":{},\"store_lost_messages\":{}}}",
            json_escape(&self.name),
            json_escape(&self.state),
            self.connected,
            self.logged_on,
            self.next_sender_seq,
            self.next_target_seq,
            self.pending_outbound,
            self.slow_consumer,
            self.store_lost_messages
        )
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
    pub(super) poll: Poll,
    pub(super) events: Events,
    pub(super) waker: Arc<Waker>,
    pub(super) tx: mpsc::Sender<Request>,
    pub(super) rx: mpsc::Receiver<Request>,
    pub(super) listeners: Vec<Listener>,
    pub(super) conns: Vec<Option<Conn>>,
    pub(super) free: Vec<usize>,
    pub(super) slots: Vec<Slot<D>>,
    pub(super) routes: HashMap<(String, String, String), Vec<usize>>,
    pub(super) options: EngineOptions,
    pub(super) idler: Idler,
    pub(super) read_buf: Vec<u8>,
    /// Connections that still had data when their read budget ran out.
    pub(super) ready: Vec<usize>,
    /// [`Engine::poll`] passes since the last housekeeping.
    pub(super) polls: u32,
    pub(super) stopping: bool,
    pub(super) stop_requested: bool,
    /// A descriptor held in reserve: when `accept` fails because the process is
    /// out of descriptors, it is closed to accept (and at once close) the
    /// waiting connections, so the listen queue drains and the listener keeps
    /// working once descriptors are free again.
    pub(super) reserve: Option<std::fs::File>,
    /// Lines about connections that never named a session, within this limit.
    pub(super) unrouted_lines: RateLimit,
}

impl<D: SessionDriver> std::fmt::Debug for Engine<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("sessions", &self.slots.len())
            .field("listeners", &self.listeners.len())
            .finish()
    }
}

impl<D: SessionDriver> Engine<D> {
    /// An engine with no sessions yet.
    pub fn new(options: EngineOptions) -> io::Result<Self> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let (tx, rx) = mpsc::channel();
        Ok(Engine {
            poll,
            events: Events::with_capacity(1024),
            waker,
            tx,
            rx,
            listeners: Vec::new(),
            conns: Vec::new(),
            free: Vec::new(),
            slots: Vec::new(),
            routes: HashMap::new(),
            idler: Idler::new(options.idle),
            options,
            read_buf: vec![0; READ_CHUNK],
            ready: Vec::new(),
            stopping: false,
            stop_requested: false,
            polls: 0,
            reserve: open_reserve(),
            unrouted_lines: RateLimit::new(now_nanos()),
        })
    }

    /// A handle for other threads (the admin server, tests, signal handlers).
    pub fn handle(&self) -> EngineHandle {
        EngineHandle {
            tx: self.tx.clone(),
            waker: self.waker.clone(),
        }
    }

    /// Adds a session. An acceptor session shares the listener of any earlier
    /// session with the same `SocketAcceptPort` (port 0: one ephemeral port
    /// for all such sessions, see [`listener_addrs`](Self::listener_addrs));
    /// an initiator session connects on the next turn.
    pub fn add_session(&mut self, settings: &SessionSettings, driver: D) -> io::Result<()> {
        let idx = self.slots.len();
        let name = settings.session_name();
        let log = match (&settings.file_log_path, self.options.message_logs) {
            (Some(dir), true) => {
                let mut log = SessionLog::open(dir, &name).map_err(|e| {
                    let why = settings.error(
                        "FileLogPath",
                        format!("cannot write the logs in {}: {e}", dir.display()),
                    );
                    io::Error::new(e.kind(), why.to_string())
                })?;
                log.set_max_message_size(settings.max_message_size);
                Some(log)
            }
            _ => None,
        };
        let mut listener = None;
        if settings.connection_type == ConnectionType::Acceptor {
            let port = settings.socket_accept_port.unwrap_or(0);
            let existing = self
                .listeners
                .iter()
                .position(|l| l.configured_port == port);
            listener = Some(match existing {
                Some(i) => i,
                None => {
                    let host = settings
                        .socket_accept_address
                        .clone()
                        .unwrap_or_else(|| "0.0.0.0".into());
                    let addr = (host.as_str(), port)
                        .to_socket_addrs()?
                        .next()
                        .ok_or_else(|| io::Error::other(format!("cannot resolve {host}")))?;
                    let mut socket = listen(addr).map_err(|e| {
                        io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}"))
                    })?;
                    let i = self.listeners.len();
                    self.poll.registry().register(
                        &mut socket,
                        Token(LISTENER_BASE + i),
                        Interest::READABLE,
                    )?;
                    let local = socket.local_addr()?;
                    tracing::info!("listening on {local}");
                    self.listeners.push(Listener {
                        socket,
                        configured_port: port,
                        local,
                        logon_timeout: Nanos::from(settings.logon_timeout.max(1)) * SEC,
                        max_logon: settings.max_logon_message_size,
                        first_session: idx,
                        retry_at: None,
                        shed: 0,
                        shed_logged_at: 0,
                    });
                    i
                }
            });
            self.routes
                .entry((
                    settings.begin_string.clone(),
                    settings.sender_comp_id.clone(),
                    settings.target_comp_id.clone(),
                ))
                .or_default()
                .push(idx);
        }
        let next_store_sync = driver.store_sync_interval().map(|i| now_nanos() + i);
        let mut slot = Slot {
            name,
            begin: settings.begin_string.clone(),
            sender: settings.sender_comp_id.clone(),
            target: settings.target_comp_id.clone(),
            qualifier: settings.session_qualifier.clone(),
            settings: settings.clone(),
            driver,
            conn: None,
            log,
            slow: false,
            next_connect: 0,
            addr_idx: 0,
            listener,
            next_store_sync,
            lines: RateLimit::new(now_nanos()),
        };
        slot.event("session created", now_nanos());
        self.slots.push(slot);
        Ok(())
    }

    /// The addresses the acceptor listens on, in the order the ports were first named.
    pub fn listener_addrs(&self) -> Vec<SocketAddr> {
        self.listeners.iter().map(|l| l.local).collect()
    }

    /// A snapshot of every session.
    pub fn sessions(&self) -> Vec<SessionInfo> {
        self.slots
            .iter()
            .map(|s| SessionInfo {
                name: s.name.clone(),
                state: s.driver.state_name(),
                connected: s.conn.is_some(),
                logged_on: s.driver.is_logged_on(),
                next_sender_seq: s.driver.next_sender_seq(),
                next_target_seq: s.driver.next_target_seq(),
                pending_outbound: s.driver.outbound().len(),
                slow_consumer: s.slow,
                store_lost_messages: s.driver.store_lost_messages(),
            })
            .collect()
    }

    /// The socket options in force on the named session's connection, as the
    /// operating system reports them (`None`: no such session, or not connected).
    /// Linux reports twice the buffer sizes that were asked for (its bookkeeping).
    pub fn socket_options(&self, name: &str) -> Option<io::Result<SocketOptions>> {
        let i = self.find_session(name).ok()?;
        let conn = self.conns.get(self.slots[i].conn?)?.as_ref()?;
        let sock = socket2::SockRef::from(&conn.stream);
        Some((|| {
            Ok(SocketOptions {
                nodelay: conn.stream.nodelay()?,
                send_buffer_size: sock.send_buffer_size()?,
                recv_buffer_size: sock.recv_buffer_size()?,
            })
        })())
    }

    /// Runs `f` on the named session's driver (to send application messages,
    /// for instance); the engine writes what it queued on this same call.
    pub fn with_session<R>(&mut self, name: &str, f: impl FnOnce(&mut D, Nanos) -> R) -> Option<R> {
        let i = self.find_session(name).ok()?;
        let now = now_nanos();
        let r = f(&mut self.slots[i].driver, now);
        self.service(i, now);
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

    /// Runs until a stop is requested, then shuts down gracefully.
    pub fn run(&mut self) -> io::Result<()> {
        while !self.stop_requested() {
            self.turn()?;
        }
        self.shutdown()
    }

    /// One iteration of the reactor: poll (waiting as the idle strategy says),
    /// handle readiness, commands, timers and reconnects. Returns whether
    /// anything happened.
    pub fn turn(&mut self) -> io::Result<bool> {
        let now = now_nanos();
        let until_timer = self
            .next_timer()
            .map(|t| Duration::from_nanos(t.saturating_sub(now).max(0) as u64));
        let timeout = if self.ready.is_empty() {
            self.idler.poll_timeout(until_timer)
        } else {
            Duration::ZERO
        };
        let mut work = self.io(timeout)?;
        work |= self.housekeeping();
        if work {
            self.idler.reset();
        } else {
            self.idler.after_idle_poll();
        }
        Ok(work)
    }

    /// One pass that never waits and never idles, for a caller that runs its own loop
    /// with its own idle strategy (a gateway that also polls Aeron, say): the sockets
    /// every time; timers, reconnects, admin commands and log flushes every
    /// 16th pass. Returns whether anything happened.
    #[inline]
    pub fn poll(&mut self) -> io::Result<bool> {
        let mut work = self.io(Duration::ZERO)?;
        self.polls += 1;
        if self.polls >= POLLS_PER_HOUSEKEEPING {
            self.polls = 0;
            work |= self.housekeeping();
        }
        Ok(work)
    }
}

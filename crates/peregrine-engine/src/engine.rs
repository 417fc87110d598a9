//! The reactor: one thread, many sessions, non-blocking sockets polled with
//! `mio` (epoll on Linux).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};

use crate::admin::{json_escape, Command, EngineHandle, Reply, Request};
use crate::config::{ConnectionType, SessionSettings, SlowConsumerAction};
use crate::driver::{now_nanos, DriverEvent, Nanos, SessionDriver};
use crate::idle::{IdleStrategy, Idler};
use crate::log::{Escaped, RateLimit, SessionLog};

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

struct Slot<D> {
    name: String,
    begin: String,
    sender: String,
    target: String,
    qualifier: Option<String>,
    settings: SessionSettings,
    driver: D,
    conn: Option<usize>,
    log: Option<SessionLog>,
    slow: bool,
    next_connect: Nanos,
    addr_idx: usize,
    listener: Option<usize>,
    /// When to give a store with a time-based fsync policy its chance to fsync.
    next_store_sync: Option<Nanos>,
    /// Event lines the peer can cause at will (garbled input, rejects) are
    /// written within this limit.
    lines: RateLimit,
}

impl<D> Slot<D> {
    fn event(&mut self, text: &str, now: Nanos) {
        tracing::info!(session = %self.name, "{text}");
        if let Some(l) = &mut self.log {
            l.event(text, now);
        }
    }

    /// Says how many lines the limit left out, once it lets a line through again.
    fn report_left_out(&mut self, now: Nanos) {
        if self.lines.suppressed() > 0 {
            if let Some(n) = self.lines.allow(now) {
                self.event(&format!("{n} lines left out by the log rate limit"), now);
            }
        }
        if let Some(l) = &mut self.log {
            l.report_left_out(now, false);
        }
    }

    /// A connection begins or ends: a fresh line limit (the old one's count said).
    fn new_connection(&mut self, now: Nanos) {
        let left_out = self.lines.suppressed();
        if left_out > 0 {
            self.event(
                &format!("{left_out} lines left out by the log rate limit"),
                now,
            );
        }
        self.lines = RateLimit::new(now);
    }

    /// An event the peer can repeat at will: within the session's line limit.
    fn peer_event(&mut self, text: &str, now: Nanos) {
        match self.lines.allow(now) {
            None => {}
            Some(0) => self.event(text, now),
            Some(n) => self.event(&format!("{text} ({n} such lines left out before)"), now),
        }
    }
}

struct Conn {
    stream: TcpStream,
    peer: Option<SocketAddr>,
    session: Option<usize>,
    /// Bytes of an acceptor connection before its Logon names a session, at
    /// most the listener's `max_logon` (`MaxLogonMessageSize`).
    pending: Vec<u8>,
    opened_at: Nanos,
    connecting: bool,
    listener: Option<usize>,
    /// The peer closed its side (seen in a readiness event): read to the end
    /// even after a short read, which otherwise proves the socket drained.
    peer_closed: bool,
}

struct Listener {
    socket: TcpListener,
    configured_port: u16,
    local: SocketAddr,
    logon_timeout: Nanos,
    /// What a connection may send before its Logon is complete.
    max_logon: usize,
    first_session: usize,
    /// When to try `accept` again after it failed for want of resources.
    retry_at: Option<Nanos>,
    /// Connections shed (accepted and closed at once) since the last log line.
    shed: u64,
    /// When the last line about shedding was logged.
    shed_logged_at: Nanos,
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
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    slots: Vec<Slot<D>>,
    routes: HashMap<(String, String, String), Vec<usize>>,
    options: EngineOptions,
    idler: Idler,
    read_buf: Vec<u8>,
    /// Connections that still had data when their read budget ran out.
    ready: Vec<usize>,
    /// [`Engine::poll`] passes since the last housekeeping.
    polls: u32,
    stopping: bool,
    stop_requested: bool,
    /// A descriptor held in reserve: when `accept` fails because the process is
    /// out of descriptors, it is closed to accept (and at once close) the
    /// waiting connections, so the listen queue drains and the listener keeps
    /// working once descriptors are free again.
    reserve: Option<std::fs::File>,
    /// Lines about connections that never named a session, within this limit.
    unrouted_lines: RateLimit,
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

    /// Commands, timers and reconnects, log flushes.
    fn housekeeping(&mut self) -> bool {
        let mut work = self.drain_commands();
        work |= self.timers();
        let now = now_nanos();
        for s in &mut self.slots {
            s.report_left_out(now);
        }
        if self.unrouted_lines.suppressed() > 0 {
            if let Some(n) = self.unrouted_lines.allow(now) {
                tracing::info!("{n} lines about connections that never named a session left out");
            }
        }
        for l in self.slots.iter_mut().filter_map(|s| s.log.as_mut()) {
            l.flush();
        }
        work
    }

    /// Polls the sockets (waiting at most `timeout`) and handles what is ready.
    fn io(&mut self, timeout: Duration) -> io::Result<bool> {
        let mut events = std::mem::replace(&mut self.events, Events::with_capacity(0));
        let polled = self.poll.poll(&mut events, Some(timeout));
        if let Err(e) = polled {
            self.events = events;
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        let mut work = !events.is_empty();
        for ev in events.iter() {
            let t = ev.token().0;
            if t == WAKER.0 {
                continue;
            } else if t < CONN_BASE {
                self.accept_all(t - LISTENER_BASE);
            } else {
                let c = t - CONN_BASE;
                if ev.is_read_closed() || ev.is_error() {
                    if let Some(conn) = self.conns.get_mut(c).and_then(|x| x.as_mut()) {
                        conn.peer_closed = true;
                    }
                }
                if ev.is_writable() || ev.is_error() || ev.is_write_closed() {
                    self.on_writable(c);
                }
                if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                    self.on_readable(c);
                }
            }
        }
        self.events = events;
        if !self.ready.is_empty() {
            work = true;
            let ready = std::mem::take(&mut self.ready);
            for &c in &ready {
                self.on_readable(c);
            }
            // Keep the allocation for next time.
            let mut ready = ready;
            ready.clear();
            if self.ready.is_empty() {
                self.ready = ready;
            }
        }
        Ok(work)
    }

    /// Graceful shutdown: stops accepting, sends Logout on every logged-on
    /// session, waits for the replies up to the longest `LogoutTimeout`
    /// (plus a second), then closes every connection.
    pub fn shutdown(&mut self) -> io::Result<()> {
        self.stopping = true;
        let now = now_nanos();
        for l in &mut self.listeners {
            let _ = self.poll.registry().deregister(&mut l.socket);
        }
        let mut wait: Nanos = 0;
        for i in 0..self.slots.len() {
            if self.slots[i].conn.is_none() {
                continue;
            }
            if self.slots[i].driver.is_logged_on() {
                wait = wait.max(Nanos::from(self.slots[i].settings.logout_timeout) * SEC);
                self.slots[i].event("shutting down: sending Logout", now);
                self.slots[i].driver.logout(now, None);
                self.service(i, now);
            } else if let Some(c) = self.slots[i].conn {
                self.close_conn(c, "shutting down", now);
            }
        }
        let deadline = now + wait + SEC;
        while self.slots.iter().any(|s| s.conn.is_some()) && now_nanos() < deadline {
            self.turn()?;
        }
        let now = now_nanos();
        for c in 0..self.conns.len() {
            if self.conns[c].is_some() {
                self.close_conn(c, "shut down", now);
            }
        }
        for s in &mut self.slots {
            let left_out = s.lines.suppressed();
            if left_out > 0 {
                s.event(
                    &format!("{left_out} lines left out by the log rate limit"),
                    now,
                );
            }
            if let Some(l) = &mut s.log {
                l.report_left_out(now, true);
            }
            if let Err(e) = s.driver.on_shutdown() {
                s.event(&format!("store sync failed: {e}"), now);
            }
            if let Some(l) = s.log.as_mut() {
                l.flush();
            }
        }
        Ok(())
    }

    fn next_timer(&self) -> Option<Nanos> {
        let mut t: Option<Nanos> = None;
        let mut min = |x: Nanos| t = Some(t.map_or(x, |y| y.min(x)));
        for s in &self.slots {
            if let Some(d) = s.driver.next_deadline() {
                min(d);
            }
            if let Some(d) = s.next_store_sync {
                min(d);
            }
            if s.settings.connection_type == ConnectionType::Initiator
                && s.conn.is_none()
                && !self.stopping
            {
                min(s.next_connect);
            }
        }
        for l in &self.listeners {
            if let Some(r) = l.retry_at {
                min(r);
            }
        }
        for c in self.conns.iter().flatten() {
            if c.session.is_none() {
                if let Some(l) = c.listener {
                    min(c.opened_at + self.listeners[l].logon_timeout);
                }
            } else if let (true, Some(i)) = (c.connecting, c.session) {
                min(c.opened_at + Nanos::from(self.slots[i].settings.logon_timeout.max(1)) * SEC);
            }
        }
        t
    }

    fn timers(&mut self) -> bool {
        let now = now_nanos();
        let mut work = false;
        for i in 0..self.slots.len() {
            if self.slots[i]
                .driver
                .next_deadline()
                .is_some_and(|d| d <= now)
            {
                self.slots[i].driver.on_timer(now);
                work = true;
            }
            self.service(i, now);
            let s = &mut self.slots[i];
            if s.next_store_sync.is_some_and(|d| d <= now) {
                let interval = s.driver.store_sync_interval().unwrap_or(SEC);
                s.next_store_sync = Some(now + interval);
                if let Err(e) = s.driver.sync_store_if_due() {
                    s.event(&format!("store sync failed: {e}"), now);
                }
                work = true;
            }
            if s.settings.connection_type == ConnectionType::Initiator
                && s.conn.is_none()
                && !self.stopping
                && s.next_connect <= now
            {
                self.connect(i, now);
                work = true;
            }
        }
        for l in 0..self.listeners.len() {
            if self.listeners[l].retry_at.is_some_and(|r| r <= now) {
                self.accept_all(l);
                work = true;
            }
        }
        for c in 0..self.conns.len() {
            let Some(conn) = self.conns[c].as_ref() else {
                continue;
            };
            if conn.session.is_none()
                && conn
                    .listener
                    .is_some_and(|l| conn.opened_at + self.listeners[l].logon_timeout <= now)
            {
                self.close_conn(c, "no logon in time", now);
                work = true;
            } else if let (true, Some(i)) = (conn.connecting, conn.session) {
                let limit = Nanos::from(self.slots[i].settings.logon_timeout.max(1)) * SEC;
                if conn.opened_at + limit <= now {
                    self.slots[i].addr_idx += 1;
                    self.close_conn(c, "connect timed out", now);
                    work = true;
                }
            }
        }
        work
    }

    fn add_conn(&mut self, conn: Conn) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.conns[i] = Some(conn);
                i
            }
            None => {
                self.conns.push(Some(conn));
                self.conns.len() - 1
            }
        }
    }

    fn tune(stream: &TcpStream, s: &SessionSettings) {
        let _ = stream.set_nodelay(s.socket_nodelay);
        let sock = socket2::SockRef::from(stream);
        if let Some(n) = s.socket_send_buffer_size {
            let _ = sock.set_send_buffer_size(n);
        }
        if let Some(n) = s.socket_receive_buffer_size {
            let _ = sock.set_recv_buffer_size(n);
        }
    }

    fn accept_all(&mut self, l: usize) {
        if l >= self.listeners.len() || self.stopping {
            return;
        }
        self.listeners[l].retry_at = None;
        loop {
            match self.listeners[l].socket.accept() {
                Ok((stream, peer)) => self.accepted(l, stream, peer),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if out_of_resources(&e) => {
                    // Out of descriptors: shed the waiting connections with the
                    // reserve descriptor, so the queue drains and later connections
                    // raise new readiness events (edge-triggered: a full queue would
                    // raise none, and the listener would never accept again).
                    if self.shed_one(l) {
                        continue;
                    }
                    let now = now_nanos();
                    self.listeners[l].retry_at = Some(now + ACCEPT_RETRY);
                    self.log_shed(l, &e, now);
                    break;
                }
                // This connection's own trouble (reset before it was accepted).
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ECONNABORTED | libc::EPROTO | libc::EPERM)
                    ) =>
                {
                    continue
                }
                Err(e) => {
                    tracing::warn!("accept failed on {}: {e}", self.listeners[l].local);
                    self.listeners[l].retry_at = Some(now_nanos() + ACCEPT_RETRY);
                    break;
                }
            }
        }
        if self.listeners[l].shed > 0 && self.listeners[l].retry_at.is_none() {
            let e = io::Error::from_raw_os_error(libc::EMFILE);
            self.log_shed(l, &e, now_nanos());
        }
    }

    /// Closes the reserve descriptor, accepts one connection and closes it, and
    /// takes the reserve back. Whether a connection was shed.
    fn shed_one(&mut self, l: usize) -> bool {
        let Some(reserve) = self.reserve.take() else {
            self.reserve = open_reserve();
            return false;
        };
        drop(reserve);
        let accepted = self.listeners[l].socket.accept();
        // Closed before the reserve is taken back: at the limit, the reserve
        // needs the descriptor the shed connection held.
        let shed = match accepted {
            Ok((stream, _)) => {
                drop(stream);
                self.listeners[l].shed += 1;
                true
            }
            Err(_) => false,
        };
        self.reserve = open_reserve();
        shed && self.reserve.is_some()
    }

    /// One warning for the connections shed so far (at most one a second: the
    /// count says how many).
    fn log_shed(&mut self, l: usize, e: &io::Error, now: Nanos) {
        let listener = &mut self.listeners[l];
        if listener.shed == 0 && listener.retry_at.is_none() {
            return;
        }
        if now - listener.shed_logged_at < SEC {
            return;
        }
        listener.shed_logged_at = now;
        tracing::warn!(
            "listener {}: cannot accept ({e}); {} connection(s) shed since the last report",
            listener.local,
            listener.shed
        );
        listener.shed = 0;
    }

    /// A connection accepted on listener `l`: it waits for its Logon.
    fn accepted(&mut self, l: usize, stream: TcpStream, peer: SocketAddr) {
        let first = self.listeners[l].first_session;
        Self::tune(&stream, &self.slots[first].settings);
        let c = self.add_conn(Conn {
            stream,
            peer: Some(peer),
            session: None,
            pending: Vec::new(),
            opened_at: now_nanos(),
            connecting: false,
            listener: Some(l),
            peer_closed: false,
        });
        let conn = self.conns[c].as_mut().expect("just added");
        if let Err(e) = self.poll.registry().register(
            &mut conn.stream,
            Token(CONN_BASE + c),
            Interest::READABLE | Interest::WRITABLE,
        ) {
            tracing::warn!("cannot register a connection from {peer}: {e}");
            self.conns[c] = None;
            self.free.push(c);
            return;
        }
        tracing::debug!("connection from {peer}");
    }

    fn connect(&mut self, i: usize, now: Nanos) {
        let s = &mut self.slots[i];
        s.next_connect = now + Nanos::from(s.settings.reconnect_interval.max(1)) * SEC;
        if let Some(window) = crate::fix::schedule(&s.settings) {
            if !window.contains(now) {
                // Outside the session's hours: wait for them to begin.
                s.next_connect = window.next_boundary(now);
                return;
            }
        }
        if s.settings.connect_addresses.is_empty() {
            return;
        }
        let (host, port) =
            s.settings.connect_addresses[s.addr_idx % s.settings.connect_addresses.len()].clone();
        let addr = match (host.as_str(), port)
            .to_socket_addrs()
            .map(|mut a| a.next())
        {
            Ok(Some(a)) => a,
            _ => {
                s.event(&format!("cannot resolve {host}:{port}"), now);
                s.addr_idx += 1;
                return;
            }
        };
        let stream = match TcpStream::connect(addr) {
            Ok(st) => st,
            Err(e) => {
                s.event(&format!("connect to {addr} failed: {e}"), now);
                s.addr_idx += 1;
                return;
            }
        };
        s.event(&format!("connecting to {addr}"), now);
        Self::tune(&stream, &s.settings);
        let c = self.add_conn(Conn {
            stream,
            peer: Some(addr),
            session: Some(i),
            pending: Vec::new(),
            opened_at: now,
            connecting: true,
            listener: None,
            peer_closed: false,
        });
        let conn = self.conns[c].as_mut().expect("just added");
        if let Err(e) = self.poll.registry().register(
            &mut conn.stream,
            Token(CONN_BASE + c),
            Interest::READABLE | Interest::WRITABLE,
        ) {
            self.conns[c] = None;
            self.free.push(c);
            self.slots[i].event(&format!("cannot register: {e}"), now);
            return;
        }
        self.slots[i].conn = Some(c);
    }

    fn on_writable(&mut self, c: usize) {
        let now = now_nanos();
        let Some(conn) = self.conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        if conn.connecting {
            match conn.stream.take_error() {
                Ok(Some(e)) | Err(e) => {
                    let i = conn.session.expect("initiator");
                    let msg = format!("connect to {:?} failed: {e}", conn.peer);
                    self.slots[i].addr_idx += 1;
                    self.close_conn(c, &msg, now);
                    return;
                }
                Ok(None) => {}
            }
            match conn.stream.peer_addr() {
                Ok(_) => {
                    conn.connecting = false;
                    let i = conn.session.expect("initiator");
                    let peer = conn.peer;
                    let s = &mut self.slots[i];
                    s.new_connection(now);
                    s.event(&format!("connected to {peer:?}"), now);
                    s.driver.on_connected(now);
                }
                Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
                Err(e) => {
                    let i = conn.session.expect("initiator");
                    self.slots[i].addr_idx += 1;
                    self.close_conn(c, &format!("connect failed: {e}"), now);
                    return;
                }
            }
        }
        if let Some(i) = self.conns[c].as_ref().and_then(|x| x.session) {
            self.service(i, now);
        }
    }

    /// Reads what connection `c` has, up to [`READS_PER_TURN`] reads; a session
    /// handles all of it before one commit and one write ([`Engine::service`]), so
    /// a durable store's cost is per batch, not per message, and a busy peer gets
    /// no more than its share of the turn.
    fn on_readable(&mut self, c: usize) {
        let mut serviced: Option<usize> = None;
        let mut drained = false;
        for _ in 0..READS_PER_TURN {
            let Some(conn) = self.conns.get_mut(c).and_then(|x| x.as_mut()) else {
                break;
            };
            if conn.connecting {
                break;
            }
            match conn.stream.read(&mut self.read_buf) {
                Ok(0) => {
                    if let Some(i) = serviced.take() {
                        self.service(i, now_nanos());
                    }
                    self.close_conn(c, "peer closed the connection", now_nanos());
                    return;
                }
                Ok(n) => {
                    let now = now_nanos();
                    match conn.session {
                        Some(i) => {
                            let s = &mut self.slots[i];
                            if let Some(l) = &mut s.log {
                                l.incoming(&self.read_buf[..n], now);
                            }
                            s.driver.on_bytes(&self.read_buf[..n], now);
                            serviced = Some(i);
                        }
                        None => {
                            // Before its Logon names a session, a connection gets
                            // room for a Logon and no more (MaxLogonMessageSize).
                            let limit = conn
                                .listener
                                .map_or(usize::MAX, |l| self.listeners[l].max_logon);
                            let take = n.min(limit - conn.pending.len());
                            if conn.pending.capacity() == 0 {
                                conn.pending.reserve_exact(limit.min(READ_CHUNK));
                            }
                            conn.pending.extend_from_slice(&self.read_buf[..take]);
                            match self.route(c, now) {
                                Some(i) => {
                                    // What came after the Logon in this read.
                                    let rest = &self.read_buf[take..n];
                                    let s = &mut self.slots[i];
                                    if !rest.is_empty() {
                                        if let Some(l) = &mut s.log {
                                            l.incoming(rest, now);
                                        }
                                        s.driver.on_bytes(rest, now);
                                    }
                                    serviced = Some(i);
                                }
                                None if take < n
                                    && self.conns.get(c).is_some_and(Option::is_some) =>
                                {
                                    let why = format!(
                                        "more than {limit} bytes without a complete Logon (MaxLogonMessageSize)"
                                    );
                                    self.close_conn(c, &why, now);
                                    return;
                                }
                                None => {}
                            }
                        }
                    }
                    let peer_closed = self
                        .conns
                        .get(c)
                        .and_then(|x| x.as_ref())
                        .is_some_and(|x| x.peer_closed);
                    if n < self.read_buf.len() && !peer_closed {
                        // The socket is drained: with edge-triggered readiness any
                        // later data raises a new event, so the read that would only
                        // say WouldBlock is saved (a system call per message). Not
                        // when the peer's close came with the data: that raises no
                        // new event, and only a read of 0 shows it.
                        drained = true;
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    drained = true;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(i) = serviced.take() {
                        self.service(i, now_nanos());
                    }
                    self.close_conn(c, &format!("read failed: {e}"), now_nanos());
                    return;
                }
            }
        }
        if let Some(i) = serviced {
            self.service(i, now_nanos());
        }
        // Budget spent with data perhaps still waiting: edge-triggered readiness
        // will not say so again, so come back next turn.
        if !drained && self.conns.get(c).is_some_and(Option::is_some) && !self.ready.contains(&c) {
            self.ready.push(c);
        }
    }

    /// A new acceptor connection's first message picks its session, which then
    /// has the bytes (the caller services it). The session, once routed.
    fn route(&mut self, c: usize, now: Nanos) -> Option<usize> {
        let conn = self.conns[c].as_mut().expect("live");
        let id = match peregrine_session::peek_session_id(&conn.pending) {
            None => return None,
            Some(Err(e)) => {
                let why = format!("first message unusable ({e:?})");
                self.close_conn(c, &why, now);
                return None;
            }
            Some(Ok(id)) => id,
        };
        let key = (id.begin_string, id.sender_comp_id, id.target_comp_id);
        let listener = conn.listener;
        let candidates = self.routes.get(&key).cloned().unwrap_or_default();
        let found = candidates
            .into_iter()
            .find(|&i| self.slots[i].listener == listener);
        let Some(i) = found else {
            // The CompIDs come from the wire: escaped, so they cannot forge a line.
            let why = format!(
                "first message names no configured session ({}:{}->{})",
                Escaped(key.0.as_bytes()),
                Escaped(key.1.as_bytes()),
                Escaped(key.2.as_bytes())
            );
            self.close_conn(c, &why, now);
            return None;
        };
        if self.slots[i].conn.is_some() {
            let why = format!("session {} is already connected", self.slots[i].name);
            self.close_conn(c, &why, now);
            return None;
        }
        if self.stopping {
            self.close_conn(c, "shutting down", now);
            return None;
        }
        let conn = self.conns[c].as_mut().expect("live");
        conn.session = Some(i);
        let pending = std::mem::take(&mut conn.pending);
        let peer = conn.peer;
        Self::tune(&conn.stream, &self.slots[i].settings);
        let s = &mut self.slots[i];
        s.conn = Some(c);
        s.slow = false;
        s.new_connection(now);
        s.event(&format!("accepted connection from {peer:?}"), now);
        s.driver.on_connected(now);
        if let Some(l) = &mut s.log {
            l.incoming(&pending, now);
        }
        s.driver.on_bytes(&pending, now);
        Some(i)
    }

    /// Commits what the session stored, writes what it queued, handles its
    /// events, checks the slow-consumer limits.
    fn service(&mut self, i: usize, now: Nanos) {
        self.slots[i].driver.commit();
        loop {
            self.flush(i, now);
            let Some(ev) = self.slots[i].driver.poll_event() else {
                break;
            };
            match ev {
                DriverEvent::Disconnect(why) => {
                    self.flush(i, now);
                    match self.slots[i].conn {
                        Some(c) => self.close_conn(c, &why, now),
                        // Nothing to close: let the session finish its transition.
                        None => self.slots[i].driver.on_disconnected(now),
                    }
                }
                DriverEvent::LoggedOn => self.slots[i].event("logged on", now),
                DriverEvent::LoggedOut => self.slots[i].event("logged out", now),
                DriverEvent::Info(t) => self.slots[i].peer_event(&t, now),
                DriverEvent::Warning(t) => {
                    tracing::warn!(session = %self.slots[i].name, "{t}");
                    if let Some(l) = &mut self.slots[i].log {
                        l.event(&t, now);
                    }
                }
            }
        }
        let s = &mut self.slots[i];
        let pending = s.driver.outbound().len();
        if let Some(c) = s
            .conn
            .filter(|_| pending > s.settings.slow_consumer_hard_limit)
        {
            // Flagging has a ceiling too: past it the connection goes, whatever
            // the action (what was not written is resent after the next Logon).
            let why = format!(
                "slow consumer: {pending} bytes pending, over SlowConsumerHardLimit ({}), disconnecting",
                s.settings.slow_consumer_hard_limit
            );
            tracing::warn!(session = %s.name, "{why}");
            self.close_conn(c, &why, now);
        } else if s.conn.is_some() && pending > s.settings.max_outbound_queue_bytes {
            match s.settings.slow_consumer_action {
                SlowConsumerAction::Disconnect => {
                    let why = format!(
                        "slow consumer: {pending} bytes pending (limit {}), disconnecting",
                        s.settings.max_outbound_queue_bytes
                    );
                    let c = s.conn.expect("connected");
                    tracing::warn!(session = %s.name, "{why}");
                    self.close_conn(c, &why, now);
                }
                SlowConsumerAction::Flag => {
                    if !s.slow {
                        s.slow = true;
                        let why = format!(
                            "slow consumer: {pending} bytes pending (limit {})",
                            s.settings.max_outbound_queue_bytes
                        );
                        tracing::warn!(session = %s.name, "{why}");
                        s.event(&why, now);
                    }
                }
            }
        } else if s.slow && s.conn.is_some() && pending <= s.settings.max_outbound_queue_bytes / 2 {
            s.slow = false;
            s.event("no longer a slow consumer", now);
        }
    }

    fn flush(&mut self, i: usize, now: Nanos) {
        let s = &mut self.slots[i];
        let Some(c) = s.conn else {
            // Nothing can be written without a connection; the session
            // keeps (or drops) its queue as it sees fit.
            return;
        };
        let Some(conn) = self.conns[c].as_mut() else {
            return;
        };
        if conn.connecting {
            return;
        }
        loop {
            let out = s.driver.outbound();
            if out.is_empty() {
                return;
            }
            match conn.stream.write(out) {
                Ok(0) => return,
                Ok(n) => {
                    if let Some(l) = &mut s.log {
                        l.outgoing(&out[..n], now);
                    }
                    s.driver.consume_outbound(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let why = format!("write failed: {e}");
                    self.close_conn(c, &why, now);
                    return;
                }
            }
        }
    }

    fn close_conn(&mut self, c: usize, why: &str, now: Nanos) {
        let Some(mut conn) = self.conns.get_mut(c).and_then(|x| x.take()) else {
            return;
        };
        self.free.push(c);
        let _ = self.poll.registry().deregister(&mut conn.stream);
        let _ = conn.stream.shutdown(std::net::Shutdown::Both);
        match conn.session {
            Some(i) if self.slots[i].conn == Some(c) => {
                let s = &mut self.slots[i];
                s.conn = None;
                s.slow = false;
                s.event(&format!("disconnected: {why}"), now);
                // This connection's line limit ends with it (its count said).
                s.new_connection(now);
                if !conn.connecting {
                    s.driver.on_disconnected(now);
                }
                if s.settings.connection_type == ConnectionType::Initiator {
                    s.next_connect = now + Nanos::from(s.settings.reconnect_interval.max(1)) * SEC;
                }
                // Events raised by the disconnect itself (logged out, …).
                while let Some(ev) = s.driver.poll_event() {
                    if let DriverEvent::Info(t) = ev {
                        s.event(&t, now);
                    }
                }
            }
            // A connection that never became a session: anyone can open these at will.
            _ => match self.unrouted_lines.allow(now) {
                None => {}
                Some(0) => tracing::info!("closed connection from {:?}: {why}", conn.peer),
                Some(n) => tracing::info!(
                    "closed connection from {:?}: {why} ({n} such lines left out before)",
                    conn.peer
                ),
            },
        }
    }

    fn find_session(&self, name: &str) -> Result<usize, Reply> {
        if let Some(i) = self.slots.iter().position(|s| s.name == name) {
            return Ok(i);
        }
        // Without the qualifier, if that names exactly one session.
        let matches: Vec<usize> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.qualifier.is_some() && format!("{}:{}->{}", s.begin, s.sender, s.target) == name
            })
            .map(|(i, _)| i)
            .collect();
        match matches.as_slice() {
            [i] => Ok(*i),
            [] => Err(Reply::new(404, format!("no session {name}\n"))),
            _ => Err(Reply::new(
                400,
                format!("{name} names several sessions; add the qualifier\n"),
            )),
        }
    }

    fn drain_commands(&mut self) -> bool {
        let mut work = false;
        while let Ok((cmd, reply)) = self.rx.try_recv() {
            work = true;
            let answer = self.command(cmd);
            let _ = reply.send(answer);
        }
        work
    }

    fn command(&mut self, cmd: Command) -> Reply {
        match cmd {
            Command::Stop => {
                self.stop_requested = true;
                Reply::new(200, "stopping\n")
            }
            Command::ListSessions => {
                let items: Vec<String> = self.sessions().iter().map(SessionInfo::to_json).collect();
                Reply::new(200, format!("[{}]\n", items.join(",")))
            }
            Command::SetSeqNum {
                session,
                next_sender,
                next_target,
            } => {
                let i = match self.find_session(&session) {
                    Ok(i) => i,
                    Err(r) => return r,
                };
                let now = now_nanos();
                let s = &mut self.slots[i];
                if let Some(n) = next_sender {
                    if let Err(e) = s.driver.set_next_sender_seq(n) {
                        return Reply::new(500, format!("{e}\n"));
                    }
                    s.event(&format!("operator set next sender seq to {n}"), now);
                }
                if let Some(n) = next_target {
                    if let Err(e) = s.driver.set_next_target_seq(n) {
                        return Reply::new(500, format!("{e}\n"));
                    }
                    s.event(&format!("operator set next target seq to {n}"), now);
                }
                Reply::new(
                    200,
                    format!(
                        "OK {} next_sender_seq={} next_target_seq={}\n",
                        s.name,
                        s.driver.next_sender_seq(),
                        s.driver.next_target_seq()
                    ),
                )
            }
        }
    }
}

/// A non-blocking listener on `addr` with [`LISTEN_BACKLOG`].
fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(TcpListener::from_std(socket.into()))
}

/// The reserve descriptor (see [`Engine`]'s `reserve`).
fn open_reserve() -> Option<std::fs::File> {
    std::fs::File::open(if cfg!(windows) { "NUL" } else { "/dev/null" }).ok()
}

/// Whether `accept` failed for want of a resource that may come back
/// (descriptors, kernel memory) rather than for this one connection.
fn out_of_resources(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

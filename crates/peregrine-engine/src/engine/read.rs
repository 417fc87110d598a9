//! Readiness and reading: what epoll says, reads within a per-turn budget.
//!
//! An engine that owns its core (`IdleStrategy=busy-spin`, turned by its own loop:
//! [`Engine::turn`], [`Engine::run`], or an agent runner calling its `do_work`) with few
//! connections reads their sockets
//! directly on most turns instead of asking epoll which are ready (Agrona's
//! `TransportPoller` does the same below its iteration threshold): a read that finds
//! a message saves the `epoll_wait` before it — one system call less on every
//! message's path (§4 of BENCHMARKS.md). Epoll is still asked every
//! [`EPOLL_EVERY_DIRECT_TURNS`] turns, for what only it tells: accepts, connects
//! completing, the waker.
//!
//! While it reads them directly, those sockets are out of epoll altogether: a
//! registered socket's every incoming segment runs epoll's wake-up callback in the
//! sending process's system call (on loopback, the sender's `send` runs the
//! receiver's TCP input), on every message's path; the engine reads the socket
//! anyway. Out of epoll, what only epoll would tell of them is had otherwise: a
//! peer's close and a reset are what the next read returns, and a write that would
//! block is tried again on every direct turn while bytes wait (the writable event's
//! job; while a slow consumer's socket stays full, each direct turn makes one failed
//! `write`). A turn that may not read directly (a fifth connection, [`Engine::poll`],
//! an agent runner's `do_work` asked to wait) puts them back first; epoll reports at
//! once what is readable or writable then. Out of epoll, the §4 round trip is 0.3–0.6 µs
//! shorter (BENCHMARKS.md §4).
//!
//! Only under busy-spin: a read that finds nothing costs about twice a zero-timeout
//! `epoll_wait` (≈ 245 against 107 ns here), so a thread that yields its core after a
//! number of idle turns (`spin-then-yield`) would hold it longer, and a thread sharing
//! that core waits longer — measured in §3, where it cost the e2e p50 16 µs. Nor
//! under [`Engine::poll`]: its caller's own loop decides how it idles.

use std::io;
use std::time::Duration;

use mio::Events;

use crate::driver::{now_nanos, SessionDriver};
use peregrine_session::DisconnectReason;

use super::connection::Connection;
use super::ids::{ConnectionKey, Readiness, SessionKey};
use super::transport::{failure, TransportError};
use super::{Engine, READ_CHUNK};

/// Reads per readiness before the connection waits for the next turn, so that
/// one busy peer cannot starve the others.
const READS_PER_TURN: usize = 16;

/// At most this many connections, a spinning engine reads them directly (Agrona's
/// threshold is 5; reading more sockets than this on every turn costs more than one
/// `epoll_wait`).
pub(super) const DIRECT_READ_MAX_CONNECTIONS: usize = 4;

/// Under direct reads, every this many turns epoll is asked instead: an accept or a
/// completed connect waits at most this many turns (a few microseconds) longer than
/// it would under epoll alone. That turn neither reads nor writes the connections out
/// of epoll: what arrives then waits one turn more.
pub(super) const EPOLL_EVERY_DIRECT_TURNS: u32 = 8;

impl<D: SessionDriver> Engine<D> {
    /// Polls the sockets (waiting at most `timeout`) and handles what is ready;
    /// with `may_read_directly` (a busy-spinning engine's own turn), reads few
    /// connections without asking epoll on most turns.
    pub(super) fn io(&mut self, timeout: Duration, may_read_directly: bool) -> io::Result<bool> {
        let reading_directly = may_read_directly
            && timeout.is_zero()
            && (1..=DIRECT_READ_MAX_CONNECTIONS).contains(&self.connections.len());
        if self.reading_directly && !reading_directly {
            self.watch_all();
        }
        self.reading_directly = reading_directly;
        // Direct on 7 turns of 8; the 8th asks epoll (and starts the count again).
        let direct = reading_directly && self.direct_turns + 1 < EPOLL_EVERY_DIRECT_TURNS;
        if direct {
            self.direct_turns += 1;
            let work = self.read_directly();
            return Ok(self.after_readiness(work));
        }
        self.direct_turns = 0;
        let mut events = std::mem::replace(&mut self.events, Events::with_capacity(0));
        // Before blocking, tell senders to wake us (or see that they already sent).
        let parked = !timeout.is_zero() && self.send_queue.park();
        let timeout = if parked { timeout } else { Duration::ZERO };
        let polled = self.poll.poll(&mut events, Some(timeout));
        if parked {
            self.send_queue.unpark();
        }
        if let Err(e) = polled {
            self.events = events;
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        let work = !events.is_empty();
        self.metrics.engine().readiness(events.iter().count());
        for event in events.iter() {
            match Readiness::of(event.token()) {
                Readiness::Waker => {}
                Readiness::Listener(l) => self.accept_all(l),
                Readiness::Connection(key) => {
                    if event.is_read_closed() || event.is_error() {
                        if let Some(connection) = self.connections.get_mut(key) {
                            connection.peer_closed = true;
                        }
                    }
                    if event.is_writable() || event.is_error() || event.is_write_closed() {
                        self.on_writable(key);
                    }
                    if event.is_readable() || event.is_read_closed() || event.is_error() {
                        self.on_readable(key);
                    }
                }
            }
        }
        self.events = events;
        Ok(self.after_readiness(work))
    }

    /// Reads every established connection's socket, without asking epoll (taking it
    /// out of epoll first), and writes again what a full socket left; returns whether
    /// any had something (bytes, a close, an error).
    fn read_directly(&mut self) -> bool {
        // The keys first: reading may close one.
        let keys = self.direct_keys(|c| !c.connecting);
        let mut work = false;
        for key in keys.into_iter().flatten() {
            self.unwatch(key);
            work |= self.on_readable(key);
            if self.write_waits(key) {
                // Out of epoll, no writable event comes: try again each turn.
                self.on_writable(key);
            }
        }
        work
    }

    /// The first [`DIRECT_READ_MAX_CONNECTIONS`] connections that `pick` picks, on the
    /// stack (the most connections a turn reads directly).
    fn direct_keys(
        &self,
        pick: impl Fn(&Connection) -> bool,
    ) -> [Option<ConnectionKey>; DIRECT_READ_MAX_CONNECTIONS] {
        let mut keys = [None; DIRECT_READ_MAX_CONNECTIONS];
        let picked = self.connections.iter().filter(|(_, c)| pick(c));
        for (slot, (key, _)) in keys.iter_mut().zip(picked) {
            *slot = Some(key);
        }
        keys
    }

    /// Whether bytes wait for a connection's socket: its session's unwritten
    /// output, or TLS records.
    fn write_waits(&self, key: ConnectionKey) -> bool {
        let Some(connection) = self.connections.get(key) else {
            return false;
        };
        connection.io.records_wait()
            || connection.session.is_some_and(|id| {
                self.sessions[id].connection == Some(key)
                    && !self.sessions[id].driver.outbound().is_empty()
            })
    }

    /// Puts every connection taken out of epoll back in (a connection that cannot be
    /// is closed: nothing would read it).
    fn watch_all(&mut self) {
        // Only connections read directly are out: at most the threshold.
        for key in self.direct_keys(|c| !c.in_epoll).into_iter().flatten() {
            if let Err(e) = self.watch(key) {
                let why = format!("cannot register with epoll: {e}");
                self.close_connection(key, &why, now_nanos());
            }
        }
    }

    /// What every turn does after the sockets' readiness: the sends other threads
    /// queued, and the connections whose read budget ran out last time.
    fn after_readiness(&mut self, mut work: bool) -> bool {
        work |= self.drain_sends();
        if !self.ready.is_empty() {
            work = true;
            let ready = std::mem::take(&mut self.ready);
            for &key in &ready {
                self.on_readable(key);
            }
            // Keep the allocation for next time.
            let mut ready = ready;
            ready.clear();
            if self.ready.is_empty() {
                self.ready = ready;
            }
        }
        self.service_touched(now_nanos());
        work
    }

    /// Reads what a connection has, up to [`READS_PER_TURN`] reads; a session
    /// handles all of it before one commit and one write ([`Engine::service`]), so
    /// a durable store's cost is per batch, not per message, and a busy peer gets
    /// no more than its share of the turn. Returns whether the socket had anything
    /// (bytes, the peer's close, an error), not only `WouldBlock`.
    pub(super) fn on_readable(&mut self, key: ConnectionKey) -> bool {
        let mut serviced: Option<SessionKey> = None;
        let mut drained = false;
        let mut had_data = false;
        for _ in 0..READS_PER_TURN {
            let Some(connection) = self.connections.get_mut(key) else {
                break;
            };
            if connection.connecting {
                break;
            }
            match connection.io.read(&mut self.read_buf) {
                Ok(0) => {
                    if let Some(id) = serviced.take() {
                        self.service(id, now_nanos());
                    }
                    self.close_connection_as(
                        key,
                        "peer closed the connection",
                        DisconnectReason::PeerClosed,
                        now_nanos(),
                    );
                    return true;
                }
                Ok(n) => {
                    had_data = true;
                    let now = now_nanos();
                    match connection.session {
                        Some(id) => {
                            let s = &mut self.sessions[id];
                            if let Some(l) = &mut s.log {
                                l.incoming(&self.read_buf[..n], now);
                            }
                            s.metrics.received(n);
                            s.driver.on_bytes(&self.read_buf[..n], now);
                            self.deliver_forwards(id, now);
                            serviced = Some(id);
                        }
                        None => {
                            // Before its Logon names a session, a connection gets
                            // room for a Logon and no more (MaxLogonMessageSize).
                            let limit = connection
                                .listener
                                .map_or(usize::MAX, |l| self.listeners[l.0].max_logon);
                            let take = n.min(limit - connection.pending.len());
                            if connection.pending.capacity() == 0 {
                                connection.pending.reserve_exact(limit.min(READ_CHUNK));
                            }
                            connection.pending.extend_from_slice(&self.read_buf[..take]);
                            match self.route(key, now) {
                                Some(id) => {
                                    // What came after the Logon in this read.
                                    let rest = &self.read_buf[take..n];
                                    let s = &mut self.sessions[id];
                                    if !rest.is_empty() {
                                        if let Some(l) = &mut s.log {
                                            l.incoming(rest, now);
                                        }
                                        s.metrics.received(rest.len());
                                        s.driver.on_bytes(rest, now);
                                    }
                                    self.deliver_forwards(id, now);
                                    serviced = Some(id);
                                }
                                None if take < n && self.connections.contains(key) => {
                                    let why = format!(
                                        "more than {limit} bytes without a complete Logon (MaxLogonMessageSize)"
                                    );
                                    self.close_connection(key, &why, now);
                                    return true;
                                }
                                None => {}
                            }
                        }
                    }
                    let short_read_drains = self
                        .connections
                        .get(key)
                        .is_some_and(|c| !c.peer_closed && c.io.drained_by_short_read());
                    if n < self.read_buf.len() && short_read_drains {
                        // The socket is drained: with edge-triggered readiness any
                        // later data raises a new event, so the read that would only
                        // say WouldBlock is saved (a system call per message). Not
                        // when the peer's close came with the data: that raises no
                        // new event, and only a read of 0 shows it.
                        drained = true;
                        break;
                    }
                }
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                    drained = true;
                    break;
                }
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if let Some(id) = serviced.take() {
                        self.service(id, now_nanos());
                    }
                    let (why, reason) = failure("read", e);
                    self.close_connection_as(key, &why, reason, now_nanos());
                    return true;
                }
            }
        }
        if let Some(id) = serviced {
            if self.batches() {
                // Committed and written with the turn's others (journal.rs).
                self.touch(id);
            } else {
                self.service(id, now_nanos());
            }
        }
        // Budget spent with data perhaps still waiting: edge-triggered readiness
        // will not say so again, so come back next turn.
        if !drained && self.connections.contains(key) && !self.ready.contains(&key) {
            self.ready.push(key);
        }
        had_data
    }
}

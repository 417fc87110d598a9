//! Connections: socket tuning, closing.

use std::io;
use std::net::SocketAddr;

use mio::net::TcpStream;
use mio::Interest;

use super::transport::Transport;
use crate::config::{ConnectionType, SessionSettings};
use crate::driver::{DriverEvent, Nanos, SessionDriver};
use peregrine_session::DisconnectReason;

use super::ids::{ConnectionKey, ListenerKey, SessionKey};
use super::{Engine, SEC};

/// A TCP connection: an acceptor's (routed to a session by its first message)
/// or an initiator's.
pub(super) struct Connection {
    /// The socket, and TLS over it when the session speaks TLS.
    pub(super) io: Transport,
    pub(super) peer: Option<SocketAddr>,
    /// The session it belongs to, once known.
    pub(super) session: Option<SessionKey>,
    /// Bytes of an acceptor connection before its Logon names a session, at
    /// most the listener's `max_logon` (`MaxLogonMessageSize`).
    pub(super) pending: Vec<u8>,
    pub(super) opened_at: Nanos,
    /// An initiator's connect is still in progress.
    pub(super) connecting: bool,
    /// An acceptor connection: the listener it came in on.
    pub(super) listener: Option<ListenerKey>,
    /// The peer closed its side (seen in a readiness event): read to the end
    /// even after a short read, which otherwise proves the socket drained.
    pub(super) peer_closed: bool,
    /// Registered with epoll ([`Engine::watch`], from [`Engine::add_connection`] on);
    /// a connection the engine reads directly leaves epoll while it does (`read.rs`).
    pub(super) in_epoll: bool,
}

impl<D: SessionDriver> Engine<D> {
    /// Keeps a new connection and registers its socket for reading and writing;
    /// if registering fails, the connection is dropped (its socket closed).
    pub(super) fn add_connection(&mut self, connection: Connection) -> io::Result<ConnectionKey> {
        let key = self.connections.insert(connection);
        if let Err(e) = self.watch(key) {
            self.connections.remove(key);
            return Err(e);
        }
        Ok(key)
    }

    /// Registers a connection's socket with epoll for reading and writing, if it is
    /// not already. Edge-triggered: what is readable or writable at registration is
    /// reported by the next poll.
    pub(super) fn watch(&mut self, key: ConnectionKey) -> io::Result<()> {
        let Some(connection) = self.connections.get_mut(key) else {
            return Ok(());
        };
        if !connection.in_epoll {
            self.poll.registry().register(
                &mut connection.io.stream,
                key.token(),
                Interest::READABLE | Interest::WRITABLE,
            )?;
            connection.in_epoll = true;
        }
        Ok(())
    }

    /// Takes a connection's socket out of epoll, if it is in: an incoming segment
    /// then wakes no epoll entry on its way (the engine reads the socket itself).
    /// Should epoll refuse, the socket stays in, as the flag says (reading it
    /// directly works either way).
    pub(super) fn unwatch(&mut self, key: ConnectionKey) {
        if let Some(connection) = self.connections.get_mut(key) {
            if connection.in_epoll
                && self
                    .poll
                    .registry()
                    .deregister(&mut connection.io.stream)
                    .is_ok()
            {
                connection.in_epoll = false;
            }
        }
    }

    /// Closes a connection for the engine's own reasons
    /// ([`DisconnectReason::Closed`]); its session (if it is the live one)
    /// hears of it.
    pub(super) fn close_connection(&mut self, key: ConnectionKey, why: &str, now: Nanos) {
        self.close_connection_as(key, why, DisconnectReason::Closed, now);
    }

    /// Closes a connection; its session (if it is the live one) hears of it,
    /// with `reason` (the session's own reason, if it asked, comes first).
    pub(super) fn close_connection_as(
        &mut self,
        key: ConnectionKey,
        why: &str,
        reason: DisconnectReason,
        now: Nanos,
    ) {
        let Some(mut connection) = self.connections.remove(key) else {
            return;
        };
        if connection.in_epoll {
            let _ = self.poll.registry().deregister(&mut connection.io.stream);
        }
        connection.io.close();
        match connection.session {
            Some(id) if self.sessions[id].connection == Some(key) => {
                let s = &mut self.sessions[id];
                s.connection = None;
                s.set_slow(false);
                s.event(&format!("disconnected: {why}"), now);
                if s.enabled {
                    // An operator's logout keeps its own note (who asked).
                    s.status.note = Some(format!("disconnected: {why}"));
                }
                // This connection's line limit ends with it (its count said).
                s.new_connection(now);
                if !connection.connecting {
                    s.driver.on_connection_lost(now, reason);
                }
                if s.settings.connection_type == ConnectionType::Initiator {
                    s.next_connect = now + Nanos::from(s.settings.reconnect_interval.max(1)) * SEC;
                    // Failover: a connection whose Logon was refused or never answered
                    // sends the next attempt to the next address; once a Logon
                    // succeeded, the initiator stays with that address (QuickFIX/J
                    // #1260). Failed connects move on where they fail (connect.rs).
                    if !connection.connecting && !s.logged_on_here {
                        s.next_address += 1;
                    }
                }
                s.logged_on_here = false;
                if let Some(who) = s.reset_pending.take() {
                    let was = (s.driver.next_sender_seq(), s.driver.next_target_seq());
                    match s.driver.reset_seq_nums(now) {
                        Ok(()) => s.event(
                            &format!(
                                "{who} reset sequence numbers to 1 (were: next sender {}, \
                                 next target {})",
                                was.0, was.1
                            ),
                            now,
                        ),
                        Err(e) => s.event(&format!("{who}'s reset failed: {e}"), now),
                    }
                }
                // Events raised by the disconnect itself (logged out, …).
                while let Some(ev) = s.driver.poll_event() {
                    if let DriverEvent::Info(t) = ev {
                        s.event(&t, now);
                    }
                }
                // What on_logout and on_event sent on other sessions.
                self.deliver_forwards(id, now);
                self.touch(id);
            }
            // A connection that never became a session: anyone can open these at will.
            _ => {
                let line = match self.unrouted_lines.allow(now) {
                    None => return,
                    Some(0) => format!("closed connection from {:?}: {why}", connection.peer),
                    Some(n) => format!(
                        "closed connection from {:?}: {why} ({n} such lines left out before)",
                        connection.peer
                    ),
                };
                tracing::info!("{line}");
                // ScreenLogShowEvents of the listener's sessions: the refused
                // CompIDs and failed TLS handshakes are seen on the screen too.
                if let Some(l) = connection.listener {
                    let listener = &self.listeners[l.0];
                    if listener.settings.screen_log.is_some_and(|s| s.events) {
                        crate::log::print_event(
                            &format!("listener {}", listener.local),
                            &line,
                            now,
                        );
                    }
                }
            }
        }
    }
}

/// TCP_NODELAY and the buffer sizes a session's settings ask for.
pub(super) fn tune(stream: &TcpStream, s: &SessionSettings) {
    let _ = stream.set_nodelay(s.socket_nodelay);
    let sock = socket2::SockRef::from(stream);
    if let Some(n) = s.socket_send_buffer_size {
        let _ = sock.set_send_buffer_size(n);
    }
    if let Some(n) = s.socket_receive_buffer_size {
        let _ = sock.set_recv_buffer_size(n);
    }
}

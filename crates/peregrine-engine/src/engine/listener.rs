//! Listeners: accepting connections, and shedding them with a reserve
//! descriptor when the process is out of descriptors.

use std::io;
use std::net::SocketAddr;

use mio::net::{TcpListener, TcpStream};

use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::connection::{tune, Connection};
use super::ids::ListenerKey;
use super::transport::Transport;
use super::{Engine, SEC};

/// Listen backlog (the kernel caps it at `net.core.somaxconn`): room for a
/// burst of a thousand initiators logging on at once.
const LISTEN_BACKLOG: i32 = 1024;
/// After `accept` failed for want of resources (descriptors, memory) and the
/// reserve descriptor could not help, the listener is tried again this often.
pub(super) const ACCEPT_RETRY: Nanos = 50_000_000;

/// A listening socket, shared by the acceptor sessions of one port.
pub(super) struct Listener {
    pub(super) socket: TcpListener,
    /// `SocketAcceptPort` as configured (0: any).
    pub(super) configured_port: u16,
    /// Where it listens.
    pub(super) local: SocketAddr,
    /// How long a connection may wait for its Logon.
    pub(super) logon_timeout: Nanos,
    /// What a connection may send before its Logon is complete.
    pub(super) max_logon: usize,
    /// The settings of the first session on it, whose socket options new
    /// connections get.
    pub(super) settings: crate::config::SessionSettings,
    /// Its TLS configuration (the first session's `SocketUseSSL=Y` and keys; every
    /// session on the port must say the same).
    pub(super) tls: Option<std::sync::Arc<rustls::ServerConfig>>,
    /// When to try `accept` again after it failed for want of resources.
    pub(super) retry_at: Option<Nanos>,
    /// Connections shed (accepted and closed at once) since the last log line.
    pub(super) shed: u64,
    /// When the last line about shedding was logged.
    pub(super) shed_logged_at: Nanos,
}

impl<D: SessionDriver> Engine<D> {
    /// Accepts every connection waiting on listener `l`.
    pub(super) fn accept_all(&mut self, l: ListenerKey) {
        if l.0 >= self.listeners.len() || self.stopping {
            return;
        }
        self.listeners[l.0].retry_at = None;
        loop {
            match self.listeners[l.0].socket.accept() {
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
                    self.listeners[l.0].retry_at = Some(now + ACCEPT_RETRY);
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
                    tracing::warn!("accept failed on {}: {e}", self.listeners[l.0].local);
                    self.listeners[l.0].retry_at = Some(now_nanos() + ACCEPT_RETRY);
                    break;
                }
            }
        }
        if self.listeners[l.0].shed > 0 && self.listeners[l.0].retry_at.is_none() {
            let e = io::Error::from_raw_os_error(libc::EMFILE);
            self.log_shed(l, &e, now_nanos());
        }
    }

    /// Closes the reserve descriptor, accepts one connection and closes it, and
    /// takes the reserve back. Whether a connection was shed.
    fn shed_one(&mut self, l: ListenerKey) -> bool {
        let Some(reserve) = self.reserve.take() else {
            self.reserve = open_reserve();
            return false;
        };
        drop(reserve);
        let accepted = self.listeners[l.0].socket.accept();
        // Closed before the reserve is taken back: at the limit, the reserve
        // needs the descriptor the shed connection held.
        let shed = match accepted {
            Ok((stream, _)) => {
                drop(stream);
                self.listeners[l.0].shed += 1;
                true
            }
            Err(_) => false,
        };
        self.reserve = open_reserve();
        shed && self.reserve.is_some()
    }

    /// One warning for the connections shed so far (at most one a second: the
    /// count says how many).
    fn log_shed(&mut self, l: ListenerKey, e: &io::Error, now: Nanos) {
        let listener = &mut self.listeners[l.0];
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

    /// A connection accepted on listener `l`: it waits for its Logon (after the TLS
    /// handshake, on a TLS listener).
    fn accepted(&mut self, l: ListenerKey, stream: TcpStream, peer: SocketAddr) {
        self.metrics.engine().accepted();
        if self.held() {
            // Not leader (gate.rs): closed unanswered, so the counterparty tries
            // its next address.
            tracing::debug!("connection from {peer} closed: this node does not lead");
            return;
        }
        tune(&stream, &self.listeners[l.0].settings);
        let io = match &self.listeners[l.0].tls {
            Some(config) => match rustls::ServerConnection::new(config.clone()) {
                Ok(tls) => Transport::tls(stream, tls.into()),
                Err(e) => {
                    tracing::warn!("TLS: cannot serve a connection from {peer}: {e}");
                    return;
                }
            },
            None => Transport::plain(stream),
        };
        let added = self.add_connection(Connection {
            io,
            peer: Some(peer),
            session: None,
            pending: Vec::new(),
            opened_at: now_nanos(),
            connecting: false,
            listener: Some(l),
            peer_closed: false,
            in_epoll: false,
        });
        match added {
            Ok(_) => tracing::debug!("connection from {peer}"),
            Err(e) => tracing::warn!("cannot register a connection from {peer}: {e}"),
        }
    }
}

/// A non-blocking listener on `addr` with [`LISTEN_BACKLOG`].
pub(super) fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(TcpListener::from_std(socket.into()))
}

/// The reserve descriptor (see [`Engine`]'s `reserve`).
pub(super) fn open_reserve() -> Option<std::fs::File> {
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

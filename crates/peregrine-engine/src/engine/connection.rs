//! Connections: the slab they live in, socket tuning, closing.

use std::io::Read;
use std::net::SocketAddr;

use mio::net::TcpStream;

use crate::config::{ConnectionType, SessionSettings};
use crate::driver::{DriverEvent, Nanos, SessionDriver};

use super::*;

pub(super) struct Conn {
    pub(super) stream: TcpStream,
    pub(super) peer: Option<SocketAddr>,
    pub(super) session: Option<usize>,
    /// Bytes of an acceptor connection before its Logon names a session, at
    /// most the listener's `max_logon` (`MaxLogonMessageSize`).
    pub(super) pending: Vec<u8>,
    pub(super) opened_at: Nanos,
    pub(super) connecting: bool,
    pub(super) listener: Option<usize>,
    /// The peer closed its side (seen in a readiness event): read to the end
    /// even after a short read, which otherwise proves the socket drained.
    pub(super) peer_closed: bool,
}

impl<D: SessionDriver> Engine<D> {
    pub(super) fn add_conn(&mut self, conn: Conn) -> usize {
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

    pub(super) fn close_conn(&mut self, c: usize, why: &str, now: Nanos) {
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
}

//! Initiators: connecting, failover, a connection that comes up.

use std::io;
use std::net::ToSocketAddrs;

use mio::net::TcpStream;

use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::connection::{tune, Connection};
use super::ids::{ConnectionKey, SessionKey};
use super::transport::{failure, Transport};
use super::{Engine, SEC};

impl<D: SessionDriver> Engine<D> {
    /// An initiator's connection attempt to its next failover address (within
    /// its session hours).
    pub(super) fn connect(&mut self, id: SessionKey, now: Nanos) {
        let held = self.held();
        let s = &mut self.sessions[id];
        s.next_connect = now + Nanos::from(s.settings.reconnect_interval.max(1)) * SEC;
        if held {
            // Not leader (gate.rs): no connection until the gate opens.
            return;
        }
        if let Some(window) = crate::fix::schedule(&s.settings) {
            if !window.logon_allowed(now) {
                // Outside the session's hours: wait for them to begin.
                s.next_connect = window.next_boundary(now);
                return;
            }
        }
        let addresses = &s.settings.connect_addresses;
        if addresses.is_empty() {
            return;
        }
        let (host, port) = addresses[s.next_address % addresses.len()].clone();
        let addr = match (host.as_str(), port)
            .to_socket_addrs()
            .map(|mut a| a.next())
        {
            Ok(Some(a)) => a,
            _ => {
                s.event(&format!("cannot resolve {host}:{port}"), now);
                s.next_address += 1;
                return;
            }
        };
        let stream = match TcpStream::connect(addr) {
            Ok(stream) => stream,
            Err(e) => {
                s.event(&format!("connect to {addr} failed: {e}"), now);
                s.next_address += 1;
                return;
            }
        };
        let io = match (&s.tls, &s.settings.tls) {
            (Some(config), Some(tls)) => {
                let Some(name) = crate::tls::server_name(tls, &host) else {
                    s.event(&format!("TLS: {host:?} is not a DNS name or an IP address (set SocketServerName)"), now);
                    s.next_address += 1;
                    return;
                };
                match rustls::ClientConnection::new(config.clone(), name) {
                    Ok(tls) => Transport::tls(stream, tls.into()),
                    Err(e) => {
                        s.event(&format!("TLS: {e}"), now);
                        return;
                    }
                }
            }
            _ => Transport::plain(stream),
        };
        s.event(&format!("connecting to {addr}"), now);
        tune(&io.stream, &s.settings);
        let added = self.add_connection(Connection {
            io,
            peer: Some(addr),
            session: Some(id),
            pending: Vec::new(),
            opened_at: now,
            connecting: true,
            listener: None,
            peer_closed: false,
            in_epoll: false,
        });
        match added {
            Ok(key) => self.sessions[id].connection = Some(key),
            Err(e) => self.sessions[id].event(&format!("cannot register: {e}"), now),
        }
    }

    /// A connection may be written: an initiator's connect completes (or
    /// fails over), and the session's queue is written.
    pub(super) fn on_writable(&mut self, key: ConnectionKey) {
        let now = now_nanos();
        let Some(connection) = self.connections.get_mut(key) else {
            return;
        };
        if connection.connecting {
            let id = connection.session.expect("an initiator's connection");
            match connection.io.stream.take_error() {
                Ok(Some(e)) | Err(e) => {
                    let why = format!("connect to {:?} failed: {e}", connection.peer);
                    self.sessions[id].next_address += 1;
                    self.close_connection(key, &why, now);
                    return;
                }
                Ok(None) => {}
            }
            match connection.io.stream.peer_addr() {
                Ok(_) => {
                    connection.connecting = false;
                    let peer = connection.peer;
                    let s = &mut self.sessions[id];
                    s.new_connection(now);
                    s.event(&format!("connected to {peer:?}"), now);
                    s.driver.on_connected(now);
                }
                Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
                Err(e) => {
                    self.sessions[id].next_address += 1;
                    self.close_connection(key, &format!("connect failed: {e}"), now);
                    return;
                }
            }
        }
        // TLS records that wait for the socket: the handshake's (an acceptor's
        // connection has no session to write them yet), or what a full socket left.
        if let Some(connection) = self.connections.get_mut(key) {
            if let Err(e) = connection.io.flush_records() {
                let (why, reason) = failure("write", e);
                self.close_connection_as(key, &why, reason, now);
                return;
            }
        }
        if let Some(id) = self.connections.get(key).and_then(|c| c.session) {
            self.service(id, now);
        }
    }
}

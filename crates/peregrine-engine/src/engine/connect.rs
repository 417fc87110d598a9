//! Initiators: connecting, failover, a connection that comes up.

use std::io::{self};
use std::net::ToSocketAddrs;

use mio::net::TcpStream;
use mio::{Interest, Token};

use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
    pub(super) fn connect(&mut self, i: usize, now: Nanos) {
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

    pub(super) fn on_writable(&mut self, c: usize) {
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
}

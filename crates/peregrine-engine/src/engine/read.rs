//! Readiness and reading: what epoll says, reads within a per-turn budget.

use std::io::{self, Read};
use std::time::Duration;

use mio::Events;

use crate::driver::{now_nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
    /// Polls the sockets (waiting at most `timeout`) and handles what is ready.
    pub(super) fn io(&mut self, timeout: Duration) -> io::Result<bool> {
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

    /// Reads what connection `c` has, up to [`READS_PER_TURN`] reads; a session
    /// handles all of it before one commit and one write ([`Engine::service`]), so
    /// a durable store's cost is per batch, not per message, and a busy peer gets
    /// no more than its share of the turn.
    pub(super) fn on_readable(&mut self, c: usize) {
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
}

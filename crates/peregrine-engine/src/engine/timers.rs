//! Timers, reconnects, store fsyncs, admin commands: the reactor's
//! housekeeping.

use std::io::Write;

use crate::config::ConnectionType;
use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
    /// Commands, timers and reconnects, log flushes.
    pub(super) fn housekeeping(&mut self) -> bool {
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

    pub(super) fn next_timer(&self) -> Option<Nanos> {
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

    pub(super) fn timers(&mut self) -> bool {
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
}

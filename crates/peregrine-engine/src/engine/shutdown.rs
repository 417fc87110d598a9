//! Graceful shutdown: Logout on every logged-on session, then close.

use std::io::{self, Write};

use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
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
}

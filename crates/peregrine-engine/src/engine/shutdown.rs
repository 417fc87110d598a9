//! Graceful shutdown: Logout on every logged-on session, then close.

use std::io;

use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::{Engine, SEC};

impl<D: SessionDriver> Engine<D> {
    /// Graceful shutdown: sends what [`Sender`](crate::Sender)s queued, closes
    /// the send queue (senders get
    /// [`SubmitError::EngineStopped`](crate::SubmitError::EngineStopped) from
    /// then on), stops accepting, sends Logout on every logged-on session,
    /// waits for the replies up to the longest `LogoutTimeout` (plus a second),
    /// then closes every connection and makes the stores durable.
    ///
    /// # Errors
    ///
    /// When polling the sockets fails while waiting for the Logout answers.
    pub fn shutdown(&mut self) -> io::Result<()> {
        let _turning = self.turning();
        self.stopping = true;
        // What senders queued before the stop goes out before the Logouts; from
        // now on they are told the engine stopped (a message accepted now would
        // never be sent).
        self.drain_sends();
        self.send_queue.close();
        let now = now_nanos();
        for l in &mut self.listeners {
            let _ = self.poll.registry().deregister(&mut l.socket);
        }
        let mut wait: Nanos = 0;
        for id in self.sessions.key_space() {
            if !self.sessions.contains(id) {
                continue;
            }
            let Some(key) = self.sessions[id].connection else {
                continue;
            };
            if self.sessions[id].driver.is_logged_on() {
                let s = &mut self.sessions[id];
                wait = wait.max(Nanos::from(s.settings.logout_timeout) * SEC);
                s.event("shutting down: sending Logout", now);
                s.driver.logout(now, None);
                self.service(id, now);
            } else {
                self.close_connection(key, "shutting down", now);
            }
        }
        let deadline = now + wait + SEC;
        while self.sessions.iter().any(|s| s.connection.is_some()) && now_nanos() < deadline {
            self.turn()?;
        }
        let now = now_nanos();
        for key in self.connections.keys() {
            self.close_connection(key, "shut down", now);
        }
        // Messages a sender queued while the engine was closing (it took its slot
        // before the queue closed), and messages still held for a full socket: to
        // their sessions, which store them for the resend after the next logon,
        // as any message sent while logged out.
        while self.drain_sends() {}
        for s in self.sessions.iter_mut() {
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
        }
        self.flush_logs();
        Ok(())
    }
}

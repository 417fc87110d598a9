//! Messages from [`Sender`](crate::Sender)s: taken from the queue once a turn
//! and written through their sessions.

use crate::driver::{now_nanos, SessionDriver};

use super::Engine;

/// Messages taken from the send queue in one turn, so that a producer
/// faster than the sockets cannot keep the engine from reading.
const SENDS_PER_TURN: usize = 1024;

impl<D: SessionDriver> Engine<D> {
    /// Sends what other threads queued; whether there was any.
    pub(super) fn drain_sends(&mut self) -> bool {
        let Some(first) = self.send_queue.pop() else {
            return false;
        };
        let now = now_nanos();
        let mut slot = Some(first);
        let mut taken = 0;
        while let Some(s) = slot {
            taken += 1;
            match self.sessions.resolve(s.session) {
                Some(id) => {
                    let session = &mut self.sessions[id];
                    match session.driver.send_body(now, s.msg_type(), &s.body) {
                        Ok(_) => session.send_pending = true,
                        Err(e) => {
                            session.send_failures += 1;
                            let line = format!("a message from a Sender was not sent: {e}");
                            tracing::warn!(session = %session.name, "{line}");
                            if let Some(l) = &mut session.log {
                                l.event(&line, now);
                            }
                        }
                    }
                }
                None => {
                    self.sends_to_removed_sessions += 1;
                    if self.unrouted_lines.allow(now).is_some() {
                        tracing::warn!(
                            "{} message(s) from a Sender named a session that was removed",
                            self.sends_to_removed_sessions
                        );
                    }
                }
            }
            self.send_queue.recycle(s);
            slot = if taken < SENDS_PER_TURN {
                self.send_queue.pop()
            } else {
                None
            };
        }
        // One commit and one write per session for the whole batch.
        for id in self.sessions.key_space() {
            if self.sessions.contains(id) && self.sessions[id].send_pending {
                self.sessions[id].send_pending = false;
                self.service(id, now);
            }
        }
        true
    }
}

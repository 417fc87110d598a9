//! Messages from [`Sender`](crate::Sender)s: taken from the queue once a turn
//! and written through their sessions.
//!
//! A session whose connection is not taking its bytes (the socket's buffer is
//! full: the peer reads slowly, or not at all) gets no more from the queue
//! once [`SEND_HOLD_BYTES`](crate::sender::SEND_HOLD_BYTES) wait in its outbound buffer: its messages are held,
//! in order, in their slots, and go out once the socket takes bytes again. The
//! slots are the queue's, so producers see
//! [`SubmitError::QueueFull`](crate::SubmitError::QueueFull) when the held and
//! queued messages reach the queue's capacity: the queue's bound is the bound,
//! not the session's outbound buffer (which would otherwise take everything
//! up to `MaxOutboundQueueBytes`, growing as it goes, and then disconnect the
//! session as a slow consumer). Other sessions' messages keep flowing.

use crate::driver::{now_nanos, Nanos, SessionDriver};
use crate::sender::{QueuedSend, SEND_HOLD_BYTES};

use super::ids::SessionKey;
use super::Engine;

/// Messages taken from the send queue in one turn, so that a producer
/// faster than the sockets cannot keep the engine from reading.
const SENDS_PER_TURN: usize = 1024;

impl<D: SessionDriver> Engine<D> {
    /// Sends what other threads queued (held messages first); whether there
    /// was any.
    pub(super) fn drain_sends(&mut self) -> bool {
        let held = !self.held_sends.is_empty();
        if !held && self.send_queue.len() == 0 {
            return false;
        }
        let now = now_nanos();
        let mut work = false;
        if held {
            // In order; a session that must still wait keeps the rest of its
            // messages waiting behind the first.
            self.hold_pass = self.hold_pass.wrapping_add(1);
            for _ in 0..self.held_sends.len() {
                let Some(queued) = self.held_sends.pop_front() else {
                    break;
                };
                match self.sessions.resolve(queued.session) {
                    Some(id)
                        if self.sessions[id].hold_pass != self.hold_pass
                            && self.room_for_sends(id, now) =>
                    {
                        self.sessions[id].held_sends -= 1;
                        self.send_queued(id, queued, now);
                        work = true;
                    }
                    Some(id) => {
                        self.sessions[id].hold_pass = self.hold_pass;
                        // Room: the deque has the queue's capacity.
                        self.held_sends.push_back(queued);
                    }
                    None => {
                        self.count_send_to_removed_session(now);
                        self.send_queue.recycle(queued);
                        work = true;
                    }
                }
            }
        }
        let mut taken = 0;
        while taken < SENDS_PER_TURN {
            let Some(queued) = self.send_queue.pop() else {
                break;
            };
            taken += 1;
            work = true;
            self.metrics.engine().sender_message();
            match self.sessions.resolve(queued.session) {
                Some(id) if self.sessions[id].held_sends == 0 && self.room_for_sends(id, now) => {
                    self.send_queued(id, queued, now);
                }
                Some(id) => {
                    self.sessions[id].held_sends += 1;
                    self.held_sends.push_back(queued);
                }
                None => {
                    self.count_send_to_removed_session(now);
                    self.send_queue.recycle(queued);
                }
            }
        }
        // One commit and one write per session for the whole batch.
        for id in self.sessions.key_space() {
            if self.sessions.contains(id) && self.sessions[id].send_pending {
                self.sessions[id].send_pending = false;
                if self.batches() {
                    self.touch(id);
                } else {
                    self.service(id, now);
                }
            }
        }
        work
    }

    /// Whether held messages could go now (their session's socket took bytes):
    /// then the engine must not block.
    pub(super) fn held_sends_ready(&self) -> bool {
        self.held_sends
            .iter()
            .any(|queued| match self.sessions.resolve(queued.session) {
                Some(id) => self.unsent(id) < SEND_HOLD_BYTES,
                None => true,
            })
    }

    /// Whether the session takes another message from a sender: its unsent
    /// bytes are under [`SEND_HOLD_BYTES`], if need be after writing what the
    /// socket takes now.
    fn room_for_sends(&mut self, id: SessionKey, now: Nanos) -> bool {
        if self.unsent(id) < SEND_HOLD_BYTES {
            return true;
        }
        self.sessions[id].send_pending = false;
        self.service(id, now);
        self.sessions.contains(id) && self.unsent(id) < SEND_HOLD_BYTES
    }

    /// The session's bytes not yet written: committed and not.
    fn unsent(&self, id: SessionKey) -> usize {
        let d = &self.sessions[id].driver;
        d.outbound().len() + d.uncommitted_len()
    }

    /// Hands one message to its session, and its slot back to the queue.
    fn send_queued(&mut self, id: SessionKey, queued: Box<QueuedSend>, now: Nanos) {
        let session = &mut self.sessions[id];
        match session
            .driver
            .send_body(now, queued.msg_type(), &queued.body)
        {
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
        self.send_queue.recycle(queued);
    }

    pub(super) fn count_send_to_removed_session(&mut self, now: Nanos) {
        self.sends_to_removed_sessions += 1;
        if self.unrouted_lines.allow(now).is_some() {
            tracing::warn!(
                "{} message(s) from a Sender named a session that was removed",
                self.sends_to_removed_sessions
            );
        }
    }
}

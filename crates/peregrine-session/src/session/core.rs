//! The session's state and the dispatch of every inbound message to its
//! handler.

use std::collections::VecDeque;

use peregrine_codec::{Decoder, MessageView};
use peregrine_dict::{SessionRejectReason, ShapeCache};
use peregrine_store::MessageStore;

use crate::app::{Application, Outbox};
use crate::config::{is_pre_fix42, Nanos, SessionConfig};

use super::events::{DisconnectReason, SessionEvent, SessionState};
use super::gap::*;
use super::gap_queue::GapQueue;
use super::outgoing::*;
use super::reject::*;
use super::resend::*;
use super::verify::*;

pub(super) struct Core<S> {
    pub(super) cfg: SessionConfig,
    pub(super) tx: Tx<S>,
    pub(super) events: VecDeque<SessionEvent>,
    pub(super) state: SessionState,
    pub(super) since: Nanos,
    pub(super) logged_on: bool,
    pub(super) sent_reset: bool,
    pub(super) hb_secs: u32,
    pub(super) last_received: Nanos,
    pub(super) test_requests: u32,
    pub(super) resend: Option<ResendRange>,
    /// The resend we are answering, if it is not complete.
    pub(super) resend_out: Option<ResendCursor>,
    /// Shapes of messages that passed dictionary validation (counterparties repeat
    /// theirs: those messages then only have their values checked).
    pub(super) shapes: Box<ShapeCache>,
    /// Messages that arrived ahead of a gap.
    pub(super) queue: GapQueue,
    pub(super) resend_decoder: Decoder,
}

impl<S: MessageStore> Core<S> {
    pub(super) fn now(&self) -> Nanos {
        self.tx.w.now
    }

    pub(super) fn begin_bytes(&self) -> &[u8] {
        self.cfg.id.begin_string.as_bytes()
    }

    pub(super) fn pre42(&self) -> bool {
        is_pre_fix42(self.begin_bytes())
    }

    pub(super) fn expected(&self) -> u64 {
        self.tx.store.next_target_seq()
    }

    pub(super) fn incr_target(&mut self) {
        if self.tx.store.incr_next_target_seq().is_err() {
            self.store_failed();
        }
        self.gap_progress();
    }

    pub(super) fn set_target(&mut self, seq: u64) {
        if self.tx.store.set_next_target_seq(seq).is_err() {
            self.store_failed();
        }
        self.gap_progress();
    }

    pub(super) fn reset_store(&mut self) {
        let now = self.now();
        if self.tx.store.reset(now).is_err() {
            self.store_failed();
        }
        self.queue.clear();
        self.resend = None;
        self.resend_out = None;
    }

    /// Forgets what was queued for a connection that is gone: it is in the store,
    /// and the peer asks for it with a ResendRequest (the FIX way), never as stale
    /// bytes at the start of the next connection.
    pub(super) fn clear_outbound(&mut self) {
        let w = &mut self.tx.w;
        w.out.clear();
        w.out.shrink_to(OUT_CAPACITY);
        w.committed = 0;
        self.resend_out = None;
        self.tx.overflowed = false;
    }

    /// A message was stored but not queued (the outbound buffer is full): the
    /// peer is not reading.
    pub(super) fn check_overflow(&mut self) {
        if self.tx.overflowed {
            self.tx.overflowed = false;
            self.disconnect(DisconnectReason::OutboundQueueFull);
        }
    }

    pub(super) fn store_failed(&mut self) {
        self.tx.store_failed = true;
        self.events.push_back(SessionEvent::StoreFailed);
    }

    pub(super) fn connected(&self) -> bool {
        !matches!(
            self.state,
            SessionState::Disconnected | SessionState::Closing
        )
    }

    pub(super) fn set_state(&mut self, s: SessionState) {
        self.state = s;
        self.since = self.now();
    }

    pub(super) fn disconnect(&mut self, reason: DisconnectReason) {
        if self.state != SessionState::Closing && self.state != SessionState::Disconnected {
            self.set_state(SessionState::Closing);
            self.events.push_back(SessionEvent::Disconnect(reason));
        }
    }

    /// Entry point for every decoded inbound message.
    pub(super) fn process(
        &mut self,
        msg: &MessageView<'_>,
        app: &mut dyn Application,
        queued: bool,
        forced: Option<Rej>,
    ) {
        if !self.connected() {
            return;
        }
        let now = self.now();
        self.last_received = now;
        self.test_requests = 0;
        let msg_type = msg.msg_type();
        if queued && (msg_type == b"A" || msg_type == b"2") {
            // Already handled when it first arrived.
            self.incr_target();
            return;
        }
        if !self.logged_on && msg_type != b"A" && self.state != SessionState::LogonSent {
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if msg.begin_string() != self.begin_bytes() {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else if msg_type == b"5" {
                self.on_logout(msg);
            } else {
                if parse_seq(msg.get(34)) == Some(self.expected()) {
                    self.incr_target();
                }
                self.initiate_logout(Some(b"Incorrect BeginString"));
            }
            return;
        }
        if msg_type == b"A" && self.cfg.id.is_fixt() && !msg.contains(1137) {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(
                    msg,
                    Rej::new(SessionRejectReason::RequiredTagMissing, Some(1137)),
                );
            }
            return;
        }
        if let Some(rej) = forced.or_else(|| self.validate(msg)) {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(msg, rej);
            }
            return;
        }
        match msg_type {
            b"A" => self.on_logon(msg, app),
            b"5" => self.on_logout(msg),
            b"0" => {
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.incr_target();
                }
            }
            b"1" => {
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.send_heartbeat(msg.get(112));
                    self.incr_target();
                }
            }
            b"2" => self.on_resend_request(msg, app),
            b"3" => {
                // QuickFIX does not check a Reject for a gap (verify(false, true)); a gap
                // is a gap, so we queue a too-high Reject like any other message.
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.incr_target();
                }
            }
            b"4" => self.on_sequence_reset(msg, app),
            _ => {
                if self.verify(msg, true, true) {
                    let result = app.from_app(msg, &self.cfg.id, &mut Outbox::new(&mut self.tx));
                    match result {
                        Ok(()) => self.incr_target(),
                        Err(r) => self.app_reject(msg, r),
                    }
                }
            }
        }
    }
}

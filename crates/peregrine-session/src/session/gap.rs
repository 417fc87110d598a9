//! Gaps in what we receive: too-high messages queued, ResendRequests we send
//! (chunked, re-sent when they make no progress), too-low messages.

use peregrine_codec::MessageView;
use peregrine_store::MessageStore;

use crate::config::Nanos;

use super::core::Core;
use super::events::{DisconnectReason, SessionEvent};
use super::outgoing::*;

/// Our outstanding ResendRequest.
#[derive(Clone, Copy, Debug)]
pub(super) struct ResendRange {
    pub(super) begin: u64,
    pub(super) end: u64,
    pub(super) current_end: u64,
    /// When the gap last made progress (the request, or a message filling it):
    /// `ResendRequestTimeout` after this, what is missing is asked for again.
    pub(super) last_progress: Nanos,
}

impl<S: MessageStore> Core<S> {
    pub(super) fn infinity(&self) -> u64 {
        if self.pre42() {
            999_999
        } else {
            0
        }
    }

    pub(super) fn send_resend_request(&mut self, begin: u64, end: u64) {
        let chunk = self.cfg.resend_request_chunk_size as u64;
        let inf = self.infinity();
        let (wire_end, current_end) = if chunk == 0 {
            (inf, 0)
        } else {
            let ce = begin + chunk - 1;
            if ce >= end {
                (inf, end)
            } else {
                (ce, ce)
            }
        };
        self.tx.admin(b"2", &[], &mut |m| {
            m.uint(7, begin).uint(16, wire_end);
        });
        self.resend = Some(ResendRange {
            begin,
            end,
            current_end,
            last_progress: self.now(),
        });
        self.events.push_back(SessionEvent::ResendRequested {
            begin,
            end: wire_end,
        });
    }

    pub(super) fn too_high(&mut self, msg: &MessageView<'_>, seq: u64) {
        if self.queue.insert(seq, msg.as_bytes()).is_err() {
            let limit = self.cfg.max_inbound_queue_bytes;
            let expected = self.expected();
            let mut text = StackText::new();
            {
                use std::fmt::Write;
                let _ = write!(
                    text,
                    "Inbound queue limit of {limit} bytes reached waiting for a resend of {expected} to {}",
                    seq - 1
                );
            }
            self.send_logout(Some(text.as_bytes()));
            self.disconnect(DisconnectReason::InboundQueueFull);
            return;
        }
        if let Some(r) = self.resend {
            if seq >= r.begin && !self.cfg.send_redundant_resend_requests {
                return;
            }
        }
        let expected = self.expected();
        self.send_resend_request(expected, seq - 1);
    }

    pub(super) fn too_low(&mut self, msg: &MessageView<'_>, seq: u64) {
        if msg.get(43) != Some(b"Y") {
            let expected = self.expected();
            let mut text = StackText::new();
            {
                use std::fmt::Write;
                let _ = write!(
                    text,
                    "MsgSeqNum too low, expecting {expected} but received {seq}"
                );
            }
            self.send_logout(Some(text.as_bytes()));
            self.disconnect(DisconnectReason::SeqNumTooLow);
            return;
        }
        // A possible duplicate we already have: checked, then ignored.
        self.poss_dup_ok(msg);
    }

    /// Takes the queued message with the expected sequence number, if any.
    pub(super) fn take_queued(&mut self) -> Option<Vec<u8>> {
        if !self.connected() {
            return None;
        }
        let expected = self.expected();
        self.queue.take(expected)
    }

    /// The expected sequence number moved: an outstanding ResendRequest is
    /// making progress.
    pub(super) fn gap_progress(&mut self) {
        let now = self.now();
        if let Some(r) = &mut self.resend {
            r.last_progress = now;
        }
    }
}

//! Gaps in what we receive: too-high messages queued (within
//! `max_inbound_queue_bytes`), the ResendRequests we send (chunked, and sent
//! again when a gap makes no progress), too-low messages.

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::Nanos;

use super::core::Core;
use super::events::{AppEvent, DisconnectReason, SessionEvent};

/// Our outstanding ResendRequest: the gap `begin..=end`, asked for in chunks up
/// to `current_end` when `ResendRequestChunkSize` is set.
#[derive(Clone, Copy, Debug)]
pub(super) struct GapRequest {
    pub(super) begin: u64,
    pub(super) end: u64,
    /// The last number of the chunk asked for (0: the whole gap at once).
    pub(super) current_end: u64,
    /// When the gap last made progress (the request, or a message filling it):
    /// `ResendRequestTimeout` after this, what is missing is asked for again.
    pub(super) last_progress: Nanos,
}

impl<S: MessageStore> Core<S> {
    /// EndSeqNo(16) meaning "to the end": 999999 before FIX.4.2, 0 from it.
    pub(super) fn infinite_end_seq_no(&self) -> u64 {
        if self.before_fix42() {
            999_999
        } else {
            0
        }
    }

    /// Sends a ResendRequest for `begin..=end` (its first chunk) and remembers it.
    pub(super) fn send_resend_request(&mut self, begin: u64, end: u64, app: &mut dyn Application) {
        let chunk = u64::from(self.config.resend_request_chunk_size);
        let infinite = self.infinite_end_seq_no();
        let (wire_end, current_end) = if chunk == 0 {
            (infinite, 0)
        } else {
            let chunk_end = begin + chunk - 1;
            if chunk_end >= end {
                (infinite, end)
            } else {
                (chunk_end, chunk_end)
            }
        };
        self.send_admin(
            msg_type::RESEND_REQUEST,
            &[],
            &mut |m| {
                m.uint(tag::BEGIN_SEQ_NO, begin)
                    .uint(tag::END_SEQ_NO, wire_end);
            },
            app,
        );
        let now = self.now();
        if let Some(live) = self.live_mut() {
            live.gap = Some(GapRequest {
                begin,
                end,
                current_end,
                last_progress: now,
            });
        }
        self.events.push_back(SessionEvent::ResendRequested {
            begin,
            end: wire_end,
        });
        self.notify(
            app,
            &AppEvent::ResendRequested {
                begin,
                end: wire_end,
            },
        );
    }

    /// A message numbered above the expected one: queued, and the gap asked for
    /// (once, unless `SendRedundantResendRequests`).
    pub(super) fn too_high(&mut self, msg: &MessageView<'_>, seq: u64, app: &mut dyn Application) {
        if !self.enqueue(msg, seq, app) {
            return;
        }
        let outstanding = self.live().and_then(|live| live.gap);
        if let Some(gap) = outstanding {
            if seq >= gap.begin && !self.config.send_redundant_resend_requests {
                return;
            }
        }
        let expected = self.expected();
        self.notify(
            app,
            &AppEvent::GapDetected {
                expected,
                received: seq,
            },
        );
        self.send_resend_request(expected, seq - 1, app);
    }

    /// A Logon numbered above the expected one when both Logons carried
    /// NextExpectedMsgSeqNum(789): the peer resends from the number ours named
    /// without being asked, so the Logon is queued and the gap recorded as asked
    /// for, without a ResendRequest (which would have the same messages sent
    /// twice). As QuickFIX/J (`nextLogon`:
    /// `setResetRangeFromLastExpectedLogonNextSeqNumLogon`) and QuickFIX C++
    /// (`nextLogon` with SendNextExpectedMsgSeqNum) do; unlike them, only when
    /// the peer's Logon shows that it reads 789 (it carries one), and
    /// `ResendRequestTimeout` still asks if nothing comes.
    pub(super) fn too_high_logon_awaiting_resend(
        &mut self,
        msg: &MessageView<'_>,
        seq: u64,
        app: &mut dyn Application,
    ) {
        if !self.enqueue(msg, seq, app) {
            return;
        }
        let (begin, now) = (self.expected(), self.now());
        self.notify(
            app,
            &AppEvent::GapDetected {
                expected: begin,
                received: seq,
            },
        );
        if let Some(live) = self.live_mut() {
            live.gap = Some(GapRequest {
                begin,
                end: seq - 1,
                current_end: seq - 1,
                last_progress: now,
            });
        }
    }

    /// Queues a too-high message; when the queue is full, says so in a Logout and
    /// asks to be disconnected (false).
    fn enqueue(&mut self, msg: &MessageView<'_>, seq: u64, app: &mut dyn Application) -> bool {
        if self.queue.insert(seq, msg.as_bytes()).is_err() {
            let limit = self.config.max_inbound_queue_bytes;
            let expected = self.expected();
            self.logout_and_disconnect(
                format_args!(
                    "Inbound queue limit of {limit} bytes reached waiting for a resend of {expected} to {}",
                    seq - 1
                ),
                DisconnectReason::InboundQueueFull,
                app,
            );
            return false;
        }
        true
    }

    /// A message numbered below the expected one: a Logout and the end of the
    /// connection, unless it is a PossDup (checked, then ignored).
    pub(super) fn too_low(&mut self, msg: &MessageView<'_>, seq: u64, app: &mut dyn Application) {
        if msg.get(tag::POSS_DUP_FLAG) != Some(b"Y") {
            let expected = self.expected();
            self.logout_and_disconnect(
                format_args!("MsgSeqNum too low, expecting {expected} but received {seq}"),
                DisconnectReason::SeqNumTooLow,
                app,
            );
            return;
        }
        self.poss_dup_ok(msg, app);
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
        if let Some(gap) = self.live_mut().and_then(|live| live.gap.as_mut()) {
            gap.last_progress = now;
        }
    }

    /// A message numbered `seq` arrived in sequence while a gap is open: the gap
    /// is filled (past its end), or the next chunk is asked for.
    pub(super) fn gap_advanced_to(&mut self, seq: u64, app: &mut dyn Application) {
        let Some(gap) = self.live().and_then(|live| live.gap) else {
            return;
        };
        if seq >= gap.end {
            if let Some(live) = self.live_mut() {
                live.gap = None;
            }
        } else if self.config.resend_request_chunk_size > 0 && seq >= gap.current_end {
            self.send_resend_request(seq + 1, gap.end, app);
        }
    }
}

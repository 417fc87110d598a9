//! SequenceReset (35=4), Reset and GapFill modes.

use peregrine_codec::{tag, MessageView};
use peregrine_dict::SessionRejectReason;
use peregrine_store::MessageStore;

use crate::app::Application;

use super::core::Core;
use super::events::AppEvent;
use super::reject::*;
use super::verify::{parse_seq, seq_field_problem, SeqCheck};

impl<S: MessageStore> Core<S> {
    /// A SequenceReset: GapFill moves the expected number on; Reset sets it
    /// (never backwards: a lower NewSeqNo is rejected).
    pub(super) fn on_sequence_reset(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let gap_fill = msg.get(tag::GAP_FILL_FLAG) == Some(b"Y");
        let check = if gap_fill {
            SeqCheck::TooHighAndTooLow
        } else {
            SeqCheck::Neither
        };
        if !self.verify(msg, check, app) {
            return;
        }
        // NewSeqNo must be a sequence number: anything else gets the reject the
        // spec asks for (QuickFIX answers an unparsable one the same way).
        if let Some(rej) = seq_field_problem(msg, tag::NEW_SEQ_NO) {
            self.reject(msg, rej, app);
            return;
        }
        if let Some(new_seq) = parse_seq(msg.get(tag::NEW_SEQ_NO)) {
            self.notify(app, &AppEvent::SequenceResetReceived { new_seq, gap_fill });
        }
        let _ = self.app_from_admin(msg, app);
        let Some(new_seq) = parse_seq(msg.get(tag::NEW_SEQ_NO)) else {
            self.reject(
                msg,
                SessionReject::new(
                    SessionRejectReason::RequiredTagMissing,
                    Some(i64::from(tag::NEW_SEQ_NO)),
                ),
                app,
            );
            return;
        };
        let expected = self.expected();
        if new_seq > expected {
            self.set_target(new_seq);
            // The gap is filled up to NewSeqNo - 1: past its end it is closed; at the
            // end of the chunk asked for, the next chunk is asked for.
            if let Some(gap) = self.live().and_then(|live| live.gap) {
                if new_seq > gap.end {
                    if let Some(live) = self.live_mut() {
                        live.gap = None;
                    }
                } else if self.config.resend_request_chunk_size > 0
                    && new_seq >= gap.current_end
                    && new_seq < gap.end
                {
                    self.send_resend_request(new_seq, gap.end, app);
                }
            }
        } else if new_seq < expected {
            self.reject(
                msg,
                SessionReject::refers_to(SessionRejectReason::ValueIsIncorrect, tag::NEW_SEQ_NO),
                app,
            );
        }
    }
}

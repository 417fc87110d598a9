//! SequenceReset (35=4), Reset and GapFill modes.

use peregrine_codec::MessageView;
use peregrine_dict::SessionRejectReason;
use peregrine_store::MessageStore;

use crate::app::Application;

use super::core::Core;
use super::reject::*;
use super::verify::*;

impl<S: MessageStore> Core<S> {
    pub(super) fn on_sequence_reset(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let gap_fill = msg.get(123) == Some(b"Y");
        if !self.verify(msg, gap_fill, gap_fill) {
            return;
        }
        // NewSeqNo must be a sequence number: anything else gets the reject the
        // spec asks for (QuickFIX answers an unparsable one the same way).
        if let Some(rej) = seq_field_problem(msg, 36) {
            self.reject(msg, rej);
            return;
        }
        let _ = app.from_admin(msg, &self.cfg.id);
        let Some(new_seq) = parse_seq(msg.get(36)) else {
            self.reject(
                msg,
                Rej::new(SessionRejectReason::RequiredTagMissing, Some(36)),
            );
            return;
        };
        let expected = self.expected();
        if new_seq > expected {
            self.set_target(new_seq);
            if let Some(r) = self.resend {
                if new_seq > r.end {
                    self.resend = None;
                } else if self.cfg.resend_request_chunk_size > 0
                    && new_seq >= r.current_end
                    && new_seq < r.end
                {
                    self.send_resend_request(new_seq, r.end);
                }
            }
        } else if new_seq < expected {
            self.reject(msg, Rej::new(SessionRejectReason::ValueIsIncorrect, None));
        }
    }
}

//! Checks of an inbound message before it is handled: dictionary (or
//! structural) validation, and QuickFIX's `verify` (logon state, SendingTime,
//! CompIDs, sequence number, PossDup).

use peregrine_codec::value::{self};
use peregrine_codec::MessageView;
use peregrine_dict::{check_sending_time, SessionRejectReason};
use peregrine_store::MessageStore;

use crate::config::{Nanos, MAX_SEQ_NUM};

use super::core::Core;
use super::events::{DisconnectReason, SessionState};
use super::reject::*;

/// Without a dictionary: the fields the session itself reads from an admin message must
/// be there and be numbers (what QuickFIX reports when it cannot read them).
pub(super) fn admin_structure(msg: &MessageView<'_>) -> Option<Rej> {
    let (required, numeric): (&[u32], &[u32]) = match msg.msg_type() {
        b"A" => (&[98, 108], &[98, 108, 789]),
        b"1" => (&[112], &[]),
        b"2" => (&[7, 16], &[7, 16]),
        b"3" => (&[45], &[45]),
        b"4" => (&[36], &[36]),
        _ => (&[], &[]),
    };
    if let Some(&t) = required.iter().find(|&&t| !msg.contains(t)) {
        return Some(Rej::new(
            SessionRejectReason::RequiredTagMissing,
            Some(t as i64),
        ));
    }
    // The format only: a well-formed integer out of range (HeartBtInt 2^40, NewSeqNo
    // 2^64) gets the reject or Logout that says so, where the value is used.
    numeric
        .iter()
        .find(|&&t| msg.get(t).is_some_and(|v| !is_integer(v)))
        .map(|&t| {
            Rej::new(
                SessionRejectReason::IncorrectDataFormatForValue,
                Some(t as i64),
            )
        })
}

/// A sequence-number field's value, if it is one: an integer in `1..=MAX_SEQ_NUM`.
pub(super) fn parse_seq(v: Option<&[u8]>) -> Option<u64> {
    v.and_then(|v| value::parse_u64(v).ok())
        .filter(|&n| (1..=MAX_SEQ_NUM).contains(&n))
}

/// Whether `v` is written as an integer (an optional `-`, then digits), whatever its size.
pub(super) fn is_integer(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// Why a sequence-number field cannot be used, as the reject the FIX spec asks for:
/// not an integer at all (IncorrectDataFormatForValue), or an integer outside
/// `1..=MAX_SEQ_NUM` (ValueIsIncorrect), with the tag. `None` when it is usable.
pub(super) fn seq_field_problem(msg: &MessageView<'_>, tag: u32) -> Option<Rej> {
    let v = msg.get(tag)?;
    if parse_seq(Some(v)).is_some() {
        return None;
    }
    let reason = if is_integer(v) {
        SessionRejectReason::ValueIsIncorrect
    } else {
        SessionRejectReason::IncorrectDataFormatForValue
    };
    Some(Rej::new(reason, Some(i64::from(tag))))
}

pub(super) fn parse_time(v: &[u8]) -> Option<Nanos> {
    value::parse_timestamp(v).ok().map(|t| t.to_unix_nanos())
}

impl<S: MessageStore> Core<S> {
    /// Dictionary (or, without one, structural) validation.
    pub(super) fn validate(&mut self, msg: &MessageView<'_>) -> Option<Rej> {
        if self.cfg.validation.use_data_dictionary {
            if let Some(d) = &self.cfg.dictionaries {
                return d
                    .validator(self.cfg.validation.settings)
                    .validate_with(msg, &mut self.shapes)
                    .err()
                    .map(Rej::from);
            }
        }
        if let Some(tag) = msg.first_empty_value() {
            return Some(Rej::new(
                SessionRejectReason::TagSpecifiedWithoutAValue,
                Some(tag as i64),
            ));
        }
        for t in [34u32, 49, 52, 56] {
            if !msg.contains(t) {
                return Some(Rej::new(
                    SessionRejectReason::RequiredTagMissing,
                    Some(t as i64),
                ));
            }
        }
        admin_structure(msg)
    }

    pub(super) fn valid_logon_state(&self, msg: &MessageView<'_>) -> bool {
        let msg_type = msg.msg_type();
        if msg_type == b"A" {
            return !self.logged_on || msg.get(141) == Some(b"Y");
        }
        if self.logged_on {
            return true;
        }
        msg_type == b"5" && self.state == SessionState::LogonSent
    }

    /// QuickFIX's `verify`: logon state, SendingTime, CompIDs, sequence number.
    pub(super) fn verify(
        &mut self,
        msg: &MessageView<'_>,
        check_high: bool,
        check_low: bool,
    ) -> bool {
        if !self.valid_logon_state(msg) {
            self.disconnect(DisconnectReason::InvalidState);
            return false;
        }
        if self.cfg.check_latency {
            if let Some(t) = msg.get(52) {
                if check_sending_time(t, self.now() as i128, self.cfg.max_latency_secs).is_err() {
                    self.reject_and_logout(
                        msg,
                        Rej::new(SessionRejectReason::SendingTimeAccuracyProblem, None),
                    );
                    return false;
                }
            }
        }
        if self.cfg.check_comp_id
            && (msg.get(49) != Some(self.cfg.id.target_comp_id.as_bytes())
                || msg.get(56) != Some(self.cfg.id.sender_comp_id.as_bytes()))
        {
            self.reject_and_logout(msg, Rej::new(SessionRejectReason::CompIdProblem, None));
            return false;
        }
        // Where the number is not checked (a SequenceReset-Reset, a Logout) any
        // integer is taken as it is: QuickFIX's scripts send 34=0 there.
        let seq = if check_high || check_low {
            parse_seq(msg.get(34))
        } else {
            msg.get(34).and_then(|v| value::parse_u64(v).ok())
        };
        let Some(seq) = seq else {
            let rej = seq_field_problem(msg, 34)
                .unwrap_or(Rej::new(SessionRejectReason::RequiredTagMissing, Some(34)));
            self.reject(msg, rej);
            return false;
        };
        let expected = self.expected();
        if check_high && seq > expected {
            self.too_high(msg, seq);
            return false;
        }
        if check_low && seq < expected {
            self.too_low(msg, seq);
            return false;
        }
        if msg.get(43) == Some(b"Y") && msg.msg_type() != b"4" && !self.poss_dup_ok(msg) {
            return false;
        }
        if check_high || check_low {
            if let Some(r) = self.resend {
                if seq >= r.end {
                    self.resend = None;
                } else if self.cfg.resend_request_chunk_size > 0 && seq >= r.current_end {
                    self.send_resend_request(seq + 1, r.end);
                }
            }
        }
        self.tx.w.last_processed = seq;
        true
    }

    /// OrigSendingTime(122) checks of a PossDupFlag=Y message.
    pub(super) fn poss_dup_ok(&mut self, msg: &MessageView<'_>) -> bool {
        let Some(orig) = msg.get(122) else {
            self.reject(
                msg,
                Rej::new(SessionRejectReason::RequiredTagMissing, Some(122)),
            );
            return false;
        };
        let sending = msg.get(52).and_then(parse_time);
        match (parse_time(orig), sending) {
            (Some(o), Some(s)) if o > s => {
                self.reject_and_logout(
                    msg,
                    Rej::new(SessionRejectReason::SendingTimeAccuracyProblem, None),
                );
                false
            }
            _ => true,
        }
    }
}

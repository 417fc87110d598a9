//! Checks of an inbound message before it is handled: dictionary (or
//! structural) validation, and QuickFIX's `verify` (logon state, SendingTime,
//! CompIDs, sequence number, PossDup).

use peregrine_codec::{msg_type, tag, value, MessageView};
use peregrine_dict::{check_sending_time, SessionRejectReason, Validator};
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::{appl_ver_id_code, Nanos, MAX_SEQ_NUM};

use super::core::{Core, State};
use super::events::DisconnectReason;
use super::reject::SessionReject;

/// Without a dictionary: the fields the session itself reads from an admin message must
/// be there and be numbers (what QuickFIX reports when it cannot read them).
pub(super) fn admin_structure(msg: &MessageView<'_>) -> Option<SessionReject> {
    use tag::*;
    let (required, numeric): (&[u32], &[u32]) = match msg.msg_type() {
        msg_type::LOGON => (
            &[ENCRYPT_METHOD, HEART_BT_INT],
            &[ENCRYPT_METHOD, HEART_BT_INT, NEXT_EXPECTED_MSG_SEQ_NUM],
        ),
        msg_type::TEST_REQUEST => (&[TEST_REQ_ID], &[]),
        msg_type::RESEND_REQUEST => (&[BEGIN_SEQ_NO, END_SEQ_NO], &[BEGIN_SEQ_NO, END_SEQ_NO]),
        msg_type::REJECT => (&[REF_SEQ_NUM], &[REF_SEQ_NUM]),
        msg_type::SEQUENCE_RESET => (&[NEW_SEQ_NO], &[NEW_SEQ_NO]),
        _ => (&[], &[]),
    };
    if let Some(&t) = required.iter().find(|&&t| !msg.contains(t)) {
        return Some(SessionReject::new(
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
            SessionReject::new(
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
pub(super) fn seq_field_problem(msg: &MessageView<'_>, field: u32) -> Option<SessionReject> {
    let v = msg.get(field)?;
    if parse_seq(Some(v)).is_some() {
        return None;
    }
    let reason = if is_integer(v) {
        SessionRejectReason::ValueIsIncorrect
    } else {
        SessionRejectReason::IncorrectDataFormatForValue
    };
    Some(SessionReject::new(reason, Some(i64::from(field))))
}

/// A UTCTimestamp's value in nanoseconds, if it is one.
pub(super) fn parse_time(v: &[u8]) -> Option<Nanos> {
    value::parse_timestamp(v).ok().map(|t| t.to_unix_nanos())
}

/// Which sequence-number checks [`Core::verify`] makes (QuickFIX's
/// `checkTooHigh`/`checkTooLow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SeqCheck {
    /// Every message in sequence: a higher number is a gap, a lower one an error.
    TooHighAndTooLow,
    /// A Logon: a higher number is dealt with after the logon.
    TooLow,
    /// Logout, ResendRequest, SequenceReset-Reset: the number is not checked.
    Neither,
}

impl<S: MessageStore> Core<S> {
    /// Dictionary (or, without one, structural) validation.
    pub(super) fn validate(&mut self, msg: &MessageView<'_>) -> Option<SessionReject> {
        if self.config.validation.use_data_dictionary {
            if let Some(d) = &self.config.dictionaries {
                let settings = self.config.validation.settings;
                let validator = if d.has_versions() {
                    // QuickFIX/J's choice: the message's ApplVerID(1128), else the
                    // counterparty's DefaultApplVerID (its Logon's 1137), else ours.
                    let appl = msg
                        .get(tag::APPL_VER_ID)
                        .or(self.peer_appl_ver_id.as_deref().map(str::as_bytes))
                        .or(self
                            .config
                            .default_appl_ver_id
                            .as_deref()
                            .map(|a| appl_ver_id_code(a).as_bytes()))
                        .unwrap_or_default();
                    match d.validator_for(appl, settings) {
                        Some(v) => v,
                        // Session messages need the transport dictionary only.
                        None if msg_type::is_admin(msg.msg_type()) => {
                            Validator::fixt(d.transport(), d.transport(), settings)
                        }
                        None => {
                            return Some(SessionReject::new(
                                SessionRejectReason::InvalidUnsupportedApplicationVersion,
                                Some(i64::from(tag::APPL_VER_ID)),
                            ))
                        }
                    }
                } else {
                    d.validator(settings)
                };
                return validator
                    .validate_with(msg, self.shapes.get_or_insert_with(Box::default))
                    .err()
                    .map(SessionReject::from);
            }
        }
        if let Some(tag) = msg.first_empty_value() {
            return Some(SessionReject::new(
                SessionRejectReason::TagSpecifiedWithoutAValue,
                Some(tag as i64),
            ));
        }
        for t in [
            tag::MSG_SEQ_NUM,
            tag::SENDER_COMP_ID,
            tag::SENDING_TIME,
            tag::TARGET_COMP_ID,
        ] {
            if !msg.contains(t) {
                return Some(SessionReject::new(
                    SessionRejectReason::RequiredTagMissing,
                    Some(t as i64),
                ));
            }
        }
        admin_structure(msg)
    }

    /// Whether `msg` may arrive in this state (QuickFIX's `validLogonState`).
    pub(super) fn valid_logon_state(&self, msg: &MessageView<'_>) -> bool {
        let kind = msg.msg_type();
        if kind == msg_type::LOGON {
            return !self.logged_on() || msg.get(tag::RESET_SEQ_NUM_FLAG) == Some(b"Y");
        }
        if self.logged_on() {
            return true;
        }
        kind == msg_type::LOGOUT && matches!(self.state, State::LogonSent { .. })
    }

    /// QuickFIX's `verify`: logon state, SendingTime, CompIDs, sequence number
    /// (checked as `check` says). Whether the message may be handled.
    pub(super) fn verify(
        &mut self,
        msg: &MessageView<'_>,
        check: SeqCheck,
        app: &mut dyn Application,
    ) -> bool {
        let (check_high, check_low) = match check {
            SeqCheck::TooHighAndTooLow => (true, true),
            SeqCheck::TooLow => (false, true),
            SeqCheck::Neither => (false, false),
        };
        if !self.valid_logon_state(msg) {
            self.disconnect(DisconnectReason::InvalidState);
            return false;
        }
        // A Logout answering our Logon is the counterparty refusing it, often
        // for our clock: believed whatever its SendingTime says (answering it
        // with a SendingTime reject would turn a refusal into a protocol error).
        let refusal =
            msg.msg_type() == msg_type::LOGOUT && matches!(self.state, State::LogonSent { .. });
        if self.config.check_latency && !refusal {
            if let Some(t) = msg.get(tag::SENDING_TIME) {
                if check_sending_time(t, self.now() as i128, self.config.max_latency_secs).is_err()
                {
                    self.reject_and_logout(
                        msg,
                        SessionReject::refers_to(
                            SessionRejectReason::SendingTimeAccuracyProblem,
                            tag::SENDING_TIME,
                        ),
                        app,
                    );
                    return false;
                }
            }
        }
        if self.config.check_comp_id
            && (msg.get(tag::SENDER_COMP_ID) != Some(self.config.id.target_comp_id.as_bytes())
                || msg.get(tag::TARGET_COMP_ID) != Some(self.config.id.sender_comp_id.as_bytes()))
        {
            self.reject_and_logout(
                msg,
                SessionReject::new(SessionRejectReason::CompIdProblem, None),
                app,
            );
            return false;
        }
        // Where the number is not checked (a SequenceReset-Reset, a Logout) any
        // integer is taken as it is: QuickFIX's scripts send 34=0 there.
        let seq = if check_high || check_low {
            parse_seq(msg.get(tag::MSG_SEQ_NUM))
        } else {
            msg.get(tag::MSG_SEQ_NUM)
                .and_then(|v| value::parse_u64(v).ok())
        };
        let Some(seq) = seq else {
            let rej = seq_field_problem(msg, tag::MSG_SEQ_NUM).unwrap_or(SessionReject::new(
                SessionRejectReason::RequiredTagMissing,
                Some(i64::from(tag::MSG_SEQ_NUM)),
            ));
            self.reject(msg, rej, app);
            return false;
        };
        let expected = self.expected();
        if check_high && seq > expected {
            // Our in-session reset Logon (ResetSeqTime) awaits its answer: a Heartbeat,
            // TestRequest, ResendRequest, Reject or SequenceReset numbered high was sent
            // before the peer saw it, in the numbering both sides just left behind.
            if self.live().is_some_and(|l| l.reset_sent)
                && matches!(
                    msg.msg_type(),
                    msg_type::HEARTBEAT
                        | msg_type::TEST_REQUEST
                        | msg_type::RESEND_REQUEST
                        | msg_type::REJECT
                        | msg_type::SEQUENCE_RESET
                )
            {
                return false;
            }
            self.too_high(msg, seq, app);
            return false;
        }
        if seq == expected && msg.msg_type() != msg_type::LOGON {
            // The peer numbers in the new sequence: our reset Logon has reached it
            // (a QuickFIX/Go initiator resets without answering), so a later Logon
            // with ResetSeqNumFlag=Y is its own reset, not an answer to ours.
            if let Some(live) = self.live_mut().filter(|l| l.reset_sent) {
                live.reset_sent = false;
            }
        }
        if check_low && seq < expected {
            self.too_low(msg, seq, app);
            return false;
        }
        if msg.get(tag::POSS_DUP_FLAG) == Some(b"Y")
            && msg.msg_type() != msg_type::SEQUENCE_RESET
            && !self.poss_dup_ok(msg, app)
        {
            return false;
        }
        if check_high || check_low {
            self.gap_advanced_to(seq, app);
        }
        self.outgoing.writer.last_processed = seq;
        true
    }

    /// OrigSendingTime(122) checks of a PossDupFlag=Y message.
    pub(super) fn poss_dup_ok(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) -> bool {
        let Some(orig) = msg.get(tag::ORIG_SENDING_TIME) else {
            self.reject(
                msg,
                SessionReject::new(
                    SessionRejectReason::RequiredTagMissing,
                    Some(i64::from(tag::ORIG_SENDING_TIME)),
                ),
                app,
            );
            return false;
        };
        let sending = msg.get(tag::SENDING_TIME).and_then(parse_time);
        match (parse_time(orig), sending) {
            (Some(o), Some(s)) if o > s => {
                self.reject_and_logout(
                    msg,
                    SessionReject::refers_to(
                        SessionRejectReason::SendingTimeAccuracyProblem,
                        tag::ORIG_SENDING_TIME,
                    ),
                    app,
                );
                false
            }
            _ => true,
        }
    }
}

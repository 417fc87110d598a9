//! Session-level Rejects (35=3) and BusinessMessageRejects (35=j), with
//! QuickFIX's per-version fields.

use peregrine_codec::value::{self};
use peregrine_codec::MessageView;
use peregrine_dict::{SessionRejectReason, ValidationError};
use peregrine_store::MessageStore;

use crate::app::AppReject;

use super::core::Core;
use super::events::{DisconnectReason, SessionEvent};
use super::outgoing::*;

/// A session-level reject to send.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rej {
    pub(super) reason: SessionRejectReason,
    pub(super) ref_tag: Option<i64>,
}

impl Rej {
    pub(super) fn new(reason: SessionRejectReason, ref_tag: Option<i64>) -> Self {
        Rej { reason, ref_tag }
    }
}

impl From<ValidationError> for Rej {
    fn from(e: ValidationError) -> Self {
        Rej {
            reason: e.reason,
            ref_tag: e.ref_tag.map(i64::from),
        }
    }
}

/// Routing fields of a reply: the peer's OnBehalfOf* become our DeliverTo* and back.
pub(super) fn reverse_route<'a>(msg: &MessageView<'a>, out: &mut [(u32, HVal<'a>); 6]) -> usize {
    let mut n = 0;
    for (from, to) in [
        (115, 128),
        (128, 115),
        (116, 129),
        (129, 116),
        (144, 145),
        (145, 144),
    ] {
        if from >= 144 && msg.begin_string() == b"FIX.4.0" {
            // OnBehalfOfLocationID/DeliverToLocationID came with FIX.4.1.
            continue;
        }
        if let Some(v) = msg.get(from) {
            if !v.is_empty() {
                out[n] = (to, HVal::Bytes(v));
                n += 1;
            }
        }
    }
    n
}

impl<S: MessageStore> Core<S> {
    /// Session-level Reject (35=3) of `msg`, with QuickFIX's per-version fields.
    pub(super) fn reject(&mut self, msg: &MessageView<'_>, rej: Rej) {
        // RefSeqNum(45) echoes the number as sent, whatever it is.
        let seq = msg.get(34).and_then(|v| value::parse_u64(v).ok());
        let msg_type = msg.msg_type();
        if msg_type != b"A" && msg_type != b"4" && seq == Some(self.expected()) {
            self.incr_target();
        }
        if let Some(s) = seq {
            self.tx.w.last_processed = s;
        }
        let pre42 = self.pre42();
        let begin = self.cfg.id.begin_string.as_bytes();
        let code = rej.reason.code();
        let with_reason = !pre42 && (begin != b"FIX.4.2" || code <= 11);
        let mut text = StackText::new();
        {
            use std::fmt::Write;
            let _ = text.write_str(rej.reason.text());
            if let (true, Some(t)) = (pre42, rej.ref_tag) {
                let _ = write!(text, " ({t})");
            }
        }
        let mut route = [(0, HVal::Uint(0)); 6];
        let n = reverse_route(msg, &mut route);
        self.tx.admin(b"3", &route[..n], &mut |m| {
            if let Some(s) = seq {
                m.uint(45, s);
            }
            m.str(58, text.as_bytes());
            if !pre42 {
                if let Some(t) = rej.ref_tag {
                    m.int(371, t);
                }
                if !msg_type.is_empty() {
                    m.str(372, msg_type);
                }
                if with_reason {
                    m.uint(373, code as u64);
                }
            }
        });
        self.events.push_back(SessionEvent::Rejected {
            ref_seq: seq.unwrap_or(0),
            reason: code,
        });
    }

    /// The reject the FIX version calls for when the application refuses a message.
    pub(super) fn app_reject(&mut self, msg: &MessageView<'_>, r: AppReject) {
        let (reason, text) = match r {
            AppReject::Session(e) => return self.reject(msg, e.into()),
            AppReject::UnsupportedMessageType => (3, "Unsupported Message Type"),
            AppReject::Business { reason, text, .. } => (reason, text),
        };
        // RefSeqNum(45) echoes the number as sent, whatever it is.
        let seq = msg.get(34).and_then(|v| value::parse_u64(v).ok());
        if seq == Some(self.expected()) {
            self.incr_target();
        }
        if let Some(s) = seq {
            self.tx.w.last_processed = s;
        }
        let msg_type = msg.msg_type();
        let mut route = [(0, HVal::Uint(0)); 6];
        let n = reverse_route(msg, &mut route);
        let pre42 = self.pre42();
        let kind: &[u8] = if pre42 { b"3" } else { b"j" };
        self.tx.admin(kind, &route[..n], &mut |m| {
            if let Some(s) = seq {
                m.uint(45, s);
            }
            m.str(58, text.as_bytes());
            if !pre42 {
                m.str(372, msg_type);
                m.uint(380, reason as u64);
            }
        });
        self.events.push_back(SessionEvent::Rejected {
            ref_seq: seq.unwrap_or(0),
            reason,
        });
    }

    /// A failed session-level check: Reject + Logout when logged on, else disconnect.
    pub(super) fn reject_and_logout(&mut self, msg: &MessageView<'_>, rej: Rej) {
        if !self.logged_on {
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        self.reject(msg, rej);
        self.initiate_logout(None);
    }
}

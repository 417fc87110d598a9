//! Session-level Rejects (35=3) and BusinessMessageRejects (35=j), with
//! QuickFIX's per-version fields.

use peregrine_codec::{msg_type, tag, value, MessageView};
use peregrine_dict::{SessionRejectReason, ValidationError};
use peregrine_store::MessageStore;

use crate::app::{AppReject, Application, RefId, SendError};

use super::core::Core;
use super::events::{AppEvent, DisconnectReason, RejectInfo, RejectKind, SessionEvent};
use super::outgoing::{HeaderValue, StackText};

/// A session-level Reject to send: SessionRejectReason(373) and RefTagID(371).
#[derive(Clone, Copy, Debug)]
pub(super) struct SessionReject {
    pub(super) reason: SessionRejectReason,
    pub(super) ref_tag: Option<i64>,
    /// Before FIX.4.2 (no RefTagID) the tag is written into Text(58) as
    /// `(tag)`; not for the tags QuickFIX/J adds where QuickFIX has none
    /// (docs/acceptance-differences.md), whose Text stays QuickFIX's.
    pub(super) tag_in_text: bool,
}

impl SessionReject {
    pub(super) fn new(reason: SessionRejectReason, ref_tag: Option<i64>) -> Self {
        SessionReject {
            reason,
            ref_tag,
            tag_in_text: true,
        }
    }

    /// A Reject whose RefTagID(371) QuickFIX/J sends and QuickFIX does not:
    /// sent from FIX.4.2 on, never in the Text of earlier versions.
    pub(super) fn refers_to(reason: SessionRejectReason, tag: u32) -> Self {
        SessionReject {
            reason,
            ref_tag: Some(i64::from(tag)),
            tag_in_text: false,
        }
    }
}

impl From<ValidationError> for SessionReject {
    fn from(e: ValidationError) -> Self {
        match (e.reason, e.ref_tag) {
            // The field at fault is MsgType(35) (QuickFIX/J names it).
            (SessionRejectReason::InvalidMsgType, None) => {
                SessionReject::refers_to(e.reason, tag::MSG_TYPE)
            }
            (reason, ref_tag) => SessionReject::new(reason, ref_tag.map(i64::from)),
        }
    }
}

/// Routing fields of a reply: the peer's OnBehalfOf* become our DeliverTo* and back.
pub(super) fn reverse_route<'a>(
    msg: &MessageView<'a>,
    out: &mut [(u32, HeaderValue<'a>); 6],
) -> usize {
    use tag::*;
    let mut n = 0;
    for (from, to) in [
        (ON_BEHALF_OF_COMP_ID, DELIVER_TO_COMP_ID),
        (DELIVER_TO_COMP_ID, ON_BEHALF_OF_COMP_ID),
        (ON_BEHALF_OF_SUB_ID, DELIVER_TO_SUB_ID),
        (DELIVER_TO_SUB_ID, ON_BEHALF_OF_SUB_ID),
        (ON_BEHALF_OF_LOCATION_ID, DELIVER_TO_LOCATION_ID),
        (DELIVER_TO_LOCATION_ID, ON_BEHALF_OF_LOCATION_ID),
    ] {
        let location = matches!(from, ON_BEHALF_OF_LOCATION_ID | DELIVER_TO_LOCATION_ID);
        if location && msg.begin_string() == b"FIX.4.0" {
            // OnBehalfOfLocationID/DeliverToLocationID came with FIX.4.1.
            continue;
        }
        if let Some(v) = msg.get(from) {
            if !v.is_empty() {
                out[n] = (to, HeaderValue::Bytes(v));
                n += 1;
            }
        }
    }
    n
}

impl<S: MessageStore> Core<S> {
    /// Session-level Reject (35=3) of `msg`, with QuickFIX's per-version fields.
    pub(super) fn reject(
        &mut self,
        msg: &MessageView<'_>,
        rej: SessionReject,
        app: &mut dyn Application,
    ) {
        // RefSeqNum(45) echoes the number as sent, whatever it is.
        let seq = msg
            .get(tag::MSG_SEQ_NUM)
            .and_then(|v| value::parse_u64(v).ok());
        let kind = msg.msg_type();
        // As QuickFIX: a rejected Logon or SequenceReset does not take its number.
        let takes_number = kind != msg_type::LOGON && kind != msg_type::SEQUENCE_RESET;
        if takes_number && seq == Some(self.expected()) {
            self.incr_target();
        }
        if let Some(s) = seq {
            self.outgoing.writer.last_processed = s;
        }
        let before_fix42 = self.before_fix42();
        let begin = self.config.id.begin_string.as_bytes();
        let code = rej.reason.code();
        let with_reason = !before_fix42 && (begin != b"FIX.4.2" || code <= 11);
        let mut text = StackText::new();
        {
            use std::fmt::Write;
            let _ = text.write_str(rej.reason.text());
            if let (true, true, Some(t)) = (before_fix42, rej.tag_in_text, rej.ref_tag) {
                let _ = write!(text, " ({t})");
            }
        }
        let mut route = [(0, HeaderValue::Uint(0)); 6];
        let n = reverse_route(msg, &mut route);
        self.send_admin(
            msg_type::REJECT,
            &route[..n],
            &mut |m| {
                if let Some(s) = seq {
                    m.uint(tag::REF_SEQ_NUM, s);
                }
                m.str(tag::TEXT, text.as_bytes());
                if !before_fix42 {
                    if let Some(t) = rej.ref_tag {
                        m.int(tag::REF_TAG_ID, t);
                    }
                    if !kind.is_empty() {
                        m.str(tag::REF_MSG_TYPE, kind);
                    }
                    if with_reason {
                        m.uint(tag::SESSION_REJECT_REASON, u64::from(code));
                    }
                }
            },
            app,
        );
        self.events.push_back(SessionEvent::Rejected {
            ref_seq: seq.unwrap_or(0),
            reason: code,
        });
        let info = RejectInfo {
            kind: RejectKind::Session,
            ref_seq: seq,
            ref_msg_type: (!before_fix42 && !kind.is_empty()).then_some(kind),
            reason: with_reason.then_some(code),
            ref_tag: rej
                .ref_tag
                .filter(|_| !before_fix42)
                .and_then(|t| u32::try_from(t).ok()),
            ref_id: None,
            text: Some(text.as_bytes()),
        };
        self.notify(app, &AppEvent::RejectSent(info));
    }

    /// The reject the FIX version calls for when the application refuses a message.
    pub(super) fn app_reject(
        &mut self,
        msg: &MessageView<'_>,
        r: AppReject,
        app: &mut dyn Application,
    ) {
        let (reason, text, ref_id) = match &r {
            AppReject::Session(e) => return self.reject(msg, (*e).into(), app),
            AppReject::UnsupportedMessageType => (3, "Unsupported Message Type", None),
            AppReject::Business {
                reason,
                text,
                ref_id,
            } => (*reason, &**text, ref_id.as_ref()),
        };
        let ref_id: Option<&[u8]> = match ref_id {
            Some(RefId::Field(t)) => msg.get(*t),
            Some(RefId::Value(v)) => Some(v.as_bytes()),
            None => None,
        };
        // RefSeqNum(45) echoes the number as sent, whatever it is.
        let seq = msg
            .get(tag::MSG_SEQ_NUM)
            .and_then(|v| value::parse_u64(v).ok());
        if seq == Some(self.expected()) {
            self.incr_target();
        }
        if let Some(s) = seq {
            self.outgoing.writer.last_processed = s;
        }
        let kind = msg.msg_type();
        let mut route = [(0, HeaderValue::Uint(0)); 6];
        let n = reverse_route(msg, &mut route);
        let before_fix42 = self.before_fix42();
        // BusinessMessageReject came with FIX.4.2; before it, a session Reject.
        let reject_type = if before_fix42 {
            msg_type::REJECT
        } else {
            msg_type::BUSINESS_MESSAGE_REJECT
        };
        let mut body = |m: &mut peregrine_codec::MessageEncoder<'_>| {
            if let Some(s) = seq {
                m.uint(tag::REF_SEQ_NUM, s);
            }
            m.str(tag::TEXT, text.as_bytes());
            if !before_fix42 {
                m.str(tag::REF_MSG_TYPE, kind);
                if let Some(id) = ref_id {
                    m.str(tag::BUSINESS_REJECT_REF_ID, id);
                }
                m.uint(tag::BUSINESS_REJECT_REASON, u64::from(reason));
            }
        };
        // A BusinessMessageReject is an application message (QuickFIX/J passes it to
        // toApp, which may veto it); a Reject is an admin one.
        let sent = if before_fix42 {
            self.send_admin(reject_type, &route[..n], &mut body, app);
            true
        } else {
            match self.send_app(reject_type, &route[..n], &mut body, app) {
                Ok(_) => true,
                Err(SendError::DoNotSend) => false,
                Err(_) => {
                    self.outgoing.store_failed = true;
                    true
                }
            }
        };
        self.events.push_back(SessionEvent::Rejected {
            ref_seq: seq.unwrap_or(0),
            reason,
        });
        if sent {
            let info = RejectInfo {
                kind: if before_fix42 {
                    RejectKind::Session
                } else {
                    RejectKind::Business
                },
                ref_seq: seq,
                ref_msg_type: (!before_fix42).then_some(kind),
                reason: (!before_fix42).then_some(reason),
                ref_tag: None,
                ref_id: ref_id.filter(|_| !before_fix42),
                text: Some(text.as_bytes()),
            };
            self.notify(app, &AppEvent::RejectSent(info));
        }
    }

    /// A failed session-level check: Reject + Logout when logged on, else disconnect.
    pub(super) fn reject_and_logout(
        &mut self,
        msg: &MessageView<'_>,
        rej: SessionReject,
        app: &mut dyn Application,
    ) {
        // The Logout says why (QuickFIX/J's text; QuickFIX's has none).
        let mut why = StackText::new();
        {
            use std::fmt::Write;
            let _ = why.write_str(rej.reason.text());
            if let Some(t) = rej.ref_tag {
                let _ = write!(why, ", field={t}");
            }
        }
        if !self.logged_on() {
            // A refused Logon: a Logout that says why, then the drop (QuickFIX/J;
            // QuickFIX drops it without a word).
            self.logout_and_disconnect(
                format_args!(
                    "Invalid Logon message: {}",
                    String::from_utf8_lossy(why.as_bytes())
                ),
                DisconnectReason::InvalidLogon,
                app,
            );
            return;
        }
        self.reject(msg, rej, app);
        self.initiate_logout(Some(why.as_bytes()), app);
    }
}

//! Framing as QuickFIX reads it (a malformed CheckSum, an invalid tag number),
//! garbled input, and the first message of an acceptor connection.

use peregrine_codec::frame::{Frame, Framer, GarbledReason};
use peregrine_codec::value::{self};
use peregrine_codec::{msg_type, tag, DecodeError};
use peregrine_store::MessageStore;

use crate::app::Application;

use crate::config::SessionId;
use crate::lent_decoder::LentDecoder;

use peregrine_dict::SessionRejectReason;

use super::core::{Core, State};
use super::events::{AppEvent, DisconnectReason, RejectInfo, RejectKind, SessionEvent};
use super::reject::SessionReject;

/// QuickFIX's reading of a message whose CheckSum field is malformed (e.g. `10=0`):
/// the message ends at the first `<SOH>10=…<SOH>` at or after where BodyLength points.
pub(super) fn loose_frame(buf: &[u8]) -> Option<usize> {
    if !buf.starts_with(b"8=") {
        return None;
    }
    let bs_end = buf.iter().position(|&b| b == 1)?;
    let rest = &buf[bs_end + 1..];
    if !rest.starts_with(b"9=") {
        return None;
    }
    let len_end = rest.iter().position(|&b| b == 1)?;
    let body_len = value::parse_u64(&rest[2..len_end]).ok()? as usize;
    let body_start = bs_end + 1 + len_end + 1;
    let from = (body_start + body_len).checked_sub(1)?;
    if from >= buf.len() {
        return None;
    }
    let hay = &buf[from..];
    let at = hay.windows(4).position(|w| w == b"\x0110=")?;
    let value_start = from + at + 4;
    let soh = buf[value_start..].iter().position(|&b| b == 1)?;
    Some(value_start + soh + 1)
}

pub(super) fn next_frame(framer: &Framer, buf: &[u8]) -> Frame {
    let f = framer.next_frame(buf);
    match f {
        Frame::Incomplete
        | Frame::Garbled {
            reason: GarbledReason::BodyLengthMismatch,
            ..
        } => match loose_frame(buf) {
            Some(len) => match f {
                Frame::Garbled { skip, .. } if skip <= len => f,
                _ => Frame::Message { len },
            },
            None => f,
        },
        _ => f,
    }
}

/// For a field whose tag is a number QuickFIX parses but FIX does not allow (`0=`,
/// `-1=`): the tag value and the message without that field, if the CheckSum is right.
/// With `check_sum` false (`ValidateChecksum=N`) the CheckSum is not compared.
pub(super) fn without_invalid_tag(
    msg: &[u8],
    offset: usize,
    check_sum: bool,
) -> Option<(SessionReject, Vec<u8>)> {
    let field_end = offset + msg[offset..].iter().position(|&b| b == 1)?;
    let eq = offset + msg[offset..field_end].iter().position(|&b| b == b'=')?;
    let tag = value::parse_i64(&msg[offset..eq]).ok()?;
    // Check the CheckSum of the original bytes.
    let cs_at = msg.len().checked_sub(7)?;
    if &msg[cs_at..cs_at + 3] != b"10=" {
        return None;
    }
    let declared = value::parse_u64(&msg[cs_at + 3..msg.len() - 1]).ok()?;
    let sum = msg[..cs_at].iter().map(|&b| b as u64).sum::<u64>() % 256;
    if check_sum && sum != declared {
        return None;
    }
    let mut fixed = Vec::with_capacity(msg.len());
    fixed.extend_from_slice(&msg[..offset]);
    fixed.extend_from_slice(&msg[field_end + 1..]);
    let reject = SessionReject::new(SessionRejectReason::InvalidTagNumber, Some(tag));
    Some((reject, fixed))
}

/// Why [`peek_session_id`] could not name a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeekError {
    /// The first bytes are not a FIX message.
    Garbled,
    /// The message does not decode.
    Invalid(DecodeError),
    /// SenderCompID(49) or TargetCompID(56) is missing.
    MissingCompId,
}

/// Reads BeginString, SenderCompID(49) and TargetCompID(56) of the first message on a new
/// acceptor connection so that the engine can pick the session ([`SessionId`] as seen from
/// our side: our sender = their 56, our target = their 49). `None` until a whole message
/// is buffered.
///
/// # Errors
///
/// `Some(Err(_))` once a whole message is buffered but names no session:
/// [`PeekError::Garbled`] when the first bytes after any stray ones are not a FIX message,
/// [`PeekError::Invalid`] when the message does not decode (its CheckSum is not
/// compared: the session does, as its `ValidateChecksum` says), [`PeekError::MissingCompId`]
/// when it lacks SenderCompID(49) or TargetCompID(56).
///
/// ```
/// # fn fix(s: &str) -> Vec<u8> {
/// #     let mut f = s.split('|').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap());
/// #     let (_, begin) = f.next().unwrap();
/// #     let (_, msg_type) = f.next().unwrap();
/// #     let mut buf = peregrine_codec::EncodeBuffer::new();
/// #     let mut m = buf.start(begin.as_bytes(), msg_type.as_bytes());
/// #     for (t, v) in f { m.str(t.parse().unwrap(), v.as_bytes()); }
/// #     m.finish().to_vec()
/// # }
/// let logon = &fix("8=FIX.4.4|35=A|34=1|49=TW|52=20231114-22:13:20.000|56=ISLD|98=0|108=30");
/// let id = peregrine_session::peek_session_id(logon).unwrap().unwrap();
/// assert_eq!(id.to_string(), "FIX.4.4:ISLD->TW");
/// assert!(peregrine_session::peek_session_id(&logon[..20]).is_none());
/// ```
pub fn peek_session_id(buf: &[u8]) -> Option<Result<SessionId, PeekError>> {
    let framer = Framer::default();
    // Stray bytes before the message are skipped (the session skips them too).
    let mut at = 0;
    let len = loop {
        match next_frame(&framer, &buf[at..]) {
            Frame::Incomplete => return None,
            Frame::Garbled {
                skip,
                reason: GarbledReason::NoBeginString,
            } => at += skip,
            Frame::Garbled { .. } => return Some(Err(PeekError::Garbled)),
            Frame::Message { len } => break len,
        }
    };
    let buf = &buf[at..];
    // The session's checks, up to the framer's default size; the thread's decoder
    // (every new connection of an acceptor comes here).
    let mut decoder = LentDecoder::take(peregrine_codec::frame::DEFAULT_MAX_MESSAGE_SIZE);
    // The CheckSum is the session's to check, as its `ValidateChecksum` says.
    decoder.config_mut().validate_checksum = false;
    let view = match decoder.decode(&buf[..len]) {
        Ok(v) => v,
        Err(e) => return Some(Err(PeekError::Invalid(e))),
    };
    let (Some(sender), Some(target)) =
        (view.get(tag::SENDER_COMP_ID), view.get(tag::TARGET_COMP_ID))
    else {
        return Some(Err(PeekError::MissingCompId));
    };
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Some(Ok(SessionId {
        begin_string: s(view.begin_string()),
        sender_comp_id: s(target),
        target_comp_id: s(sender),
        qualifier: None,
    }))
}

/// The value of the first `tag=` field of `bytes` (at the start or after an SOH,
/// ended by an SOH), as QuickFIX/J's `MessageUtils.getStringField` finds it in a
/// message it could not parse.
fn raw_field<'a>(bytes: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    let mut at = 0;
    while at < bytes.len() {
        let field = &bytes[at..];
        let end = field.iter().position(|&b| b == 1)?;
        if let Some(v) = field[..end]
            .strip_prefix(tag)
            .and_then(|r| r.strip_prefix(b"="))
        {
            return Some(v);
        }
        at += end + 1;
    }
    None
}

/// Text(58) of the Reject of a garbled message, QuickFIX/J's.
pub(super) const GARBLED_REJECT_TEXT: &str = "Message failed basic validity check";

impl<S: MessageStore> Core<S> {
    /// Bytes dropped by the framer or the decoder (`bytes`). Stray bytes before a
    /// message (`stray`: no `8=FIX` where one should start) are skipped as
    /// QuickFIX's parser skips them; a garbled message before the Logon ends the
    /// connection; after it, with `RejectGarbledMessage` it is rejected
    /// ([`Core::reject_garbled`]), else dropped.
    pub(super) fn on_garbled(&mut self, stray: bool, bytes: &[u8], app: &mut dyn Application) {
        self.events.push_back(SessionEvent::Garbled);
        self.app_events.push_back(AppEvent::Garbled);
        if stray {
            return;
        }
        if matches!(self.state, State::AwaitingLogon { .. }) {
            self.disconnect(DisconnectReason::InvalidLogon);
        } else if self.config.reject_garbled_message && self.logged_on() {
            self.reject_garbled(bytes, app);
        }
    }

    /// QuickFIX/J's Reject of a garbled message (`RejectGarbledMessage=Y`):
    /// RefSeqNum(45) its MsgSeqNum as written (0 without one), RefMsgType(372) its
    /// MsgType if it has one (FIX.4.2 on), Text(58) [`GARBLED_REJECT_TEXT`], no
    /// SessionRejectReason; its number is taken when it is the one expected and it
    /// is not a Logon or a SequenceReset.
    fn reject_garbled(&mut self, bytes: &[u8], app: &mut dyn Application) {
        let seq_text = raw_field(bytes, b"34").filter(|v| !v.is_empty());
        let seq = seq_text.and_then(|v| value::parse_u64(v).ok());
        let kind = raw_field(bytes, b"35").filter(|v| !v.is_empty());
        let takes_number = !matches!(
            kind,
            Some(k) if k == msg_type::LOGON || k == msg_type::SEQUENCE_RESET
        );
        if takes_number && seq == Some(self.expected()) {
            self.incr_target();
        }
        if let Some(s) = seq {
            self.outgoing.writer.last_processed = s;
        }
        let ref_msg_type = kind.filter(|_| !self.before_fix42());
        self.send_admin(
            msg_type::REJECT,
            &[],
            &mut |m| {
                match (seq, seq_text) {
                    (Some(s), _) => m.uint(tag::REF_SEQ_NUM, s),
                    // QuickFIX/J echoes what it found; 0 when there is nothing.
                    (None, Some(t)) => m.str(tag::REF_SEQ_NUM, t),
                    (None, None) => m.uint(tag::REF_SEQ_NUM, 0),
                };
                m.str(tag::TEXT, GARBLED_REJECT_TEXT.as_bytes());
                if let Some(k) = ref_msg_type {
                    m.str(tag::REF_MSG_TYPE, k);
                }
            },
            app,
        );
        self.events.push_back(SessionEvent::Rejected {
            ref_seq: seq.unwrap_or(0),
            reason: SessionRejectReason::Other.code(),
        });
        let info = RejectInfo {
            kind: RejectKind::Session,
            ref_seq: Some(seq.unwrap_or(0)),
            ref_msg_type,
            reason: None,
            ref_tag: None,
            ref_id: None,
            text: Some(GARBLED_REJECT_TEXT.as_bytes()),
        };
        self.notify(app, &AppEvent::RejectSent(info));
    }
}

#[cfg(test)]
mod tests {
    use super::raw_field;

    #[test]
    fn raw_field_finds_whole_tags_only() {
        let m = b"8=FIXT.1.1\x019=29\x01134=7\x0134=6\x0135=D\x0110=121\x01";
        assert_eq!(raw_field(m, b"34"), Some(&b"6"[..]));
        assert_eq!(raw_field(m, b"35"), Some(&b"D"[..]));
        assert_eq!(raw_field(m, b"8"), Some(&b"FIXT.1.1"[..]));
        assert_eq!(raw_field(m, b"52"), None);
        // A field cut off by the end of the bytes is not read.
        assert_eq!(raw_field(b"8=FIX.4.4\x0134=12", b"34"), None);
    }
}

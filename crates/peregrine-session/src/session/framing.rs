//! Framing as QuickFIX reads it (a malformed CheckSum, an invalid tag number),
//! garbled input, and the first message of an acceptor connection.

use peregrine_codec::frame::{Frame, Framer, GarbledReason};
use peregrine_codec::value::{self};
use peregrine_codec::{tag, DecodeError};
use peregrine_store::MessageStore;

use crate::config::SessionId;
use crate::lent_decoder::LentDecoder;

use peregrine_dict::SessionRejectReason;

use super::core::{Core, State};
use super::events::{AppEvent, DisconnectReason, SessionEvent};
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
pub(super) fn without_invalid_tag(msg: &[u8], offset: usize) -> Option<(SessionReject, Vec<u8>)> {
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
    if sum != declared {
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
/// [`PeekError::Invalid`] when the message does not decode, [`PeekError::MissingCompId`]
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

impl<S: MessageStore> Core<S> {
    /// Bytes dropped by the framer or the decoder. Stray bytes before a message
    /// (`stray`: no `8=FIX` where one should start) are skipped as QuickFIX's parser
    /// skips them; a garbled message before the Logon ends the connection.
    pub(super) fn on_garbled(&mut self, stray: bool) {
        self.events.push_back(SessionEvent::Garbled);
        self.app_events.push_back(AppEvent::Garbled);
        if !stray && matches!(self.state, State::AwaitingLogon { .. }) {
            self.disconnect(DisconnectReason::InvalidLogon);
        }
    }
}

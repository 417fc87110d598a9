//! The session state machine.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

use peregrine_codec::frame::{Frame, Framer, GarbledReason};
use peregrine_codec::value::{self, TimePrecision, UtcTimestamp};
use peregrine_codec::{
    DecodeError, Decoder, DecoderConfig, EncodeBuffer, MessageEncoder, MessageView,
};
use peregrine_dict::{check_sending_time, SessionRejectReason, ShapeCache, ValidationError};
use peregrine_store::{MessageStore, StoreError};

use crate::app::{AppReject, Application, Outbox, SendError, Sink};
use crate::config::{
    appl_ver_id_code, is_pre_fix42, Nanos, Role, SessionConfig, SessionId, SECOND,
};

/// Where the session is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionState {
    /// No transport connection.
    Disconnected,
    /// Acceptor: connected, waiting for the peer's Logon.
    AwaitingLogon,
    /// Initiator: our Logon is sent, waiting for the answer.
    LogonSent,
    /// Both Logons exchanged.
    LoggedOn,
    /// Our Logout is sent, waiting for the peer's (or the LogoutTimeout).
    LogoutSent,
    /// The session asked the engine to close the connection
    /// ([`SessionEvent::Disconnect`]); waiting for [`Session::on_disconnected`].
    Closing,
}

/// Why the session asks for the connection to be closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The Logout handshake completed (ours or theirs).
    Logout,
    /// Our Logout was not answered within LogoutTimeout.
    LogoutTimeout,
    /// No Logon within LogonTimeout.
    LogonTimeout,
    /// Nothing received for 2.4 heartbeat intervals (TestRequest unanswered).
    HeartbeatTimeout,
    /// The first message was not a valid Logon (wrong CompIDs, BeginString, SendingTime,
    /// garbled, invalid, or not a Logon at all).
    InvalidLogon,
    /// A message arrived that the session state does not allow (e.g. a second Logon).
    InvalidState,
    /// MsgSeqNum lower than expected without PossDupFlag (a Logout was sent).
    SeqNumTooLow,
    /// The application refused the Logon (a Logout was sent).
    LogonRejected,
    /// NextExpectedMsgSeqNum(789) higher than our next MsgSeqNum (a Logout was sent).
    NextExpectedTooHigh,
    /// Outside the session schedule.
    OutsideSchedule,
    /// [`Session::logout`] was called while not logged on.
    Requested,
}

/// Something the engine or the operator may want to know, polled with
/// [`Session::poll_event`]. Only [`SessionEvent::Disconnect`] requires action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// Both Logons exchanged.
    LoggedOn,
    /// The session was logged on and the connection is gone.
    LoggedOut,
    /// The engine must write what is pending in [`Session::outbound`], close the
    /// connection and call [`Session::on_disconnected`].
    Disconnect(DisconnectReason),
    /// We rejected an inbound message (session Reject or BusinessMessageReject).
    Rejected {
        /// MsgSeqNum of the rejected message (0 when it had none).
        ref_seq: u64,
        /// SessionRejectReason (373) or BusinessRejectReason (380).
        reason: u32,
    },
    /// Bytes were dropped as garbled (no sequence number consumed).
    Garbled,
    /// A sequence gap: we sent a ResendRequest.
    ResendRequested {
        /// BeginSeqNo(7).
        begin: u64,
        /// EndSeqNo(16) as sent (0 or 999999 for "to the end").
        end: u64,
    },
    /// The peer asked for a resend; we answered it.
    ResendAnswered {
        /// BeginSeqNo(7).
        begin: u64,
        /// Last sequence number covered.
        end: u64,
    },
    /// The store failed; the session carries on but persistence is compromised.
    StoreFailed,
}

// ---------------------------------------------------------------------------------------
// Outgoing messages

/// A header value to write.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HVal<'a> {
    Bytes(&'a [u8]),
    Uint(u64),
    Time(Nanos),
    Char(u8),
}

const MAX_HEADER: usize = 40;

/// Encodes messages into the outbound buffer.
pub(crate) struct Writer {
    enc: EncodeBuffer,
    pub(crate) out: Vec<u8>,
    begin: Vec<u8>,
    sender: Vec<u8>,
    target: Vec<u8>,
    precision: TimePrecision,
    pub(crate) now: Nanos,
    pub(crate) last_sent: Nanos,
    pub(crate) last_processed: u64,
    send_369: bool,
}

impl Writer {
    /// Encodes one message with MsgSeqNum `seq` and appends it to `out`.
    fn write(
        &mut self,
        seq: u64,
        msg_type: &[u8],
        extra: &[(u32, HVal<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Range<usize> {
        let mut hdr: [(u32, HVal<'_>); MAX_HEADER] = [(0, HVal::Uint(0)); MAX_HEADER];
        let mut n = 0;
        hdr[n] = (34, HVal::Uint(seq));
        n += 1;
        hdr[n] = (49, HVal::Bytes(&self.sender));
        n += 1;
        hdr[n] = (52, HVal::Time(self.now));
        n += 1;
        hdr[n] = (56, HVal::Bytes(&self.target));
        n += 1;
        if self.send_369 {
            hdr[n] = (369, HVal::Uint(self.last_processed));
            n += 1;
        }
        for &(tag, v) in extra {
            if let Some(slot) = hdr[..n].iter_mut().find(|(t, _)| *t == tag) {
                slot.1 = v;
            } else if n < MAX_HEADER {
                hdr[n] = (tag, v);
                n += 1;
            }
        }
        // Insertion sort: a handful of entries, no allocation.
        for i in 1..n {
            let mut j = i;
            while j > 0 && hdr[j - 1].0 > hdr[j].0 {
                hdr.swap(j - 1, j);
                j -= 1;
            }
        }
        let precision = self.precision;
        let mut m = self.enc.start(&self.begin, msg_type);
        for &(tag, v) in &hdr[..n] {
            match v {
                HVal::Bytes(b) => m.str(tag, b),
                HVal::Uint(u) => m.uint(tag, u),
                HVal::Char(c) => m.char(tag, c),
                HVal::Time(t) => {
                    m.timestamp(tag, &UtcTimestamp::from_unix_nanos(t, precision), precision)
                }
            };
        }
        body(&mut m);
        let bytes = m.finish();
        let start = self.out.len();
        self.out.extend_from_slice(bytes);
        self.last_sent = self.now;
        start..self.out.len()
    }
}

/// The sending half: store plus writer.
pub(crate) struct Tx<S> {
    pub(crate) store: S,
    pub(crate) w: Writer,
    persist: bool,
    store_failed: bool,
}

impl<S: MessageStore> Tx<S> {
    fn send(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HVal<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        let seq = self.store.next_sender_seq();
        let r = self.w.write(seq, msg_type, extra, body);
        if self.persist {
            if let Err(e) = self.store.store(seq, &self.w.out[r.clone()]) {
                self.w.out.truncate(r.start);
                return Err(SendError::Store(e));
            }
        }
        if let Err(e) = self.store.incr_next_sender_seq() {
            self.store_failed = true;
            return Err(SendError::Store(e));
        }
        Ok(seq)
    }

    /// Sends an admin message built by the session; a store failure is recorded.
    fn admin(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HVal<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) {
        if self.send(msg_type, extra, body).is_err() {
            self.store_failed = true;
        }
    }
}

impl<S: MessageStore> Sink for Tx<S> {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        let mut extra: [(u32, HVal<'_>); 16] = [(0, HVal::Uint(0)); 16];
        let n = header.len().min(16);
        for (slot, &(t, v)) in extra.iter_mut().zip(header) {
            *slot = (t, HVal::Bytes(v));
        }
        self.send(msg_type, &extra[..n], body)
    }
}

// ---------------------------------------------------------------------------------------
// Rejects

/// A session-level reject to send.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rej {
    reason: SessionRejectReason,
    ref_tag: Option<i64>,
}

impl Rej {
    fn new(reason: SessionRejectReason, ref_tag: Option<i64>) -> Self {
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

/// Header tags of every FIX version (used when re-sending stored messages).
pub(crate) fn is_standard_header_tag(tag: u32) -> bool {
    matches!(
        tag,
        8 | 9
            | 35
            | 34
            | 43
            | 49
            | 50
            | 52
            | 56
            | 57
            | 90
            | 91
            | 97
            | 115
            | 116
            | 122
            | 128
            | 129
            | 142
            | 143
            | 144
            | 145
            | 212
            | 213
            | 347
            | 369
            | 370
            | 627
            | 628
            | 629
            | 630
            | 1128
            | 1129
            | 1156
    )
}

/// Trailer tags.
pub(crate) fn is_standard_trailer_tag(tag: u32) -> bool {
    matches!(tag, 10 | 89 | 93)
}

fn is_admin(msg_type: &[u8]) -> bool {
    matches!(msg_type, b"0" | b"1" | b"2" | b"3" | b"4" | b"5" | b"A")
}

/// Routing fields of a reply: the peer's OnBehalfOf* become our DeliverTo* and back.
fn reverse_route<'a>(msg: &MessageView<'a>, out: &mut [(u32, HVal<'a>); 6]) -> usize {
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

/// Terms of a Logon we cannot accept, as the Text(58) of the Logout that refuses it:
/// encryption (we support EncryptMethod(98)=0 only) or a negative HeartBtInt(108).
fn logon_terms_problem(msg: &MessageView<'_>) -> Option<&'static [u8]> {
    if msg.get(98).is_some_and(|v| v != b"0") {
        return Some(b"Unsupported EncryptMethod(98): only 0 (none) is supported");
    }
    if msg
        .get(108)
        .is_some_and(|v| value::parse_i64(v).map_or(true, |n| n < 0))
    {
        return Some(b"HeartBtInt(108) must be a non-negative integer");
    }
    None
}

/// Without a dictionary: the fields the session itself reads from an admin message must
/// be there and be numbers (what QuickFIX reports when it cannot read them).
fn admin_structure(msg: &MessageView<'_>) -> Option<Rej> {
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
    numeric
        .iter()
        .find(|&&t| msg.get(t).is_some_and(|v| value::parse_i64(v).is_err()))
        .map(|&t| {
            Rej::new(
                SessionRejectReason::IncorrectDataFormatForValue,
                Some(t as i64),
            )
        })
}

fn parse_seq(v: Option<&[u8]>) -> Option<u64> {
    v.and_then(|v| value::parse_u64(v).ok())
}

fn parse_time(v: &[u8]) -> Option<Nanos> {
    value::parse_timestamp(v).ok().map(|t| t.to_unix_nanos())
}

/// A small formatter into a stack buffer (texts of rejects and logouts).
struct StackText {
    buf: [u8; 160],
    len: usize,
}

impl StackText {
    fn new() -> Self {
        StackText {
            buf: [0; 160],
            len: 0,
        }
    }
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let b = s.as_bytes();
        let n = b.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&b[..n]);
        self.len += n;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// The core

#[derive(Clone, Copy, Debug)]
struct ResendRange {
    begin: u64,
    end: u64,
    current_end: u64,
}

pub(crate) struct Core<S> {
    pub(crate) cfg: SessionConfig,
    pub(crate) tx: Tx<S>,
    events: VecDeque<SessionEvent>,
    state: SessionState,
    since: Nanos,
    logged_on: bool,
    sent_reset: bool,
    hb_secs: u32,
    last_received: Nanos,
    test_requests: u32,
    resend: Option<ResendRange>,
    /// Shapes of messages that passed dictionary validation (counterparties repeat
    /// theirs: those messages then only have their values checked).
    shapes: Box<ShapeCache>,
    queue: BTreeMap<u64, Vec<u8>>,
    spare: Vec<Vec<u8>>,
    resend_decoder: Decoder,
}

impl<S: MessageStore> Core<S> {
    fn now(&self) -> Nanos {
        self.tx.w.now
    }

    fn begin_bytes(&self) -> &[u8] {
        self.cfg.id.begin_string.as_bytes()
    }

    fn pre42(&self) -> bool {
        is_pre_fix42(self.begin_bytes())
    }

    fn expected(&self) -> u64 {
        self.tx.store.next_target_seq()
    }

    fn incr_target(&mut self) {
        if self.tx.store.incr_next_target_seq().is_err() {
            self.store_failed();
        }
    }

    fn set_target(&mut self, seq: u64) {
        if self.tx.store.set_next_target_seq(seq).is_err() {
            self.store_failed();
        }
    }

    fn reset_store(&mut self) {
        let now = self.now();
        if self.tx.store.reset(now).is_err() {
            self.store_failed();
        }
        self.queue.clear();
        self.resend = None;
    }

    fn store_failed(&mut self) {
        self.tx.store_failed = true;
        self.events.push_back(SessionEvent::StoreFailed);
    }

    fn connected(&self) -> bool {
        !matches!(
            self.state,
            SessionState::Disconnected | SessionState::Closing
        )
    }

    fn set_state(&mut self, s: SessionState) {
        self.state = s;
        self.since = self.now();
    }

    fn disconnect(&mut self, reason: DisconnectReason) {
        if self.state != SessionState::Closing && self.state != SessionState::Disconnected {
            self.set_state(SessionState::Closing);
            self.events.push_back(SessionEvent::Disconnect(reason));
        }
    }

    fn send_logout(&mut self, text: Option<&[u8]>) {
        self.tx.admin(b"5", &[], &mut |m| {
            if let Some(t) = text {
                m.str(58, t);
            }
        });
    }

    fn initiate_logout(&mut self, text: Option<&[u8]>) {
        self.send_logout(text);
        self.set_state(SessionState::LogoutSent);
    }

    fn send_heartbeat(&mut self, test_req_id: Option<&[u8]>) {
        self.tx.admin(b"0", &[], &mut |m| {
            if let Some(id) = test_req_id {
                m.str(112, id);
            }
        });
    }

    fn infinity(&self) -> u64 {
        if self.pre42() {
            999_999
        } else {
            0
        }
    }

    fn send_resend_request(&mut self, begin: u64, end: u64) {
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
        });
        self.events.push_back(SessionEvent::ResendRequested {
            begin,
            end: wire_end,
        });
    }

    /// Session-level Reject (35=3) of `msg`, with QuickFIX's per-version fields.
    fn reject(&mut self, msg: &MessageView<'_>, rej: Rej) {
        let seq = parse_seq(msg.get(34));
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
    fn app_reject(&mut self, msg: &MessageView<'_>, r: AppReject) {
        let (reason, text) = match r {
            AppReject::Session(e) => return self.reject(msg, e.into()),
            AppReject::UnsupportedMessageType => (3, "Unsupported Message Type"),
            AppReject::Business { reason, text, .. } => (reason, text),
        };
        let seq = parse_seq(msg.get(34));
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

    /// Dictionary (or, without one, structural) validation.
    fn validate(&mut self, msg: &MessageView<'_>) -> Option<Rej> {
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

    fn valid_logon_state(&self, msg: &MessageView<'_>) -> bool {
        let msg_type = msg.msg_type();
        if msg_type == b"A" {
            return !self.logged_on || msg.get(141) == Some(b"Y");
        }
        if self.logged_on {
            return true;
        }
        msg_type == b"5" && self.state == SessionState::LogonSent
    }

    /// A failed session-level check: Reject + Logout when logged on, else disconnect.
    fn reject_and_logout(&mut self, msg: &MessageView<'_>, rej: Rej) {
        if !self.logged_on {
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        self.reject(msg, rej);
        self.initiate_logout(None);
    }

    /// QuickFIX's `verify`: logon state, SendingTime, CompIDs, sequence number.
    fn verify(&mut self, msg: &MessageView<'_>, check_high: bool, check_low: bool) -> bool {
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
        let Some(seq) = parse_seq(msg.get(34)) else {
            self.reject(
                msg,
                Rej::new(SessionRejectReason::RequiredTagMissing, Some(34)),
            );
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
    fn poss_dup_ok(&mut self, msg: &MessageView<'_>) -> bool {
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

    fn too_high(&mut self, msg: &MessageView<'_>, seq: u64) {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(msg.as_bytes());
        if let Some(old) = self.queue.insert(seq, buf) {
            self.spare.push(old);
        }
        if let Some(r) = self.resend {
            if seq >= r.begin {
                return;
            }
        }
        let expected = self.expected();
        self.send_resend_request(expected, seq - 1);
    }

    fn too_low(&mut self, msg: &MessageView<'_>, seq: u64) {
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
    fn take_queued(&mut self) -> Option<Vec<u8>> {
        let expected = self.expected();
        while let Some((&k, _)) = self.queue.first_key_value() {
            if k < expected {
                if let Some(v) = self.queue.remove(&k) {
                    self.spare.push(v);
                }
            } else {
                break;
            }
        }
        if !self.connected() {
            return None;
        }
        self.queue.remove(&expected)
    }

    /// Entry point for every decoded inbound message.
    fn process(
        &mut self,
        msg: &MessageView<'_>,
        app: &mut dyn Application,
        queued: bool,
        forced: Option<Rej>,
    ) {
        if !self.connected() {
            return;
        }
        let now = self.now();
        self.last_received = now;
        self.test_requests = 0;
        let msg_type = msg.msg_type();
        if queued && (msg_type == b"A" || msg_type == b"2") {
            // Already handled when it first arrived.
            self.incr_target();
            return;
        }
        if !self.logged_on && msg_type != b"A" && self.state != SessionState::LogonSent {
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if msg.begin_string() != self.begin_bytes() {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else if msg_type == b"5" {
                self.on_logout(msg);
            } else {
                if parse_seq(msg.get(34)) == Some(self.expected()) {
                    self.incr_target();
                }
                self.initiate_logout(Some(b"Incorrect BeginString"));
            }
            return;
        }
        if msg_type == b"A" && self.cfg.id.is_fixt() && !msg.contains(1137) {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(
                    msg,
                    Rej::new(SessionRejectReason::RequiredTagMissing, Some(1137)),
                );
            }
            return;
        }
        if let Some(rej) = forced.or_else(|| self.validate(msg)) {
            if !self.logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(msg, rej);
            }
            return;
        }
        match msg_type {
            b"A" => self.on_logon(msg, app),
            b"5" => self.on_logout(msg),
            b"0" => {
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.incr_target();
                }
            }
            b"1" => {
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.send_heartbeat(msg.get(112));
                    self.incr_target();
                }
            }
            b"2" => self.on_resend_request(msg, app),
            b"3" => {
                // QuickFIX does not check a Reject for a gap (verify(false, true)); a gap
                // is a gap, so we queue a too-high Reject like any other message.
                if self.verify(msg, true, true) {
                    let _ = app.from_admin(msg, &self.cfg.id);
                    self.incr_target();
                }
            }
            b"4" => self.on_sequence_reset(msg, app),
            _ => {
                if self.verify(msg, true, true) {
                    let result = app.from_app(msg, &self.cfg.id, &mut Outbox::new(&mut self.tx));
                    match result {
                        Ok(()) => self.incr_target(),
                        Err(r) => self.app_reject(msg, r),
                    }
                }
            }
        }
    }

    fn on_logon(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let seq = parse_seq(msg.get(34)).unwrap_or(0);
        let reset_flag = msg.get(141) == Some(b"Y");
        if self.logged_on && !reset_flag {
            self.disconnect(DisconnectReason::InvalidState);
            return;
        }
        if self.cfg.refresh_on_logon && self.tx.store.refresh().is_err() {
            self.store_failed();
        }
        if let Some(s) = self.cfg.schedule {
            if !s.contains(self.now()) {
                self.disconnect(DisconnectReason::OutsideSchedule);
                return;
            }
        }
        if reset_flag && !self.sent_reset {
            self.reset_store();
        }
        if self.cfg.role == Role::Acceptor && self.cfg.reset_on_logon && !reset_flag {
            self.reset_store();
        }
        self.tx.w.last_processed = seq;
        if !self.verify(msg, false, true) {
            return;
        }
        if let Some(text) = logon_terms_problem(msg) {
            self.send_logout(Some(text));
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if let Err(r) = app.from_admin(msg, &self.cfg.id) {
            self.send_logout(Some(r.text.as_bytes()));
            self.disconnect(DisconnectReason::LogonRejected);
            return;
        }
        let next_expected = if self.cfg.enable_next_expected_msg_seq_num {
            parse_seq(msg.get(789))
        } else {
            None
        };
        if let Some(n) = next_expected {
            let next_sender = self.tx.store.next_sender_seq();
            if n > next_sender {
                let mut text = StackText::new();
                {
                    use std::fmt::Write;
                    let _ = write!(
                        text,
                        "Tag 789 (NextExpectedMsgSeqNum) is higher than expected. Expected {next_sender}, Received {n}"
                    );
                }
                self.send_logout(Some(text.as_bytes()));
                self.disconnect(DisconnectReason::NextExpectedTooHigh);
                return;
            }
        }
        let expected = self.expected();
        let next_sender_before = self.tx.store.next_sender_seq();
        if self.cfg.role == Role::Acceptor || (reset_flag && !self.sent_reset) {
            self.hb_secs = parse_seq(msg.get(108))
                .map(|v| v.min(u32::MAX as u64) as u32)
                .unwrap_or(self.cfg.heartbeat_interval_secs);
            let hb = self.hb_secs as u64;
            let our_789 =
                (self.cfg.enable_next_expected_msg_seq_num).then_some(if seq == expected {
                    expected + 1
                } else {
                    expected
                });
            let appl = self
                .cfg
                .default_appl_ver_id
                .as_deref()
                .filter(|_| self.cfg.id.is_fixt())
                .map(appl_ver_id_code);
            self.tx.admin(b"A", &[], &mut |m| {
                m.uint(98, 0).uint(108, hb);
                if reset_flag {
                    m.char(141, b'Y');
                }
                if let Some(n) = our_789 {
                    m.uint(789, n);
                }
                if let Some(a) = appl {
                    m.str(1137, a.as_bytes());
                }
            });
        }
        self.sent_reset = false;
        self.logged_on = true;
        self.set_state(SessionState::LoggedOn);
        self.events.push_back(SessionEvent::LoggedOn);
        if let Some(n) = next_expected {
            let next_sender = self.tx.store.next_sender_seq();
            if n < next_sender_before {
                self.resend(n, next_sender - 1);
            }
        }
        if seq > expected && !reset_flag {
            self.too_high(msg, seq);
        } else {
            self.incr_target();
        }
        app.on_logon(&self.cfg.id);
    }

    fn on_logout(&mut self, msg: &MessageView<'_>) {
        if !self.verify(msg, false, false) {
            return;
        }
        if self.state != SessionState::LogoutSent {
            self.send_logout(None);
        }
        self.incr_target();
        if self.cfg.reset_on_logout {
            self.reset_store();
        }
        self.disconnect(DisconnectReason::Logout);
    }

    fn on_resend_request(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if !self.verify(msg, false, false) {
            return;
        }
        let _ = app.from_admin(msg, &self.cfg.id);
        let begin = parse_seq(msg.get(7)).unwrap_or(1).max(1);
        let end = parse_seq(msg.get(16)).unwrap_or(0);
        let next = self.tx.store.next_sender_seq();
        // 0 is "infinity" from FIX.4.2 on and names no message before it, so it means
        // the same there; 999999 is FIX.4.0/4.1's (and FIX.4.2's) spelling.
        let infinite = end == 0 || (end == 999_999 && self.begin_bytes() <= &b"FIX.4.2"[..]);
        if !infinite && end < begin {
            self.reject(
                msg,
                Rej::new(SessionRejectReason::ValueIsIncorrect, Some(16)),
            );
            return;
        }
        let end = if infinite || end >= next {
            next - 1
        } else {
            end
        };
        self.resend(begin, end);
        if parse_seq(msg.get(34)) == Some(self.expected()) {
            self.incr_target();
        }
    }

    /// Re-sends `begin..=end` from the store: application messages with PossDupFlag=Y and
    /// OrigSendingTime, admin messages and gaps as SequenceReset-GapFill.
    fn resend(&mut self, begin: u64, end: u64) {
        if begin > end {
            return;
        }
        let Core {
            tx, resend_decoder, ..
        } = self;
        let Tx {
            store, w, persist, ..
        } = tx;
        let mut gap_start: Option<u64> = None;
        let mut cursor = begin;
        let gap_fill = |w: &mut Writer, seq: u64, new_seq: u64| {
            let now = w.now;
            w.write(
                seq,
                b"4",
                &[(43, HVal::Char(b'Y')), (122, HVal::Time(now))],
                &mut |m| {
                    m.uint(36, new_seq).char(123, b'Y');
                },
            );
        };
        let mut result: Result<(), StoreError> = Ok(());
        if *persist {
            result = store.for_each_in_range(begin, end, &mut |seq, raw| {
                if seq > cursor && gap_start.is_none() {
                    gap_start = Some(cursor);
                }
                cursor = seq + 1;
                let Ok(view) = resend_decoder.decode(raw) else {
                    gap_start.get_or_insert(seq);
                    return;
                };
                if is_admin(view.msg_type()) {
                    gap_start.get_or_insert(seq);
                    return;
                }
                if let Some(g) = gap_start.take() {
                    gap_fill(w, g, seq);
                }
                // Header of the stored message, re-written with PossDupFlag and
                // OrigSendingTime; the body as stored.
                let mut extra: [(u32, HVal<'_>); MAX_HEADER] = [(0, HVal::Uint(0)); MAX_HEADER];
                let mut n = 0;
                extra[n] = (43, HVal::Char(b'Y'));
                n += 1;
                if let Some(orig) = view.get(52) {
                    extra[n] = (122, HVal::Bytes(orig));
                    n += 1;
                }
                let mut body_from = view.len();
                for i in 3..view.len() {
                    let f = view.field(i);
                    if !is_standard_header_tag(f.tag) {
                        body_from = i;
                        break;
                    }
                    if matches!(f.tag, 34 | 49 | 52 | 56 | 43 | 122 | 369) || n >= MAX_HEADER - 8 {
                        continue;
                    }
                    extra[n] = (f.tag, HVal::Bytes(f.value));
                    n += 1;
                }
                let msg_type = view.msg_type();
                w.write(seq, msg_type, &extra[..n], &mut |m| {
                    for i in body_from..view.len() {
                        let f = view.field(i);
                        if f.tag == 10 {
                            break;
                        }
                        m.str(f.tag, f.value);
                    }
                });
            });
        }
        if cursor <= end && gap_start.is_none() {
            gap_start = Some(cursor);
        }
        if let Some(g) = gap_start {
            gap_fill(w, g, end + 1);
        }
        if result.is_err() {
            self.store_failed();
        }
        self.events
            .push_back(SessionEvent::ResendAnswered { begin, end });
    }

    fn on_sequence_reset(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let gap_fill = msg.get(123) == Some(b"Y");
        if !self.verify(msg, gap_fill, gap_fill) {
            return;
        }
        let _ = app.from_admin(msg, &self.cfg.id);
        let Some(new_seq) = parse_seq(msg.get(36)) else {
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

    /// Whether the store predates the current schedule period.
    fn new_period(&self, now: Nanos) -> bool {
        self.cfg
            .schedule
            .is_some_and(|s| self.tx.store.creation_time() < s.period_start(now))
    }

    fn on_garbled(&mut self) {
        self.events.push_back(SessionEvent::Garbled);
        if !self.logged_on && self.state == SessionState::AwaitingLogon {
            self.disconnect(DisconnectReason::InvalidLogon);
        }
    }

    fn on_timer(&mut self) {
        let now = self.now();
        match self.state {
            SessionState::Disconnected | SessionState::Closing => {}
            SessionState::AwaitingLogon | SessionState::LogonSent => {
                if now - self.since >= self.cfg.logon_timeout_secs as Nanos * SECOND {
                    self.disconnect(DisconnectReason::LogonTimeout);
                }
            }
            SessionState::LogoutSent => {
                if now - self.since >= self.cfg.logout_timeout_secs as Nanos * SECOND {
                    self.disconnect(DisconnectReason::LogoutTimeout);
                }
            }
            SessionState::LoggedOn => {
                if let Some(s) = self.cfg.schedule {
                    // The window closed, or a new period began while connected (a
                    // window open around the clock still starts afresh each period).
                    if !s.contains(now) || self.new_period(now) {
                        self.initiate_logout(None);
                        return;
                    }
                }
                if self.hb_secs == 0 {
                    return;
                }
                let hb = self.hb_secs as Nanos * SECOND;
                let idle_in = now - self.last_received;
                if idle_in >= hb * 12 / 5 {
                    self.disconnect(DisconnectReason::HeartbeatTimeout);
                } else if idle_in >= hb * 6 * (self.test_requests as Nanos + 1) / 5 {
                    self.tx.admin(b"1", &[], &mut |m| {
                        m.str(112, b"TEST");
                    });
                    self.test_requests += 1;
                } else if now - self.tx.w.last_sent >= hb && self.test_requests == 0 {
                    self.send_heartbeat(None);
                }
            }
        }
    }

    fn next_deadline(&self) -> Option<Nanos> {
        match self.state {
            SessionState::Disconnected | SessionState::Closing => None,
            SessionState::AwaitingLogon | SessionState::LogonSent => {
                Some(self.since + self.cfg.logon_timeout_secs as Nanos * SECOND)
            }
            SessionState::LogoutSent => {
                Some(self.since + self.cfg.logout_timeout_secs as Nanos * SECOND)
            }
            SessionState::LoggedOn => {
                let mut d = Nanos::MAX;
                if let Some(s) = self.cfg.schedule {
                    d = d.min(s.next_boundary(self.now()));
                }
                if self.hb_secs > 0 {
                    let hb = self.hb_secs as Nanos * SECOND;
                    d = d.min(self.last_received + hb * 12 / 5);
                    d = d.min(self.last_received + hb * 6 * (self.test_requests as Nanos + 1) / 5);
                    if self.test_requests == 0 {
                        d = d.min(self.tx.w.last_sent + hb);
                    }
                }
                (d != Nanos::MAX).then_some(d)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Framing helpers

/// QuickFIX's reading of a message whose CheckSum field is malformed (e.g. `10=0`):
/// the message ends at the first `<SOH>10=…<SOH>` at or after where BodyLength points.
fn loose_frame(buf: &[u8]) -> Option<usize> {
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

fn next_frame(framer: &Framer, buf: &[u8]) -> Frame {
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
fn strip_invalid_tag(msg: &[u8], offset: usize) -> Option<(i64, Vec<u8>)> {
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
    Some((tag, fixed))
}

// ---------------------------------------------------------------------------------------
// The public session

/// The FIX session protocol as a sans-IO state machine: bytes and time in; bytes out,
/// application callbacks, events and the next deadline.
///
/// ```
/// use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionEvent, SessionId};
/// use peregrine_store::MemoryStore;
///
/// let now = 1_700_000_000_000_000_000i64;
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
/// let mut session = Session::new(cfg, MemoryStore::new(now), now);
/// let mut app = EchoApp::new(None);
/// session.on_connected(now);
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
/// session.on_bytes(logon, now, &mut app);
/// assert!(session.is_logged_on());
/// assert!(session.outbound().starts_with(b"8=FIX.4.4\x019=61\x0135=A\x0134=1\x0149=ISLD\x01"));
/// assert_eq!(session.poll_event(), Some(SessionEvent::LoggedOn));
/// ```
pub struct Session<S: MessageStore> {
    rx: Vec<u8>,
    framer: Framer,
    decoder: Decoder,
    core: Core<S>,
}

impl<S: MessageStore> std::fmt::Debug for Session<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.core.cfg.id)
            .field("state", &self.core.state)
            .field("next_sender", &self.core.tx.store.next_sender_seq())
            .field("next_target", &self.core.tx.store.next_target_seq())
            .finish()
    }
}

impl<S: MessageStore> Session<S> {
    /// A session over `store` (which holds the sequence numbers and sent messages).
    pub fn new(config: SessionConfig, store: S, now: Nanos) -> Self {
        let decoder_config = DecoderConfig {
            reject_empty_values: false,
            max_message_size: config.max_message_size,
            ..DecoderConfig::default()
        };
        let id = &config.id;
        let writer = Writer {
            enc: EncodeBuffer::with_capacity(4096),
            out: Vec::with_capacity(64 * 1024),
            begin: id.begin_string.as_bytes().to_vec(),
            sender: id.sender_comp_id.as_bytes().to_vec(),
            target: id.target_comp_id.as_bytes().to_vec(),
            precision: config.timestamp_precision,
            now,
            last_sent: now,
            last_processed: 0,
            send_369: config.enable_last_msg_seq_num_processed,
        };
        let hb = config.heartbeat_interval_secs;
        let persist = config.persist_messages;
        Session {
            rx: Vec::with_capacity(64 * 1024),
            framer: Framer::new(config.max_message_size),
            decoder: Decoder::new(decoder_config.clone()),
            core: Core {
                tx: Tx {
                    store,
                    w: writer,
                    persist,
                    store_failed: false,
                },
                cfg: config,
                events: VecDeque::with_capacity(32),
                state: SessionState::Disconnected,
                since: now,
                logged_on: false,
                sent_reset: false,
                hb_secs: hb,
                last_received: now,
                test_requests: 0,
                resend: None,
                shapes: Box::new(ShapeCache::new()),
                queue: BTreeMap::new(),
                spare: Vec::new(),
                resend_decoder: Decoder::new(decoder_config),
            },
        }
    }

    /// Calls [`Application::on_create`] (separate from `new` so that the application is
    /// not needed to build a session).
    pub fn create(&mut self, app: &mut dyn Application) {
        app.on_create(&self.core.cfg.id);
    }

    /// The session's identity.
    pub fn id(&self) -> &SessionId {
        &self.core.cfg.id
    }

    /// Its configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.core.cfg
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.core.tx.store
    }

    /// The store, mutably (e.g. to reserve capacity).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.core.tx.store
    }

    fn tick(&mut self, now: Nanos) {
        if now > self.core.tx.w.now {
            self.core.tx.w.now = now;
        }
    }

    /// A transport connection is up. An initiator sends its Logon; an acceptor waits
    /// for the peer's (LogonTimeout).
    pub fn on_connected(&mut self, now: Nanos) {
        self.tick(now);
        self.rx.clear();
        let core = &mut self.core;
        core.logged_on = false;
        core.test_requests = 0;
        core.last_received = now;
        core.resend = None;
        core.queue.clear();
        if let Some(s) = core.cfg.schedule {
            if core.tx.store.creation_time() < s.period_start(now) {
                core.reset_store();
            }
            if !s.contains(now) {
                core.set_state(SessionState::AwaitingLogon);
                core.disconnect(DisconnectReason::OutsideSchedule);
                return;
            }
        }
        match core.cfg.role {
            Role::Acceptor => core.set_state(SessionState::AwaitingLogon),
            Role::Initiator => {
                if core.cfg.reset_on_logon {
                    core.reset_store();
                    core.sent_reset = true;
                }
                core.hb_secs = core.cfg.heartbeat_interval_secs;
                let hb = core.hb_secs as u64;
                let reset = core.sent_reset;
                let next_expected = core
                    .cfg
                    .enable_next_expected_msg_seq_num
                    .then(|| core.tx.store.next_target_seq());
                let appl = core
                    .cfg
                    .default_appl_ver_id
                    .clone()
                    .filter(|_| core.cfg.id.is_fixt());
                let (user, password) = (core.cfg.username.clone(), core.cfg.password.clone());
                core.tx.admin(b"A", &[], &mut |m| {
                    m.uint(98, 0).uint(108, hb);
                    if reset {
                        m.char(141, b'Y');
                    }
                    if let Some(u) = &user {
                        m.str(553, u.as_bytes());
                    }
                    if let Some(p) = &password {
                        m.str(554, p.as_bytes());
                    }
                    if let Some(n) = next_expected {
                        m.uint(789, n);
                    }
                    if let Some(a) = &appl {
                        m.str(1137, appl_ver_id_code(a).as_bytes());
                    }
                });
                core.set_state(SessionState::LogonSent);
            }
        }
    }

    /// Bytes received from the peer: frames, decodes, validates and handles every
    /// complete message (calling `app`), keeps an incomplete tail for next time.
    /// Garbled bytes are dropped without consuming a sequence number.
    pub fn on_bytes(&mut self, data: &[u8], now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        if !self.core.connected() {
            return;
        }
        if self.rx.is_empty() {
            // Fast path: whole messages are handled in place; only a tail is copied.
            let used = self.process_buf(data, app);
            if self.core.connected() {
                self.rx.extend_from_slice(&data[used..]);
            }
        } else {
            self.rx.extend_from_slice(data);
            let mut rx = std::mem::take(&mut self.rx);
            let used = self.process_buf(&rx, app);
            rx.drain(..used);
            if !self.core.connected() {
                rx.clear();
            }
            self.rx = rx;
        }
    }

    /// Frames, decodes and handles the whole messages at the start of `buf`; returns the
    /// number of bytes used (messages and garbled runs).
    fn process_buf(&mut self, buf: &[u8], app: &mut dyn Application) -> usize {
        let mut pos = 0;
        while self.core.connected() {
            match next_frame(&self.framer, &buf[pos..]) {
                Frame::Incomplete => break,
                Frame::Garbled { skip, .. } => {
                    pos += skip;
                    self.core.on_garbled();
                }
                Frame::Message { len } => {
                    let raw = &buf[pos..pos + len];
                    match self.decoder.decode(raw) {
                        Ok(view) => self.core.process(&view, app, false, None),
                        Err(DecodeError::InvalidTag { offset }) => {
                            match strip_invalid_tag(raw, offset) {
                                Some((tag, fixed)) => {
                                    let c = self.decoder.config_mut();
                                    let saved = (c.validate_checksum, c.validate_body_length);
                                    c.validate_checksum = false;
                                    c.validate_body_length = false;
                                    let forced =
                                        Rej::new(SessionRejectReason::InvalidTagNumber, Some(tag));
                                    match self.decoder.decode(&fixed) {
                                        Ok(view) => {
                                            self.core.process(&view, app, false, Some(forced))
                                        }
                                        Err(_) => self.core.on_garbled(),
                                    }
                                    let c = self.decoder.config_mut();
                                    (c.validate_checksum, c.validate_body_length) = saved;
                                }
                                None => self.core.on_garbled(),
                            }
                        }
                        Err(_) => self.core.on_garbled(),
                    }
                    pos += len;
                    self.drain_queue(app);
                }
            }
        }
        pos
    }

    /// Processes queued (too-high) messages whose turn has come.
    fn drain_queue(&mut self, app: &mut dyn Application) {
        while let Some(raw) = self.core.take_queued() {
            if let Ok(view) = self.decoder.decode(&raw) {
                self.core.process(&view, app, true, None);
            }
            self.core.spare.push(raw);
        }
    }

    /// Timers: heartbeats, test requests, logon/logout timeouts, schedule.
    pub fn on_timer(&mut self, now: Nanos, app: &mut dyn Application) {
        let _ = app;
        self.tick(now);
        self.core.on_timer();
    }

    /// When [`Session::on_timer`] must be called next (`None`: no timer armed).
    pub fn next_deadline(&self) -> Option<Nanos> {
        self.core.next_deadline()
    }

    /// The transport connection is gone (after a [`SessionEvent::Disconnect`], or the
    /// peer closed it).
    pub fn on_disconnected(&mut self, now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        let core = &mut self.core;
        if core.state == SessionState::Disconnected {
            return;
        }
        if core.logged_on {
            core.logged_on = false;
            app.on_logout(&core.cfg.id);
            core.events.push_back(SessionEvent::LoggedOut);
        }
        if core.cfg.reset_on_disconnect || core.new_period(core.now()) {
            core.reset_store();
        }
        core.queue.clear();
        core.resend = None;
        core.sent_reset = false;
        core.set_state(SessionState::Disconnected);
        self.rx.clear();
    }

    /// Bytes waiting to be written; the engine writes a prefix and calls
    /// [`Session::consume_outbound`].
    pub fn outbound(&self) -> &[u8] {
        &self.core.tx.w.out
    }

    /// Drops the first `n` bytes of [`Session::outbound`] (they were written).
    pub fn consume_outbound(&mut self, n: usize) {
        let out = &mut self.core.tx.w.out;
        let n = n.min(out.len());
        out.drain(..n);
    }

    /// The next event since the last call.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.core.events.pop_front()
    }

    /// Sends an application message from outside a callback (only when logged on).
    pub fn send(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.tick(now);
        if !self.core.logged_on || self.core.state != SessionState::LoggedOn {
            return Err(SendError::NotLoggedOn);
        }
        Outbox::new(&mut self.core.tx).send(msg_type, body)
    }

    /// Starts a logout (graceful shutdown): sends Logout and waits LogoutTimeout for the
    /// peer's. When not logged on, asks for the connection to be closed.
    pub fn logout(&mut self, now: Nanos, text: Option<&str>) {
        self.tick(now);
        if self.core.logged_on && self.core.state == SessionState::LoggedOn {
            self.core.initiate_logout(text.map(str::as_bytes));
        } else if self.core.connected() {
            self.core.disconnect(DisconnectReason::Requested);
        }
    }

    /// Where the session is.
    pub fn state(&self) -> SessionState {
        self.core.state
    }

    /// Both Logons exchanged and no Logout yet completed.
    pub fn is_logged_on(&self) -> bool {
        self.core.logged_on
    }

    /// The heartbeat interval in force (the peer's for an acceptor).
    pub fn heartbeat_interval_secs(&self) -> u32 {
        self.core.hb_secs
    }

    /// MsgSeqNum of our next outgoing message.
    pub fn next_sender_seq(&self) -> u64 {
        self.core.tx.store.next_sender_seq()
    }

    /// MsgSeqNum expected on the next incoming message.
    pub fn next_target_seq(&self) -> u64 {
        self.core.tx.store.next_target_seq()
    }

    /// Operator override of the next outgoing MsgSeqNum.
    pub fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_sender_seq(seq)
    }

    /// Operator override of the next expected incoming MsgSeqNum.
    pub fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_target_seq(seq)
    }
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
    let len = match next_frame(&framer, buf) {
        Frame::Incomplete => return None,
        Frame::Garbled { .. } => return Some(Err(PeekError::Garbled)),
        Frame::Message { len } => len,
    };
    let mut decoder = Decoder::new(DecoderConfig {
        reject_empty_values: false,
        ..DecoderConfig::default()
    });
    let view = match decoder.decode(&buf[..len]) {
        Ok(v) => v,
        Err(e) => return Some(Err(PeekError::Invalid(e))),
    };
    let (Some(sender), Some(target)) = (view.get(49), view.get(56)) else {
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

//! The session state machine.

use std::collections::VecDeque;
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
    appl_ver_id_code, is_pre_fix42, Nanos, Role, SessionConfig, SessionId, MAX_HEARTBEAT_SECS,
    MAX_SEQ_NUM, SECOND,
};
use crate::gap_queue::GapQueue;

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
    /// More than `max_logon_size` bytes arrived before the session was logged on.
    LogonTooLarge,
    /// The messages held while a gap is filled reached `max_inbound_queue_bytes`
    /// (a Logout saying so was sent).
    InboundQueueFull,
    /// The outbound buffer reached `max_outbound_bytes` (the peer does not read);
    /// what was not written is in the store, for the resend the peer will ask for.
    OutboundQueueFull,
    /// The store could not commit: nothing that depended on it was sent.
    StoreFailure,
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
    /// The store found acknowledged data damaged or missing when it opened
    /// (see [`peregrine_store::Recovery`]): resend requests for the lost
    /// messages are answered with gap fills.
    StoreDataLost {
        /// How many messages are known to be lost.
        messages: u64,
    },
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
    /// Encoded messages not yet written to the transport.
    pub(crate) out: Vec<u8>,
    /// How much of `out` may be written: the bytes before the store's last
    /// commit (a message leaves only once what it depends on is committed).
    pub(crate) committed: usize,
    begin: Vec<u8>,
    sender: Vec<u8>,
    target: Vec<u8>,
    precision: TimePrecision,
    pub(crate) now: Nanos,
    pub(crate) last_sent: Nanos,
    pub(crate) last_processed: u64,
    send_369: bool,
    /// `max_outbound_bytes`: past it the buffer grows by exact amounts.
    out_ceiling: usize,
}

/// What the outbound buffer's capacity returns to when a connection ends.
const OUT_CAPACITY: usize = 64 * 1024;

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
        // Past the outbound ceiling, grow by exactly this message (not by doubling):
        // the caller takes it back out, and the buffer stays near its bound.
        if start + bytes.len() > self.out.capacity() && start + bytes.len() > self.out_ceiling {
            self.out.reserve_exact(bytes.len());
        }
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
    /// `max_outbound_bytes`.
    max_out: usize,
    /// A message was not queued because the outbound buffer was full.
    overflowed: bool,
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
        if self.w.out.len() > self.max_out {
            // Stored (a resend will deliver it), but not queued: the peer is not
            // reading and the session asks to be disconnected.
            self.w.out.truncate(r.start);
            self.overflowed = true;
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
/// encryption (we support EncryptMethod(98)=0 only) or a HeartBtInt(108) outside
/// `0..=MAX_HEARTBEAT_SECS` (QuickFIX's range: an `int`, not negative).
fn logon_terms_problem(msg: &MessageView<'_>) -> Option<&'static [u8]> {
    if msg.get(98).is_some_and(|v| v != b"0") {
        return Some(b"Unsupported EncryptMethod(98): only 0 (none) is supported");
    }
    if msg.get(108).is_some_and(|v| heartbeat_secs(v).is_none()) {
        return Some(b"HeartBtInt(108) must be an integer from 0 to 2147483647");
    }
    None
}

/// HeartBtInt(108) in seconds, if it is in `0..=MAX_HEARTBEAT_SECS`.
fn heartbeat_secs(v: &[u8]) -> Option<u32> {
    value::parse_u64(v)
        .ok()
        .filter(|&n| n <= u64::from(MAX_HEARTBEAT_SECS))
        .map(|n| n as u32)
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
fn parse_seq(v: Option<&[u8]>) -> Option<u64> {
    v.and_then(|v| value::parse_u64(v).ok())
        .filter(|&n| (1..=MAX_SEQ_NUM).contains(&n))
}

/// Whether `v` is written as an integer (an optional `-`, then digits), whatever its size.
fn is_integer(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// Why a sequence-number field cannot be used, as the reject the FIX spec asks for:
/// not an integer at all (IncorrectDataFormatForValue), or an integer outside
/// `1..=MAX_SEQ_NUM` (ValueIsIncorrect), with the tag. `None` when it is usable.
fn seq_field_problem(msg: &MessageView<'_>, tag: u32) -> Option<Rej> {
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

/// A SequenceReset-GapFill numbered `seq` that moves the peer on to `new_seq`.
fn gap_fill(w: &mut Writer, seq: u64, new_seq: u64) {
    let now = w.now;
    w.write(
        seq,
        b"4",
        &[(43, HVal::Char(b'Y')), (122, HVal::Time(now))],
        &mut |m| {
            m.uint(36, new_seq).char(123, b'Y');
        },
    );
}

/// A stored application message re-sent: its header re-written with
/// PossDupFlag(43)=Y and OrigSendingTime(122), its body as stored.
fn resend_one(w: &mut Writer, seq: u64, view: &MessageView<'_>) {
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
}

// ---------------------------------------------------------------------------------------
// The core

/// Our outstanding ResendRequest.
#[derive(Clone, Copy, Debug)]
struct ResendRange {
    begin: u64,
    end: u64,
    current_end: u64,
    /// When the gap last made progress (the request, or a message filling it):
    /// `ResendRequestTimeout` after this, what is missing is asked for again.
    last_progress: Nanos,
}

/// A resend we are answering, produced as the transport drains (see
/// [`Core::pump_resend`]) so that a request for millions of messages never
/// holds more than [`RESEND_CHUNK`] bytes of them at once.
#[derive(Clone, Copy, Debug)]
struct ResendCursor {
    /// BeginSeqNo as asked.
    begin: u64,
    /// The next sequence number to resend.
    next: u64,
    /// The last one.
    end: u64,
    /// A run of messages to cover with one SequenceReset-GapFill, from here.
    gap_start: Option<u64>,
}

/// A resend is produced while the outbound buffer holds less than this (and
/// one step more: the buffer never holds more than this plus [`RESEND_STEP`]
/// messages of it).
const RESEND_CHUNK: usize = 256 * 1024;
/// Sequence numbers read from the store per step of a resend.
const RESEND_STEP: u64 = 64;

/// The session's timers, in the order they fire when several are due: one
/// table that both [`Core::on_timer`] and [`Core::next_deadline`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    /// No Logon (ours answered, or theirs received) within LogonTimeout.
    Logon,
    /// Our Logout unanswered within LogoutTimeout.
    Logout,
    /// The session window closed, or a new period began.
    Schedule,
    /// Nothing received for 2.4 heartbeat intervals: the peer is gone.
    HeartbeatTimeout,
    /// Nothing received for 1.2 heartbeat intervals: ask with a TestRequest.
    TestRequest,
    /// Nothing sent for a heartbeat interval.
    Heartbeat,
    /// Our ResendRequest made no progress within ResendRequestTimeout.
    ResendStalled,
}

const TIMERS: [Timer; 7] = [
    Timer::Logon,
    Timer::Logout,
    Timer::Schedule,
    Timer::HeartbeatTimeout,
    Timer::TestRequest,
    Timer::Heartbeat,
    Timer::ResendStalled,
];

/// `secs` seconds in [`Nanos`], saturating (a HeartBtInt of 2^31 - 1 s is
/// 2.1e18 ns, close enough to `i64::MAX` that products and sums must not wrap).
fn secs(secs: u32) -> Nanos {
    Nanos::from(secs).saturating_mul(SECOND)
}

/// `interval × num / den`, saturating.
fn scaled(interval: Nanos, num: i64, den: i64) -> Nanos {
    (interval / den)
        .saturating_mul(num)
        .saturating_add((interval % den) * num / den)
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
    /// The resend we are answering, if it is not complete.
    resend_out: Option<ResendCursor>,
    /// Shapes of messages that passed dictionary validation (counterparties repeat
    /// theirs: those messages then only have their values checked).
    shapes: Box<ShapeCache>,
    /// Messages that arrived ahead of a gap.
    queue: GapQueue,
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
        self.gap_progress();
    }

    fn set_target(&mut self, seq: u64) {
        if self.tx.store.set_next_target_seq(seq).is_err() {
            self.store_failed();
        }
        self.gap_progress();
    }

    /// The expected sequence number moved: an outstanding ResendRequest is
    /// making progress.
    fn gap_progress(&mut self) {
        let now = self.now();
        if let Some(r) = &mut self.resend {
            r.last_progress = now;
        }
    }

    fn reset_store(&mut self) {
        let now = self.now();
        if self.tx.store.reset(now).is_err() {
            self.store_failed();
        }
        self.queue.clear();
        self.resend = None;
        self.resend_out = None;
    }

    /// Forgets what was queued for a connection that is gone: it is in the store,
    /// and the peer asks for it with a ResendRequest (the FIX way), never as stale
    /// bytes at the start of the next connection.
    fn clear_outbound(&mut self) {
        let w = &mut self.tx.w;
        w.out.clear();
        w.out.shrink_to(OUT_CAPACITY);
        w.committed = 0;
        self.resend_out = None;
        self.tx.overflowed = false;
    }

    /// A message was stored but not queued (the outbound buffer is full): the
    /// peer is not reading.
    fn check_overflow(&mut self) {
        if self.tx.overflowed {
            self.tx.overflowed = false;
            self.disconnect(DisconnectReason::OutboundQueueFull);
        }
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
            last_progress: self.now(),
        });
        self.events.push_back(SessionEvent::ResendRequested {
            begin,
            end: wire_end,
        });
    }

    /// Session-level Reject (35=3) of `msg`, with QuickFIX's per-version fields.
    fn reject(&mut self, msg: &MessageView<'_>, rej: Rej) {
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
    fn app_reject(&mut self, msg: &MessageView<'_>, r: AppReject) {
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
        if self.queue.insert(seq, msg.as_bytes()).is_err() {
            let limit = self.cfg.max_inbound_queue_bytes;
            let expected = self.expected();
            let mut text = StackText::new();
            {
                use std::fmt::Write;
                let _ = write!(
                    text,
                    "Inbound queue limit of {limit} bytes reached waiting for a resend of {expected} to {}",
                    seq - 1
                );
            }
            self.send_logout(Some(text.as_bytes()));
            self.disconnect(DisconnectReason::InboundQueueFull);
            return;
        }
        if let Some(r) = self.resend {
            if seq >= r.begin && !self.cfg.send_redundant_resend_requests {
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
        if !self.connected() {
            return None;
        }
        let expected = self.expected();
        self.queue.take(expected)
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
            self.hb_secs = msg
                .get(108)
                .and_then(heartbeat_secs)
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
        // BeginSeqNo must be a sequence number; EndSeqNo one, or 0 (infinity).
        let bad = seq_field_problem(msg, 7)
            .or_else(|| (msg.get(16) != Some(b"0")).then(|| seq_field_problem(msg, 16))?);
        if let Some(rej) = bad {
            self.reject(msg, rej);
            return;
        }
        let _ = app.from_admin(msg, &self.cfg.id);
        let begin = parse_seq(msg.get(7)).unwrap_or(1);
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

    /// Answers a resend of `begin..=end` from the store: application messages with
    /// PossDupFlag=Y and OrigSendingTime, admin messages and gaps as
    /// SequenceReset-GapFill. A later request replaces one still being answered.
    fn resend(&mut self, begin: u64, end: u64) {
        if begin > end {
            return;
        }
        self.resend_out = Some(ResendCursor {
            begin,
            next: begin,
            end,
            gap_start: None,
        });
        self.pump_resend();
    }

    /// Produces the resend being answered while the outbound buffer holds less than
    /// [`RESEND_CHUNK`] bytes; called again as the transport drains it
    /// ([`Session::consume_outbound`]). Resent messages change nothing in the store,
    /// so when nothing uncommitted precedes them they may leave at once.
    fn pump_resend(&mut self) {
        let Some(mut cur) = self.resend_out else {
            return;
        };
        let releasable = self.tx.w.committed == self.tx.w.out.len();
        let mut result: Result<(), StoreError> = Ok(());
        while cur.next <= cur.end && self.tx.w.out.len() < RESEND_CHUNK && result.is_ok() {
            let step_end = cur.end.min(cur.next.saturating_add(RESEND_STEP - 1));
            result = self.resend_step(&mut cur, step_end);
        }
        if result.is_err() {
            self.store_failed();
        }
        if cur.next > cur.end || result.is_err() {
            // Done: whatever is left of the range is one gap.
            let Core { tx, .. } = self;
            if let Some(g) = cur.gap_start.take() {
                gap_fill(&mut tx.w, g, cur.end.saturating_add(1));
            }
            self.resend_out = None;
            self.events.push_back(SessionEvent::ResendAnswered {
                begin: cur.begin,
                end: cur.end,
            });
        } else {
            self.resend_out = Some(cur);
        }
        if releasable {
            self.tx.w.committed = self.tx.w.out.len();
        }
    }

    /// Resends `cur.next..=step_end` (records read from the store, gaps noted).
    fn resend_step(&mut self, cur: &mut ResendCursor, step_end: u64) -> Result<(), StoreError> {
        let Core {
            tx, resend_decoder, ..
        } = self;
        let Tx {
            store, w, persist, ..
        } = tx;
        let mut cursor = cur.next;
        let mut gap_start = cur.gap_start;
        let mut result = Ok(());
        if *persist {
            result = store.for_each_in_range(cur.next, step_end, &mut |seq, raw| {
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
                resend_one(w, seq, &view);
            });
        }
        if cursor <= step_end && gap_start.is_none() {
            gap_start = Some(cursor);
        }
        cur.gap_start = gap_start;
        cur.next = step_end + 1;
        result
    }

    fn on_sequence_reset(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
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

    /// Whether the store predates the current schedule period.
    fn new_period(&self, now: Nanos) -> bool {
        self.cfg
            .schedule
            .is_some_and(|s| self.tx.store.creation_time() < s.period_start(now))
    }

    /// Bytes dropped by the framer or the decoder. Stray bytes before a message
    /// (`stray`: no `8=FIX` where one should start) are skipped as QuickFIX's parser
    /// skips them; a garbled message before the Logon ends the connection.
    fn on_garbled(&mut self, stray: bool) {
        self.events.push_back(SessionEvent::Garbled);
        if !stray && !self.logged_on && self.state == SessionState::AwaitingLogon {
            self.disconnect(DisconnectReason::InvalidLogon);
        }
    }

    /// When `timer` is due (`None`: not armed in this state).
    fn deadline(&self, timer: Timer) -> Option<Nanos> {
        let logged_on = self.state == SessionState::LoggedOn;
        let hb = secs(self.hb_secs);
        match timer {
            Timer::Logon => matches!(
                self.state,
                SessionState::AwaitingLogon | SessionState::LogonSent
            )
            .then(|| self.since.saturating_add(secs(self.cfg.logon_timeout_secs))),
            Timer::Logout => (self.state == SessionState::LogoutSent).then(|| {
                self.since
                    .saturating_add(secs(self.cfg.logout_timeout_secs))
            }),
            Timer::Schedule => {
                let s = self.cfg.schedule.filter(|_| logged_on)?;
                let now = self.now();
                // The window closed, or a new period began while connected (a window
                // open around the clock still starts afresh each period): due now.
                Some(if !s.contains(now) || self.new_period(now) {
                    now
                } else {
                    s.next_boundary(now)
                })
            }
            Timer::HeartbeatTimeout => (logged_on && self.hb_secs > 0)
                .then(|| self.last_received.saturating_add(scaled(hb, 12, 5))),
            Timer::TestRequest => (logged_on && self.hb_secs > 0).then(|| {
                let n = i64::from(self.test_requests) + 1;
                self.last_received.saturating_add(scaled(hb, 6 * n, 5))
            }),
            Timer::Heartbeat => (logged_on && self.hb_secs > 0 && self.test_requests == 0)
                .then(|| self.tx.w.last_sent.saturating_add(hb)),
            Timer::ResendStalled => {
                let r = self.resend.filter(|_| logged_on)?;
                let timeout = self.cfg.resend_request_timeout_secs;
                (timeout > 0).then(|| r.last_progress.saturating_add(secs(timeout)))
            }
        }
    }

    fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::Logon => self.disconnect(DisconnectReason::LogonTimeout),
            Timer::Logout => self.disconnect(DisconnectReason::LogoutTimeout),
            Timer::Schedule => self.initiate_logout(None),
            Timer::HeartbeatTimeout => self.disconnect(DisconnectReason::HeartbeatTimeout),
            Timer::TestRequest => {
                self.tx.admin(b"1", &[], &mut |m| {
                    m.str(112, b"TEST");
                });
                self.test_requests += 1;
            }
            Timer::Heartbeat => self.send_heartbeat(None),
            Timer::ResendStalled => {
                // The gap made no progress (a resend lost a message, or was never
                // answered): ask again for what is still missing.
                if let Some(r) = self.resend {
                    let expected = self.expected();
                    if expected <= r.end {
                        self.send_resend_request(expected, r.end);
                    } else {
                        self.resend = None;
                    }
                }
            }
        }
    }

    /// Fires every timer that is due, in [`TIMERS`] order (each re-read after the
    /// one before, which may have changed the state).
    fn on_timer(&mut self) {
        let now = self.now();
        for timer in TIMERS {
            if self.deadline(timer).is_some_and(|d| d <= now) {
                self.fire(timer);
            }
        }
    }

    fn next_deadline(&self) -> Option<Nanos> {
        TIMERS.iter().filter_map(|&t| self.deadline(t)).min()
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
/// session.commit()?;
/// assert!(session.outbound().starts_with(b"8=FIX.4.4\x019=61\x0135=A\x0134=1\x0149=ISLD\x01"));
/// assert_eq!(session.poll_event(), Some(SessionEvent::LoggedOn));
/// # Ok::<(), peregrine_store::StoreError>(())
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
            out: Vec::with_capacity(OUT_CAPACITY),
            committed: 0,
            begin: id.begin_string.as_bytes().to_vec(),
            sender: id.sender_comp_id.as_bytes().to_vec(),
            target: id.target_comp_id.as_bytes().to_vec(),
            precision: config.timestamp_precision,
            now,
            last_sent: now,
            last_processed: 0,
            send_369: config.enable_last_msg_seq_num_processed,
            out_ceiling: config.max_outbound_bytes,
        };
        let hb = config.heartbeat_interval_secs;
        let persist = config.persist_messages;
        let max_out = config.max_outbound_bytes;
        let queue = GapQueue::new(config.max_inbound_queue_bytes);
        let mut events = VecDeque::with_capacity(32);
        if let Some(lost) = store
            .recovery()
            .map(|r| r.lost_messages())
            .filter(|&n| n > 0)
        {
            events.push_back(SessionEvent::StoreDataLost { messages: lost });
        }
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
                    max_out,
                    overflowed: false,
                },
                cfg: config,
                events,
                state: SessionState::Disconnected,
                since: now,
                logged_on: false,
                sent_reset: false,
                hb_secs: hb,
                last_received: now,
                test_requests: 0,
                resend: None,
                resend_out: None,
                shapes: Box::new(ShapeCache::new()),
                queue,
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
        core.clear_outbound();
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
            if self.core.connected() && self.tail_allowed(data.len() - used) {
                self.rx.extend_from_slice(&data[used..]);
            }
        } else {
            self.rx.extend_from_slice(data);
            let mut rx = std::mem::take(&mut self.rx);
            let used = self.process_buf(&rx, app);
            rx.drain(..used);
            if !self.core.connected() || !self.tail_allowed(rx.len()) {
                rx.clear();
            }
            self.rx = rx;
        }
        self.core.check_overflow();
    }

    /// Whether an incomplete message of `len` bytes may wait for more: before the
    /// session is logged on, at most `max_logon_size` bytes are buffered (a peer that
    /// has not logged on gets no more room than a Logon needs).
    fn tail_allowed(&mut self, len: usize) -> bool {
        if self.core.logged_on || len <= self.core.cfg.max_logon_size {
            return true;
        }
        self.core.disconnect(DisconnectReason::LogonTooLarge);
        false
    }

    /// Frames, decodes and handles the whole messages at the start of `buf`; returns the
    /// number of bytes used (messages and garbled runs).
    fn process_buf(&mut self, buf: &[u8], app: &mut dyn Application) -> usize {
        let mut pos = 0;
        while self.core.connected() {
            match next_frame(&self.framer, &buf[pos..]) {
                Frame::Incomplete => break,
                Frame::Garbled { skip, reason } => {
                    pos += skip;
                    self.core.on_garbled(reason == GarbledReason::NoBeginString);
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
                                        Err(_) => self.core.on_garbled(false),
                                    }
                                    let c = self.decoder.config_mut();
                                    (c.validate_checksum, c.validate_body_length) = saved;
                                }
                                None => self.core.on_garbled(false),
                            }
                        }
                        Err(_) => self.core.on_garbled(false),
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
            self.core.queue.recycle(raw);
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
        if self.core.state == SessionState::Disconnected {
            return;
        }
        // What was handled on this connection is kept; what was queued for it is
        // not sent anywhere (the peer asks for it again after the next Logon).
        let _ = self.commit();
        let core = &mut self.core;
        core.clear_outbound();
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

    /// Makes what the session stored since the last commit durable as one unit
    /// (the store's [`commit`](MessageStore::commit): the incoming sequence numbers
    /// and the messages sent while handling them), then releases the messages queued
    /// so far to [`Session::outbound`]. Call it after feeding input and before
    /// writing; one commit may follow many calls (every message read in one go),
    /// which is how a durable store's cost per message falls under load.
    ///
    /// # Errors
    ///
    /// The store's error. Nothing queued since the last commit is released, a
    /// [`SessionEvent::StoreFailed`] is raised and the session asks to be
    /// disconnected ([`DisconnectReason::StoreFailure`]).
    pub fn commit(&mut self) -> Result<(), StoreError> {
        let core = &mut self.core;
        match core.tx.store.commit() {
            Ok(()) => {
                core.tx.w.committed = core.tx.w.out.len();
                Ok(())
            }
            Err(e) => {
                core.tx.w.out.truncate(core.tx.w.committed);
                core.resend_out = None;
                core.store_failed();
                core.disconnect(DisconnectReason::StoreFailure);
                Err(e)
            }
        }
    }

    /// Bytes that may be written: the messages queued up to the last
    /// [`Session::commit`]. The engine writes a prefix and calls
    /// [`Session::consume_outbound`].
    pub fn outbound(&self) -> &[u8] {
        &self.core.tx.w.out[..self.core.tx.w.committed]
    }

    /// Bytes queued but not committed yet (not in [`Session::outbound`]).
    pub fn uncommitted_len(&self) -> usize {
        self.core.tx.w.out.len() - self.core.tx.w.committed
    }

    /// Drops the first `n` bytes of [`Session::outbound`] (they were written), and
    /// goes on with a resend being answered as the buffer drains.
    pub fn consume_outbound(&mut self, n: usize) {
        let w = &mut self.core.tx.w;
        let n = n.min(w.committed);
        w.out.drain(..n);
        w.committed -= n;
        if self.core.resend_out.is_some() && self.core.tx.w.out.len() < RESEND_CHUNK / 2 {
            self.core.pump_resend();
        }
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
        let sent = Outbox::new(&mut self.core.tx).send(msg_type, body);
        self.core.check_overflow();
        sent
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

    /// Operator override of the next outgoing MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// The store's: a number outside `1..u64::MAX`, or a failed commit.
    pub fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_sender_seq(seq)?;
        self.commit()
    }

    /// Operator override of the next expected incoming MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// As [`Session::set_next_sender_seq`].
    pub fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_target_seq(seq)?;
        self.commit()
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

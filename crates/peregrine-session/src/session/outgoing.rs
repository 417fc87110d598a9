//! Outgoing messages: the header values, the encoder writing into the outbound
//! buffer ([`Writer`]), and the sending half that stores each message before it
//! is queued ([`Outgoing`]).

use std::ops::Range;
use std::sync::Arc;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{tag, EncodeBuffer, MessageEncoder};
use peregrine_store::MessageStore;

use crate::app::{Outbox, SendError};
use crate::config::{Nanos, SessionClock, SessionConfig};
use crate::metrics::SessionCounters;

/// A header field's value, before it is encoded.
#[derive(Clone, Copy, Debug)]
pub(super) enum HeaderValue<'a> {
    Bytes(&'a [u8]),
    Uint(u64),
    /// A UTCTimestamp, at the session's precision.
    Time(Nanos),
    /// This message's SendingTime(52) (the clock read as it is encoded).
    SendingTime,
    Char(u8),
}

/// Most header fields one message carries: the extra fields an application
/// may give ([`Outbox::MAX_HEADER_FIELDS`]) and room for those the session
/// writes (34, 49, 52, 56, 369, and 43 and 122 on a resend), so that a stored
/// message re-sent keeps all of its own.
pub(super) const MAX_HEADER: usize = Outbox::MAX_HEADER_FIELDS + 8;

/// The outbound buffer's first capacity: a message or two (it doubles from there),
/// so that a connection's first messages do not grow it one at a time.
const FIRST_CAPACITY: usize = 1024;

/// Encodes messages into the outbound buffer.
pub(super) struct Writer {
    /// Grows to the largest message written (from 1 KiB), given back when a
    /// connection ends.
    encoder: EncodeBuffer,
    /// Encoded messages not yet written to the transport: grows by doubling to
    /// what the connection queues at once (`max_outbound_bytes` bounds it), given
    /// back when the connection ends. A session without a connection holds none.
    pub(super) buffer: Vec<u8>,
    /// How much of `buffer` may be written: the bytes before the store's last
    /// commit (a message leaves only once what it depends on is committed).
    pub(super) committed: usize,
    begin_string: Vec<u8>,
    sender_comp_id: Vec<u8>,
    target_comp_id: Vec<u8>,
    precision: TimePrecision,
    /// The `now` of the driver's last call (never going backwards): the
    /// session's time for timers and checks.
    pub(super) now: Nanos,
    /// Where SendingTime is read, as each message is encoded.
    clock: SessionClock,
    /// When the last message was written (for the Heartbeat timer).
    pub(super) last_sent: Nanos,
    /// LastMsgSeqNumProcessed(369) to put in the header.
    pub(super) last_processed: u64,
    /// `EnableLastMsgSeqNumProcessed`: 369 on every message.
    send_last_msg_seq_num_processed: bool,
    /// `max_outbound_bytes`: past it the buffer grows by exact amounts.
    ceiling: usize,
}

impl Writer {
    pub(super) fn new(config: &SessionConfig, now: Nanos) -> Writer {
        let id = &config.id;
        Writer {
            encoder: EncodeBuffer::new(),
            buffer: Vec::new(),
            committed: 0,
            begin_string: id.begin_string.as_bytes().to_vec(),
            sender_comp_id: id.sender_comp_id.as_bytes().to_vec(),
            target_comp_id: id.target_comp_id.as_bytes().to_vec(),
            precision: config.timestamp_precision,
            now,
            clock: config.clock.clone(),
            last_sent: now,
            last_processed: 0,
            send_last_msg_seq_num_processed: config.enable_last_msg_seq_num_processed,
            ceiling: config.max_outbound_bytes,
        }
    }

    /// Forgets what is queued and gives the buffers' memory back (a connection
    /// began or ended: the peer asks again for what was queued).
    pub(super) fn release(&mut self) {
        self.buffer = Vec::new();
        self.committed = 0;
        self.encoder = EncodeBuffer::new();
    }

    /// Encodes one message with MsgSeqNum `seq` (the standard header, `extra`
    /// header fields merged in ascending tag order, then `body`) and appends it
    /// to the buffer; returns where it is. SendingTime is the clock's time now.
    pub(super) fn write(
        &mut self,
        seq: u64,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Range<usize> {
        let mut header: [(u32, HeaderValue<'_>); MAX_HEADER] =
            [(0, HeaderValue::Uint(0)); MAX_HEADER];
        header[0] = (tag::MSG_SEQ_NUM, HeaderValue::Uint(seq));
        header[1] = (
            tag::SENDER_COMP_ID,
            HeaderValue::Bytes(&self.sender_comp_id),
        );
        let sending_time = self.clock.read(self.now);
        header[2] = (tag::SENDING_TIME, HeaderValue::Time(sending_time));
        header[3] = (
            tag::TARGET_COMP_ID,
            HeaderValue::Bytes(&self.target_comp_id),
        );
        let mut n = 4;
        if self.send_last_msg_seq_num_processed {
            header[n] = (
                tag::LAST_MSG_SEQ_NUM_PROCESSED,
                HeaderValue::Uint(self.last_processed),
            );
            n += 1;
        }
        for &(field, value) in extra {
            if let Some(slot) = header[..n].iter_mut().find(|(t, _)| *t == field) {
                slot.1 = value;
            } else if n < MAX_HEADER {
                header[n] = (field, value);
                n += 1;
            }
        }
        // Insertion sort: a handful of entries, no allocation.
        for i in 1..n {
            let mut j = i;
            while j > 0 && header[j - 1].0 > header[j].0 {
                header.swap(j - 1, j);
                j -= 1;
            }
        }
        let precision = self.precision;
        let mut m = self.encoder.start(&self.begin_string, msg_type);
        for &(field, value) in &header[..n] {
            match value {
                HeaderValue::Bytes(b) => m.str(field, b),
                HeaderValue::Uint(u) => m.uint(field, u),
                HeaderValue::Char(c) => m.char(field, c),
                HeaderValue::Time(t) => m.timestamp(
                    field,
                    &UtcTimestamp::from_unix_nanos(t, precision),
                    precision,
                ),
                HeaderValue::SendingTime => m.timestamp(
                    field,
                    &UtcTimestamp::from_unix_nanos(sending_time, precision),
                    precision,
                ),
            };
        }
        body(&mut m);
        let bytes = m.finish();
        let start = self.buffer.len();
        let need = start + bytes.len();
        if need > self.buffer.capacity() {
            // Doubling, but never past the outbound ceiling; past it, by exactly
            // this message (the caller takes it back out), so the buffer stays
            // near its bound.
            let doubled = (2 * self.buffer.capacity())
                .max(FIRST_CAPACITY)
                .min(self.ceiling);
            self.buffer.reserve_exact(need.max(doubled) - start);
        }
        self.buffer.extend_from_slice(bytes);
        self.last_sent = self.now;
        start..self.buffer.len()
    }
}

/// Shown a message just written (where it is in the writer's buffer), says where the
/// message to send is (written again if amended), or `None` to refuse it.
pub(super) type Approve<'a> = dyn FnMut(&mut Writer, Range<usize>) -> Option<Range<usize>> + 'a;

/// The sending half: every message is stored (with its sequence number) before
/// it is queued in the writer's buffer.
pub(super) struct Outgoing<S> {
    pub(super) store: S,
    pub(super) writer: Writer,
    /// `PersistMessages`: keep sent messages for resends.
    persist: bool,
    /// The store failed at some point (persistence is compromised).
    pub(super) store_failed: bool,
    /// `max_outbound_bytes`.
    max_outbound: usize,
    /// A message was stored but not queued: the outbound buffer was full.
    pub(super) overflowed: bool,
    /// The session's counters (here: every message sent passes through).
    pub(super) counters: Arc<SessionCounters>,
}

impl<S: MessageStore> Outgoing<S> {
    pub(super) fn new(store: S, writer: Writer, config: &SessionConfig) -> Outgoing<S> {
        Outgoing {
            store,
            writer,
            persist: config.persist_messages,
            store_failed: false,
            max_outbound: config.max_outbound_bytes,
            overflowed: false,
            counters: Arc::default(),
        }
    }

    /// `max_outbound_bytes`: the bound on the outbound buffer.
    pub(super) fn max_outbound(&self) -> usize {
        self.max_outbound
    }

    /// Whether sent messages are kept for resends (`PersistMessages`).
    pub(super) fn persists(&self) -> bool {
        self.persist
    }

    /// Encodes, stores and queues one message with the next sequence number.
    pub(super) fn send(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.send_checked(msg_type, extra, body, &mut |_, written| Some(written))
    }

    /// [`Outgoing::send`] of a message that is stored and not queued (not
    /// counted as sent: its resend will be).
    fn send_stored_only(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.encode_and_store(msg_type, extra, body, &mut |_, written| Some(written))
            .map(|(seq, _)| seq)
    }

    /// [`Outgoing::send`], with the encoded message (where it is in the writer's
    /// buffer) shown to `approve` before it is stored: `None` refuses it (it is taken
    /// back out and its sequence number is not used); `Some` says where the message to
    /// send is (`approve` may have written it again, amended).
    pub(super) fn send_checked(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
        approve: &mut Approve<'_>,
    ) -> Result<u64, SendError> {
        let (seq, queued) = self.encode_and_store(msg_type, extra, body, approve)?;
        if queued {
            self.counters.message_sent();
        }
        Ok(seq)
    }

    /// Encodes a message, has it approved, stores it and takes its sequence
    /// number: [`Outgoing::send_checked`] but for counting it. Also says
    /// whether it is queued (not when the outbound buffer is full).
    fn encode_and_store(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
        approve: &mut Approve<'_>,
    ) -> Result<(u64, bool), SendError> {
        let seq = self.store.next_sender_seq();
        let last_sent = self.writer.last_sent;
        let start = self.writer.buffer.len();
        let written = self.writer.write(seq, msg_type, extra, body);
        let Some(written) = approve(&mut self.writer, written) else {
            self.writer.buffer.truncate(start);
            self.writer.last_sent = last_sent;
            return Err(SendError::DoNotSend);
        };
        if self.persist {
            if let Err(e) = self.store.store(seq, &self.writer.buffer[written.clone()]) {
                self.writer.buffer.truncate(written.start);
                return Err(SendError::Store(e));
            }
        }
        if let Err(e) = self.store.incr_next_sender_seq() {
            self.store_failed = true;
            return Err(SendError::Store(e));
        }
        if self.writer.buffer.len() > self.max_outbound {
            // Stored (a resend will deliver it), but not queued: the peer is not
            // reading and the session asks to be disconnected.
            self.writer.buffer.truncate(written.start);
            self.overflowed = true;
            return Ok((seq, false));
        }
        Ok((seq, true))
    }

    /// Encodes and stores one application message with the next sequence number
    /// without queueing it (the session is not logged on: a resend delivers it).
    pub(super) fn store_only(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        let (len, last_sent, overflowed) = (
            self.writer.buffer.len(),
            self.writer.last_sent,
            self.overflowed,
        );
        let sent = self.send_stored_only(msg_type, extra, body);
        self.writer.buffer.truncate(len);
        self.writer.last_sent = last_sent;
        self.overflowed = overflowed;
        sent
    }

    /// Sends an admin message built by the session; a store failure is recorded.
    pub(super) fn admin(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) {
        if self.send(msg_type, extra, body).is_err() {
            self.store_failed = true;
        }
    }
}

/// A small formatter into a stack buffer, for the texts of rejects and logouts
/// (no allocation; a longer text is cut at 160 bytes).
pub(super) struct StackText {
    buf: [u8; 160],
    len: usize,
}

impl StackText {
    pub(super) fn new() -> Self {
        StackText {
            buf: [0; 160],
            len: 0,
        }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
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

//! Outgoing messages: the header values, the encoder writing into the outbound
//! buffer (`Writer`), and the sending half that stores each message before it
//! is queued (`Tx`).

use std::ops::Range;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, MessageEncoder};
use peregrine_store::MessageStore;

use crate::app::{SendError, Sink};
use crate::config::Nanos;

/// A header value to write.
#[derive(Clone, Copy, Debug)]
pub(super) enum HVal<'a> {
    Bytes(&'a [u8]),
    Uint(u64),
    Time(Nanos),
    Char(u8),
}

pub(super) const MAX_HEADER: usize = 40;

/// Encodes messages into the outbound buffer.
pub(super) struct Writer {
    pub(super) enc: EncodeBuffer,
    /// Encoded messages not yet written to the transport.
    pub(super) out: Vec<u8>,
    /// How much of `out` may be written: the bytes before the store's last
    /// commit (a message leaves only once what it depends on is committed).
    pub(super) committed: usize,
    pub(super) begin: Vec<u8>,
    pub(super) sender: Vec<u8>,
    pub(super) target: Vec<u8>,
    pub(super) precision: TimePrecision,
    pub(super) now: Nanos,
    pub(super) last_sent: Nanos,
    pub(super) last_processed: u64,
    pub(super) send_369: bool,
    /// `max_outbound_bytes`: past it the buffer grows by exact amounts.
    pub(super) out_ceiling: usize,
}

/// What the outbound buffer's capacity returns to when a connection ends.
pub(super) const OUT_CAPACITY: usize = 64 * 1024;

impl Writer {
    /// Encodes one message with MsgSeqNum `seq` and appends it to `out`.
    pub(super) fn write(
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
pub(super) struct Tx<S> {
    pub(super) store: S,
    pub(super) w: Writer,
    pub(super) persist: bool,
    pub(super) store_failed: bool,
    /// `max_outbound_bytes`.
    pub(super) max_out: usize,
    /// A message was not queued because the outbound buffer was full.
    pub(super) overflowed: bool,
}

impl<S: MessageStore> Tx<S> {
    pub(super) fn send(
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
    pub(super) fn admin(
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

/// A small formatter into a stack buffer (texts of rejects and logouts).
pub(super) struct StackText {
    pub(super) buf: [u8; 160],
    pub(super) len: usize,
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

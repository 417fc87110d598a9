//! Encoding messages into a caller-owned buffer.
//!
//! The body is written after a reserved gap; [`MessageEncoder::finish`] then
//! writes `8=…|9=<len>|` right-aligned against the body (BodyLength with its
//! minimal number of digits, as peers compare it literally) and appends the
//! CheckSum. Nothing is moved or copied, and once the buffer has grown to the
//! largest message nothing is allocated.
//!
//! ```
//! use peregrine_codec::{EncodeBuffer, value::Decimal};
//! let mut buf = EncodeBuffer::new();
//! let mut m = buf.start(b"FIX.4.4", b"D");
//! m.str(49, b"SENDER");
//! m.str(56, b"TARGET");
//! m.uint(34, 100);
//! m.decimal(44, Decimal::new(15000, 2));
//! let bytes = m.finish();
//! assert_eq!(bytes, b"8=FIX.4.4\x019=42\x0135=D\x0149=SENDER\x0156=TARGET\x0134=100\x0144=150.00\x0110=196\x01");
//! ```

use crate::simd;
use crate::value::{self, Decimal, TimePrecision, UtcTimestamp};
use crate::SOH;

/// Room reserved in front of the body for `8=<BeginString>|9=<digits>|`.
const MAX_BEGIN_STRING: usize = 32;
const MAX_BODY_LENGTH_DIGITS: usize = 9;
const HEADER_ROOM: usize = 2 + MAX_BEGIN_STRING + 1 + 2 + MAX_BODY_LENGTH_DIGITS + 1;

/// A reusable output buffer. Keep one per session or per thread.
#[derive(Debug, Default, Clone)]
pub struct EncodeBuffer {
    buf: Vec<u8>,
}

impl EncodeBuffer {
    /// An empty buffer (it grows on first use).
    pub fn new() -> Self {
        EncodeBuffer { buf: Vec::new() }
    }

    /// A buffer with room for messages of `bytes` without reallocation.
    pub fn with_capacity(bytes: usize) -> Self {
        EncodeBuffer {
            buf: Vec::with_capacity(bytes + HEADER_ROOM),
        }
    }

    /// Current capacity in bytes (for allocation checks).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Starts a message: writes `35=<msg_type>` as the body's first field.
    ///
    /// # Panics
    /// If `begin_string` is longer than 32 bytes (a programming error).
    pub fn start<'b>(&'b mut self, begin_string: &[u8], msg_type: &[u8]) -> MessageEncoder<'b> {
        assert!(
            begin_string.len() <= MAX_BEGIN_STRING,
            "BeginString too long"
        );
        self.buf.clear();
        self.buf.resize(HEADER_ROOM, 0);
        let mut enc = MessageEncoder {
            buf: &mut self.buf,
            begin_string_len: begin_string.len(),
        };
        // Keep BeginString in the reserved area until finish() places it.
        enc.buf[..begin_string.len()].copy_from_slice(begin_string);
        enc.str(35, msg_type);
        enc
    }
}

/// Writes one message's fields; created by [`EncodeBuffer::start`].
#[derive(Debug)]
pub struct MessageEncoder<'b> {
    buf: &'b mut Vec<u8>,
    begin_string_len: usize,
}

impl<'b> MessageEncoder<'b> {
    #[inline]
    fn tag(&mut self, tag: u32) {
        let mut t = [0u8; 20];
        let n = value::format_u64(tag as u64, &mut t);
        t[n] = b'=';
        self.buf.extend_from_slice(&t[..n + 1]);
    }

    /// A field with raw bytes as its value (must not contain SOH unless it is a data field).
    #[inline]
    pub fn str(&mut self, tag: u32, v: &[u8]) -> &mut Self {
        self.tag(tag);
        self.buf.extend_from_slice(v);
        self.buf.push(SOH);
        self
    }

    /// An unsigned integer field.
    #[inline]
    pub fn uint(&mut self, tag: u32, v: u64) -> &mut Self {
        let mut b = [0u8; 20];
        let n = value::format_u64(v, &mut b);
        self.str(tag, &b[..n])
    }

    /// A signed integer field.
    #[inline]
    pub fn int(&mut self, tag: u32, v: i64) -> &mut Self {
        let mut b = [0u8; 24];
        let n = value::format_i64(v, &mut b);
        self.str(tag, &b[..n])
    }

    /// A fixed-point decimal field, written with exactly its scale's digits.
    #[inline]
    pub fn decimal(&mut self, tag: u32, v: Decimal) -> &mut Self {
        let mut b = [0u8; 24];
        let n = value::format_decimal(v, &mut b);
        self.str(tag, &b[..n])
    }

    /// A single-character field.
    #[inline]
    pub fn char(&mut self, tag: u32, v: u8) -> &mut Self {
        self.str(tag, &[v])
    }

    /// A Y/N field.
    #[inline]
    pub fn bool(&mut self, tag: u32, v: bool) -> &mut Self {
        self.str(tag, if v { b"Y" } else { b"N" })
    }

    /// A UTCTimestamp field at the given precision.
    #[inline]
    pub fn timestamp(&mut self, tag: u32, v: &UtcTimestamp, precision: TimePrecision) -> &mut Self {
        let mut b = [0u8; 32];
        let n = value::format_timestamp(v, precision, &mut b);
        self.str(tag, &b[..n])
    }

    /// A length-prefixed data field pair: `length_tag=<len>|data_tag=<bytes>|`
    /// (`bytes` may contain SOH).
    pub fn data(&mut self, length_tag: u32, data_tag: u32, bytes: &[u8]) -> &mut Self {
        self.uint(length_tag, bytes.len() as u64);
        self.str(data_tag, bytes)
    }

    /// Bytes of body written so far (from `35=` on).
    pub fn body_len(&self) -> usize {
        self.buf.len() - HEADER_ROOM
    }

    /// Writes BeginString, BodyLength and CheckSum and returns the message.
    ///
    /// # Panics
    /// If the body exceeds 999,999,999 bytes.
    pub fn finish(self) -> &'b [u8] {
        let body_len = self.buf.len() - HEADER_ROOM;
        let mut digits = [0u8; 20];
        let nd = value::format_u64(body_len as u64, &mut digits);
        assert!(nd <= MAX_BODY_LENGTH_DIGITS, "message body too large");
        let bsl = self.begin_string_len;
        let header_len = 2 + bsl + 1 + 2 + nd + 1;
        let start = HEADER_ROOM - header_len;
        // BeginString was parked at 0; move it into place (regions may overlap).
        self.buf.copy_within(0..bsl, start + 2);
        let h = &mut self.buf[start..HEADER_ROOM];
        h[0] = b'8';
        h[1] = b'=';
        h[2 + bsl] = SOH;
        h[3 + bsl] = b'9';
        h[4 + bsl] = b'=';
        h[5 + bsl..5 + bsl + nd].copy_from_slice(&digits[..nd]);
        h[5 + bsl + nd] = SOH;
        let sum = simd::byte_sum(&self.buf[start..]) % 256;
        let trailer = [
            b'1',
            b'0',
            b'=',
            b'0' + (sum / 100) as u8,
            b'0' + (sum / 10 % 10) as u8,
            b'0' + (sum % 10) as u8,
            SOH,
        ];
        self.buf.extend_from_slice(&trailer);
        &self.buf[start..]
    }
}

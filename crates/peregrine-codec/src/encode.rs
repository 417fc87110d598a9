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
use crate::value::{self, put, Decimal, TimePrecision, UtcTimestamp};
use crate::SOH;

/// Room reserved in front of the body for `8=<BeginString>|9=<digits>|`.
const MAX_BEGIN_STRING: usize = 32;
const MAX_BODY_LENGTH_DIGITS: usize = 9;
const HEADER_ROOM: usize = 2 + MAX_BEGIN_STRING + 1 + 2 + MAX_BODY_LENGTH_DIGITS + 1;
/// Slack kept past the cursor so that a tag, `=` and a short value never need a check per byte.
const FIELD_SLACK: usize = 64;
// The window must hold the longest short field: an 11-byte tag and a 44-byte decimal.
const _: () = assert!(WINDOW > 11 + 44);
const INITIAL_SIZE: usize = 1024;

/// The formatted `YYYYMMDD-HH:MM:SS` of the last timestamp written: consecutive
/// messages usually fall in the same second (SendingTime, TransactTime).
#[derive(Debug, Clone, Copy, Default)]
struct SecondCache {
    key: u64,
    text: [u8; 17],
}

impl SecondCache {
    /// Formats the seconds of `v` (a new second: once per second at most
    /// for a clock's timestamps).
    #[cold]
    fn set(&mut self, key: u64, v: &UtcTimestamp) {
        let mut text = [0u8; 32];
        value::format_timestamp(v, TimePrecision::Seconds, &mut text);
        self.text.copy_from_slice(&text[..17]);
        self.key = key;
    }
}

/// A reusable output buffer. Keep one per session or per thread.
#[derive(Debug, Clone)]
pub struct EncodeBuffer {
    /// Always fully initialised (`len` is the usable size); the cursor lives in the encoder.
    buf: Vec<u8>,
    seconds: SecondCache,
    /// The BeginString of the message being written (placed by `finish`).
    begin_string: [u8; MAX_BEGIN_STRING],
}

impl Default for EncodeBuffer {
    fn default() -> Self {
        EncodeBuffer {
            buf: Vec::new(),
            seconds: SecondCache::default(),
            begin_string: [0; MAX_BEGIN_STRING],
        }
    }
}

impl EncodeBuffer {
    /// An empty buffer (it grows on first use).
    pub fn new() -> Self {
        EncodeBuffer::default()
    }

    /// A buffer with room for messages of `bytes` without reallocation.
    pub fn with_capacity(bytes: usize) -> Self {
        EncodeBuffer {
            buf: vec![0; bytes + HEADER_ROOM + FIELD_SLACK + 16],
            ..EncodeBuffer::default()
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
    #[inline]
    pub fn start<'b>(&'b mut self, begin_string: &[u8], msg_type: &[u8]) -> MessageEncoder<'b> {
        assert!(
            begin_string.len() <= MAX_BEGIN_STRING,
            "BeginString too long"
        );
        if self.buf.len() < INITIAL_SIZE {
            self.buf.resize(INITIAL_SIZE, 0);
        }
        // Kept aside until finish() knows where the header starts.
        put(&mut self.begin_string, 0, begin_string);
        let mut enc = MessageEncoder {
            buf: &mut self.buf,
            seconds: &mut self.seconds,
            begin_string: &self.begin_string,
            pos: HEADER_ROOM,
            begin_string_len: begin_string.len(),
        };
        enc.str(35, msg_type);
        enc
    }
}

/// Writes one message's fields; created by [`EncodeBuffer::start`].
#[derive(Debug)]
pub struct MessageEncoder<'b> {
    buf: &'b mut Vec<u8>,
    seconds: &'b mut SecondCache,
    begin_string: &'b [u8; MAX_BEGIN_STRING],
    pos: usize,
    begin_string_len: usize,
}

/// Writes `tag=` at `at`, returning its length. Needs 11 bytes of room.
#[inline(always)]
fn put_tag(dst: &mut [u8], at: usize, tag: u32) -> usize {
    if tag < 10 {
        dst[at] = b'0' + tag as u8;
        dst[at + 1] = b'=';
        2
    } else if tag < 100 {
        let r = tag as usize * 2;
        dst[at..at + 2].copy_from_slice(&DIGIT_PAIRS[r..r + 2]);
        dst[at + 2] = b'=';
        3
    } else if tag < 1000 {
        dst[at] = b'0' + (tag / 100) as u8;
        let r = (tag % 100) as usize * 2;
        dst[at + 1..at + 3].copy_from_slice(&DIGIT_PAIRS[r..r + 2]);
        dst[at + 3] = b'=';
        4
    } else {
        let n = value::format_u64(tag as u64, &mut dst[at..at + 10]);
        dst[at + n] = b'=';
        n + 1
    }
}

/// Grows `buf` so that `n` bytes fit from `pos` (and the slack after them).
/// A free function, not a method: a cold call taking the encoder by
/// reference would keep the encoder in memory (its cursor reloaded after
/// every byte written) on the hot path too.
#[cold]
#[inline(never)]
fn grow(buf: &mut Vec<u8>, pos: usize, n: usize) {
    let want = (pos + n + FIELD_SLACK).max(buf.len() * 2);
    buf.resize(want, 0);
}

/// Writes a field with a value too long for the window at `pos`, returning
/// the new cursor.
#[cold]
#[inline(never)]
fn long_field(buf: &mut Vec<u8>, pos: usize, tag: u32, v: &[u8]) -> usize {
    if pos + v.len() + WINDOW > buf.len() {
        grow(buf, pos, v.len() + WINDOW);
    }
    let w: &mut [u8; WINDOW] = (&mut buf[pos..pos + WINDOW])
        .try_into()
        .expect("window fits");
    let t = put_tag(w, 0, tag);
    let p = pos + t;
    buf[p..p + v.len()].copy_from_slice(v);
    buf[p + v.len()] = SOH;
    p + v.len() + 1
}

const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The three ASCII digits of every CheckSum value.
static CHECKSUM_DIGITS: [[u8; 3]; 256] = {
    let mut t = [[0u8; 3]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [
            b'0' + (i / 100) as u8,
            b'0' + (i / 10 % 10) as u8,
            b'0' + (i % 10) as u8,
        ];
        i += 1;
    }
    t
};

/// Bytes every short field may touch past the cursor (see [`MessageEncoder::window`]).
const WINDOW: usize = 64;

impl<'b> MessageEncoder<'b> {
    /// A fixed-size window at the cursor: one bounds check, then writes at
    /// small constant or bounded offsets need none.
    #[inline(always)]
    fn window(&mut self) -> &mut [u8; WINDOW] {
        if self.pos + WINDOW > self.buf.len() {
            self.grow(WINDOW);
        }
        let p = self.pos;
        (&mut self.buf[p..p + WINDOW])
            .try_into()
            .expect("window fits")
    }

    #[inline(always)]
    fn grow(&mut self, n: usize) {
        grow(self.buf, self.pos, n);
    }

    /// A field with raw bytes as its value (must not contain SOH unless it is a data field).
    #[inline(always)]
    pub fn str(&mut self, tag: u32, v: &[u8]) -> &mut Self {
        if v.len() > WINDOW - 16 {
            return self.long_str(tag, v);
        }
        let w = self.window();
        let t = put_tag(w, 0, tag);
        put(w, t, v);
        w[t + v.len()] = SOH;
        self.pos += t + v.len() + 1;
        self
    }

    #[inline(always)]
    fn long_str(&mut self, tag: u32, v: &[u8]) -> &mut Self {
        self.pos = long_field(self.buf, self.pos, tag, v);
        self
    }

    /// An unsigned integer field.
    #[inline(always)]
    pub fn uint(&mut self, tag: u32, v: u64) -> &mut Self {
        let w = self.window();
        let t = put_tag(w, 0, tag);
        let n = value::format_u64(v, &mut w[t..t + 20]);
        w[t + n] = SOH;
        self.pos += t + n + 1;
        self
    }

    /// A signed integer field.
    #[inline]
    pub fn int(&mut self, tag: u32, v: i64) -> &mut Self {
        let w = self.window();
        let t = put_tag(w, 0, tag);
        let n = value::format_i64(v, &mut w[t..t + 21]);
        w[t + n] = SOH;
        self.pos += t + n + 1;
        self
    }

    /// A fixed-point decimal field, written with exactly its scale's digits.
    #[inline(always)]
    pub fn decimal(&mut self, tag: u32, v: Decimal) -> &mut Self {
        let w = self.window();
        let t = put_tag(w, 0, tag);
        let n = value::format_decimal(v, &mut w[t..t + 44]);
        w[t + n] = SOH;
        self.pos += t + n + 1;
        self
    }

    /// A single-character field.
    #[inline(always)]
    pub fn char(&mut self, tag: u32, v: u8) -> &mut Self {
        let w = self.window();
        let t = put_tag(w, 0, tag);
        w[t] = v;
        w[t + 1] = SOH;
        self.pos += t + 2;
        self
    }

    /// A Y/N field.
    #[inline]
    pub fn bool(&mut self, tag: u32, v: bool) -> &mut Self {
        self.char(tag, if v { b'Y' } else { b'N' })
    }

    /// A UTCTimestamp field at the given precision (fractions truncated).
    #[inline(always)]
    pub fn timestamp(&mut self, tag: u32, v: &UtcTimestamp, precision: TimePrecision) -> &mut Self {
        let key = (v.date.year as u64) << 40
            | (v.date.month as u64) << 32
            | (v.date.day as u64) << 24
            | (v.hour as u64) << 16
            | (v.minute as u64) << 8
            | v.second as u64;
        if self.seconds.key != key || key == 0 {
            self.seconds.set(key, v);
        }
        if self.pos + WINDOW > self.buf.len() {
            self.grow(WINDOW);
        }
        let p = self.pos;
        let w: &mut [u8; WINDOW] = (&mut self.buf[p..p + WINDOW])
            .try_into()
            .expect("window fits");
        let t = put_tag(w, 0, tag);
        w[t..t + 17].copy_from_slice(&self.seconds.text);
        let n = value::format_fraction(v.nanos, precision, &mut w[t + 17..t + 27]);
        w[t + 17 + n] = SOH;
        self.pos += t + 18 + n;
        self
    }

    /// A length-prefixed data field pair: `length_tag=<len>|data_tag=<bytes>|`
    /// (`bytes` may contain SOH).
    pub fn data(&mut self, length_tag: u32, data_tag: u32, bytes: &[u8]) -> &mut Self {
        self.uint(length_tag, bytes.len() as u64);
        self.str(data_tag, bytes)
    }

    /// Bytes of body written so far (from `35=` on).
    pub fn body_len(&self) -> usize {
        self.pos - HEADER_ROOM
    }

    /// Writes BeginString, BodyLength and CheckSum and returns the message.
    ///
    /// # Panics
    /// If the body exceeds 999,999,999 bytes.
    #[inline]
    pub fn finish(mut self) -> &'b [u8] {
        let body_len = self.pos - HEADER_ROOM;
        let mut digits = [0u8; 20];
        let nd = value::format_u64(body_len as u64, &mut digits);
        assert!(nd <= MAX_BODY_LENGTH_DIGITS, "message body too large");
        let bsl = self.begin_string_len;
        let header_len = 2 + bsl + 1 + 2 + nd + 1;
        let start = HEADER_ROOM - header_len;
        put(self.buf, start + 2, &self.begin_string[..bsl]);
        let h = &mut self.buf[start..HEADER_ROOM];
        h[0] = b'8';
        h[1] = b'=';
        h[2 + bsl] = SOH;
        h[3 + bsl] = b'9';
        h[4 + bsl] = b'=';
        h[5 + bsl..5 + bsl + nd].copy_from_slice(&digits[..nd]);
        h[5 + bsl + nd] = SOH;
        let sum = simd::byte_sum(&self.buf[start..self.pos]) % 256;
        if self.pos + 7 > self.buf.len() {
            self.grow(7);
        }
        let p = self.pos;
        let [d0, d1, d2] = CHECKSUM_DIGITS[sum as usize];
        self.buf[p..p + 7].copy_from_slice(&[b'1', b'0', b'=', d0, d1, d2, SOH]);
        &self.buf[start..p + 7]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_copies_of_every_length() {
        let src: Vec<u8> = (0..40u8).collect();
        for n in 0..=40 {
            let mut dst = vec![0xFFu8; 80];
            put(&mut dst, 3, &src[..n]);
            assert_eq!(&dst[3..3 + n], &src[..n]);
            assert!(dst[..3].iter().all(|&b| b == 0xFF));
            assert!(dst[3 + n..].iter().all(|&b| b == 0xFF), "n={n}");
        }
    }

    #[test]
    fn tags_of_every_width() {
        for tag in [
            1u32,
            9,
            10,
            99,
            100,
            999,
            1000,
            9999,
            10000,
            123456789,
            u32::MAX,
        ] {
            let mut dst = [0u8; 16];
            let n = put_tag(&mut dst, 0, tag);
            assert_eq!(&dst[..n], format!("{tag}=").as_bytes());
        }
    }

    #[test]
    fn timestamp_cache_follows_the_second() {
        let mut buf = EncodeBuffer::new();
        let mut out = Vec::new();
        for nanos in [
            0i64,
            999_000_000,
            1_000_000_000,
            86_400_000_000_000,
            1_705_314_600_123_456_789,
        ] {
            let ts = UtcTimestamp::from_unix_nanos(nanos, TimePrecision::Nanos);
            let mut m = buf.start(b"FIX.4.4", b"0");
            m.timestamp(52, &ts, TimePrecision::Millis);
            let s = String::from_utf8_lossy(m.finish()).to_string();
            out.push(s.split('\x01').nth(3).unwrap().to_string());
        }
        assert_eq!(
            out,
            [
                "52=19700101-00:00:00.000",
                "52=19700101-00:00:00.999",
                "52=19700101-00:00:01.000",
                "52=19700102-00:00:00.000",
                "52=20240115-10:30:00.123"
            ]
        );
    }

    #[test]
    fn large_messages_grow_the_buffer() {
        let mut buf = EncodeBuffer::new();
        let big = vec![b'x'; 100_000];
        let mut m = buf.start(b"FIX.4.4", b"B");
        m.str(58, &big).uint(34, 7);
        let out = m.finish();
        assert!(out.ends_with(b"\x0134=7\x0110=") || out.len() > 100_000);
        assert_eq!(
            crate::frame::Framer::default().next_frame(out),
            crate::frame::Frame::Message { len: out.len() }
        );
    }
}

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

use crate::out::OutBuf;
use crate::simd::{self, ByteSum};
use crate::value::{self, put, Decimal, TimePrecision, UtcTimestamp};
use crate::SOH;

/// Room reserved in front of the body for `8=<BeginString>|9=<digits>|`.
const MAX_BEGIN_STRING: usize = 32;
const MAX_BODY_LENGTH_DIGITS: usize = 9;
const HEADER_ROOM: usize = 2 + MAX_BEGIN_STRING + 1 + 2 + MAX_BODY_LENGTH_DIGITS + 1;
// `finish` writes `9=<BodyLength>|` with one 16-byte store ending at the body.
const _: () = assert!(HEADER_ROOM >= 16);
/// Slack kept past the cursor so that a tag, `=` and a short value never need a check per byte.
const FIELD_SLACK: usize = 64;
// The window must hold the longest short field: an 11-byte tag and a 44-byte decimal.
const _: () = assert!(WINDOW > 11 + 44);
const INITIAL_SIZE: usize = 1024;
/// The bytes every message's header and trailer hold besides the
/// BeginString and the BodyLength digits: `8=`, SOH, `9=`, SOH.
const HEADER_CONSTANT_SUM: u32 = (b'8' + b'=' + SOH + b'9' + b'=' + SOH) as u32;

/// The formatted `YYYYMMDD-HH:MM:SS` of the last timestamp written: consecutive
/// messages usually fall in the same second (SendingTime, TransactTime).
#[derive(Debug, Clone, Copy, Default)]
struct SecondCache {
    /// [`second_key`] of the timestamp `text` was made from (0: none yet).
    key: u64,
    text: [u8; 17],
    /// The byte sum of `text` (for the CheckSum).
    sum: u32,
}

/// Date and time of day to the second as one word, never 0 (the top byte is 1).
/// `Date` and `UtcTimestamp` are `repr(C)` with these fields side by side, so
/// the compiler reads them with a few wide loads.
#[inline(always)]
fn second_key(v: &UtcTimestamp) -> u64 {
    v.date.year as u64
        | (v.date.month as u64) << 16
        | (v.date.day as u64) << 24
        | (v.hour as u64) << 32
        | (v.minute as u64) << 40
        | (v.second as u64) << 48
        | 1 << 56
}

impl SecondCache {
    /// Whether `v` falls in the cached second.
    #[inline(always)]
    fn holds(&self, v: &UtcTimestamp) -> bool {
        self.key == second_key(v)
    }

    /// Formats the seconds of `v` (a new second: once per second at most
    /// for a clock's timestamps).
    #[cold]
    fn set(&mut self, v: &UtcTimestamp) {
        let mut text = [0u8; 32];
        value::format_timestamp(v, TimePrecision::Seconds, &mut text);
        self.text.copy_from_slice(&text[..17]);
        self.sum = self.text.iter().map(|&b| b as u32).sum();
        self.key = second_key(v);
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
    #[inline(always)]
    pub fn start<'b>(&'b mut self, begin_string: &[u8], msg_type: &[u8]) -> MessageEncoder<'b> {
        assert!(
            begin_string.len() <= MAX_BEGIN_STRING,
            "BeginString too long"
        );
        if self.buf.len() < INITIAL_SIZE {
            self.buf.resize(INITIAL_SIZE, 0);
        }
        // Kept aside until finish() knows where the header starts: in
        // registers when short (read back from memory, bytes written by
        // overlapping stores would wait for those stores to reach the cache).
        let mut sum = ByteSum::new();
        let short = load_short(&begin_string[..begin_string.len().min(16)]);
        if begin_string.len() > 16 {
            put_summed(&mut self.begin_string, 0, begin_string, &mut sum);
        } else {
            sum_short(&mut sum, begin_string.len(), short);
        }
        sum.add_byte(HEADER_CONSTANT_SUM);
        let mut enc = MessageEncoder {
            out: OutBuf::new(&mut self.buf),
            seconds: &mut self.seconds,
            begin_string: &self.begin_string,
            pos: HEADER_ROOM,
            begin_string_len: begin_string.len(),
            short_begin_string: short,
            sum,
        };
        enc.str(35, msg_type);
        enc
    }
}

/// Writes one message's fields; created by [`EncodeBuffer::start`].
///
/// Every field is summed for the CheckSum as it is written, from the
/// registers that hold it (see `simd::ByteSum`), so `finish` never reads the
/// message back.
#[derive(Debug)]
pub struct MessageEncoder<'b> {
    out: OutBuf<'b>,
    seconds: &'b mut SecondCache,
    begin_string: &'b [u8; MAX_BEGIN_STRING],
    pos: usize,
    begin_string_len: usize,
    /// The BeginString when it has at most 16 bytes.
    short_begin_string: ShortBytes,
    /// The byte sum of the header and of the body written so far.
    sum: ByteSum,
}

/// Writes `tag=` at `at`, returning its length. Needs 11 bytes of room.
#[inline(always)]
fn put_tag(dst: &mut [u8], at: usize, tag: u32) -> usize {
    // Below 1000, `tag=` as one four-byte store (the bytes past it are
    // overwritten by the value): one immediate store for a constant tag.
    let (word, n) = if tag < 10 {
        ((b'0' as u32 + tag) | (b'=' as u32) << 8, 2)
    } else if tag < 100 {
        let r = tag as usize * 2;
        let pair = u16::from_le_bytes([DIGIT_PAIRS[r], DIGIT_PAIRS[r + 1]]) as u32;
        (pair | (b'=' as u32) << 16, 3)
    } else if tag < 1000 {
        let r = (tag % 100) as usize * 2;
        let pair = u16::from_le_bytes([DIGIT_PAIRS[r], DIGIT_PAIRS[r + 1]]) as u32;
        (
            (b'0' as u32 + tag / 100) | pair << 8 | (b'=' as u32) << 24,
            4,
        )
    } else {
        let n = value::format_u64(tag as u64, &mut dst[at..at + 10]);
        dst[at + n] = b'=';
        return n + 1;
    };
    dst[at..at + 4].copy_from_slice(&word.to_le_bytes());
    n
}

/// The byte sum of `tag=` and of the SOH ending the field: a constant when
/// the tag is one.
#[inline(always)]
fn tag_and_soh_sum(tag: u32) -> u32 {
    let digits = if tag < 10 {
        b'0' as u32 + tag
    } else if tag < 100 {
        2 * b'0' as u32 + tag / 10 + tag % 10
    } else if tag < 1000 {
        3 * b'0' as u32 + tag / 100 + tag / 10 % 10 + tag % 10
    } else {
        long_tag_digit_sum(tag)
    };
    digits + (b'=' + SOH) as u32
}

#[cold]
fn long_tag_digit_sum(mut tag: u32) -> u32 {
    let mut s = 0;
    while tag > 0 {
        s += b'0' as u32 + tag % 10;
        tag /= 10;
    }
    s
}

/// The low `n` bytes of `w` (`n` ≤ 8).
#[inline(always)]
fn low_bytes(w: u64, n: usize) -> u64 {
    if n >= 8 {
        w
    } else {
        w & ((1u64 << (8 * n)) - 1)
    }
}

/// Up to 16 bytes held in two words the way [`store_short`] writes them:
/// for 8 to 16 bytes the first and last eight, for 4 to 7 the first and
/// last four, below that the first, last and middle byte.
#[derive(Debug, Clone, Copy)]
struct ShortBytes {
    lo: u64,
    hi: u64,
}

/// Loads `src` (at most 16 bytes) into words.
#[inline(always)]
fn load_short(src: &[u8]) -> ShortBytes {
    let n = src.len();
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let half = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64;
    if n >= 8 {
        ShortBytes {
            lo: word(&src[..8]),
            hi: word(&src[n - 8..]),
        }
    } else if n >= 4 {
        ShortBytes {
            lo: half(&src[..4]),
            hi: half(&src[n - 4..]),
        }
    } else if n > 0 {
        let (a, b, c) = (src[0], src[n / 2], src[n - 1]);
        ShortBytes {
            lo: a as u64 | (c as u64) << 8 | (b as u64) << 16,
            hi: 0,
        }
    } else {
        ShortBytes { lo: 0, hi: 0 }
    }
}

/// Writes the `n` bytes (at most 16) held in `v` to `dst[at..at + n]`.
#[inline(always)]
fn store_short(dst: &mut [u8], at: usize, n: usize, v: ShortBytes) {
    if n >= 8 {
        dst[at..at + 8].copy_from_slice(&v.lo.to_le_bytes());
        dst[at + n - 8..at + n].copy_from_slice(&v.hi.to_le_bytes());
    } else if n >= 4 {
        dst[at..at + 4].copy_from_slice(&(v.lo as u32).to_le_bytes());
        dst[at + n - 4..at + n].copy_from_slice(&(v.hi as u32).to_le_bytes());
    } else if n > 0 {
        dst[at] = v.lo as u8;
        dst[at + n / 2] = (v.lo >> 16) as u8;
        dst[at + n - 1] = (v.lo >> 8) as u8;
    }
}

/// Adds the `n` bytes (at most 16) held in `v` to `sum`.
#[inline(always)]
fn sum_short(sum: &mut ByteSum, n: usize, v: ShortBytes) {
    if n >= 8 {
        // `hi` holds the last eight bytes; `lo` counts only those before them.
        sum.add_words(low_bytes(v.lo, n - 8), v.hi);
    } else if n >= 4 {
        sum.add_word(low_bytes(v.lo, n - 4) | v.hi << 32);
    } else {
        sum.add_word(low_bytes(v.lo, n));
    }
}

/// Copies `src` (at most 48 bytes) to `dst[at..]` like [`put`] and adds its
/// bytes to `sum` from the words moved.
#[inline(always)]
fn put_summed(dst: &mut [u8], at: usize, src: &[u8], sum: &mut ByteSum) {
    let n = src.len();
    if n > 16 {
        put_long_summed(dst, at, src, sum);
    } else {
        let v = load_short(src);
        store_short(dst, at, n, v);
        sum_short(sum, n, v);
    }
}

/// [`put_summed`] for 17 to 48 bytes: 16-byte pieces, the last one ending
/// at the end (overlapping the one before; only its new bytes are summed).
#[inline(always)]
fn put_long_summed(dst: &mut [u8], at: usize, src: &[u8], sum: &mut ByteSum) {
    let n = src.len();
    let piece = |b: &[u8]| u128::from_le_bytes(b.try_into().expect("16 bytes"));
    let mut i = 0;
    while i + 16 <= n {
        let v = piece(&src[i..i + 16]);
        dst[at + i..at + i + 16].copy_from_slice(&v.to_le_bytes());
        sum.add_words(v as u64, (v >> 64) as u64);
        i += 16;
    }
    if i < n {
        let v = piece(&src[n - 16..]);
        dst[at + n - 16..at + n].copy_from_slice(&v.to_le_bytes());
        // Its first 16 - (n - i) bytes were summed with the piece before.
        let new = v >> (8 * (16 - (n - i)));
        sum.add_words(new as u64, (new >> 64) as u64);
    }
}

/// Writes a field with a value too long for the window at `pos`, returning
/// the new cursor and the byte sum of the value.
#[cold]
#[inline(never)]
fn long_field(buf: &mut Vec<u8>, pos: usize, tag: u32, v: &[u8]) -> (usize, u32) {
    let want = pos + v.len() + WINDOW + FIELD_SLACK;
    if want > buf.len() {
        buf.resize(want.max(buf.len() * 2), 0);
    }
    let t = put_tag(&mut buf[pos..pos + 16], 0, tag);
    let p = pos + t;
    buf[p..p + v.len()].copy_from_slice(v);
    buf[p + v.len()] = SOH;
    (p + v.len() + 1, simd::byte_sum(v))
}

/// Writes the digits of `n` (10^8 or more) at the start of `out`, returning
/// their number and byte sum.
#[cold]
#[inline(never)]
fn long_number(n: u64, out: &mut [u8]) -> (usize, u32) {
    let len = value::format_u64(n, out);
    (len, out[..len].iter().map(|&b| b as u32).sum())
}

/// Writes a decimal that [`value::decimal_text`] does not cover, returning
/// its length and byte sum.
#[cold]
#[inline(never)]
fn long_decimal(d: Decimal, out: &mut [u8]) -> (usize, u32) {
    let len = value::format_decimal(d, out);
    (len, out[..len].iter().map(|&b| b as u32).sum())
}

/// Writes the digits of `n` at the start of `out` (at least 20 bytes),
/// returning their number; below 10^8 from one word, written whole.
#[inline(always)]
fn put_u64(out: &mut [u8], n: u64, sum: &mut ByteSum) -> usize {
    if n < 100_000_000 {
        let (w, len) = value::digits_word(n as u32);
        out[..8].copy_from_slice(&w.to_le_bytes());
        sum.add_word(w);
        len
    } else {
        let (len, s) = long_number(n, out);
        sum.add_byte(s);
        len
    }
}

const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The trailer `10=nnn<SOH>` of every CheckSum value, as a little-endian word.
static TRAILERS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = u64::from_le_bytes([
            b'1',
            b'0',
            b'=',
            b'0' + (i / 100) as u8,
            b'0' + (i / 10 % 10) as u8,
            b'0' + (i % 10) as u8,
            SOH,
            0,
        ]);
        i += 1;
    }
    t
};

/// Bytes every short field may touch past the cursor (see [`window`]).
const WINDOW: usize = 64;

impl<'b> MessageEncoder<'b> {
    /// A field with raw bytes as its value (must not contain SOH unless it is a data field).
    #[inline(always)]
    pub fn str(&mut self, tag: u32, v: &[u8]) -> &mut Self {
        if v.len() > WINDOW - 16 {
            return self.long_str(tag, v);
        }
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        put_summed(w, t, v, &mut self.sum);
        w[t + v.len()] = SOH;
        self.sum.add_byte(tag_and_soh_sum(tag));
        self.pos += t + v.len() + 1;
        self
    }

    #[inline(always)]
    fn long_str(&mut self, tag: u32, v: &[u8]) -> &mut Self {
        let pos = self.pos;
        let (pos, sum) = self.out.with_vec(|buf| long_field(buf, pos, tag, v));
        self.pos = pos;
        self.sum.add_byte(sum.wrapping_add(tag_and_soh_sum(tag)));
        self
    }

    /// An unsigned integer field.
    #[inline(always)]
    pub fn uint(&mut self, tag: u32, v: u64) -> &mut Self {
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        let n = put_u64(&mut w[t..t + 20], v, &mut self.sum);
        w[t + n] = SOH;
        self.sum.add_byte(tag_and_soh_sum(tag));
        self.pos += t + n + 1;
        self
    }

    /// A signed integer field.
    #[inline]
    pub fn int(&mut self, tag: u32, v: i64) -> &mut Self {
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        let sign = (v < 0) as usize;
        w[t] = b'-';
        let n = sign
            + put_u64(
                &mut w[t + sign..t + sign + 20],
                v.unsigned_abs(),
                &mut self.sum,
            );
        w[t + n] = SOH;
        self.sum
            .add_byte(tag_and_soh_sum(tag) + sign as u32 * b'-' as u32);
        self.pos += t + n + 1;
        self
    }

    /// A fixed-point decimal field, written with exactly its scale's digits.
    #[inline(always)]
    pub fn decimal(&mut self, tag: u32, v: Decimal) -> &mut Self {
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        let n = match value::decimal_text(v) {
            Some((text, n)) => {
                w[t..t + 16].copy_from_slice(&text.to_le_bytes());
                self.sum.add_words(text as u64, (text >> 64) as u64);
                n
            }
            None => {
                let (n, s) = long_decimal(v, &mut w[t..t + 44]);
                self.sum.add_byte(s);
                n
            }
        };
        w[t + n] = SOH;
        self.sum.add_byte(tag_and_soh_sum(tag));
        self.pos += t + n + 1;
        self
    }

    /// A single-character field.
    #[inline(always)]
    pub fn char(&mut self, tag: u32, v: u8) -> &mut Self {
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        w[t] = v;
        w[t + 1] = SOH;
        self.sum.add_byte(tag_and_soh_sum(tag) + v as u32);
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
        if !self.seconds.holds(v) {
            self.seconds.set(v);
        }
        let w = self.out.window::<WINDOW>(self.pos);
        let t = put_tag(w, 0, tag);
        w[t..t + 17].copy_from_slice(&self.seconds.text);
        let (fraction, n) = value::fraction_text(v.nanos, v.picos, precision);
        w[t + 17..t + 25].copy_from_slice(&(fraction as u64).to_le_bytes());
        if n > 8 {
            // Nano- or picoseconds: '.' and nine or twelve digits.
            w[t + 25..t + 33].copy_from_slice(&((fraction >> 64) as u64).to_le_bytes());
        }
        w[t + 17 + n] = SOH;
        self.sum.add_words(fraction as u64, (fraction >> 64) as u64);
        self.sum.add_byte(tag_and_soh_sum(tag) + self.seconds.sum);
        self.pos += t + 18 + n;
        self
    }

    /// A length-prefixed data field pair: `length_tag=<len>|data_tag=<bytes>|`
    /// (`bytes` may contain SOH).
    pub fn data(&mut self, length_tag: u32, data_tag: u32, bytes: &[u8]) -> &mut Self {
        self.uint(length_tag, bytes.len() as u64);
        self.str(data_tag, bytes)
    }

    /// Pre-encoded fields (`tag=value<SOH>…`, each ending in SOH), appended
    /// as they are: a gateway that forwards a body, or a body encoded on
    /// another thread ([`fields`](Self::fields)).
    ///
    /// ```
    /// use peregrine_codec::EncodeBuffer;
    /// let mut buf = EncodeBuffer::new();
    /// let mut m = buf.start(b"FIX.4.4", b"D");
    /// m.raw(b"11=ORDER-1\x0155=PEREGRINE\x01");
    /// let msg = m.finish();
    /// assert!(msg.starts_with(b"8=FIX.4.4\x019=29\x0135=D\x0111=ORDER-1\x01"));
    /// ```
    ///
    /// # Panics
    ///
    /// If `fields` is not empty and does not end in SOH (a programming error:
    /// the next field would run into it).
    pub fn raw(&mut self, fields: &[u8]) -> &mut Self {
        assert!(
            fields.is_empty() || fields.ends_with(&[SOH]),
            "pre-encoded fields must end in SOH"
        );
        let pos = self.pos;
        let pos = self.out.with_vec(|buf| {
            let want = pos + fields.len() + WINDOW + FIELD_SLACK;
            if want > buf.len() {
                buf.resize(want.max(buf.len() * 2), 0);
            }
            buf[pos..pos + fields.len()].copy_from_slice(fields);
            pos + fields.len()
        });
        self.pos = pos;
        self.sum.add_byte(simd::byte_sum(fields));
        self
    }

    /// The fields written so far after MsgType (35): a body to send later
    /// with [`raw`](Self::raw), through another encoder.
    ///
    /// ```
    /// use peregrine_codec::EncodeBuffer;
    /// let mut buf = EncodeBuffer::new();
    /// let mut m = buf.start(b"", b"D");
    /// m.str(11, b"ORDER-1").uint(38, 100);
    /// assert_eq!(m.fields(), b"11=ORDER-1\x0138=100\x01");
    /// ```
    pub fn fields(&self) -> &[u8] {
        let written = &self.out.as_slice()[HEADER_ROOM..self.pos];
        // The body starts with `35=<MsgType><SOH>` (a MsgType has no SOH).
        let msg_type_end = written.iter().position(|&b| b == SOH).map_or(0, |i| i + 1);
        &written[msg_type_end..]
    }

    /// Bytes of body written so far (from `35=` on).
    pub fn body_len(&self) -> usize {
        self.pos - HEADER_ROOM
    }

    /// Writes BeginString, BodyLength and CheckSum and returns the message.
    ///
    /// # Panics
    /// If the body exceeds 999,999,999 bytes.
    #[inline(always)]
    pub fn finish(mut self) -> &'b [u8] {
        let body_len = self.pos - HEADER_ROOM;
        if body_len >= 100_000_000 {
            return self.finish_huge();
        }
        let (digits, nd) = value::digits_word(body_len as u32);
        self.sum.add_word(digits);
        // `9=<digits><SOH>` right-aligned against the body in one store (the
        // bytes before it are overwritten with the BeginString below).
        let nine =
            (b'9' as u128 | (b'=' as u128) << 8 | (digits as u128) << 16 | 1u128 << (8 * (2 + nd)))
                << (8 * (16 - (3 + nd)));
        let bsl = self.begin_string_len;
        let start = HEADER_ROOM - (3 + nd) - (3 + bsl);
        let head = self.out.window::<HEADER_ROOM>(0);
        head[HEADER_ROOM - 16..].copy_from_slice(&nine.to_le_bytes());
        if bsl <= 16 {
            store_short(head, start + 2, bsl, self.short_begin_string);
        } else {
            put(head, start + 2, &self.begin_string[..bsl]);
        }
        head[start] = b'8';
        head[start + 1] = b'=';
        head[start + 2 + bsl] = SOH;
        let p = self.pos;
        let trailer = TRAILERS[self.sum.total() as usize];
        self.out
            .window::<8>(p)
            .copy_from_slice(&trailer.to_le_bytes());
        self.out.into_slice(start, p + 7)
    }

    /// [`finish`](Self::finish) for bodies of 10^8 bytes or more: the
    /// header from the general formatter, the CheckSum from the bytes.
    #[cold]
    #[inline(never)]
    fn finish_huge(mut self) -> &'b [u8] {
        let body_len = self.pos - HEADER_ROOM;
        let mut digits = [0u8; 20];
        let nd = value::format_u64(body_len as u64, &mut digits);
        assert!(nd <= MAX_BODY_LENGTH_DIGITS, "message body too large");
        let bsl = self.begin_string_len;
        let header_len = 2 + bsl + 1 + 2 + nd + 1;
        let start = HEADER_ROOM - header_len;
        let buf = self.out.as_mut_slice();
        put(buf, start + 2, &self.begin_string[..bsl]);
        let h = &mut buf[start..HEADER_ROOM];
        h[0] = b'8';
        h[1] = b'=';
        h[2 + bsl] = SOH;
        h[3 + bsl] = b'9';
        h[4 + bsl] = b'=';
        h[5 + bsl..5 + bsl + nd].copy_from_slice(&digits[..nd]);
        h[5 + bsl + nd] = SOH;
        let sum = simd::byte_sum(&buf[start..self.pos]) % 256;
        let p = self.pos;
        self.out
            .window::<8>(p)
            .copy_from_slice(&TRAILERS[sum as usize].to_le_bytes());
        self.out.into_slice(start, p + 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_fields_make_the_same_message_as_the_fields_themselves() {
        let mut body = EncodeBuffer::new();
        let mut b = body.start(b"", b"8");
        b.str(11, b"ORDER-1").uint(38, 100).str(58, &[b'x'; 200]);
        let fields = b.fields().to_vec();
        let mut direct = EncodeBuffer::new();
        let mut d = direct.start(b"FIX.4.4", b"8");
        d.str(11, b"ORDER-1").uint(38, 100).str(58, &[b'x'; 200]);
        let direct = d.finish().to_vec();
        let mut via_raw = EncodeBuffer::new();
        let mut r = via_raw.start(b"FIX.4.4", b"8");
        r.raw(&fields);
        assert_eq!(r.finish(), &direct[..]);
    }

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

    /// The encoder's timestamp at every precision, picoseconds included (a value
    /// read with twelve digits is written with the same twelve), with BodyLength
    /// and CheckSum right.
    #[test]
    fn timestamps_at_every_precision_picoseconds_included() {
        let ts = value::parse_timestamp(b"20170408-00:00:00.123456789123").unwrap();
        let mut buf = EncodeBuffer::new();
        for (p, text) in [
            (TimePrecision::Seconds, "60=20170408-00:00:00"),
            (TimePrecision::Millis, "60=20170408-00:00:00.123"),
            (TimePrecision::Micros, "60=20170408-00:00:00.123456"),
            (TimePrecision::Nanos, "60=20170408-00:00:00.123456789"),
            (TimePrecision::Picos, "60=20170408-00:00:00.123456789123"),
        ] {
            let mut m = buf.start(b"FIX.4.4", b"D");
            m.timestamp(60, &ts, p).str(58, b"x");
            let msg = m.finish().to_vec();
            let fields: Vec<&[u8]> = msg.split(|&b| b == 1).collect();
            assert_eq!(fields[3], text.as_bytes(), "{p:?}");
            assert_eq!(fields[4], b"58=x", "{p:?}");
            let mut dec = crate::Decoder::new(crate::DecoderConfig::default());
            assert!(dec.decode(&msg).is_ok(), "{p:?}");
        }
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

//! Stream framing: finding complete messages in a byte stream.
//!
//! A FIX message on the wire is `8=<BeginString>|9=<BodyLength>|35=...|...|10=nnn|`
//! where BodyLength counts the bytes from the one after the SOH ending field 9
//! up to and including the SOH before `10=`. The framer checks that structure
//! (8 first, 9 second, 35 third, `10=nnn` exactly where BodyLength says) and
//! nothing else: it looks at a handful of bytes per message, never scans the body.
//!
//! ```
//! use peregrine_codec::frame::{Framer, Frame};
//! let framer = Framer::default();
//! let msg = b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01";
//! assert_eq!(framer.next_frame(msg), Frame::Message { len: msg.len() });
//! assert_eq!(framer.next_frame(&msg[..10]), Frame::Incomplete);
//! ```

use crate::SOH;
use std::fmt;

/// Default upper bound on one message's size: 1 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 1 << 20;

/// What sits at the start of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// A structurally complete message occupies `buf[..len]`.
    Message {
        /// Its length in bytes.
        len: usize,
    },
    /// The buffer holds the beginning of a message (or nothing): read more.
    Incomplete,
    /// `buf[..skip]` cannot be a message: drop it and frame again.
    Garbled {
        /// How many bytes to drop (always at least 1).
        skip: usize,
        /// Why.
        reason: GarbledReason,
    },
}

/// Why bytes were dropped by the framer. The session layer decides what to
/// do with it (QuickFIX semantics: ignore the bytes, do not count a sequence number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GarbledReason {
    /// Bytes that do not start with `8=`; skipped up to the next `8=FIX`.
    NoBeginString,
    /// BeginString is not terminated within a sane length.
    BadBeginString,
    /// The second field is not `9=`, or its value is not a number.
    BadBodyLength,
    /// The third field is not `35=`.
    MsgTypeNotThird,
    /// BodyLength does not point at `10=nnn<SOH>`. As QuickFIX does, the bytes up
    /// to the end of the next CheckSum field at or after that point are dropped.
    BodyLengthMismatch,
    /// The declared or buffered message exceeds the configured maximum size.
    TooLarge,
    /// The CheckSum field where BodyLength points is not three digits.
    MalformedChecksum,
}

impl fmt::Display for GarbledReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GarbledReason::NoBeginString => "data before BeginString(8)",
            GarbledReason::BadBeginString => "BeginString(8) not terminated",
            GarbledReason::BadBodyLength => "second field is not a valid BodyLength(9)",
            GarbledReason::MsgTypeNotThird => "third field is not MsgType(35)",
            GarbledReason::BodyLengthMismatch => "BodyLength(9) does not point at CheckSum(10)",
            GarbledReason::TooLarge => "message exceeds the maximum message size",
            GarbledReason::MalformedChecksum => "CheckSum(10) is not three digits",
        })
    }
}

/// Finds message boundaries. Cheap to copy; holds only settings.
#[derive(Clone, Copy, Debug)]
pub struct Framer {
    /// Messages (declared or buffered) longer than this are dropped as garbled,
    /// bounding memory against a hostile BodyLength.
    pub max_message_size: usize,
}

impl Default for Framer {
    fn default() -> Self {
        Framer {
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
        }
    }
}

const BEGIN_STRING_MAX: usize = 32;
const BODY_LENGTH_DIGITS_MAX: usize = 9;
const TRAILER_LEN: usize = 7; // "10=nnn\x01"

impl Framer {
    /// A framer with the given maximum message size.
    pub fn new(max_message_size: usize) -> Self {
        Framer { max_message_size }
    }

    /// Looks at the start of `buf` and says what is there.
    pub fn next_frame(&self, buf: &[u8]) -> Frame {
        if buf.is_empty() {
            return Frame::Incomplete;
        }
        if buf[0] != b'8' || (buf.len() >= 2 && buf[1] != b'=') {
            return self.resync(buf, 0, GarbledReason::NoBeginString);
        }
        // BeginString value.
        let bs_end = match find_soh(buf, 2, BEGIN_STRING_MAX) {
            Scan::Found(i) => i,
            Scan::NeedMore => return Frame::Incomplete,
            Scan::Missing => return self.resync(buf, 1, GarbledReason::BadBeginString),
        };
        // "9=" and its digits.
        let p = bs_end + 1;
        if buf.len() < p + 2 {
            return Frame::Incomplete;
        }
        if &buf[p..p + 2] != b"9=" {
            return self.resync(buf, 1, GarbledReason::BadBodyLength);
        }
        let mut q = p + 2;
        let mut body_len: usize = 0;
        loop {
            let Some(&b) = buf.get(q) else {
                return Frame::Incomplete;
            };
            if b == SOH {
                break;
            }
            let d = b.wrapping_sub(b'0');
            if d > 9 || q - (p + 2) >= BODY_LENGTH_DIGITS_MAX {
                return self.resync(buf, 1, GarbledReason::BadBodyLength);
            }
            body_len = body_len * 10 + d as usize;
            q += 1;
        }
        if q == p + 2 {
            return self.resync(buf, 1, GarbledReason::BadBodyLength);
        }
        let body_start = q + 1;
        // "35=" must open the body.
        let have = buf.len().saturating_sub(body_start).min(3);
        if buf[body_start..body_start + have] != b"35="[..have] {
            return self.resync(buf, 1, GarbledReason::MsgTypeNotThird);
        }
        let total = body_start + body_len + TRAILER_LEN;
        if total > self.max_message_size {
            return self.resync(buf, 1, GarbledReason::TooLarge);
        }
        let body_end = body_start + body_len;
        // A CheckSum field shorter than `10=nnn` where BodyLength points ends
        // the message there (as QuickFIX reads it): drop it now rather than
        // waiting for, or swallowing, bytes of the next message.
        if let Some(end) = short_checksum_end(buf, body_end) {
            return Frame::Garbled {
                skip: end,
                reason: GarbledReason::MalformedChecksum,
            };
        }
        if buf.len() < total {
            return Frame::Incomplete;
        }
        if is_checksum_field(&buf[body_end..total]) && body_len > 0 && buf[body_end - 1] == SOH {
            return Frame::Message { len: total };
        }
        // BodyLength is wrong. Drop through the next CheckSum field at or after
        // where it pointed, as QuickFIX does; that is what peers expect.
        let from = body_end.saturating_sub(1).max(body_start.saturating_sub(1));
        match find_checksum_end(buf, from) {
            Some(end) => Frame::Garbled {
                skip: end,
                reason: GarbledReason::BodyLengthMismatch,
            },
            None if buf.len() > self.max_message_size => {
                self.resync(buf, 1, GarbledReason::TooLarge)
            }
            None => Frame::Incomplete,
        }
    }

    /// Iterates over the messages and garbled runs at the start of `buf`,
    /// stopping at an incomplete tail. [`Frames::consumed`] says how many bytes
    /// were used up (the caller keeps `buf[consumed..]` for the next read).
    ///
    /// ```
    /// use peregrine_codec::frame::{Framer, FrameEvent};
    /// let two = b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01junk8=FIX.4.4\x019=5\x0135=0\x0110=163\x018=FI";
    /// let mut frames = Framer::default().frames(two);
    /// assert!(matches!(frames.next(), Some(FrameEvent::Message(_))));
    /// assert!(matches!(frames.next(), Some(FrameEvent::Garbled { .. })));
    /// assert!(matches!(frames.next(), Some(FrameEvent::Message(_))));
    /// assert!(frames.next().is_none());
    /// assert_eq!(frames.consumed(), two.len() - 4);
    /// ```
    pub fn frames<'a>(&self, buf: &'a [u8]) -> Frames<'a> {
        Frames {
            framer: *self,
            buf,
            pos: 0,
        }
    }

    fn resync(&self, buf: &[u8], from: usize, reason: GarbledReason) -> Frame {
        let skip = next_begin_string(buf, from.max(1));
        Frame::Garbled { skip, reason }
    }
}

/// One item of [`Framer::frames`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameEvent<'a> {
    /// A structurally complete message.
    Message(&'a [u8]),
    /// Dropped bytes.
    Garbled {
        /// The bytes dropped.
        bytes: &'a [u8],
        /// Why.
        reason: GarbledReason,
    },
}

/// Iterator returned by [`Framer::frames`].
#[derive(Debug)]
pub struct Frames<'a> {
    framer: Framer,
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Frames<'a> {
    /// Bytes consumed so far (messages and garbled runs).
    pub fn consumed(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = FrameEvent<'a>;

    fn next(&mut self) -> Option<FrameEvent<'a>> {
        let rest = &self.buf[self.pos..];
        match self.framer.next_frame(rest) {
            Frame::Incomplete => None,
            Frame::Message { len } => {
                self.pos += len;
                Some(FrameEvent::Message(&rest[..len]))
            }
            Frame::Garbled { skip, reason } => {
                self.pos += skip;
                Some(FrameEvent::Garbled {
                    bytes: &rest[..skip],
                    reason,
                })
            }
        }
    }
}

enum Scan {
    Found(usize),
    NeedMore,
    Missing,
}

fn find_soh(buf: &[u8], from: usize, max: usize) -> Scan {
    let end = buf.len().min(from + max);
    match buf[from.min(end)..end].iter().position(|&b| b == SOH) {
        Some(i) => Scan::Found(from + i),
        None if buf.len() < from + max => Scan::NeedMore,
        None => Scan::Missing,
    }
}

fn is_checksum_field(t: &[u8]) -> bool {
    t.len() == TRAILER_LEN
        && &t[..3] == b"10="
        && t[3..6].iter().all(u8::is_ascii_digit)
        && t[6] == SOH
}

/// End (exclusive) of a complete `10=<value><SOH>` at `body_end` whose value is
/// shorter than three characters, if that is what the buffer holds.
fn short_checksum_end(buf: &[u8], body_end: usize) -> Option<usize> {
    if body_end == 0
        || buf.get(body_end - 1) != Some(&SOH)
        || buf.get(body_end..body_end + 3)? != b"10="
    {
        return None;
    }
    let value = &buf[body_end + 3..buf.len().min(body_end + TRAILER_LEN - 1)];
    let soh = value.iter().position(|&b| b == SOH)?;
    Some(body_end + 3 + soh + 1)
}

/// End (exclusive) of the first `<SOH>10=...<SOH>` starting at or after `from`.
fn find_checksum_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 4 <= buf.len() {
        let at = buf[i..].windows(4).position(|w| w == b"\x0110=")? + i;
        if let Some(e) = buf[at + 4..].iter().position(|&b| b == SOH) {
            return Some(at + 4 + e + 1);
        }
        if at + 4 >= buf.len() {
            return None;
        }
        i = at + 1;
    }
    None
}

/// Offset of the next `8=FIX` at or after `from`, wherever it is: after a
/// stray `x8`, the `8=FIX` that follows begins the message (QuickFIX's parsers
/// look for `8=` the same way). A match inside garbage (`58=FIX…`) is harmless:
/// what follows it fails the framer's checks and is skipped in turn. When there
/// is none, everything is dropped except a tail that may be the beginning of one.
fn next_begin_string(buf: &[u8], from: usize) -> usize {
    const PAT: &[u8] = b"8=FIX";
    let mut i = from;
    while i < buf.len() {
        match buf[i..].iter().position(|&b| b == b'8') {
            None => break,
            Some(off) => {
                let at = i + off;
                let rest = &buf[at..];
                if rest.len() >= PAT.len() && &rest[..PAT.len()] == PAT {
                    return at;
                }
                if rest.len() < PAT.len() && PAT.starts_with(rest) {
                    return at; // possible beginning: keep it
                }
                i = at + 1;
            }
        }
    }
    buf.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(body: &str) -> Vec<u8> {
        let body = body.replace('|', "\x01");
        let mut m = format!("8=FIX.4.4\x019={}\x01{}", body.len(), body).into_bytes();
        let sum: u32 = m.iter().map(|&b| b as u32).sum();
        m.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
        m
    }

    #[test]
    fn complete_and_incomplete() {
        let m = msg("35=0|34=2|49=A|56=B|");
        let f = Framer::default();
        assert_eq!(f.next_frame(&m), Frame::Message { len: m.len() });
        for cut in 0..m.len() {
            assert_eq!(f.next_frame(&m[..cut]), Frame::Incomplete, "cut at {cut}");
        }
    }

    #[test]
    fn a_stray_x8_before_a_message_is_skipped_to_its_begin_string() {
        // The reliability issue: `x8` then a valid message made the message vanish
        // (the `8` of `8=FIX` followed a digit, so it was not taken as a start).
        let m = msg("35=0|34=2|49=A|56=B|");
        for junk in [
            &b"x8"[..],
            b"8",
            b"88",
            b"18",
            b"x",
            b"=",
            b"\x01",
            b"x8=FI",
        ] {
            let mut buf = junk.to_vec();
            buf.extend_from_slice(&m);
            let f = Framer::default();
            let mut frames = f.frames(&buf);
            let mut got = Vec::new();
            for e in frames.by_ref() {
                got.push(e);
            }
            assert_eq!(
                got.last(),
                Some(&FrameEvent::Message(&m[..])),
                "{:?}: {got:?}",
                String::from_utf8_lossy(junk)
            );
            assert_eq!(frames.consumed(), buf.len());
        }
    }

    #[test]
    fn leading_garbage_is_skipped_to_begin_string() {
        let mut buf = b"garbage\x01more".to_vec();
        let m = msg("35=0|");
        buf.extend_from_slice(&m);
        let f = Framer::default();
        assert_eq!(
            f.next_frame(&buf),
            Frame::Garbled {
                skip: 12,
                reason: GarbledReason::NoBeginString
            }
        );
        assert_eq!(f.next_frame(&buf[12..]), Frame::Message { len: m.len() });
    }

    #[test]
    fn begin_string_inside_garbage_is_tried_then_skipped() {
        // "8=FIX" is a candidate wherever it is (as in QuickFIX's parsers); one
        // inside garbage fails the framer's checks and is skipped in turn, so the
        // garbage goes and the message after it is found.
        let buf = b"x58=8=FIX\x0118=FIX\x01";
        assert_eq!(next_begin_string(buf, 1), 4);
        let m = msg("35=0|");
        let mut all = buf.to_vec();
        all.extend_from_slice(&m);
        let f = Framer::default();
        let mut frames = f.frames(&all);
        let events: Vec<_> = frames.by_ref().collect();
        assert!(events[..events.len() - 1]
            .iter()
            .all(|e| matches!(e, FrameEvent::Garbled { .. })));
        assert_eq!(events.last(), Some(&FrameEvent::Message(&m[..])));
        assert_eq!(frames.consumed(), all.len());
    }

    #[test]
    fn garbage_keeps_possible_prefix() {
        let buf = b"zzzz\x018=F";
        let f = Framer::default();
        assert_eq!(
            f.next_frame(buf),
            Frame::Garbled {
                skip: 5,
                reason: GarbledReason::NoBeginString
            }
        );
        assert_eq!(f.next_frame(&buf[5..]), Frame::Incomplete);
    }

    #[test]
    fn third_field_must_be_msg_type() {
        let mut m = msg("34=2|35=0|");
        m.extend_from_slice(&msg("35=0|"));
        let f = Framer::default();
        match f.next_frame(&m) {
            Frame::Garbled { skip, reason } => {
                assert_eq!(reason, GarbledReason::MsgTypeNotThird);
                assert_eq!(
                    f.next_frame(&m[skip..]),
                    Frame::Message {
                        len: m.len() - skip
                    }
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// A message whose BodyLength is 20, and the same bytes claiming `len`.
    fn claiming_body_length(len: usize) -> (Vec<u8>, Vec<u8>) {
        let good = msg("35=0|34=2|49=A|56=B|");
        let bad = String::from_utf8(good.clone())
            .unwrap()
            .replacen("9=20", &format!("9={len}"), 1);
        (good, bad.into_bytes())
    }

    #[test]
    fn short_body_length_drops_through_its_checksum() {
        // 9=10 points into the middle of the body.
        let (good, mut buf) = claiming_body_length(10);
        let bad_len = buf.len();
        buf.extend_from_slice(&good);
        let f = Framer::default();
        assert_eq!(
            f.next_frame(&buf),
            Frame::Garbled {
                skip: bad_len,
                reason: GarbledReason::BodyLengthMismatch
            }
        );
    }

    #[test]
    fn long_body_length_swallows_the_next_message() {
        let (good, mut buf) = claiming_body_length(40);
        let f = Framer::default();
        assert_eq!(f.next_frame(&buf), Frame::Incomplete);
        buf.extend_from_slice(&good);
        buf.extend_from_slice(&good);
        match f.next_frame(&buf) {
            Frame::Garbled { skip, reason } => {
                assert_eq!(reason, GarbledReason::BodyLengthMismatch);
                assert_eq!(skip, buf.len() - good.len());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn short_checksum_ends_the_message_without_waiting() {
        // Script 3c: a correct BodyLength, then "10=0": the next message must survive.
        let good = msg("35=0|34=2|49=A|56=B|");
        let text = String::from_utf8(good.clone()).unwrap();
        let cut = text.rfind("10=").unwrap();
        let bad = format!("{}10=0\x01", &text[..cut]).into_bytes();
        let f = Framer::default();
        assert_eq!(
            f.next_frame(&bad),
            Frame::Garbled {
                skip: bad.len(),
                reason: GarbledReason::MalformedChecksum
            }
        );
        let mut both = bad.clone();
        both.extend_from_slice(&good);
        assert_eq!(
            f.next_frame(&both),
            Frame::Garbled {
                skip: bad.len(),
                reason: GarbledReason::MalformedChecksum
            }
        );
        assert_eq!(
            f.next_frame(&both[bad.len()..]),
            Frame::Message { len: good.len() }
        );
        // Incomplete while the short field is not terminated.
        assert_eq!(f.next_frame(&bad[..bad.len() - 1]), Frame::Incomplete);
    }

    #[test]
    fn hostile_body_length_is_bounded() {
        let f = Framer::new(4096);
        let buf = b"8=FIX.4.4\x019=99999999\x0135=0\x01";
        assert!(matches!(
            f.next_frame(buf),
            Frame::Garbled {
                reason: GarbledReason::TooLarge,
                ..
            }
        ));
        let buf = b"8=FIX.4.4\x019=9999999999\x0135=0\x01";
        assert!(matches!(
            f.next_frame(buf),
            Frame::Garbled {
                reason: GarbledReason::BadBodyLength,
                ..
            }
        ));
    }

    #[test]
    fn non_numeric_body_length() {
        let f = Framer::default();
        for buf in [
            &b"8=FIX.4.4\x019=\x0135=0\x01"[..],
            b"8=FIX.4.4\x019=1x\x01",
            b"8=FIX.4.4\x0135=0\x01",
        ] {
            assert!(
                matches!(
                    f.next_frame(buf),
                    Frame::Garbled {
                        reason: GarbledReason::BadBodyLength,
                        ..
                    }
                ),
                "{:?}",
                String::from_utf8_lossy(buf)
            );
        }
    }
}

//! Where a FIX message ends, by its BodyLength, as the round trip's floor reads.

/// What [`frame_len`] found at the start of a buffer.
///
/// ```
/// use peregrine_bench::roundtrip::wire::{frame_len, Framed};
/// assert_eq!(frame_len(b"8=FIX.4.4\x01"), Framed::Incomplete);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framed {
    /// A whole message of this many bytes is there.
    Message(usize),
    /// More bytes are needed.
    Incomplete,
    /// The bytes do not start with `8=…|9=<digits>|`.
    Garbled,
}

/// The length of the FIX message at the start of `buf`, read from its BodyLength: the
/// header `8=…|9=N|`, N bytes of body, and the 7-byte trailer `10=nnn|`. Nothing else is
/// checked (the floor does no FIX work); at most 9 digits of BodyLength are read.
///
/// ```
/// use peregrine_bench::roundtrip::wire::{frame_len, Framed};
/// let m = b"8=FIX.4.4\x019=5\x0135=0\x0110=161\x01";
/// assert_eq!(frame_len(m), Framed::Message(m.len()));
/// assert_eq!(frame_len(&m[..m.len() - 1]), Framed::Incomplete);
/// assert_eq!(frame_len(b"9=5\x01"), Framed::Garbled);
/// ```
pub fn frame_len(buf: &[u8]) -> Framed {
    const MAX_DIGITS: usize = 9;
    if buf.len() < 2 {
        return Framed::Incomplete;
    }
    if &buf[..2] != b"8=" {
        return Framed::Garbled;
    }
    let Some(soh) = buf.iter().position(|&b| b == 1) else {
        return Framed::Incomplete;
    };
    let rest = &buf[soh + 1..];
    if rest.len() < 2 {
        return Framed::Incomplete;
    }
    if &rest[..2] != b"9=" {
        return Framed::Garbled;
    }
    let mut body_len = 0usize;
    for (i, &b) in rest[2..].iter().enumerate() {
        match b {
            b'0'..=b'9' if i < MAX_DIGITS => body_len = body_len * 10 + usize::from(b - b'0'),
            1 if i > 0 => {
                let total = soh + 1 + 2 + i + 1 + body_len + 7;
                return if buf.len() >= total {
                    Framed::Message(total)
                } else {
                    Framed::Incomplete
                };
            }
            _ => return Framed::Garbled,
        }
    }
    Framed::Incomplete
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_real_messages_and_refuses_garbage() {
        let nos = crate::roundtrip::floor::canned_messages().0;
        assert_eq!(frame_len(&nos), Framed::Message(nos.len()));
        let mut two = nos.clone();
        two.extend_from_slice(&nos);
        assert_eq!(frame_len(&two), Framed::Message(nos.len()));
        for cut in 0..nos.len() {
            assert_eq!(frame_len(&nos[..cut]), Framed::Incomplete, "cut at {cut}");
        }
        assert_eq!(frame_len(b"8=FIX.4.4\x019=x\x01"), Framed::Garbled);
        assert_eq!(frame_len(b"8=FIX.4.4\x019=\x01"), Framed::Garbled);
        assert_eq!(frame_len(b"8=FIX.4.4\x0135=0\x01"), Framed::Garbled);
        assert_eq!(frame_len(b"8=FIX.4.4\x019=1234567890\x01"), Framed::Garbled);
        assert_eq!(frame_len(b"X=FIX"), Framed::Garbled);
    }
}

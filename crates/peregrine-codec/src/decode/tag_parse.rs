//! Tag parsing for the walks (branch-free word loads, the scalar
//! definition they agree with) and the errors of malformed fields.

use super::DecodeError;
use crate::value;
use crate::SOH;

/// Parses a tag of 1..=8 digits from the 8 bytes starting at it (little-endian
/// load), branch-free. `None` unless all `n` bytes are digits without a leading zero.
#[inline(always)]
fn parse_tag_swar(chunk: u64, n: usize) -> Option<u32> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    let shift = 64 - 8 * n as u32;
    // Move the digits to the top bytes; the low bytes become zero ("leading zeros").
    let x = chunk << shift;
    let zeros = ZEROS << shift;
    let nibbles = HIGH_NIBBLES << shift;
    let digits_ok = (x & nibbles) == zeros && (x.wrapping_add(SIXES << shift) & nibbles) == zeros;
    if !digits_ok || chunk as u8 == b'0' {
        return None;
    }
    let mut v = x - zeros;
    v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    v = (v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32;
    Some(v as u32)
}

/// The scalar definition: 1..=9 digits, no leading zero.
fn parse_tag_scalar(t: &[u8]) -> Option<u32> {
    if t.first() == Some(&b'0') {
        return None;
    }
    parse_digits(t).map(|n| n as u32)
}

/// A number of 1 to 9 ASCII digits (leading zeros allowed): at most 999,999,999, so no
/// overflow check per digit.
#[inline]
pub(super) fn parse_digits(v: &[u8]) -> Option<usize> {
    if v.is_empty() || v.len() > 9 {
        return None;
    }
    let mut n = 0usize;
    for &b in v {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + d as usize;
    }
    Some(n)
}

/// Parses every tag (up to nine digits) when some are longer than the four
/// digits [`simd::tag_values`] handles.
#[cold]
pub(super) fn long_tags(msg: &[u8], ends: &[u32], eqs: &[u32], tags: &mut [u32]) -> Option<()> {
    let mut start = 0usize;
    for ((t, &end), &eq) in tags.iter_mut().zip(ends).zip(eqs) {
        *t = parse_tag_scalar(msg.get(start..eq as usize)?)?;
        start = end as usize + 1;
    }
    Some(())
}

/// Index of the first `=` byte in a little-endian 4-byte word.
#[inline(always)]
pub(super) fn first_equals_u32(word: u32) -> Option<usize> {
    let x = word ^ 0x3D3D_3D3D;
    let found = x.wrapping_sub(0x0101_0101) & !x & 0x8080_8080;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// Parses a tag of 1..=3 digits from the 4 bytes starting at it (little-endian
/// load), branch-free. `None` unless all `n` bytes are digits without a leading zero.
#[inline(always)]
pub(super) fn parse_tag_u32(word: u32, n: usize) -> Option<u32> {
    let shift = 32 - 8 * n as u32;
    // Digits to the top bytes; the low bytes become zero ("leading zeros").
    let x = word << shift;
    let zeros = 0x3030_3030u32 << shift;
    let nibbles = 0xF0F0_F0F0u32 << shift;
    let digits_ok =
        (x & nibbles) == zeros && (x.wrapping_add(0x0606_0606u32 << shift) & nibbles) == zeros;
    if !digits_ok || word as u8 == b'0' {
        return None;
    }
    let d = x - zeros;
    // Bytes b0..b3 (b0 most significant): pairs, then the two pairs.
    let pairs = (d.wrapping_mul(10).wrapping_add(d >> 8)) & 0x00FF_00FF;
    Some((pairs & 0xFF) * 100 + (pairs >> 16))
}

/// Tags of 4 to 7 digits through one 8-byte load; longer ones through the slow path.
#[inline(never)]
pub(super) fn long_tag(msg: &[u8], pos: usize) -> Result<(Option<u32>, usize), DecodeError> {
    if let Some(b) = msg.get(pos..pos + 8) {
        let chunk = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        if let Some(tag_len) = first_equals(chunk).filter(|&l| l > 0) {
            return Ok((parse_tag_swar(chunk, tag_len), pos + tag_len));
        }
    }
    slow_tag(msg, pos)
}

/// Index of the first `=` byte in a little-endian 8-byte chunk.
#[inline(always)]
fn first_equals(chunk: u64) -> Option<usize> {
    const EQ: u64 = 0x3D3D_3D3D_3D3D_3D3D;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = chunk ^ EQ;
    // Sets the high bit of the first zero byte exactly (later bytes may be false positives).
    let found = x.wrapping_sub(ONES) & !x & HIGHS;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// The tag of the field at `pos` and the position of its `=`, for fields the
/// fast path cannot take (long tags, the last bytes of the message).
#[cold]
pub(super) fn slow_tag(msg: &[u8], pos: usize) -> Result<(Option<u32>, usize), DecodeError> {
    let rest = &msg[pos..];
    match rest.iter().position(|&b| b == b'=' || b == SOH) {
        Some(i) if rest[i] == b'=' => Ok((parse_tag_scalar(&rest[..i]), pos + i)),
        Some(_) => Err(DecodeError::MissingEquals { offset: pos }),
        None => Err(missing_equals_or_unterminated(msg, pos)),
    }
}

/// End of a data field's value, if exactly `len` bytes are followed by SOH.
#[cold]
pub(super) fn data_value_end(msg: &[u8], value_start: usize, len: usize) -> Option<usize> {
    let e = value_start.checked_add(len)?;
    (e < msg.len() && msg[e] == SOH).then_some(e)
}

/// A data-length field's value as a length (`None` unless a number that fits).
#[cold]
pub(super) fn data_length(v: &[u8]) -> Option<usize> {
    value::parse_u64(v)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
}

/// The error for a field whose tag bytes `msg[pos..eq]` did not parse.
#[cold]
pub(super) fn tag_error(msg: &[u8], pos: usize, eq: usize) -> DecodeError {
    if msg[pos..eq].contains(&SOH) {
        DecodeError::MissingEquals { offset: pos }
    } else {
        DecodeError::InvalidTag { offset: pos }
    }
}

/// The error for a field at `pos` with no `=` after it.
#[cold]
pub(super) fn missing_equals_or_unterminated(msg: &[u8], pos: usize) -> DecodeError {
    if msg[pos..].contains(&SOH) {
        DecodeError::MissingEquals { offset: pos }
    } else {
        DecodeError::Unterminated { offset: pos }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn swar_tag_parse_agrees_with_scalar(bytes in proptest::collection::vec(
            prop_oneof![b'0'..=b'9', Just(b'='), Just(b'/'), Just(b':'), any::<u8>()], 8..9), n in 1usize..=8) {
            let chunk = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            prop_assert_eq!(parse_tag_swar(chunk, n), parse_tag_scalar(&bytes[..n]));
        }

        #[test]
        fn u32_tag_parse_agrees_with_scalar(bytes in proptest::collection::vec(
            prop_oneof![b'0'..=b'9', Just(b'='), Just(b'/'), Just(b':'), any::<u8>()], 4..5), n in 1usize..=3) {
            let word = u32::from_le_bytes(bytes[..4].try_into().unwrap());
            prop_assert_eq!(parse_tag_u32(word, n), parse_tag_scalar(&bytes[..n]));
        }

        #[test]
        fn swar_parses_every_tag(tag in 1u32..100_000_000) {
            let mut b = tag.to_string().into_bytes();
            let n = b.len();
            b.resize(8, b'=');
            let chunk = u64::from_le_bytes(b[..8].try_into().unwrap());
            prop_assert_eq!(parse_tag_swar(chunk, n), Some(tag));
        }
    }
}

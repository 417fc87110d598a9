//! The benchmark's order: written by the producers, read back by the counterparty.

use peregrine_codec::value::parse_u64;
use peregrine_codec::MessageEncoder;

/// Writes the benchmark's NewOrderSingle body: ClOrdID(11) = `index`, 5001 = `producer`
/// (a user-defined tag), and fixed order fields.
///
/// ```
/// let mut buf = peregrine_codec::EncodeBuffer::new();
/// let mut m = buf.start(b"", b"D");
/// peregrine_bench::send::order(&mut m, 2, 17);
/// assert!(m.fields().starts_with(b"11=17\x015001=2\x0155=PEREGRINE\x01"));
/// ```
pub fn order(m: &mut MessageEncoder<'_>, producer: usize, index: u64) {
    m.uint(11, index)
        .uint(5001, producer as u64)
        .str(55, b"PEREGRINE")
        .char(54, b'1')
        .uint(38, 100)
        .char(40, b'2')
        .str(44, b"150.25")
        .char(59, b'0')
        .str(60, b"20260101-00:00:00.000");
}

/// The value of `tag` (its digits, e.g. `b"35"`) in a whole message, if present.
///
/// ```
/// let m = b"8=FIX.4.4\x019=12\x0135=D\x0111=7\x0110=000\x01";
/// assert_eq!(peregrine_bench::send::field(m, b"11"), Some(&b"7"[..]));
/// assert_eq!(peregrine_bench::send::field(m, b"1"), None);
/// ```
pub fn field<'a>(msg: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    let mut rest = msg;
    loop {
        let end = rest.iter().position(|&b| b == 1)?;
        let f = &rest[..end];
        if f.len() > tag.len() && f.starts_with(tag) && f[tag.len()] == b'=' {
            return Some(&f[tag.len() + 1..]);
        }
        rest = &rest[end + 1..];
    }
}

/// The producer and index of one of the benchmark's orders.
pub(super) fn order_id(msg: &[u8]) -> Option<(usize, u64)> {
    let index = parse_u64(field(msg, b"11")?).ok()?;
    let producer = parse_u64(field(msg, b"5001")?).ok()? as usize;
    Some((producer, index))
}

//! Fixed-length ASCII fields (ClOrdID, Symbol, Account): NUL padding on and off.

/// Length of a ClOrdID / OrigClOrdID field.
pub const CL_ORD_ID_LEN: usize = 32;
/// Length of a Symbol field.
pub const SYMBOL_LEN: usize = 16;
/// Length of an Account field.
pub const ACCOUNT_LEN: usize = 16;

/// A ClOrdID: ASCII, NUL-padded to [`CL_ORD_ID_LEN`] bytes.
pub type ClOrdId = [u8; CL_ORD_ID_LEN];
/// A Symbol: ASCII, NUL-padded to [`SYMBOL_LEN`] bytes.
pub type Symbol = [u8; SYMBOL_LEN];
/// An Account: ASCII, NUL-padded to [`ACCOUNT_LEN`] bytes.
pub type Account = [u8; ACCOUNT_LEN];

/// Pad `value` with NULs to a fixed-length field; `None` if it does not fit. A value that
/// itself contains NUL would not survive [`unpack`], so it is refused too.
///
/// ```
/// use peregrine_aeron::messages::{pack, unpack, Symbol};
///
/// let symbol: Symbol = pack(b"MSFT").unwrap();
/// assert_eq!(&symbol[..5], b"MSFT\0");
/// assert_eq!(unpack(&symbol), b"MSFT");
/// assert_eq!(pack::<4>(b"TOO-LONG"), None);
/// assert_eq!(pack::<8>(b"A\0B"), None);
/// ```
#[inline]
pub fn pack<const N: usize>(value: &[u8]) -> Option<[u8; N]> {
    if value.len() > N || value.contains(&0) {
        return None;
    }
    let mut out = [0u8; N];
    out[..value.len()].copy_from_slice(value);
    Some(out)
}

/// The text of a NUL-padded fixed-length field (everything before the first NUL).
///
/// ```
/// use peregrine_aeron::messages::unpack;
///
/// assert_eq!(unpack(b"ORD-1\0\0\0"), b"ORD-1");
/// assert_eq!(unpack(b"FULL"), b"FULL"); // no padding: the whole field
/// assert_eq!(unpack(&[0u8; 16]), b""); // an absent Account
/// ```
#[inline]
pub fn unpack(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

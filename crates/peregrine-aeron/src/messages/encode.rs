//! The [`Encode`] and [`SbeMessage`] traits, and `Encode` for bytes already encoded.

use super::wire::check_room;
use super::EncodeError;

/// Something that encodes into any buffer of at least
/// [`encoded_len`](Encode::encoded_len) bytes: every message, and [`Message`](super::Message).
///
/// [`Publisher::publish`](crate::Publisher::publish) takes any `Encode`: it asks for the
/// length first, claims that much of the term buffer, and encodes into the claim.
/// Already-encoded bytes (`[u8]`) are `Encode` too, copied as they are.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let cancel = OrderCancelRequest {
///     session_id: 7,
///     order_id: 0,
///     transact_time: 1_700_000_000_000_000_000,
///     order_qty: Decimal64::NULL,
///     cl_ord_id: pack(b"ORD-2").unwrap(),
///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     side: Side::Buy,
/// };
/// let mut buf = vec![0u8; cancel.encoded_len()];
/// assert_eq!(cancel.encode(&mut buf)?, buf.len());
///
/// // One byte short is an error, not a panic.
/// let mut short = vec![0u8; cancel.encoded_len() - 1];
/// assert!(matches!(cancel.encode(&mut short), Err(EncodeError::BufferTooSmall { .. })));
///
/// // Relaying bytes that are already encoded.
/// let mut copy = vec![0u8; buf.len()];
/// assert_eq!(buf[..].encode(&mut copy)?, buf.len());
/// assert_eq!(copy, buf);
/// # Ok::<(), EncodeError>(())
/// ```
pub trait Encode {
    /// The exact length [`encode`](Encode::encode) writes, header included.
    fn encoded_len(&self) -> usize;

    /// Write header and body at the start of `buf`; returns the length written
    /// (exactly [`encoded_len`](Encode::encoded_len) for the messages of this crate).
    ///
    /// # Errors
    ///
    /// [`EncodeError::BufferTooSmall`] when `buf` is shorter than `encoded_len()`;
    /// [`EncodeError::TextTooLong`] when a text field is too long for its length prefix.
    /// Nothing is written in either case.
    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError>;
}

/// Bytes that are already encoded (a message built elsewhere, a relayed frame).
impl Encode for [u8] {
    #[inline]
    fn encoded_len(&self) -> usize {
        self.len()
    }

    #[inline]
    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        check_room(buf, self.len())?;
        buf[..self.len()].copy_from_slice(self);
        Ok(self.len())
    }
}

/// One message type of the schema.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// // Each message has its own template id, the one the header carries.
/// assert_ne!(NewOrder::TEMPLATE_ID, ExecutionReport::TEMPLATE_ID);
/// ```
pub trait SbeMessage: Encode {
    /// The schema template id (`id` of the `sbe:message` in `orders.xml`).
    const TEMPLATE_ID: u16;
}

//! [`Message`], any message of the schema: decode by template id, encode whichever it is.

use super::wire::peek_header;
use super::{
    DecodeError, Encode, EncodeError, ExecutionReport, NewOrder, OrderCancelReject,
    OrderCancelReplaceRequest, OrderCancelRequest, SbeMessage,
};

/// Any message of the schema, as decoded by [`Message::decode`].
///
/// What a subscriber uses when one stream carries several message types: decode, then
/// match. `Message` is [`Encode`] too, so a decoded message can be published again.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let order = NewOrder {
///     session_id: 7,
///     transact_time: 1_700_000_000_000_000_000,
///     price: Decimal64::new(15025, -2),
///     order_qty: Decimal64::new(100, 0),
///     cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     account: [0; ACCOUNT_LEN],
///     side: Side::Buy,
///     ord_type: OrdType::Limit,
///     time_in_force: TimeInForce::Day,
/// };
/// let mut buf = [0u8; 128];
/// let len = Message::NewOrder(order).encode(&mut buf)?;
///
/// assert_eq!(Message::template_id(&buf[..len])?, NewOrder::TEMPLATE_ID);
/// match Message::decode(&buf[..len])? {
///     Message::NewOrder(o) => assert_eq!(o.cl_ord_id, order.cl_ord_id),
///     Message::OrderCancelRequest(_) | Message::OrderCancelReplaceRequest(_) => {}
///     Message::ExecutionReport(_) | Message::OrderCancelReject(_) => {}
/// }
///
/// // Anything else is a DecodeError: here, the header of some other schema.
/// buf[4] ^= 0xff;
/// assert!(matches!(Message::decode(&buf[..len]), Err(DecodeError::WrongSchema { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message<'a> {
    /// [`NewOrder`].
    NewOrder(NewOrder),
    /// [`OrderCancelRequest`].
    OrderCancelRequest(OrderCancelRequest),
    /// [`OrderCancelReplaceRequest`].
    OrderCancelReplaceRequest(OrderCancelReplaceRequest),
    /// [`ExecutionReport`].
    ExecutionReport(ExecutionReport<'a>),
    /// [`OrderCancelReject`].
    OrderCancelReject(OrderCancelReject<'a>),
}

impl<'a> Message<'a> {
    /// The template id in the header of `buf`, after checking the schema id.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] when `buf` is shorter than the header;
    /// [`DecodeError::WrongSchema`] when the header's schema id is not [`SCHEMA_ID`](super::SCHEMA_ID).
    pub fn template_id(buf: &[u8]) -> Result<u16, DecodeError> {
        peek_header(buf).map(|(tid, _)| tid)
    }

    /// Decode whichever message `buf` holds.
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole message of this schema: too short,
    /// another schema, an unknown template, or a body its own `decode` refuses.
    pub fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        match Self::template_id(buf)? {
            NewOrder::TEMPLATE_ID => NewOrder::decode(buf).map(Message::NewOrder),
            OrderCancelRequest::TEMPLATE_ID => {
                OrderCancelRequest::decode(buf).map(Message::OrderCancelRequest)
            }
            OrderCancelReplaceRequest::TEMPLATE_ID => {
                OrderCancelReplaceRequest::decode(buf).map(Message::OrderCancelReplaceRequest)
            }
            ExecutionReport::TEMPLATE_ID => {
                ExecutionReport::decode(buf).map(Message::ExecutionReport)
            }
            OrderCancelReject::TEMPLATE_ID => {
                OrderCancelReject::decode(buf).map(Message::OrderCancelReject)
            }
            template_id => Err(DecodeError::UnknownTemplate { template_id }),
        }
    }
}

impl Encode for Message<'_> {
    fn encoded_len(&self) -> usize {
        match self {
            Message::NewOrder(m) => m.encoded_len(),
            Message::OrderCancelRequest(m) => m.encoded_len(),
            Message::OrderCancelReplaceRequest(m) => m.encoded_len(),
            Message::ExecutionReport(m) => m.encoded_len(),
            Message::OrderCancelReject(m) => m.encoded_len(),
        }
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        match self {
            Message::NewOrder(m) => m.encode(buf),
            Message::OrderCancelRequest(m) => m.encode(buf),
            Message::OrderCancelReplaceRequest(m) => m.encode(buf),
            Message::ExecutionReport(m) => m.encode(buf),
            Message::OrderCancelReject(m) => m.encode(buf),
        }
    }
}

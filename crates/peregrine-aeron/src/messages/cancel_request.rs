//! The OrderCancelRequest message (35=F).

use super::wire::sbe_message;
use super::{ClOrdId, Decimal64, Side, Symbol};

/// A cancel request (FIX OrderCancelRequest, 35=F), gateway to executor.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let cancel = OrderCancelRequest {
///     session_id: 7,
///     order_id: 0, // the client did not send OrderID
///     transact_time: 1_700_000_000_000_000_000,
///     order_qty: Decimal64::new(100, 0),
///     cl_ord_id: pack(b"ORD-2").unwrap(),
///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     side: Side::Buy,
/// };
/// let mut buf = [0u8; 128];
/// let len = cancel.encode(&mut buf)?;
/// let back = OrderCancelRequest::decode(&buf[..len])?;
/// assert_eq!(back, cancel);
/// assert_eq!(unpack(&back.orig_cl_ord_id), b"ORD-1");
///
/// // The bytes of another message are refused, not misread.
/// let err = NewOrder::decode(&buf[..len]).unwrap_err();
/// assert!(matches!(err, DecodeError::UnknownTemplate { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderCancelRequest {
    /// The gateway's id of the originating FIX session.
    pub session_id: u64,
    /// OrderID (37) if the client sent it, else 0.
    pub order_id: u64,
    /// TransactTime (60), ns since the epoch.
    pub transact_time: u64,
    /// OrderQty (38), or [`Decimal64::NULL`].
    pub order_qty: Decimal64,
    /// ClOrdID (11) of this request.
    pub cl_ord_id: ClOrdId,
    /// OrigClOrdID (41): the order to cancel.
    pub orig_cl_ord_id: ClOrdId,
    /// Symbol (55).
    pub symbol: Symbol,
    /// Side (54).
    pub side: Side,
}

sbe_message! {
    OrderCancelRequest, "an OrderCancelRequest",
    order_cancel_request_codec::{OrderCancelRequestEncoder, OrderCancelRequestDecoder},
    u64 { session_id, order_id, transact_time },
    decimal { order_qty: order_qty_encoder / order_qty_decoder },
    array { cl_ord_id, orig_cl_ord_id, symbol },
    required { side: Side "side" },
    optional {},
    text {},
}

//! The OrderCancelReplaceRequest message (35=G).

use super::wire::sbe_message;
use super::{Account, ClOrdId, Decimal64, OrdType, Side, Symbol, TimeInForce};

/// A cancel/replace request (FIX OrderCancelReplaceRequest, 35=G), gateway to executor.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let replace = OrderCancelReplaceRequest {
///     session_id: 7,
///     order_id: 1_000_001,
///     transact_time: 1_700_000_000_000_000_000,
///     price: Decimal64::new(15010, -2), // the new price, 150.10
///     order_qty: Decimal64::new(200, 0), // and the new quantity
///     cl_ord_id: pack(b"ORD-3").unwrap(),
///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     account: [0; ACCOUNT_LEN],
///     side: Side::Buy,
///     ord_type: OrdType::Limit,
///     time_in_force: TimeInForce::GoodTillCancel,
/// };
/// let mut buf = [0u8; 256];
/// let len = replace.encode(&mut buf)?;
/// assert_eq!(OrderCancelReplaceRequest::decode(&buf[..len])?, replace);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderCancelReplaceRequest {
    /// The gateway's id of the originating FIX session.
    pub session_id: u64,
    /// OrderID (37) if the client sent it, else 0.
    pub order_id: u64,
    /// TransactTime (60), ns since the epoch.
    pub transact_time: u64,
    /// New Price (44); [`Decimal64::NULL`] for market orders.
    pub price: Decimal64,
    /// New OrderQty (38).
    pub order_qty: Decimal64,
    /// ClOrdID (11) of this request.
    pub cl_ord_id: ClOrdId,
    /// OrigClOrdID (41): the order to replace.
    pub orig_cl_ord_id: ClOrdId,
    /// Symbol (55).
    pub symbol: Symbol,
    /// Account (1); all NUL when absent.
    pub account: Account,
    /// Side (54).
    pub side: Side,
    /// OrdType (40).
    pub ord_type: OrdType,
    /// TimeInForce (59).
    pub time_in_force: TimeInForce,
}

sbe_message! {
    OrderCancelReplaceRequest, "an OrderCancelReplaceRequest",
    order_cancel_replace_request_codec::{
        OrderCancelReplaceRequestEncoder,
        OrderCancelReplaceRequestDecoder
    },
    u64 { session_id, order_id, transact_time },
    decimal { price: price_encoder / price_decoder, order_qty: order_qty_encoder / order_qty_decoder },
    array { cl_ord_id, orig_cl_ord_id, symbol, account },
    required { side: Side "side", ord_type: OrdType "ordType", time_in_force: TimeInForce "timeInForce" },
    optional {},
    text {},
}

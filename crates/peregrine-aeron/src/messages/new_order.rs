//! The NewOrder message (FIX NewOrderSingle, 35=D).

use super::wire::sbe_message;
use super::{Account, ClOrdId, Decimal64, OrdType, Side, Symbol, TimeInForce};

/// A new order (FIX NewOrderSingle, 35=D), gateway to executor.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let order = NewOrder {
///     session_id: 7,
///     transact_time: 1_700_000_000_000_000_000,
///     price: Decimal64::NULL, // a market order has no price
///     order_qty: Decimal64::new(250, 0),
///     cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     account: pack(b"ACC-9").unwrap(),
///     side: Side::Sell,
///     ord_type: OrdType::Market,
///     time_in_force: TimeInForce::ImmediateOrCancel,
/// };
/// let mut buf = [0u8; 128];
/// let len = order.encode(&mut buf)?;
/// let back = NewOrder::decode(&buf[..len])?;
/// assert_eq!(back, order);
/// assert!(back.price.is_null());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewOrder {
    /// The gateway's id of the FIX session the order came from.
    pub session_id: u64,
    /// TransactTime (60), ns since the epoch.
    pub transact_time: u64,
    /// Price (44); [`Decimal64::NULL`] for market orders.
    pub price: Decimal64,
    /// OrderQty (38).
    pub order_qty: Decimal64,
    /// ClOrdID (11).
    pub cl_ord_id: ClOrdId,
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
    NewOrder, "a NewOrder",
    new_order_codec::{NewOrderEncoder, NewOrderDecoder},
    u64 { session_id, transact_time },
    decimal { price: price_encoder / price_decoder, order_qty: order_qty_encoder / order_qty_decoder },
    array { cl_ord_id, symbol, account },
    required { side: Side "side", ord_type: OrdType "ordType", time_in_force: TimeInForce "timeInForce" },
    optional {},
    text {},
}

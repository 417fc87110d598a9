//! The OrderCancelReject message (35=9).

use super::wire::sbe_message;
use super::{ClOrdId, CxlRejReason, CxlRejResponseTo, OrdStatus};

/// A refused cancel or replace (FIX OrderCancelReject, 35=9), executor to gateway.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let refused = OrderCancelReject {
///     session_id: 7,
///     order_id: 0, // the executor does not know the order
///     transact_time: 1_700_000_000_000_000_002,
///     cl_ord_id: pack(b"ORD-2").unwrap(),
///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
///     ord_status: OrdStatus::Rejected,
///     cxl_rej_response_to: CxlRejResponseTo::OrderCancelRequest,
///     cxl_rej_reason: CxlRejReason::UnknownOrder,
///     text: "",
/// };
/// let mut buf = [0u8; 128];
/// let len = refused.encode(&mut buf)?;
/// let back = OrderCancelReject::decode(&buf[..len])?;
/// assert_eq!(back, refused);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderCancelReject<'a> {
    /// The gateway's id of the FIX session to report to.
    pub session_id: u64,
    /// OrderID (37), or 0 when the order is unknown.
    pub order_id: u64,
    /// TransactTime (60), ns since the epoch.
    pub transact_time: u64,
    /// ClOrdID (11) of the refused request.
    pub cl_ord_id: ClOrdId,
    /// OrigClOrdID (41) of the refused request.
    pub orig_cl_ord_id: ClOrdId,
    /// OrdStatus (39) of the order after the refusal.
    pub ord_status: OrdStatus,
    /// CxlRejResponseTo (434).
    pub cxl_rej_response_to: CxlRejResponseTo,
    /// CxlRejReason (102).
    pub cxl_rej_reason: CxlRejReason,
    /// Text (58); empty when absent.
    pub text: &'a str,
}

sbe_message! {
    OrderCancelReject<'a>, "an OrderCancelReject",
    order_cancel_reject_codec::{OrderCancelRejectEncoder, OrderCancelRejectDecoder},
    u64 { session_id, order_id, transact_time },
    decimal {},
    array { cl_ord_id, orig_cl_ord_id },
    required {
        ord_status: OrdStatus "ordStatus",
        cxl_rej_response_to: CxlRejResponseTo "cxlRejResponseTo",
        cxl_rej_reason: CxlRejReason "cxlRejReason",
    },
    optional {},
    text { text },
}

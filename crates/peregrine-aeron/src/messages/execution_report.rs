//! The ExecutionReport message (35=8), which is also the order reject.

use super::wire::sbe_message;
use super::{
    ClOrdId, Decimal64, ExecType, NewOrder, OrdRejReason, OrdStatus, Side, Symbol, CL_ORD_ID_LEN,
};

/// An execution report (FIX ExecutionReport, 35=8), executor to gateway. An order the
/// executor refuses is reported with [`ExecType::Rejected`], [`OrdStatus::Rejected`] and an
/// [`OrdRejReason`]; otherwise `ord_rej_reason` is [`OrdRejReason::NullVal`].
///
/// `text` borrows: a decoded report points into the buffer it was decoded from, so
/// decoding copies nothing.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// // The executor refuses an order for a symbol it does not know.
/// let reject = ExecutionReport {
///     session_id: 7,
///     order_id: 0,
///     exec_id: 42,
///     transact_time: 1_700_000_000_000_000_001,
///     price: Decimal64::new(15025, -2),
///     order_qty: Decimal64::new(100, 0),
///     last_qty: Decimal64::ZERO,
///     last_px: Decimal64::ZERO,
///     leaves_qty: Decimal64::ZERO,
///     cum_qty: Decimal64::ZERO,
///     avg_px: Decimal64::ZERO,
///     cl_ord_id: pack(b"ORD-1").unwrap(),
///     orig_cl_ord_id: [0; CL_ORD_ID_LEN],
///     symbol: pack(b"XXXX").unwrap(),
///     side: Side::Buy,
///     exec_type: ExecType::Rejected,
///     ord_status: OrdStatus::Rejected,
///     ord_rej_reason: OrdRejReason::UnknownSymbol,
///     text: "unknown symbol XXXX",
/// };
/// let mut buf = vec![0u8; reject.encoded_len()];
/// reject.encode(&mut buf)?;
/// let back = ExecutionReport::decode(&buf)?;
/// assert_eq!(back, reject);
/// assert_eq!(back.text, "unknown symbol XXXX");
///
/// // A buffer cut inside the text is reported, not read past its end.
/// let err = ExecutionReport::decode(&buf[..buf.len() - 1]).unwrap_err();
/// assert!(matches!(err, DecodeError::Truncated { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecutionReport<'a> {
    /// The gateway's id of the FIX session to report to.
    pub session_id: u64,
    /// OrderID (37), assigned by the executor.
    pub order_id: u64,
    /// ExecID (17), assigned by the executor.
    pub exec_id: u64,
    /// TransactTime (60), ns since the epoch.
    pub transact_time: u64,
    /// Price (44) of the order, or [`Decimal64::NULL`].
    pub price: Decimal64,
    /// OrderQty (38).
    pub order_qty: Decimal64,
    /// LastQty (32) of this fill (zero when not a fill).
    pub last_qty: Decimal64,
    /// LastPx (31) of this fill (zero when not a fill).
    pub last_px: Decimal64,
    /// LeavesQty (151).
    pub leaves_qty: Decimal64,
    /// CumQty (14).
    pub cum_qty: Decimal64,
    /// AvgPx (6).
    pub avg_px: Decimal64,
    /// ClOrdID (11).
    pub cl_ord_id: ClOrdId,
    /// OrigClOrdID (41), on cancel and replace reports; all NUL otherwise.
    pub orig_cl_ord_id: ClOrdId,
    /// Symbol (55).
    pub symbol: Symbol,
    /// Side (54).
    pub side: Side,
    /// ExecType (150).
    pub exec_type: ExecType,
    /// OrdStatus (39).
    pub ord_status: OrdStatus,
    /// OrdRejReason (103) on rejects, [`OrdRejReason::NullVal`] otherwise.
    pub ord_rej_reason: OrdRejReason,
    /// Text (58); empty when absent.
    pub text: &'a str,
}

impl ExecutionReport<'static> {
    /// The report of `order` filled whole in one execution at its own price, stamped
    /// with the order's TransactTime: what a toy executor answers (the ping_pong example,
    /// the transport tests).
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
    /// let report = ExecutionReport::full_fill(&order, 1_000_001, 42);
    /// assert_eq!((report.order_id, report.exec_id), (1_000_001, 42));
    /// assert_eq!((report.exec_type, report.ord_status), (ExecType::Trade, OrdStatus::Filled));
    /// assert_eq!((report.last_qty, report.cum_qty), (order.order_qty, order.order_qty));
    /// assert_eq!((report.last_px, report.avg_px), (order.price, order.price));
    /// assert_eq!(report.leaves_qty, Decimal64::ZERO);
    /// ```
    #[inline]
    pub fn full_fill(order: &NewOrder, order_id: u64, exec_id: u64) -> Self {
        ExecutionReport {
            session_id: order.session_id,
            order_id,
            exec_id,
            transact_time: order.transact_time,
            price: order.price,
            order_qty: order.order_qty,
            last_qty: order.order_qty,
            last_px: order.price,
            leaves_qty: Decimal64::ZERO,
            cum_qty: order.order_qty,
            avg_px: order.price,
            cl_ord_id: order.cl_ord_id,
            orig_cl_ord_id: [0; CL_ORD_ID_LEN],
            symbol: order.symbol,
            side: order.side,
            exec_type: ExecType::Trade,
            ord_status: OrdStatus::Filled,
            ord_rej_reason: OrdRejReason::NullVal,
            text: "",
        }
    }
}

sbe_message! {
    ExecutionReport<'a>, "an ExecutionReport",
    execution_report_codec::{ExecutionReportEncoder, ExecutionReportDecoder},
    u64 { session_id, order_id, exec_id, transact_time },
    decimal {
        price: price_encoder / price_decoder,
        order_qty: order_qty_encoder / order_qty_decoder,
        last_qty: last_qty_encoder / last_qty_decoder,
        last_px: last_px_encoder / last_px_decoder,
        leaves_qty: leaves_qty_encoder / leaves_qty_decoder,
        cum_qty: cum_qty_encoder / cum_qty_decoder,
        avg_px: avg_px_encoder / avg_px_decoder,
    },
    array { cl_ord_id, orig_cl_ord_id, symbol },
    required { side: Side "side", exec_type: ExecType "execType", ord_status: OrdStatus "ordStatus" },
    // Optional in practice: NullVal when the report is not a reject.
    optional { ord_rej_reason },
    text { text },
}

//! The benchmark order and its report, shared by every experiment whose Peregrine side
//! trades (the round trip of §4, the many-sessions and streaming runs of §5, the floor's
//! canned bytes): the NewOrderSingle an initiator sends and the ExecutionReport an
//! acceptor answers it with, written with the typed FIX 4.4 builders, and identifiers
//! (`C17`, `O17`, `E17`) written without allocating.
//!
//! ClientID(109) is not a field of NewOrderSingle or ExecutionReport in the FIX44
//! dictionary: it is written with [`FieldEncode::put_field`] and read with
//! [`FieldAccess::typed_field`], the typed
//! API's way to fields outside a message's definition, and validating sessions need
//! `AllowUnknownMsgFields=Y`.

use peregrine_engine::session::AppReject;
use peregrine_messages::codec::value::{format_u64, Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::fix44::enums::{ExecType, OrdStatus, OrdType, Side};
use peregrine_messages::fix44::{
    prelude::*, tags, ExecutionReportBuilder, NewOrderSingle, NewOrderSingleBuilder,
};
use peregrine_messages::FieldEncode;

/// ClientID(109) of every order that carries one.
pub const CLIENT_ID: &str = "CLIENT1";
/// Symbol(55) of every order.
pub const SYMBOL: &str = "EUR/USD";
/// OrderQty(38) of every order.
pub const ORDER_QTY: Decimal = Decimal::new(100, 0);
/// Price(44) of every order (1.2345).
pub const ORDER_PRICE: Decimal = Decimal::new(12345, 4);

/// TransactTime as the benchmarks stamp their orders: now, to the millisecond.
pub(crate) fn now() -> UtcTimestamp {
    UtcTimestamp::now(TimePrecision::Millis)
}

/// Writes `prefix` and `n` in decimal into `buf` and returns the text (no allocation).
///
/// ```
/// let mut buf = [0u8; 24];
/// assert_eq!(peregrine_bench::order::id(&mut buf, b'C', 1207), "C1207");
/// assert_eq!(peregrine_bench::order::id(&mut buf, b'E', 0), "E0");
/// ```
pub fn id(buf: &mut [u8; 24], prefix: u8, n: u64) -> &str {
    buf[0] = prefix;
    let len = 1 + format_u64(n, &mut buf[1..]);
    // ASCII digits after an ASCII prefix: always UTF-8.
    std::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// A ClOrdID made from a counter without allocating: `C` and the number in decimal.
///
/// ```
/// let mut id = peregrine_bench::order::ClOrdId::default();
/// assert_eq!(id.advance(), "C1");
/// assert_eq!(id.advance(), "C2");
/// ```
#[derive(Clone, Debug, Default)]
pub struct ClOrdId {
    n: u64,
    buf: [u8; 24],
    len: usize,
}

impl ClOrdId {
    /// Ids from `offset + 1` on.
    ///
    /// ```
    /// let mut id = peregrine_bench::order::ClOrdId::starting_after(41);
    /// assert_eq!(id.advance(), "C42");
    /// ```
    pub fn starting_after(offset: u64) -> ClOrdId {
        ClOrdId {
            n: offset,
            ..ClOrdId::default()
        }
    }

    /// The next id.
    ///
    /// ```
    /// let mut id = peregrine_bench::order::ClOrdId::starting_after(9);
    /// assert_eq!(id.advance(), "C10");
    /// ```
    pub fn advance(&mut self) -> &str {
        self.n += 1;
        self.len = id(&mut self.buf, b'C', self.n).len();
        self.current()
    }

    /// The id last made (empty before the first).
    ///
    /// ```
    /// let mut id = peregrine_bench::order::ClOrdId::default();
    /// assert_eq!(id.current(), "");
    /// id.advance();
    /// assert_eq!(id.current(), "C1");
    /// ```
    pub fn current(&self) -> &str {
        // Only ASCII digits and `C` are ever written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    /// Ids made so far (with the offset of [`starting_after`](Self::starting_after)).
    ///
    /// ```
    /// let mut id = peregrine_bench::order::ClOrdId::default();
    /// id.advance();
    /// id.advance();
    /// assert_eq!(id.count(), 2);
    /// ```
    pub fn count(&self) -> u64 {
        self.n
    }
}

/// Writes the body of the benchmark's NewOrderSingle: ClOrdID, ClientID(109)=CLIENT1
/// when `client_id`, Symbol EUR/USD, Side buy, TransactTime `now`, OrderQty 100, OrdType
/// limit, Price 1.2345. `order` is the standalone builder or the session's
/// [`Body`](peregrine_messages::Body).
///
/// ```
/// use peregrine_messages::codec::{value::{TimePrecision, UtcTimestamp}, EncodeBuffer};
/// use peregrine_messages::fix44::NewOrderSingle;
/// let mut buf = EncodeBuffer::new();
/// let mut b = NewOrderSingle::builder(&mut buf);
/// peregrine_bench::order::write_order(&mut b, "C1", UtcTimestamp::now(TimePrecision::Millis), true);
/// let wire = b.finish();
/// assert!(wire.windows(12).any(|w| w == b"\x0155=EUR/USD\x01"));
/// assert!(wire.windows(13).any(|w| w == b"\x01109=CLIENT1\x01"));
/// ```
#[inline]
pub fn write_order<'b, E: FieldEncode<'b>>(
    order: &mut NewOrderSingleBuilder<'b, E>,
    cl_ord_id: &str,
    now: UtcTimestamp,
    client_id: bool,
) {
    order.cl_ord_id(cl_ord_id);
    if client_id {
        order.put_field(tags::CLIENT_ID, CLIENT_ID);
    }
    order
        .symbol(SYMBOL)
        .side(Side::Buy)
        .transact_time(now)
        .order_qty(ORDER_QTY)
        .ord_type(OrdType::Limit)
        .price(ORDER_PRICE);
}

/// What an acceptor copies from an order into its report.
///
/// ```
/// use peregrine_messages::codec::value::{TimePrecision, UtcTimestamp};
/// use peregrine_messages::fix44::enums::Side;
/// use peregrine_bench::order::{OrderFields, ORDER_PRICE, ORDER_QTY, SYMBOL};
/// let order = OrderFields { cl_ord_id: "C1", symbol: SYMBOL, side: Side::Buy, qty: ORDER_QTY,
///     price: ORDER_PRICE, transact_time: UtcTimestamp::now(TimePrecision::Millis), client_id: None };
/// assert_eq!(order.price.to_string(), "1.2345");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OrderFields<'a> {
    /// ClOrdID(11).
    pub cl_ord_id: &'a str,
    /// Symbol(55).
    pub symbol: &'a str,
    /// Side(54).
    pub side: Side,
    /// OrderQty(38), also LeavesQty(151).
    pub qty: Decimal,
    /// Price(44).
    pub price: Decimal,
    /// TransactTime(60).
    pub transact_time: UtcTimestamp,
    /// ClientID(109), when the order has it.
    pub client_id: Option<&'a str>,
}

impl<'a> OrderFields<'a> {
    /// The fields of a received order.
    ///
    /// ```
    /// use peregrine_messages::codec::{value::{TimePrecision, UtcTimestamp}, Decoder, DecoderConfig, EncodeBuffer};
    /// use peregrine_messages::fix44::{prelude::*, NewOrderSingle};
    /// use peregrine_bench::order::{write_order, OrderFields, CLIENT_ID};
    /// let mut buf = EncodeBuffer::new();
    /// let mut b = NewOrderSingle::builder(&mut buf);
    /// b.sender_comp_id("CLIENT").target_comp_id("VENUE").msg_seq_num(2);
    /// write_order(&mut b, "C7", UtcTimestamp::now(TimePrecision::Millis), true);
    /// let wire = b.finish().to_vec();
    /// let mut decoder = Decoder::new(DecoderConfig::default());
    /// let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    /// let fields = OrderFields::of(&order).unwrap();
    /// assert_eq!((fields.cl_ord_id, fields.client_id), ("C7", Some(CLIENT_ID)));
    /// ```
    ///
    /// # Errors
    ///
    /// A BusinessMessageReject naming the first field that is missing or does not read
    /// (ClientID may be missing, not unreadable).
    pub fn of(order: &NewOrderSingle<'a>) -> Result<OrderFields<'a>, AppReject> {
        fn bad(tag: u32) -> AppReject {
            AppReject::business(5, format!("tag {tag} is missing or invalid"))
        }
        fn need<T>(v: Option<Result<T, impl Sized>>, tag: u32) -> Result<T, AppReject> {
            v.and_then(|v| v.ok()).ok_or_else(|| bad(tag))
        }
        Ok(OrderFields {
            cl_ord_id: need(order.cl_ord_id(), tags::CL_ORD_ID)?,
            symbol: need(order.symbol(), tags::SYMBOL)?,
            side: need(order.side(), tags::SIDE)?,
            qty: need(order.order_qty(), tags::ORDER_QTY)?,
            price: need(order.price(), tags::PRICE)?,
            transact_time: need(order.transact_time(), tags::TRANSACT_TIME)?,
            client_id: order
                .typed_field::<&str>(tags::CLIENT_ID)
                .map(|v| v.map_err(|_| bad(tags::CLIENT_ID)))
                .transpose()?,
        })
    }
}

/// Writes the body of the ExecutionReport answering `order`: OrderID `O<n>` and ExecID
/// `E<n>`, ExecType and OrdStatus new, LeavesQty the order's quantity, CumQty and AvgPx
/// 0, and the order's ClOrdID, ClientID (when it had one), Symbol, Side, OrderQty, Price
/// and TransactTime.
///
/// ```
/// use peregrine_messages::codec::{value::{Decimal, TimePrecision, UtcTimestamp}, EncodeBuffer};
/// use peregrine_messages::fix44::{enums::Side, ExecutionReport};
/// use peregrine_bench::order::{write_report, OrderFields};
/// let order = OrderFields { cl_ord_id: "C1", symbol: "EUR/USD", side: Side::Buy, qty: Decimal::new(100, 0),
///     price: Decimal::new(12345, 4), transact_time: UtcTimestamp::now(TimePrecision::Millis), client_id: Some("CLIENT1") };
/// let mut buf = EncodeBuffer::new();
/// let mut b = ExecutionReport::builder(&mut buf);
/// write_report(&mut b, &order, 1);
/// let wire = b.finish();
/// assert!(wire.windows(7).any(|w| w == b"\x0137=O1\x01"));
/// assert!(wire.windows(7).any(|w| w == b"\x0117=E1\x01"));
/// ```
pub fn write_report<'b, E: FieldEncode<'b>>(
    report: &mut ExecutionReportBuilder<'b, E>,
    order: &OrderFields<'_>,
    n: u64,
) {
    let mut ids = [0u8; 24];
    report.order_id(id(&mut ids, b'O', n));
    report
        .exec_id(id(&mut ids, b'E', n))
        .cl_ord_id(order.cl_ord_id);
    if let Some(client_id) = order.client_id {
        report.put_field(tags::CLIENT_ID, client_id);
    }
    report
        .exec_type(ExecType::New)
        .ord_status(OrdStatus::New)
        .symbol(order.symbol)
        .side(order.side)
        .order_qty(order.qty)
        .price(order.price)
        .leaves_qty(order.qty)
        .cum_qty(Decimal::new(0, 0))
        .avg_px(Decimal::new(0, 0))
        .transact_time(order.transact_time);
}

#[cfg(test)]
mod tests {
    use super::*;
    use peregrine_messages::codec::EncodeBuffer;
    use peregrine_messages::fix44::ExecutionReport;

    #[test]
    fn ids() {
        let mut buf = [0u8; 24];
        assert_eq!(id(&mut buf, b'O', u64::MAX), format!("O{}", u64::MAX));
        assert_eq!(id(&mut buf, b'C', 10), "C10");
    }

    #[test]
    fn a_report_carries_client_id_only_when_the_order_did() {
        let mut order = OrderFields {
            cl_ord_id: "C1",
            symbol: SYMBOL,
            side: Side::Buy,
            qty: ORDER_QTY,
            price: ORDER_PRICE,
            transact_time: now(),
            client_id: None,
        };
        let mut buf = EncodeBuffer::new();
        let mut b = ExecutionReport::builder(&mut buf);
        write_report(&mut b, &order, 7);
        assert!(!b.finish().windows(5).any(|w| w == b"\x01109="));
        order.client_id = Some(CLIENT_ID);
        let mut b = ExecutionReport::builder(&mut buf);
        write_report(&mut b, &order, 7);
        assert!(b.finish().windows(13).any(|w| w == b"\x01109=CLIENT1\x01"));
    }
}

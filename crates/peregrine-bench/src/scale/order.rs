//! The messages of the scale experiments, as the interface between the driver and
//! the harnesses defines them: the initiator's NewOrderSingle and the acceptor's
//! ExecutionReport, written with the typed FIX 4.4 builders.

use peregrine_messages::codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::fix44::enums::{ExecType, OrdStatus, OrdType, Side};
use peregrine_messages::fix44::{prelude::*, ExecutionReport, NewOrderSingle};
use peregrine_messages::{Body, FieldEncode};

/// ClientID(109): not a field of FIX 4.4's NewOrderSingle or ExecutionReport, so it is
/// written with [`FieldEncode::put_field`], the typed builders' way to add a field the
/// dictionary does not list for the message.
pub const CLIENT_ID: u32 = 109;

/// A ClOrdID made from a counter without allocating: `C` and the number in decimal.
///
/// ```
/// let mut id = peregrine_bench::scale::order::ClOrdId::default();
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
    /// let mut id = peregrine_bench::scale::order::ClOrdId::starting_after(41);
    /// assert_eq!(id.advance(), "C42");
    /// ```
    pub fn starting_after(offset: u64) -> ClOrdId {
        ClOrdId {
            n: offset,
            ..ClOrdId::default()
        }
    }

    /// The next id.
    pub fn advance(&mut self) -> &str {
        self.n += 1;
        self.buf[0] = b'C';
        let n = peregrine_messages::codec::value::format_u64(self.n, &mut self.buf[1..]);
        self.len = n + 1;
        self.current()
    }

    /// The id last made.
    pub fn current(&self) -> &str {
        // Only ASCII digits and `C` are ever written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    /// Ids made so far.
    pub fn count(&self) -> u64 {
        self.n
    }
}

/// Writes the NewOrderSingle's body: ClOrdID, Symbol EUR/USD, Side buy, TransactTime
/// now (ms), OrderQty 100, OrdType limit, Price 1.2345, and ClientID(109)=CLIENT1 when
/// `client_id` (see [`CLIENT_ID`]).
///
/// ```
/// use peregrine_messages::codec::EncodeBuffer;
/// use peregrine_messages::fix44::NewOrderSingle;
/// use peregrine_messages::{Body, Message};
/// let mut buf = EncodeBuffer::new();
/// let mut enc = buf.start(b"FIX.4.4", NewOrderSingle::MSG_TYPE);
/// peregrine_bench::scale::order::new_order(&mut Body::<NewOrderSingle>::new(&mut enc), "C1", true);
/// let wire = enc.finish();
/// assert!(wire.windows(12).any(|w| w == b"\x0155=EUR/USD\x01"));
/// assert!(wire.windows(13).any(|w| w == b"\x01109=CLIENT1\x01"));
/// ```
#[inline]
pub fn new_order(order: &mut Body<'_, '_, NewOrderSingle>, cl_ord_id: &str, client_id: bool) {
    order.cl_ord_id(cl_ord_id);
    if client_id {
        order.put_field(CLIENT_ID, &b"CLIENT1"[..]);
    }
    order
        .symbol("EUR/USD")
        .side(Side::Buy)
        .transact_time(UtcTimestamp::now(TimePrecision::Millis))
        .order_qty(Decimal::new(100, 0))
        .ord_type(OrdType::Limit)
        .price(Decimal::new(12345, 4));
}

/// What the acceptor copies from an order into its ExecutionReport.
#[derive(Clone, Copy, Debug)]
pub struct OrderFields<'a> {
    /// ClOrdID(11).
    pub cl_ord_id: &'a str,
    /// ClientID(109), when the order has it.
    pub client_id: Option<&'a [u8]>,
    /// Symbol(55).
    pub symbol: &'a str,
    /// Side(54).
    pub side: Side,
    /// OrderQty(38).
    pub qty: Decimal,
    /// Price(44).
    pub price: Decimal,
    /// TransactTime(60).
    pub transact_time: UtcTimestamp,
}

impl<'a> OrderFields<'a> {
    /// The fields of `order`; `None` when one the report needs is missing or bad.
    pub fn of(order: &NewOrderSingle<'a>) -> Option<OrderFields<'a>> {
        Some(OrderFields {
            cl_ord_id: order.cl_ord_id()?.ok()?,
            client_id: peregrine_messages::TypedMessage::view(order).get(CLIENT_ID),
            symbol: order.symbol()?.ok()?,
            side: order.side()?.ok()?,
            qty: order.order_qty()?.ok()?,
            price: order.price()?.ok()?,
            transact_time: order.transact_time()?.ok()?,
        })
    }
}

/// Writes the ExecutionReport answering `order`: OrderID `O<n>` and ExecID `E<n>`
/// fresh, ExecType and OrdStatus new, LeavesQty the order's quantity, CumQty and AvgPx
/// 0, and the order's ClOrdID, Symbol, Side, ClientID, Price, OrderQty and TransactTime.
pub fn execution_report(er: &mut Body<'_, '_, ExecutionReport>, order: &OrderFields<'_>, n: u64) {
    let mut ids = [0u8; 24];
    ids[0] = b'O';
    let len = 1 + peregrine_messages::codec::value::format_u64(n, &mut ids[1..]);
    let order_id = std::str::from_utf8(&ids[..len]).unwrap_or("O");
    er.order_id(order_id);
    ids[0] = b'E';
    let exec_id = std::str::from_utf8(&ids[..len]).unwrap_or("E");
    er.exec_id(exec_id)
        .cl_ord_id(order.cl_ord_id)
        .exec_type(ExecType::New)
        .ord_status(OrdStatus::New)
        .symbol(order.symbol)
        .side(order.side)
        .leaves_qty(order.qty)
        .cum_qty(Decimal::new(0, 0))
        .avg_px(Decimal::new(0, 0))
        .price(order.price)
        .order_qty(order.qty)
        .transact_time(order.transact_time);
    if let Some(c) = order.client_id {
        er.put_field(CLIENT_ID, c);
    }
}

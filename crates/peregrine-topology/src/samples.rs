//! The order the venue sends, the fill the executor answers, and their wire bytes (FIX
//! on TCP, SBE on Aeron) for the transport floor.

use peregrine_aeron::messages::{
    pack, Decimal64, Encode, ExecType, ExecutionReport, NewOrder, OrdType, Side, TimeInForce,
    ACCOUNT_LEN,
};
use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{msg_type, tag, EncodeBuffer, MessageEncoder};
use peregrine_messages::fix44::tags;

/// Symbol(55) of every order.
///
/// ```
/// use peregrine_codec::{Decoder, DecoderConfig};
/// use peregrine_topology::samples;
///
/// let nos = samples::wire_bytes().fix_nos; // a NewOrderSingle as the venue writes it
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let msg = decoder.decode(&nos).unwrap();
/// assert_eq!(msg.get(55), Some(samples::SYMBOL));
/// ```
pub const SYMBOL: &[u8] = b"PEREGRINE";
/// OrderQty(38) of every order, as text.
///
/// ```
/// use peregrine_codec::{Decoder, DecoderConfig};
/// use peregrine_topology::samples;
///
/// let nos = samples::wire_bytes().fix_nos; // a NewOrderSingle as the venue writes it
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let msg = decoder.decode(&nos).unwrap();
/// assert_eq!(msg.get(38), Some(samples::QTY));
/// ```
pub const QTY: &[u8] = b"100";
/// Price(44) of every order, as text.
///
/// ```
/// use peregrine_codec::{Decoder, DecoderConfig};
/// use peregrine_topology::samples;
///
/// let nos = samples::wire_bytes().fix_nos; // a NewOrderSingle as the venue writes it
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let msg = decoder.decode(&nos).unwrap();
/// assert_eq!(msg.get(44), Some(samples::PRICE));
/// ```
pub const PRICE: &[u8] = b"101.25";
/// TransactTime(60) of every order.
///
/// ```
/// use peregrine_codec::{Decoder, DecoderConfig};
/// use peregrine_topology::samples;
///
/// let nos = samples::wire_bytes().fix_nos; // a NewOrderSingle as the venue writes it
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let msg = decoder.decode(&nos).unwrap();
/// assert_eq!(msg.get(60), Some(samples::TRANSACT_TIME));
/// ```
pub const TRANSACT_TIME: &[u8] = b"20260101-00:00:00.000";
/// The ClOrdID prefix; the venue appends a 10-digit order number.
///
/// ```
/// use peregrine_topology::samples::{write_cl_ord_id, CL_ORD_ID_LEN_TEXT, CL_ORD_ID_PREFIX};
/// let mut id = [0; CL_ORD_ID_LEN_TEXT];
/// write_cl_ord_id(7, &mut id);
/// assert!(id.starts_with(CL_ORD_ID_PREFIX));
/// ```
pub const CL_ORD_ID_PREFIX: &[u8] = b"ORD";
/// Length of a ClOrdID: prefix + 10 digits.
///
/// ```
/// assert_eq!(peregrine_topology::samples::CL_ORD_ID_LEN_TEXT, "ORD0000000001".len());
/// ```
pub const CL_ORD_ID_LEN_TEXT: usize = CL_ORD_ID_PREFIX.len() + 10;

/// Writes ClOrdID `n` (`ORD0000000042`) into `out` without allocating.
///
/// ```
/// let mut id = [0u8; peregrine_topology::samples::CL_ORD_ID_LEN_TEXT];
/// peregrine_topology::samples::write_cl_ord_id(42, &mut id);
/// assert_eq!(&id, b"ORD0000000042");
/// ```
#[inline]
pub fn write_cl_ord_id(mut n: u64, out: &mut [u8; CL_ORD_ID_LEN_TEXT]) {
    out[..CL_ORD_ID_PREFIX.len()].copy_from_slice(CL_ORD_ID_PREFIX);
    for i in (CL_ORD_ID_PREFIX.len()..CL_ORD_ID_LEN_TEXT).rev() {
        out[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Writes the NewOrderSingle body the venue sends (ClOrdID given; everything else is
/// pre-built constant bytes).
///
/// ```
/// use peregrine_codec::{msg_type, EncodeBuffer};
/// use peregrine_topology::samples::nos_body;
///
/// let mut buf = EncodeBuffer::with_capacity(256);
/// let mut m = buf.start(b"FIX.4.4", msg_type::NEW_ORDER_SINGLE);
/// nos_body(&mut m, b"ORD0000000001");
/// let bytes = m.finish();
/// assert!(bytes.windows(17).any(|w| w == b"11=ORD0000000001\x01"));
/// ```
#[inline]
pub fn nos_body(m: &mut MessageEncoder<'_>, cl_ord_id: &[u8]) {
    m.str(tags::CL_ORD_ID, cl_ord_id)
        .str(tags::HANDL_INST, b"1")
        .str(tags::ORDER_QTY, QTY)
        .str(tags::ORD_TYPE, b"2")
        .str(tags::PRICE, PRICE)
        .str(tags::SIDE, b"1")
        .str(tags::SYMBOL, SYMBOL)
        .str(tags::TIME_IN_FORCE, b"0")
        .str(tags::TRANSACT_TIME, TRANSACT_TIME);
}

/// The filled ExecutionReport the executor answers `order` with
/// ([`ExecutionReport::full_fill`], its OrderID its ExecID).
///
/// ```
/// use peregrine_aeron::messages::{Decimal64, OrdStatus};
/// use peregrine_topology::samples::{fill, sample_order};
///
/// let order = sample_order();
/// let report = fill(&order, 42);
/// assert_eq!((report.exec_id, report.ord_status), (42, OrdStatus::Filled));
/// assert_eq!((report.cum_qty, report.leaves_qty), (order.order_qty, Decimal64::ZERO));
/// ```
#[inline]
pub fn fill(order: &NewOrder, exec_id: u64) -> ExecutionReport<'static> {
    ExecutionReport::full_fill(order, exec_id, exec_id)
}

fn decimal(d: Decimal64) -> peregrine_codec::value::Decimal {
    d.to_decimal().unwrap_or_default()
}

/// Writes the FIX.4.4 ExecutionReport body for an SBE report (no allocation).
///
/// ```
/// use peregrine_codec::{msg_type, Decoder, DecoderConfig, EncodeBuffer};
/// use peregrine_topology::samples::{er_body, fill, sample_order, PRICE};
///
/// let mut buf = EncodeBuffer::with_capacity(512);
/// let mut m = buf.start(b"FIX.4.4", msg_type::EXECUTION_REPORT);
/// er_body(&mut m, &fill(&sample_order(), 1));
/// let bytes = m.finish().to_vec();
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// assert_eq!(decoder.decode(&bytes).unwrap().get(31), Some(PRICE));
/// ```
#[inline]
pub fn er_body(m: &mut MessageEncoder<'_>, r: &ExecutionReport<'_>) {
    let exec_type = match r.exec_type {
        ExecType::Trade => b'F',
        other => other as u8,
    };
    let ts = UtcTimestamp::from_unix_nanos(r.transact_time as i64, TimePrecision::Millis);
    m.decimal(tags::AVG_PX, decimal(r.avg_px))
        .str(
            tags::CL_ORD_ID,
            peregrine_aeron::messages::unpack(&r.cl_ord_id),
        )
        .decimal(tags::CUM_QTY, decimal(r.cum_qty))
        .uint(tags::EXEC_ID, r.exec_id)
        .decimal(tags::LAST_PX, decimal(r.last_px))
        .decimal(tags::LAST_QTY, decimal(r.last_qty))
        .uint(tags::ORDER_ID, r.order_id)
        .decimal(tags::ORDER_QTY, decimal(r.order_qty))
        .char(tags::ORD_STATUS, r.ord_status as u8)
        .decimal(tags::PRICE, decimal(r.price))
        .char(tags::SIDE, r.side as u8)
        .str(tags::SYMBOL, peregrine_aeron::messages::unpack(&r.symbol));
    m.timestamp(tags::TRANSACT_TIME, &ts, TimePrecision::Millis);
    m.char(tags::EXEC_TYPE, exec_type)
        .decimal(tags::LEAVES_QTY, decimal(r.leaves_qty));
}

/// A sample SBE `NewOrder` as the gateway builds it from the venue's NewOrderSingle.
///
/// ```
/// use peregrine_aeron::messages::{unpack, Side};
/// let order = peregrine_topology::samples::sample_order();
/// assert_eq!(unpack(&order.symbol), peregrine_topology::samples::SYMBOL);
/// assert_eq!(order.side, Side::Buy);
/// ```
pub fn sample_order() -> NewOrder {
    NewOrder {
        session_id: 0,
        transact_time: 1_767_225_600_000_000_000,
        price: Decimal64::new(10125, -2),
        order_qty: Decimal64::new(100, 0),
        cl_ord_id: pack(b"ORD0000000001").unwrap_or_default(),
        symbol: pack(SYMBOL).unwrap_or_default(),
        account: [0; ACCOUNT_LEN],
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Day,
    }
}

/// The wire bytes of one round trip, for the transport floor: the FIX NewOrderSingle
/// and ExecutionReport as they cross TCP, the SBE NewOrder and ExecutionReport as they
/// cross Aeron.
///
/// ```
/// let w = peregrine_topology::samples::wire_bytes();
/// assert!(w.fix_nos.starts_with(b"8=FIX.4.4\x01") && w.fix_er.starts_with(b"8=FIX.4.4\x01"));
/// assert!(w.sbe_order.len() < w.fix_nos.len());
/// ```
#[derive(Debug, Clone)]
pub struct WireBytes {
    /// FIX.4.4 NewOrderSingle, venue to gateway.
    pub fix_nos: Vec<u8>,
    /// SBE NewOrder, gateway to executor.
    pub sbe_order: Vec<u8>,
    /// SBE ExecutionReport, executor to gateway.
    pub sbe_report: Vec<u8>,
    /// FIX.4.4 ExecutionReport, gateway to venue.
    pub fix_er: Vec<u8>,
}

/// The messages of a typical round trip (header as the sessions write it: MsgSeqNum,
/// SenderCompID, SendingTime, TargetCompID).
///
/// ```
/// use peregrine_aeron::messages::{ExecutionReport, NewOrder};
/// let w = peregrine_topology::samples::wire_bytes();
/// assert!(NewOrder::decode(&w.sbe_order).is_ok());
/// assert!(ExecutionReport::decode(&w.sbe_report).is_ok());
/// ```
pub fn wire_bytes() -> WireBytes {
    let order = sample_order();
    let report = fill(&order, 1);
    let ts = UtcTimestamp::from_unix_nanos(1_767_225_600_123_000_000, TimePrecision::Millis);
    let mut buf = EncodeBuffer::with_capacity(512);
    let fix_nos = fix_message(
        &mut buf,
        msg_type::NEW_ORDER_SINGLE,
        b"VENUE",
        b"GATEWAY",
        &ts,
        |m| nos_body(m, b"ORD0000000001"),
    );
    let fix_er = fix_message(
        &mut buf,
        msg_type::EXECUTION_REPORT,
        b"GATEWAY",
        b"VENUE",
        &ts,
        |m| er_body(m, &report),
    );
    let mut sbe_order = vec![0; order.encoded_len()];
    let n = order.encode(&mut sbe_order).unwrap_or(0);
    sbe_order.truncate(n);
    let mut sbe_report = vec![0; report.encoded_len()];
    let n = report.encode(&mut sbe_report).unwrap_or(0);
    sbe_report.truncate(n);
    WireBytes {
        fix_nos,
        sbe_order,
        sbe_report,
        fix_er,
    }
}

/// A FIX.4.4 message from `sender` to `target` with the header a session of a measured
/// round trip writes (MsgSeqNum, SenderCompID, SendingTime `ts`, TargetCompID), then
/// `body`.
fn fix_message(
    buf: &mut EncodeBuffer,
    msg_type: &[u8],
    sender: &[u8],
    target: &[u8],
    ts: &UtcTimestamp,
    body: impl FnOnce(&mut MessageEncoder<'_>),
) -> Vec<u8> {
    let mut m = buf.start(b"FIX.4.4", msg_type);
    m.uint(tag::MSG_SEQ_NUM, 10_002)
        .str(tag::SENDER_COMP_ID, sender)
        .timestamp(tag::SENDING_TIME, ts, TimePrecision::Millis);
    m.str(tag::TARGET_COMP_ID, target);
    body(&mut m);
    m.finish().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_are_valid() {
        let w = wire_bytes();
        let mut d = peregrine_codec::Decoder::new(peregrine_codec::DecoderConfig::default());
        let v = d.decode(&w.fix_er).expect("ER decodes");
        assert_eq!(v.get(tags::CL_ORD_ID), Some(&b"ORD0000000001"[..]));
        assert_eq!(v.get(tags::LAST_PX), Some(PRICE));
        assert_eq!(v.get(tags::LAST_QTY), Some(QTY));
        assert_eq!(v.get(tags::EXEC_TYPE), Some(&b"F"[..]));
        let v = d.decode(&w.fix_nos).expect("NOS decodes");
        assert_eq!(v.get(tags::PRICE), Some(PRICE));
        assert!(NewOrder::decode(&w.sbe_order).is_ok());
        assert!(ExecutionReport::decode(&w.sbe_report).is_ok());
    }
}

//! The internal order-flow messages, as plain Rust values over the generated SBE codecs.
//!
//! The schema is `crates/peregrine-aeron/sbe/orders.xml`; the codecs are generated from it
//! by Real Logic's sbe-tool into the `peregrine-sbe` crate (`make sbe`). This module gives
//! each message a `Copy` struct (the two with free text borrow it from the buffer), an
//! exact [`Encode::encoded_len`], an [`Encode::encode`] that writes the SBE header
//! and body into any `&mut [u8]` (an Aeron claim, a scratch buffer) and a `decode` that
//! validates before it reads: the generated decoders index slices directly and would
//! panic on a short or hostile buffer, so every length, the schema id, the template id and
//! every required enum are checked first and reported as a [`DecodeError`].
//!
//! Nothing here allocates.
//!
//! Conventions (see the schema for the full list): prices and quantities are
//! [`Decimal64`] (`mantissa × 10^exponent`, exactly FIX's text); ClOrdID, Symbol and
//! Account are NUL-padded fixed-length ASCII ([`pack`] / [`unpack`]); OrderID and ExecID
//! are `u64`; times are `u64` nanoseconds since the Unix epoch.

use peregrine_codec::value::Decimal;
use peregrine_sbe::decimal_64_codec::{Decimal64Decoder, Decimal64Encoder};
use peregrine_sbe::execution_report_codec::{ExecutionReportDecoder, ExecutionReportEncoder};
use peregrine_sbe::message_header_codec::{self, MessageHeaderDecoder};
use peregrine_sbe::new_order_codec::{NewOrderDecoder, NewOrderEncoder};
use peregrine_sbe::order_cancel_reject_codec::{
    OrderCancelRejectDecoder, OrderCancelRejectEncoder,
};
use peregrine_sbe::order_cancel_replace_request_codec::{
    OrderCancelReplaceRequestDecoder, OrderCancelReplaceRequestEncoder,
};
use peregrine_sbe::order_cancel_request_codec::{
    OrderCancelRequestDecoder, OrderCancelRequestEncoder,
};
use peregrine_sbe::{Encoder as _, ReadBuf, Reader, WriteBuf, Writer};

pub use peregrine_sbe::cxl_rej_reason::CxlRejReason;
pub use peregrine_sbe::cxl_rej_response_to::CxlRejResponseTo;
pub use peregrine_sbe::exec_type::ExecType;
pub use peregrine_sbe::ord_rej_reason::OrdRejReason;
pub use peregrine_sbe::ord_status::OrdStatus;
pub use peregrine_sbe::ord_type::OrdType;
pub use peregrine_sbe::side::Side;
pub use peregrine_sbe::time_in_force::TimeInForce;

/// The schema id in every message header (`orders.xml`).
pub const SCHEMA_ID: u16 = peregrine_sbe::SBE_SCHEMA_ID;
/// The schema version this crate writes (and the oldest it reads).
pub const SCHEMA_VERSION: u16 = peregrine_sbe::SBE_SCHEMA_VERSION;
/// Length of the SBE message header (block length, template id, schema id, version).
pub const HEADER_LEN: usize = message_header_codec::ENCODED_LENGTH;
/// Length of a variable-length text field's length prefix.
const VAR_LEN_PREFIX: usize = 4;

/// Length of a ClOrdID / OrigClOrdID field.
pub const CL_ORD_ID_LEN: usize = 32;
/// Length of a Symbol field.
pub const SYMBOL_LEN: usize = 16;
/// Length of an Account field.
pub const ACCOUNT_LEN: usize = 16;

/// A ClOrdID: ASCII, NUL-padded to [`CL_ORD_ID_LEN`] bytes.
pub type ClOrdId = [u8; CL_ORD_ID_LEN];
/// A Symbol: ASCII, NUL-padded to [`SYMBOL_LEN`] bytes.
pub type Symbol = [u8; SYMBOL_LEN];
/// An Account: ASCII, NUL-padded to [`ACCOUNT_LEN`] bytes.
pub type Account = [u8; ACCOUNT_LEN];

/// Pad `value` with NULs to a fixed-length field; `None` if it does not fit. A value that
/// itself contains NUL would not survive [`unpack`], so it is refused too.
#[inline]
pub fn pack<const N: usize>(value: &[u8]) -> Option<[u8; N]> {
    if value.len() > N || value.contains(&0) {
        return None;
    }
    let mut out = [0u8; N];
    out[..value.len()].copy_from_slice(value);
    Some(out)
}

/// The text of a NUL-padded fixed-length field (everything before the first NUL).
#[inline]
pub fn unpack(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

/// A fixed-point decimal on the wire: `mantissa × 10^exponent`.
///
/// FIX decimals convert exactly: `150.25` is `{ mantissa: 15025, exponent: -2 }`, which is
/// [`peregrine_codec::value::Decimal`] `{ mantissa: 15025, scale: 2 }`. [`Decimal64::NULL`]
/// (mantissa `i64::MIN`) stands for "absent", e.g. the price of a market order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal64 {
    /// The digits as an integer.
    pub mantissa: i64,
    /// The power of ten they are scaled by (negative: digits after the point).
    pub exponent: i8,
}

impl Decimal64 {
    /// The absent value.
    pub const NULL: Decimal64 = Decimal64 {
        mantissa: i64::MIN,
        exponent: 0,
    };
    /// Zero.
    pub const ZERO: Decimal64 = Decimal64 {
        mantissa: 0,
        exponent: 0,
    };

    /// `mantissa × 10^exponent`.
    #[inline]
    pub const fn new(mantissa: i64, exponent: i8) -> Self {
        Decimal64 { mantissa, exponent }
    }

    /// Whether this is [`Decimal64::NULL`].
    #[inline]
    pub const fn is_null(self) -> bool {
        self.mantissa == i64::MIN
    }

    /// The FIX decimal this is, if it is not null and fits (a positive exponent is
    /// multiplied out; a scale above 127 cannot occur).
    pub fn to_decimal(self) -> Option<Decimal> {
        if self.is_null() {
            return None;
        }
        if self.exponent <= 0 {
            Some(Decimal::new(self.mantissa, self.exponent.unsigned_abs()))
        } else {
            let f = 10i64.checked_pow(self.exponent as u32)?;
            Some(Decimal::new(self.mantissa.checked_mul(f)?, 0))
        }
    }

    /// The wire form of a FIX decimal; `None` if its scale exceeds 128 digits.
    pub fn from_decimal(d: Decimal) -> Option<Self> {
        let exponent = i8::try_from(-i16::from(d.scale)).ok()?;
        Some(Decimal64 {
            mantissa: d.mantissa,
            exponent,
        })
    }
}

/// Why a message could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The destination is shorter than [`Encode::encoded_len`].
    BufferTooSmall {
        /// Bytes the message needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A text field is longer than the wire format allows (`u32::MAX - 1`).
    TextTooLong,
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::BufferTooSmall { needed, available } => {
                write!(f, "SBE encode needs {needed} bytes, buffer has {available}")
            }
            EncodeError::TextTooLong => {
                f.write_str("SBE text field longer than u32::MAX - 1 bytes")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why a buffer is not a valid message of this schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The buffer ends before the header, the block or a text field does.
    Truncated {
        /// Bytes needed to read on.
        needed: usize,
        /// Bytes in the buffer.
        available: usize,
    },
    /// The header's schema id is not [`SCHEMA_ID`].
    WrongSchema {
        /// The schema id found.
        schema_id: u16,
    },
    /// The header's template id is not one of this schema's messages (or not the one
    /// asked for).
    UnknownTemplate {
        /// The template id found.
        template_id: u16,
    },
    /// The header's block length is shorter than this version's block (a message from an
    /// older schema version than this crate reads).
    BlockTooShort {
        /// The block length found.
        block_length: u16,
        /// The block length this crate needs.
        expected: u16,
    },
    /// A required enum field holds a value the schema does not define.
    InvalidEnum {
        /// The field's schema name.
        field: &'static str,
    },
    /// A text field is not UTF-8.
    InvalidText,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Truncated { needed, available } => {
                write!(
                    f,
                    "SBE message truncated: needs {needed} bytes, has {available}"
                )
            }
            DecodeError::WrongSchema { schema_id } => {
                write!(f, "SBE schema id {schema_id}, expected {SCHEMA_ID}")
            }
            DecodeError::UnknownTemplate { template_id } => {
                write!(f, "unknown SBE template id {template_id}")
            }
            DecodeError::BlockTooShort {
                block_length,
                expected,
            } => {
                write!(f, "SBE block length {block_length} shorter than {expected}")
            }
            DecodeError::InvalidEnum { field } => {
                write!(f, "invalid value in SBE enum field {field}")
            }
            DecodeError::InvalidText => f.write_str("SBE text field is not UTF-8"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Something that encodes into any buffer of at least
/// [`encoded_len`](Encode::encoded_len) bytes: every message, and [`Message`].
pub trait Encode {
    /// The exact length [`encode`](Encode::encode) writes, header included.
    fn encoded_len(&self) -> usize;

    /// Write header and body at the start of `buf`; returns the length written.
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
pub trait SbeMessage: Encode {
    /// The schema template id.
    const TEMPLATE_ID: u16;
}

// --- helpers over the generated codecs --------------------------------------------------

#[inline]
fn check_room(buf: &[u8], needed: usize) -> Result<(), EncodeError> {
    if buf.len() < needed {
        Err(EncodeError::BufferTooSmall {
            needed,
            available: buf.len(),
        })
    } else {
        Ok(())
    }
}

#[inline]
fn text_len(text: &str) -> Result<usize, EncodeError> {
    if text.len() >= u32::MAX as usize {
        Err(EncodeError::TextTooLong)
    } else {
        Ok(text.len())
    }
}

/// Write a decimal through its composite encoder and hand back the message encoder.
#[inline]
fn put_decimal<'a, P: Writer<'a> + Default>(mut enc: Decimal64Encoder<P>, value: Decimal64) -> P {
    enc.mantissa(value.mantissa);
    enc.exponent(value.exponent);
    // The composite was wrapped around its parent one line before: the parent is there.
    enc.parent().unwrap_or_default()
}

#[inline]
fn get_decimal<'a, P: Reader<'a> + Default>(dec: Decimal64Decoder<P>) -> Decimal64 {
    Decimal64 {
        mantissa: dec.mantissa(),
        exponent: dec.exponent(),
    }
}

/// Validate the header of `buf` for `template_id` with a block of at least `block_len`
/// bytes, and return the header decoder and the offset where the block ends.
#[inline]
fn check_header(
    buf: &[u8],
    template_id: u16,
    block_len: u16,
) -> Result<(MessageHeaderDecoder<ReadBuf<'_>>, usize), DecodeError> {
    let (tid, header) = peek_header(buf)?;
    if tid != template_id {
        return Err(DecodeError::UnknownTemplate { template_id: tid });
    }
    let acting = header.block_length();
    if acting < block_len {
        return Err(DecodeError::BlockTooShort {
            block_length: acting,
            expected: block_len,
        });
    }
    let end = HEADER_LEN + acting as usize;
    if buf.len() < end {
        return Err(DecodeError::Truncated {
            needed: end,
            available: buf.len(),
        });
    }
    Ok((header, end))
}

#[inline]
fn peek_header(buf: &[u8]) -> Result<(u16, MessageHeaderDecoder<ReadBuf<'_>>), DecodeError> {
    if buf.len() < HEADER_LEN {
        return Err(DecodeError::Truncated {
            needed: HEADER_LEN,
            available: buf.len(),
        });
    }
    let header = MessageHeaderDecoder::default().wrap(ReadBuf::new(buf), 0);
    if header.schema_id() != SCHEMA_ID {
        return Err(DecodeError::WrongSchema {
            schema_id: header.schema_id(),
        });
    }
    Ok((header.template_id(), header))
}

/// Read the length-prefixed text at `at`, bounds- and UTF-8-checked.
#[inline]
fn get_text(buf: &[u8], at: usize) -> Result<&str, DecodeError> {
    let body = at + VAR_LEN_PREFIX;
    if buf.len() < body {
        return Err(DecodeError::Truncated {
            needed: body,
            available: buf.len(),
        });
    }
    let mut len = [0u8; VAR_LEN_PREFIX];
    len.copy_from_slice(&buf[at..body]);
    let end = body.saturating_add(u32::from_le_bytes(len) as usize);
    if buf.len() < end {
        return Err(DecodeError::Truncated {
            needed: end,
            available: buf.len(),
        });
    }
    std::str::from_utf8(&buf[body..end]).map_err(|_| DecodeError::InvalidText)
}

/// Required enums decode unknown bytes as `NullVal`; turn that into an error.
macro_rules! required {
    ($value:expr, $ty:ident, $field:literal) => {{
        let v = $value;
        if v == $ty::NullVal {
            return Err(DecodeError::InvalidEnum { field: $field });
        }
        v
    }};
}

// --- NewOrder ---------------------------------------------------------------------------

/// A new order (FIX NewOrderSingle, 35=D), gateway to executor.
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

const NEW_ORDER_BLOCK: u16 = peregrine_sbe::new_order_codec::SBE_BLOCK_LENGTH;

impl SbeMessage for NewOrder {
    const TEMPLATE_ID: u16 = peregrine_sbe::new_order_codec::SBE_TEMPLATE_ID;
}

impl Encode for NewOrder {
    #[inline]
    fn encoded_len(&self) -> usize {
        HEADER_LEN + NEW_ORDER_BLOCK as usize
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        check_room(buf, self.encoded_len())?;
        let mut enc = NewOrderEncoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
        enc = enc.header(0).parent().unwrap_or_default();
        enc.session_id(self.session_id);
        enc.transact_time(self.transact_time);
        enc = put_decimal(enc.price_encoder(), self.price);
        enc = put_decimal(enc.order_qty_encoder(), self.order_qty);
        enc.cl_ord_id(&self.cl_ord_id);
        enc.symbol(&self.symbol);
        enc.account(&self.account);
        enc.side(self.side);
        enc.ord_type(self.ord_type);
        enc.time_in_force(self.time_in_force);
        Ok(enc.get_limit())
    }
}

impl NewOrder {
    /// Decode a NewOrder from the start of `buf`.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let (header, _) = check_header(buf, Self::TEMPLATE_ID, NEW_ORDER_BLOCK)?;
        let d = NewOrderDecoder::default().header(header, 0);
        Ok(NewOrder {
            session_id: d.session_id(),
            transact_time: d.transact_time(),
            price: get_decimal(d.price_decoder()),
            order_qty: get_decimal(d.order_qty_decoder()),
            cl_ord_id: d.cl_ord_id(),
            symbol: d.symbol(),
            account: d.account(),
            side: required!(d.side(), Side, "side"),
            ord_type: required!(d.ord_type(), OrdType, "ordType"),
            time_in_force: required!(d.time_in_force(), TimeInForce, "timeInForce"),
        })
    }
}

// --- OrderCancelRequest -----------------------------------------------------------------

/// A cancel request (FIX OrderCancelRequest, 35=F), gateway to executor.
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

const CANCEL_BLOCK: u16 = peregrine_sbe::order_cancel_request_codec::SBE_BLOCK_LENGTH;

impl SbeMessage for OrderCancelRequest {
    const TEMPLATE_ID: u16 = peregrine_sbe::order_cancel_request_codec::SBE_TEMPLATE_ID;
}

impl Encode for OrderCancelRequest {
    #[inline]
    fn encoded_len(&self) -> usize {
        HEADER_LEN + CANCEL_BLOCK as usize
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        check_room(buf, self.encoded_len())?;
        let mut enc = OrderCancelRequestEncoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
        enc = enc.header(0).parent().unwrap_or_default();
        enc.session_id(self.session_id);
        enc.order_id(self.order_id);
        enc.transact_time(self.transact_time);
        enc = put_decimal(enc.order_qty_encoder(), self.order_qty);
        enc.cl_ord_id(&self.cl_ord_id);
        enc.orig_cl_ord_id(&self.orig_cl_ord_id);
        enc.symbol(&self.symbol);
        enc.side(self.side);
        Ok(enc.get_limit())
    }
}

impl OrderCancelRequest {
    /// Decode an OrderCancelRequest from the start of `buf`.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let (header, _) = check_header(buf, Self::TEMPLATE_ID, CANCEL_BLOCK)?;
        let d = OrderCancelRequestDecoder::default().header(header, 0);
        Ok(OrderCancelRequest {
            session_id: d.session_id(),
            order_id: d.order_id(),
            transact_time: d.transact_time(),
            order_qty: get_decimal(d.order_qty_decoder()),
            cl_ord_id: d.cl_ord_id(),
            orig_cl_ord_id: d.orig_cl_ord_id(),
            symbol: d.symbol(),
            side: required!(d.side(), Side, "side"),
        })
    }
}

// --- OrderCancelReplaceRequest ----------------------------------------------------------

/// A cancel/replace request (FIX OrderCancelReplaceRequest, 35=G), gateway to executor.
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

const REPLACE_BLOCK: u16 = peregrine_sbe::order_cancel_replace_request_codec::SBE_BLOCK_LENGTH;

impl SbeMessage for OrderCancelReplaceRequest {
    const TEMPLATE_ID: u16 = peregrine_sbe::order_cancel_replace_request_codec::SBE_TEMPLATE_ID;
}

impl Encode for OrderCancelReplaceRequest {
    #[inline]
    fn encoded_len(&self) -> usize {
        HEADER_LEN + REPLACE_BLOCK as usize
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        check_room(buf, self.encoded_len())?;
        let mut enc =
            OrderCancelReplaceRequestEncoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
        enc = enc.header(0).parent().unwrap_or_default();
        enc.session_id(self.session_id);
        enc.order_id(self.order_id);
        enc.transact_time(self.transact_time);
        enc = put_decimal(enc.price_encoder(), self.price);
        enc = put_decimal(enc.order_qty_encoder(), self.order_qty);
        enc.cl_ord_id(&self.cl_ord_id);
        enc.orig_cl_ord_id(&self.orig_cl_ord_id);
        enc.symbol(&self.symbol);
        enc.account(&self.account);
        enc.side(self.side);
        enc.ord_type(self.ord_type);
        enc.time_in_force(self.time_in_force);
        Ok(enc.get_limit())
    }
}

impl OrderCancelReplaceRequest {
    /// Decode an OrderCancelReplaceRequest from the start of `buf`.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let (header, _) = check_header(buf, Self::TEMPLATE_ID, REPLACE_BLOCK)?;
        let d = OrderCancelReplaceRequestDecoder::default().header(header, 0);
        Ok(OrderCancelReplaceRequest {
            session_id: d.session_id(),
            order_id: d.order_id(),
            transact_time: d.transact_time(),
            price: get_decimal(d.price_decoder()),
            order_qty: get_decimal(d.order_qty_decoder()),
            cl_ord_id: d.cl_ord_id(),
            orig_cl_ord_id: d.orig_cl_ord_id(),
            symbol: d.symbol(),
            account: d.account(),
            side: required!(d.side(), Side, "side"),
            ord_type: required!(d.ord_type(), OrdType, "ordType"),
            time_in_force: required!(d.time_in_force(), TimeInForce, "timeInForce"),
        })
    }
}

// --- ExecutionReport --------------------------------------------------------------------

/// An execution report (FIX ExecutionReport, 35=8), executor to gateway. An order the
/// executor refuses is reported with [`ExecType::Rejected`], [`OrdStatus::Rejected`] and an
/// [`OrdRejReason`]; otherwise `ord_rej_reason` is [`OrdRejReason::NullVal`].
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

const EXEC_BLOCK: u16 = peregrine_sbe::execution_report_codec::SBE_BLOCK_LENGTH;

impl SbeMessage for ExecutionReport<'_> {
    const TEMPLATE_ID: u16 = peregrine_sbe::execution_report_codec::SBE_TEMPLATE_ID;
}

impl Encode for ExecutionReport<'_> {
    #[inline]
    fn encoded_len(&self) -> usize {
        HEADER_LEN + EXEC_BLOCK as usize + VAR_LEN_PREFIX + self.text.len()
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        text_len(self.text)?;
        check_room(buf, self.encoded_len())?;
        let mut enc = ExecutionReportEncoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
        enc = enc.header(0).parent().unwrap_or_default();
        enc.session_id(self.session_id);
        enc.order_id(self.order_id);
        enc.exec_id(self.exec_id);
        enc.transact_time(self.transact_time);
        enc = put_decimal(enc.price_encoder(), self.price);
        enc = put_decimal(enc.order_qty_encoder(), self.order_qty);
        enc = put_decimal(enc.last_qty_encoder(), self.last_qty);
        enc = put_decimal(enc.last_px_encoder(), self.last_px);
        enc = put_decimal(enc.leaves_qty_encoder(), self.leaves_qty);
        enc = put_decimal(enc.cum_qty_encoder(), self.cum_qty);
        enc = put_decimal(enc.avg_px_encoder(), self.avg_px);
        enc.cl_ord_id(&self.cl_ord_id);
        enc.orig_cl_ord_id(&self.orig_cl_ord_id);
        enc.symbol(&self.symbol);
        enc.side(self.side);
        enc.exec_type(self.exec_type);
        enc.ord_status(self.ord_status);
        enc.ord_rej_reason(self.ord_rej_reason);
        enc.text(self.text);
        Ok(enc.get_limit())
    }
}

impl<'a> ExecutionReport<'a> {
    /// Decode an ExecutionReport from the start of `buf`; `text` borrows from it.
    pub fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        let (header, block_end) = check_header(buf, Self::TEMPLATE_ID, EXEC_BLOCK)?;
        let text = get_text(buf, block_end)?;
        let d = ExecutionReportDecoder::default().header(header, 0);
        Ok(ExecutionReport {
            session_id: d.session_id(),
            order_id: d.order_id(),
            exec_id: d.exec_id(),
            transact_time: d.transact_time(),
            price: get_decimal(d.price_decoder()),
            order_qty: get_decimal(d.order_qty_decoder()),
            last_qty: get_decimal(d.last_qty_decoder()),
            last_px: get_decimal(d.last_px_decoder()),
            leaves_qty: get_decimal(d.leaves_qty_decoder()),
            cum_qty: get_decimal(d.cum_qty_decoder()),
            avg_px: get_decimal(d.avg_px_decoder()),
            cl_ord_id: d.cl_ord_id(),
            orig_cl_ord_id: d.orig_cl_ord_id(),
            symbol: d.symbol(),
            side: required!(d.side(), Side, "side"),
            exec_type: required!(d.exec_type(), ExecType, "execType"),
            ord_status: required!(d.ord_status(), OrdStatus, "ordStatus"),
            // Optional in practice: NullVal when the report is not a reject.
            ord_rej_reason: d.ord_rej_reason(),
            text,
        })
    }
}

// --- OrderCancelReject ------------------------------------------------------------------

/// A refused cancel or replace (FIX OrderCancelReject, 35=9), executor to gateway.
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

const CXL_REJ_BLOCK: u16 = peregrine_sbe::order_cancel_reject_codec::SBE_BLOCK_LENGTH;

impl SbeMessage for OrderCancelReject<'_> {
    const TEMPLATE_ID: u16 = peregrine_sbe::order_cancel_reject_codec::SBE_TEMPLATE_ID;
}

impl Encode for OrderCancelReject<'_> {
    #[inline]
    fn encoded_len(&self) -> usize {
        HEADER_LEN + CXL_REJ_BLOCK as usize + VAR_LEN_PREFIX + self.text.len()
    }

    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        text_len(self.text)?;
        check_room(buf, self.encoded_len())?;
        let mut enc = OrderCancelRejectEncoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
        enc = enc.header(0).parent().unwrap_or_default();
        enc.session_id(self.session_id);
        enc.order_id(self.order_id);
        enc.transact_time(self.transact_time);
        enc.cl_ord_id(&self.cl_ord_id);
        enc.orig_cl_ord_id(&self.orig_cl_ord_id);
        enc.ord_status(self.ord_status);
        enc.cxl_rej_response_to(self.cxl_rej_response_to);
        enc.cxl_rej_reason(self.cxl_rej_reason);
        enc.text(self.text);
        Ok(enc.get_limit())
    }
}

impl<'a> OrderCancelReject<'a> {
    /// Decode an OrderCancelReject from the start of `buf`; `text` borrows from it.
    pub fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        let (header, block_end) = check_header(buf, Self::TEMPLATE_ID, CXL_REJ_BLOCK)?;
        let text = get_text(buf, block_end)?;
        let d = OrderCancelRejectDecoder::default().header(header, 0);
        Ok(OrderCancelReject {
            session_id: d.session_id(),
            order_id: d.order_id(),
            transact_time: d.transact_time(),
            cl_ord_id: d.cl_ord_id(),
            orig_cl_ord_id: d.orig_cl_ord_id(),
            ord_status: required!(d.ord_status(), OrdStatus, "ordStatus"),
            cxl_rej_response_to: required!(
                d.cxl_rej_response_to(),
                CxlRejResponseTo,
                "cxlRejResponseTo"
            ),
            cxl_rej_reason: required!(d.cxl_rej_reason(), CxlRejReason, "cxlRejReason"),
            text,
        })
    }
}

// --- any message ------------------------------------------------------------------------

/// Any message of the schema, as decoded by [`Message::decode`].
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
    pub fn template_id(buf: &[u8]) -> Result<u16, DecodeError> {
        peek_header(buf).map(|(tid, _)| tid)
    }

    /// Decode whichever message `buf` holds.
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

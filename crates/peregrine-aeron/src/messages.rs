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
//!
//! # Example
//!
//! Encode an order into a buffer and decode it again, as the executor does with what it
//! polls from Aeron:
//!
//! ```
//! use peregrine_aeron::messages::*;
//!
//! let order = NewOrder {
//!     session_id: 7,
//!     transact_time: 1_700_000_000_000_000_000,
//!     price: Decimal64::new(15025, -2), // 150.25
//!     order_qty: Decimal64::new(100, 0),
//!     cl_ord_id: pack(b"ORD-1").unwrap(),
//!     symbol: pack(b"MSFT").unwrap(),
//!     account: [0; ACCOUNT_LEN],
//!     side: Side::Buy,
//!     ord_type: OrdType::Limit,
//!     time_in_force: TimeInForce::Day,
//! };
//! let mut buf = [0u8; 256];
//! let len = order.encode(&mut buf)?;
//! assert_eq!(len, order.encoded_len());
//!
//! match Message::decode(&buf[..len])? {
//!     Message::NewOrder(o) => {
//!         assert_eq!(o, order);
//!         assert_eq!(unpack(&o.symbol), b"MSFT");
//!     }
//!     other => panic!("expected a NewOrder, got {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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

/// CxlRejReason (102), as a `u8` on the wire: `TooLateToCancel` (0), `UnknownOrder` (1),
/// `BrokerOption` (2), `AlreadyPendingCancelOrReplace` (3), `DuplicateClOrdId` (6),
/// `Other` (99). `NullVal` is no valid value: decoding refuses it.
#[doc(inline)]
pub use peregrine_sbe::cxl_rej_reason::CxlRejReason;
/// CxlRejResponseTo (434), the FIX character on the wire: `OrderCancelRequest` ('1'),
/// `OrderCancelReplaceRequest` ('2'). `NullVal` is no valid value: decoding refuses it.
#[doc(inline)]
pub use peregrine_sbe::cxl_rej_response_to::CxlRejResponseTo;
/// ExecType (150), the FIX character on the wire: `New` ('0'), `Canceled` ('4'),
/// `Replaced` ('5'), `PendingCancel` ('6'), `Rejected` ('8'), `PendingNew` ('A'),
/// `Expired` ('C'), `PendingReplace` ('E'), `Trade` ('F'). `NullVal` is no valid value:
/// decoding refuses it.
#[doc(inline)]
pub use peregrine_sbe::exec_type::ExecType;
/// OrdRejReason (103), as a `u8` on the wire: `BrokerOption` (0), `UnknownSymbol` (1),
/// `ExchangeClosed` (2), `OrderExceedsLimit` (3), `TooLateToEnter` (4), `UnknownOrder` (5),
/// `DuplicateOrder` (6), `Other` (99). `NullVal` (255) means "not a reject".
#[doc(inline)]
pub use peregrine_sbe::ord_rej_reason::OrdRejReason;
/// OrdStatus (39), the FIX character on the wire: `New` ('0'), `PartiallyFilled` ('1'),
/// `Filled` ('2'), `Canceled` ('4'), `Replaced` ('5'), `PendingCancel` ('6'), `Rejected`
/// ('8'), `PendingNew` ('A'), `Expired` ('C'), `PendingReplace` ('E'). `NullVal` is no
/// valid value: decoding refuses it.
#[doc(inline)]
pub use peregrine_sbe::ord_status::OrdStatus;
/// OrdType (40), the FIX character on the wire: `Market` ('1'), `Limit` ('2'), `Stop`
/// ('3'), `StopLimit` ('4'). `NullVal` is no valid value: decoding refuses it.
#[doc(inline)]
pub use peregrine_sbe::ord_type::OrdType;
/// Side (54), the FIX character on the wire: `Buy` ('1'), `Sell` ('2'), `SellShort` ('5'),
/// `SellShortExempt` ('6'). `NullVal` is no valid value: decoding refuses it.
///
/// ```
/// use peregrine_aeron::messages::Side;
/// // The discriminant is the FIX value, so the gateway copies tag 54 as it is.
/// assert_eq!(u8::from(Side::Buy), b'1');
/// assert_eq!(Side::from(b'2'), Side::Sell);
/// assert_eq!(Side::from(b'x'), Side::NullVal);
/// ```
#[doc(inline)]
pub use peregrine_sbe::side::Side;
/// TimeInForce (59), the FIX character on the wire: `Day` ('0'), `GoodTillCancel` ('1'),
/// `ImmediateOrCancel` ('3'), `FillOrKill` ('4'). `NullVal` is no valid value: decoding
/// refuses it.
#[doc(inline)]
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
///
/// ```
/// use peregrine_aeron::messages::{pack, unpack, Symbol};
///
/// let symbol: Symbol = pack(b"MSFT").unwrap();
/// assert_eq!(&symbol[..5], b"MSFT\0");
/// assert_eq!(unpack(&symbol), b"MSFT");
/// assert_eq!(pack::<4>(b"TOO-LONG"), None);
/// assert_eq!(pack::<8>(b"A\0B"), None);
/// ```
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
///
/// ```
/// use peregrine_aeron::messages::unpack;
///
/// assert_eq!(unpack(b"ORD-1\0\0\0"), b"ORD-1");
/// assert_eq!(unpack(b"FULL"), b"FULL"); // no padding: the whole field
/// assert_eq!(unpack(&[0u8; 16]), b""); // an absent Account
/// ```
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
///
/// ```
/// use peregrine_aeron::messages::Decimal64;
/// use peregrine_codec::value::Decimal;
///
/// let px = Decimal64::new(15025, -2); // 150.25
/// assert_eq!(px.to_decimal(), Some(Decimal::new(15025, 2)));
/// assert_eq!(Decimal64::from_decimal(Decimal::new(15025, 2)), Some(px));
///
/// // A positive exponent is multiplied out: 12 × 10^3 is 12000 with no decimals.
/// assert_eq!(Decimal64::new(12, 3).to_decimal(), Some(Decimal::new(12_000, 0)));
/// // The price of a market order.
/// assert!(Decimal64::NULL.is_null());
/// assert_eq!(Decimal64::NULL.to_decimal(), None);
/// ```
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

/// Why a message could not be encoded. Nothing was written when encoding fails.
///
/// ```
/// use peregrine_aeron::messages::{Encode, EncodeError};
///
/// let relayed: &[u8] = b"0123456789";
/// let mut small = [0u8; 4];
/// assert_eq!(
///     relayed.encode(&mut small),
///     Err(EncodeError::BufferTooSmall { needed: 10, available: 4 })
/// );
/// ```
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
///
/// Decoding checks before it reads, so any bytes at all (a short read, another
/// schema's message, garbage) give an error, never a panic:
///
/// ```
/// use peregrine_aeron::messages::{DecodeError, Message, HEADER_LEN};
///
/// assert_eq!(
///     Message::decode(&[1, 2, 3]),
///     Err(DecodeError::Truncated { needed: HEADER_LEN, available: 3 })
/// );
/// // A header naming schema 0x0101.
/// assert_eq!(Message::decode(&[1; 64]), Err(DecodeError::WrongSchema { schema_id: 0x0101 }));
/// ```
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
///
/// [`Publisher::publish`](crate::Publisher::publish) takes any `Encode`: it asks for the
/// length first, claims that much of the term buffer, and encodes into the claim.
/// Already-encoded bytes (`[u8]`) are `Encode` too, copied as they are.
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// let cancel = OrderCancelRequest {
///     session_id: 7,
///     order_id: 0,
///     transact_time: 1_700_000_000_000_000_000,
///     order_qty: Decimal64::NULL,
///     cl_ord_id: pack(b"ORD-2").unwrap(),
///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     side: Side::Buy,
/// };
/// let mut buf = vec![0u8; cancel.encoded_len()];
/// assert_eq!(cancel.encode(&mut buf)?, buf.len());
///
/// // One byte short is an error, not a panic.
/// let mut short = vec![0u8; cancel.encoded_len() - 1];
/// assert!(matches!(cancel.encode(&mut short), Err(EncodeError::BufferTooSmall { .. })));
///
/// // Relaying bytes that are already encoded.
/// let mut copy = vec![0u8; buf.len()];
/// assert_eq!(buf[..].encode(&mut copy)?, buf.len());
/// assert_eq!(copy, buf);
/// # Ok::<(), EncodeError>(())
/// ```
pub trait Encode {
    /// The exact length [`encode`](Encode::encode) writes, header included.
    fn encoded_len(&self) -> usize;

    /// Write header and body at the start of `buf`; returns the length written
    /// (exactly [`encoded_len`](Encode::encoded_len) for the messages of this crate).
    ///
    /// # Errors
    ///
    /// [`EncodeError::BufferTooSmall`] when `buf` is shorter than `encoded_len()`;
    /// [`EncodeError::TextTooLong`] when a text field is too long for its length prefix.
    /// Nothing is written in either case.
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
///
/// ```
/// use peregrine_aeron::messages::*;
///
/// // Each message has its own template id, the one the header carries.
/// assert_ne!(NewOrder::TEMPLATE_ID, ExecutionReport::TEMPLATE_ID);
/// ```
pub trait SbeMessage: Encode {
    /// The schema template id (`id` of the `sbe:message` in `orders.xml`).
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
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole NewOrder of this schema: too short,
    /// another schema or template, a block from an older version, or a required enum
    /// holding a value the schema does not define.
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
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole OrderCancelRequest of this schema: too short,
    /// another schema or template, a block from an older version, or a required enum
    /// holding a value the schema does not define.
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
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole OrderCancelReplaceRequest of this schema: too short,
    /// another schema or template, a block from an older version, or a required enum
    /// holding a value the schema does not define.
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
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole ExecutionReport of this schema: too short,
    /// another schema or template, a block from an older version, or a required enum
    /// holding a value the schema does not define. The text must be UTF-8
    /// ([`DecodeError::InvalidText`]).
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
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] when `buf` is not a whole OrderCancelReject of this schema: too short,
    /// another schema or template, a block from an older version, or a required enum
    /// holding a value the schema does not define. The text must be UTF-8
    /// ([`DecodeError::InvalidText`]).
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
    /// [`DecodeError::WrongSchema`] when the header's schema id is not [`SCHEMA_ID`].
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

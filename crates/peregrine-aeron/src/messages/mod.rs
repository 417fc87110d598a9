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

mod cancel_reject;
mod cancel_replace_request;
mod cancel_request;
mod decimal;
mod encode;
mod error;
mod execution_report;
mod fields;
mod message;
mod new_order;
mod wire;

pub use cancel_reject::OrderCancelReject;
pub use cancel_replace_request::OrderCancelReplaceRequest;
pub use cancel_request::OrderCancelRequest;
pub use decimal::Decimal64;
pub use encode::{Encode, SbeMessage};
pub use error::{DecodeError, EncodeError};
pub use execution_report::ExecutionReport;
pub use fields::{pack, unpack, Account, ClOrdId, Symbol, ACCOUNT_LEN, CL_ORD_ID_LEN, SYMBOL_LEN};
pub use message::Message;
pub use new_order::NewOrder;

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
pub const HEADER_LEN: usize = peregrine_sbe::message_header_codec::ENCODED_LENGTH;

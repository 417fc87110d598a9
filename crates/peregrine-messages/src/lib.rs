//! # peregrine-messages
//!
//! Typed FIX messages, generated at build time from the QuickFIX dictionaries by
//! [`peregrine_dict::codegen`](../peregrine_dict/codegen/index.html): one module per FIX
//! version, each behind a cargo feature (`fix40`, `fix41`, `fix42`, `fix43`, `fix44`,
//! `fixt11`, `fix50`, `fix50sp1`, `fix50sp2`; default `fix44`).
//!
//! Every version module holds:
//! * `tags`: one constant per field (`tags::CL_ORD_ID == 11`);
//! * `enums`: one Rust enum per enumerated field (`enums::Side::Buy` ⇄ `b"1"`, see
//!   [`FixEnum`]);
//! * one zero-copy view per message (`NewOrderSingle<'a>`, a [`TypedMessage`] over a decoded
//!   [`MessageView`](codec::MessageView)) with one getter per field, returning
//!   `Option<Result<T, FieldError>>` (`None`: absent; `Err`: present but not of its type),
//!   read as the value or the Reject the FIX rules ask for with [`FieldResult`]
//!   (`order.cl_ord_id().required(tags::CL_ORD_ID)?`), and one builder per message (`NewOrderSingleBuilder<'b>`) writing through
//!   [`MessageEncoder`](codec::MessageEncoder) in the order you call the setters;
//! * `groups`: a view and a builder per repeating group; getters of groups return
//!   [`Entries`] (an iterator of typed entries), setters return a [`GroupWriter`];
//! * `components`: one trait per component for reading (`Instrument<'a>`) and one for writing
//!   (`InstrumentBuilder<'b>`), implemented by every message and group that includes the
//!   component, and `StandardHeader`/`StandardTrailer` likewise for every message. Bring them
//!   into scope with `use peregrine_messages::fix44::prelude::*`.
//!
//! ```
//! # #[cfg(feature = "fix44")] {
//! use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
//! use peregrine_messages::codec::value::Decimal;
//! use peregrine_messages::fix44::{enums::{OrdType, Side}, prelude::*, NewOrderSingle};
//!
//! let mut buf = EncodeBuffer::new();
//! let mut b = NewOrderSingle::builder(&mut buf);
//! b.sender_comp_id("SENDER").target_comp_id("TARGET").msg_seq_num(1);
//! b.cl_ord_id("ORD1").symbol("AAPL").side(Side::Buy).ord_type(OrdType::Limit);
//! b.price(Decimal::new(15050, 2));
//! let wire = b.finish().to_vec();
//!
//! let mut decoder = Decoder::new(DecoderConfig::default());
//! let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
//! assert_eq!(order.cl_ord_id(), Some(Ok("ORD1")));
//! assert_eq!(order.side(), Some(Ok(Side::Buy)));
//! assert_eq!(order.price(), Some(Ok(Decimal::new(15050, 2))));
//! assert_eq!(order.account(), None);
//! # }
//! ```
//!
//! Repeating groups:
//!
//! ```
//! # #[cfg(feature = "fix44")] {
//! use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
//! use peregrine_messages::fix44::{enums::MDEntryType, prelude::*, MarketDataRequest};
//!
//! let mut buf = EncodeBuffer::new();
//! let mut b = MarketDataRequest::builder(&mut buf);
//! b.md_req_id("MDR1");
//! let mut types = b.no_md_entry_types(2);
//! types.entry().md_entry_type(MDEntryType::Bid);
//! types.entry().md_entry_type(MDEntryType::Offer);
//! let wire = b.finish().to_vec();
//!
//! let mut decoder = Decoder::new(DecoderConfig::default());
//! let mdr = MarketDataRequest::from_view(decoder.decode(&wire).unwrap()).unwrap();
//! let types: Vec<_> = mdr.no_md_entry_types().map(|e| e.md_entry_type()).collect();
//! assert_eq!(types, [Some(Ok(MDEntryType::Bid)), Some(Ok(MDEntryType::Offer))]);
//! # }
//! ```
//!
//! ## Design notes
//!
//! * **Errors are values.** A getter returns `None` when the field is absent,
//!   `Some(Err(FieldError::Value(_)))` when its bytes do not parse as the field's type and
//!   `Some(Err(FieldError::UnknownValue))` when an enumerated field carries a value the
//!   dictionary does not list; the raw bytes are always there through
//!   [`FieldAccess::raw_field`]. Enums have no `Other` variant, so a `match` stays exhaustive.
//! * **Types**: INT → `i64`; LENGTH, SEQNUM, NUMINGROUP, TAGNUM, DAYOFMONTH → `u64`; FLOAT,
//!   QTY, PRICE, PRICEOFFSET, AMT, PERCENTAGE → exact [`Decimal`](codec::value::Decimal);
//!   CHAR → `char`; BOOLEAN → `bool`; UTCTIMESTAMP → `UtcTimestamp`; UTCTIMEONLY →
//!   `TimeOfDay`; dates → `Date`; MONTHYEAR → `MonthYear`; DATA → `&[u8]` (the setter writes
//!   the length field before it); everything else → `&str`. Enumerated fields (other than
//!   BOOLEAN and the multiple-value types) → their generated enum.
//! * **Zero copy, zero allocation.** Views borrow the decoder's index and the message bytes;
//!   strings are sliced out of the message, which is checked as UTF-8 once when the view is
//!   made. Builders write straight into the caller's `EncodeBuffer`.
//! * **Builders write in call order** (header first, then the body; each group entry starts
//!   with its first field, the delimiter). They do not enforce required fields: validate
//!   with `peregrine_dict::Validator` where that matters. Debug builds check that no more
//!   group entries are written than declared.
//! * **Message-level getters** use the decoder's O(1) tag index and return the first
//!   occurrence of the tag in the message; group entry getters look inside their entry only.
//! * **Names** come from the dictionary: `ClOrdID` → `cl_ord_id()`, `tags::CL_ORD_ID`.
//!   Enum variants carry the FIX specification's names (`OrdStatus::PartiallyFilled`,
//!   `OrdRejReason::UnknownSymbol`, `PartyRole::ExecutingFirm`) with QuickFIX's description
//!   as a doc alias and as [`FixEnum::description`] (`PARTIAL`, `UNKNOWNSYM`: QuickFIX's
//!   FIX 4.4 dictionary runs words together and abbreviates them); how they are derived is
//!   described in [`peregrine_dict::codegen`](../peregrine_dict/codegen/index.html#enum-variant-names).
//!   Group views are named `<Owner><GroupName>` (`PartiesNoPartyIDs`).
//! * **Typed sends and dispatch**: every message implements [`Message`] (its MsgType and
//!   its body writer, the builder over a borrowed encoder), which the session layer's
//!   `send_typed::<M>` uses to write a typed body under the session's header; each version
//!   has a `MessageHandler` trait (QuickFIX/J's `MessageCracker`) and a `crack` function
//!   dispatching a decoded message to the method of its MsgType, zero-copy.
//! * **Compile time**: every method is a one-line `#[inline]` call into the generic runtime,
//!   and components are traits shared by every message that includes them, so code size
//!   grows with the dictionary, not with the number of places a component is used.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

mod field;
mod runtime;

pub use field::FieldResult;
/// The codec the generated code is built on (re-exported for convenience).
pub use peregrine_codec as codec;
/// The Reject a [`FieldResult::required`] or [`FieldResult::optional`] gives (re-exported
/// from `peregrine-dict`, whose validator uses the same type).
pub use peregrine_dict::{SessionRejectReason, ValidationError};
pub use runtime::{
    Body, Entries, EntryBuilder, FieldAccess, FieldEncode, FieldError, FixEnum, FixValue,
    GroupEntry, GroupWriter, IsMember, Message, TypedMessage, UnsupportedMessageType,
};

macro_rules! version {
    ($feature:literal, $module:ident, $file:literal, $doc:literal) => {
        #[cfg(feature = $feature)]
        #[doc = $doc]
        #[allow(clippy::all, non_camel_case_types)]
        pub mod $module {
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
    };
}

version!("fix40", fix40, "fix40.rs", "FIX 4.0 (from `FIX40.xml`).");
version!("fix41", fix41, "fix41.rs", "FIX 4.1 (from `FIX41.xml`).");
version!("fix42", fix42, "fix42.rs", "FIX 4.2 (from `FIX42.xml`).");
version!("fix43", fix43, "fix43.rs", "FIX 4.3 (from `FIX43.xml`).");
version!("fix44", fix44, "fix44.rs", "FIX 4.4 (from `FIX44.xml`).");
version!(
    "fixt11",
    fixt11,
    "fixt11.rs",
    "FIXT 1.1 session messages (from `FIXT11.xml`)."
);
version!(
    "fix50",
    fix50,
    "fix50.rs",
    "FIX 5.0 application messages (from `FIX50.xml`) with the FIXT 1.1 header."
);
version!(
    "fix50sp1",
    fix50sp1,
    "fix50sp1.rs",
    "FIX 5.0 SP1 application messages (from `FIX50SP1.xml`) with the FIXT 1.1 header."
);
version!(
    "fix50sp2",
    fix50sp2,
    "fix50sp2.rs",
    "FIX 5.0 SP2 application messages (from `FIX50SP2.xml`) with the FIXT 1.1 header."
);

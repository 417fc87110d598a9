//! SBE (Simple Binary Encoding) codecs for Peregrine's internal order flow.
//!
//! Everything below [`generated`] is produced by Real Logic's `sbe-tool` (sbe-all 1.38.1,
//! Rust target) from the schema `crates/peregrine-aeron/sbe/orders.xml`, and is committed
//! so that a build needs no Java. Do not edit it by hand: change the schema and run
//! `make sbe`, which regenerates the files and formats them with rustfmt.
//!
//! The generated items are re-exported at the crate root (the generated modules refer to
//! each other through `crate::`), so `peregrine_sbe::new_order_codec::NewOrderEncoder` and
//! friends are the paths to use. `peregrine-aeron` wraps them in a typed, allocation-free
//! API; most users want that crate rather than this one.
//!
//! # Example
//!
//! The generated codecs used directly: a flyweight encoder over a caller's buffer, then a
//! decoder over the same bytes. The decoders index the buffer without checking its length,
//! so they panic on a short one; `peregrine-aeron`'s `decode` checks first.
//!
//! ```
//! use peregrine_sbe::message_header_codec::{MessageHeaderDecoder, ENCODED_LENGTH};
//! use peregrine_sbe::new_order_codec::{NewOrderDecoder, NewOrderEncoder, SBE_TEMPLATE_ID};
//! use peregrine_sbe::side::Side;
//! use peregrine_sbe::{Encoder as _, ReadBuf, WriteBuf, SBE_SCHEMA_ID};
//!
//! let mut buf = [0u8; 256];
//! let mut enc = NewOrderEncoder::default().wrap(WriteBuf::new(&mut buf), ENCODED_LENGTH);
//! // Writing the header hands back its parent, the message encoder.
//! enc = enc.header(0).parent().unwrap();
//! enc.session_id(7);
//! enc.cl_ord_id_zero_padded(b"ORD-1");
//! enc.side(Side::Buy);
//! let len = enc.get_limit();
//!
//! let header = MessageHeaderDecoder::default().wrap(ReadBuf::new(&buf[..len]), 0);
//! assert_eq!((header.schema_id(), header.template_id()), (SBE_SCHEMA_ID, SBE_TEMPLATE_ID));
//! let order = NewOrderDecoder::default().header(header, 0);
//! assert_eq!(order.session_id(), 7);
//! assert_eq!(&order.cl_ord_id()[..5], b"ORD-1");
//! assert_eq!(order.side(), Side::Buy);
//! ```
#![forbid(unsafe_code)]
// The hand-written part has no fallible function today; the lint keeps it so. The
// generated module is exempt (its `allow(clippy::pedantic)` covers this lint).
#![warn(clippy::missing_errors_doc)]

/// The sbe-tool output. Generated code follows the generator's conventions, not ours, so
/// it alone is exempt from the documentation and clippy rules.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_imports, dead_code)]
#[path = "generated/lib.rs"]
pub mod generated;

pub use generated::*;

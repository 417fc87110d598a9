//! Decoding one framed message into a [`MessageView`].
//!
//! The decoder owns reusable tables; decoding indexes the message bytes in
//! place (values are slices of the input) and allocates nothing once its
//! tables have grown to the largest message seen.
//!
//! * `config`: what the decoder checks ([`DecoderConfig`], [`DataFields`]);
//! * `error`: why a message could not be decoded ([`DecodeError`]);
//! * `decoder`: the [`Decoder`], its choice of path and the framing checks;
//! * `walk`: the fast walk and the general walk over the fields;
//! * `tag_parse`: tag parsing and the errors of malformed fields;
//! * `index`: the tag index behind [`MessageView::get`];
//! * `view`: [`MessageView`], [`FieldSlice`], [`Field`] and their iterators;
//! * `group`: repeating groups ([`Group`], [`GroupEntries`]);
//! * `from_value`: typed reads ([`FromFixValue`]).
//!
//! ```
//! use peregrine_codec::{Decoder, DecoderConfig};
//! let msg = b"8=FIX.4.4\x019=12\x0135=0\x01112=ab\x0110=102\x01";
//! let mut decoder = Decoder::new(DecoderConfig::default());
//! let view = decoder.decode(msg).unwrap();
//! assert_eq!(view.msg_type(), b"0");
//! assert_eq!(view.get(112), Some(&b"ab"[..]));
//! assert_eq!(view.len(), 5);
//! ```

mod config;
mod decoder;
mod error;
mod from_value;
mod group;
mod index;
mod tag_parse;
mod view;
mod walk;

pub use config::{DataFields, DecoderConfig, STANDARD_DATA_FIELDS};
pub use decoder::{DecodePath, Decoder, MAX_FIELDS};
pub use error::DecodeError;
pub use from_value::FromFixValue;
pub use group::{Group, GroupEntries};
pub use view::{Field, FieldIter, FieldSlice, MessageView, TagIter};

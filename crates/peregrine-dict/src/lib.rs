//! QuickFIX-format XML data dictionaries for Peregrine.
//!
//! * **Loading** ([`Dictionary::from_file`], [`Dictionary::from_xml_str`]): the QuickFIX
//!   dictionary format (`FIX40.xml` … `FIX50SP2.xml`, `FIXT11.xml`, and venue-specific
//!   variants), with errors that name the file, the line and the element.
//! * **The model as written** ([`FieldDef`], [`MessageDef`], [`ComponentDef`], [`GroupDef`],
//!   [`Member`]) for the code generator: ordered members, required flags, types, enums with
//!   descriptions, message categories.
//! * **Resolved tables** ([`FlatScope`]): per message, header, trailer and group, which tags
//!   are allowed and required, with components flattened — dense arrays indexed by tag.
//! * **Validation** ([`Validator`]) of a decoded message with QuickFIX's semantics, producing
//!   the SessionRejectReason (373), RefTagID (371) and Text (58) QuickFIX would send.
//!
//! ```
//! use peregrine_dict::{Dictionary, SessionRejectReason, ValidationSettings, Validator};
//!
//! let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
//! let validator = Validator::new(&dict, ValidationSettings::default());
//! // A Heartbeat carrying Symbol (55), which Heartbeat does not define.
//! let fields: &[(u32, &[u8])] = &[
//!     (8, b"FIX.4.4"), (9, b"60"), (35, b"0"), (34, b"2"), (49, b"TW"),
//!     (52, b"20240115-10:30:00.123"), (56, b"ISLD"), (55, b"MSFT"), (10, b"000"),
//! ];
//! let err = validator.validate_fields(b"0", fields.iter().copied()).unwrap_err();
//! assert_eq!(err.reason, SessionRejectReason::TagNotDefinedForThisMessageType);
//! assert_eq!(err.ref_tag, Some(55));
//! assert_eq!(err.text(), "Tag not defined for this message type");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod builtin;
pub mod codegen;
mod desc;
mod dictionary;
mod error;
mod format;
mod model;
mod resolve;
mod scope;
mod types;
mod validate;

pub use dictionary::{Dictionary, LoadOptions, MAX_COMPONENT_DEPTH, MAX_GROUP_DEPTH, MAX_TAG};
pub use error::{DictError, ErrorKind};
pub use model::{
    ComponentDef, ComponentRef, EnumValue, FieldDef, FieldRef, GroupDef, Member, MessageDef,
    MsgCategory,
};
pub use scope::FlatScope;
pub use types::FixType;
pub use validate::{
    check_sending_time, Dictionaries, RejectText, SessionRejectReason, ShapeCache, ValidationError,
    ValidationSettings, Validator, USER_DEFINED_TAG_MIN,
};

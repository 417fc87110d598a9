//! What a failed validation reports: the SessionRejectReason (373) codes and texts
//! ([`SessionRejectReason`]), the error ([`ValidationError`]) and the Reject's Text (58)
//! per BeginString ([`RejectText`]).

use std::fmt;

/// SessionRejectReason (373) codes.
///
/// ```
/// use peregrine_dict::SessionRejectReason;
/// assert_eq!(SessionRejectReason::ValueIsIncorrect.code(), 5);
/// assert_eq!(SessionRejectReason::from_code(16), Some(SessionRejectReason::IncorrectNumInGroupCount));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SessionRejectReason {
    /// 0: the tag is not defined in the dictionary.
    InvalidTagNumber = 0,
    /// 1
    RequiredTagMissing = 1,
    /// 2: defined, but not for this message type.
    TagNotDefinedForThisMessageType = 2,
    /// 3
    UndefinedTag = 3,
    /// 4
    TagSpecifiedWithoutAValue = 4,
    /// 5: not one of the enumerated values.
    ValueIsIncorrect = 5,
    /// 6: syntax wrong for the type.
    IncorrectDataFormatForValue = 6,
    /// 7
    DecryptionProblem = 7,
    /// 8
    SignatureProblem = 8,
    /// 9
    CompIdProblem = 9,
    /// 10
    SendingTimeAccuracyProblem = 10,
    /// 11: MsgType not in the dictionary.
    InvalidMsgType = 11,
    /// 12
    XmlValidationError = 12,
    /// 13
    TagAppearsMoreThanOnce = 13,
    /// 14
    TagSpecifiedOutOfRequiredOrder = 14,
    /// 15
    RepeatingGroupFieldsOutOfOrder = 15,
    /// 16
    IncorrectNumInGroupCount = 16,
    /// 17
    NonDataValueIncludesFieldDelimiter = 17,
    /// 18
    InvalidUnsupportedApplicationVersion = 18,
    /// 99
    Other = 99,
}

impl SessionRejectReason {
    /// The numeric code sent in tag 373.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The reason with this code.
    pub fn from_code(code: u32) -> Option<Self> {
        use SessionRejectReason::*;
        Some(match code {
            0 => InvalidTagNumber,
            1 => RequiredTagMissing,
            2 => TagNotDefinedForThisMessageType,
            3 => UndefinedTag,
            4 => TagSpecifiedWithoutAValue,
            5 => ValueIsIncorrect,
            6 => IncorrectDataFormatForValue,
            7 => DecryptionProblem,
            8 => SignatureProblem,
            9 => CompIdProblem,
            10 => SendingTimeAccuracyProblem,
            11 => InvalidMsgType,
            12 => XmlValidationError,
            13 => TagAppearsMoreThanOnce,
            14 => TagSpecifiedOutOfRequiredOrder,
            15 => RepeatingGroupFieldsOutOfOrder,
            16 => IncorrectNumInGroupCount,
            17 => NonDataValueIncludesFieldDelimiter,
            18 => InvalidUnsupportedApplicationVersion,
            99 => Other,
            _ => return None,
        })
    }

    /// QuickFIX's Text (58) for this reason, exactly as the acceptance scripts expect it.
    pub fn text(self) -> &'static str {
        use SessionRejectReason::*;
        match self {
            InvalidTagNumber => "Invalid tag number",
            RequiredTagMissing => "Required tag missing",
            TagNotDefinedForThisMessageType => "Tag not defined for this message type",
            UndefinedTag => "Undefined Tag",
            TagSpecifiedWithoutAValue => "Tag specified without a value",
            ValueIsIncorrect => "Value is incorrect (out of range) for this tag",
            IncorrectDataFormatForValue => "Incorrect data format for value",
            DecryptionProblem => "Decryption problem",
            SignatureProblem => "Signature problem",
            CompIdProblem => "CompID problem",
            SendingTimeAccuracyProblem => "SendingTime accuracy problem",
            InvalidMsgType => "Invalid MsgType",
            XmlValidationError => "XML Validation error",
            TagAppearsMoreThanOnce => "Tag appears more than once",
            TagSpecifiedOutOfRequiredOrder => "Tag specified out of required order",
            RepeatingGroupFieldsOutOfOrder => "Repeating group fields out of order",
            IncorrectNumInGroupCount => "Incorrect NumInGroup count for repeating group",
            NonDataValueIncludesFieldDelimiter => "Non Data Value includes Field Delimiter",
            InvalidUnsupportedApplicationVersion => "Invalid/Unsupported Application Version",
            Other => "Other",
        }
    }
}

/// Why a message failed validation: what a session-level Reject (35=3) must carry.
///
/// How the session turns it into a Reject, per BeginString (what the QuickFIX acceptance
/// scripts expect):
///
/// | BeginString | 58 Text | 371 RefTagID | 373 SessionRejectReason |
/// | --- | --- | --- | --- |
/// | FIX.4.0, FIX.4.1 | `"<text> (<tag>)"`, or `"<text>"` without a tag | absent | absent |
/// | FIX.4.2 | `"<text>"` | the tag, if any | only for codes ≤ 11 (4.2's enum) |
/// | FIX.4.3 and later, FIXT.1.1 | `"<text>"` | the tag, if any | always |
///
/// [`ValidationError::reject_text`], [`ValidationError::ref_tag_field`] and
/// [`ValidationError::reason_field`] implement the table. RefMsgType (372) is the
/// message's MsgType from FIX.4.2 on.
///
/// *Invalid vs unsupported MsgType*: [`SessionRejectReason::InvalidMsgType`] means the
/// MsgType is not in the dictionary — a session Reject with 373=11 and no 371. A MsgType
/// that is in the dictionary but that the application does not handle is not a validation
/// error: the application reports it and the session answers with BusinessMessageReject
/// (35=j, 380=3, 58="Unsupported Message Type") from FIX.4.2 on, or a session Reject with
/// the same text (no 373) for FIX.4.0/4.1. See [`ValidationError::UNSUPPORTED_MESSAGE_TYPE_TEXT`].
///
/// ```
/// use peregrine_dict::{SessionRejectReason, ValidationError};
/// let e = ValidationError { reason: SessionRejectReason::RequiredTagMissing, ref_tag: Some(56) };
/// assert_eq!(e.text(), "Required tag missing");
/// assert_eq!(e.reject_text("FIX.4.0").to_string(), "Required tag missing (56)");
/// assert_eq!(e.reject_text("FIX.4.4").to_string(), "Required tag missing");
/// assert_eq!(e.ref_tag_field("FIX.4.1"), None);
/// assert_eq!(e.reason_field("FIX.4.2"), Some(1));
/// let dup = ValidationError { reason: SessionRejectReason::TagAppearsMoreThanOnce, ref_tag: Some(40) };
/// assert_eq!(dup.reason_field("FIX.4.2"), None);
/// assert_eq!(dup.reason_field("FIX.4.4"), Some(13));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValidationError {
    /// SessionRejectReason (373).
    pub reason: SessionRejectReason,
    /// RefTagID (371): the offending tag, when there is one.
    pub ref_tag: Option<u32>,
}

fn pre_fix42(begin_string: &str) -> bool {
    begin_string == "FIX.4.0" || begin_string == "FIX.4.1"
}

impl ValidationError {
    /// Text of the BusinessMessageReject (or FIX.4.0/4.1 Reject) the session sends for a
    /// MsgType the application does not support.
    pub const UNSUPPORTED_MESSAGE_TYPE_TEXT: &'static str = "Unsupported Message Type";

    /// Builds an error.
    pub fn new(reason: SessionRejectReason, ref_tag: Option<u32>) -> Self {
        ValidationError { reason, ref_tag }
    }

    /// QuickFIX's Text (58), without the tag (FIX.4.2 and later).
    pub fn text(&self) -> &'static str {
        self.reason.text()
    }

    /// The Text (58) for a Reject under this BeginString: FIX.4.0/4.1 append ` (<tag>)`.
    /// Formats without allocating.
    pub fn reject_text<'a>(&self, begin_string: &'a str) -> RejectText<'a> {
        RejectText {
            err: *self,
            begin_string,
        }
    }

    /// RefTagID (371) to send under this BeginString (none before FIX.4.2).
    pub fn ref_tag_field(&self, begin_string: &str) -> Option<u32> {
        if pre_fix42(begin_string) {
            None
        } else {
            self.ref_tag
        }
    }

    /// SessionRejectReason (373) to send under this BeginString: none before FIX.4.2; in
    /// FIX.4.2 only the codes its enum defines (0–11).
    pub fn reason_field(&self, begin_string: &str) -> Option<u32> {
        let code = self.reason.code();
        if pre_fix42(begin_string) || (begin_string == "FIX.4.2" && code > 11) {
            None
        } else {
            Some(code)
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ref_tag {
            Some(t) => write!(f, "{} ({t})", self.text()),
            None => f.write_str(self.text()),
        }
    }
}

impl std::error::Error for ValidationError {}

/// Text (58) of a Reject, formatted for a BeginString (see [`ValidationError::reject_text`]).
#[derive(Debug, Clone, Copy)]
pub struct RejectText<'a> {
    err: ValidationError,
    begin_string: &'a str,
}

impl fmt::Display for RejectText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.err.ref_tag {
            Some(t) if pre_fix42(self.begin_string) => write!(f, "{} ({t})", self.err.text()),
            _ => f.write_str(self.err.text()),
        }
    }
}

/// Reason 14 on `tag`: a field out of its section's order.
#[inline]
pub(super) fn out_of_order(tag: u32) -> ValidationError {
    ValidationError::new(
        SessionRejectReason::TagSpecifiedOutOfRequiredOrder,
        Some(tag),
    )
}

/// Reason 1 on `tag`: a required field missing.
#[inline]
pub(super) fn required_missing(tag: u32) -> ValidationError {
    ValidationError::new(SessionRejectReason::RequiredTagMissing, Some(tag))
}

//! Validation of a decoded message against a dictionary, with QuickFIX's semantics.

use std::fmt;

use crate::dictionary::Runtime;
use crate::dictionary::{
    Dictionary, HEADER_SCOPE, SECTION_BODY, SECTION_HEADER, SECTION_TRAILER, TRAILER_SCOPE,
};
use crate::format;
use crate::scope::{desc, is_framing, EnumSet, FieldInfo, HeaderTrailer, Scope};
use crate::MAX_GROUP_DEPTH;

/// Tags from this number up are user-defined (QuickFIX's `ValidateUserDefinedFields`).
pub const USER_DEFINED_TAG_MIN: u32 = 5000;

/// Validation settings, named after QuickFIX's session settings.
///
/// ```
/// use peregrine_dict::ValidationSettings;
/// let s = ValidationSettings { allow_unknown_msg_fields: true, ..ValidationSettings::default() };
/// assert!(s.validate_fields_out_of_order);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidationSettings {
    /// `ValidateFieldsOutOfOrder` (default Y): a header field after the body, or a body or
    /// header field after the trailer, is rejected with reason 14.
    pub validate_fields_out_of_order: bool,
    /// `ValidateFieldsHaveValues` (default Y): an empty value is rejected with reason 4.
    /// When off, empty values skip the format and enum checks.
    pub validate_fields_have_values: bool,
    /// `ValidateUserDefinedFields` (default Y): tags ≥ 5000 must be defined for the message.
    pub validate_user_defined_fields: bool,
    /// `AllowUnknownMsgFields` (default N): tags < 5000 not defined for the message (or not
    /// defined at all) are accepted.
    pub allow_unknown_msg_fields: bool,
    /// `ValidateUnorderedGroupFields` (default Y): group members must appear in dictionary
    /// order within an entry (reason 15).
    pub validate_unordered_group_fields: bool,
    /// `CheckLatency` (default Y): for the session layer, see [`check_sending_time`].
    pub check_latency: bool,
    /// `MaxLatency` in seconds (default 120).
    pub max_latency_secs: u32,
}

impl Default for ValidationSettings {
    fn default() -> Self {
        ValidationSettings {
            validate_fields_out_of_order: true,
            validate_fields_have_values: true,
            validate_user_defined_fields: true,
            allow_unknown_msg_fields: false,
            validate_unordered_group_fields: true,
            check_latency: true,
            max_latency_secs: 120,
        }
    }
}

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

/// Checks SendingTime (52) against the local clock, as QuickFIX's `CheckLatency` does:
/// `|now - sending_time| <= max_latency_secs`. Times are UTC; `now_unix_nanos` is
/// nanoseconds since the Unix epoch (the session passes its clock in).
///
/// Errors: reason 10 (no RefTagID) when out of range, reason 6 on tag 52 when unparseable.
///
/// ```
/// use peregrine_dict::{check_sending_time, SessionRejectReason};
/// let now = 1_705_314_600_000_000_000i128; // 2024-01-15 10:30:00 UTC
/// assert!(check_sending_time(b"20240115-10:29:00.000", now, 120).is_ok());
/// let e = check_sending_time(b"20240115-10:00:00", now, 120).unwrap_err();
/// assert_eq!(e.reason, SessionRejectReason::SendingTimeAccuracyProblem);
/// assert_eq!(e.ref_tag, None);
/// ```
pub fn check_sending_time(
    sending_time: &[u8],
    now_unix_nanos: i128,
    max_latency_secs: u32,
) -> Result<(), ValidationError> {
    let t = format::parse_timestamp(sending_time).ok_or(ValidationError::new(
        SessionRejectReason::IncorrectDataFormatForValue,
        Some(52),
    ))?;
    if (now_unix_nanos - t).abs() > max_latency_secs as i128 * 1_000_000_000 {
        Err(ValidationError::new(
            SessionRejectReason::SendingTimeAccuracyProblem,
            None,
        ))
    } else {
        Ok(())
    }
}

/// Validates decoded messages against a dictionary (or a FIXT transport dictionary plus an
/// application dictionary), with QuickFIX's checks, order of checks and reject reasons.
///
/// Cheap: one pass over the fields in wire order, one load per field from a table
/// precompiled per message type; no hashing per field, no allocation (except a scratch
/// buffer for a message type with more than 4,096 header, trailer and body members,
/// which no QuickFIX dictionary has: FIX50SP2's largest has 391).
///
/// Order of checks (QuickFIX/J's, which the acceptance scripts follow):
/// 1. structure, first offender in wire order: header field after the body or a field after
///    the trailer started (14, if `ValidateFieldsOutOfOrder`), a tag repeated in the same
///    header/body/trailer or group entry (13), a group entry not starting with its delimiter
///    or, if `ValidateUnorderedGroupFields`, members out of dictionary order (15);
/// 2. MsgType in the dictionary (11);
/// 3. required fields: header, trailer, body (lowest missing tag first), then group entries (1);
/// 4. per field — empty value (4), format (6), enum value (5), tag unknown (0) or not defined
///    for the message (2), group count (16) — header first, then trailer, then body (lowest
///    tag first, as QuickFIX's tag-sorted field maps do), then fields inside groups.
///
/// ```
/// use peregrine_dict::{Dictionary, ValidationSettings, Validator};
/// let fixt = Dictionary::from_file("dictionaries/FIXT11.xml").unwrap();
/// let app = Dictionary::from_file("dictionaries/FIX50SP2.xml").unwrap();
/// let v = Validator::fixt(&fixt, &app, ValidationSettings::default());
/// let nos: &[(u32, &[u8])] = &[
///     (8, b"FIXT.1.1"), (9, b"99"), (35, b"D"), (34, b"2"), (49, b"TW"),
///     (52, b"20240115-10:30:00.123"), (56, b"ISLD"), (11, b"id"), (40, b"1"),
///     (54, b"1"), (55, b"MSFT"), (60, b"20240115-10:30:00"), (38, b"100"), (10, b"000"),
/// ];
/// assert_eq!(v.validate_fields(b"D", nos.iter().copied()), Ok(()));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Validator<'d> {
    transport: &'d Dictionary,
    app: &'d Dictionary,
    settings: ValidationSettings,
}

const PHASE_HEADER: u8 = 0;
const PHASE_TRAILER: u8 = 1;
const PHASE_BODY: u8 = 2;
const PHASE_GROUP: u8 = 3;

/// Error priority of a top-level section: header, then trailer, then body.
#[inline]
fn phase_of(section: u8) -> u8 {
    match section {
        SECTION_HEADER => PHASE_HEADER,
        SECTION_TRAILER => PHASE_TRAILER,
        _ => PHASE_BODY,
    }
}

struct Errors {
    field: Option<(u8, u32, ValidationError)>,
    group_required: Option<ValidationError>,
}

impl Errors {
    /// Records a per-field error; the one reported is the first by phase, then (outside
    /// groups) by lowest tag, then by first recorded. Only rejected messages come here.
    #[cold]
    #[inline(never)]
    fn field(&mut self, phase: u8, tag: u32, reason: SessionRejectReason) {
        let replace = match self.field {
            None => true,
            Some((p, t, _)) => phase < p || (phase == p && phase != PHASE_GROUP && tag < t),
        };
        if replace {
            self.field = Some((phase, tag, ValidationError::new(reason, Some(tag))));
        }
    }
}

/// Whether the slot's bit was set; sets it. A bit past the scratch (which `need` sizes,
/// so never in practice) reads as unset and is not recorded: no panic.
#[inline(always)]
fn test_and_set(bits: &mut [u64], base: usize, slot: usize) -> bool {
    match bits.get_mut(base + (slot >> 6)) {
        Some(word) => {
            let mask = 1u64 << (slot & 63);
            let was = *word & mask != 0;
            *word |= mask;
            was
        }
        None => false,
    }
}

#[inline]
fn test_bit(bits: &[u64], base: usize, slot: usize) -> bool {
    bits.get(base + (slot >> 6))
        .is_some_and(|w| w & (1u64 << (slot & 63)) != 0)
}

/// The lowest required tag of the scope whose top-level byte (`first` + slot + 1) is 0,
/// framing fields 8, 9, 35 and 10 left out (the codec guarantees them; they are never
/// reported, even if the caller leaves them out). Only incomplete messages come here.
#[cold]
#[inline(never)]
fn first_unseen(seen: &[u8], first: usize, scope: &Scope) -> Option<u32> {
    scope
        .required
        .iter()
        .map(|&s| s as usize)
        .filter(|&s| seen.get(first + (s + 1).min(desc::BIT as usize)) != Some(&1))
        .map(|s| scope.slots[s].tag)
        .find(|&t| !is_framing(t))
}

impl<'d> Validator<'d> {
    /// A validator for a single dictionary (FIX.4.0 – FIX.4.4, or any self-contained one).
    pub fn new(dict: &'d Dictionary, settings: ValidationSettings) -> Self {
        Validator {
            transport: dict,
            app: dict,
            settings,
        }
    }

    /// A validator for FIXT.1.1: header, trailer and admin messages from `transport`,
    /// application messages from `app` (e.g. FIX50SP2).
    pub fn fixt(
        transport: &'d Dictionary,
        app: &'d Dictionary,
        settings: ValidationSettings,
    ) -> Self {
        Validator {
            transport,
            app,
            settings,
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &ValidationSettings {
        &self.settings
    }

    /// The transport (header/trailer/admin) dictionary.
    pub fn transport(&self) -> &'d Dictionary {
        self.transport
    }

    /// The application dictionary.
    pub fn application(&self) -> &'d Dictionary {
        self.app
    }

    /// Validates a decoded message.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig};
    /// use peregrine_dict::{Dictionary, ValidationSettings, Validator};
    /// let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
    /// let v = Validator::new(&dict, ValidationSettings::default());
    /// let mut decoder = Decoder::new(DecoderConfig::default());
    /// let raw = b"8=FIX.4.4\x019=55\x0135=0\x0134=2\x0149=TW\x0152=20240115-10:30:00.123\x0156=ISLD\x01112=X\x0110=193\x01";
    /// let msg = decoder.decode(raw).unwrap();
    /// assert_eq!(v.validate(&msg), Ok(()));
    /// ```
    #[inline]
    pub fn validate(&self, msg: &peregrine_codec::MessageView<'_>) -> Result<(), ValidationError> {
        self.validate_fields(msg.msg_type(), msg.fields().map(|f| (f.tag, f.value)))
    }

    /// QuickFIX's `CheckLatency`/`MaxLatency` on a decoded message: with
    /// [`ValidationSettings::check_latency`] on, SendingTime (52) must be within
    /// [`ValidationSettings::max_latency_secs`] of `now_unix_nanos` (see
    /// [`check_sending_time`]); with it off, always `Ok`. A message without SendingTime gets
    /// reason 1 on tag 52, as in QuickFIX. The session layer calls this after the sequence
    /// number checks, as QuickFIX does; it is not part of [`Validator::validate`].
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig};
    /// use peregrine_dict::{Dictionary, SessionRejectReason, ValidationSettings, Validator};
    /// let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
    /// let v = Validator::new(&dict, ValidationSettings { max_latency_secs: 60, ..Default::default() });
    /// let mut decoder = Decoder::new(DecoderConfig::default());
    /// let raw = b"8=FIX.4.4\x019=55\x0135=0\x0134=2\x0149=TW\x0152=20240115-10:30:00.123\x0156=ISLD\x01112=X\x0110=193\x01";
    /// let msg = decoder.decode(raw).unwrap();
    /// let now = 1_705_314_600_000_000_000i128; // 2024-01-15 10:30:00 UTC
    /// assert_eq!(v.check_latency(&msg, now), Ok(()));
    /// let later = now + 61_000_000_000;
    /// let e = v.check_latency(&msg, later).unwrap_err();
    /// assert_eq!(e.reason, SessionRejectReason::SendingTimeAccuracyProblem);
    /// ```
    pub fn check_latency(
        &self,
        msg: &peregrine_codec::MessageView<'_>,
        now_unix_nanos: i128,
    ) -> Result<(), ValidationError> {
        if !self.settings.check_latency {
            return Ok(());
        }
        match msg.get(52) {
            Some(t) => check_sending_time(t, now_unix_nanos, self.settings.max_latency_secs),
            None => Err(required_missing(52)),
        }
    }

    /// Validates a message given as its MsgType and its fields in wire order (including or
    /// excluding 8, 9 and 10: the framing fields are never reported missing).
    pub fn validate_fields<'a, I>(&self, msg_type: &[u8], fields: I) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
    {
        match self.tables(msg_type) {
            Tables::Plan(lookup, msg) => self.dispatch(lookup, msg, fields, &mut false),
            Tables::Two(lookup, msg) => self.dispatch(lookup, msg, fields, &mut false),
            Tables::Unknown => self.invalid_msg_type(fields),
        }
    }

    /// [`Validator::validate`] that remembers the shapes of the messages it passes (see
    /// [`ShapeCache`]): a message of a shape seen before only has its values checked. The
    /// result is always the one [`Validator::validate`] gives. Keep one cache per session
    /// (or per thread); it empties itself when used with another validator's dictionaries
    /// or settings.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig};
    /// use peregrine_dict::{Dictionary, ShapeCache, ValidationSettings, Validator};
    /// let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
    /// let v = Validator::new(&dict, ValidationSettings::default());
    /// let mut shapes = ShapeCache::new();
    /// let mut decoder = Decoder::new(DecoderConfig::default());
    /// let raw = b"8=FIX.4.4\x019=55\x0135=0\x0134=2\x0149=TW\x0152=20240115-10:30:00.123\x0156=ISLD\x01112=X\x0110=193\x01";
    /// let msg = decoder.decode(raw).unwrap();
    /// assert_eq!(v.validate_with(&msg, &mut shapes), Ok(())); // walked; shape kept
    /// assert_eq!(v.validate_with(&msg, &mut shapes), Ok(())); // values checked only
    /// ```
    pub fn validate_with(
        &self,
        msg: &peregrine_codec::MessageView<'_>,
        shapes: &mut ShapeCache,
    ) -> Result<(), ValidationError> {
        self.validate_fields_with(
            msg.msg_type(),
            msg.fields().map(|f| (f.tag, f.value)),
            shapes,
        )
    }

    /// [`Validator::validate_with`] for fields given as an iterator (which is walked twice
    /// when a known shape's values fail).
    #[inline(always)]
    pub(crate) fn validate_fields_with<'a, I>(
        &self,
        msg_type: &[u8],
        fields: I,
        shapes: &mut ShapeCache,
    ) -> Result<(), ValidationError>
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
    {
        shapes.bind(self);
        // A known shape: no table to look up, only the values to check.
        let key = type_key(msg_type);
        if key != 0 && shapes.values_ok(self, key, fields.clone()) {
            #[cfg(test)]
            {
                shapes.hits += 1;
            }
            return Ok(());
        }
        match self.tables(msg_type) {
            Tables::Plan(lookup, m) => self.shaped(lookup, m, fields, shapes, key),
            Tables::Two(lookup, m) => self.shaped(lookup, m, fields, shapes, key),
            Tables::Unknown => self.invalid_msg_type(fields),
        }
    }

    /// The tables of a message type: its own precompiled plan when the transport
    /// dictionary defines it, else header and trailer from the transport dictionary and
    /// the body from the application one.
    #[inline(always)]
    fn tables(&self, msg_type: &[u8]) -> Tables<'d> {
        let t = self.transport;
        if let Some(i) = t.message_index(msg_type) {
            // Header, trailer and body from one dictionary: its own precompiled table.
            let body = &t.rt.scopes[t.scope_of_message(i) as usize];
            let plan = &t.rt.plans[i];
            let lookup = PlanLookup {
                lut: &plan.lut,
                enums: &plan.enums,
                sets: &t.rt.enums,
            };
            let msg = Msg {
                body_dict: t,
                body,
                bits: plan.bits,
                groups_need: plan.groups_need,
                required: plan.required,
            };
            return Tables::Plan(lookup, msg);
        }
        let Some(i) = self.app.message_index(msg_type) else {
            return Tables::Unknown;
        };
        let body = &self.app.rt.scopes[self.app.scope_of_message(i) as usize];
        let ht = &t.rt.header_trailer;
        let lookup = TwoTables {
            ht,
            body,
            transport: &t.rt,
            app: &self.app.rt,
        };
        let msg = Msg {
            body_dict: self.app,
            body,
            bits: ht.bits(body),
            groups_need: ht.groups_need(body),
            required: ht.required(body),
        };
        Tables::Two(lookup, msg)
    }

    /// Walks a message whose shape was not known (or whose values did not all pass), and
    /// keeps its shape if it passed on the walk's fast loop alone.
    #[inline(always)]
    fn shaped<'a, I, L>(
        &self,
        lookup: L,
        msg: Msg<'d>,
        fields: I,
        shapes: &mut ShapeCache,
        key: u64,
    ) -> Result<(), ValidationError>
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
        L: Lookup + Copy,
    {
        let mut fast = false;
        let result = self.dispatch(lookup, msg, fields.clone(), &mut fast);
        if result.is_ok() && fast && key != 0 {
            shapes.keep(key, &lookup, fields);
        }
        result
    }

    /// Picks the scratch for the message and walks it: one byte per top-level member
    /// (`bits` of them: duplicates without a read-modify-write chain through one word),
    /// `groups_need` bitset words for group instances.
    #[inline(always)]
    fn dispatch<'a, I, L>(
        &self,
        lookup: L,
        msg: Msg<'d>,
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        if msg.bits <= 512 && msg.groups_need <= 8 {
            self.walk::<8, I, L>(lookup, msg, &mut [0u8; 512], fields, fast)
        } else {
            self.walk_large::<I, L>(lookup, msg, fields, fast)
        }
    }

    /// [`Validator::dispatch`] for messages beyond 512 top-level members or 8 words of
    /// group bitsets (none in QuickFIX's dictionaries; past 4,096 members the bytes are
    /// allocated).
    #[inline(never)]
    fn walk_large<'a, I, L>(
        &self,
        lookup: L,
        msg: Msg<'d>,
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        let mut stack = [0u8; 4096];
        let mut heap = Vec::new();
        let seen: &mut [u8] = if msg.bits as usize <= stack.len() {
            &mut stack
        } else {
            heap.resize(msg.bits as usize, 0u8);
            &mut heap
        };
        if msg.groups_need <= 64 {
            self.walk::<64, I, L>(lookup, msg, seen, fields, fast)
        } else {
            self.walk::<1024, I, L>(lookup, msg, seen, fields, fast)
        }
    }

    /// Unknown MsgType: structure errors still come first, as in QuickFIX.
    #[cold]
    fn invalid_msg_type<'a, I>(&self, fields: I) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
    {
        if self.settings.validate_fields_out_of_order {
            let mut state = SECTION_HEADER;
            for (tag, _) in fields {
                match self.transport.section_of(tag) {
                    SECTION_HEADER if state != SECTION_HEADER => return Err(out_of_order(tag)),
                    SECTION_HEADER => {}
                    SECTION_TRAILER => state = SECTION_TRAILER,
                    _ if state == SECTION_TRAILER => return Err(out_of_order(tag)),
                    _ => state = 0,
                }
            }
        }
        Err(ValidationError::new(
            SessionRejectReason::InvalidMsgType,
            None,
        ))
    }

    /// Empty value (4), format (6), enum (5) for a field with these checks.
    #[inline(always)]
    fn check_value(
        &self,
        rt: &Runtime,
        info: FieldInfo,
        value: &[u8],
    ) -> Option<SessionRejectReason> {
        if value.is_empty() {
            return self
                .settings
                .validate_fields_have_values
                .then_some(SessionRejectReason::TagSpecifiedWithoutAValue);
        }
        // Class 0 (undefined tag) and TEXT have no format to check.
        if info.class > format::TEXT && !format::check(info.class, value) {
            return Some(SessionRejectReason::IncorrectDataFormatForValue);
        }
        if info.enum_idx != FieldInfo::NO_ENUM && !enum_ok(rt, info, value) {
            return Some(SessionRejectReason::ValueIsIncorrect);
        }
        None
    }

    /// [`Validator::check_value`] for a member, from its descriptor: empty value, format
    /// and (`enum_set` gives the member's enum set) enum value, a one-byte value of a
    /// single-value enum inline.
    #[inline(always)]
    fn check_member<'s>(
        &self,
        d: u32,
        value: &[u8],
        enum_set: impl FnOnce() -> Option<&'s EnumSet>,
    ) -> Option<SessionRejectReason> {
        if value.is_empty() {
            return self
                .settings
                .validate_fields_have_values
                .then_some(SessionRejectReason::TagSpecifiedWithoutAValue);
        }
        if !format::check(desc::class(d), value) {
            return Some(SessionRejectReason::IncorrectDataFormatForValue);
        }
        if d & desc::ENUM != 0 {
            let ok = match (enum_set(), value) {
                (None, _) => true,
                (Some(set), [b]) if d & desc::MULTI == 0 => set.contains_byte(*b),
                (Some(set), _) => enum_ok_slow(set, d & desc::MULTI != 0, value),
            };
            if !ok {
                return Some(SessionRejectReason::ValueIsIncorrect);
            }
        }
        None
    }

    /// A top-level field that is not a member of its section's scope (header, trailer or
    /// body): its value checks, then whether it is acceptable there at all.
    #[cold]
    #[inline(never)]
    fn non_member(&self, rt: &Runtime, section: u8, tag: u32, value: &[u8], errs: &mut Errors) {
        let info = rt.field_info.get(tag as usize).copied().unwrap_or_default();
        let phase = phase_of(section);
        if let Some(r) = self.check_value(rt, info, value) {
            errs.field(phase, tag, r);
        }
        let defined = info.class != 0;
        // Header and trailer: any defined field is accepted there (QuickFIX checks only that
        // the tag exists); the body: the tag must belong to the message.
        if defined && phase != PHASE_BODY {
            return;
        }
        let fail = if tag < USER_DEFINED_TAG_MIN {
            !self.settings.allow_unknown_msg_fields
        } else {
            self.settings.validate_user_defined_fields
        };
        if fail {
            errs.field(
                phase,
                tag,
                if defined {
                    SessionRejectReason::TagNotDefinedForThisMessageType
                } else {
                    SessionRejectReason::InvalidTagNumber
                },
            );
        }
    }

    /// The top-level walk: one pass in wire order, one descriptor load per field (order
    /// rank, bit, format class, flags); duplicates and required members are bits of one
    /// scratch bitset (header and trailer bits, then the body's), required members
    /// checked with a mask compare at the end.
    ///
    /// Ordinary fields — members in order, not repeated, with a well-formed value and, for
    /// an enum, a valid one-byte value — take a fast loop that records nothing; any other
    /// field leaves it for the general path, which starts that field over.
    #[inline(never)]
    /// `fast` is set to whether every field passed the fast loop (the result then
    /// depends only on the tags, the values' being non-empty and their value checks).
    fn walk<'a, const W: usize, I, L>(
        &self,
        lookup: L,
        msg: Msg<'d>,
        seen: &mut [u8],
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        let t = &self.transport.rt;
        let ht = &t.header_trailer;
        let (body, brt) = (msg.body, &msg.body_dict.rt);
        // Top-level duplicates and required members: locals, kept in registers.
        let mut top = Seen { seen, required: 0 };
        let mut w = Walk::<W> {
            bits: [0u64; W],
            next_word: 0,
            errs: Errors {
                field: None,
                group_required: None,
            },
        };
        let check_order = self.settings.validate_fields_out_of_order;
        // Order rank of the sections seen so far: header 0, body 1, trailer 2.
        let mut rank = 0u32;
        *fast = true;
        let mut it = fields.into_iter();
        'fields: loop {
            // The fast loop.
            let (mut tag, mut value, mut d) = loop {
                let Some((tag, value)) = it.next() else {
                    break 'fields;
                };
                let d = lookup.get(tag);
                if d >> desc::RANK_SHIFT < rank
                    || d & (desc::SLOW | desc::NON_MEMBER) != 0
                    || value.is_empty()
                    || (d & desc::CHECKS != 0 && !value_ok(&lookup, d, value))
                {
                    break (tag, value, d);
                }
                rank = d >> desc::RANK_SHIFT;
                if top.test_and_set(d) {
                    return Err(ValidationError::new(
                        SessionRejectReason::TagAppearsMoreThanOnce,
                        Some(tag),
                    ));
                }
            };
            // The general path: this field (then, after a group, the field that ended it).
            *fast = false;
            loop {
                // A header field after the body or trailer, a body field after the trailer.
                let r = d >> desc::RANK_SHIFT;
                if r < rank {
                    if check_order {
                        return Err(out_of_order(tag));
                    }
                } else {
                    rank = r;
                }
                let section = desc::section(d);
                let rt = if section == SECTION_BODY { brt } else { t };
                if d & desc::NON_MEMBER != 0 {
                    self.non_member(rt, section, tag, value, &mut w.errs);
                    continue 'fields;
                }
                if top.test_and_set(d) {
                    return Err(ValidationError::new(
                        SessionRejectReason::TagAppearsMoreThanOnce,
                        Some(tag),
                    ));
                }
                if let Some(r) = self.check_member(d, value, || lookup.enum_set(d)) {
                    w.errs.field(phase_of(section), tag, r);
                }
                if d & desc::GROUP == 0 {
                    continue 'fields;
                }
                let group = ht.member(body, d).group;
                let phase = phase_of(section);
                // The iterator goes to the group and comes back by value: kept in
                // registers in the fast loop, never behind a reference.
                let (rest, ended_by) = self.group(&mut w, it, rt, group, tag, value, phase);
                it = rest;
                match ended_by? {
                    Some((next_tag, next_value)) => {
                        (tag, value) = (next_tag, next_value);
                        d = lookup.get(tag);
                    }
                    None => continue 'fields,
                }
            }
        }

        // Required fields: header, trailer, body, lowest missing tag first.
        if top.required != msg.required {
            let header = &t.scopes[HEADER_SCOPE as usize];
            let trailer = &t.scopes[TRAILER_SCOPE as usize];
            let missing = first_unseen(top.seen, 0, header)
                .or_else(|| first_unseen(top.seen, ht.header_len as usize, trailer))
                .or_else(|| first_unseen(top.seen, ht.body_offset() as usize, body));
            if let Some(m) = missing {
                return Err(required_missing(m));
            }
        }
        if let Some(e) = w.errs.group_required {
            return Err(e);
        }
        match w.errs.field {
            Some((_, _, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Walks one repeating group (all its entries, nested groups included) after its count
    /// field; returns the first field that does not belong to it, if any. Nested groups
    /// are frames on a fixed stack (at most [`MAX_GROUP_DEPTH`] deep, as the dictionary's
    /// nesting), not recursive calls: the iterator stays a local.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn group<'a, const W: usize, I>(
        &self,
        w: &mut Walk<W>,
        mut it: I,
        rt: &'d Runtime,
        scope_index: u32,
        count_tag: u32,
        count_value: &[u8],
        count_phase: u8,
    ) -> (I, GroupEnd<'a>)
    where
        I: Iterator<Item = (u32, &'a [u8])>,
    {
        let have_values = self.settings.validate_fields_have_values;
        let unordered = self.settings.validate_unordered_group_fields;
        let mut cur = Frame::open(w, rt, scope_index, count_tag, count_value, count_phase);
        // The enclosing groups of `cur` (none until a nested group opens).
        let mut stack: [Option<Frame<'d>>; MAX_GROUP_DEPTH] = [None; MAX_GROUP_DEPTH];
        // Groups open, this one included (the outermost is depth 1).
        let mut depth = 1usize;
        let mut pending: Option<(u32, &'a [u8])> = None;
        loop {
            let field = match pending.take() {
                Some(p) => Some(p),
                None => it.next(),
            };
            // A member of the current group, or the end of the group.
            let (tag, value, d) = match field {
                Some((tag, value)) => match cur.scope.desc.get(tag as usize) {
                    Some(&d) if d & desc::BIT != 0 => (tag, value, d),
                    _ => (tag, value, 0),
                },
                None => (0, &[][..], 0),
            };
            if d == 0 {
                // The group ends: close it and hand the field to the enclosing group, or
                // back to the top level.
                cur.close(w);
                if depth == 1 {
                    return (it, Ok(field));
                }
                depth -= 1;
                let Some(parent) = stack[depth - 1] else {
                    // Never: every depth below the current one has its group.
                    return (it, Ok(field));
                };
                cur = parent;
                pending = field;
                continue;
            }
            let bit = (d & desc::BIT) as usize;
            let scope = cur.scope;
            if tag == scope.delimiter {
                if cur.instances > 0 {
                    cur.entry.check_required(w, scope);
                }
                cur.instances += 1;
                cur.entry.clear(w);
                cur.entry.test_and_set(w, bit);
            } else {
                let error = if cur.instances == 0 {
                    Some(SessionRejectReason::RepeatingGroupFieldsOutOfOrder)
                } else if cur.entry.test_and_set(w, bit) {
                    Some(SessionRejectReason::TagAppearsMoreThanOnce)
                } else if unordered && bit < cur.last_bit {
                    Some(SessionRejectReason::RepeatingGroupFieldsOutOfOrder)
                } else {
                    None
                };
                if let Some(reason) = error {
                    return (it, Err(ValidationError::new(reason, Some(tag))));
                }
            }
            cur.last_bit = bit;
            // Nothing to check but a value (the common case), else the full checks.
            if d & desc::CHECKS != 0 || value.is_empty() && have_values {
                let enum_set = || {
                    let idx = scope
                        .slots
                        .get(bit - 1)
                        .map_or(FieldInfo::NO_ENUM, |s| s.info.enum_idx);
                    cur.rt.enums.get(idx as usize)
                };
                if let Some(r) = self.check_member(d, value, enum_set) {
                    w.errs.field(PHASE_GROUP, tag, r);
                }
            }
            if d & desc::GROUP != 0 && depth < MAX_GROUP_DEPTH {
                let nested = scope.slots[bit - 1].group;
                stack[depth - 1] = Some(cur);
                depth += 1;
                cur = Frame::open(w, cur.rt, nested, tag, value, PHASE_GROUP);
            }
        }
    }
}

/// One open repeating group of [`Validator::group`].
#[derive(Clone, Copy)]
struct Frame<'d> {
    rt: &'d Runtime,
    scope: &'d Scope,
    count_tag: u32,
    count_phase: u8,
    /// The count field's value (-1 when not a count).
    declared: i64,
    instances: i64,
    /// The bit of the entry's last member (members must come in dictionary order).
    last_bit: usize,
    entry: EntryBits,
    /// The scratch's bump pointer before this group took its words.
    saved_next: usize,
}

impl<'d> Frame<'d> {
    /// A group opened by its count field.
    #[inline(always)]
    fn open<const W: usize>(
        w: &mut Walk<W>,
        rt: &'d Runtime,
        scope_index: u32,
        count_tag: u32,
        count_value: &[u8],
        count_phase: u8,
    ) -> Frame<'d> {
        let scope = &rt.scopes[scope_index as usize];
        let saved_next = w.next_word;
        // The entry's member bits: the first word in a register, any further words (groups
        // of 64 members or more) in the scratch.
        let (base, words) = w.alloc(scope.words.saturating_sub(1) as usize);
        Frame {
            rt,
            scope,
            count_tag,
            count_phase,
            declared: parse_count(count_value),
            instances: 0,
            last_bit: 0,
            entry: EntryBits {
                first: 0,
                base,
                words,
            },
            saved_next,
        }
    }

    /// The group ended: its last entry's required members, its count; its words freed.
    #[inline(always)]
    fn close<const W: usize>(&self, w: &mut Walk<W>) {
        if self.instances > 0 {
            self.entry.check_required(w, self.scope);
        }
        if self.declared >= 0 && self.declared != self.instances {
            w.errs.field(
                self.count_phase,
                self.count_tag,
                SessionRejectReason::IncorrectNumInGroupCount,
            );
        }
        w.next_word = self.saved_next;
    }
}

/// The member bits of one group entry: bits 0–63 in a register (no read-modify-write
/// chain through memory from one field to the next), the rest in `words` words of the
/// walk's scratch from `base` (past the scratch: not recorded, never a panic).
#[derive(Clone, Copy)]
struct EntryBits {
    first: u64,
    base: usize,
    words: usize,
}

impl EntryBits {
    /// Whether the bit was set; sets it.
    #[inline(always)]
    fn test_and_set<const W: usize>(&mut self, w: &mut Walk<W>, bit: usize) -> bool {
        if bit < 64 {
            let mask = 1u64 << bit;
            let was = self.first & mask != 0;
            self.first |= mask;
            was
        } else {
            test_and_set(&mut w.bits, self.base, bit - 64)
        }
    }

    /// Whether the bit is set.
    fn test(&self, w: &[u64], bit: usize) -> bool {
        if bit < 64 {
            self.first & 1u64 << bit != 0
        } else {
            test_bit(w, self.base, bit - 64)
        }
    }

    /// A new entry.
    #[inline(always)]
    fn clear<const W: usize>(&mut self, w: &mut Walk<W>) {
        self.first = 0;
        if let Some(words) = w.bits.get_mut(self.base..self.base + self.words) {
            words.fill(0);
        }
    }

    /// At the end of an entry: its first missing required member, if any, is recorded
    /// (the first such error of the message is the one reported).
    #[inline(always)]
    fn check_required<const W: usize>(&self, w: &mut Walk<W>, scope: &Scope) {
        let m0 = scope.req_mask.first().copied().unwrap_or(0);
        let rest = scope.req_mask.get(1..).unwrap_or(&[]);
        let complete = self.first & m0 == m0
            && rest
                .iter()
                .enumerate()
                .all(|(i, &m)| match w.bits.get(self.base + i) {
                    Some(&b) => b & m == m,
                    None => true,
                });
        if !complete {
            self.record_missing(w, scope);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_missing<const W: usize>(&self, w: &mut Walk<W>, scope: &Scope) {
        // Words past the scratch (a group that did not fit) are not checked.
        let fits = scope.words <= 1 || self.words + 1 == scope.words as usize;
        let missing = scope
            .required
            .iter()
            .map(|&s| s as usize)
            .filter(|&s| fits && !self.test(&w.bits, (s + 1).min(desc::BIT as usize)))
            .map(|s| scope.slots[s].tag)
            .find(|&t| !is_framing(t));
        if let Some(m) = missing {
            w.errs.group_required.get_or_insert(required_missing(m));
        }
    }
}

/// How a group walk ended: the field after the group (none at the end of the message),
/// or a structural error.
type GroupEnd<'a> = Result<Option<(u32, &'a [u8])>, ValidationError>;

/// How the top-level walk finds a tag's descriptor.
/// A message type's tables (see [`Validator::tables`]).
enum Tables<'d> {
    Plan(PlanLookup<'d>, Msg<'d>),
    Two(TwoTables<'d>, Msg<'d>),
    Unknown,
}

/// Messages of at most this many fields have their shapes kept.
const SHAPE_FIELDS: usize = 48;
/// Shapes kept at once (the oldest goes first).
const SHAPE_SLOTS: usize = 4;

/// One message shape: its type and its tags in order, with their descriptors.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// The MsgType ([`type_key`]); 0 for an empty slot.
    key: u64,
    len: u32,
    /// Tag, descriptor and enum set ([`ENUM_APP`] | index, or `NO_ENUM`) of each field.
    fields: [(u32, u32, u32); SHAPE_FIELDS],
}

/// In a shape's enum reference: the set is the application dictionary's (else the
/// transport dictionary's).
const ENUM_APP: u32 = 1 << 31;
const NO_ENUM: u32 = u32::MAX;

/// A MsgType of up to seven bytes as a word, its length in the top byte; 0 for a longer
/// one (never cached).
#[inline(always)]
fn type_key(msg_type: &[u8]) -> u64 {
    let n = msg_type.len();
    if n == 0 || n > 7 {
        return 0;
    }
    // Built in a register (bytes copied to memory and read back as a word would
    // wait for the stores).
    let mut key = (n as u64) << 56;
    for (i, &b) in msg_type.iter().enumerate() {
        key |= (b as u64) << (8 * i);
    }
    key
}

/// The shapes of messages that passed validation, for [`Validator::validate_with`].
///
/// A shape is a message type and the exact sequence of its tags. A message whose every
/// field passed the validator's fast loop (a member of the message in the right section,
/// no repeating group, not empty, its value well-formed) is valid or not according to
/// its shape alone, apart from those per-field value checks; so a message of a shape
/// that passed before needs only its values checked: no table lookups, no duplicate,
/// order or required-field bookkeeping. Anything else — a new shape, a value that fails,
/// a group — is walked in full, so errors are always the walk's own. Messages of up to
/// 48 fields, four shapes at a time; no allocation.
#[derive(Clone, Debug)]
pub struct ShapeCache {
    /// The validator the shapes were made with: dictionaries (by id) and settings.
    owner: Option<(u64, u64, ValidationSettings)>,
    slots: [Shape; SHAPE_SLOTS],
    /// The slot to replace next.
    next: usize,
    /// Messages passed on their shape (for tests).
    #[cfg(test)]
    pub(crate) hits: usize,
}

impl Default for ShapeCache {
    fn default() -> Self {
        ShapeCache::new()
    }
}

impl ShapeCache {
    /// An empty cache.
    pub fn new() -> Self {
        ShapeCache {
            owner: None,
            slots: [Shape {
                key: 0,
                len: 0,
                fields: [(0, 0, NO_ENUM); SHAPE_FIELDS],
            }; SHAPE_SLOTS],
            next: 0,
            #[cfg(test)]
            hits: 0,
        }
    }

    /// Forgets every shape unless they were made with `v`'s dictionaries and settings.
    #[inline]
    fn bind(&mut self, v: &Validator<'_>) {
        let owner = (v.transport.id, v.app.id, v.settings);
        if self.owner != Some(owner) {
            for slot in &mut self.slots {
                slot.key = 0;
            }
            self.owner = Some(owner);
        }
    }

    /// Whether the message has a kept shape and all its values pass the fast loop's
    /// checks (then the walk would pass it too).
    #[inline(always)]
    fn values_ok<'a, I>(&self, v: &Validator<'_>, key: u64, fields: I) -> bool
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
    {
        let len = match fields.size_hint() {
            (lo, Some(hi)) if lo == hi => lo as u32,
            _ => return false,
        };
        for shape in &self.slots {
            if shape.key != key || shape.len != len {
                continue;
            }
            let n = (shape.len as usize).min(SHAPE_FIELDS);
            let mut same = true;
            let mut kept = shape.fields[..n].iter();
            for (tag, value) in fields.clone() {
                let Some(&(kept_tag, d, set)) = kept.next() else {
                    same = false;
                    break;
                };
                if tag != kept_tag {
                    same = false;
                    break;
                }
                if value.is_empty() || (d & desc::CHECKS != 0 && !kept_value_ok(v, d, set, value)) {
                    // The right shape, a value to report: the walk does that.
                    return false;
                }
            }
            if same {
                return true;
            }
        }
        false
    }

    /// Keeps the shape of a message that passed on the fast loop alone.
    #[cold]
    fn keep<'a, L, I>(&mut self, key: u64, lookup: &L, fields: I)
    where
        L: Lookup,
        I: Iterator<Item = (u32, &'a [u8])>,
    {
        let slot = &mut self.slots[self.next];
        let mut len = 0;
        for (tag, _) in fields {
            if len == SHAPE_FIELDS {
                slot.key = 0;
                return;
            }
            let d = lookup.get(tag);
            let set = if d & desc::ENUM != 0 {
                lookup.enum_ref(d)
            } else {
                NO_ENUM
            };
            slot.fields[len] = (tag, d, set);
            len += 1;
        }
        slot.key = key;
        slot.len = len as u32;
        self.next = (self.next + 1) % SHAPE_SLOTS;
    }
}

/// [`value_ok`] for a field of a kept shape: the enum set by its reference.
#[inline(always)]
fn kept_value_ok(v: &Validator<'_>, d: u32, set: u32, value: &[u8]) -> bool {
    if d & desc::ENUM != 0 {
        let rt = if set & ENUM_APP != 0 {
            &v.app.rt
        } else {
            &v.transport.rt
        };
        match (value, rt.enums.get((set & !ENUM_APP) as usize)) {
            ([b], Some(set)) => set.contains_byte_well_formed(*b),
            _ => false,
        }
    } else {
        format::check(desc::class(d), value)
    }
}

trait Lookup {
    /// The descriptor of `tag`: rank, bit, checks, flags.
    fn get(&self, tag: u32) -> u32;
    /// The enum set of the member with this descriptor.
    fn enum_set(&self, d: u32) -> Option<&EnumSet>;
    /// Where that enum set is (for a [`ShapeCache`]): `ENUM_APP` | its index among the
    /// application dictionary's sets, or its index among the transport dictionary's.
    fn enum_ref(&self, d: u32) -> u32;
}

/// A message's precompiled table ([`HeaderTrailer::plan`]) with header, trailer and body
/// from one dictionary: one load.
#[derive(Clone, Copy)]
struct PlanLookup<'d> {
    lut: &'d [u32],
    /// By bit: index into `sets`.
    enums: &'d [u32],
    /// The dictionary's enum sets.
    sets: &'d [EnumSet],
}

impl Lookup for PlanLookup<'_> {
    #[inline(always)]
    fn get(&self, tag: u32) -> u32 {
        self.lut
            .get(tag as usize)
            .copied()
            .unwrap_or(desc::BODY_NON_MEMBER)
    }
    #[inline(always)]
    fn enum_set(&self, d: u32) -> Option<&EnumSet> {
        let idx = self.enums.get((d & desc::BIT) as usize)?;
        self.sets.get(*idx as usize)
    }
    fn enum_ref(&self, d: u32) -> u32 {
        // A plan's sets are its (transport) dictionary's.
        self.enums
            .get((d & desc::BIT) as usize)
            .map_or(NO_ENUM, |&i| i & !ENUM_APP)
    }
}

/// Header and trailer from one dictionary, the body from another (FIXT): the same
/// function as the plan they would make ([`HeaderTrailer::lookup`]), two loads.
#[derive(Clone, Copy)]
struct TwoTables<'d> {
    ht: &'d HeaderTrailer,
    body: &'d Scope,
    /// The header and trailer's dictionary.
    transport: &'d Runtime,
    /// The body's dictionary.
    app: &'d Runtime,
}

impl Lookup for TwoTables<'_> {
    #[inline(always)]
    fn get(&self, tag: u32) -> u32 {
        self.ht.lookup(self.body, tag)
    }
    #[inline(always)]
    fn enum_set(&self, d: u32) -> Option<&EnumSet> {
        let rt = if desc::section(d) == SECTION_BODY {
            self.app
        } else {
            self.transport
        };
        rt.enums
            .get(self.ht.member(self.body, d).info.enum_idx as usize)
    }
    fn enum_ref(&self, d: u32) -> u32 {
        let idx = self.ht.member(self.body, d).info.enum_idx & !ENUM_APP;
        if desc::section(d) == SECTION_BODY {
            ENUM_APP | idx
        } else {
            idx
        }
    }
}

/// The fast loop's value check of a member with a format or an enum: well-formed and,
/// for an enum, a valid one-byte value (anything else takes the general path). Pure.
#[inline(always)]
fn value_ok<L: Lookup>(lookup: &L, d: u32, value: &[u8]) -> bool {
    if d & desc::ENUM != 0 {
        match (value, lookup.enum_set(d)) {
            ([b], Some(set)) => set.contains_byte_well_formed(*b),
            _ => false,
        }
    } else {
        format::check(desc::class(d), value)
    }
}

/// The enum check of a value that is not a single byte of a single-value enum: the value
/// (each space-separated token of a multi-value type) must be one of the field's values.
#[inline(never)]
fn enum_ok_slow(set: &EnumSet, multi: bool, value: &[u8]) -> bool {
    if multi {
        value
            .split(|&b| b == b' ')
            .all(|t| t.is_empty() || set.contains(t))
    } else {
        set.contains(value)
    }
}

/// The enum check of a non-member's value (its `FieldInfo`).
#[inline]
fn enum_ok(rt: &Runtime, info: FieldInfo, value: &[u8]) -> bool {
    match rt.enums.get(info.enum_idx as usize) {
        Some(set) => enum_ok_slow(set, info.multi, value),
        None => true,
    }
}

/// What the walk needs to know of the message type.
#[derive(Clone, Copy)]
struct Msg<'d> {
    /// The dictionary of the body.
    body_dict: &'d Dictionary,
    body: &'d Scope,
    /// Top-level bits (see `Plan::bits`).
    bits: u32,
    /// Group bitset words (see `Plan::groups_need`).
    groups_need: u32,
    /// Required top-level members (see `Plan::required`).
    required: u32,
}

/// The top-level members seen: one byte per member (no read-modify-write chain through
/// a shared word from one field to the next) and the count of required ones.
struct Seen<'s> {
    seen: &'s mut [u8],
    required: u32,
}

impl Seen<'_> {
    /// Whether the top-level member was seen before; marks it seen and counts it if
    /// required. (`seen` holds every top-level bit: a bit past it would be ignored.)
    #[inline(always)]
    fn test_and_set(&mut self, d: u32) -> bool {
        let Some(byte) = self.seen.get_mut((d & desc::BIT) as usize) else {
            return false;
        };
        let was = *byte != 0;
        *byte = 1;
        self.required += d >> desc::REQUIRED_SHIFT & 1;
        was
    }
}

/// Per-call scratch of group walks: instance bitsets (bump-allocated per scope) and the
/// errors recorded so far.
struct Walk<const W: usize> {
    bits: [u64; W],
    next_word: usize,
    errs: Errors,
}

impl<const W: usize> Walk<W> {
    /// `words` zeroed bitset words: (first word, words). If the scratch is exhausted, the
    /// words lie past it — (W, 0) — and duplicate and required checks are skipped for
    /// that scope, never a panic.
    #[inline(always)]
    fn alloc(&mut self, words: usize) -> (usize, usize) {
        if self.next_word + words <= W {
            self.next_word += words;
            (self.next_word - words, words)
        } else {
            (W, 0)
        }
    }
}
/// A NumInGroup value: 1 to 9 digits, else -1 (not a count: no count check). One pass.
#[inline]
fn parse_count(v: &[u8]) -> i64 {
    if v.is_empty() || v.len() > 9 {
        return -1;
    }
    let mut n = 0i64;
    for &b in v {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return -1;
        }
        n = n * 10 + digit as i64;
    }
    n
}

#[inline]
fn out_of_order(tag: u32) -> ValidationError {
    ValidationError::new(
        SessionRejectReason::TagSpecifiedOutOfRequiredOrder,
        Some(tag),
    )
}

#[inline]
fn required_missing(tag: u32) -> ValidationError {
    ValidationError::new(SessionRejectReason::RequiredTagMissing, Some(tag))
}

/// Owned dictionaries for a session: one dictionary (FIX.4.x), or a FIXT transport
/// dictionary plus an application dictionary. Share it with `Arc`; take a [`Validator`]
/// (three words, `Copy`) whenever one is needed.
///
/// ```
/// use std::sync::Arc;
/// use peregrine_dict::{Dictionaries, Dictionary, ValidationSettings};
/// let fixt = Dictionaries::fixt(
///     Dictionary::from_file("dictionaries/FIXT11.xml").unwrap(),
///     Dictionary::from_file("dictionaries/FIX50SP2.xml").unwrap(),
/// );
/// let shared = Arc::new(fixt);
/// let v = shared.validator(ValidationSettings::default());
/// assert_eq!(v.transport().begin_string(), "FIXT.1.1");
/// assert_eq!(shared.application().version(), "FIX.5.0SP2");
/// ```
#[derive(Debug)]
pub struct Dictionaries {
    transport: Dictionary,
    app: Option<Dictionary>,
}

impl Dictionaries {
    /// A single self-contained dictionary (FIX.4.0 – FIX.4.4).
    pub fn single(dict: Dictionary) -> Self {
        Dictionaries {
            transport: dict,
            app: None,
        }
    }
    /// A FIXT transport dictionary and an application dictionary.
    pub fn fixt(transport: Dictionary, app: Dictionary) -> Self {
        Dictionaries {
            transport,
            app: Some(app),
        }
    }
    /// The transport dictionary (the only one for FIX.4.x).
    pub fn transport(&self) -> &Dictionary {
        &self.transport
    }
    /// The application dictionary (the same as the transport one for FIX.4.x).
    pub fn application(&self) -> &Dictionary {
        self.app.as_ref().unwrap_or(&self.transport)
    }
    /// A validator over these dictionaries.
    pub fn validator(&self, settings: ValidationSettings) -> Validator<'_> {
        Validator::fixt(&self.transport, self.application(), settings)
    }
}

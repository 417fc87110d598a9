//! Validation of a decoded message against a dictionary, with QuickFIX's semantics.
//!
//! * this file: [`Validator`] and its entry points;
//! * `settings`: [`ValidationSettings`];
//! * `reject`: what a failure reports ([`SessionRejectReason`], [`ValidationError`]);
//! * `tables`: a message type's tables and how the walk looks a tag up in them;
//! * `walk`: the top-level walk, its fast loop and its general path;
//! * `group`: the walk of repeating groups (an `OpenGroup` for each, on a stack);
//! * `values`: value checks (format, enum, SendingTime);
//! * `shape`: the [`ShapeCache`], which skips the walk for a known message shape;
//! * `dictionaries`: owned dictionaries for a session ([`Dictionaries`]).

mod dictionaries;
mod group;
#[cfg(test)]
mod oracle;
mod reject;
mod settings;
mod shape;
mod tables;
mod values;
mod walk;

pub use dictionaries::Dictionaries;
pub use reject::{RejectText, SessionRejectReason, ValidationError};
pub use settings::{ValidationSettings, USER_DEFINED_TAG_MIN};
pub use shape::ShapeCache;
pub use values::check_sending_time;

use crate::dictionary::{Dictionary, SECTION_HEADER, SECTION_TRAILER};
use peregrine_codec::tag::SENDING_TIME;
use reject::{out_of_order, required_missing};
use tables::Tables;

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
    /// # Errors
    ///
    /// The first [`ValidationError`] in QuickFIX's order of checks (see
    /// [`Validator`]): its [`reason`](ValidationError::reason) is the
    /// [`SessionRejectReason`] of the Reject to send (fields out of order, a
    /// repeated tag, a group's fields out of order or its count wrong, an
    /// unknown MsgType, a required field missing, an empty value, a value of
    /// the wrong format or outside its enumeration, a tag unknown or not
    /// defined for the message), its [`ref_tag`](ValidationError::ref_tag)
    /// the field at fault. Which checks run is set by [`ValidationSettings`].
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
    /// # Errors
    ///
    /// Only with [`ValidationSettings::check_latency`] on: a [`ValidationError`]
    /// with [`SessionRejectReason::RequiredTagMissing`] on tag 52 when the
    /// message has no SendingTime, otherwise those of [`check_sending_time`]
    /// ([`SessionRejectReason::SendingTimeAccuracyProblem`] when too far from
    /// `now_unix_nanos`, [`SessionRejectReason::IncorrectDataFormatForValue`]
    /// when it is not a UTCTimestamp).
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
        match msg.get(SENDING_TIME) {
            Some(t) => check_sending_time(t, now_unix_nanos, self.settings.max_latency_secs),
            None => Err(required_missing(SENDING_TIME)),
        }
    }

    /// Validates a message given as its MsgType and its fields in wire order (including or
    /// excluding 8, 9 and 10: the framing fields are never reported missing).
    ///
    /// # Errors
    ///
    /// As [`Validator::validate`]: the first [`ValidationError`] in QuickFIX's
    /// order of checks.
    pub fn validate_fields<'a, I>(&self, msg_type: &[u8], fields: I) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
    {
        match self.tables(msg_type) {
            Tables::Plan(lookup, type_info) => self.dispatch(lookup, type_info, fields, &mut false),
            Tables::Two(lookup, type_info) => self.dispatch(lookup, type_info, fields, &mut false),
            Tables::Unknown => self.invalid_msg_type(fields),
        }
    }

    /// [`Validator::validate`] that remembers the shapes of the messages it passes (see
    /// [`ShapeCache`]): a message of a shape seen before only has its values checked. The
    /// result is always the one [`Validator::validate`] gives. Keep one cache per session
    /// (or per thread); it empties itself when used with another validator's dictionaries
    /// or settings.
    ///
    /// # Errors
    ///
    /// Exactly those of [`Validator::validate`] for the same message.
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
}

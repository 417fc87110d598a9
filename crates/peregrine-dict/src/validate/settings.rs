//! Validation settings ([`ValidationSettings`]), named after QuickFIX's session settings.

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
    /// `CheckLatency` (default Y): for the session layer, see [`check_sending_time`](super::check_sending_time).
    pub check_latency: bool,
    /// `MaxLatency` in seconds (default 120).
    pub max_latency_secs: u32,
}

impl ValidationSettings {
    /// QuickFIX's defaults, as a constant (what [`Default`] gives): the one
    /// place they are written, which the engine's `.cfg` reader and its key
    /// catalog (`peregrine_engine::config::CATALOG`) read.
    pub const DEFAULT: ValidationSettings = ValidationSettings {
        validate_fields_out_of_order: true,
        validate_fields_have_values: true,
        validate_user_defined_fields: true,
        allow_unknown_msg_fields: false,
        validate_unordered_group_fields: true,
        check_latency: true,
        max_latency_secs: 120,
    };
}

impl Default for ValidationSettings {
    fn default() -> Self {
        ValidationSettings::DEFAULT
    }
}

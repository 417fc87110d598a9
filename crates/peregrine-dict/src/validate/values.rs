//! Value checks: empty values, formats and enum values of fields (the fast loop's pure
//! checks and the general path's), and SendingTime against the clock
//! ([`check_sending_time`]).

use super::tables::Lookup;
use super::{SessionRejectReason, ValidationError, Validator};
use crate::desc::Desc;
use crate::dictionary::Runtime;
use crate::format;
use crate::scope::{EnumSet, FieldInfo};
use peregrine_codec::tag::SENDING_TIME;

/// Checks SendingTime (52) against the local clock, as QuickFIX's `CheckLatency` does:
/// `|now - sending_time| <= max_latency_secs`. Times are UTC; `now_unix_nanos` is
/// nanoseconds since the Unix epoch (the session passes its clock in).
///
/// # Errors
///
/// A [`ValidationError`] with
/// [`SessionRejectReason::SendingTimeAccuracyProblem`] (10) and no RefTagID when
/// the time is further than `max_latency_secs` from `now_unix_nanos`, with
/// [`SessionRejectReason::IncorrectDataFormatForValue`] (6) on tag 52 when
/// `sending_time` is not a UTCTimestamp.
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
        Some(SENDING_TIME),
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

impl<'d> Validator<'d> {
    /// The answer for an empty value: reason 4 if `ValidateFieldsHaveValues`, else none
    /// (and no format or enum check).
    #[inline(always)]
    fn empty_value(&self) -> Option<SessionRejectReason> {
        self.settings
            .validate_fields_have_values
            .then_some(SessionRejectReason::TagSpecifiedWithoutAValue)
    }

    /// Empty value (4), format (6), enum (5) for a field with these checks.
    #[inline(always)]
    pub(super) fn check_value(
        &self,
        rt: &Runtime,
        info: FieldInfo,
        value: &[u8],
    ) -> Option<SessionRejectReason> {
        if value.is_empty() {
            return self.empty_value();
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
    pub(super) fn check_member<'s>(
        &self,
        desc: Desc,
        value: &[u8],
        enum_set: impl FnOnce() -> Option<&'s EnumSet>,
    ) -> Option<SessionRejectReason> {
        if value.is_empty() {
            return self.empty_value();
        }
        if !format::check(desc.class(), value) {
            return Some(SessionRejectReason::IncorrectDataFormatForValue);
        }
        if desc.has_enum() {
            let ok = match (enum_set(), value) {
                (None, _) => true,
                (Some(set), [b]) if !desc.is_multi() => set.contains_byte(*b),
                (Some(set), _) => enum_ok_slow(set, desc.is_multi(), value),
            };
            if !ok {
                return Some(SessionRejectReason::ValueIsIncorrect);
            }
        }
        None
    }
}

/// The fast loop's value check of a member with a format or an enum: well-formed and,
/// for an enum, a valid one-byte value (anything else takes the general path). Pure.
#[inline(always)]
pub(super) fn value_ok<L: Lookup>(lookup: &L, desc: Desc, value: &[u8]) -> bool {
    if desc.has_enum() {
        match (value, lookup.enum_set(desc)) {
            ([b], Some(set)) => set.contains_byte_well_formed(*b),
            _ => false,
        }
    } else {
        format::check(desc.class(), value)
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

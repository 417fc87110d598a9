//! Typed reads of field values ([`FromFixValue`]), for `get_as`.

use crate::value::{self, ValueError};

/// Converts a field value into a typed value.
pub trait FromFixValue<'a>: Sized {
    /// Parses the value bytes.
    ///
    /// # Errors
    ///
    /// A [`ValueError`] when `v` is not a value of the type: for the
    /// integers, [`bool`], [`char`](prim@char), [`Decimal`](crate::value::Decimal) and the dates and
    /// times, whatever the matching parser of [`crate::value`] reports (the
    /// 32-bit integers add [`ValueError::Overflow`] when the number does not
    /// fit); for `&str`, [`ValueError::InvalidByte`] at the first byte that is
    /// not valid UTF-8. `&[u8]` never fails.
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError>;
}

impl<'a> FromFixValue<'a> for &'a [u8] {
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError> {
        Ok(v)
    }
}
impl<'a> FromFixValue<'a> for &'a str {
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError> {
        std::str::from_utf8(v).map_err(|e| ValueError::InvalidByte {
            offset: e.valid_up_to(),
        })
    }
}
/// `FromFixValue` for types read by one parsing function of [`crate::value`].
macro_rules! from_fix_value_by {
    ($($ty:ty => $parse:expr),* $(,)?) => {
        $(impl FromFixValue<'_> for $ty {
            fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
                $parse(v)
            }
        })*
    };
}

from_fix_value_by! {
    u64 => value::parse_u64,
    u32 => |v| u32::try_from(value::parse_u64(v)?).map_err(|_| ValueError::Overflow),
    i64 => value::parse_i64,
    i32 => |v| i32::try_from(value::parse_i64(v)?).map_err(|_| ValueError::Overflow),
    bool => value::parse_bool,
    char => |v| value::parse_char(v).map(char::from),
    value::Decimal => value::parse_decimal,
    value::UtcTimestamp => value::parse_timestamp,
    value::Date => value::parse_date,
    value::TimeOfDay => value::parse_time,
    value::MonthYear => value::parse_month_year,
}

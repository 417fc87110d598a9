//! Typed reads of field values ([`FromFixValue`]), for `get_as`.

use crate::value::{self, ValueError};

/// Converts a field value into a typed value.
pub trait FromFixValue<'a>: Sized {
    /// Parses the value bytes.
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
impl FromFixValue<'_> for u64 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_u64(v)
    }
}
impl FromFixValue<'_> for u32 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        u32::try_from(value::parse_u64(v)?).map_err(|_| ValueError::Overflow)
    }
}
impl FromFixValue<'_> for i64 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_i64(v)
    }
}
impl FromFixValue<'_> for i32 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        i32::try_from(value::parse_i64(v)?).map_err(|_| ValueError::Overflow)
    }
}
impl FromFixValue<'_> for bool {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_bool(v)
    }
}
impl FromFixValue<'_> for char {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_char(v).map(char::from)
    }
}
impl FromFixValue<'_> for value::Decimal {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_decimal(v)
    }
}
impl FromFixValue<'_> for value::UtcTimestamp {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_timestamp(v)
    }
}
impl FromFixValue<'_> for value::Date {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_date(v)
    }
}
impl FromFixValue<'_> for value::TimeOfDay {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_time(v)
    }
}
impl FromFixValue<'_> for value::MonthYear {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_month_year(v)
    }
}

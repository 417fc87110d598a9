//! FIX field types as named in QuickFIX dictionaries.

use std::fmt;

/// The type of a FIX field, as written in the `type` attribute of a dictionary `<field>`.
///
/// Unknown type names are kept as [`FixType::Other`] with the raw name; they validate like
/// strings.
///
/// ```
/// use peregrine_dict::FixType;
/// assert_eq!(FixType::from_xml_name("PRICE"), FixType::Price);
/// assert_eq!(FixType::from_xml_name("QTY").xml_name(), "QTY");
/// assert_eq!(FixType::from_xml_name("RESERVED100PLUS"), FixType::Other("RESERVED100PLUS".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FixType {
    /// `INT`
    Int,
    /// `LENGTH`
    Length,
    /// `NUMINGROUP`
    NumInGroup,
    /// `SEQNUM`
    SeqNum,
    /// `TAGNUM`
    TagNum,
    /// `DAYOFMONTH`
    DayOfMonth,
    /// `FLOAT`
    Float,
    /// `QTY` (also `QUANTITY`)
    Qty,
    /// `PRICE`
    Price,
    /// `PRICEOFFSET`
    PriceOffset,
    /// `AMT`
    Amt,
    /// `PERCENTAGE`
    Percentage,
    /// `CHAR`
    Char,
    /// `BOOLEAN`
    Boolean,
    /// `STRING`
    String,
    /// `MULTIPLEVALUESTRING`
    MultipleValueString,
    /// `MULTIPLECHARVALUE`
    MultipleCharValue,
    /// `MULTIPLESTRINGVALUE`
    MultipleStringValue,
    /// `COUNTRY`
    Country,
    /// `CURRENCY`
    Currency,
    /// `EXCHANGE`
    Exchange,
    /// `MONTHYEAR`
    MonthYear,
    /// `UTCTIMESTAMP`
    UtcTimestamp,
    /// `UTCTIMEONLY`
    UtcTimeOnly,
    /// `UTCDATEONLY`
    UtcDateOnly,
    /// `UTCDATE`
    UtcDate,
    /// `LOCALMKTDATE`
    LocalMktDate,
    /// `TZTIMEONLY`
    TzTimeOnly,
    /// `TZTIMESTAMP`
    TzTimestamp,
    /// `DATA`
    Data,
    /// `XMLDATA`
    XmlData,
    /// `LANGUAGE`
    Language,
    /// `TIME` (FIX 4.0/4.1; a UTC timestamp)
    Time,
    /// `DATE` (FIX 4.0/4.1)
    Date,
    /// Any other type name, kept verbatim; validated as a string.
    Other(String),
}

impl FixType {
    /// Maps a dictionary type name (case-sensitive, as QuickFIX writes them) to a type.
    pub fn from_xml_name(name: &str) -> FixType {
        match name {
            "INT" => FixType::Int,
            "LENGTH" => FixType::Length,
            "NUMINGROUP" => FixType::NumInGroup,
            "SEQNUM" => FixType::SeqNum,
            "TAGNUM" => FixType::TagNum,
            "DAYOFMONTH" => FixType::DayOfMonth,
            "FLOAT" => FixType::Float,
            "QTY" | "QUANTITY" => FixType::Qty,
            "PRICE" => FixType::Price,
            "PRICEOFFSET" => FixType::PriceOffset,
            "AMT" => FixType::Amt,
            "PERCENTAGE" => FixType::Percentage,
            "CHAR" => FixType::Char,
            "BOOLEAN" => FixType::Boolean,
            "STRING" => FixType::String,
            "MULTIPLEVALUESTRING" => FixType::MultipleValueString,
            "MULTIPLECHARVALUE" => FixType::MultipleCharValue,
            "MULTIPLESTRINGVALUE" => FixType::MultipleStringValue,
            "COUNTRY" => FixType::Country,
            "CURRENCY" => FixType::Currency,
            "EXCHANGE" => FixType::Exchange,
            "MONTHYEAR" => FixType::MonthYear,
            "UTCTIMESTAMP" => FixType::UtcTimestamp,
            "UTCTIMEONLY" => FixType::UtcTimeOnly,
            "UTCDATEONLY" => FixType::UtcDateOnly,
            "UTCDATE" => FixType::UtcDate,
            "LOCALMKTDATE" => FixType::LocalMktDate,
            "TZTIMEONLY" => FixType::TzTimeOnly,
            "TZTIMESTAMP" => FixType::TzTimestamp,
            "DATA" => FixType::Data,
            "XMLDATA" => FixType::XmlData,
            "LANGUAGE" => FixType::Language,
            "TIME" => FixType::Time,
            "DATE" => FixType::Date,
            other => FixType::Other(other.to_string()),
        }
    }

    /// The canonical dictionary name of this type (`QUANTITY` reads back as `QTY`).
    pub fn xml_name(&self) -> &str {
        match self {
            FixType::Int => "INT",
            FixType::Length => "LENGTH",
            FixType::NumInGroup => "NUMINGROUP",
            FixType::SeqNum => "SEQNUM",
            FixType::TagNum => "TAGNUM",
            FixType::DayOfMonth => "DAYOFMONTH",
            FixType::Float => "FLOAT",
            FixType::Qty => "QTY",
            FixType::Price => "PRICE",
            FixType::PriceOffset => "PRICEOFFSET",
            FixType::Amt => "AMT",
            FixType::Percentage => "PERCENTAGE",
            FixType::Char => "CHAR",
            FixType::Boolean => "BOOLEAN",
            FixType::String => "STRING",
            FixType::MultipleValueString => "MULTIPLEVALUESTRING",
            FixType::MultipleCharValue => "MULTIPLECHARVALUE",
            FixType::MultipleStringValue => "MULTIPLESTRINGVALUE",
            FixType::Country => "COUNTRY",
            FixType::Currency => "CURRENCY",
            FixType::Exchange => "EXCHANGE",
            FixType::MonthYear => "MONTHYEAR",
            FixType::UtcTimestamp => "UTCTIMESTAMP",
            FixType::UtcTimeOnly => "UTCTIMEONLY",
            FixType::UtcDateOnly => "UTCDATEONLY",
            FixType::UtcDate => "UTCDATE",
            FixType::LocalMktDate => "LOCALMKTDATE",
            FixType::TzTimeOnly => "TZTIMEONLY",
            FixType::TzTimestamp => "TZTIMESTAMP",
            FixType::Data => "DATA",
            FixType::XmlData => "XMLDATA",
            FixType::Language => "LANGUAGE",
            FixType::Time => "TIME",
            FixType::Date => "DATE",
            FixType::Other(name) => name,
        }
    }

    /// True for the integer types that can count a repeating group (`NUMINGROUP`, and `INT`
    /// as used by the FIX 4.0/4.1 dictionaries).
    pub fn can_count_group(&self) -> bool {
        matches!(self, FixType::NumInGroup | FixType::Int)
    }

    /// True for the space-separated multi-value types, whose enum check applies per token.
    pub fn is_multiple_value(&self) -> bool {
        matches!(
            self,
            FixType::MultipleValueString
                | FixType::MultipleCharValue
                | FixType::MultipleStringValue
        )
    }

    /// The syntax check QuickFIX applies to this type (`fix_4_2_or_later` decides `CHAR`,
    /// which FIX 4.0/4.1 treat as a string).
    pub(crate) fn format_class(&self, fix_4_2_or_later: bool) -> FormatClass {
        match self {
            FixType::Int
            | FixType::Length
            | FixType::NumInGroup
            | FixType::SeqNum
            | FixType::TagNum
            | FixType::DayOfMonth => FormatClass::Int,
            FixType::Float
            | FixType::Qty
            | FixType::Price
            | FixType::PriceOffset
            | FixType::Amt
            | FixType::Percentage => FormatClass::Decimal,
            FixType::Boolean => FormatClass::Bool,
            FixType::Char if fix_4_2_or_later => FormatClass::Char,
            FixType::UtcTimestamp | FixType::Time => FormatClass::UtcTimestamp,
            FixType::UtcTimeOnly => FormatClass::UtcTimeOnly,
            FixType::UtcDate | FixType::UtcDateOnly => FormatClass::UtcDate,
            _ => FormatClass::Text,
        }
    }
}

impl fmt::Display for FixType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.xml_name())
    }
}

/// The syntax check applied to a value (internal, resolved once at load).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum FormatClass {
    /// Any non-empty bytes.
    Text = 1,
    /// Optional `-`, then one or more digits.
    Int,
    /// Optional `-`, digits with at most one `.`, at least one digit.
    Decimal,
    /// `Y` or `N`.
    Bool,
    /// Exactly one byte.
    Char,
    /// `YYYYMMDD-HH:MM:SS[.f{1,12}]` (up to picoseconds).
    UtcTimestamp,
    /// `HH:MM:SS[.f{1,12}]` (up to picoseconds).
    UtcTimeOnly,
    /// `YYYYMMDD`.
    UtcDate,
}

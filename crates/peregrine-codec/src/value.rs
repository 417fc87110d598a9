//! Typed FIX values: parsing from and formatting into wire bytes, without
//! allocation and without floating point.
//!
//! ```
//! use peregrine_codec::value::{parse_decimal, parse_timestamp, Decimal, TimePrecision};
//! let px = parse_decimal(b"150.50").unwrap();
//! assert_eq!(px, Decimal::new(15050, 2));
//! let ts = parse_timestamp(b"20240115-10:30:00.123").unwrap();
//! assert_eq!(ts.precision, TimePrecision::Millis);
//! assert_eq!(ts.nanos, 123_000_000);
//! ```

use std::fmt;

/// Why a value could not be parsed as the requested type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// The value is empty.
    Empty,
    /// A byte that is not allowed at this position (its offset in the value).
    InvalidByte {
        /// Offset of the offending byte within the value.
        offset: usize,
    },
    /// The number does not fit the target type.
    Overflow,
    /// The value has the wrong length or layout for its type.
    BadLayout,
    /// A date or time component is out of its range (month 13, hour 24, …).
    OutOfRange,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Empty => f.write_str("empty value"),
            ValueError::InvalidByte { offset } => write!(f, "invalid character at offset {offset}"),
            ValueError::Overflow => f.write_str("number out of range for its type"),
            ValueError::BadLayout => f.write_str("value does not have the layout of its type"),
            ValueError::OutOfRange => f.write_str("date or time component out of range"),
        }
    }
}

impl std::error::Error for ValueError {}

/// Parses an unsigned integer (digits only, no sign).
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::InvalidByte`] at
/// the first byte that is not an ASCII digit (a sign included),
/// [`ValueError::Overflow`] for a number above [`u64::MAX`].
///
/// ```
/// use peregrine_codec::value::{parse_u64, ValueError};
/// assert_eq!(parse_u64(b"12345"), Ok(12345));
/// assert_eq!(parse_u64(b"-1"), Err(ValueError::InvalidByte { offset: 0 }));
/// assert_eq!(parse_u64(b"18446744073709551616"), Err(ValueError::Overflow));
/// ```
#[inline]
pub fn parse_u64(v: &[u8]) -> Result<u64, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    let mut n: u64 = 0;
    for (i, &b) in v.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(ValueError::InvalidByte { offset: i });
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(d as u64))
            .ok_or(ValueError::Overflow)?;
    }
    Ok(n)
}

/// Parses a signed integer (an optional leading `-`).
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for a
/// `-` with no digits, [`ValueError::InvalidByte`] at the first other byte
/// that is not an ASCII digit (offsets count the `-`), and
/// [`ValueError::Overflow`] outside [`i64::MIN`]`..=`[`i64::MAX`].
///
/// ```
/// use peregrine_codec::value::{parse_i64, ValueError};
/// assert_eq!(parse_i64(b"-42"), Ok(-42));
/// assert_eq!(parse_i64(b"-9223372036854775808"), Ok(i64::MIN));
/// assert_eq!(parse_i64(b"-4x"), Err(ValueError::InvalidByte { offset: 2 }));
/// assert_eq!(parse_i64(b"-"), Err(ValueError::BadLayout));
/// ```
#[inline]
pub fn parse_i64(v: &[u8]) -> Result<i64, ValueError> {
    match v.first() {
        None => Err(ValueError::Empty),
        Some(b'-') => {
            let m = parse_u64(&v[1..]).map_err(shift_offset)?;
            if m > i64::MAX as u64 + 1 {
                return Err(ValueError::Overflow);
            }
            Ok((m as i64).wrapping_neg())
        }
        Some(_) => {
            let m = parse_u64(v)?;
            i64::try_from(m).map_err(|_| ValueError::Overflow)
        }
    }
}

fn shift_offset(e: ValueError) -> ValueError {
    match e {
        ValueError::InvalidByte { offset } => ValueError::InvalidByte { offset: offset + 1 },
        ValueError::Empty => ValueError::BadLayout,
        other => other,
    }
}

/// Parses a sequence number (MsgSeqNum and friends): an unsigned integer.
///
/// # Errors
///
/// As [`parse_u64`]: [`ValueError::Empty`], [`ValueError::InvalidByte`] for a
/// byte that is not a digit, [`ValueError::Overflow`] above [`u64::MAX`].
#[inline]
pub fn parse_seq_num(v: &[u8]) -> Result<u64, ValueError> {
    parse_u64(v)
}

/// A fixed-point decimal: `mantissa × 10^-scale`. `150.50` is mantissa 15050, scale 2.
///
/// Comparison is by numeric value: `150.5` (1505, 1) and `150.50` (15050, 2) are equal,
/// order the same and hash the same, although they are different texts on the wire (the
/// encoder writes exactly the digits of the scale, so the two still encode differently).
/// Comparison is exact for every mantissa and scale (no floating point, no overflow).
/// To tell representations apart, compare the fields, or use [`Decimal::same_repr`].
///
/// ```
/// use peregrine_codec::value::Decimal;
/// let a = Decimal::new(1505, 1); // 150.5
/// let b = Decimal::new(15050, 2); // 150.50
/// assert_eq!(a, b);
/// assert!(!a.same_repr(&b));
/// assert!(Decimal::new(-1, 0) < Decimal::new(-5, 1)); // -1 < -0.5
/// assert!(Decimal::new(i64::MAX, 0) > Decimal::new(i64::MAX, 18));
/// let mut bids = [Decimal::new(1, 0), Decimal::new(995, 3), Decimal::new(1005, 3)];
/// bids.sort();
/// assert_eq!(bids, [Decimal::new(995, 3), Decimal::new(1, 0), Decimal::new(1005, 3)]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Decimal {
    /// The digits as an integer.
    pub mantissa: i64,
    /// How many of those digits are after the decimal point.
    pub scale: u8,
}

impl Decimal {
    /// A decimal from its parts.
    ///
    /// ```
    /// use peregrine_codec::value::Decimal;
    /// assert_eq!(Decimal::new(15050, 2).to_string(), "150.50");
    /// ```
    pub const fn new(mantissa: i64, scale: u8) -> Self {
        Decimal { mantissa, scale }
    }

    /// The same value with exactly `scale` decimals, if that loses no digits and fits.
    ///
    /// ```
    /// use peregrine_codec::value::Decimal;
    /// assert_eq!(Decimal::new(15, 1).rescale(3).map(|d| d.mantissa), Some(1500));
    /// assert_eq!(Decimal::new(15, 1).rescale(0), None);
    /// ```
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        if scale >= self.scale {
            let f = 10i64.checked_pow((scale - self.scale) as u32)?;
            Some(Decimal::new(self.mantissa.checked_mul(f)?, scale))
        } else {
            let f = 10i64.checked_pow((self.scale - scale) as u32)?;
            (self.mantissa % f == 0).then(|| Decimal::new(self.mantissa / f, scale))
        }
    }

    /// The same value with the fewest decimals: trailing zeros after the point removed
    /// (zero is `0` with scale 0). Equal decimals have the same normalized form.
    ///
    /// ```
    /// use peregrine_codec::value::Decimal;
    /// let d = Decimal::new(150500, 3).normalized();
    /// assert_eq!((d.mantissa, d.scale), (1505, 1));
    /// let z = Decimal::new(0, 4).normalized();
    /// assert_eq!((z.mantissa, z.scale), (0, 0));
    /// ```
    pub fn normalized(self) -> Decimal {
        if self.mantissa == 0 {
            return Decimal::new(0, 0);
        }
        let (mut m, mut s) = (self.mantissa, self.scale);
        while s > 0 && m % 10 == 0 {
            m /= 10;
            s -= 1;
        }
        Decimal::new(m, s)
    }

    /// Whether the two have the same mantissa and scale (the same text on the wire),
    /// which `==` does not ask: `150.5 == 150.50`.
    ///
    /// ```
    /// use peregrine_codec::value::Decimal;
    /// assert!(Decimal::new(1505, 1).same_repr(&Decimal::new(1505, 1)));
    /// assert!(!Decimal::new(1505, 1).same_repr(&Decimal::new(15050, 2)));
    /// ```
    pub fn same_repr(&self, other: &Decimal) -> bool {
        self.mantissa == other.mantissa && self.scale == other.scale
    }

    /// Numeric comparison (`150.5` equals `150.50`): the same as [`Ord::cmp`], kept
    /// for callers written before `Decimal` was ordered by value.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use peregrine_codec::value::Decimal;
    /// assert_eq!(Decimal::new(1505, 1).cmp_value(&Decimal::new(15050, 2)), Ordering::Equal);
    /// ```
    pub fn cmp_value(&self, other: &Decimal) -> std::cmp::Ordering {
        self.cmp(other)
    }

    /// An approximate `f64` (for display and statistics, never for prices on the wire).
    ///
    /// ```
    /// use peregrine_codec::value::Decimal;
    /// assert_eq!(Decimal::new(-25, 2).to_f64(), -0.25);
    /// ```
    pub fn to_f64(&self) -> f64 {
        self.mantissa as f64 / 10f64.powi(self.scale as i32)
    }
}

/// `a × 10^-sa` against `b × 10^-sb` with `sa <= sb`, exactly.
fn cmp_scaled(a: i64, sa: u8, b: i64, sb: u8) -> std::cmp::Ordering {
    let d = u32::from(sb - sa);
    // 10^19 > i64::MAX: a non-zero `a` scaled by that much outweighs any `b`.
    if d >= 19 {
        return if a == 0 {
            0.cmp(&b)
        } else {
            a.signum().cmp(&0)
        };
    }
    // |a| × 10^18 < 9.3 × 10^36 < i128::MAX.
    (i128::from(a) * 10i128.pow(d)).cmp(&i128::from(b))
}

impl Ord for Decimal {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.scale == other.scale {
            return self.mantissa.cmp(&other.mantissa);
        }
        if self.scale < other.scale {
            cmp_scaled(self.mantissa, self.scale, other.mantissa, other.scale)
        } else {
            cmp_scaled(other.mantissa, other.scale, self.mantissa, self.scale).reverse()
        }
    }
}

impl PartialOrd for Decimal {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Decimal {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Decimal {}

impl std::hash::Hash for Decimal {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let n = self.normalized();
        n.mantissa.hash(state);
        n.scale.hash(state);
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 24];
        let n = format_decimal(*self, &mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).unwrap_or("?"))
    }
}

/// Parses a FIX float (Price, Qty, Amt …): optional `-`, digits, optional `.` and
/// digits. No exponent, at most 18 significant digits.
///
/// ```
/// use peregrine_codec::value::{parse_decimal, Decimal};
/// assert_eq!(parse_decimal(b"-0.25"), Ok(Decimal::new(-25, 2)));
/// assert_eq!(parse_decimal(b"1000"), Ok(Decimal::new(1000, 0)));
/// assert_eq!(parse_decimal(b".5"), Ok(Decimal::new(5, 1)));
/// ```
///
/// # Errors
///
/// * [`ValueError::Empty`] for an empty value;
/// * [`ValueError::InvalidByte`] at a second `.` or at any byte after the
///   sign that is neither a digit nor `.` (an exponent's `e` included);
/// * [`ValueError::BadLayout`] when there is no digit at all (`-`, `.`);
/// * [`ValueError::Overflow`] when the digits, read as one integer, exceed
///   [`i64::MAX`] (20 significant digits or more, or 19 above that bound), or
///   when there are more than 255 digits after the point (a [`Decimal`]'s
///   largest scale).
///
/// ```
/// use peregrine_codec::value::{parse_decimal, ValueError};
/// assert_eq!(parse_decimal(b"1.2.3"), Err(ValueError::InvalidByte { offset: 3 }));
/// assert_eq!(parse_decimal(b"1e5"), Err(ValueError::InvalidByte { offset: 1 }));
/// assert_eq!(parse_decimal(b"-."), Err(ValueError::BadLayout));
/// assert_eq!(parse_decimal(b"99999999999999999999"), Err(ValueError::Overflow));
/// ```
pub fn parse_decimal(v: &[u8]) -> Result<Decimal, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    let (neg, start) = match v[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let mut m: i64 = 0;
    // Where the point is: the scale is the number of bytes after it (all digits),
    // taken once at the end rather than counted in the loop.
    let mut dot: Option<usize> = None;
    let mut digits = 0;
    for (i, &b) in v.iter().enumerate().skip(start) {
        if b == b'.' {
            if dot.is_some() {
                return Err(ValueError::InvalidByte { offset: i });
            }
            dot = Some(i);
            continue;
        }
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(ValueError::InvalidByte { offset: i });
        }
        digits += 1;
        m = m
            .checked_mul(10)
            .and_then(|m| m.checked_add(d as i64))
            .ok_or(ValueError::Overflow)?;
    }
    if digits == 0 {
        return Err(ValueError::BadLayout);
    }
    // More fractional digits than a Decimal's scale holds (255): an error, not
    // a wrapped scale that reads as another value.
    let scale = dot.map_or(0, |d| v.len() - d - 1);
    let scale = u8::try_from(scale).map_err(|_| ValueError::Overflow)?;
    Ok(Decimal::new(if neg { -m } else { m }, scale))
}

/// Parses a Y/N boolean.
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::InvalidByte`]
/// (offset 0) for one byte other than `Y` or `N`, [`ValueError::BadLayout`]
/// for a longer value (`YES`).
///
/// ```
/// use peregrine_codec::value::{parse_bool, ValueError};
/// assert_eq!(parse_bool(b"Y"), Ok(true));
/// assert_eq!(parse_bool(b"y"), Err(ValueError::InvalidByte { offset: 0 }));
/// assert_eq!(parse_bool(b"NO"), Err(ValueError::BadLayout));
/// ```
#[inline]
pub fn parse_bool(v: &[u8]) -> Result<bool, ValueError> {
    match v {
        b"Y" => Ok(true),
        b"N" => Ok(false),
        [] => Err(ValueError::Empty),
        [_] => Err(ValueError::InvalidByte { offset: 0 }),
        _ => Err(ValueError::BadLayout),
    }
}

/// Parses a single-character value (FIX `char`): exactly one byte.
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for
/// more than one byte.
#[inline]
pub fn parse_char(v: &[u8]) -> Result<u8, ValueError> {
    match v {
        [c] => Ok(*c),
        [] => Err(ValueError::Empty),
        _ => Err(ValueError::BadLayout),
    }
}

/// The precision of a timestamp's fractional seconds, as written on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum TimePrecision {
    /// Whole seconds: `HH:MM:SS`.
    Seconds,
    /// Milliseconds: `HH:MM:SS.sss`.
    #[default]
    Millis,
    /// Microseconds: `HH:MM:SS.ssssss`.
    Micros,
    /// Nanoseconds: `HH:MM:SS.sssssssss`.
    Nanos,
    /// Picoseconds: `HH:MM:SS.ssssssssssss` (twelve digits, as FIX Latest allows
    /// and QuickFIX/J reads; the three below the nanosecond are
    /// [`UtcTimestamp::picos`]).
    Picos,
}

impl TimePrecision {
    fn digits(self) -> usize {
        match self {
            TimePrecision::Seconds => 0,
            TimePrecision::Millis => 3,
            TimePrecision::Micros => 6,
            TimePrecision::Nanos => 9,
            TimePrecision::Picos => 12,
        }
    }
}

/// A calendar date (proleptic Gregorian, UTC or local market date).
// `repr(C)` (here and in `UtcTimestamp`): date and time of day side by
// side, so that comparing them compiles to a few wide loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(C)]
pub struct Date {
    /// Year, 0..=9999.
    pub year: u16,
    /// Month, 1..=12.
    pub month: u8,
    /// Day of month, 1..=31 (checked against the month).
    pub day: u8,
}

impl Date {
    /// Days since 1970-01-01 (negative before).
    pub fn days_since_epoch(&self) -> i64 {
        days_from_civil(self.year as i64, self.month as u32, self.day as u32)
    }

    /// The date `days` after 1970-01-01.
    pub fn from_days_since_epoch(days: i64) -> Date {
        let (y, m, d) = civil_from_days(days);
        Date {
            year: y as u16,
            month: m as u8,
            day: d as u8,
        }
    }
}

/// A time of day with fractional seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimeOfDay {
    /// Hour, 0..=23.
    pub hour: u8,
    /// Minute, 0..=59.
    pub minute: u8,
    /// Second, 0..=60 (60 for a leap second).
    pub second: u8,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// Picoseconds beyond `nanos`, 0..=999: the last three digits of a
    /// [`TimePrecision::Picos`] fraction (0 otherwise).
    pub picos: u16,
    /// How many fractional digits it had on the wire.
    pub precision: TimePrecision,
}

/// A UTCTimestamp: `YYYYMMDD-HH:MM:SS[.sss[sss[sss[sss]]]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(C)]
pub struct UtcTimestamp {
    /// The date part.
    pub date: Date,
    /// Hour, 0..=23.
    pub hour: u8,
    /// Minute, 0..=59.
    pub minute: u8,
    /// Second, 0..=60.
    pub second: u8,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// Picoseconds beyond `nanos`, 0..=999: the last three digits of a
    /// [`TimePrecision::Picos`] fraction, kept so that a value read is written
    /// back whole (0 for a time from a clock, which reads nanoseconds).
    pub picos: u16,
    /// How many fractional digits it had (or will have) on the wire.
    pub precision: TimePrecision,
}

impl UtcTimestamp {
    /// Nanoseconds since the Unix epoch (a leap second counts as the next second's
    /// start; [`picos`](Self::picos) below the nanosecond are left out).
    pub fn to_unix_nanos(&self) -> i64 {
        let days = self.date.days_since_epoch();
        let secs =
            days * 86_400 + self.hour as i64 * 3600 + self.minute as i64 * 60 + self.second as i64;
        secs * 1_000_000_000 + self.nanos as i64
    }

    /// The timestamp at `nanos` since the Unix epoch, to be written at `precision`.
    ///
    /// ```
    /// use peregrine_codec::value::{UtcTimestamp, TimePrecision};
    /// let ts = UtcTimestamp::from_unix_nanos(1_705_314_600_123_000_000, TimePrecision::Millis);
    /// assert_eq!(ts.to_string(), "20240115-10:30:00.123");
    /// ```
    pub fn from_unix_nanos(nanos: i64, precision: TimePrecision) -> UtcTimestamp {
        let secs = nanos.div_euclid(1_000_000_000);
        let sub = nanos.rem_euclid(1_000_000_000) as u32;
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400) as u32;
        UtcTimestamp {
            date: Date::from_days_since_epoch(days),
            hour: (sod / 3600) as u8,
            minute: (sod / 60 % 60) as u8,
            second: (sod % 60) as u8,
            nanos: sub,
            picos: 0,
            precision,
        }
    }

    /// The system clock's time now (one clock read, no allocation), to be
    /// written at `precision`: a TransactTime, say.
    ///
    /// ```
    /// use peregrine_codec::value::{UtcTimestamp, TimePrecision};
    /// let now = UtcTimestamp::now(TimePrecision::Millis);
    /// assert!(now.to_unix_nanos() > 1_700_000_000_000_000_000);
    /// assert_eq!(now.to_string().len(), "20240115-10:30:00.123".len());
    /// ```
    pub fn now(precision: TimePrecision) -> UtcTimestamp {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        UtcTimestamp::from_unix_nanos(nanos, precision)
    }
}

impl fmt::Display for UtcTimestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 32];
        let n = format_timestamp(self, self.precision, &mut buf);
        f.write_str(std::str::from_utf8(&buf[..n]).unwrap_or("?"))
    }
}

/// A MonthYear: `YYYYMM`, `YYYYMMDD` or `YYYYMMwN` (week 1..=5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MonthYear {
    /// Year.
    pub year: u16,
    /// Month, 1..=12.
    pub month: u8,
    /// The optional day or week qualifier.
    pub qualifier: MonthYearQualifier,
}

/// The optional part of a [`MonthYear`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MonthYearQualifier {
    /// `YYYYMM`.
    None,
    /// `YYYYMMDD`.
    Day(u8),
    /// `YYYYMMwN`.
    Week(u8),
}

#[inline]
fn digits2(v: &[u8], at: usize) -> Result<u32, ValueError> {
    let a = v[at].wrapping_sub(b'0');
    let b = v[at + 1].wrapping_sub(b'0');
    if a > 9 {
        return Err(ValueError::InvalidByte { offset: at });
    }
    if b > 9 {
        return Err(ValueError::InvalidByte { offset: at + 1 });
    }
    Ok(a as u32 * 10 + b as u32)
}

fn expect(v: &[u8], at: usize, c: u8) -> Result<(), ValueError> {
    if v[at] == c {
        Ok(())
    } else {
        Err(ValueError::InvalidByte { offset: at })
    }
}

fn is_leap(y: u32) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400)
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

/// Parses `YYYYMMDD` (UTCDateOnly, LocalMktDate).
///
/// ```
/// let d = peregrine_codec::value::parse_date(b"20240229").unwrap();
/// assert_eq!((d.year, d.month, d.day), (2024, 2, 29));
/// assert!(peregrine_codec::value::parse_date(b"20230229").is_err());
/// ```
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for any
/// length but 8, [`ValueError::InvalidByte`] at the first byte that is not a
/// digit, [`ValueError::OutOfRange`] for a month outside 1..=12 or a day
/// that is 0 or past the month's end (29 February outside leap years).
///
/// ```
/// use peregrine_codec::value::{parse_date, ValueError};
/// assert_eq!(parse_date(b"20230229"), Err(ValueError::OutOfRange));
/// assert_eq!(parse_date(b"2024-1-5"), Err(ValueError::InvalidByte { offset: 4 }));
/// assert_eq!(parse_date(b"2024011"), Err(ValueError::BadLayout));
/// ```
pub fn parse_date(v: &[u8]) -> Result<Date, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    if v.len() != 8 {
        return Err(ValueError::BadLayout);
    }
    parse_date_at(v)
}

fn parse_date_at(v: &[u8]) -> Result<Date, ValueError> {
    let year = digits2(v, 0)? * 100 + digits2(v, 2)?;
    let month = digits2(v, 4)?;
    let day = digits2(v, 6)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(ValueError::OutOfRange);
    }
    Ok(Date {
        year: year as u16,
        month: month as u8,
        day: day as u8,
    })
}

/// Parses `HH:MM:SS[.sss[sss[sss[sss]]]]` (UTCTimeOnly).
///
/// ```
/// let t = peregrine_codec::value::parse_time(b"23:59:60.123456").unwrap();
/// assert_eq!((t.hour, t.second, t.nanos), (23, 60, 123_456_000));
/// ```
///
/// # Errors
///
/// * [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for
///   fewer than 8 bytes or a fraction of other than 3, 6, 9 or 12 digits;
/// * [`ValueError::InvalidByte`] at a non-digit where a digit belongs, at a
///   missing `:`, or at whatever follows the seconds if it is not `.`;
/// * [`ValueError::OutOfRange`] for an hour above 23, a minute above 59 or a
///   second above 60.
///
/// ```
/// use peregrine_codec::value::{parse_time, ValueError};
/// assert_eq!(parse_time(b"24:00:00"), Err(ValueError::OutOfRange));
/// assert_eq!(parse_time(b"12:00:00.1234"), Err(ValueError::BadLayout));
/// assert_eq!(parse_time(b"12:00:00.123456789123456"), Err(ValueError::BadLayout));
/// let t = parse_time(b"12:00:00.123456789123").unwrap();
/// assert_eq!((t.nanos, t.picos), (123_456_789, 123));
/// assert_eq!(parse_time(b"12-00:00"), Err(ValueError::InvalidByte { offset: 2 }));
/// ```
pub fn parse_time(v: &[u8]) -> Result<TimeOfDay, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    if v.len() < 8 {
        return Err(ValueError::BadLayout);
    }
    let hour = digits2(v, 0)?;
    expect(v, 2, b':')?;
    let minute = digits2(v, 3)?;
    expect(v, 5, b':')?;
    let second = digits2(v, 6)?;
    if hour > 23 || minute > 59 || second > 60 {
        return Err(ValueError::OutOfRange);
    }
    let (nanos, picos, precision) = parse_fraction(v, 8)?;
    Ok(TimeOfDay {
        hour: hour as u8,
        minute: minute as u8,
        second: second as u8,
        nanos,
        picos,
        precision,
    })
}

/// The fraction after the seconds: (nanoseconds, picoseconds beyond them, precision).
fn parse_fraction(v: &[u8], at: usize) -> Result<(u32, u16, TimePrecision), ValueError> {
    let rest = &v[at..];
    if rest.is_empty() {
        return Ok((0, 0, TimePrecision::Seconds));
    }
    if rest[0] != b'.' {
        return Err(ValueError::InvalidByte { offset: at });
    }
    let digits = &rest[1..];
    let precision = match digits.len() {
        3 => TimePrecision::Millis,
        6 => TimePrecision::Micros,
        9 => TimePrecision::Nanos,
        12 => TimePrecision::Picos,
        _ => return Err(ValueError::BadLayout),
    };
    let mut n = 0u64;
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(ValueError::InvalidByte { offset: at + 1 + i });
        }
        n = n * 10 + u64::from(d);
    }
    // Picoseconds: at most 10^12 - 1, below u64's range.
    let picos = n * 10u64.pow(12 - digits.len() as u32);
    Ok(((picos / 1000) as u32, (picos % 1000) as u16, precision))
}

/// Parses a UTCTimestamp `YYYYMMDD-HH:MM:SS[.sss|.ssssss|.sssssssss|.ssssssssssss]`:
/// whole seconds, or milli-, micro-, nano- or picoseconds (FIX Latest's finest;
/// QuickFIX/J reads the same five forms).
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for
/// fewer than 17 bytes; then the errors of [`parse_date`] for the date and of
/// [`parse_time`] for the time (their [`ValueError::InvalidByte`] offsets
/// counted from the start of the whole value), and
/// [`ValueError::InvalidByte`] (offset 8) when the date and time are not
/// joined by `-`.
///
/// ```
/// use peregrine_codec::value::{parse_timestamp, ValueError};
/// assert!(parse_timestamp(b"20240115-10:30:00.123").is_ok());
/// let ts = parse_timestamp(b"20170408-00:00:00.123456789123").unwrap();
/// assert_eq!((ts.nanos, ts.picos, ts.to_string().len()), (123_456_789, 123, 30));
/// assert_eq!(
///     parse_timestamp(b"20170408-00:00:00.123456789123456"),
///     Err(ValueError::BadLayout)
/// );
/// assert_eq!(parse_timestamp(b"20240115T10:30:00"), Err(ValueError::InvalidByte { offset: 8 }));
/// assert_eq!(parse_timestamp(b"20240115-10:3x:00"), Err(ValueError::InvalidByte { offset: 13 }));
/// assert_eq!(parse_timestamp(b"20241315-10:30:00"), Err(ValueError::OutOfRange));
/// ```
pub fn parse_timestamp(v: &[u8]) -> Result<UtcTimestamp, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    if v.len() < 17 {
        return Err(ValueError::BadLayout);
    }
    let date = parse_date_at(v)?;
    expect(v, 8, b'-')?;
    let t = parse_time(&v[9..]).map_err(|e| match e {
        ValueError::InvalidByte { offset } => ValueError::InvalidByte { offset: offset + 9 },
        other => other,
    })?;
    Ok(UtcTimestamp {
        date,
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        nanos: t.nanos,
        picos: t.picos,
        precision: t.precision,
    })
}

/// Parses a MonthYear: `YYYYMM`, `YYYYMMDD` or `YYYYMMwN`.
///
/// # Errors
///
/// [`ValueError::Empty`] for an empty value, [`ValueError::BadLayout`] for a
/// length other than 6 or 8, [`ValueError::InvalidByte`] at a non-digit in
/// the year, month or day, [`ValueError::OutOfRange`] for a month outside
/// 1..=12, a day that is 0 or past the month's end, or a week (`wN`) whose `N`
/// is not 1 to 5.
///
/// ```
/// use peregrine_codec::value::{parse_month_year, MonthYearQualifier, ValueError};
/// assert_eq!(parse_month_year(b"202403w2").unwrap().qualifier, MonthYearQualifier::Week(2));
/// assert_eq!(parse_month_year(b"202403w6"), Err(ValueError::OutOfRange));
/// assert_eq!(parse_month_year(b"2024"), Err(ValueError::BadLayout));
/// ```
pub fn parse_month_year(v: &[u8]) -> Result<MonthYear, ValueError> {
    if v.is_empty() {
        return Err(ValueError::Empty);
    }
    if v.len() != 6 && v.len() != 8 {
        return Err(ValueError::BadLayout);
    }
    let year = digits2(v, 0)? * 100 + digits2(v, 2)?;
    let month = digits2(v, 4)?;
    if !(1..=12).contains(&month) {
        return Err(ValueError::OutOfRange);
    }
    let qualifier = if v.len() == 6 {
        MonthYearQualifier::None
    } else if v[6] == b'w' {
        let w = v[7].wrapping_sub(b'0');
        if !(1..=5).contains(&w) {
            return Err(ValueError::OutOfRange);
        }
        MonthYearQualifier::Week(w)
    } else {
        let d = digits2(v, 6)?;
        if d == 0 || d > days_in_month(year, month) {
            return Err(ValueError::OutOfRange);
        }
        MonthYearQualifier::Day(d as u8)
    };
    Ok(MonthYear {
        year: year as u16,
        month: month as u8,
        qualifier,
    })
}

// Civil-date conversions after Howard Hinnant's public-domain algorithms
// (`days_from_civil` and `civil_from_days` of "chrono-Compatible Low-Level Date
// Algorithms").

/// Days since 1970-01-01 of the proleptic Gregorian date `year`-`month`-`day`
/// (negative before).
///
/// `month` must be 1..=12; `day` is not checked against the month: a day past
/// the month's end counts on into the next month (31 February 2024 is
/// 2 March), which lets a check that only bounds the day to 1..=31 (as
/// QuickFIX's timestamp rule does) still get a time. [`Date::days_since_epoch`]
/// is this for a [`Date`]; [`civil_from_days`] is the inverse.
///
/// ```
/// use peregrine_codec::value::days_from_civil;
/// assert_eq!(days_from_civil(1970, 1, 1), 0);
/// assert_eq!(days_from_civil(2000, 3, 1), 11_017);
/// assert_eq!(days_from_civil(1969, 12, 31), -1);
/// assert_eq!(days_from_civil(2024, 2, 31), days_from_civil(2024, 3, 2));
/// ```
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Years start on 1 March, so that a leap day is the last day of its year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian `(year, month, day)` `days` after 1970-01-01
/// (before it for negative `days`): the inverse of [`days_from_civil`], with
/// month 1..=12 and day 1..=31. [`Date::from_days_since_epoch`] is this as a
/// [`Date`].
///
/// ```
/// use peregrine_codec::value::{civil_from_days, days_from_civil};
/// assert_eq!(civil_from_days(0), (1970, 1, 1));
/// assert_eq!(civil_from_days(11_016), (2000, 2, 29));
/// assert_eq!(civil_from_days(-1), (1969, 12, 31));
/// assert_eq!(civil_from_days(days_from_civil(1600, 3, 1)), (1600, 3, 1));
/// ```
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a year,
    // then split into 400-year eras of 146,097 days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // day of era, [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // March = 0
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

// ---------------------------------------------------------------------------
// Formatting into caller buffers.

const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes the decimal digits of `n` into the end of `buf` and returns where they start.
#[inline(always)]
fn u64_digits(mut n: u64, buf: &mut [u8; 20]) -> usize {
    let mut i = 20;
    while n >= 100 {
        let r = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[r..r + 2]);
    }
    if n >= 10 {
        let r = n as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[r..r + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + n as u8;
    }
    i
}

/// Writes `n` in decimal into `out`, returning the number of bytes written
/// (at most 20). Panics if `out` is too small (a caller bug, never input-driven).
///
/// ```
/// let mut b = [0u8; 20];
/// let n = peregrine_codec::value::format_u64(1000, &mut b);
/// assert_eq!(&b[..n], b"1000");
/// ```
#[inline(always)]
pub fn format_u64(n: u64, out: &mut [u8]) -> usize {
    if n < 10_000 && out.len() >= 4 {
        return format_small(n as u32, out);
    }
    if n < 100_000_000 && out.len() >= 8 {
        return format_medium(n as u32, out);
    }
    format_u64_long(n, out)
}

/// The eight decimal digits of `n` (below 10^8, leading zeros included) as
/// one little-endian word: the most significant digit in the low byte.
#[inline(always)]
fn eight_digits(n: u32) -> u64 {
    let (hi, lo) = (n / 10_000, n % 10_000);
    let pair = |v: u32| {
        let r = v as usize * 2;
        u16::from_le_bytes([DIGIT_PAIRS[r], DIGIT_PAIRS[r + 1]]) as u64
    };
    pair(hi / 100) | pair(hi % 100) << 16 | pair(lo / 100) << 32 | pair(lo % 100) << 48
}

/// Number of decimal digits of `n` below 10^8, without a loop.
#[inline(always)]
fn digit_count_below_1e8(n: u32) -> usize {
    1 + (n >= 10) as usize
        + (n >= 100) as usize
        + (n >= 1_000) as usize
        + (n >= 10_000) as usize
        + (n >= 100_000) as usize
        + (n >= 1_000_000) as usize
        + (n >= 10_000_000) as usize
}

/// `n` below 10^8: eight digits (leading zeros included) in one word,
/// shifted so that they start at `out[0]`; eight bytes are written
/// whatever the length (`out` holds at least eight).
#[inline(always)]
fn format_medium(n: u32, out: &mut [u8]) -> usize {
    let len = digit_count_below_1e8(n);
    // Drop the leading zeros (the low bytes of the little-endian word).
    out[..8].copy_from_slice(&(eight_digits(n) >> (8 * (8 - len))).to_le_bytes());
    len
}

/// [`format_u64`] for any `n`, two digits per step.
fn format_u64_long(n: u64, out: &mut [u8]) -> usize {
    let mut digits = [0u8; 20];
    let start = u64_digits(n, &mut digits);
    let len = digits.len() - start;
    out[..len].copy_from_slice(&digits[start..]);
    len
}

/// `n` below 10,000 without a loop: its four digits (leading zeros
/// included) in one word, shifted so that they start at `out[0]`; the
/// four bytes are written whatever the length (`out` holds at least four).
#[inline(always)]
fn format_small(n: u32, out: &mut [u8]) -> usize {
    let (digits, len) = small_digits_word(n);
    out[..4].copy_from_slice(&digits.to_le_bytes());
    len
}

/// The digits of `n` (below 10,000) as a little-endian word with zeros
/// after them, and their number: four digits (leading zeros included) from
/// two table pairs, the leading zeros shifted out.
#[inline(always)]
fn small_digits_word(n: u32) -> (u32, usize) {
    let len = 1 + (n >= 10) as usize + (n >= 100) as usize + (n >= 1000) as usize;
    let (hi, lo) = ((n / 100) as usize * 2, (n % 100) as usize * 2);
    let word = u32::from_le_bytes([
        DIGIT_PAIRS[hi],
        DIGIT_PAIRS[hi + 1],
        DIGIT_PAIRS[lo],
        DIGIT_PAIRS[lo + 1],
    ]);
    // Drop the leading zeros (the low bytes of the little-endian word).
    (word >> (8 * (4 - len)), len)
}

/// Writes `n` in decimal (with `-` when negative), returning the length (at most 20).
#[inline]
pub fn format_i64(n: i64, out: &mut [u8]) -> usize {
    if n < 0 {
        out[0] = b'-';
        1 + format_u64(n.unsigned_abs(), &mut out[1..])
    } else {
        format_u64(n as u64, out)
    }
}

/// Writes a decimal with exactly its scale's digits after the point
/// (`Decimal::new(15050, 2)` → `150.50`), returning the length (at most 22).
#[inline]
pub fn format_decimal(d: Decimal, out: &mut [u8]) -> usize {
    if out.len() >= 16 {
        if let Some((text, len)) = decimal_text(d) {
            out[..16].copy_from_slice(&text.to_le_bytes());
            return len;
        }
    }
    format_decimal_general(d, out)
}

/// The text of a decimal of at most eight digits and a scale below 8
/// (prices and quantities) built in registers, as little-endian bytes with
/// zeros after the text, and its length; `None` for other decimals. The
/// encoder writes it with one store and sums it for the CheckSum without
/// reading it back.
#[inline(always)]
pub(crate) fn decimal_text(d: Decimal) -> Option<(u128, usize)> {
    let m = d.mantissa.unsigned_abs();
    let scale = d.scale as usize;
    if m >= 100_000_000 || scale >= 8 {
        return None;
    }
    let m = m as u32;
    // At least `scale + 1` digits: `0.05`, not `.05`.
    let len = digit_count_below_1e8(m).max(scale + 1);
    let digits = eight_digits(m) >> (8 * (8 - len));
    let (mut text, mut n) = if scale == 0 {
        (digits as u128, len)
    } else {
        let int_len = len - scale;
        let int_part = digits & ((1u64 << (8 * int_len)) - 1);
        let frac_part = (digits >> (8 * int_len)) as u128;
        (
            int_part as u128 | (b'.' as u128) << (8 * int_len) | frac_part << (8 * (int_len + 1)),
            len + 1,
        )
    };
    if d.mantissa < 0 {
        text = text << 8 | b'-' as u128;
        n += 1;
    }
    Some((text, n))
}

/// The digits of `n` (below 10^8) as a little-endian word with zeros after
/// them, and their number.
#[inline(always)]
pub(crate) fn digits_word(n: u32) -> (u64, usize) {
    if n < 10_000 {
        let (word, len) = small_digits_word(n);
        return (word as u64, len);
    }
    let len = digit_count_below_1e8(n);
    (eight_digits(n) >> (8 * (8 - len)), len)
}

/// The fraction `.sss[sss[sss[sss]]]` of `nanos` (and `picos` beyond them) at
/// `precision` (empty for whole seconds) as little-endian bytes with zeros after
/// it, and its length (at most 13).
#[inline(always)]
pub(crate) fn fraction_text(nanos: u32, picos: u16, precision: TimePrecision) -> (u128, usize) {
    let digits = precision.digits();
    if digits == 0 {
        return (0, 0);
    }
    // Digits beyond the precision's (only from nanos over 10^9, not a
    // valid value) drop off the top, as in `format_timestamp`.
    let frac = nanos / 10u32.pow(9 - digits.min(9) as u32);
    let text = if digits <= 8 {
        (eight_digits(frac % 100_000_000) >> (8 * (8 - digits))) as u128
    } else {
        // Nine digits: the first, then the other eight.
        let nine = (b'0' + (frac / 100_000_000 % 10) as u8) as u128
            | (eight_digits(frac % 100_000_000) as u128) << 8;
        if digits == 12 {
            // Then the three of the picoseconds.
            let p = u32::from(picos % 1000);
            let three = u128::from(b'0' + (p / 100) as u8)
                | u128::from(b'0' + (p / 10 % 10) as u8) << 8
                | u128::from(b'0' + (p % 10) as u8) << 16;
            nine | three << 72
        } else {
            nine
        }
    };
    (b'.' as u128 | text << 8, 1 + digits)
}

#[cold]
fn format_decimal_general(d: Decimal, out: &mut [u8]) -> usize {
    let scale = d.scale as usize;
    if scale >= 20 {
        return format_decimal_long_scale(d, out);
    }
    // The digits right-aligned over zeros: at least `scale + 1` of them.
    let mut tmp = [b'0'; 40];
    let mut digits = [0u8; 20];
    let first = u64_digits(d.mantissa.unsigned_abs(), &mut digits);
    put(&mut tmp, 20 + first, &digits[first..]);
    let start = (20 + first).min(40 - scale - 1);
    let mut n = 0;
    if d.mantissa < 0 {
        out[0] = b'-';
        n = 1;
    }
    let int_len = 40 - scale - start;
    put(out, n, &tmp[start..start + int_len]);
    n += int_len;
    if scale > 0 {
        out[n] = b'.';
        put(out, n + 1, &tmp[40 - scale..]);
        n += 1 + scale;
    }
    n
}

/// Copies a short slice without a call to `memcpy`: two overlapping
/// fixed-size moves for 4 to 16 bytes, three byte moves below,
/// `copy_from_slice` above. Writes exactly `dst[at..at + src.len()]`.
#[inline(always)]
pub(crate) fn put(dst: &mut [u8], at: usize, src: &[u8]) {
    let n = src.len();
    if (8..=16).contains(&n) {
        dst[at..at + 8].copy_from_slice(&src[..8]);
        dst[at + n - 8..at + n].copy_from_slice(&src[n - 8..]);
    } else if (4..8).contains(&n) {
        dst[at..at + 4].copy_from_slice(&src[..4]);
        dst[at + n - 4..at + n].copy_from_slice(&src[n - 4..]);
    } else if n > 16 {
        dst[at..at + n].copy_from_slice(src);
    } else if n > 0 {
        // 1 to 3 bytes: first, middle and last (overlapping for 1 and 2). A
        // byte loop here would be turned into a call to memcpy.
        dst[at] = src[0];
        dst[at + n / 2] = src[n / 2];
        dst[at + n - 1] = src[n - 1];
    }
}

#[cold]
fn format_decimal_long_scale(d: Decimal, out: &mut [u8]) -> usize {
    let mut tmp = [0u8; 20];
    let start = u64_digits(d.mantissa.unsigned_abs(), &mut tmp);
    let digits = &tmp[start..];
    let mut n = 0;
    if d.mantissa < 0 {
        out[0] = b'-';
        n = 1;
    }
    let scale = d.scale as usize;
    if scale == 0 {
        out[n..n + digits.len()].copy_from_slice(digits);
        return n + digits.len();
    }
    if digits.len() > scale {
        let int = digits.len() - scale;
        out[n..n + int].copy_from_slice(&digits[..int]);
        n += int;
        out[n] = b'.';
        out[n + 1..n + 1 + scale].copy_from_slice(&digits[int..]);
        n + 1 + scale
    } else {
        out[n] = b'0';
        out[n + 1] = b'.';
        n += 2;
        let zeros = scale - digits.len();
        out[n..n + zeros].fill(b'0');
        n += zeros;
        out[n..n + digits.len()].copy_from_slice(digits);
        n + digits.len()
    }
}

#[inline]
fn put2(out: &mut [u8], at: usize, v: u32) {
    let r = v as usize * 2;
    out[at..at + 2].copy_from_slice(&DIGIT_PAIRS[r..r + 2]);
}

/// Writes `YYYYMMDD`, returning 8.
pub fn format_date(d: &Date, out: &mut [u8]) -> usize {
    put2(out, 0, d.year as u32 / 100);
    put2(out, 2, d.year as u32 % 100);
    put2(out, 4, d.month as u32);
    put2(out, 6, d.day as u32);
    8
}

/// Writes `HH:MM:SS` and the fraction of `precision`, returning the length.
pub fn format_time(t: &TimeOfDay, precision: TimePrecision, out: &mut [u8]) -> usize {
    format_hms(
        (t.hour, t.minute, t.second),
        t.nanos,
        t.picos,
        precision,
        out,
    )
}

/// The fraction at `precision`, as one number of its digits: nanoseconds and the
/// picoseconds beyond them, truncated.
fn fraction_digits(nanos: u32, picos: u16, precision: TimePrecision) -> u64 {
    let picos = u64::from(nanos) * 1000 + u64::from(picos % 1000);
    picos / 10u64.pow(12 - precision.digits() as u32)
}

fn format_hms(
    (h, m, s): (u8, u8, u8),
    nanos: u32,
    picos: u16,
    precision: TimePrecision,
    out: &mut [u8],
) -> usize {
    put2(out, 0, h as u32);
    out[2] = b':';
    put2(out, 3, m as u32);
    out[5] = b':';
    put2(out, 6, s as u32);
    let digits = precision.digits();
    if digits == 0 {
        return 8;
    }
    out[8] = b'.';
    let mut frac = fraction_digits(nanos, picos, precision);
    for i in (0..digits).rev() {
        out[9 + i] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    9 + digits
}

/// Writes the fractional part `.sss[sss[sss[sss]]]` of `nanos` at `precision`
/// (nothing for whole seconds), returning its length; at
/// [`TimePrecision::Picos`] the three digits below the nanosecond are zeros
/// ([`format_timestamp`] writes a timestamp's [`picos`](UtcTimestamp::picos)).
#[inline]
pub fn format_fraction(nanos: u32, precision: TimePrecision, out: &mut [u8]) -> usize {
    let digits = precision.digits();
    if digits == 0 {
        return 0;
    }
    out[0] = b'.';
    if digits == 3 {
        let ms = nanos / 1_000_000;
        out[1] = b'0' + (ms / 100) as u8;
        put2(out, 2, ms % 100);
        return 4;
    }
    let mut frac = fraction_digits(nanos, 0, precision);
    for i in (0..digits).rev() {
        out[1 + i] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    1 + digits
}

/// Writes a UTCTimestamp at `precision` (fractions are truncated), returning
/// the length (17, 21, 24, 27 or 30).
///
/// ```
/// use peregrine_codec::value::{format_timestamp, parse_timestamp, TimePrecision};
/// let ts = parse_timestamp(b"20170408-00:00:00.123456789123").unwrap();
/// let mut b = [0u8; 32];
/// let n = format_timestamp(&ts, TimePrecision::Picos, &mut b);
/// assert_eq!(&b[..n], b"20170408-00:00:00.123456789123");
/// let n = format_timestamp(&ts, TimePrecision::Micros, &mut b);
/// assert_eq!(&b[..n], b"20170408-00:00:00.123456");
/// ```
pub fn format_timestamp(ts: &UtcTimestamp, precision: TimePrecision, out: &mut [u8]) -> usize {
    format_date(&ts.date, out);
    out[8] = b'-';
    9 + format_hms(
        (ts.hour, ts.minute, ts.second),
        ts.nanos,
        ts.picos,
        precision,
        &mut out[9..],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decimal_with_more_fractional_digits_than_its_scale_holds_is_an_overflow() {
        // 255 fractional digits fit the scale; 256 wrapped it to 0 before (and
        // panicked in a debug build): "0.000…01" with 256 places read as 0.1.
        let fits = format!("0.{}", "0".repeat(255));
        assert_eq!(parse_decimal(fits.as_bytes()), Ok(Decimal::new(0, 255)));
        let tiny = format!("0.{}1", "0".repeat(255));
        assert_eq!(parse_decimal(tiny.as_bytes()), Err(ValueError::Overflow));
        let long = format!("1.{}", "0".repeat(300));
        assert_eq!(parse_decimal(long.as_bytes()), Err(ValueError::Overflow));
    }
    use proptest::prelude::*;

    /// The exact order of two decimals from their digits as text (no arithmetic).
    fn reference_cmp(a: Decimal, b: Decimal) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let s = a.scale.max(b.scale) as usize;
        // |m| × 10^(s - scale) as a digit string without leading zeros.
        let digits = |d: Decimal| {
            let mut t = d.mantissa.unsigned_abs().to_string();
            t.push_str(&"0".repeat(s - d.scale as usize));
            t.trim_start_matches('0').to_string()
        };
        let sign = |d: Decimal| d.mantissa.signum();
        match sign(a).cmp(&sign(b)) {
            Ordering::Equal => {}
            o => return o,
        }
        let (da, db) = (digits(a), digits(b));
        let mag = da.len().cmp(&db.len()).then_with(|| da.cmp(&db));
        if sign(a) < 0 {
            mag.reverse()
        } else {
            mag
        }
    }

    fn hash_of(d: Decimal) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(d)
    }

    #[test]
    fn decimals_compare_by_value() {
        use std::cmp::Ordering::*;
        let d = Decimal::new;
        for (a, b, want) in [
            (d(150, 0), d(15000, 2), Equal),
            (d(15, 1), d(150, 2), Equal),
            (d(15, 1), d(151, 2), Less),
            (d(-15, 1), d(-150, 2), Equal),
            (d(-15, 1), d(-149, 2), Less),
            (d(-1, 0), d(-5, 1), Less),
            (d(-1, 0), d(1, 18), Less),
            (d(0, 0), d(0, 9), Equal),
            (d(0, 200), d(-1, 255), Greater),
            (d(0, 3), d(1, 255), Less),
            (d(1, 0), d(i64::MAX, 18), Less),
            (d(10, 0), d(i64::MAX, 18), Greater),
            (d(i64::MAX, 0), d(i64::MAX, 18), Greater),
            (d(i64::MIN, 0), d(i64::MIN, 18), Less),
            (d(i64::MIN, 0), d(i64::MAX, 0), Less),
            (d(i64::MIN, 18), d(-9, 0), Less),
            (d(i64::MIN, 18), d(-10, 0), Greater),
            (d(1, 0), d(i64::MAX, 255), Greater),
            (d(-1, 0), d(i64::MIN, 255), Less),
            (d(1, 19), d(1, 0), Less),
            (d(1_000_000_000_000_000_000, 18), d(1, 0), Equal),
            (d(1_000_000_000_000_000_000, 19), d(1, 1), Equal),
            (d(1, 255), d(1, 254), Less),
        ] {
            assert_eq!(a.cmp(&b), want, "{a:?} vs {b:?}");
            assert_eq!(b.cmp(&a), want.reverse(), "{b:?} vs {a:?}");
            assert_eq!(reference_cmp(a, b), want, "reference: {a:?} vs {b:?}");
            assert_eq!(a == b, want == Equal);
            assert_eq!(a.partial_cmp(&b), Some(want));
            if want == Equal {
                assert_eq!(hash_of(a), hash_of(b), "{a:?} and {b:?} hash alike");
                assert!(a.normalized().same_repr(&b.normalized()));
            }
        }
        assert!(!d(15, 1).same_repr(&d(150, 2)));
        assert!(d(15, 1) != d(16, 1));
        let mut v = [d(-5, 1), d(1005, 3), d(1, 0), d(-1, 0), d(995, 3), d(0, 4)];
        v.sort();
        assert_eq!(
            v,
            [d(-1, 0), d(-5, 1), d(0, 0), d(995, 3), d(1, 0), d(1005, 3)]
        );
        let set: std::collections::HashSet<Decimal> =
            [d(15, 1), d(150, 2), d(1500, 3), d(0, 0), d(0, 7)]
                .into_iter()
                .collect();
        assert_eq!(set.len(), 2);
    }

    proptest! {
        #[test]
        fn decimal_order_is_exact(
            a in any::<i64>(), sa in 0u8..=255, b in any::<i64>(), sb in 0u8..=255,
            small in -3i64..=3, near in 0u8..=4,
        ) {
            let (a, b) = (Decimal::new(a, sa), Decimal::new(b, sb));
            prop_assert_eq!(a.cmp(&b), reference_cmp(a, b));
            // Values close to each other, where rounding would show.
            let (c, e) = (Decimal::new(small * 10i64.pow(near as u32), near), Decimal::new(small, 0));
            prop_assert_eq!(c.cmp(&e), reference_cmp(c, e));
            prop_assert_eq!(c == e, true);
            prop_assert_eq!(hash_of(c), hash_of(e));
            if a == b {
                prop_assert_eq!(hash_of(a), hash_of(b));
            }
            // Same value at another scale: equal, and hashes agree.
            if let Some(r) = a.rescale(sa.saturating_add(2)) {
                prop_assert_eq!(r, a);
                prop_assert_eq!(hash_of(r), hash_of(a));
            }
        }
    }

    #[test]
    fn ints() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_u64(b"18446744073709551616"),
            Err(ValueError::Overflow)
        );
        assert_eq!(parse_u64(b""), Err(ValueError::Empty));
        assert_eq!(
            parse_u64(b"12a"),
            Err(ValueError::InvalidByte { offset: 2 })
        );
        assert_eq!(parse_i64(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), Err(ValueError::Overflow));
        assert_eq!(parse_i64(b"-"), Err(ValueError::BadLayout));
        assert_eq!(
            parse_i64(b"-1x"),
            Err(ValueError::InvalidByte { offset: 2 })
        );
    }

    #[test]
    fn decimals() {
        assert_eq!(
            parse_decimal(b"150.50").map(|d| (d.mantissa, d.scale)),
            Ok((15050, 2))
        );
        assert_eq!(
            parse_decimal(b"150.").map(|d| (d.mantissa, d.scale)),
            Ok((150, 0))
        );
        assert_eq!(
            parse_decimal(b"-0.001").map(|d| (d.mantissa, d.scale)),
            Ok((-1, 3))
        );
        assert_eq!(
            parse_decimal(b"1.2.3"),
            Err(ValueError::InvalidByte { offset: 3 })
        );
        assert_eq!(
            parse_decimal(b"1e5"),
            Err(ValueError::InvalidByte { offset: 1 })
        );
        assert_eq!(parse_decimal(b"."), Err(ValueError::BadLayout));
        assert_eq!(
            parse_decimal(b"99999999999999999999"),
            Err(ValueError::Overflow)
        );
        let mut b = [0u8; 24];
        for (d, s) in [
            (Decimal::new(15050, 2), "150.50"),
            (Decimal::new(-5, 3), "-0.005"),
            (Decimal::new(7, 0), "7"),
            (Decimal::new(0, 2), "0.00"),
        ] {
            let n = format_decimal(d, &mut b);
            assert_eq!(std::str::from_utf8(&b[..n]).unwrap(), s);
        }
        assert_eq!(
            Decimal::new(1505, 1).cmp_value(&Decimal::new(15050, 2)),
            std::cmp::Ordering::Equal
        );
    }

    #[test]
    fn bools_and_chars() {
        assert_eq!(parse_bool(b"Y"), Ok(true));
        assert_eq!(parse_bool(b"N"), Ok(false));
        assert_eq!(parse_bool(b"y"), Err(ValueError::InvalidByte { offset: 0 }));
        assert_eq!(parse_bool(b"YY"), Err(ValueError::BadLayout));
        assert_eq!(parse_char(b"1"), Ok(b'1'));
        assert_eq!(parse_char(b"12"), Err(ValueError::BadLayout));
    }

    #[test]
    fn timestamps() {
        let ts = parse_timestamp(b"20240115-10:30:00").unwrap();
        assert_eq!(ts.precision, TimePrecision::Seconds);
        let ts = parse_timestamp(b"20240115-10:30:00.123456789").unwrap();
        assert_eq!(
            (ts.nanos, ts.precision),
            (123_456_789, TimePrecision::Nanos)
        );
        assert_eq!(ts.to_unix_nanos(), 1_705_314_600_123_456_789);
        assert_eq!(
            parse_timestamp(b"20241315-10:30:00"),
            Err(ValueError::OutOfRange)
        );
        assert_eq!(
            parse_timestamp(b"20240115-24:30:00"),
            Err(ValueError::OutOfRange)
        );
        assert_eq!(
            parse_timestamp(b"20240115 10:30:00"),
            Err(ValueError::InvalidByte { offset: 8 })
        );
        assert_eq!(
            parse_timestamp(b"20240115-10:30:00.12"),
            Err(ValueError::BadLayout)
        );
        assert_eq!(
            parse_timestamp(b"20240115-10:3x:00"),
            Err(ValueError::InvalidByte { offset: 13 })
        );
        let mut b = [0u8; 32];
        for p in [
            TimePrecision::Seconds,
            TimePrecision::Millis,
            TimePrecision::Micros,
            TimePrecision::Nanos,
            TimePrecision::Picos,
        ] {
            let n = format_timestamp(&ts, p, &mut b);
            let back = parse_timestamp(&b[..n]).unwrap();
            assert_eq!(back.precision, p);
            assert_eq!(
                back.to_unix_nanos() / 1_000_000_000,
                ts.to_unix_nanos() / 1_000_000_000
            );
        }
    }

    /// Twelve fractional digits (picoseconds: FIX Latest, QuickFIX/J's QFJ-921)
    /// are read, kept and written back whole; 10, 11 or 15 digits are not a
    /// UTCTimestamp (QuickFIX/J reads 0, 3, 6, 9 or 12).
    #[test]
    fn picosecond_timestamps_are_read_kept_and_written() {
        let text = b"20170408-00:00:00.123456789123";
        let ts = parse_timestamp(text).unwrap();
        assert_eq!(
            (ts.nanos, ts.picos, ts.precision),
            (123_456_789, 123, TimePrecision::Picos)
        );
        assert_eq!(ts.to_unix_nanos(), 1_491_609_600_123_456_789);
        assert_eq!(ts.to_string(), "20170408-00:00:00.123456789123");
        let mut b = [0u8; 32];
        let n = format_timestamp(&ts, TimePrecision::Nanos, &mut b);
        assert_eq!(&b[..n], b"20170408-00:00:00.123456789");
        let mut at_picos = |ts: &str| {
            let t = parse_timestamp(ts.as_bytes()).unwrap();
            let n = format_timestamp(&t, TimePrecision::Picos, &mut b);
            String::from_utf8_lossy(&b[..n]).into_owned()
        };
        assert_eq!(
            at_picos("20170408-00:00:00.000000000001"),
            "20170408-00:00:00.000000000001"
        );
        assert_eq!(
            at_picos("20170408-23:59:60.999999999999"),
            "20170408-23:59:60.999999999999"
        );
        assert_eq!(
            at_picos("20170408-00:00:00.500"),
            "20170408-00:00:00.500000000000"
        );
        for bad in [
            "20170408-00:00:00.1234567891",
            "20170408-00:00:00.12345678912",
            "20170408-00:00:00.1234567891234",
            "20170408-00:00:00.123456789123456",
        ] {
            assert_eq!(
                parse_timestamp(bad.as_bytes()),
                Err(ValueError::BadLayout),
                "{bad}"
            );
        }
        assert_eq!(
            parse_timestamp(b"20170408-00:00:00.12345678912x"),
            Err(ValueError::InvalidByte { offset: 29 })
        );
        let t = parse_time(b"10:30:00.000000000999").unwrap();
        assert_eq!(
            (t.nanos, t.picos, t.precision),
            (0, 999, TimePrecision::Picos)
        );
        let n = format_time(&t, TimePrecision::Picos, &mut b);
        assert_eq!(&b[..n], b"10:30:00.000000000999");
        // A clock's time written at picoseconds: twelve digits, the last three zeros.
        let clock = UtcTimestamp::from_unix_nanos(1_705_314_600_123_456_789, TimePrecision::Picos);
        assert_eq!(clock.to_string(), "20240115-10:30:00.123456789000");
        let n = format_fraction(123_456_789, TimePrecision::Picos, &mut b);
        assert_eq!(&b[..n], b".123456789000");
    }

    #[test]
    fn month_year() {
        assert_eq!(
            parse_month_year(b"202403").unwrap().qualifier,
            MonthYearQualifier::None
        );
        assert_eq!(
            parse_month_year(b"20240315").unwrap().qualifier,
            MonthYearQualifier::Day(15)
        );
        assert_eq!(
            parse_month_year(b"202403w2").unwrap().qualifier,
            MonthYearQualifier::Week(2)
        );
        assert_eq!(parse_month_year(b"202403w9"), Err(ValueError::OutOfRange));
        assert_eq!(parse_month_year(b"2024"), Err(ValueError::BadLayout));
    }

    /// The obvious decimal text of `m × 10^-scale`.
    fn decimal_reference(m: i64, scale: usize) -> String {
        let digits = m.unsigned_abs().to_string();
        let digits = format!(
            "{}{digits}",
            "0".repeat((scale + 1).saturating_sub(digits.len()))
        );
        let (int, frac) = digits.split_at(digits.len() - scale);
        let sign = if m < 0 { "-" } else { "" };
        if scale == 0 {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    }

    #[test]
    fn decimals_of_every_scale_format_like_the_reference() {
        let mut b = [0u8; 64];
        for m in [
            0i64,
            1,
            -1,
            5,
            150,
            -15050,
            123_456_789,
            i64::MAX,
            i64::MIN + 1,
            10_i64.pow(18),
        ] {
            for scale in 0..40u8 {
                let len = format_decimal(Decimal::new(m, scale), &mut b);
                assert_eq!(
                    std::str::from_utf8(&b[..len]).unwrap(),
                    decimal_reference(m, scale as usize),
                    "{m} scale {scale}"
                );
            }
        }
    }

    #[test]
    fn short_decimals_match_the_general_path() {
        // Every digit count around the register path's limits (10^8, scale
        // 7), both signs, every scale, into buffers too short for it too.
        let mut b = [0u8; 64];
        let mut short = [0u8; 12];
        for digits in 0..=10u32 {
            for m in [
                10i64.pow(digits),
                10i64.pow(digits) - 1,
                10i64.pow(digits) / 3 + 7,
            ] {
                for m in [m, -m] {
                    for scale in 0..12u8 {
                        let want = decimal_reference(m, scale as usize);
                        let len = format_decimal(Decimal::new(m, scale), &mut b);
                        assert_eq!(
                            std::str::from_utf8(&b[..len]).unwrap(),
                            want,
                            "{m} scale {scale}"
                        );
                        if want.len() <= short.len() {
                            let len = format_decimal(Decimal::new(m, scale), &mut short);
                            assert_eq!(std::str::from_utf8(&short[..len]).unwrap(), want);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_small_number_formats_like_std() {
        let mut b = [0xAAu8; 20];
        for v in 0u64..12_000 {
            let len = format_u64(v, &mut b);
            assert_eq!(std::str::from_utf8(&b[..len]).unwrap(), v.to_string());
        }
    }

    proptest! {
        #[test]
        fn u64_formats_like_std(n in any::<u64>(), small in 0u64..100_000) {
            let mut b = [0u8; 20];
            for v in [n, small] {
                let len = format_u64(v, &mut b);
                prop_assert_eq!(std::str::from_utf8(&b[..len]).unwrap(), v.to_string());
            }
        }

        #[test]
        fn i64_round_trip(n in any::<i64>()) {
            let mut b = [0u8; 24];
            let len = format_i64(n, &mut b);
            prop_assert_eq!(parse_i64(&b[..len]), Ok(n));
        }

        #[test]
        fn decimals_format_like_the_reference(m in -200_000_000i64..200_000_000, s in 0u8..10) {
            let mut b = [0u8; 24];
            let len = format_decimal(Decimal::new(m, s), &mut b);
            prop_assert_eq!(std::str::from_utf8(&b[..len]).unwrap(), decimal_reference(m, s as usize));
        }

        #[test]
        fn decimal_round_trip(m in any::<i64>().prop_filter("abs", |m| *m != i64::MIN), s in 0u8..18) {
            let d = Decimal::new(m, s);
            let mut b = [0u8; 24];
            let len = format_decimal(d, &mut b);
            prop_assert_eq!(parse_decimal(&b[..len]).map(|p| (p.mantissa, p.scale)), Ok((m, s)));
        }

        #[test]
        fn timestamp_round_trip(n in -9_000_000_000_000_000_000i64..9_000_000_000_000_000_000) {
            let ts = UtcTimestamp::from_unix_nanos(n, TimePrecision::Nanos);
            prop_assert_eq!(ts.to_unix_nanos(), n);
            let mut b = [0u8; 32];
            let len = format_timestamp(&ts, TimePrecision::Nanos, &mut b);
            prop_assert_eq!(parse_timestamp(&b[..len]), Ok(ts));
        }

        #[test]
        fn parsers_never_panic(v in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_u64(&v);
            let _ = parse_i64(&v);
            let _ = parse_decimal(&v);
            let _ = parse_timestamp(&v);
            let _ = parse_time(&v);
            let _ = parse_date(&v);
            let _ = parse_month_year(&v);
        }
    }
}

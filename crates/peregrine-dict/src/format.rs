//! Value syntax checks with QuickFIX's acceptance rules (no allocation, no parsing beyond
//! what the check needs).

use peregrine_codec::value::days_from_civil;

use crate::types::FormatClass;

pub(crate) const TEXT: u8 = FormatClass::Text as u8;
const INT: u8 = FormatClass::Int as u8;
const DECIMAL: u8 = FormatClass::Decimal as u8;
const BOOL: u8 = FormatClass::Bool as u8;
const CHAR: u8 = FormatClass::Char as u8;
const TS: u8 = FormatClass::UtcTimestamp as u8;
const TIME: u8 = FormatClass::UtcTimeOnly as u8;
const DATE: u8 = FormatClass::UtcDate as u8;

/// True if `v` (non-empty) is well-formed for the format class (0, an undefined tag, and
/// TEXT: anything).
#[inline(always)]
pub(crate) fn check(class: u8, v: &[u8]) -> bool {
    match class {
        TEXT => true,
        INT => is_int(v),
        DECIMAL => is_decimal(v),
        BOOL => v == b"Y" || v == b"N",
        CHAR => v.len() == 1,
        TS => is_timestamp(v),
        TIME => is_time_of_day(v),
        DATE => is_date(v),
        _ => true,
    }
}

/// Byte classes of the number checks: a digit 0, `.` 1, anything else 0x80. The sum over
/// a value counts its dots and (times 0x80) its other bytes: 0 for digits only, at most 1
/// for digits with at most one dot. One table load and one add per byte, no branch.
static NUM_CLASS: [u8; 256] = {
    let mut t = [0x80u8; 256];
    let mut b = b'0';
    while b <= b'9' {
        t[b as usize] = 0;
        b += 1;
    }
    t[b'.' as usize] = 1;
    t
};

/// The sum of the [`NUM_CLASS`] of the bytes (values are far shorter than 2^24 bytes).
#[inline(always)]
fn num_class_sum(v: &[u8]) -> u32 {
    v.iter().map(|&b| NUM_CLASS[b as usize] as u32).sum()
}

/// Optional `-`, then one or more ASCII digits (no `+`, no spaces).
#[inline]
pub(crate) fn is_int(v: &[u8]) -> bool {
    let digits = match v {
        [b'-', rest @ ..] => rest,
        _ => v,
    };
    !digits.is_empty() && num_class_sum(digits) == 0
}

/// Optional `-`, digits with at most one `.`, at least one digit (`.5`, `5.` accepted,
/// as QuickFIX/J does; no `+`, no exponent).
#[inline]
pub(crate) fn is_decimal(v: &[u8]) -> bool {
    let body = match v {
        [b'-', rest @ ..] => rest,
        _ => v,
    };
    // Digits only, or with one dot and at least one digit beside it.
    let sum = num_class_sum(body);
    sum == 0 && !body.is_empty() || sum == 1 && body.len() > 1
}

#[inline]
fn num2(v: &[u8]) -> Option<u32> {
    match v {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some(((a - b'0') * 10 + (b - b'0')) as u32)
        }
        _ => None,
    }
}

/// `YYYYMMDD` → (year, month, day) with month 1–12 and day 1–31.
#[inline]
fn date(v: &[u8]) -> Option<(u32, u32, u32)> {
    let y = num2(&v[0..2])? * 100 + num2(&v[2..4])?;
    let m = num2(&v[4..6])?;
    let d = num2(&v[6..8])?;
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

/// The most fractional digits of a UTCTimestamp or UTCTimeOnly: picoseconds, FIX
/// Latest's finest (QuickFIX C++ reads up to 9, QuickFIX/J 3, 6, 9 or 12).
pub(crate) const MAX_FRACTION_DIGITS: usize = 12;

/// `HH:MM:SS` plus an optional `.` and 1–12 digits; returns (h, m, s, nanos), the
/// nanoseconds of the first nine digits (the rest, below a nanosecond, are checked
/// and not counted).
#[inline]
fn time(v: &[u8]) -> Option<(u32, u32, u32, u32)> {
    if v.len() < 8 || v[2] != b':' || v[5] != b':' {
        return None;
    }
    let h = num2(&v[0..2])?;
    let m = num2(&v[3..5])?;
    let s = num2(&v[6..8])?;
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    let mut nanos = 0u32;
    match &v[8..] {
        [] => {}
        [b'.', frac @ ..] if (1..=MAX_FRACTION_DIGITS).contains(&frac.len()) => {
            if !frac.iter().all(u8::is_ascii_digit) {
                return None;
            }
            for &b in frac.iter().take(9) {
                nanos = nanos * 10 + (b - b'0') as u32;
            }
            for _ in frac.len()..9 {
                nanos *= 10;
            }
        }
        _ => return None,
    }
    Some((h, m, s, nanos))
}

/// `YYYYMMDD-HH:MM:SS[.f{1,12}]` well-formed: the checks of [`parse_timestamp`] without
/// computing anything (validation runs this on every timestamp of every message). The
/// date and the time are checked eight bytes at a time.
#[inline(always)]
fn is_timestamp(v: &[u8]) -> bool {
    let (Some(date), Some(b'-'), Some(time)) = (v.get(..8), v.get(8), v.get(9..17)) else {
        return false;
    };
    let (Ok(date), Ok(time)) = (<[u8; 8]>::try_from(date), <[u8; 8]>::try_from(time)) else {
        return false;
    };
    date8(u64::from_be_bytes(date))
        && time8(u64::from_be_bytes(time))
        && match &v[17..] {
            [] => true,
            [b'.', digits @ ..] => {
                (1..=MAX_FRACTION_DIGITS).contains(&digits.len()) && num_class_sum(digits) == 0
            }
            _ => false,
        }
}

/// Eight ASCII digits.
#[inline(always)]
fn all_digits8(x: u64) -> bool {
    const HI: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    // '0'..='9' are 0x30..=0x39: high nibble 3, and still 3 after adding 6 (no carry out of
    // a byte whose high nibble is 3).
    x & HI == ZEROS && x.wrapping_add(0x0606_0606_0606_0606) & HI == ZEROS
}

/// The two bytes at `shift` of a big-endian word of digits, as written ("12" is 0x3132):
/// two-digit numbers compare as these do.
#[inline(always)]
fn pair(x: u64, shift: u32) -> u64 {
    x >> shift & 0xFFFF
}

/// `YYYYMMDD` as a big-endian word: what [`is_date`] accepts (month 01–12, day 01–31).
#[inline(always)]
fn date8(x: u64) -> bool {
    all_digits8(x)
        && (0x3031..=0x3132).contains(&pair(x, 16))
        && (0x3031..=0x3331).contains(&pair(x, 0))
}

/// `HH:MM:SS` as a big-endian word: what [`is_time_of_day`] accepts before a fraction
/// (hour ≤ 23, minute ≤ 59, second ≤ 60).
#[inline(always)]
fn time8(x: u64) -> bool {
    const COLONS: u64 = 0x0000_3A00_003A_0000;
    const COLON_MASK: u64 = 0x0000_FF00_00FF_0000;
    // The colons become '0' digits (0x3A ^ 0x0A = 0x30).
    let digits = x ^ 0x0000_0A00_000A_0000;
    x & COLON_MASK == COLONS
        && all_digits8(digits)
        && pair(x, 48) <= 0x3233
        && pair(x, 24) <= 0x3539
        && pair(x, 0) <= 0x3630
}

/// Two ASCII digits forming a number ≤ `max`.
#[inline(always)]
fn two_digits_at_most(a: u8, b: u8, max: u8) -> bool {
    a.is_ascii_digit() && b.is_ascii_digit() && (a - b'0') * 10 + (b - b'0') <= max
}

/// `YYYYMMDD` with month 1–12 and day 1–31 (what [`date`] accepts).
#[inline]
fn is_date(v: &[u8]) -> bool {
    let [y0, y1, y2, y3, m0, m1, d0, d1] = *v else {
        return false;
    };
    y0.is_ascii_digit()
        && y1.is_ascii_digit()
        && y2.is_ascii_digit()
        && y3.is_ascii_digit()
        && two_digits_at_most(m0, m1, 12)
        && (m0, m1) != (b'0', b'0')
        && two_digits_at_most(d0, d1, 31)
        && (d0, d1) != (b'0', b'0')
}

/// `HH:MM:SS` plus an optional `.` and 1–12 digits (what [`time`] accepts).
#[inline]
fn is_time_of_day(v: &[u8]) -> bool {
    let [h0, h1, b':', m0, m1, b':', s0, s1, frac @ ..] = v else {
        return false;
    };
    two_digits_at_most(*h0, *h1, 23)
        && two_digits_at_most(*m0, *m1, 59)
        && two_digits_at_most(*s0, *s1, 60)
        && match frac {
            [] => true,
            [b'.', digits @ ..] => {
                (1..=MAX_FRACTION_DIGITS).contains(&digits.len())
                    && digits.iter().all(u8::is_ascii_digit)
            }
            _ => false,
        }
}

/// Parses `YYYYMMDD-HH:MM:SS[.f{1,12}]` to nanoseconds since the Unix epoch (digits
/// below the nanosecond are not counted).
///
/// Not the codec's [`parse_timestamp`](peregrine_codec::value::parse_timestamp): the
/// validator accepts what QuickFIX and QuickFIX/J accept, which is more than the codec
/// reads as a [`UtcTimestamp`](peregrine_codec::value::UtcTimestamp) — a fraction of
/// any 1–12 digits (the codec: 3, 6, 9 or 12) and a day 1–31 whatever the month (the
/// codec rejects 30 February). The date arithmetic is the codec's.
pub(crate) fn parse_timestamp(v: &[u8]) -> Option<i128> {
    if v.len() < 17 || v[8] != b'-' {
        return None;
    }
    let (y, mo, d) = date(&v[..8])?;
    let (h, mi, s, nanos) = time(&v[9..])?;
    let days = days_from_civil(i64::from(y), mo, d);
    let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + s);
    Some(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints() {
        for ok in ["0", "12", "-3", "007"] {
            assert!(is_int(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "-", "+1", "1.0", " 1", "1a"] {
            assert!(!is_int(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn decimals() {
        for ok in ["0", "150.50", "-1.5", ".5", "5.", "002000.00"] {
            assert!(is_decimal(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "-", ".", "+200.00", "1.2.3", "1e5", "1,5"] {
            assert!(!is_decimal(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn timestamps() {
        for ok in [
            "20240115-10:30:00",
            "20240115-10:30:00.123",
            "20240115-23:59:60.123456789",
            "20170408-00:00:00.123456789123",
            "20170408-00:00:00.1234567891",
        ] {
            assert!(check(TS, ok.as_bytes()), "{ok}");
        }
        for bad in [
            "20240115",
            "20241315-10:30:00",
            "20240115-24:00:00",
            "20240115-10:30:00.",
            "20240115 10:30:00",
            "20170408-00:00:00.1234567891234",
            "20170408-00:00:00.123456789123456",
            "20170408-00:00:00.12345678912a",
        ] {
            assert!(!check(TS, bad.as_bytes()), "{bad}");
        }
        // The check-only path agrees with the parser, on good and bad inputs.
        for v in [
            "20240115-10:30:00.123",
            "20240115-10:30:00",
            "20240115-23:59:60.123456789",
            "20240115-24:00:00",
            "20240115-10:60:00",
            "20240115-10:30:61",
            "20241315-10:30:00",
            "20240015-10:30:00",
            "20240100-10:30:00",
            "20240132-10:30:00",
            "2024011-10:30:00.1",
            "20240115-10:30:00.1234567890",
            "20240115-10:30:00.123456789123",
            "20240115-10:30:00.1234567891234",
            "20240115-10:30:00.12345678912a",
            "20240115-10:30:00.12a",
            "20240115-10:30:00.",
            "2024a115-10:30:00",
            "20240115-1a:30:00",
            "20240115-10-30:00",
        ] {
            assert_eq!(
                is_timestamp(v.as_bytes()),
                parse_timestamp(v.as_bytes()).is_some(),
                "{v}"
            );
            let (d, t) = v.split_at(8);
            assert_eq!(is_date(d.as_bytes()), date(d.as_bytes()).is_some(), "{d}");
            let t = &t[1..];
            assert_eq!(
                is_time_of_day(t.as_bytes()),
                time(t.as_bytes()).is_some(),
                "{t}"
            );
        }
        assert_eq!(parse_timestamp(b"19700101-00:00:01.5"), Some(1_500_000_000));
        assert_eq!(
            parse_timestamp(b"19700101-00:00:01.123456789999"),
            Some(1_123_456_789)
        );
        assert_eq!(
            parse_timestamp(b"20000301-00:00:00"),
            Some(951_868_800 * 1_000_000_000)
        );
        // QuickFIX's rule, wider than the codec's: any 1–12 fraction digits, and a day
        // past the month's end (counted on into the next month).
        assert_eq!(parse_timestamp(b"19700101-00:00:00.12"), Some(120_000_000));
        assert!(peregrine_codec::value::parse_timestamp(b"19700101-00:00:00.12").is_err());
        assert_eq!(
            parse_timestamp(b"20240231-00:00:00"),
            parse_timestamp(b"20240302-00:00:00")
        );
        assert!(peregrine_codec::value::parse_timestamp(b"20240231-00:00:00").is_err());
    }

    /// The table- and word-at-a-time checks against plain byte-by-byte definitions, on
    /// every short string over a small alphabet and on timestamps with one byte changed.
    #[test]
    fn fast_checks_agree_with_plain_definitions() {
        fn plain_int(v: &[u8]) -> bool {
            let d = v.strip_prefix(b"-").unwrap_or(v);
            !d.is_empty() && d.iter().all(u8::is_ascii_digit)
        }
        fn plain_decimal(v: &[u8]) -> bool {
            let d = v.strip_prefix(b"-").unwrap_or(v);
            let digits = d.iter().filter(|b| b.is_ascii_digit()).count();
            let dots = d.iter().filter(|&&b| b == b'.').count();
            digits > 0 && dots <= 1 && digits + dots == d.len()
        }
        let mut v = Vec::new();
        // Every value up to nine bytes over a small alphabet, up to five over a larger one.
        for (alphabet, max_len) in [(&b"09.-a"[..], 9u32), (&b"09.-+a/:"[..], 5)] {
            for len in 0..=max_len {
                for mut n in 0..alphabet.len().pow(len) {
                    v.clear();
                    for _ in 0..len {
                        v.push(alphabet[n % alphabet.len()]);
                        n /= alphabet.len();
                    }
                    assert_eq!(
                        is_int(&v),
                        plain_int(&v),
                        "{:?}",
                        String::from_utf8_lossy(&v)
                    );
                    assert_eq!(
                        is_decimal(&v),
                        plain_decimal(&v),
                        "{:?}",
                        String::from_utf8_lossy(&v)
                    );
                }
            }
        }
        let bytes = [
            b'0',
            b'1',
            b'2',
            b'3',
            b'5',
            b'6',
            b'9',
            b':',
            b'-',
            b'.',
            b'/',
            b'a',
            0x3A + 6,
            0xB0,
        ];
        for base in [
            "20240115-10:30:00",
            "20241231-23:59:60.123456789",
            "19991001-09:09:09.5",
        ] {
            for i in 0..base.len() {
                for &b in &bytes {
                    let mut t = base.as_bytes().to_vec();
                    t[i] = b;
                    let s = String::from_utf8_lossy(&t).to_string();
                    assert_eq!(is_timestamp(&t), parse_timestamp(&t).is_some(), "{s}");
                    if i < 8 {
                        assert_eq!(
                            date8(u64::from_be_bytes(t[..8].try_into().unwrap())),
                            date(&t[..8]).is_some(),
                            "{s}"
                        );
                    }
                }
            }
        }
        // Every month, day, hour, minute and second value.
        for n in 0..100 {
            let two = format!("{n:02}");
            let d = format!("202401{two}");
            assert_eq!(is_date(d.as_bytes()), date(d.as_bytes()).is_some(), "{d}");
            let d = format!("2024{two}15");
            assert_eq!(is_date(d.as_bytes()), date(d.as_bytes()).is_some(), "{d}");
            for t in [
                format!("{two}:30:00"),
                format!("10:{two}:00"),
                format!("10:30:{two}"),
            ] {
                let ts = format!("20240115-{t}");
                assert_eq!(
                    is_timestamp(ts.as_bytes()),
                    parse_timestamp(ts.as_bytes()).is_some(),
                    "{ts}"
                );
            }
        }
    }

    #[test]
    fn dates_times_bools_chars() {
        assert!(check(DATE, b"20040415"));
        assert!(!check(DATE, b"2004041"));
        assert!(check(TIME, b"10:30:00.5"));
        assert!(check(TIME, b"10:30:00.123456789123"));
        assert!(!check(TIME, b"10:30:00.1234567891234"));
        assert!(!check(TIME, b"10:61:00"));
        assert!(check(BOOL, b"Y") && !check(BOOL, b"y"));
        assert!(check(CHAR, b"1") && !check(CHAR, b"12"));
    }
}

//! How message bytes and creation times are written in QuickFIX/J's columns.
//!
//! `message` is `TEXT`: QuickFIX/J writes a message as a Java string decoded
//! from its bytes with its default charset, ISO-8859-1, so each byte is one
//! character (U+0000–U+00FF). The same mapping here makes every byte but
//! NUL (which PostgreSQL's `TEXT` cannot hold) round-trip, and the rows
//! read the same from either side.

use peregrine_store::StoreError;

/// The largest sequence number the `INTEGER` columns hold.
pub(crate) const MAX_SEQ: u64 = i32::MAX as u64;

pub(crate) fn too_big(what: &str, value: u64) -> StoreError {
    StoreError::Database {
        context: "value out of the column's range",
        source: format!(
            "{what} {value} is above {MAX_SEQ}, the most QuickFIX/J's INTEGER columns hold"
        )
        .into(),
    }
}

/// The sequence number as the `INTEGER` column's value.
pub(crate) fn seq_column(what: &str, seq: u64) -> Result<i32, StoreError> {
    i32::try_from(seq).map_err(|_| too_big(what, seq))
}

/// Refuses what the `TEXT` column cannot hold (a NUL byte).
pub(crate) fn check_message(seq: u64, msg: &[u8]) -> Result<(), StoreError> {
    match msg.iter().position(|&b| b == 0) {
        None => Ok(()),
        Some(at) => Err(StoreError::Database {
            context: "store a message",
            source: format!(
                "message {seq} has a NUL byte at offset {at}, which a TEXT column cannot hold"
            )
            .into(),
        }),
    }
}

/// Bytes → the column's text (ISO-8859-1: one character per byte).
pub(crate) fn encode(msg: &[u8], out: &mut String) {
    out.clear();
    out.extend(msg.iter().map(|&b| b as char));
}

/// The column's text → bytes, into `out`.
pub(crate) fn decode(seq: u64, text: &str, out: &mut Vec<u8>) -> Result<(), StoreError> {
    out.clear();
    for c in text.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => {
                return Err(StoreError::Database {
                    context: "read a message",
                    source: format!(
                        "stored message {seq} has the character U+{:04X}, outside ISO-8859-1 (QuickFIX/J's default charset)",
                        u32::from(c)
                    )
                    .into(),
                })
            }
        }
    }
    Ok(())
}

/// Nanoseconds since the epoch → `YYYY-MM-DD HH:MM:SS.ffffff` (UTC,
/// microseconds, as PostgreSQL's `TIMESTAMP` keeps them), for SQLite.
pub(crate) fn format_time(nanos: i64) -> String {
    let secs = nanos.div_euclid(1_000_000_000);
    let micros = nanos.rem_euclid(1_000_000_000) / 1_000;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{micros:06}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The inverse of [`format_time`], also taking fewer fraction digits (or
/// none), a `T` for the space, and an integer (milliseconds since the epoch:
/// what the Xerial SQLite JDBC driver writes for a `Timestamp`).
pub(crate) fn parse_time(text: &str) -> Option<i64> {
    if let Ok(millis) = text.parse::<i64>() {
        return millis.checked_mul(1_000_000);
    }
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b' ' | b'T') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut nanos = 0;
    if b.len() > 19 {
        let frac = text.get(20..)?;
        if b[19] != b'.'
            || frac.is_empty()
            || frac.len() > 9
            || !frac.bytes().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        nanos = frac.parse::<i64>().ok()? * 10i64.pow(9 - frac.len() as u32);
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s;
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

// Howard Hinnant's days-from-civil algorithms (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_to_the_microsecond() {
        let t = 1_700_000_000_123_456_789;
        assert_eq!(format_time(t), "2023-11-14 22:13:20.123456");
        assert_eq!(parse_time(&format_time(t)), Some(t - 789));
        assert_eq!(parse_time("1970-01-01 00:00:00"), Some(0));
        assert_eq!(
            parse_time("2000-02-29T12:00:00.5"),
            Some(951_825_600_500_000_000)
        );
        assert_eq!(parse_time("1700000000123"), Some(1_700_000_000_123_000_000));
        assert_eq!(parse_time("2023-13-01 00:00:00"), None);
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(format_time(-1), "1969-12-31 23:59:59.999999");
    }

    #[test]
    fn every_byte_but_nul_round_trips() {
        let bytes: Vec<u8> = (1..=255).collect();
        let (mut text, mut back) = (String::new(), Vec::new());
        encode(&bytes, &mut text);
        decode(1, &text, &mut back).unwrap();
        assert_eq!(back, bytes);
        assert!(check_message(1, &bytes).is_ok());
        assert!(check_message(7, b"8=FIX\x00").is_err());
        assert!(decode(3, "\u{20AC}", &mut back).is_err());
    }
}

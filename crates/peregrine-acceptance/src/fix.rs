//! FIX wire helpers: template substitution, BodyLength/CheckSum, framing and rendering.

use std::time::{SystemTime, UNIX_EPOCH};

use peregrine_codec::value::civil_from_days;

/// The FIX field delimiter.
pub const SOH: u8 = 0x01;

/// Sum of all bytes modulo 256: the value of CheckSum (10) for the bytes preceding it.
///
/// ```
/// assert_eq!(peregrine_acceptance::checksum(b"8=FIX.4.4\x019=5\x0135=0\x01"), 163);
/// ```
pub fn checksum(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |acc, &b| acc.wrapping_add(b))
}

/// Renders a message for humans: SOH becomes `|`, other non-printable bytes `\xNN`.
///
/// ```
/// assert_eq!(peregrine_acceptance::render(b"8=FIX.4.4\x019=5\x01"), "8=FIX.4.4|9=5|");
/// ```
pub fn render(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            SOH => out.push('|'),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02X}")),
        }
    }
    out
}

/// Splits a message into `(tag, value)` pairs at SOH boundaries.
///
/// A final piece without a trailing SOH is still a field; a field without `=`
/// has the whole text as its tag and an empty value.
pub(crate) fn fields(message: &[u8]) -> Vec<(&[u8], &[u8])> {
    let body = message.strip_suffix(&[SOH]).unwrap_or(message);
    if body.is_empty() {
        return Vec::new();
    }
    body.split(|&b| b == SOH)
        .map(|field| match field.iter().position(|&b| b == b'=') {
            Some(eq) => (&field[..eq], &field[eq + 1..]),
            None => (field, &field[field.len()..]),
        })
        .collect()
}

/// Byte offset of the first field whose tag is exactly `tag` (checked at field
/// boundaries, so looking for `9` does not find `109=`).
fn find_field(message: &[u8], tag: &[u8]) -> Option<usize> {
    let mut start = 0;
    loop {
        let field = &message[start..];
        if field.len() > tag.len() && field.starts_with(tag) && field[tag.len()] == b'=' {
            return Some(start);
        }
        let next = field.iter().position(|&b| b == SOH)?;
        start += next + 1;
    }
}

/// Formats a Unix time (seconds) as UTC `YYYYMMDD-HH:MM:SS`.
///
/// ```
/// use peregrine_acceptance::format_utc_timestamp;
/// assert_eq!(format_utc_timestamp(0), "19700101-00:00:00");
/// assert_eq!(format_utc_timestamp(951_782_400), "20000229-00:00:00");
/// assert_eq!(format_utc_timestamp(1_700_000_000), "20231114-22:13:20");
/// ```
pub fn format_utc_timestamp(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}:{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

fn unix_seconds(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs_f64().ceil() as i64),
    }
}

/// Replaces `<TIME>`, `<TIME+n>` and `<TIME-n>` with UTC timestamps relative to `now`.
/// Anything else between angle brackets is left as it stands.
///
/// The timestamps have whole seconds, so `<TIME+n>` counts from the next whole second:
/// then the time written is at least `n` seconds ahead of the true `now` (counted from
/// this second, a script's "121 s late, reject it" arrived 119.999 s late when the
/// second turned between writing and reading: seen in QuickFIX/J's
/// `2o_SendingTimeValueOutOfRange`). `<TIME-n>` counts from this second, at least `n`
/// seconds behind.
pub fn substitute_time(template: &[u8], now: SystemTime) -> Vec<u8> {
    let base = unix_seconds(now);
    let whole = now
        .duration_since(UNIX_EPOCH)
        .map_or(true, |d| d.subsec_nanos() == 0);
    let next_second = if whole { base } else { base + 1 };
    let mut out = Vec::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(pos) = rest.windows(5).position(|w| w == b"<TIME") {
        out.extend_from_slice(&rest[..pos]);
        let after = &rest[pos + 5..];
        let close = after.iter().position(|&b| b == b'>');
        let offset = close.and_then(|c| parse_offset(&after[..c]));
        match (close, offset) {
            (Some(c), Some(off)) => {
                let from = if off > 0 { next_second } else { base };
                out.extend_from_slice(format_utc_timestamp(from + off).as_bytes());
                rest = &after[c + 1..];
            }
            _ => {
                out.extend_from_slice(b"<TIME");
                rest = after;
            }
        }
    }
    out.extend_from_slice(rest);
    out
}

/// Parses the part between `<TIME` and `>`: empty, `+n` or `-n`.
fn parse_offset(spec: &[u8]) -> Option<i64> {
    let (sign, digits) = match spec.split_first() {
        None => return Some(0),
        Some((b'+', d)) => (1, d),
        Some((b'-', d)) => (-1, d),
        Some(_) => return None,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits)
        .ok()?
        .parse::<i64>()
        .ok()
        .map(|n| sign * n)
}

/// Completes a message from a script line, as the reference runner does:
/// substitutes the `<TIME…>` placeholders; then, if the line starts with `8=`,
/// inserts BodyLength (9) after the first field when there is no `9=` field and
/// appends CheckSum (10) when there is no `10=` field. An explicit `9=` or `10=`
/// is kept as written, and a line not starting with `8=` only gets its times
/// substituted.
///
/// ```
/// use peregrine_acceptance::complete_message;
/// use std::time::SystemTime;
/// let msg = complete_message(b"8=FIX.4.4\x0135=0\x01", SystemTime::UNIX_EPOCH);
/// assert_eq!(msg, b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01".to_vec());
/// ```
pub fn complete_message(template: &[u8], now: SystemTime) -> Vec<u8> {
    let mut msg = substitute_time(template, now);
    if !msg.starts_with(b"8=") {
        return msg;
    }
    if find_field(&msg, b"9").is_none() {
        let Some(first_end) = msg.iter().position(|&b| b == SOH) else {
            return msg;
        };
        let body_start = first_end + 1;
        let body_end = find_field(&msg, b"10")
            .filter(|&p| p >= body_start)
            .unwrap_or(msg.len());
        let field = format!("9={}\x01", body_end - body_start);
        msg.splice(body_start..body_start, field.bytes());
    }
    if find_field(&msg, b"10").is_none() {
        let sum = checksum(&msg);
        msg.extend_from_slice(format!("10={sum:03}\x01").as_bytes());
    }
    msg
}

/// The outcome of trying to frame one message at the start of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameOutcome {
    /// A whole message occupies the first `n` bytes.
    Complete(usize),
    /// More bytes are needed.
    Incomplete,
    /// The bytes cannot be the start of a FIX message.
    Invalid(String),
}

/// Finds the end of the first FIX message in `buf`
/// (`8=…<SOH>9=len<SOH>…<SOH>10=nnn<SOH>`), using BodyLength to locate the checksum.
///
/// If BodyLength does not point at a `10=` field, the message is taken to end at
/// the first `<SOH>10=digits<SOH>` after the header, so that a message with a wrong
/// BodyLength is still read whole (and then reported by the comparison).
///
/// ```
/// use peregrine_acceptance::{frame_message, FrameOutcome};
/// let two = b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x018=FIX";
/// assert_eq!(frame_message(two), FrameOutcome::Complete(26));
/// assert_eq!(frame_message(&two[..20]), FrameOutcome::Incomplete);
/// ```
pub fn frame_message(buf: &[u8]) -> FrameOutcome {
    const PREFIX: &[u8] = b"8=";
    if buf.len() < PREFIX.len() {
        return if PREFIX.starts_with(buf) {
            FrameOutcome::Incomplete
        } else {
            FrameOutcome::Invalid("data does not start with 8=".into())
        };
    }
    if !buf.starts_with(PREFIX) {
        return FrameOutcome::Invalid("data does not start with 8=".into());
    }
    let Some(first_end) = buf.iter().position(|&b| b == SOH) else {
        return FrameOutcome::Incomplete;
    };
    let second = &buf[first_end + 1..];
    if second.len() < 2 {
        return if b"9=".starts_with(second) {
            FrameOutcome::Incomplete
        } else {
            FrameOutcome::Invalid("second field is not BodyLength (9)".into())
        };
    }
    if !second.starts_with(b"9=") {
        return FrameOutcome::Invalid("second field is not BodyLength (9)".into());
    }
    let Some(len_end) = second.iter().position(|&b| b == SOH) else {
        return FrameOutcome::Incomplete;
    };
    let len_text = &second[2..len_end];
    let body_start = first_end + 1 + len_end + 1;
    let declared = std::str::from_utf8(len_text)
        .ok()
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<usize>().ok());
    let Some(declared) = declared else {
        return FrameOutcome::Invalid(format!("BodyLength {:?} is not a number", render(len_text)));
    };
    let trailer = body_start.saturating_add(declared);
    if buf.len() >= trailer.saturating_add(3) {
        if &buf[trailer..trailer + 3] == b"10=" {
            return match buf[trailer..].iter().position(|&b| b == SOH) {
                Some(end) => FrameOutcome::Complete(trailer + end + 1),
                None => FrameOutcome::Incomplete,
            };
        }
        return match checksum_field_end(buf, body_start) {
            Some(end) => FrameOutcome::Complete(end),
            None => FrameOutcome::Incomplete,
        };
    }
    // BodyLength points beyond the data received so far: usually the rest is still
    // on its way, but if the data already ends in a checksum field the declared
    // length is simply wrong.
    match checksum_field_end(buf, body_start) {
        Some(end) if end == buf.len() => FrameOutcome::Complete(end),
        _ => FrameOutcome::Incomplete,
    }
}

/// End (exclusive) of the first `<SOH>10=digits<SOH>` field at or after `from - 1`.
fn checksum_field_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from.checked_sub(1)?;
    while i + 4 <= buf.len() {
        if &buf[i..i + 4] == b"\x0110=" {
            let value_start = i + 4;
            let digits = buf[value_start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 && buf.get(value_start + digits) == Some(&SOH) {
                return Some(value_start + digits + 1);
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(47_541), (2100, 3, 1)); // 2100 is not a leap year
        assert_eq!(format_utc_timestamp(1_709_251_199), "20240229-23:59:59");
        assert_eq!(format_utc_timestamp(-1), "19691231-23:59:59");
    }

    #[test]
    fn time_placeholders() {
        let now = at(1_700_000_000);
        let out = substitute_time(b"52=<TIME>|122=<TIME-121>|x=<TIME+10>|<TIMEX>|<TIME", now);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "52=20231114-22:13:20|122=20231114-22:11:19|x=20231114-22:13:30|<TIMEX>|<TIME"
        );
    }

    /// Just before a second turns, a time ahead counts from the next second (so it is
    /// never less than n seconds ahead), the others from this one.
    #[test]
    fn a_time_ahead_is_never_less_than_its_offset_ahead() {
        let now = UNIX_EPOCH + std::time::Duration::new(1_700_000_000, 990_000_000);
        let out = substitute_time(b"52=<TIME>|a=<TIME+121>|b=<TIME-121>", now);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "52=20231114-22:13:20|a=20231114-22:15:22|b=20231114-22:11:19"
        );
    }

    #[test]
    fn body_length_and_checksum_by_hand() {
        // Body "35=A\x0134=1\x0149=TW\x0152=20231114-22:13:20\x0156=ISLD\x0198=0\x01108=30\x01"
        // is 5 + 5 + 6 + 21 + 8 + 5 + 7 = 57 bytes.
        let tpl =
            b"8=FIX.4.4\x0135=A\x0134=1\x0149=TW\x0152=<TIME>\x0156=ISLD\x0198=0\x01108=30\x01";
        let msg = complete_message(tpl, at(1_700_000_000));
        let expected_prefix: &[u8] = b"8=FIX.4.4\x019=57\x0135=A\x0134=1\x0149=TW\x0152=20231114-22:13:20\x0156=ISLD\x0198=0\x01108=30\x01";
        assert!(msg.starts_with(expected_prefix), "{}", render(&msg));
        // The checksum computed independently of `checksum()`.
        let sum: u32 = expected_prefix.iter().map(|&b| u32::from(b)).sum();
        let trailer = format!("10={:03}\x01", sum % 256);
        assert_eq!(&msg[expected_prefix.len()..], trailer.as_bytes());
        assert_eq!(frame_message(&msg), FrameOutcome::Complete(msg.len()));
    }

    #[test]
    fn known_heartbeat() {
        // By hand: "8=FIX.4.2" = 56+61+70+73+88+46+52+46+50 = 542, SOH -> 543,
        // "9=5" = 57+61+53 = 171 -> 714, SOH -> 715, "35=0" = 51+53+61+48 = 213
        // -> 928, SOH -> 929; 929 mod 256 = 161.
        let msg = complete_message(b"8=FIX.4.2\x0135=0\x01", at(0));
        assert_eq!(msg, b"8=FIX.4.2\x019=5\x0135=0\x0110=161\x01");
    }

    #[test]
    fn explicit_fields_are_kept() {
        let tpl = b"8=FIX.4.4\x019=52\x0135=0\x0134=2\x014garbled9=TW\x0110=0\x01";
        assert_eq!(complete_message(tpl, at(0)), tpl.to_vec());
        // explicit 10= only: 9 is inserted and counts up to the 10 field
        let msg = complete_message(b"8=FIX.4.4\x0135=0\x0110=121\x01", at(0));
        assert_eq!(msg, b"8=FIX.4.4\x019=5\x0135=0\x0110=121\x01");
        // explicit 9= only: checksum appended over the message as written
        let msg = complete_message(b"8=FIX.4.4\x019=99\x0135=0\x01", at(0));
        let sum = checksum(b"8=FIX.4.4\x019=99\x0135=0\x01");
        assert_eq!(
            msg,
            format!("8=FIX.4.4\x019=99\x0135=0\x0110={sum:03}\x01").as_bytes()
        );
    }

    #[test]
    fn tag_109_is_not_9_and_110_is_not_10() {
        let msg = complete_message(b"8=FIX.4.4\x0135=0\x01109=X\x01110=Y\x01", at(0));
        let fields = fields(&msg);
        assert_eq!(fields[1], (&b"9"[..], &b"17"[..])); // 5 + 6 + 6
        assert_eq!(fields.last().unwrap().0, b"10");
        assert_eq!(fields.len(), 6);
    }

    #[test]
    fn lines_not_starting_with_8_are_sent_as_they_stand() {
        let tpl = b"35=0\x018=FIX.4.4\x019=29\x0152=<TIME>\x01";
        let msg = complete_message(tpl, at(0));
        assert_eq!(
            msg,
            b"35=0\x018=FIX.4.4\x019=29\x0152=19700101-00:00:00\x01"
        );
    }

    #[test]
    fn framing() {
        let m = complete_message(b"8=FIX.4.4\x0135=0\x0134=2\x01", at(0));
        for cut in 0..m.len() {
            assert_eq!(
                frame_message(&m[..cut]),
                FrameOutcome::Incomplete,
                "cut {cut}"
            );
        }
        let mut two = m.clone();
        two.extend_from_slice(&m);
        assert_eq!(frame_message(&two), FrameOutcome::Complete(m.len()));
        assert!(matches!(
            frame_message(b"35=0\x01"),
            FrameOutcome::Invalid(_)
        ));
        assert!(matches!(
            frame_message(b"8=FIX.4.4\x0135=0\x01"),
            FrameOutcome::Invalid(_)
        ));
        assert!(matches!(
            frame_message(b"8=FIX.4.4\x019=x\x01"),
            FrameOutcome::Invalid(_)
        ));
    }

    #[test]
    fn framing_with_wrong_body_length() {
        // declared too long, nothing after it
        let m = b"8=FIX.4.4\x019=61\x0135=0\x0110=100\x01";
        assert_eq!(frame_message(m), FrameOutcome::Complete(m.len()));
        // declared too short
        let m = b"8=FIX.4.4\x019=2\x0135=0\x0110=100\x018=FIX.4.4\x01";
        assert_eq!(frame_message(m), FrameOutcome::Complete(26)); // 10 + 4 + 5 + 7
    }
}

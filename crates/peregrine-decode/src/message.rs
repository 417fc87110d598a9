//! A found message ([`FoundMessage`]) split into its fields, with its BodyLength and
//! CheckSum checked and its header's identity read.

use super::scan::FoundMessage;

/// One `tag=value` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    /// The tag.
    pub tag: u32,
    /// The value as on the wire.
    pub value: &'a [u8],
}

/// A message's fields in order, and what is wrong with it that does not stop
/// it from being shown.
#[derive(Debug)]
pub struct Message<'a> {
    /// Every field, in order.
    pub fields: Vec<Field<'a>>,
    /// A BodyLength or CheckSum that does not match, a header out of order.
    pub problems: Vec<String>,
}

impl<'a> Message<'a> {
    /// The first value of `tag`.
    pub fn get(&self, tag: u32) -> Option<&'a [u8]> {
        self.fields.iter().find(|f| f.tag == tag).map(|f| f.value)
    }

    /// The first value of `tag` as text (lossy: a header field is ASCII).
    pub fn text(&self, tag: u32) -> Option<String> {
        self.get(tag)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }
}

/// Splits a frame into fields and checks it.
///
/// # Errors
///
/// A field that is not `tag=value` with a tag of digits: the message cannot
/// be shown field by field.
pub fn parse(frame: &FoundMessage) -> Result<Message<'_>, String> {
    let d = frame.delimiter;
    let bytes = frame.bytes.strip_suffix(&[d]).unwrap_or(&frame.bytes);
    let mut fields = Vec::new();
    for (i, raw) in bytes.split(|&b| b == d).enumerate() {
        let Some(eq) = raw.iter().position(|&b| b == b'=') else {
            return Err(format!(
                "field {} \"{}\" is not tag=value",
                i + 1,
                super::escape::escape(raw)
            ));
        };
        let (tag, value) = (&raw[..eq], &raw[eq + 1..]);
        let tag = std::str::from_utf8(tag)
            .ok()
            .filter(|t| !t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.parse::<u32>().ok())
            .filter(|&t| t > 0)
            .ok_or_else(|| {
                format!(
                    "field {} \"{}\" has no tag number",
                    i + 1,
                    super::escape::escape(raw)
                )
            })?;
        fields.push(Field { tag, value });
    }
    let mut problems = Vec::new();
    if fields.get(1).map(|f| f.tag) != Some(9) {
        problems.push("BodyLength(9) is not the second field".into());
    }
    if fields.get(2).map(|f| f.tag) != Some(35) {
        problems.push("MsgType(35) is not the third field".into());
    }
    check_body_length(bytes, d, &fields, &mut problems);
    check_checksum(bytes, d, &mut problems);
    Ok(Message { fields, problems })
}

/// BodyLength counts the bytes after its own field up to the CheckSum field.
fn check_body_length(bytes: &[u8], d: u8, fields: &[Field<'_>], problems: &mut Vec<String>) {
    let (Some(declared), Some(trailer)) = (
        fields.get(1).filter(|f| f.tag == 9),
        checksum_start(bytes, d),
    ) else {
        return;
    };
    // 8=…<d>9=…<d> is where the body starts.
    let start = fields[0].value.len() + 3 + declared.value.len() + 3;
    let actual = trailer.saturating_sub(start);
    match std::str::from_utf8(declared.value)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(n) if n == actual => {}
        Some(n) => problems.push(format!("BodyLength is {n} but the body is {actual} bytes")),
        None => problems.push(format!(
            "BodyLength \"{}\" is not a number",
            super::escape::escape(declared.value)
        )),
    }
}

/// Where the CheckSum field starts (after the last delimiter before `10=`).
fn checksum_start(bytes: &[u8], d: u8) -> Option<usize> {
    let i = bytes.iter().rposition(|&b| b == d)? + 1;
    bytes[i..].starts_with(b"10=").then_some(i)
}

/// CheckSum is the sum of the bytes before it modulo 256, the delimiter
/// counted as SOH (a `|`-delimited message is checked as it was sent).
fn check_checksum(bytes: &[u8], d: u8, problems: &mut Vec<String>) {
    let Some(start) = checksum_start(bytes, d) else {
        return;
    };
    let sum = bytes[..start]
        .iter()
        .map(|&b| u32::from(if b == d { 0x01 } else { b }))
        .sum::<u32>()
        % 256;
    let declared = &bytes[start + 3..];
    let ok = declared.len() == 3
        && std::str::from_utf8(declared)
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            == Some(sum);
    if !ok {
        problems.push(format!(
            "CheckSum is \"{}\" but the bytes sum to {sum:03}",
            super::escape::escape(declared)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> FoundMessage {
        FoundMessage {
            line: 1,
            time: None,
            bytes: text.as_bytes().to_vec(),
            delimiter: b'|',
        }
    }

    fn problems(text: &str) -> Vec<String> {
        parse(&frame(text)).unwrap().problems
    }

    #[test]
    fn fields_and_a_good_message() {
        let f = frame("8=FIX.4.4|9=5|35=0|10=163|");
        let m = parse(&f).unwrap();
        assert_eq!(m.fields.len(), 4);
        assert_eq!(m.get(35), Some(&b"0"[..]));
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        // The same with SOH.
        let mut soh = f.clone();
        soh.bytes = f
            .bytes
            .iter()
            .map(|&b| if b == b'|' { 1 } else { b })
            .collect();
        soh.delimiter = 1;
        assert!(parse(&soh).unwrap().problems.is_empty());
        // Without the last delimiter.
        assert!(problems("8=FIX.4.4|9=5|35=0|10=163").is_empty());
    }

    #[test]
    fn bad_length_and_checksum_are_problems_not_errors() {
        assert_eq!(
            problems("8=FIX.4.4|9=7|35=0|10=000|"),
            [
                "BodyLength is 7 but the body is 5 bytes",
                "CheckSum is \"000\" but the bytes sum to 165"
            ]
        );
        assert!(problems("8=FIX.4.4|35=0|10=1|")[0].contains("BodyLength(9) is not the second"));
    }

    #[test]
    fn fields_that_are_not_tag_value_are_errors() {
        assert!(parse(&frame("8=FIX.4.4|9=5|garbage|10=000|"))
            .unwrap_err()
            .contains("field 3 \"garbage\" is not tag=value"));
        assert!(parse(&frame("8=FIX.4.4|x=5|10=000|"))
            .unwrap_err()
            .contains("has no tag number"));
        assert!(parse(&frame("8=FIX.4.4|0=5|10=000|")).is_err());
        assert!(parse(&frame("8=FIX.4.4|99999999999=5|10=000|")).is_err());
    }
}

//! Bytes from the wire made safe for a terminal: no control character from
//! the input reaches the output.
//!
//! Control characters (C0, DEL and C1, SOH included) and bytes that are not
//! UTF-8 are written `\xNN` (C1 characters by their code point, `\u{85}`);
//! everything else, `\` included, is written as it is. That is the notation
//! of Peregrine's own message logs, whose escaped values therefore read the
//! same here.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `bytes` as terminal-safe text (borrowed when nothing needs escaping):
/// `a<SOH>b<LF>` becomes `a\x01b\x0a`.
pub fn escape(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !text.chars().any(char::is_control) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                c if (c as u32) < 0x80 && c.is_control() => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if c.is_control() => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn control_characters_never_pass() {
        assert_eq!(escape(b"plain text \\ ok"), "plain text \\ ok");
        assert!(matches!(escape(b"plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            escape(b"a\x01b\n\x1b[31m\x7f\xff \xc3\xa9"),
            "a\\x01b\\x0a\\x1b[31m\\x7f\\xff \u{e9}"
        );
        // C1 controls (CSI is U+009B) are escaped too.
        assert_eq!(escape("x\u{9b}y".as_bytes()), "x\\u{9b}y");
        for b in 0..=255u8 {
            let byte = [b];
            let text = escape(&byte);
            assert!(!text.chars().any(char::is_control), "{b:#x}: {text:?}");
        }
    }
}

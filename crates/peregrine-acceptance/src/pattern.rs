//! A tiny regular-expression matcher for the patterns of `fields.fmt`.
//!
//! Supported: literal bytes, `\d`, `\w`, `\s`, `\` escapes of any other byte, `.`,
//! bracket sets `[abc]`, `[a-z]`, `[^…]`, the quantifiers `{n}`, `{n,}`, `{n,m}`,
//! `?`, `*`, `+`, and top-level alternation `|`. [`Pattern::is_match`] matches
//! the whole value, [`Pattern::is_found`] searches for a match inside it.

use std::fmt;

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    source: String,
    alternatives: Vec<Vec<Piece>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    atom: Atom,
    min: usize,
    max: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Atom {
    Byte(u8),
    Any,
    Set {
        ranges: Vec<(u8, u8)>,
        negated: bool,
    },
}

impl Atom {
    fn matches(&self, b: u8) -> bool {
        match self {
            Atom::Byte(x) => *x == b,
            Atom::Any => true,
            Atom::Set { ranges, negated } => {
                ranges.iter().any(|&(lo, hi)| lo <= b && b <= hi) != *negated
            }
        }
    }
}

/// A pattern that could not be compiled.
///
/// ```
/// use peregrine_acceptance::{Pattern, PatternErrorKind};
/// let e = Pattern::new(r"\d{3").unwrap_err();
/// assert_eq!(e.kind, PatternErrorKind::UnterminatedRepetition);
/// assert_eq!(e.to_string(), r#"bad pattern "\\d{3": unterminated {"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern text.
    pub pattern: String,
    /// What is wrong with it.
    pub kind: PatternErrorKind,
}

/// What is wrong with a pattern ([`PatternError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternErrorKind {
    /// A `\` with nothing after it.
    TrailingBackslash,
    /// A `\` before a letter or digit other than `d`, `w` and `s`.
    UnsupportedEscape(char),
    /// A `[` without its `]`.
    UnterminatedSet,
    /// A range in a set whose end comes before its start, as `[z-a]`.
    EmptyRange(char, char),
    /// A `{` without its `}`.
    UnterminatedRepetition,
    /// A repetition, written here without its braces, that is not `n`, `n,`
    /// or `n,m` with `n <= m`.
    BadRepetition(String),
    /// Syntax outside the subset: groups and anchors (`(`, `)`, `^`, `$`).
    UnsupportedSyntax(char),
    /// A quantifier (`{`, `?`, `*`, `+`) with nothing before it to repeat.
    QuantifierWithoutAtom,
}

impl fmt::Display for PatternErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternErrorKind::TrailingBackslash => f.write_str("trailing backslash"),
            PatternErrorKind::UnsupportedEscape(c) => write!(f, "unsupported escape \\{c}"),
            PatternErrorKind::UnterminatedSet => f.write_str("unterminated ["),
            PatternErrorKind::EmptyRange(lo, hi) => write!(f, "empty range {lo}-{hi}"),
            PatternErrorKind::UnterminatedRepetition => f.write_str("unterminated {"),
            PatternErrorKind::BadRepetition(inner) => write!(f, "bad repetition {{{inner}}}"),
            PatternErrorKind::UnsupportedSyntax(c) => write!(f, "unsupported syntax {c:?}"),
            PatternErrorKind::QuantifierWithoutAtom => f.write_str("quantifier without an atom"),
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad pattern {:?}: {}", self.pattern, self.kind)
    }
}

impl std::error::Error for PatternError {}

const DIGITS: &[(u8, u8)] = &[(b'0', b'9')];
const WORD: &[(u8, u8)] = &[(b'0', b'9'), (b'A', b'Z'), (b'a', b'z'), (b'_', b'_')];
const SPACE: &[(u8, u8)] = &[(b' ', b' '), (b'\t', b'\r')];

fn class(escape: u8) -> Option<&'static [(u8, u8)]> {
    match escape {
        b'd' => Some(DIGITS),
        b'w' => Some(WORD),
        b's' => Some(SPACE),
        _ => None,
    }
}

impl Pattern {
    /// Compiles a pattern.
    ///
    /// # Errors
    ///
    /// A [`PatternError`] at the first construct outside the supported subset
    /// (see [`PatternErrorKind`]): a bad escape, an unterminated `[` or `{`, an
    /// empty range or bad repetition, a group or anchor, or a quantifier with
    /// nothing to repeat.
    ///
    /// ```
    /// use peregrine_acceptance::Pattern;
    /// let p = Pattern::new(r"\d{8}-\d{2}:\d{2}:\d{2}|\d{8}-\d{2}:\d{2}:\d{2}[.]\d{3}").unwrap();
    /// assert!(p.is_match(b"20240101-12:00:00"));
    /// assert!(p.is_match(b"20240101-12:00:00.123"));
    /// assert!(!p.is_match(b"20240101-12:00:00.12"));
    /// ```
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        let err = |kind: PatternErrorKind| PatternError {
            pattern: source.to_string(),
            kind,
        };
        let bytes = source.as_bytes();
        let mut alternatives = vec![Vec::new()];
        let mut i = 0;
        while i < bytes.len() {
            let atom = match bytes[i] {
                b'|' => {
                    alternatives.push(Vec::new());
                    i += 1;
                    continue;
                }
                b'\\' => {
                    let &e = bytes
                        .get(i + 1)
                        .ok_or_else(|| err(PatternErrorKind::TrailingBackslash))?;
                    i += 2;
                    match class(e) {
                        Some(ranges) => Atom::Set {
                            ranges: ranges.to_vec(),
                            negated: false,
                        },
                        None if e.is_ascii_alphanumeric() => {
                            return Err(err(PatternErrorKind::UnsupportedEscape(e as char)))
                        }
                        None => Atom::Byte(e),
                    }
                }
                b'[' => {
                    let (atom, next) = parse_set(bytes, i + 1).map_err(err)?;
                    i = next;
                    atom
                }
                b'.' => {
                    i += 1;
                    Atom::Any
                }
                b'(' | b')' | b'^' | b'$' => {
                    return Err(err(PatternErrorKind::UnsupportedSyntax(bytes[i] as char)))
                }
                b'{' | b'?' | b'*' | b'+' => {
                    return Err(err(PatternErrorKind::QuantifierWithoutAtom))
                }
                b => {
                    i += 1;
                    Atom::Byte(b)
                }
            };
            let (min, max, next) = parse_quantifier(bytes, i).map_err(err)?;
            i = next;
            alternatives
                .last_mut()
                .expect("at least one alternative")
                .push(Piece { atom, min, max });
        }
        Ok(Pattern {
            source: source.to_string(),
            alternatives,
        })
    }

    /// The pattern text as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the whole of `value` matches the pattern.
    pub fn is_match(&self, value: &[u8]) -> bool {
        self.alternatives
            .iter()
            .any(|pieces| match_pieces(pieces, value, true))
    }

    /// Whether the pattern matches somewhere in `value` (an unanchored search,
    /// as Ruby's `Regexp#===` that the reference runner uses).
    ///
    /// ```
    /// use peregrine_acceptance::Pattern;
    /// let p = Pattern::new(r"\d{8}-\d{2}:\d{2}:\d{2}").unwrap();
    /// assert!(p.is_found(b"20240101-12:00:00.123"));
    /// assert!(!p.is_match(b"20240101-12:00:00.123"));
    /// assert!(!p.is_found(b"20240101-12:00"));
    /// ```
    pub fn is_found(&self, value: &[u8]) -> bool {
        (0..=value.len()).any(|start| {
            self.alternatives
                .iter()
                .any(|pieces| match_pieces(pieces, &value[start..], false))
        })
    }
}

fn parse_set(bytes: &[u8], mut i: usize) -> Result<(Atom, usize), PatternErrorKind> {
    let mut negated = false;
    if bytes.get(i) == Some(&b'^') {
        negated = true;
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let &b = bytes.get(i).ok_or(PatternErrorKind::UnterminatedSet)?;
        if b == b']' && !first {
            return Ok((Atom::Set { ranges, negated }, i + 1));
        }
        first = false;
        let lo = if b == b'\\' {
            let &e = bytes
                .get(i + 1)
                .ok_or(PatternErrorKind::TrailingBackslash)?;
            i += 2;
            if let Some(cls) = class(e) {
                ranges.extend_from_slice(cls);
                continue;
            }
            e
        } else {
            i += 1;
            b
        };
        if bytes.get(i) == Some(&b'-') && bytes.get(i + 1).is_some_and(|&c| c != b']') {
            let hi = bytes[i + 1];
            if hi < lo {
                return Err(PatternErrorKind::EmptyRange(lo as char, hi as char));
            }
            ranges.push((lo, hi));
            i += 2;
        } else {
            ranges.push((lo, lo));
        }
    }
}

fn parse_quantifier(bytes: &[u8], i: usize) -> Result<(usize, usize, usize), PatternErrorKind> {
    match bytes.get(i) {
        Some(b'?') => Ok((0, 1, i + 1)),
        Some(b'*') => Ok((0, usize::MAX, i + 1)),
        Some(b'+') => Ok((1, usize::MAX, i + 1)),
        Some(b'{') => {
            let close = bytes[i..]
                .iter()
                .position(|&b| b == b'}')
                .ok_or(PatternErrorKind::UnterminatedRepetition)?
                + i;
            // Between two ASCII braces of a `&str`: UTF-8.
            let inner = String::from_utf8_lossy(&bytes[i + 1..close]).into_owned();
            let bad = || PatternErrorKind::BadRepetition(inner.clone());
            let number = |s: &str| s.parse::<usize>().map_err(|_| bad());
            let (min, max) = match inner.split_once(',') {
                None => {
                    let n = number(&inner)?;
                    (n, n)
                }
                Some((lo, "")) => (number(lo)?, usize::MAX),
                Some((lo, hi)) => (number(lo)?, number(hi)?),
            };
            if max < min {
                return Err(bad());
            }
            Ok((min, max, close + 1))
        }
        _ => Ok((1, 1, i)),
    }
}

/// Backtracking match of a sequence of pieces at the start of `value`; with
/// `to_end`, the match must also consume the whole value.
fn match_pieces(pieces: &[Piece], value: &[u8], to_end: bool) -> bool {
    let Some((piece, rest)) = pieces.split_first() else {
        return value.is_empty() || !to_end;
    };
    let available = value.iter().take_while(|&&b| piece.atom.matches(b)).count();
    let most = available.min(piece.max);
    if most < piece.min {
        return false;
    }
    (piece.min..=most)
        .rev()
        .any(|n| match_pieces(rest, &value[n..], to_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset() {
        let p = Pattern::new(r"\d{3}").unwrap();
        assert!(p.is_match(b"007"));
        assert!(!p.is_match(b"07"));
        assert!(!p.is_match(b"0070"));
        assert!(!p.is_match(b"0"));
        let p = Pattern::new(r"a[.]b|x\.y+").unwrap();
        assert!(p.is_match(b"a.b"));
        assert!(!p.is_match(b"axb"));
        assert!(p.is_match(b"x.yyy"));
        assert!(!p.is_match(b"x."));
        let p = Pattern::new(r"[^0-9]*\d{1,2}").unwrap();
        assert!(p.is_match(b"ab12"));
        assert!(p.is_match(b"1"));
        assert!(!p.is_match(b"123"));
        let p = Pattern::new(r"a*ab").unwrap(); // needs backtracking
        assert!(p.is_match(b"aaab"));
        assert!(Pattern::new("").unwrap().is_match(b""));
    }

    #[test]
    fn errors() {
        use PatternErrorKind::*;
        for (bad, kind, text) in [
            (r"\d{3", UnterminatedRepetition, "unterminated {"),
            (r"[abc", UnterminatedSet, "unterminated ["),
            ("(a)", UnsupportedSyntax('('), "unsupported syntax '('"),
            (r"\q", UnsupportedEscape('q'), r"unsupported escape \q"),
            ("*a", QuantifierWithoutAtom, "quantifier without an atom"),
            (
                r"a{3,1}",
                BadRepetition("3,1".into()),
                "bad repetition {3,1}",
            ),
            (r"a{x}", BadRepetition("x".into()), "bad repetition {x}"),
            ("\\", TrailingBackslash, "trailing backslash"),
            (r"[\", TrailingBackslash, "trailing backslash"),
            ("[z-a]", EmptyRange('z', 'a'), "empty range z-a"),
        ] {
            let e = Pattern::new(bad).unwrap_err();
            assert_eq!(e.kind, kind, "{bad}");
            assert_eq!(e.to_string(), format!("bad pattern {bad:?}: {text}"));
        }
    }
}

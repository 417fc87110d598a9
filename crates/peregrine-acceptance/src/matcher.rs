//! The strict comparison of a received message with an `E` line.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::fix::{fields, render};
use crate::pattern::{Pattern, PatternError};

/// The tags whose values are matched by pattern rather than literally (`fields.fmt`).
///
/// By default a value passes when the pattern matches inside it, exactly as the
/// reference runner (Ruby's `Regexp#===`, unanchored) does; the scripts depend
/// on it: two dozen expect `122=` or `60=` with milliseconds (counted in their
/// explicit BodyLength) where `fields.fmt` gives a pattern without them.
/// [`FieldPatterns::anchored`] requires the whole value to match instead.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPatterns {
    patterns: BTreeMap<Vec<u8>, Pattern>,
    anchored: bool,
}

/// Why `fields.fmt` could not be loaded.
#[derive(Debug)]
pub enum FieldPatternsError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line is not `tag=pattern`.
    NotTagPattern {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A line's pattern is not supported.
    Pattern {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        error: PatternError,
    },
}

impl fmt::Display for FieldPatternsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPatternsError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            FieldPatternsError::NotTagPattern { line, text } => {
                write!(f, "fields.fmt line {line}: {text:?} is not tag=pattern")
            }
            FieldPatternsError::Pattern { line, error } => {
                write!(f, "fields.fmt line {line}: {error}")
            }
        }
    }
}

impl std::error::Error for FieldPatternsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FieldPatternsError::Io { source, .. } => Some(source),
            FieldPatternsError::Pattern { error, .. } => Some(error),
            FieldPatternsError::NotTagPattern { .. } => None,
        }
    }
}

/// How a received message differs from the expected one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MismatchKind {
    /// The field at this index has another tag.
    Tag {
        /// Expected `tag=value`.
        expected: String,
        /// Received `tag=value`.
        actual: String,
    },
    /// Same tag, different value (literal comparison).
    Value {
        /// Expected `tag=value`.
        expected: String,
        /// Received `tag=value`.
        actual: String,
    },
    /// Same tag, but the value does not match the tag's pattern from `fields.fmt`.
    Pattern {
        /// The pattern the value had to match.
        pattern: String,
        /// Received `tag=value`.
        actual: String,
    },
    /// The received message ends before this expected field.
    Missing {
        /// The expected `tag=value` that was not received.
        expected: String,
    },
    /// The received message has an extra field here.
    Extra {
        /// The received `tag=value` that was not expected.
        actual: String,
    },
    /// A received field whose tag the expected message does not have at all
    /// ([`MatchRule::QuickFixJ`], which does not compare the order).
    Unexpected {
        /// The received `tag=value`.
        actual: String,
    },
    /// An expected field whose tag the received message does not have at all
    /// ([`MatchRule::QuickFixJ`]).
    NotReceived {
        /// The expected `tag=value`.
        expected: String,
    },
}

/// The first difference between an expected and a received message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// 0-based index of the first differing field.
    pub index: usize,
    /// What differs there.
    pub kind: MismatchKind,
    /// The expected message, SOH rendered as `|`.
    pub expected: String,
    /// The received message, SOH rendered as `|`.
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.index;
        match &self.kind {
            MismatchKind::Tag { expected, actual } => {
                write!(f, "field {i}: expected tag {expected}, got {actual}")?
            }
            MismatchKind::Value { expected, actual } => {
                write!(f, "field {i}: expected {expected}, got {actual}")?
            }
            MismatchKind::Pattern { pattern, actual } => {
                let tag = actual.split('=').next().unwrap_or_default();
                write!(
                    f,
                    "field {i}: expected {tag}= matching {pattern}, got {actual}"
                )?
            }
            MismatchKind::Missing { expected } => {
                write!(f, "field {i}: expected {expected}, got end of message")?
            }
            MismatchKind::Extra { actual } => {
                write!(f, "field {i}: expected end of message, got {actual}")?
            }
            MismatchKind::Unexpected { actual } => {
                write!(f, "field {i}: {actual} was not expected")?
            }
            MismatchKind::NotReceived { expected } => {
                write!(f, "field {i} expected: {expected} was not received")?
            }
        }
        write!(f, "; expected {} got {}", self.expected, self.actual)
    }
}

fn field_text(tag: &[u8], value: &[u8]) -> String {
    format!("{}={}", render(tag), render(value))
}

impl FieldPatterns {
    /// Loads `fields.fmt`: one `tag=pattern` a line, CRLF or LF, blank lines ignored.
    ///
    /// # Errors
    ///
    /// [`FieldPatternsError::Io`] when the file cannot be read; otherwise as
    /// [`FieldPatterns::parse`].
    ///
    /// ```no_run
    /// let patterns = peregrine_acceptance::FieldPatterns::load("definitions/fields.fmt")?;
    /// assert!(patterns.pattern(52).is_some());
    /// # Ok::<(), peregrine_acceptance::FieldPatternsError>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<FieldPatterns, FieldPatternsError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| FieldPatternsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        FieldPatterns::parse(&text)
    }

    /// Parses the text of a `fields.fmt` file.
    ///
    /// # Errors
    ///
    /// [`FieldPatternsError::NotTagPattern`] for a line that is not
    /// `tag=pattern` (a numeric tag), [`FieldPatternsError::Pattern`] for a
    /// pattern [`Pattern::new`] refuses; both name the first such line.
    ///
    /// ```
    /// use peregrine_acceptance::FieldPatterns;
    /// let p = FieldPatterns::parse("10=\\d{3}\r\n52=\\d{8}-\\d{2}:\\d{2}:\\d{2}\r\n").unwrap();
    /// assert!(p.match_message(b"8=FIX.4.0\x0110=0\x01", b"8=FIX.4.0\x0110=123\x01").is_ok());
    /// assert!(p.match_message(b"8=FIX.4.0\x0110=0\x01", b"8=FIX.4.0\x0110=12\x01").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<FieldPatterns, FieldPatternsError> {
        let mut patterns = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.trim_end_matches(['\r', '\n']);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (tag, pattern) = line
                .split_once('=')
                .filter(|(tag, _)| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| FieldPatternsError::NotTagPattern {
                    line: line_no,
                    text: line.to_string(),
                })?;
            let pattern = Pattern::new(pattern).map_err(|error| FieldPatternsError::Pattern {
                line: line_no,
                error,
            })?;
            patterns.insert(tag.as_bytes().to_vec(), pattern);
        }
        Ok(FieldPatterns {
            patterns,
            anchored: false,
        })
    }

    /// Requires pattern values to match as a whole (`true`) rather than
    /// somewhere inside, as the reference runner does (`false`, the default).
    ///
    /// ```
    /// use peregrine_acceptance::FieldPatterns;
    /// let p = FieldPatterns::parse("122=\\d{8}-\\d{2}:\\d{2}:\\d{2}").unwrap();
    /// let (exp, act) = (b"122=0\x01", b"122=20240101-00:00:00.000\x01");
    /// assert!(p.match_message(exp, act).is_ok());
    /// assert!(p.anchored(true).match_message(exp, act).is_err());
    /// ```
    pub fn anchored(mut self, anchored: bool) -> FieldPatterns {
        self.anchored = anchored;
        self
    }

    /// The pattern for a tag, if it is matched by pattern.
    pub fn pattern(&self, tag: u32) -> Option<&Pattern> {
        self.patterns.get(tag.to_string().as_bytes())
    }

    /// Compares a received message with the expected one by the strict rule:
    /// the same number of fields, the same tags in the same order and the same
    /// values, except that the values of pattern tags must match the pattern
    /// (see [`FieldPatterns::anchored`]), and the fields of
    /// [`without_tolerated`] (a Logout's Text, a Reject's RefTagID that the
    /// expected message does not list) may be there too.
    ///
    /// # Errors
    ///
    /// A [`Mismatch`] at the first field that differs: another tag, another
    /// value (or one the tag's pattern does not match), or a field missing
    /// from or added to the received message.
    ///
    /// ```
    /// use peregrine_acceptance::FieldPatterns;
    /// let p = FieldPatterns::default();
    /// let err = p.match_message(b"8=FIX.4.4\x0135=0\x01", b"8=FIX.4.4\x0135=1\x01").unwrap_err();
    /// assert_eq!(err.index, 1);
    /// assert!(err.to_string().starts_with("field 1: expected 35=0, got 35=1"));
    /// ```
    pub fn match_message(&self, expected: &[u8], actual: &[u8]) -> Result<(), Mismatch> {
        let mismatch = match self.match_exact(expected, actual) {
            Ok(()) => return Ok(()),
            Err(m) => m,
        };
        match without_tolerated(expected, actual) {
            Some(stripped) if self.match_exact(expected, &stripped).is_ok() => Ok(()),
            _ => Err(mismatch),
        }
    }

    fn match_exact(&self, expected: &[u8], actual: &[u8]) -> Result<(), Mismatch> {
        let exp = fields(expected);
        let act = fields(actual);
        let mismatch = |index, kind| Mismatch {
            index,
            kind,
            expected: render(expected),
            actual: render(actual),
        };
        for (i, (&(et, ev), &(at, av))) in exp.iter().zip(act.iter()).enumerate() {
            if et != at {
                return Err(mismatch(
                    i,
                    MismatchKind::Tag {
                        expected: field_text(et, ev),
                        actual: field_text(at, av),
                    },
                ));
            }
            let fits = |p: &Pattern| {
                if self.anchored {
                    p.is_match(av)
                } else {
                    p.is_found(av)
                }
            };
            match self.patterns.get(et) {
                Some(pattern) if !fits(pattern) => {
                    return Err(mismatch(
                        i,
                        MismatchKind::Pattern {
                            pattern: pattern.as_str().to_string(),
                            actual: field_text(at, av),
                        },
                    ))
                }
                Some(_) => {}
                None if ev != av => {
                    return Err(mismatch(
                        i,
                        MismatchKind::Value {
                            expected: field_text(et, ev),
                            actual: field_text(at, av),
                        },
                    ))
                }
                None => {}
            }
        }
        let common = exp.len().min(act.len());
        if let Some(&(t, v)) = exp.get(common) {
            return Err(mismatch(
                common,
                MismatchKind::Missing {
                    expected: field_text(t, v),
                },
            ));
        }
        if let Some(&(t, v)) = act.get(common) {
            return Err(mismatch(
                common,
                MismatchKind::Extra {
                    actual: field_text(t, v),
                },
            ));
        }
        Ok(())
    }
}

/// The fields Peregrine sends where QuickFIX's expected messages have none, by the
/// decisions of `docs/acceptance-differences.md` (QuickFIX/J sends them too):
/// Text(58) in a Logout (35=5) and RefTagID(371) in a Reject (35=3), each only
/// when `expected` does not list that tag. `actual` without them (BodyLength
/// counted again), or `None` when it has none of them.
///
/// ```
/// use peregrine_acceptance::{without_tolerated, FieldPatterns};
/// let expected = b"8=FIX.4.4\x019=24\x0135=5\x0134=3\x0149=ISLD\x0156=TW\x0110=0\x01";
/// let actual = b"8=FIX.4.4\x019=41\x0135=5\x0134=3\x0149=ISLD\x0156=TW\x0158=CompID problem\x0110=123\x01";
/// assert_eq!(
///     without_tolerated(expected, actual).unwrap(),
///     b"8=FIX.4.4\x019=24\x0135=5\x0134=3\x0149=ISLD\x0156=TW\x0110=123\x01".to_vec()
/// );
/// // A Text the expected Logout lists must be the same.
/// assert!(without_tolerated(actual, actual).is_none());
/// // So the strict rule takes it where QuickFIX's script lists no Text.
/// let patterns = FieldPatterns::parse("10=\\d{3}").unwrap();
/// assert!(patterns.match_message(expected, actual).is_ok());
/// // Any other extra field is still a mismatch.
/// let other = b"8=FIX.4.4\x019=31\x0135=5\x0134=3\x0149=ISLD\x0156=TW\x01112=HELLO\x0110=123\x01";
/// assert!(patterns.match_message(expected, other).is_err());
/// ```
pub fn without_tolerated(expected: &[u8], actual: &[u8]) -> Option<Vec<u8>> {
    let act = fields(actual);
    let kind = act.iter().find(|(t, _)| *t == b"35").map(|(_, v)| *v)?;
    let tolerated: &[u8] = match kind {
        b"5" => b"58",
        b"3" => b"371",
        _ => return None,
    };
    if fields(expected).iter().any(|(t, _)| *t == tolerated)
        || !act.iter().any(|(t, _)| *t == tolerated)
    {
        return None;
    }
    let kept: Vec<_> = act.iter().filter(|(t, _)| *t != tolerated).collect();
    let field = |(t, v): &&(&[u8], &[u8])| [*t, b"=", *v, b"\x01"].concat();
    // BodyLength: the fields after it and before CheckSum.
    let body: Vec<u8> = kept
        .iter()
        .filter(|(t, _)| !matches!(*t, b"8" | b"9" | b"10"))
        .flat_map(field)
        .collect();
    let mut out = Vec::with_capacity(actual.len());
    for f in &kept {
        if f.0 == b"9" {
            out.extend_from_slice(format!("9={}\x01", body.len()).as_bytes());
        } else {
            out.extend(field(f));
        }
    }
    Some(out)
}

/// At an `eDISCONNECT`, a Logout the acceptor sends first is read and the close
/// still awaited when nothing else came on that connection (`received_before`
/// false): the Logout that says why a Logon was refused, which QuickFIX's
/// scripts expect to be dropped without one (see
/// `docs/acceptance-differences.md`).
///
/// ```
/// use peregrine_acceptance::logout_before_disconnect;
/// let logout = b"8=FIX.4.4\x019=5\x0135=5\x0110=000\x01";
/// assert!(logout_before_disconnect(logout, false));
/// assert!(!logout_before_disconnect(logout, true));
/// assert!(!logout_before_disconnect(b"8=FIX.4.4\x019=5\x0135=0\x0110=000\x01", false));
/// ```
pub fn logout_before_disconnect(message: &[u8], received_before: bool) -> bool {
    !received_before
        && fields(message)
            .iter()
            .any(|f| *f == (&b"35"[..], &b"5"[..]))
}

/// How an `E` line is compared with the message received: the convention of the
/// suite the scripts come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MatchRule {
    /// QuickFIX's reference runner (the 505 QuickFIX scripts):
    /// [`FieldPatterns::match_message`], with the patterns of `fields.fmt`.
    #[default]
    Strict,
    /// QuickFIX/J's `ExpectMessageStep` as QuickFIX/J's build runs it (the scripts
    /// QuickFIX/J adds, `acceptance/quickfixj`): see [`match_quickfixj`].
    QuickFixJ,
}

impl MatchRule {
    /// The rule's name on the command line: `strict` or `quickfixj`.
    pub fn name(self) -> &'static str {
        match self {
            MatchRule::Strict => "strict",
            MatchRule::QuickFixJ => "quickfixj",
        }
    }

    /// The rule named `name` ([`MatchRule::name`]), if any.
    ///
    /// ```
    /// use peregrine_acceptance::MatchRule;
    /// assert_eq!(MatchRule::from_name("quickfixj"), Some(MatchRule::QuickFixJ));
    /// assert_eq!(MatchRule::from_name("loose"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<MatchRule> {
        [MatchRule::Strict, MatchRule::QuickFixJ]
            .into_iter()
            .find(|r| r.name() == name)
    }

    /// The rule of the scripts in `acceptance_dir`: [`MatchRule::Strict`] when they
    /// come with `definitions/fields.fmt` (QuickFIX's data), else
    /// [`MatchRule::QuickFixJ`] (QuickFIX/J's definitions have no `fields.fmt`: its
    /// runner never compares the values of time fields).
    pub fn of_acceptance_dir(acceptance_dir: &Path) -> MatchRule {
        if acceptance_dir.join("definitions/fields.fmt").is_file() {
            MatchRule::Strict
        } else {
            MatchRule::QuickFixJ
        }
    }

    /// Compares by this rule; `patterns` serve [`MatchRule::Strict`] only.
    ///
    /// # Errors
    ///
    /// The first [`Mismatch`] the rule finds.
    pub fn match_message(
        self,
        patterns: &FieldPatterns,
        expected: &[u8],
        actual: &[u8],
    ) -> Result<(), Mismatch> {
        match self {
            MatchRule::Strict => patterns.match_message(expected, actual),
            MatchRule::QuickFixJ => match_quickfixj(expected, actual),
        }
    }
}

/// The tags QuickFIX/J's runner never compares: BodyLength and CheckSum, and the
/// time fields SendingTime(52), TransactTime(60) and OrigSendingTime(122).
const QFJ_UNCOMPARED: [&[u8]; 5] = [b"9", b"10", b"52", b"60", b"122"];

/// QuickFIX/J 2.3.1's comparison (`ExpectMessageStep.assertMessageEqual`) as its
/// Maven build runs it (`atest.heartbeat=5`):
///
/// * MsgType(35) must be the same;
/// * every received field other than 9, 10, 52, 60 and 122 must be expected, with
///   the same value, except Text(58), whose expected value need only begin the
///   received one;
/// * every expected field must be received (a time field too, whatever its value);
/// * neither the order nor the number of fields is compared;
/// * a Logon (an expected message with HeartBtInt(108)) is checked for its MsgType
///   and the presence of the expected fields only (the build overrides HeartBtInt).
///
/// Fields are read as QuickFIX/J reads them (`tag=value<SOH>`, a value of one
/// character or more); each received field is compared, where QuickFIX/J compares
/// the last of a repeated tag.
///
/// # Errors
///
/// A [`Mismatch`]: [`MismatchKind::Value`] for a MsgType or a value that differs,
/// [`MismatchKind::Unexpected`] for a received field that was not expected,
/// [`MismatchKind::NotReceived`] for an expected field that was not received.
///
/// ```
/// use peregrine_acceptance::match_quickfixj;
/// let m = |s: &str| s.replace('|', "\x01").into_bytes();
/// let expected = m("8=FIX.4.4|35=5|34=2|49=ISLD|56=TW|58=Received message without MsgSeqNum|");
/// let actual = m("8=FIX.4.4|9=90|35=5|34=2|49=ISLD|52=20240101-00:00:00.000|56=TW|58=Received message without MsgSeqNum|10=123|");
/// assert!(match_quickfixj(&expected, &actual).is_ok());
/// let other = m("8=FIX.4.4|9=60|35=5|34=2|49=ISLD|52=20240101-00:00:00.000|56=TW|10=123|");
/// assert!(match_quickfixj(&expected, &other).unwrap_err().to_string().contains("58=Received"));
/// ```
pub fn match_quickfixj(expected: &[u8], actual: &[u8]) -> Result<(), Mismatch> {
    let read = |message| -> Vec<(&[u8], &[u8])> {
        fields(message)
            .into_iter()
            .filter(|(t, v)| !t.is_empty() && t.iter().all(u8::is_ascii_digit) && !v.is_empty())
            .collect()
    };
    let exp = read(expected);
    let act = read(actual);
    let last = |fields: &[(&[u8], &[u8])], tag: &[u8]| -> Option<(usize, Vec<u8>)> {
        fields
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (t, _))| *t == tag)
            .map(|(i, (_, v))| (i, v.to_vec()))
    };
    let mismatch = |index, kind| Mismatch {
        index,
        kind,
        expected: render(expected),
        actual: render(actual),
    };
    let exp_type = last(&exp, b"35");
    let act_type = last(&act, b"35");
    if exp_type.as_ref().map(|(_, v)| v) != act_type.as_ref().map(|(_, v)| v) {
        let text = |f: &Option<(usize, Vec<u8>)>| {
            f.as_ref()
                .map(|(_, v)| field_text(b"35", v))
                .unwrap_or_else(|| "no 35".to_string())
        };
        return Err(mismatch(
            act_type.as_ref().map_or(0, |(i, _)| *i),
            MismatchKind::Value {
                expected: text(&exp_type),
                actual: text(&act_type),
            },
        ));
    }
    let logon = last(&exp, b"108").is_some();
    for (i, &(tag, value)) in act.iter().enumerate() {
        if logon || QFJ_UNCOMPARED.contains(&tag) {
            continue;
        }
        let fits = match last(&exp, tag) {
            None => {
                return Err(mismatch(
                    i,
                    MismatchKind::Unexpected {
                        actual: field_text(tag, value),
                    },
                ))
            }
            Some((_, ev)) if tag == b"58" => value.starts_with(&ev),
            Some((_, ev)) => value == ev.as_slice(),
        };
        if !fits {
            let ev = last(&exp, tag).map(|(_, v)| v).unwrap_or_default();
            return Err(mismatch(
                i,
                MismatchKind::Value {
                    expected: field_text(tag, &ev),
                    actual: field_text(tag, value),
                },
            ));
        }
    }
    if let Some((i, &(tag, value))) = exp
        .iter()
        .enumerate()
        .find(|(_, (t, _))| !act.iter().any(|(a, _)| a == t))
    {
        return Err(mismatch(
            i,
            MismatchKind::NotReceived {
                expected: field_text(tag, value),
            },
        ));
    }
    Ok(())
}

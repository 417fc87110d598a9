//! Parsing of `.def` acceptance scripts.
//!
//! A script is a sequence of lines; each meaningful line becomes one [`Step`].
//! Lines may end in LF or CRLF, messages use raw SOH (0x01) delimiters, and
//! blank lines and lines starting with `#` are ignored.

use std::fmt;
use std::path::{Path, PathBuf};

/// One action of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `iCONNECT` / `iN,CONNECT`: open TCP connection `n` to the acceptor.
    Connect(u32),
    /// `iDISCONNECT` / `iN,DISCONNECT`: close connection `n`.
    Disconnect(u32),
    /// `eDISCONNECT` / `eN,DISCONNECT`: expect the acceptor to close connection `n`.
    ExpectDisconnect(u32),
    /// `I<msg>` / `IN,<msg>`: send a message template (before substitution) on connection `n`.
    Send(u32, Vec<u8>),
    /// `E<msg>` / `EN,<msg>`: expect this message template next on connection `n`.
    Expect(u32, Vec<u8>),
    /// `iSET_SESSION <session> NEXTSENDERSEQNUM=<n> NEXTTARGETSEQNUM=<m>`: set the
    /// acceptor's sequence numbers out of band (at least one of the two is present).
    SetSession {
        /// Session identifier as written, e.g. `FIX.4.4:ISLD->TW`.
        session: String,
        /// The acceptor's next outgoing sequence number, if given.
        next_sender: Option<u64>,
        /// The acceptor's next expected incoming sequence number, if given.
        next_target: Option<u64>,
    },
}

impl Step {
    /// The connection number this step acts on, if it acts on a connection.
    pub fn connection(&self) -> Option<u32> {
        match self {
            Step::Connect(n)
            | Step::Disconnect(n)
            | Step::ExpectDisconnect(n)
            | Step::Send(n, _)
            | Step::Expect(n, _) => Some(*n),
            Step::SetSession { .. } => None,
        }
    }
}

/// A step together with the (1-based) line of the script it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptStep {
    /// 1-based line number in the source file.
    pub line: usize,
    /// The parsed step.
    pub step: Step,
}

/// A parsed acceptance script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// Name of the script: the file name without its `.def` extension.
    pub name: String,
    /// The steps in order, comments and blank lines removed.
    pub steps: Vec<ScriptStep>,
}

/// Why a script could not be parsed.
#[derive(Debug)]
pub enum ParseError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line is not a valid script line.
    Syntax {
        /// The file (or script name) the line belongs to.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        error: SyntaxError,
    },
}

/// What is wrong with a script line ([`ParseError::Syntax`]).
///
/// ```
/// use peregrine_acceptance::{ParseError, Script, SyntaxError};
/// let e = Script::parse_bytes("t.def", b"iCONNECTED\n").unwrap_err();
/// assert!(matches!(
///     &e,
///     ParseError::Syntax { line: 1, error: SyntaxError::UnknownAction(a), .. } if a == "CONNECTED"
/// ));
/// assert_eq!(e.to_string(), "t.def:1: unknown action iCONNECTED");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// The line starts with none of `I`, `E`, `i`, `e` or `#`.
    UnknownLineKind(char),
    /// An `n,` connection prefix too large for a connection number.
    ConnectionNumberOutOfRange(String),
    /// The connection prefix `0,` (connections are numbered from 1).
    ConnectionZero,
    /// An `I` or `E` line without a message.
    EmptyMessage,
    /// An `i` line with an action other than `CONNECT`, `DISCONNECT` and
    /// `SET_SESSION`: the action.
    UnknownAction(String),
    /// An `e` line with an expectation other than `DISCONNECT`: the
    /// expectation.
    UnknownExpectation(String),
    /// An `iSET_SESSION` line that is not UTF-8.
    SetSessionNotUtf8,
    /// `iSET_SESSION` without a session id after it.
    SetSessionWithoutId,
    /// An `iSET_SESSION` argument that is not `KEY=VALUE`.
    SetSessionArgument(String),
    /// An `iSET_SESSION` value that is not a number.
    SetSessionValue {
        /// The setting.
        key: String,
        /// Its value.
        value: String,
    },
    /// An `iSET_SESSION` setting other than `NEXTSENDERSEQNUM` and
    /// `NEXTTARGETSEQNUM`.
    SetSessionSetting(String),
    /// `iSET_SESSION` with neither `NEXTSENDERSEQNUM` nor `NEXTTARGETSEQNUM`.
    SetSessionWithoutSeqNum,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::UnknownLineKind(c) => {
                write!(f, "line starts with {c:?}; expected one of I, E, i, e or #")
            }
            SyntaxError::ConnectionNumberOutOfRange(n) => {
                write!(f, "connection number {n} out of range")
            }
            SyntaxError::ConnectionZero => f.write_str("connection number 0 is not valid"),
            SyntaxError::EmptyMessage => f.write_str("empty message"),
            SyntaxError::UnknownAction(a) => write!(f, "unknown action i{a}"),
            SyntaxError::UnknownExpectation(e) => write!(f, "unknown expectation e{e}"),
            SyntaxError::SetSessionNotUtf8 => f.write_str("SET_SESSION line is not UTF-8"),
            SyntaxError::SetSessionWithoutId => {
                f.write_str("SET_SESSION must be followed by a session id")
            }
            SyntaxError::SetSessionArgument(word) => {
                write!(f, "SET_SESSION argument {word:?} is not KEY=VALUE")
            }
            SyntaxError::SetSessionValue { key, value } => {
                write!(f, "SET_SESSION {key} value {value:?} is not a number")
            }
            SyntaxError::SetSessionSetting(key) => write!(f, "unknown SET_SESSION setting {key}"),
            SyntaxError::SetSessionWithoutSeqNum => {
                f.write_str("SET_SESSION needs NEXTSENDERSEQNUM or NEXTTARGETSEQNUM")
            }
        }
    }
}

impl std::error::Error for SyntaxError {}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ParseError::Syntax { file, line, error } => write!(f, "{file}:{line}: {error}"),
        }
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ParseError::Io { source, .. } => Some(source),
            ParseError::Syntax { .. } => None,
        }
    }
}

impl Script {
    /// Reads and parses a `.def` file; the script is named after the file stem.
    ///
    /// # Errors
    ///
    /// [`ParseError::Io`] when the file cannot be read; otherwise as
    /// [`Script::parse_bytes`], with the path as the file name.
    ///
    /// ```no_run
    /// use peregrine_acceptance::Script;
    /// let script = Script::parse("definitions/server/fix44/2a_MsgSeqNumCorrect.def")?;
    /// assert_eq!(script.name, "2a_MsgSeqNumCorrect");
    /// # Ok::<(), peregrine_acceptance::ParseError>(())
    /// ```
    pub fn parse(path: impl AsRef<Path>) -> Result<Script, ParseError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ParseError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let mut script = Script::parse_bytes(&path.display().to_string(), &bytes)?;
        script.name = name;
        Ok(script)
    }

    /// Parses script text held in memory; `name` names the script and its errors.
    ///
    /// # Errors
    ///
    /// [`ParseError::Syntax`] at the first line that is not a valid step (see
    /// [`SyntaxError`]), with its 1-based line number.
    ///
    /// ```
    /// use peregrine_acceptance::{Script, Step};
    /// let text = b"# logon\r\niCONNECT\r\nI8=FIX.4.4\x0135=A\x01\r\ni2,CONNECT\r\neDISCONNECT";
    /// let script = Script::parse_bytes("example", text).unwrap();
    /// let steps: Vec<&Step> = script.steps().collect();
    /// assert_eq!(steps[0], &Step::Connect(1));
    /// assert_eq!(steps[1], &Step::Send(1, b"8=FIX.4.4\x0135=A\x01".to_vec()));
    /// assert_eq!(steps[2], &Step::Connect(2));
    /// assert_eq!(steps[3], &Step::ExpectDisconnect(1));
    /// assert_eq!(script.steps[1].line, 3);
    /// ```
    pub fn parse_bytes(name: &str, bytes: &[u8]) -> Result<Script, ParseError> {
        let mut steps = Vec::new();
        for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = index + 1;
            let mut line = raw;
            while let [rest @ .., b'\r' | b'\n'] = line {
                line = rest;
            }
            if line.iter().all(|b| b.is_ascii_whitespace()) || line.first() == Some(&b'#') {
                continue;
            }
            let step = parse_line(line).map_err(|error| ParseError::Syntax {
                file: name.to_string(),
                line: line_no,
                error,
            })?;
            steps.push(ScriptStep {
                line: line_no,
                step,
            });
        }
        Ok(Script {
            name: name.to_string(),
            steps,
        })
    }

    /// Iterates over the steps without their line numbers.
    pub fn steps(&self) -> impl Iterator<Item = &Step> + '_ {
        self.steps.iter().map(|s| &s.step)
    }
}

/// Splits an optional `n,` connection prefix off the rest of a line.
fn connection_prefix(rest: &[u8]) -> Result<(u32, &[u8]), SyntaxError> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && rest.get(digits) == Some(&b',') {
        let text = std::str::from_utf8(&rest[..digits]).expect("ASCII digits");
        let n = text
            .parse::<u32>()
            .map_err(|_| SyntaxError::ConnectionNumberOutOfRange(text.to_string()))?;
        if n == 0 {
            return Err(SyntaxError::ConnectionZero);
        }
        Ok((n, &rest[digits + 1..]))
    } else {
        Ok((1, rest))
    }
}

fn parse_line(line: &[u8]) -> Result<Step, SyntaxError> {
    let (&kind, rest) = line.split_first().expect("non-empty line");
    match kind {
        b'I' | b'E' => {
            let (n, msg) = connection_prefix(rest)?;
            if msg.is_empty() {
                return Err(SyntaxError::EmptyMessage);
            }
            Ok(if kind == b'I' {
                Step::Send(n, msg.to_vec())
            } else {
                Step::Expect(n, msg.to_vec())
            })
        }
        b'i' => {
            if let Some(args) = rest.strip_prefix(b"SET_SESSION") {
                return parse_set_session(args);
            }
            let (n, action) = connection_prefix(rest)?;
            match action {
                b"CONNECT" => Ok(Step::Connect(n)),
                b"DISCONNECT" => Ok(Step::Disconnect(n)),
                other => Err(SyntaxError::UnknownAction(
                    String::from_utf8_lossy(other).into_owned(),
                )),
            }
        }
        b'e' => {
            let (n, action) = connection_prefix(rest)?;
            match action {
                b"DISCONNECT" => Ok(Step::ExpectDisconnect(n)),
                other => Err(SyntaxError::UnknownExpectation(
                    String::from_utf8_lossy(other).into_owned(),
                )),
            }
        }
        other => Err(SyntaxError::UnknownLineKind(other as char)),
    }
}

fn parse_set_session(args: &[u8]) -> Result<Step, SyntaxError> {
    let text = std::str::from_utf8(args).map_err(|_| SyntaxError::SetSessionNotUtf8)?;
    if !text.starts_with([' ', '\t']) {
        return Err(SyntaxError::SetSessionWithoutId);
    }
    let mut words = text.split_whitespace();
    let session = words
        .next()
        .ok_or(SyntaxError::SetSessionWithoutId)?
        .to_string();
    let (mut next_sender, mut next_target) = (None, None);
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| SyntaxError::SetSessionArgument(word.to_string()))?;
        let number = value
            .parse::<u64>()
            .map_err(|_| SyntaxError::SetSessionValue {
                key: key.to_string(),
                value: value.to_string(),
            })?;
        match key {
            "NEXTSENDERSEQNUM" => next_sender = Some(number),
            "NEXTTARGETSEQNUM" => next_target = Some(number),
            _ => return Err(SyntaxError::SetSessionSetting(key.to_string())),
        }
    }
    if next_sender.is_none() && next_target.is_none() {
        return Err(SyntaxError::SetSessionWithoutSeqNum);
    }
    Ok(Step::SetSession {
        session,
        next_sender,
        next_target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_session_line() {
        let s = Script::parse_bytes(
            "t",
            b"iSET_SESSION FIX.4.4:ISLD->TW NEXTSENDERSEQNUM=2000\r\n\
              iSET_SESSION FIX.4.4:ISLD->TW NEXTTARGETSEQNUM=7 NEXTSENDERSEQNUM=3\n",
        )
        .unwrap();
        assert_eq!(
            s.steps[0].step,
            Step::SetSession {
                session: "FIX.4.4:ISLD->TW".into(),
                next_sender: Some(2000),
                next_target: None
            }
        );
        assert_eq!(
            s.steps[1].step,
            Step::SetSession {
                session: "FIX.4.4:ISLD->TW".into(),
                next_sender: Some(3),
                next_target: Some(7)
            }
        );
    }

    #[test]
    fn message_starting_with_digits_is_not_a_connection_prefix() {
        let s = Script::parse_bytes("t", b"I35=0\x018=FIX.4.4\x01\r\nE12,8=FIX.4.2\x01").unwrap();
        assert_eq!(
            s.steps[0].step,
            Step::Send(1, b"35=0\x018=FIX.4.4\x01".to_vec())
        );
        assert_eq!(s.steps[1].step, Step::Expect(12, b"8=FIX.4.2\x01".to_vec()));
    }

    #[test]
    fn errors_carry_file_and_line() {
        let err = Script::parse_bytes("bad.def", b"# c\r\niCONNECT\r\nxyz\r\n").unwrap_err();
        match &err {
            ParseError::Syntax { file, line, .. } => {
                assert_eq!(file, "bad.def");
                assert_eq!(*line, 3);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().starts_with("bad.def:3: "));
        let err = Script::parse_bytes("b", b"iCONNECTED\n").unwrap_err();
        assert!(
            err.to_string().contains("unknown action iCONNECTED"),
            "{err}"
        );
        let err = Script::parse_bytes("b", b"iSET_SESSION X FOO=1\n").unwrap_err();
        assert!(err.to_string().contains("FOO"), "{err}");
        let err = Script::parse_bytes("b", b"i0,CONNECT\n").unwrap_err();
        assert!(err.to_string().contains("0"), "{err}");
        let cases: [(&[u8], SyntaxError); 11] = [
            (b"xyz", SyntaxError::UnknownLineKind('x')),
            (b"I", SyntaxError::EmptyMessage),
            (b"E0,8=FIX", SyntaxError::ConnectionZero),
            (
                b"i99999999999,CONNECT",
                SyntaxError::ConnectionNumberOutOfRange("99999999999".into()),
            ),
            (
                b"eCONNECT",
                SyntaxError::UnknownExpectation("CONNECT".into()),
            ),
            (b"iSET_SESSIONX", SyntaxError::SetSessionWithoutId),
            (b"iSET_SESSION ", SyntaxError::SetSessionWithoutId),
            (b"iSET_SESSION S", SyntaxError::SetSessionWithoutSeqNum),
            (
                b"iSET_SESSION S X",
                SyntaxError::SetSessionArgument("X".into()),
            ),
            (
                b"iSET_SESSION S NEXTSENDERSEQNUM=x",
                SyntaxError::SetSessionValue {
                    key: "NEXTSENDERSEQNUM".into(),
                    value: "x".into(),
                },
            ),
            (b"iSET_SESSION \xff", SyntaxError::SetSessionNotUtf8),
        ];
        for (line, want) in cases {
            match Script::parse_bytes("b", line) {
                Err(ParseError::Syntax { error, .. }) => assert_eq!(error, want),
                other => panic!("{line:?}: {other:?}"),
            }
        }
    }
}

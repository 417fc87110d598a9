//! Finding FIX messages in a byte stream: message logs (`TIME : 8=FIX…`, or
//! QuickFIX/J's `TIME: 8=FIX…`), raw FIX delimited by SOH or `|`, any number
//! of messages on a line, lines of any length.
//!
//! A message starts at `8=FIX` (where the `8` does not continue a word or a
//! number) and ends after its CheckSum field (`10=…`, up to its delimiter, the
//! end of the line or of the input). The delimiter is the first SOH or `|`
//! after the start. A line ending inside a message ends it, cut short: logs
//! hold one message per line, and a truncated line must not swallow the next
//! one. Text before a message on its line is its timestamp when it looks like
//! one; any other text is reported.
//!
//! Memory: the read buffer ([`READ_BUFFER`]), at most [`MAX_MESSAGE`] bytes of
//! the message being read and [`PREFIX_KEEP`] bytes of the text before it,
//! whatever the input's size and line lengths.

use std::collections::VecDeque;
use std::io::{self, Read};

/// The longest message kept; a longer one is reported and skipped.
pub const MAX_MESSAGE: usize = 1 << 20;
/// How much of the text before a message is kept (its timestamp).
pub const PREFIX_KEEP: usize = 128;
/// Bytes read at a time.
pub const READ_BUFFER: usize = 64 * 1024;
/// The longest BeginString field (`8=FIXT.1.1` is 10 bytes) before a
/// delimiter must have appeared.
const MAX_BEGIN_STRING: usize = 32;
/// How a message starts.
const START: &[u8] = b"8=FIX";

/// One message as found, not yet parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundMessage {
    /// The line it starts on (1-based).
    pub line: u64,
    /// The text before it on its line, when that looks like a timestamp.
    pub time: Option<String>,
    /// From `8=` through the CheckSum field and its delimiter (when there is one).
    pub bytes: Vec<u8>,
    /// SOH (0x01) or `|`.
    pub delimiter: u8,
}

/// Input that is not a whole message, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line (1-based).
    pub line: u64,
    /// What is wrong.
    pub what: String,
}

/// What the scanner finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A message.
    Message(FoundMessage),
    /// Input that is not one.
    Problem(Problem),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between messages: looking for `8=FIX`.
    Between,
    /// Inside a message.
    Message,
}

/// Finds messages in what `R` reads (see the [module documentation](self)).
pub struct Scanner<R> {
    input: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
    ready: VecDeque<Item>,
    state: State,
    /// The current line (1-based).
    line: u64,
    /// The byte before the current one (a start must not continue a word).
    prev: u8,
    /// How much of [`START`] the latest bytes match, between messages.
    matched: usize,
    /// The text since the last message or line start: its first bytes, its
    /// length and how much of it is not whitespace.
    prefix: Vec<u8>,
    prefix_len: usize,
    prefix_visible: usize,
    /// Messages found on the current line.
    line_messages: u64,
    /// The text up to the next message or line end is the rest of a message
    /// already reported: not reported again.
    skipping: bool,
    msg: Vec<u8>,
    msg_line: u64,
    msg_time: Option<String>,
    delimiter: Option<u8>,
    field_start: usize,
}

impl<R: Read> Scanner<R> {
    /// A scanner of `input` (read in [`READ_BUFFER`] chunks: no need to buffer it).
    pub fn new(input: R) -> Self {
        Scanner {
            input,
            buf: vec![0; READ_BUFFER].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            ready: VecDeque::new(),
            state: State::Between,
            line: 1,
            prev: b'\n',
            matched: 0,
            prefix: Vec::with_capacity(PREFIX_KEEP),
            prefix_len: 0,
            prefix_visible: 0,
            line_messages: 0,
            skipping: false,
            msg: Vec::new(),
            msg_line: 1,
            msg_time: None,
            delimiter: None,
            field_start: 0,
        }
    }

    /// The next message or problem in what has been read, without reading:
    /// `None` when more input is needed ([`read_more`](Self::read_more)).
    pub fn next_buffered(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if self.pos == self.len {
                return None;
            }
            // Until something is ready: the rest of the buffer, byte by byte.
            while self.pos < self.len && self.ready.is_empty() {
                let b = self.buf[self.pos];
                self.pos += 1;
                self.byte(b);
                self.prev = b;
            }
        }
    }

    /// Reads more input (waiting for it, on a pipe); `false` once the input
    /// has ended and everything in it was found.
    ///
    /// # Errors
    ///
    /// Reading failed.
    pub fn read_more(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.len = loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.pos = 0;
        if self.len == 0 {
            self.eof = true;
            self.end_of_line();
        }
        Ok(true)
    }

    /// The next message or problem, reading as needed; `None` at the end of
    /// the input.
    ///
    /// # Errors
    ///
    /// Reading failed.
    #[cfg(test)]
    pub fn next_item(&mut self) -> io::Result<Option<Item>> {
        loop {
            if let Some(item) = self.next_buffered() {
                return Ok(Some(item));
            }
            if !self.read_more()? {
                return Ok(None);
            }
        }
    }

    fn byte(&mut self, b: u8) {
        if b == b'\n' {
            self.end_of_line();
            self.line += 1;
            return;
        }
        match self.state {
            State::Between => self.between(b),
            State::Message => self.in_message(b),
        }
    }

    fn between(&mut self, b: u8) {
        if self.prefix.len() < PREFIX_KEEP {
            self.prefix.push(b);
        }
        self.prefix_len += 1;
        if !b.is_ascii_whitespace() {
            self.prefix_visible += 1;
        }
        self.matched = if b == START[self.matched]
            && (self.matched > 0 || !self.prev.is_ascii_alphanumeric())
        {
            self.matched + 1
        } else if b == START[0] && !self.prev.is_ascii_alphanumeric() {
            1
        } else {
            0
        };
        if self.matched == START.len() {
            self.start_message();
        }
    }

    /// `8=FIX` has just been read: the text before it is a timestamp or
    /// reported, and a message begins.
    fn start_message(&mut self) {
        self.matched = 0;
        let before = self.prefix_len - START.len();
        let visible = self.prefix_visible - START.len();
        let time = if visible == 0 || std::mem::take(&mut self.skipping) {
            // Nothing before it, or the rest of a message already reported.
            None
        } else if before + START.len() <= PREFIX_KEEP {
            let text = String::from_utf8_lossy(&self.prefix[..before]);
            let text = text.trim().trim_end_matches(':').trim_end();
            if looks_like_time(text) {
                Some(text.to_string())
            } else {
                self.problem(
                    self.line,
                    format!(
                        "text before the message that is not a timestamp: \"{}\"",
                        super::escape::escape(text.as_bytes())
                    ),
                );
                None
            }
        } else {
            self.problem(
                self.line,
                format!("{before} bytes of text that is not FIX before the message"),
            );
            None
        };
        self.msg.clear();
        self.msg.extend_from_slice(START);
        self.msg_line = self.line;
        self.msg_time = time;
        self.delimiter = None;
        self.field_start = 0;
        self.state = State::Message;
    }

    fn in_message(&mut self, b: u8) {
        self.msg.push(b);
        let Some(d) = self.delimiter else {
            if b == 0x01 || b == b'|' {
                self.delimiter = Some(b);
                self.field_start = self.msg.len();
            } else if self.msg.len() > MAX_BEGIN_STRING {
                let line = self.msg_line;
                self.problem(line, "no SOH or | delimiter after the BeginString".into());
                self.abandon();
            }
            return;
        };
        if b == d {
            let field = &self.msg[self.field_start..self.msg.len() - 1];
            if field.starts_with(b"10=") {
                self.finish();
                return;
            }
            if field.starts_with(START) {
                // A message starts before the last one ended: that one was cut short.
                let line = self.msg_line;
                let len = self.field_start;
                self.problem(
                    line,
                    format!(
                        "message cut short: a new one starts before its CheckSum(10) ({len} bytes)"
                    ),
                );
                self.msg.drain(..self.field_start);
                self.msg_line = self.line;
                self.msg_time = None;
            }
            self.field_start = self.msg.len();
        }
        // Checked on every byte, delimiters too: `8=FIX.4.4|` and a gigabyte of `|`
        // must not grow the buffer without bound.
        if self.msg.len() > MAX_MESSAGE {
            let line = self.msg_line;
            self.problem(
                line,
                format!("message longer than {MAX_MESSAGE} bytes without a CheckSum(10), skipped"),
            );
            self.abandon();
        }
    }

    /// The end of a line, or of the input.
    fn end_of_line(&mut self) {
        if self.state == State::Message {
            // A CheckSum field the line ends (a pasted message without its last `|`).
            let mut end = self.msg.len();
            if self.msg.last() == Some(&b'\r') {
                end -= 1;
            }
            let field = &self.msg[self.field_start.min(end)..end];
            if self.delimiter.is_some()
                && field.len() > 3
                && field.starts_with(b"10=")
                && field[3..].iter().all(u8::is_ascii_digit)
            {
                self.msg.truncate(end);
                self.finish();
            } else {
                let (line, len) = (self.msg_line, self.msg.len());
                self.problem(
                    line,
                    format!("message cut short: no CheckSum(10) before the end of the line ({len} bytes)"),
                );
                self.abandon();
            }
        }
        if self.prefix_visible > 0 && !self.skipping {
            let shown = super::escape::escape(&self.prefix[..self.prefix.len().min(40)]);
            let what = if self.line_messages == 0 {
                format!("not FIX: \"{}\"", shown.trim())
            } else {
                format!("text after the last message: \"{}\"", shown.trim())
            };
            self.problem(self.line, what);
        }
        self.line_messages = 0;
        self.skipping = false;
        self.clear_prefix();
    }

    fn finish(&mut self) {
        let frame = FoundMessage {
            line: self.msg_line,
            time: self.msg_time.take(),
            bytes: std::mem::take(&mut self.msg),
            delimiter: self.delimiter.unwrap_or(0x01),
        };
        self.ready.push_back(Item::Message(frame));
        self.line_messages += 1;
        self.state = State::Between;
        self.clear_prefix();
    }

    /// Drops the message being read (already reported).
    fn abandon(&mut self) {
        self.msg.clear();
        self.msg_time = None;
        self.state = State::Between;
        self.clear_prefix();
        // What follows is the rest of the bad message, not news.
        self.skipping = true;
    }

    fn clear_prefix(&mut self) {
        self.prefix.clear();
        self.prefix_len = 0;
        self.prefix_visible = 0;
        self.matched = 0;
    }

    fn problem(&mut self, line: u64, what: String) {
        self.ready.push_back(Item::Problem(Problem { line, what }));
    }
}

/// A log line's timestamp: starts with a digit, short, made of the characters
/// timestamps are written with (`20261124-10:00:00.123`,
/// `2026-11-24 10:00:00,123`, `2026-11-24T10:00:00Z`).
fn looks_like_time(text: &str) -> bool {
    text.len() <= 64
        && text.starts_with(|c: char| c.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" :.-+/,_".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the scanner finds in `input`, read `chunk` bytes at a time.
    pub(crate) fn scan_in_chunks(input: &[u8], chunk: usize) -> Vec<Item> {
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut s = Scanner::new(Chunks(input, chunk));
        let mut items = Vec::new();
        while let Some(item) = s.next_item().unwrap() {
            items.push(item);
        }
        items
    }

    fn scan(input: &[u8]) -> Vec<Item> {
        let all = scan_in_chunks(input, usize::MAX);
        // Chunk boundaries never change what is found.
        for chunk in [1, 2, 7] {
            assert_eq!(scan_in_chunks(input, chunk), all, "chunks of {chunk}");
        }
        all
    }

    fn frame(item: &Item) -> &FoundMessage {
        match item {
            Item::Message(f) => f,
            other => panic!("{other:?}"),
        }
    }

    fn problem(item: &Item) -> &Problem {
        match item {
            Item::Problem(p) => p,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn log_lines_with_timestamps() {
        let input = b"20261124-10:00:00.123456 : 8=FIX.4.4\x019=5\x0135=0\x0110=163\x01\n\
                      20261124-10:00:01.000: 8=FIX.4.4\x019=5\x0135=0\x0110=163\x01\r\n";
        let items = scan(input);
        assert_eq!(items.len(), 2, "{items:?}");
        let a = frame(&items[0]);
        assert_eq!(a.time.as_deref(), Some("20261124-10:00:00.123456"));
        assert_eq!(a.bytes, b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01");
        assert_eq!((a.line, a.delimiter), (1, 0x01));
        let b = frame(&items[1]);
        assert_eq!(b.time.as_deref(), Some("20261124-10:00:01.000"));
        assert_eq!(b.line, 2);
    }

    #[test]
    fn several_messages_on_a_line_and_pipes() {
        let items = scan(b"8=FIX.4.2|9=5|35=0|10=000|8=FIX.4.2|9=5|35=1|10=001|\n");
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(frame(&items[1]).bytes, b"8=FIX.4.2|9=5|35=1|10=001|");
        assert_eq!(frame(&items[1]).delimiter, b'|');
        // A pasted message without its last delimiter ends with its line.
        let items = scan(b"8=FIX.4.2|9=5|35=0|10=000");
        assert_eq!(frame(&items[0]).bytes, b"8=FIX.4.2|9=5|35=0|10=000");
    }

    #[test]
    fn a_cut_message_is_reported_and_the_next_line_still_decodes() {
        let items =
            scan(b"20261124-10:00:00 : 8=FIX.4.4\x019=5\x0135=0\x01\n8=FIX.4.4\x019=5\x0135=0\x0110=163\x01\n");
        let p = problem(&items[0]);
        assert_eq!(p.line, 1);
        assert!(p.what.starts_with("message cut short"), "{p:?}");
        assert_eq!(frame(&items[1]).line, 2);
        assert_eq!(items.len(), 2);
        // Cut short with no line ending: the next message starts inside it.
        let items = scan(b"8=FIX.4.4\x019=5\x0135=0\x018=FIX.4.4\x019=5\x0135=0\x0110=163\x01");
        assert!(
            problem(&items[0]).what.contains("a new one starts"),
            "{items:?}"
        );
        assert_eq!(
            frame(&items[1]).bytes,
            b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01"
        );
    }

    #[test]
    fn garbage_is_reported_with_its_line() {
        let items = scan(b"hello\n\n  \n8=FIX.4.4|35=0|10=1| trailing\n58=FIX|10=1|\n");
        assert_eq!(problem(&items[0]).line, 1);
        assert!(problem(&items[0]).what.contains("not FIX: \"hello\""));
        assert_eq!(frame(&items[1]).line, 4);
        assert_eq!(problem(&items[2]).line, 4);
        assert!(problem(&items[2])
            .what
            .starts_with("text after the last message"));
        // 58=FIX is a tag 58, not a message.
        assert_eq!(problem(&items[3]).line, 5);
        assert_eq!(items.len(), 4, "{items:?}");
    }

    #[test]
    fn text_before_a_message_that_is_not_a_time_is_reported() {
        let items = scan(b"<a log line> 8=FIX.4.4|35=0|10=1|\n");
        assert!(
            problem(&items[0]).what.contains("not a timestamp"),
            "{items:?}"
        );
        assert_eq!(frame(&items[1]).time, None);
    }

    #[test]
    fn a_message_too_long_is_skipped_once() {
        let mut input = b"8=FIX.4.4|9=1|58=".to_vec();
        input.extend(std::iter::repeat(b'x').take(MAX_MESSAGE + 10));
        input.extend_from_slice(b"|10=000|\n8=FIX.4.4|35=0|10=1|\n");
        let items = scan_in_chunks(&input, 4096);
        assert!(
            problem(&items[0]).what.contains("longer than"),
            "{:?}",
            items[0]
        );
        assert_eq!(frame(&items[1]).line, 2);
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn a_message_of_empty_fields_is_bounded_too() {
        let mut input = b"8=FIX.4.4|".to_vec();
        input.extend(std::iter::repeat(b'|').take(MAX_MESSAGE + 10));
        let items = scan_in_chunks(&input, 4096);
        assert!(
            problem(&items[0]).what.contains("longer than"),
            "{:?}",
            items[0]
        );
        assert_eq!(items.len(), 1, "{items:?}");
    }

    #[test]
    fn no_delimiter_is_reported() {
        let items = scan(b"8=FIX.4.4 9=5 35=0 10=163 and more words to pass the limit\n");
        assert!(problem(&items[0]).what.contains("no SOH or |"), "{items:?}");
        assert_eq!(items.len(), 1);
    }
}

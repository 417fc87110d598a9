//! `peregrine decode [FILE|-]`: FIX messages from message logs and captures,
//! pretty-printed with the dictionary's names, as text or JSON Lines.
//!
//! One job per module: [`scan`] finds messages in the byte stream,
//! [`message`] splits one into fields and checks it, [`dicts`] picks its
//! dictionaries, [`tree`] shapes its fields (names, enums, groups), [`filter`]
//! says whether it is shown, and [`text`] or [`json`] writes it, values made
//! terminal-safe by [`escape`].
//!
//! Problems in the input are written to stderr as `INPUT:LINE: what`, and
//! decoding goes on; the run then ends with exit status 1
//! ([`Error::BadInput`]). Problems are reported for every message, shown or
//! filtered out: they are about the input. Output goes through a buffer,
//! flushed whenever the input has to be waited for (`tail -f` shows each
//! message as it comes); a closed stdout (`| head`) ends the run quietly.

pub mod dicts;
pub mod escape;
pub mod filter;
pub mod json;
pub mod message;
pub mod scan;
pub mod text;
pub mod tree;

use std::collections::HashSet;
use std::io::{self, BufWriter, Read, Write};

use crate::cli::DecodeArgs;
use crate::error::Error;

use dicts::Dictionaries;
use filter::{Filter, Identity};
use scan::{FoundMessage, Item, Scanner};

/// A message ready to be written, for [`text`] and [`json`].
pub struct Shown<'x, 'a, 'd> {
    /// The line it starts on.
    pub line: u64,
    /// The log's timestamp.
    pub time: Option<&'x str>,
    /// BeginString(8).
    pub begin_string: &'x str,
    /// FIXT.1.1 application messages: the version their body was read as.
    pub app_version: Option<&'x str>,
    /// MsgType(35), if there is one.
    pub msg_type: Option<&'x str>,
    /// The dictionary's name of the message.
    pub msg_type_name: Option<&'d str>,
    /// SenderCompID(49), if there is one.
    pub sender: Option<&'x str>,
    /// TargetCompID(56), if there is one.
    pub target: Option<&'x str>,
    /// MsgSeqNum(34).
    pub seq_num: Option<&'x str>,
    /// The dictionary file the body was read with.
    pub dictionary: Option<&'d str>,
    /// What is wrong with it (it is shown all the same).
    pub problems: &'x [String],
    /// Its fields.
    pub fields: &'x [tree::Node<'a, 'd>],
    /// Only these fields are shown (`None`: all).
    pub tags: Option<&'x HashSet<u32>>,
}

/// Runs the command.
pub fn run(args: DecodeArgs) -> Result<(), Error> {
    let dicts = Dictionaries::new(&args.dict)?;
    let filter = Filter::new(&args, &dicts)?;
    let (name, input): (String, Box<dyn Read>) = match &args.input {
        Some(p) if p.as_os_str() != "-" => {
            let file = std::fs::File::open(p).map_err(|source| Error::Io {
                what: format!("cannot read {}", p.display()),
                source,
            })?;
            (p.display().to_string(), Box::new(file))
        }
        _ => ("stdin".to_string(), Box::new(io::stdin().lock())),
    };
    let mut decoder = Decoder {
        dicts,
        filter,
        json: args.json,
        input: name,
        problems: 0,
    };
    let stdout = io::stdout().lock();
    match decoder.run(input, BufWriter::with_capacity(64 * 1024, stdout)) {
        Ok(()) => {}
        // The reader of stdout went away (`| head`): nothing more to do.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        Err(Failure::Output(source)) => {
            return Err(Error::Io {
                what: "cannot write to stdout".into(),
                source,
            })
        }
        Err(Failure::Input(source)) => {
            return Err(Error::Io {
                what: format!("cannot read {}", decoder.input),
                source,
            })
        }
    }
    for (path, version) in decoder.dicts.unused() {
        let _ = writeln!(
            io::stderr(),
            "peregrine: warning: --dict {} ({version}) was not used: no {version} message",
            path.display()
        );
    }
    match decoder.problems {
        0 => Ok(()),
        problems => Err(Error::BadInput { problems }),
    }
}

/// Why a run stopped early.
enum Failure {
    Input(io::Error),
    Output(io::Error),
}

struct Decoder {
    dicts: Dictionaries,
    filter: Filter,
    json: bool,
    /// The input's name in problem reports.
    input: String,
    problems: u64,
}

impl Decoder {
    fn run(&mut self, input: impl Read, mut out: impl Write) -> Result<(), Failure> {
        let mut scanner = Scanner::new(input);
        loop {
            match scanner.next_buffered() {
                Some(Item::Problem(p)) => self.problem(p.line, &p.what),
                Some(Item::Message(frame)) => {
                    self.message(&frame, &mut out).map_err(Failure::Output)?
                }
                None => {
                    // Reading may wait (a pipe, `tail -f`): what is decoded is shown first.
                    out.flush().map_err(Failure::Output)?;
                    if !scanner.read_more().map_err(Failure::Input)? {
                        return Ok(());
                    }
                }
            }
        }
    }

    fn problem(&mut self, line: u64, what: &str) {
        self.problems += 1;
        // stderr may be closed too: never a reason to stop or panic.
        let _ = writeln!(io::stderr(), "peregrine: {}:{line}: {what}", self.input);
    }

    fn message(&mut self, frame: &FoundMessage, out: &mut impl Write) -> io::Result<()> {
        let m = match message::parse(frame) {
            Ok(m) => m,
            Err(why) => {
                self.problem(frame.line, &why);
                return Ok(());
            }
        };
        for p in &m.problems {
            self.problem(frame.line, p);
        }
        let text = |tag| m.text(tag).unwrap_or_default();
        let (begin_string, msg_type, sender, target) = (text(8), text(35), text(49), text(56));
        if msg_type == "A" {
            if let Some(v) = m.text(1137) {
                self.dicts.remember_logon(&sender, &target, &v);
            }
        }
        let appl_ver_id = m.text(1128);
        let chosen = self.dicts.choose(
            &begin_string,
            &msg_type,
            appl_ver_id.as_deref(),
            &sender,
            &target,
        );
        let id = Identity {
            begin_string: &begin_string,
            msg_type: &msg_type,
            sender: &sender,
            target: &target,
        };
        if !self.filter.message(&id, &chosen) {
            return Ok(());
        }
        let values_of = |tag: u32| -> Vec<&[u8]> {
            m.fields
                .iter()
                .filter(|f| f.tag == tag)
                .map(|f| f.value)
                .collect()
        };
        if !self.filter.fields(values_of) {
            return Ok(());
        }
        let fields = tree::shape(&m.fields, &msg_type, &chosen);
        let app_version = match (chosen.transport, chosen.app) {
            (Some(t), Some(a)) if !std::ptr::eq(t, a) => Some(a.version()),
            _ => None,
        };
        let seq_num = m.text(34);
        let shown = Shown {
            line: frame.line,
            time: frame.time.as_deref(),
            begin_string: &begin_string,
            app_version: app_version.as_deref(),
            msg_type: m.get(35).map(|_| msg_type.as_str()),
            msg_type_name: chosen.message(&msg_type).map(|(_, d)| d.name.as_str()),
            sender: m.get(49).map(|_| sender.as_str()),
            target: m.get(56).map(|_| target.as_str()),
            seq_num: seq_num.as_deref(),
            dictionary: chosen.name(),
            problems: &m.problems,
            fields: &fields,
            tags: self.filter.tags(),
        };
        if self.json {
            json::write(out, &shown)
        } else {
            text::write(out, &shown)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    thread_local! {
        // One for the thread: the dictionaries load once, not once per case.
        static DECODER: std::cell::RefCell<Decoder> = std::cell::RefCell::new(Decoder {
            dicts: Dictionaries::new(&[]).unwrap(),
            filter: Filter::default(),
            json: false,
            input: "test".into(),
            problems: 0,
        });
    }

    fn decode(input: &[u8], json: bool) -> (String, u64) {
        DECODER.with_borrow_mut(|d| {
            d.json = json;
            d.problems = 0;
            let mut out = Vec::new();
            assert!(d.run(input, &mut out).is_ok());
            (
                String::from_utf8(out).expect("the output is UTF-8"),
                d.problems,
            )
        })
    }

    #[test]
    fn a_message_as_text() {
        let (out, problems) = decode(
            b"20261124-10:00:00.123 : 8=FIX.4.4\x019=5\x0135=0\x0110=163\x01\n",
            false,
        );
        assert_eq!(problems, 0);
        assert_eq!(
            out,
            "20261124-10:00:00.123  FIX.4.4  Heartbeat (0)  ?->?\n\
             \x20 8     BeginString = FIX.4.4\n\
             \x20 9     BodyLength = 5\n\
             \x20 35    MsgType = 0 (Heartbeat)\n\
             \x20 10    CheckSum = 163\n\n"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any bytes: no panic, and nothing from the input reaches the output
        /// as a control character (the text output's own newlines aside).
        #[test]
        fn any_input_decodes_without_panic(input in proptest::collection::vec(any::<u8>(), 0..600)) {
            for json in [false, true] {
                let (out, _) = decode(&input, json);
                prop_assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
            }
        }

        /// Messages made of real fields, cut and spliced at random.
        #[test]
        fn spliced_messages_decode_without_panic(
            cuts in proptest::collection::vec((0usize..400, 0usize..400), 0..6),
            pipes in any::<bool>(),
        ) {
            let one = "8=FIX.4.4\x019=0\x0135=W\x0149=A\x0156=B\x0134=1\x01268=2\x01269=0\x01270=1.5\x01\
                       269=1\x01270=1.6\x01453=1\x01448=P\x0110=000\x01";
            let mut input: Vec<u8> = one.repeat(3).into_bytes();
            for (at, len) in cuts {
                let at = at.min(input.len());
                let end = (at + len).min(input.len());
                input.drain(at..end);
                input.insert(at.min(input.len()), b'\n');
            }
            if pipes {
                for b in &mut input {
                    if *b == 1 { *b = b'|' }
                }
            }
            for json in [false, true] {
                let (out, _) = decode(&input, json);
                if json {
                    for line in out.lines() {
                        prop_assert!(serde_json::from_str::<serde_json::Value>(line).is_ok(), "{line}");
                    }
                }
            }
        }
    }
}

//! `peregrine decode [FILE|-]`: FIX messages from message logs and captures,
//! pretty-printed with the dictionary's names, as text or JSON Lines.
//!
//! The decoding is the `peregrine-decode` library's (the operations
//! console shows messages with it too): its scanner finds messages in the
//! byte stream, its [`MessageDecoder`] splits, checks, names and filters
//! each; here they are written as [`text`] or as its JSON Lines, and
//! problems are reported.
//!
//! Problems in the input are written to stderr as `INPUT:LINE: what`, and
//! decoding goes on; the run then ends with exit status 1
//! ([`Error::BadInput`]). Problems are reported for every message, shown or
//! filtered out: they are about the input. Output goes through a buffer,
//! flushed whenever the input has to be waited for (`tail -f` shows each
//! message as it comes); a closed stdout (`| head`) ends the run quietly.

pub mod text;

use std::io::{self, BufWriter, Read, Write};

use peregrine_decode::scan::{FoundMessage, Item, Scanner};
use peregrine_decode::{Dictionaries, Filter, FilterSpec, MessageDecoder};

use crate::cli::DecodeArgs;
use crate::error::Error;

/// Runs the command.
pub fn run(args: DecodeArgs) -> Result<(), Error> {
    let dicts = Dictionaries::new(&args.dict)?;
    let spec = FilterSpec {
        session: args.session.clone(),
        msg_type: args.msg_type.clone(),
        tag: args.tag.clone(),
        where_: args.where_.clone(),
        admin: args.admin,
        app: args.app,
    };
    let filter = Filter::new(&spec, &dicts)?;
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
        decoder: MessageDecoder::new(dicts, filter),
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
    for (path, version) in decoder.decoder.dictionaries().unused() {
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
    decoder: MessageDecoder,
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
        let json = self.json;
        let decoded = match self.decoder.decode(frame, |shown| {
            if json {
                peregrine_decode::json::write(out, shown)
            } else {
                text::write(out, shown)
            }
        }) {
            Ok(decoded) => decoded,
            Err(why) => {
                self.problem(frame.line, &why);
                return Ok(());
            }
        };
        for p in &decoded.problems {
            self.problem(frame.line, p);
        }
        decoded.shown.unwrap_or(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    thread_local! {
        // One for the thread: the dictionaries load once, not once per case.
        static DECODER: std::cell::RefCell<Decoder> = std::cell::RefCell::new(Decoder {
            decoder: MessageDecoder::new(Dictionaries::new(&[]).unwrap(), Filter::default()),
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

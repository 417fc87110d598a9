//! FIX messages from message logs and captures, decoded with the dictionary's
//! names: what `peregrine decode` prints and the operations console's
//! Messages view shows (one decoder for both).
//!
//! One job per module: [`scan`] finds messages in a byte stream, [`message`]
//! splits one into fields and checks it, [`dicts`] picks its dictionaries,
//! [`tree`] shapes its fields (names, enums, groups), [`filter`] says whether
//! it is shown, and [`json`] writes it (the CLI's text output is its own),
//! values made terminal- and page-safe by [`escape`]. [`MessageDecoder`]
//! runs them in order for one message.
//!
//! ```
//! use peregrine_decode::{json, scan::FoundMessage, Dictionaries, Filter, MessageDecoder};
//!
//! let mut decoder = MessageDecoder::new(Dictionaries::new(&[])?, Filter::default());
//! let frame = FoundMessage {
//!     line: 1,
//!     time: Some("20261124-10:00:00.123".into()),
//!     bytes: b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01".to_vec(),
//!     delimiter: 1,
//! };
//! let decoded = decoder.decode(&frame, |shown| {
//!     let mut out = Vec::new();
//!     json::write(&mut out, shown).unwrap();
//!     String::from_utf8(out).unwrap()
//! })?;
//! assert!(decoded.problems.is_empty());
//! assert!(decoded.shown.unwrap().contains(r#""msg_type_name":"Heartbeat""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod dicts;
pub mod escape;
pub mod filter;
pub mod json;
pub mod message;
pub mod scan;
pub mod tree;

use std::collections::HashSet;
use std::fmt;

pub use dicts::Dictionaries;
use filter::Identity;
pub use filter::{Filter, FilterSpec};
use scan::FoundMessage;

/// Why dictionaries or filters cannot be set up.
#[derive(Debug)]
pub enum Error {
    /// A filter or a dictionary list that cannot be used (the text says why):
    /// an unknown message or field name, a session without `->`, two
    /// dictionaries of one version.
    Usage(String),
    /// A dictionary file does not load.
    Dictionary(peregrine_dict::DictError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(text) => f.write_str(text),
            Error::Dictionary(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Dictionary(e) => Some(e),
            Error::Usage(_) => None,
        }
    }
}

/// A message ready to be written, for [`json`] (and the CLI's text output).
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

/// One message decoded: its problems, and what the caller made of it if the
/// filter shows it.
#[derive(Debug)]
pub struct Decoded<R> {
    /// A bad BodyLength or CheckSum, a header out of order: reported for
    /// every message, shown or filtered out.
    pub problems: Vec<String>,
    /// What `show` returned; `None` when the filter left the message out.
    pub shown: Option<R>,
}

/// Dictionaries and a filter: decodes one message after another (a FIXT.1.1
/// Logon's DefaultApplVerID is remembered for the messages after it).
pub struct MessageDecoder {
    dicts: Dictionaries,
    filter: Filter,
}

impl MessageDecoder {
    /// A decoder with these dictionaries and this filter.
    pub fn new(dicts: Dictionaries, filter: Filter) -> MessageDecoder {
        MessageDecoder { dicts, filter }
    }

    /// Its dictionaries.
    pub fn dictionaries(&self) -> &Dictionaries {
        &self.dicts
    }

    /// Filters with `filter` from now on (the dictionaries stay loaded).
    pub fn set_filter(&mut self, filter: Filter) {
        self.filter = filter;
    }

    /// Decodes `frame`; when the filter shows it, hands it to `show`.
    ///
    /// # Errors
    ///
    /// A field that is not `tag=value` (the text says which): the message
    /// cannot be shown field by field.
    pub fn decode<R>(
        &mut self,
        frame: &FoundMessage,
        show: impl FnOnce(&Shown<'_, '_, '_>) -> R,
    ) -> Result<Decoded<R>, String> {
        let m = message::parse(frame)?;
        let problems = m.problems.clone();
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
        let values_of = |tag: u32| -> Vec<&[u8]> {
            m.fields
                .iter()
                .filter(|f| f.tag == tag)
                .map(|f| f.value)
                .collect()
        };
        if !self.filter.message(&id, &chosen) || !self.filter.fields(values_of) {
            return Ok(Decoded {
                problems,
                shown: None,
            });
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
        Ok(Decoded {
            problems,
            shown: Some(show(&shown)),
        })
    }
}

//! Which dictionary decodes a message: QuickFIX's, built into the binary and
//! loaded when first needed, or one given with `--dict`, by version.
//!
//! FIX 4.x and FIX.5.0 messages use the dictionary of their BeginString.
//! FIXT.1.1 messages use FIXT 1.1 for the header, the trailer and the
//! session-level messages, and for application messages the dictionary their
//! ApplVerID(1128) names, else the DefaultApplVerID(1137) of the session's
//! Logon seen earlier in the input ([`Dictionaries::remember_logon`]), else
//! FIX.5.0SP2.

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;
use std::path::PathBuf;

use peregrine_dict::Dictionary;

use crate::Error;

/// QuickFIX's dictionaries, by the version they declare.
const BUILT_IN: [(&str, &str, &str); 9] = peregrine_dict::builtin::ALL;

/// The application version of FIXT.1.1 messages nothing else names.
const FIXT_DEFAULT_APP: &str = "FIX.5.0SP2";

/// How many sessions' DefaultApplVerID are remembered (memory stays bounded
/// whatever the input).
const MAX_REMEMBERED: usize = 100_000;

/// A dictionary given with `--dict`.
struct Given {
    path: PathBuf,
    dict: Dictionary,
    used: Cell<bool>,
}

/// Every dictionary a run may use (see the [module documentation](self)).
pub struct Dictionaries {
    built_in: [OnceCell<Option<Dictionary>>; 9],
    given: Vec<Given>,
    /// DefaultApplVerID by session (CompIDs in either order), from Logons.
    default_app: HashMap<(String, String), String>,
}

/// The dictionaries of one message.
#[derive(Clone, Copy)]
pub struct Chosen<'d> {
    /// Header, trailer and session-level messages (the only one for FIX 4.x).
    pub transport: Option<&'d Dictionary>,
    /// The body of an application message (FIXT.1.1: the application
    /// version's; otherwise the same as `transport`).
    pub app: Option<&'d Dictionary>,
}

impl<'d> Chosen<'d> {
    /// The dictionary that defines this MsgType, and the definition.
    pub fn message(
        &self,
        msg_type: &str,
    ) -> Option<(&'d Dictionary, &'d peregrine_dict::MessageDef)> {
        [self.app, self.transport]
            .into_iter()
            .flatten()
            .find_map(|d| d.message(msg_type).map(|m| (d, m)))
    }

    /// The field with this tag: the application's first, then the transport's.
    pub fn field(&self, tag: u32) -> Option<&'d peregrine_dict::FieldDef> {
        [self.app, self.transport]
            .into_iter()
            .flatten()
            .find_map(|d| d.field(tag))
    }

    /// The name of the dictionary the body was read with.
    pub fn name(&self) -> Option<&'d str> {
        self.app.or(self.transport).map(Dictionary::name)
    }
}

impl Dictionaries {
    /// The built-in dictionaries, replaced by each `--dict` file for the
    /// version it declares.
    ///
    /// # Errors
    ///
    /// A file does not load, or two declare the same version.
    pub fn new(given: &[PathBuf]) -> Result<Dictionaries, Error> {
        let mut loaded: Vec<Given> = Vec::new();
        for path in given {
            let dict = Dictionary::from_file(path).map_err(Error::Dictionary)?;
            if let Some(other) = loaded.iter().find(|g| g.dict.version() == dict.version()) {
                return Err(Error::Usage(format!(
                    "--dict {} and --dict {} are both {}: give one per version",
                    other.path.display(),
                    path.display(),
                    dict.version()
                )));
            }
            loaded.push(Given {
                path: path.clone(),
                dict,
                used: Cell::new(false),
            });
        }
        Ok(Dictionaries {
            built_in: Default::default(),
            given: loaded,
            default_app: HashMap::new(),
        })
    }

    /// The dictionary of a version (`FIX.4.4`, `FIX.5.0SP2`, `FIXT.1.1`) for
    /// decoding a message.
    pub fn version(&self, version: &str) -> Option<&Dictionary> {
        self.lookup(version, true)
    }

    /// `used`: a message is decoded with it (not a filter's name looked up).
    fn lookup(&self, version: &str, used: bool) -> Option<&Dictionary> {
        if let Some(g) = self.given.iter().find(|g| g.dict.version() == version) {
            if used {
                g.used.set(true);
            }
            return Some(&g.dict);
        }
        let i = BUILT_IN.iter().position(|(v, _, _)| *v == version)?;
        self.built_in[i]
            .get_or_init(|| {
                let (_, name, xml) = BUILT_IN[i];
                // Built in and tested: a failure here is a bug, shown as unnamed fields.
                Dictionary::from_xml_str(name, xml).ok()
            })
            .as_ref()
    }

    /// Every dictionary a message could be decoded with (all versions): for
    /// checking the names given to filters.
    pub fn all(&self) -> impl Iterator<Item = &Dictionary> {
        BUILT_IN
            .iter()
            .filter_map(|(v, _, _)| self.lookup(v, false))
    }

    /// Remembers a Logon's DefaultApplVerID(1137) for its session.
    pub fn remember_logon(&mut self, sender: &str, target: &str, default_appl_ver_id: &str) {
        if self.default_app.len() < MAX_REMEMBERED {
            self.default_app
                .insert(session_key(sender, target), default_appl_ver_id.to_string());
        }
    }

    /// The dictionaries of a message with these header values.
    pub fn choose(
        &self,
        begin_string: &str,
        msg_type: &str,
        appl_ver_id: Option<&str>,
        sender: &str,
        target: &str,
    ) -> Chosen<'_> {
        if begin_string != "FIXT.1.1" {
            let d = self.version(begin_string);
            return Chosen {
                transport: d,
                app: d,
            };
        }
        let transport = self.version("FIXT.1.1");
        if transport.is_some_and(|t| t.message(msg_type).is_some()) {
            return Chosen {
                transport,
                app: None,
            };
        }
        let version = appl_ver_id
            .or_else(|| {
                self.default_app
                    .get(&session_key(sender, target))
                    .map(String::as_str)
            })
            .and_then(appl_version)
            .unwrap_or(FIXT_DEFAULT_APP);
        Chosen {
            transport,
            app: self.version(version),
        }
    }

    /// `--dict` files no message was decoded with (said at the end of a run:
    /// a dictionary given and never used is not silently ignored).
    pub fn unused(&self) -> impl Iterator<Item = (&PathBuf, String)> {
        self.given
            .iter()
            .filter(|g| !g.used.get())
            .map(|g| (&g.path, g.dict.version()))
    }
}

fn session_key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// The version an ApplVerID(1128) or DefaultApplVerID(1137) names: the
/// enumeration (`9`) or the version itself (`FIX.5.0SP2`, as in a `.cfg`).
pub fn appl_version(value: &str) -> Option<&'static str> {
    let v = match value {
        "2" => "FIX.4.0",
        "3" => "FIX.4.1",
        "4" => "FIX.4.2",
        "5" => "FIX.4.3",
        "6" => "FIX.4.4",
        "7" => "FIX.5.0",
        "8" => "FIX.5.0SP1",
        "9" => "FIX.5.0SP2",
        other => return BUILT_IN.iter().map(|(v, _, _)| *v).find(|v| *v == other),
    };
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_dictionary_loads_as_its_version() {
        let d = Dictionaries::new(&[]).unwrap();
        for (version, name, _) in BUILT_IN {
            let dict = d.version(version).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(dict.version(), version);
        }
    }

    #[test]
    fn fixt_messages_take_their_application_version() {
        let mut d = Dictionaries::new(&[]).unwrap();
        let logon = d.choose("FIXT.1.1", "A", None, "A", "B");
        assert_eq!(logon.name(), Some("FIXT11.xml"));
        let nos = d.choose("FIXT.1.1", "D", None, "A", "B");
        assert_eq!(nos.name(), Some("FIX50SP2.xml"));
        assert_eq!(nos.transport.map(Dictionary::name), Some("FIXT11.xml"));
        d.remember_logon("B", "A", "7");
        assert_eq!(
            d.choose("FIXT.1.1", "D", None, "A", "B").name(),
            Some("FIX50.xml")
        );
        assert_eq!(
            d.choose("FIXT.1.1", "D", Some("8"), "A", "B").name(),
            Some("FIX50SP1.xml")
        );
        assert_eq!(
            d.choose("FIX.4.2", "D", None, "A", "B").name(),
            Some("FIX42.xml")
        );
        assert!(d.choose("FIX.9.9", "D", None, "A", "B").name().is_none());
    }

    #[test]
    fn a_given_dictionary_replaces_its_version_and_is_told_when_unused() {
        let path = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../peregrine-dict/dictionaries/FIX42.xml"
        ));
        let d = Dictionaries::new(std::slice::from_ref(&path)).unwrap();
        assert_eq!(d.all().count(), 9);
        assert_eq!(d.unused().count(), 1, "looking names up is not using it");
        d.choose("FIX.4.2", "D", None, "A", "B");
        assert_eq!(d.unused().count(), 0);
        let twice = Dictionaries::new(&[path.clone(), path]);
        assert!(matches!(twice, Err(Error::Usage(m)) if m.contains("are both FIX.4.2")));
        assert!(matches!(
            Dictionaries::new(&[PathBuf::from("/nonexistent.xml")]),
            Err(Error::Dictionary(_))
        ));
    }
}

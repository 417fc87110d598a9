//! The catalog: one description of every `.cfg` key Peregrine reads (name,
//! value kind, range, default, where the key comes from, what it does), from
//! which the rest comes: [`KNOWN_KEYS`], [`NUMERIC_RANGES`], the defaults the
//! reader takes for a key left out, the engine README's settings table
//! ([`settings_table`]) and `peregrine check-config --keys`.
//!
//! The session-layer keys' defaults are `peregrine_session::defaults`'
//! constants (what `SessionConfig::new` starts from too); the engine's own are
//! written here once, and the reader takes them from here.

mod connection;
mod engine;
mod protocol;
mod schedule;
mod storage;
mod table;

use std::fmt;

pub use table::settings_table;

/// Where a key comes from: the QuickFIX engines that read it too, or ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// A QuickFIX key (QuickFIX/J's or QuickFIX C++'s name, usually both).
    QuickFix,
    /// QuickFIX/J's.
    QuickFixJ,
    /// QuickFIX C++'s.
    QuickFixCpp,
    /// QuickFIX/Go's.
    QuickFixGo,
    /// Peregrine's own.
    Ours,
}

impl fmt::Display for KeySource {
    /// ```
    /// use peregrine_engine::config::KeySource;
    /// assert_eq!(KeySource::QuickFixGo.to_string(), "QuickFIX/Go");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeySource::QuickFix => "QuickFIX",
            KeySource::QuickFixJ => "QuickFIX/J",
            KeySource::QuickFixCpp => "QuickFIX C++",
            KeySource::QuickFixGo => "QuickFIX/Go",
            KeySource::Ours => "ours",
        })
    }
}

/// What a key's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `Y` or `N` (either case).
    Flag,
    /// A whole number from `min` to `max` inclusive; a value outside stops
    /// start-up naming file, line and key.
    Number {
        /// `seconds`, `bytes`, `milliseconds`, `count` or `port`.
        unit: &'static str,
        /// The smallest value taken.
        min: u64,
        /// The largest value taken.
        max: u64,
    },
    /// Text, in the form said (`HH:MM:SS`, a path, one of some words, …).
    Text(&'static str),
}

/// A key's default, as the settings table writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultValue {
    /// `Y` or `N`.
    Flag(bool),
    /// A number, in the key's unit.
    Number(u64),
    /// Words: `required`, `none`, a value, or a rule when the default follows
    /// other keys.
    Text(&'static str),
}

impl fmt::Display for DefaultValue {
    /// ```
    /// use peregrine_engine::config::DefaultValue;
    /// assert_eq!(DefaultValue::Flag(true).to_string(), "Y");
    /// assert_eq!(DefaultValue::Number(30).to_string(), "30");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultValue::Flag(b) => f.write_str(if *b { "Y" } else { "N" }),
            DefaultValue::Number(n) => write!(f, "{n}"),
            DefaultValue::Text(t) => f.write_str(t),
        }
    }
}

/// Names the key takes besides its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySuffix {
    /// Only the name.
    None,
    /// `KEY1`, `KEY2`, …: more of the same (failover addresses).
    Number,
    /// `KEY.<version>`: one per FIX version (`AppDataDictionary.FIX.4.4`).
    Version,
}

/// The description of one `.cfg` key: an entry of [`CATALOG`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key, as written in a `.cfg` (matched without regard to case).
    pub name: &'static str,
    /// What its value is, with the range of a number.
    pub kind: ValueKind,
    /// What a session has when the key is left out.
    pub default: DefaultValue,
    /// The engines that read it too (empty: none).
    pub sources: &'static [KeySource],
    /// Other names it takes.
    pub suffix: KeySuffix,
    /// What it does: the settings table's "meaning" cell, in Markdown;
    /// `{range}` stands for `range MIN to MAX` of a number.
    pub doc: &'static str,
}

impl Key {
    /// The inclusive range of a numeric key.
    pub fn range(&self) -> Option<(u64, u64)> {
        match self.kind {
            ValueKind::Number { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }

    /// [`doc`](Self::doc) with `{range}` written out.
    ///
    /// ```
    /// let key = peregrine_engine::config::catalog_key("LogonTimeout").unwrap();
    /// assert!(key.doc_text().contains("range 1 to 3600"));
    /// ```
    pub fn doc_text(&self) -> String {
        match self.range() {
            Some((min, max)) => self
                .doc
                .replace("{range}", &format!("range {min} to {max}")),
            None => self.doc.to_string(),
        }
    }

    /// Whether `key` names this key (case-insensitive, with its suffixes).
    pub fn matches(&self, key: &str) -> bool {
        let name = self.name;
        if key.eq_ignore_ascii_case(name) {
            return true;
        }
        let Some(rest) = key
            .get(..name.len())
            .filter(|p| p.eq_ignore_ascii_case(name))
            .map(|_| &key[name.len()..])
        else {
            return false;
        };
        match self.suffix {
            KeySuffix::None => false,
            KeySuffix::Number => !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()),
            // The version is checked with the session (an empty one too).
            KeySuffix::Version => rest.starts_with('.'),
        }
    }
}

/// The constructors the group files write their entries with.
const fn key(
    name: &'static str,
    sources: &'static [KeySource],
    kind: ValueKind,
    default: DefaultValue,
    doc: &'static str,
) -> Key {
    Key {
        name,
        kind,
        default,
        sources,
        suffix: KeySuffix::None,
        doc,
    }
}

const fn flag(
    name: &'static str,
    sources: &'static [KeySource],
    default: bool,
    doc: &'static str,
) -> Key {
    key(
        name,
        sources,
        ValueKind::Flag,
        DefaultValue::Flag(default),
        doc,
    )
}

/// A flag whose default is not a plain `Y`/`N` (it follows other keys).
const fn flag_rule(
    name: &'static str,
    sources: &'static [KeySource],
    default: &'static str,
    doc: &'static str,
) -> Key {
    key(
        name,
        sources,
        ValueKind::Flag,
        DefaultValue::Text(default),
        doc,
    )
}

const fn number(
    name: &'static str,
    sources: &'static [KeySource],
    (unit, min, max): (&'static str, u64, u64),
    default: DefaultValue,
    doc: &'static str,
) -> Key {
    key(
        name,
        sources,
        ValueKind::Number { unit, min, max },
        default,
        doc,
    )
}

const fn text(
    name: &'static str,
    sources: &'static [KeySource],
    form: &'static str,
    default: &'static str,
    doc: &'static str,
) -> Key {
    key(
        name,
        sources,
        ValueKind::Text(form),
        DefaultValue::Text(default),
        doc,
    )
}

const fn with_suffix(k: Key, suffix: KeySuffix) -> Key {
    Key { suffix, ..k }
}

const QF: &[KeySource] = &[KeySource::QuickFix];
const QFJ: &[KeySource] = &[KeySource::QuickFixJ];
const CPP: &[KeySource] = &[KeySource::QuickFixCpp];
const GO: &[KeySource] = &[KeySource::QuickFixGo];
const QFJ_GO: &[KeySource] = &[KeySource::QuickFixJ, KeySource::QuickFixGo];
const OURS: &[KeySource] = &[KeySource::Ours];

/// The groups, in the settings table's order.
const GROUPS: [&[Key]; 5] = [
    connection::KEYS,
    schedule::KEYS,
    protocol::KEYS,
    storage::KEYS,
    engine::KEYS,
];

const COUNT: usize = {
    let mut n = 0;
    let mut g = 0;
    while g < GROUPS.len() {
        n += GROUPS[g].len();
        g += 1;
    }
    n
};

const ALL: [Key; COUNT] = {
    let mut out = [GROUPS[0][0]; COUNT];
    let (mut g, mut n) = (0, 0);
    while g < GROUPS.len() {
        let mut i = 0;
        while i < GROUPS[g].len() {
            out[n] = GROUPS[g][i];
            n += 1;
            i += 1;
        }
        g += 1;
    }
    out
};

/// Every key Peregrine reads, described once, in the settings table's order.
pub const CATALOG: &[Key] = &ALL;

const NAMES: [&str; COUNT] = {
    let mut out = [""; COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = ALL[i].name;
        i += 1;
    }
    out
};

/// Every key Peregrine understands (QuickFIX's names, and ours): the names of
/// [`CATALOG`].
pub const KNOWN_KEYS: &[&str] = &NAMES;

const NUMERIC_COUNT: usize = {
    let (mut n, mut i) = (0, 0);
    while i < COUNT {
        if let ValueKind::Number { .. } = ALL[i].kind {
            n += 1;
        }
        i += 1;
    }
    n
};

const RANGES: [(&str, u64, u64); NUMERIC_COUNT] = {
    let mut out = [("", 0, 0); NUMERIC_COUNT];
    let (mut n, mut i) = (0, 0);
    while i < COUNT {
        if let ValueKind::Number { min, max, .. } = ALL[i].kind {
            out[n] = (ALL[i].name, min, max);
            n += 1;
        }
        i += 1;
    }
    out
};

/// The valid range of every numeric key (inclusive), from [`CATALOG`]; a
/// value outside it stops start-up naming file, line and key.
/// `SocketConnectPort<n>` takes `SocketConnectPort`'s. Units: seconds for
/// times, bytes for sizes, milliseconds for `FileStoreSync`.
pub const NUMERIC_RANGES: &[(&str, u64, u64)] = &RANGES;

/// The description of `key` (case-insensitive; `SocketConnectHost2` finds
/// `SocketConnectHost`, `AppDataDictionary.FIX.4.4` `AppDataDictionary`).
///
/// ```
/// use peregrine_engine::config::{catalog_key, DefaultValue};
/// let key = catalog_key("heartbtint").unwrap();
/// assert_eq!((key.name, key.default), ("HeartBtInt", DefaultValue::Number(30)));
/// assert_eq!(catalog_key("SocketConnectPort2").map(|k| k.name), Some("SocketConnectPort"));
/// assert!(catalog_key("SocketKeyStore").is_none()); // QuickFIX/J's, not implemented
/// ```
pub fn catalog_key(key: &str) -> Option<&'static Key> {
    CATALOG.iter().find(|k| k.matches(key))
}

/// The range of a numeric key (case-insensitive), if it is one.
pub fn range_of(key: &str) -> Option<(u64, u64)> {
    catalog_key(key).and_then(Key::range)
}

/// Whether Peregrine reads `key`.
pub(in crate::config) fn is_known(key: &str) -> bool {
    catalog_key(key).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_docs_say_their_range() {
        for (i, k) in CATALOG.iter().enumerate() {
            assert!(
                CATALOG[..i]
                    .iter()
                    .all(|o| !o.name.eq_ignore_ascii_case(k.name)),
                "{} twice",
                k.name
            );
            assert!(!k.doc.is_empty(), "{}: no doc", k.name);
            assert!(!k.doc.contains('|'), "{}: a | breaks the table", k.name);
            let placeholders = k.doc.matches("{range}").count();
            match k.kind {
                ValueKind::Number { min, max, .. } => {
                    assert_eq!(placeholders, 1, "{}: say {{range}} once", k.name);
                    assert!(min <= max, "{}", k.name);
                    if let DefaultValue::Number(n) = k.default {
                        assert!(
                            (min..=max).contains(&n),
                            "{}: default {n} out of range",
                            k.name
                        );
                    }
                }
                _ => assert_eq!(placeholders, 0, "{}: no range", k.name),
            }
            if let DefaultValue::Flag(_) = k.default {
                assert_eq!(k.kind, ValueKind::Flag, "{}", k.name);
            }
        }
    }

    #[test]
    fn suffixes_match_their_forms_only() {
        assert!(is_known("SocketConnectHost12"));
        assert!(is_known("socketconnectport1"));
        assert!(!is_known("SocketConnectHostX"));
        assert!(!is_known("SocketAcceptPort1"));
        assert!(is_known("AppDataDictionary.FIX.4.4"));
        assert!(is_known("AppDataDictionary.")); // refused as no version, not ignored
        assert!(!is_known("DataDictionary.FIX.4.4"));
        assert_eq!(range_of("SocketConnectPort3"), Some((1, 65_535)));
        assert_eq!(range_of("SocketAcceptPort"), Some((0, 65_535)));
        assert_eq!(range_of("SocketConnectHost"), None);
    }
}

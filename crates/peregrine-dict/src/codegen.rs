//! Build-time generation of typed messages (Rust source) from a [`Dictionary`].
//!
//! The output is one Rust module body per dictionary, written for the runtime of the
//! `peregrine-messages` crate (it refers to `crate::FieldAccess`, `crate::__message!`, …), and
//! meant to be `include!`d there. It holds:
//!
//! * `tags`: one `u32` constant per field, `SCREAMING_SNAKE` of the field name;
//! * `enums`: one Rust enum per enumerated field, with its wire values and descriptions;
//! * `components`: for every component, a read trait (`Instrument<'a>`) and a write trait
//!   (`InstrumentBuilder<'b>`) whose provided methods are the component's getters and setters,
//!   plus `StandardHeader`/`StandardTrailer` (components inlined; from the transport
//!   dictionary for FIX 5.0 and later);
//! * `groups`: a view and a builder per repeating group, named `<Owner><GroupName>`;
//! * one view and one builder per message;
//! * with [`Options::tests`], a `tests` module: a round trip of every message with every field
//!   set to a sample value of its type and one entry in every group, and enum round trips.
//!
//! Components are traits rather than flattened copies so that the generated code grows with
//! the dictionary, not with the number of places a component is used; every method is a
//! one-line `#[inline]` call to a generic helper of the runtime.
//!
//! # Enum variant names
//!
//! Variants are named after the FIX specification's symbolic names (`OrdStatus::PartiallyFilled`,
//! `OrdRejReason::UnknownSymbol`), with QuickFIX's description kept as a `#[doc(alias)]`
//! (search the documentation for `PARTIAL` or `UNKNOWNSYM` and the variant comes up).
//! QuickFIX's descriptions are upper snake case (`PARTIALLY_FILLED`, CamelCased into the
//! variant name) in every dictionary but FIX 4.4, which runs the words together and
//! abbreviates them (`PARTIAL`, `UNKNOWNSYM`, `PENDINGNEW`, `EXECUTINGFIRM`). Such a
//! description is named from the same field's value in the reference dictionaries of
//! [`Options::names_from`] when it abbreviates that value's description (its letters appear
//! there in order: `PARTIAL` → `PARTIALLY_FILLED`, `INVINVID` → `INVALID_INVESTOR_ID`), or
//! else split into the words the dictionaries use elsewhere (`UNKNOWNACCOUNTS` → `Unknown`
//! `Accounts`). A short table then corrects what still differs from the specification:
//! misspellings (`SURVEILLENCE_OPTION` → `SurveillanceOption`), abbreviations without a
//! counterpart (`PENDINGCXL` → `ExecType::PendingCancel`, `ORDCXLREQ` →
//! `CxlRejResponseTo::OrderCancelRequest`) and descriptions that do not name their value
//! (QuickFIX's FIX 4.4 `SettlType` 8 `T5` → `SellersOption`).
//!
//! ```
//! use peregrine_dict::{codegen, Dictionary};
//! let dict = Dictionary::from_file("dictionaries/FIX42.xml").unwrap();
//! let code = codegen::generate(&dict, &codegen::Options::default());
//! assert!(code.contains("pub const CL_ORD_ID: u32 = 11;"));
//! assert!(code.contains("pub struct NewOrderSingle<'a>"));
//! ```

use crate::scope::is_framing;
use crate::{Dictionary, FieldDef, FixType, Member, MsgCategory};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// What to generate.
#[derive(Clone, Copy, Debug)]

pub struct Options<'d> {
    /// The transport dictionary (FIXT 1.1) whose header and trailer the application messages
    /// carry, for FIX 5.0 and later; `None`: the dictionary's own header and trailer.
    pub transport: Option<&'d Dictionary>,
    /// Emit the `#[cfg(test)]` round-trip tests.
    pub tests: bool,
    /// Dictionaries whose value descriptions name enum variants where this dictionary's
    /// own description runs words together (see [Enum variant names](self#enum-variant-names)),
    /// in order of preference. `peregrine-messages` passes FIX 5.0 SP2, 4.3 and 4.2.
    pub names_from: &'d [&'d Dictionary],
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            transport: None,
            tests: true,
            names_from: &[],
        }
    }
}

/// Formats a generated file in place with `rustfmt` (`$RUSTFMT` or `rustfmt` on the `PATH`).
/// Returns false, leaving the file as generated (already indented), when rustfmt is missing
/// or fails.
pub fn rustfmt(path: &Path) -> bool {
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    std::process::Command::new(program)
        .args(["--edition", "2021"])
        .arg(path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Generates the module body for `dict` (see the [module documentation](self)).
pub fn generate(dict: &Dictionary, options: &Options<'_>) -> String {
    let mut g = Gen::new(dict, options.transport);
    g.namer = Namer::new(dict, options.transport, options.names_from);
    g.build();
    g.emit(options.tests)
}

// ---------------------------------------------------------------------------------------
// Names

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Method names of the runtime that generated getters and setters must not shadow.
const RESERVED_METHODS: &[&str] = &[
    "raw_field",
    "raw_group",
    "typed_field",
    "typed_group",
    "encoder",
    "put_field",
    "put_data",
    "put_group",
    "whole_text",
    "wrap",
    "view",
    "from_view",
    "builder",
    "new",
    "finish",
    "fields",
    "entry",
];

/// `NoPartyIDs` → `no_party_ids`, `MDReqID` → `md_req_id`, `ClOrdID` → `cl_ord_id`.
fn snake(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &ch) in c.iter().enumerate() {
        if !ch.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if ch.is_ascii_uppercase() && i > 0 {
            let prev = c[i - 1];
            let next = c.get(i + 1).copied();
            let plural_acronym =
                next == Some('s') && c.get(i + 2).map_or(true, |n| !n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase())
                    && !plural_acronym);
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(ch.to_ascii_lowercase());
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn method_name(field_name: &str) -> String {
    let s = snake(field_name);
    if KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else if RESERVED_METHODS.contains(&s.as_str()) {
        format!("{s}_field")
    } else {
        s
    }
}

fn const_name(field_name: &str) -> String {
    snake(field_name).to_ascii_uppercase()
}

/// A type name from a dictionary name (already CamelCase; made a valid identifier).
fn type_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    if s == "Self" {
        s.push('_');
    }
    s
}

/// `PARTIALLY_FILLED` → `PartiallyFilled`; `CamelCase` words are kept.
fn variant_name(description: &str, value: &str) -> String {
    let mut out = String::new();
    for word in description.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        let Some(first) = chars.next() else { continue };
        out.push(first.to_ascii_uppercase());
        let rest: String = chars.collect();
        if word.chars().any(|c| c.is_ascii_lowercase()) {
            out.push_str(&rest);
        } else {
            out.push_str(&rest.to_ascii_lowercase());
        }
    }
    if out.is_empty() {
        out = format!("V{}", sanitize(value));
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if out == "Self" {
        out.push('_');
    }
    out
}

/// QuickFIX's description as a doc alias of the variant named `name`, when it differs from
/// the name and rustdoc accepts it as an alias.
fn doc_alias(description: &str, name: &str) -> Option<String> {
    let ok = !description.is_empty()
        && !description.eq_ignore_ascii_case(name)
        && description
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/'));
    ok.then(|| description.to_string())
}

fn sanitize(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A byte-string literal.
fn byte_lit(s: &str) -> String {
    let mut out = String::from("b\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// A slice pattern matching exactly these bytes (`[b'1', b'0']`): a match over slice patterns
/// compiles to a decision tree on the length and the bytes, not to a chain of comparisons.
fn slice_pattern(s: &str) -> String {
    let bytes: Vec<String> = s.bytes().map(|b| format!("{b}")).collect();
    let mut out = String::from("[");
    for (i, b) in s.bytes().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if b.is_ascii_alphanumeric() {
            let _ = write!(out, "b'{}'", b as char);
        } else {
            out.push_str(&bytes[i]);
        }
    }
    out.push(']');
    out
}

/// Text safe for a one-line doc comment.
fn doc_text(s: &str) -> String {
    s.replace(['\n', '\r'], " ").replace('`', "'")
}

// ---------------------------------------------------------------------------------------
// Enum variant names

/// Variant names where QuickFIX's description, even after [`Namer`]'s reference lookup,
/// differs from the FIX specification's symbolic name: misspellings, abbreviations and
/// descriptions that do not name the value. Keyed by field name, wire value and the
/// description (upper case, letters and digits only) the lookup ended with, so that an
/// entry never renames a value that means something else in another version.
///
/// Each entry: (field, value, description, variant).
const SPEC_NAMES: &[(&str, &str, &str, &str)] = &[
    // Misspelt by QuickFIX and by the FIX Repository's symbolic name ("SurveillenceOption").
    (
        "OrdRejReason",
        "12",
        "SURVEILLENCEOPTION",
        "SurveillanceOption",
    ),
    ("OrdRejReason", "15", "UNKNOWNACCOUNTS", "UnknownAccount"),
    ("ExecType", "6", "PENDINGCXL", "PendingCancel"),
    (
        "BusinessRejectReason",
        "3",
        "UNKNMSGTYPE",
        "UnsupportedMessageType",
    ),
    (
        "CxlRejReason",
        "5",
        "ORIGORDMODTIMEMISMATCH",
        "OrigOrdModTimeMismatch",
    ),
    ("CxlRejReason", "5", "ORIGORDMODTIME", "OrigOrdModTime"),
    (
        "CxlRejReason",
        "3",
        "ALREADYPENDINGCXL",
        "OrderAlreadyInPendingCancelOrPendingReplaceStatus",
    ),
    ("CxlRejResponseTo", "1", "ORDCXLREQ", "OrderCancelRequest"),
    (
        "CxlRejResponseTo",
        "2",
        "ORDCXLREPREQ",
        "OrderCancelReplaceRequest",
    ),
    ("ExecInst", "Z", "CXLIFNOTBEST", "CancelIfNotBest"),
    ("Side", "F", "LENDFINANCING", "Lend"),
    ("Side", "G", "BORROWFINANCING", "Borrow"),
    ("LastCapacity", "2", "XA", "CrossAsAgent"),
    ("LastCapacity", "3", "XP", "CrossAsPrincipal"),
    ("AdvTransType", "N", "ADVNEW", "New"),
    ("AdvTransType", "C", "ADVCANCEL", "Cancel"),
    ("AdvTransType", "R", "ADVREPLACE", "Replace"),
    // QuickFIX's FIX 4.4 swaps these two descriptions' meaning: 8 is Seller's Option, 9 T+5.
    ("SettlType", "8", "T5", "SellersOption"),
    ("SettlType", "9", "T1", "TPlus5"),
    ("EncryptMethod", "0", "NONEOTHER", "None"),
    (
        "SessionRejectReason",
        "5",
        "VALUEISINCORRECTOUTOFRANGEFORTHISTAG",
        "ValueIsIncorrect",
    ),
    (
        "SessionRejectReason",
        "17",
        "NONDATAVALUEINCLUDESFIELDDELIMITERSOHCHARACTER",
        "NonDataValueIncludesFieldDelimiter",
    ),
    (
        "BusinessRejectReason",
        "7",
        "NODELIVTOFIRM",
        "DeliverToFirmNotAvailableAtThisTime",
    ),
    (
        "SubscriptionRequestType",
        "2",
        "UNSUBSCRIBE",
        "DisablePreviousSnapshotPlusUpdateRequest",
    ),
    ("PriceType", "2", "CPS", "PerUnit"),
    ("PriceType", "3", "ABS", "FixedAmount"),
    ("ListOrderStatus", "4", "CXL", "Cancelling"),
    ("ExecRestatementReason", "3", "REPX", "RepricingOfOrder"),
    (
        "ExecRestatementReason",
        "6",
        "CXLTRADINGHALT",
        "CancelOnTradingHalt",
    ),
    (
        "ExecRestatementReason",
        "7",
        "CXLSYSTEMFAILURE",
        "CancelOnSystemFailure",
    ),
    ("ExecRestatementReason", "8", "MRKTOPTION", "MarketOption"),
    (
        "PartyRole",
        "11",
        "INITIATINGTRADER",
        "OrderOriginationTrader",
    ),
    ("QuoteStatus", "1", "CXLSYM", "CanceledForSymbol"),
    ("QuoteStatus", "2", "CXLSECTYPE", "CanceledForSecurityType"),
    ("QuoteStatus", "3", "CXLUNDER", "CanceledForUnderlying"),
    ("QuoteStatus", "4", "CXLALL", "CanceledAll"),
    (
        "QuoteCancelType",
        "1",
        "CXLSYM",
        "CancelForOneOrMoreSecurities",
    ),
    (
        "QuoteCancelType",
        "2",
        "CXLSECTYPE",
        "CancelForSecurityType",
    ),
    (
        "QuoteCancelType",
        "3",
        "CXLUNDER",
        "CancelForUnderlyingSecurity",
    ),
    ("QuoteCancelType", "4", "CXLALL", "CancelAllQuotes"),
    ("QuoteRejectReason", "2", "EXCHCLSD", "ExchangeClosed"),
    (
        "QuoteRejectReason",
        "3",
        "ORDEXLIM",
        "QuoteRequestExceedsLimit",
    ),
    ("QuoteRejectReason", "5", "UNKNORD", "UnknownQuote"),
    ("QuoteRejectReason", "6", "DUPORD", "DuplicateQuote"),
    ("QuoteRejectReason", "8", "INVPX", "InvalidPrice"),
    ("QuoteEntryRejectReason", "2", "EXCHCLSD", "ExchangeClosed"),
    ("QuoteEntryRejectReason", "2", "EXHCNAGE", "ExchangeClosed"),
    (
        "QuoteEntryRejectReason",
        "3",
        "ORDEXCLIM",
        "QuoteExceedsLimit",
    ),
    ("QuoteEntryRejectReason", "5", "UNKNORD", "UnknownQuote"),
    ("QuoteEntryRejectReason", "6", "DUPORD", "DuplicateQuote"),
    ("QuoteEntryRejectReason", "8", "INVPX", "InvalidPrice"),
    (
        "DiscretionInst",
        "0",
        "RELDISPPX",
        "RelatedToDisplayedPrice",
    ),
    ("DiscretionInst", "1", "RELMKTPX", "RelatedToMarketPrice"),
    ("DiscretionInst", "2", "RELPRIMPX", "RelatedToPrimaryPrice"),
    (
        "DiscretionInst",
        "3",
        "RELLOCPRIMPX",
        "RelatedToLocalPrimaryPrice",
    ),
    ("DiscretionInst", "4", "RELMIDPX", "RelatedToMidpointPrice"),
    ("DiscretionInst", "5", "RELLSTPX", "RelatedToLastTradePrice"),
];

/// `PARTIALLY_FILLED` → `PARTIALLYFILLED`: upper case, letters and digits only.
fn squash(description: &str) -> String {
    description
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Whether the letters of `short` appear in order in `long` (`PARTIAL` in
/// `PARTIALLYFILLED`, `UNKNOWNSYM` in `UNKNOWNSYMBOL`, `INVINVID` in
/// `INVALIDINVESTORID`): `short` abbreviates `long`.
fn abbreviates(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    !short.is_empty() && short.chars().all(|c| rest.any(|l| l == c))
}

/// Names enum variants after the FIX specification.
///
/// QuickFIX's dictionaries name values in upper snake case (`PARTIALLY_FILLED`), which
/// CamelCases into the specification's symbolic name (`PartiallyFilled`), except where
/// they run the words together or abbreviate them, as its FIX 4.4 dictionary does
/// throughout (`PARTIAL`, `UNKNOWNSYM`, `PENDINGNEW`). For such a description (no
/// separator, no lower case), the variant is named from the same field's value in the
/// reference dictionaries ([`Options::names_from`]) when the description abbreviates
/// that one (its letters appear in it in order: `PARTIAL` → `PARTIALLY_FILLED`);
/// otherwise the description is split into the words the dictionaries use elsewhere
/// (`UNKNOWNACCOUNTS` → `UNKNOWN_ACCOUNTS`). Last, [`SPEC_NAMES`] corrects what is still
/// not the specification's name.
#[derive(Default)]
struct Namer<'d> {
    references: Vec<&'d Dictionary>,
    /// Words of every multi-word description (upper case).
    words: BTreeSet<String>,
}

impl<'d> Namer<'d> {
    fn new(
        dict: &'d Dictionary,
        transport: Option<&'d Dictionary>,
        names_from: &[&'d Dictionary],
    ) -> Self {
        let mut words = BTreeSet::new();
        let all = std::iter::once(dict)
            .chain(transport)
            .chain(names_from.iter().copied());
        for (i, d) in all.enumerate() {
            for f in d.fields() {
                for v in &f.values {
                    // The references' one-word descriptions are words too (`CANCELED`); the
                    // dictionary's own may be words run together (`PENDINGNEW`).
                    let word = i > 0 && !v.description.is_empty() && v.description.len() <= 12;
                    if v.description.contains('_') || word {
                        words.extend(
                            v.description
                                .split(|c: char| !c.is_ascii_alphanumeric())
                                .filter(|w| !w.is_empty())
                                .map(str::to_ascii_uppercase),
                        );
                    }
                }
            }
        }
        Namer {
            references: names_from.to_vec(),
            words,
        }
    }

    /// The variant name of `field`'s `value`, described `description` in the dictionary.
    fn variant(&self, field: &str, value: &str, description: &str) -> String {
        let fixed = |d: &str| {
            let d = squash(d);
            SPEC_NAMES
                .iter()
                .find(|(f, v, desc, _)| *f == field && *v == value && *desc == d)
                .map(|e| e.3.to_string())
        };
        if let Some(name) = fixed(description) {
            return name;
        }
        let run_together = !description.is_empty()
            && description
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if !run_together {
            return variant_name(description, value);
        }
        let short = squash(description);
        let candidates = || {
            self.references.iter().filter_map(|r| {
                let v = r
                    .field_by_name(field)?
                    .values
                    .iter()
                    .find(|v| v.value == value)?;
                Some((v.description.as_str(), squash(&v.description)))
            })
        };
        // An abbreviation of a reference (`PARTIAL`, `PARTIALLY_FILLED`); failing that, a
        // reference with a qualifier after it (`LENDFINANCING`, `LEND`).
        let reference = candidates()
            .find(|(_, long)| abbreviates(&short, long))
            .or_else(|| {
                candidates().find(|(d, long)| {
                    long.len() >= 4
                        && (d.contains('_') || long.len() <= 10)
                        && short.starts_with(long.as_str())
                })
            })
            .map(|(d, _)| d);
        let resolved = match reference {
            Some(r) => r.to_string(),
            None => self.split(&short),
        };
        fixed(&resolved).unwrap_or_else(|| variant_name(&resolved, value))
    }

    /// `UNKNOWNACCOUNTS` → `UNKNOWN_ACCOUNTS`: the cheapest cut into known words (short
    /// words cost more than long ones) and unknown runs (costing more the longer they are).
    fn split(&self, s: &str) -> String {
        let n = s.len();
        // best[i]: the cost of s[..i] and where its last piece starts.
        let mut best: Vec<(u32, usize)> = vec![(u32::MAX, 0); n + 1];
        best[0] = (0, 0);
        for i in 1..=n {
            for j in 0..i {
                if best[j].0 == u32::MAX || !s.is_char_boundary(j) || !s.is_char_boundary(i) {
                    continue;
                }
                let piece = &s[j..i];
                let known = |w: &str| self.words.contains(w) || ABBREVIATIONS.contains(&w);
                // A known word's plural is a word too (`ACCOUNTS`).
                let plural =
                    piece.len() > 3 && piece.ends_with('S') && known(&piece[..piece.len() - 1]);
                let cost = if known(piece) || plural {
                    match piece.len() {
                        1 => 5,
                        2 => 3,
                        _ => 2,
                    }
                } else {
                    4 + piece.len() as u32
                };
                if best[j].0 + cost < best[i].0 {
                    best[i] = (best[j].0 + cost, j);
                }
            }
        }
        let mut pieces = Vec::new();
        let mut i = n;
        while i > 0 {
            let j = best[i].1;
            pieces.push(&s[j..i]);
            i = j;
        }
        pieces.reverse();
        pieces.join("_")
    }
}

/// Abbreviations QuickFIX's FIX 4.4 descriptions use, kept as words when a description is
/// split (`CXLSYM` → `CxlSym` rather than `Cxlsym`); the common ones are spelt out by
/// [`SPEC_NAMES`].
const ABBREVIATIONS: &[&str] = &[
    "ACCT", "ACT", "ALLOC", "AMT", "AVG", "BRK", "BUST", "BUYSIDE", "CLS", "CLSD", "COMM", "CSH",
    "CURR", "CXL", "DISC", "DISP", "DUP", "EN", "EXCH", "IND", "INV", "LOC", "LST", "MID", "MKT",
    "MNC", "MOD", "MORN", "MRKT", "MSG", "NASDAQ", "ORD", "ORIG", "PCT", "PRIM", "PX", "QTY",
    "REJ", "REL", "REP", "REQ", "RET", "SEC", "SUPP", "SYM", "TRD", "UNKN", "WRK",
];

// ---------------------------------------------------------------------------------------
// The intermediate form: members with components either referenced or inlined

#[derive(Clone, Debug)]
enum Item {
    Field { tag: u32, required: bool },
    Comp { index: usize },
    Group(usize),
}

#[derive(Clone, Debug)]
struct GroupIr {
    count_tag: u32,
    required: bool,
    /// Type name of the entry view (`<Owner><GroupName>`).
    ty: String,
    items: Vec<Item>,
    /// Every tag of an entry, nested groups included.
    tags: BTreeSet<u32>,
}

/// How a field reads and writes in Rust.
struct RustType {
    /// The getter's value type (with `'a` where it borrows).
    read: String,
    /// The setter's parameter type.
    write: String,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Str,
    Bytes,
    Int,
    Uint,
    Decimal,
    Char,
    Bool,
    Timestamp,
    Time,
    Date,
    MonthYear,
    Enum,
}

struct Gen<'d> {
    dict: &'d Dictionary,
    transport: Option<&'d Dictionary>,
    groups: Vec<GroupIr>,
    /// Component index → items (components of the application dictionary).
    components: Vec<Vec<Item>>,
    header: Vec<Item>,
    trailer: Vec<Item>,
    messages: Vec<Vec<Item>>,
    /// Tags that have an enum type.
    enums: BTreeSet<u32>,
    /// Every field used, with the dictionary that defines it.
    fields: BTreeMap<u32, &'d FieldDef>,
    const_names: BTreeMap<u32, String>,
    namer: Namer<'d>,
}

impl<'d> Gen<'d> {
    fn new(dict: &'d Dictionary, transport: Option<&'d Dictionary>) -> Self {
        Gen {
            dict,
            transport,
            groups: Vec::new(),
            components: Vec::new(),
            header: Vec::new(),
            trailer: Vec::new(),
            messages: Vec::new(),
            enums: BTreeSet::new(),
            fields: BTreeMap::new(),
            const_names: BTreeMap::new(),
            namer: Namer::default(),
        }
    }

    fn field(&self, tag: u32) -> &'d FieldDef {
        self.fields[&tag]
    }

    fn build(&mut self) {
        for f in self.dict.fields() {
            self.fields.insert(f.tag, f);
        }
        if let Some(t) = self.transport {
            for f in t.fields() {
                self.fields.entry(f.tag).or_insert(f);
            }
        }
        // Constant names, unique.
        let mut used = BTreeSet::new();
        for (&tag, f) in &self.fields {
            let mut n = const_name(&f.name);
            if !used.insert(n.clone()) {
                n = format!("{n}_{tag}");
                used.insert(n.clone());
            }
            self.const_names.insert(tag, n);
        }
        for (&tag, f) in &self.fields {
            if !f.values.is_empty() && enum_kind(&f.fix_type) {
                self.enums.insert(tag);
            }
        }
        let (hdict, header, trailer) = match self.transport {
            Some(t) => (t, t.header(), t.trailer()),
            None => (self.dict, self.dict.header(), self.dict.trailer()),
        };
        self.header = self.items(hdict, header, true, "StandardHeader");
        self.trailer = self.items(hdict, trailer, true, "StandardTrailer");
        let dict = self.dict;
        for c in dict.components() {
            let items = self.items(dict, &c.members, false, &type_name(&c.name));
            self.components.push(items);
        }
        for m in dict.messages() {
            let items = self.items(dict, &m.members, false, &type_name(&m.name));
            self.messages.push(items);
        }
    }

    fn items(
        &mut self,
        src: &'d Dictionary,
        members: &[Member],
        inline: bool,
        owner: &str,
    ) -> Vec<Item> {
        let mut out = Vec::new();
        for m in members {
            match m {
                Member::Field(f) => out.push(Item::Field {
                    tag: f.tag,
                    required: f.required,
                }),
                Member::Component(c) if inline => {
                    let comp = &src.components()[c.index];
                    let inner = self.items(src, &comp.members, true, owner);
                    out.extend(inner);
                }
                Member::Component(c) => out.push(Item::Comp { index: c.index }),
                Member::Group(g) => {
                    let ty = format!("{owner}{}", type_name(&g.name));
                    let items = self.items(src, &g.members, inline, owner);
                    let mut tags = BTreeSet::new();
                    collect_tags(src, &g.members, &mut tags);
                    self.groups.push(GroupIr {
                        count_tag: g.count_tag,
                        required: g.required,
                        ty,
                        items,
                        tags,
                    });
                    out.push(Item::Group(self.groups.len() - 1));
                }
            }
        }
        out
    }

    fn rust_type(&self, tag: u32) -> RustType {
        let f = self.field(tag);
        if self.enums.contains(&tag) {
            let t = format!("enums::{}", type_name(&f.name));
            return RustType {
                read: t.clone(),
                write: t,
                kind: Kind::Enum,
            };
        }
        let (read, write, kind) = match f.fix_type {
            FixType::Int => ("i64", "i64", Kind::Int),
            FixType::Length
            | FixType::NumInGroup
            | FixType::SeqNum
            | FixType::TagNum
            | FixType::DayOfMonth => ("u64", "u64", Kind::Uint),
            FixType::Float
            | FixType::Qty
            | FixType::Price
            | FixType::PriceOffset
            | FixType::Amt
            | FixType::Percentage => ("Decimal", "Decimal", Kind::Decimal),
            FixType::Char => ("char", "char", Kind::Char),
            FixType::Boolean => ("bool", "bool", Kind::Bool),
            FixType::UtcTimestamp | FixType::Time => {
                ("UtcTimestamp", "UtcTimestamp", Kind::Timestamp)
            }
            FixType::UtcTimeOnly => ("TimeOfDay", "TimeOfDay", Kind::Time),
            FixType::UtcDateOnly | FixType::UtcDate | FixType::LocalMktDate | FixType::Date => {
                ("Date", "Date", Kind::Date)
            }
            FixType::MonthYear => ("MonthYear", "MonthYear", Kind::MonthYear),
            FixType::Data | FixType::XmlData => ("&'a [u8]", "&[u8]", Kind::Bytes),
            _ => ("&'a str", "&str", Kind::Str),
        };
        RustType {
            read: read.into(),
            write: write.into(),
            kind,
        }
    }

    fn tag_const(&self, tag: u32) -> String {
        format!("tags::{}", self.const_names[&tag])
    }

    /// The LENGTH field written together with the data field at `items[i]`, if any.
    fn data_length(&self, items: &[Item], i: usize) -> Option<u32> {
        let Item::Field { tag, .. } = items[i] else {
            return None;
        };
        if !matches!(self.field(tag).fix_type, FixType::Data | FixType::XmlData) || i == 0 {
            return None;
        }
        match items[i - 1] {
            Item::Field { tag: l, .. } if self.field(l).fix_type == FixType::Length => Some(l),
            _ => None,
        }
    }

    /// Whether the field at `items[i]` is a LENGTH written by the data field after it.
    fn is_paired_length(&self, items: &[Item], i: usize) -> bool {
        i + 1 < items.len() && self.data_length(items, i + 1).is_some()
    }

    /// Components implemented by a scope: its component members and theirs, transitively
    /// (not through groups).
    fn comp_closure(&self, items: &[Item], out: &mut BTreeSet<usize>) {
        for it in items {
            if let Item::Comp { index } = it {
                if out.insert(*index) {
                    self.comp_closure(&self.components[*index], out);
                }
            }
        }
    }

    fn comp_name(&self, index: usize) -> String {
        type_name(&self.dict.components()[index].name)
    }

    // -----------------------------------------------------------------------------------
    // Emission

    fn emit(&self, tests: bool) -> String {
        let mut o = String::with_capacity(1 << 20);
        let d = self.dict;
        let begin = match self.transport {
            Some(t) => t.begin_string().to_string(),
            None => d.begin_string().to_string(),
        };
        let _ = writeln!(
            o,
            "// Generated by peregrine_dict::codegen from the {} dictionary. Do not edit.\n",
            d.version()
        );
        o.push_str(
            "#[allow(unused_imports)]\nuse crate::codec::value::{Date, Decimal, MonthYear, TimeOfDay, UtcTimestamp};\n\
             #[allow(unused_imports)]\nuse crate::{Entries, FieldAccess, FieldEncode, FieldError, GroupWriter};\n\n",
        );
        let _ = writeln!(
            o,
            "/// BeginString (8) of this version.\npub const BEGIN_STRING: &[u8] = {};\n",
            byte_lit(&begin)
        );
        self.emit_tags(&mut o);
        self.emit_enums(&mut o);
        self.emit_components(&mut o);
        self.emit_groups(&mut o);
        o.push_str(
            "/// Everything needed to call the getters and setters: the component traits and the\n\
             /// runtime traits.\npub mod prelude {\n    pub use super::components::*;\n    \
             pub use crate::{FieldAccess, FieldEncode, FieldResult, FixEnum, Message, TypedMessage};\n}\n\n",
        );
        self.emit_traits(&mut o);
        self.emit_messages(&mut o);
        self.emit_cracker(&mut o);
        if tests {
            self.emit_tests(&mut o);
        }
        o
    }

    fn emit_tags(&self, o: &mut String) {
        o.push_str("/// Tag numbers of every field.\npub mod tags {\n");
        for (&tag, f) in &self.fields {
            let _ = writeln!(
                o,
                "    /// `{}` ({tag}), {}.\n    pub const {}: u32 = {tag};",
                f.name, f.fix_type, self.const_names[&tag]
            );
        }
        o.push_str("}\n\n");
    }

    fn emit_enums(&self, o: &mut String) {
        o.push_str("/// The enumerated fields' values.\npub mod enums {\n");
        for &tag in &self.enums {
            let f = self.field(tag);
            let name = type_name(&f.name);
            let mut seen_values = BTreeSet::new();
            let mut seen_names = BTreeSet::new();
            let mut variants: Vec<(String, &str, &str)> = Vec::new();
            for v in &f.values {
                if !seen_values.insert(v.value.as_str()) {
                    continue;
                }
                let mut vn = self.namer.variant(&f.name, &v.value, &v.description);
                if seen_names.contains(&vn) {
                    vn = format!("{vn}_{}", sanitize(&v.value));
                }
                let mut n = 2;
                while seen_names.contains(&vn) {
                    vn = format!("{vn}{n}");
                    n += 1;
                }
                seen_names.insert(vn.clone());
                variants.push((vn, &v.value, &v.description));
            }
            let _ = writeln!(
                o,
                "    /// Values of `{}` ({tag}, {}).\n    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n    pub enum {name} {{",
                f.name, f.fix_type
            );
            for (vn, value, desc) in &variants {
                let _ = writeln!(o, "        /// `{}`: {}", doc_text(value), doc_text(desc));
                if let Some(alias) = doc_alias(desc, vn) {
                    let _ = writeln!(o, "        #[doc(alias = \"{alias}\")]");
                }
                let _ = writeln!(o, "        {vn},");
            }
            o.push_str("    }\n");
            let _ = writeln!(
                o,
                "    impl crate::FixEnum for {name} {{\n        const ALL: &'static [Self] = &["
            );
            for (vn, ..) in &variants {
                let _ = writeln!(o, "            Self::{vn},");
            }
            o.push_str("        ];\n        #[inline]\n        fn from_bytes(v: &[u8]) -> ::core::option::Option<Self> {\n            ::core::option::Option::Some(match v {\n");
            for (vn, value, _) in &variants {
                let _ = writeln!(o, "                {} => Self::{vn},", slice_pattern(value));
            }
            o.push_str("                _ => return ::core::option::Option::None,\n            })\n        }\n");
            o.push_str("        #[inline]\n        fn as_bytes(self) -> &'static [u8] {\n            const WIRE: &[&[u8]] = &[");
            for (_, value, _) in &variants {
                let _ = write!(o, "{}, ", byte_lit(value));
            }
            o.push_str("];\n            WIRE[self as usize]\n        }\n");
            o.push_str("        fn description(self) -> &'static str {\n            const TEXT: &[&str] = &[");
            for (_, _, desc) in &variants {
                let _ = write!(o, "{:?}, ", desc);
            }
            o.push_str("];\n            TEXT[self as usize]\n        }\n    }\n");
        }
        o.push_str("}\n\n");
    }

    fn field_doc(&self, tag: u32, required: bool) -> String {
        let f = self.field(tag);
        format!(
            "`{}` ({tag}, {}){}",
            f.name,
            f.fix_type,
            if required { ", required" } else { "" }
        )
    }

    /// Getters (`reader`) or setters of a scope's own fields and groups.
    /// `vis` is `pub ` for inherent methods, empty in traits.
    fn emit_accessors(&self, o: &mut String, items: &[Item], vis: &str, reader: bool) {
        for (i, it) in items.iter().enumerate() {
            match *it {
                Item::Field { tag, required } => {
                    if !reader && is_framing(tag) {
                        continue;
                    }
                    let f = self.field(tag);
                    let m = method_name(&f.name);
                    let t = self.rust_type(tag);
                    let doc = self.field_doc(tag, required);
                    if reader {
                        let _ = writeln!(
                            o,
                            "    /// {doc}.\n    #[inline]\n    {vis}fn {m}(&self) -> Option<Result<{}, FieldError>> {{\n        self.typed_field({})\n    }}",
                            t.read,
                            self.tag_const(tag)
                        );
                    } else if let Some(len) = self.data_length(items, i) {
                        let _ = writeln!(
                            o,
                            "    /// Sets {doc}, with its length `{}` ({len}) before it.\n    #[inline]\n    {vis}fn {m}(&mut self, v: &[u8]) -> &mut Self {{\n        self.put_data({}, {}, v)\n    }}",
                            self.field(len).name,
                            self.tag_const(len),
                            self.tag_const(tag)
                        );
                    } else {
                        let _ = writeln!(
                            o,
                            "    /// Sets {doc}.\n    #[inline]\n    {vis}fn {m}(&mut self, v: {}) -> &mut Self {{\n        self.put_field({}, v)\n    }}",
                            t.write,
                            self.tag_const(tag)
                        );
                    }
                }
                Item::Group(gi) => {
                    let g = &self.groups[gi];
                    let f = self.field(g.count_tag);
                    let m = method_name(&f.name);
                    let doc = format!(
                        "repeating group `{}` ({}){}",
                        f.name,
                        g.count_tag,
                        if g.required { ", required" } else { "" }
                    );
                    if reader {
                        let _ = writeln!(
                            o,
                            "    /// The entries of the {doc} (empty when absent).\n    #[inline]\n    {vis}fn {m}(&self) -> Entries<'a, groups::{}<'a>> {{\n        self.typed_group()\n    }}",
                            g.ty
                        );
                    } else {
                        let _ = writeln!(
                            o,
                            "    /// Writes the count of the {doc}, `n`; then write each entry through the returned writer.\n    #[inline]\n    {vis}fn {m}<'g>(&'g mut self, n: usize) -> GroupWriter<'g, 'b, groups::{}Builder<'g, 'b>>\n    where\n        'b: 'g,\n    {{\n        self.put_group({}, n)\n    }}",
                            g.ty,
                            self.tag_const(g.count_tag)
                        );
                    }
                }
                Item::Comp { .. } => {}
            }
        }
    }

    /// `traits`: the prelude's traits imported as `_`, so that several versions' `traits::*`
    /// can be glob-imported together (their methods in scope, no name clashing): what the
    /// `peregrine` crate's prelude does for every enabled version.
    fn emit_traits(&self, o: &mut String) {
        o.push_str(
            "/// The component and runtime traits, unnamed (`Trait as _`): their methods in scope\n\
             /// without their names, so that `traits::*` of several versions can be imported together.\n\
             pub mod traits {\n    pub use crate::{FieldAccess as _, FieldEncode as _, FieldResult as _, FixEnum as _, Message as _, TypedMessage as _};\n",
        );
        let names = ["StandardHeader".to_string(), "StandardTrailer".to_string()]
            .into_iter()
            .chain(self.dict.components().iter().map(|c| type_name(&c.name)));
        for name in names {
            let _ = writeln!(
                o,
                "    pub use super::components::{{{name} as _, {name}Builder as _}};"
            );
        }
        o.push_str("}\n\n");
    }

    fn emit_components(&self, o: &mut String) {
        o.push_str("/// Components as traits: reading (`X<'a>`) and writing (`XBuilder<'b>`).\npub mod components {\n    use super::*;\n\n");
        let scopes: Vec<(String, String, &[Item], Vec<String>)> = [
            (
                "StandardHeader".to_string(),
                "The standard header".to_string(),
                &self.header[..],
                Vec::new(),
            ),
            (
                "StandardTrailer".to_string(),
                "The standard trailer".to_string(),
                &self.trailer[..],
                Vec::new(),
            ),
        ]
        .into_iter()
        .chain(self.dict.components().iter().enumerate().map(|(i, c)| {
            let supers = self.components[i]
                .iter()
                .filter_map(|it| match it {
                    Item::Comp { index } => Some(self.comp_name(*index)),
                    _ => None,
                })
                .collect();
            (
                type_name(&c.name),
                format!("Component `{}`", c.name),
                &self.components[i][..],
                supers,
            )
        }))
        .collect();
        for (name, doc, items, supers) in scopes {
            let rs: String = supers.iter().map(|s| format!(" + {s}<'a>")).collect();
            let ws: String = supers
                .iter()
                .map(|s| format!(" + {s}Builder<'b>"))
                .collect();
            let _ = writeln!(
                o,
                "/// {doc}: getters.\npub trait {name}<'a>: FieldAccess<'a>{rs} {{"
            );
            self.emit_accessors(o, items, "", true);
            o.push_str("}\n");
            let _ = writeln!(
                o,
                "/// {doc}: setters.\npub trait {name}Builder<'b>: FieldEncode<'b>{ws} {{"
            );
            self.emit_accessors(o, items, "", false);
            o.push_str("}\n\n");
        }
        o.push_str("}\n\n");
    }

    /// `builder_generics` are the impl's generics for `builder` (`<'b>` for a group entry
    /// builder, `<'b, E: FieldEncode<'b>>` for a message builder, generic over its encoder).
    fn emit_trait_impls(
        &self,
        o: &mut String,
        items: &[Item],
        view: &str,
        builder_generics: &str,
        builder: &str,
        header: bool,
    ) {
        let mut comps = BTreeSet::new();
        self.comp_closure(items, &mut comps);
        let names: Vec<String> = comps.into_iter().map(|c| self.comp_name(c)).collect();
        if header {
            // The header and trailer setters only on a builder that owns its encoder
            // (a whole message): a body written into a session's encoder must not
            // write a second MsgSeqNum or SendingTime into the body.
            let owned = builder.replace(", E>", ", crate::codec::MessageEncoder<'b>>");
            for n in ["StandardHeader", "StandardTrailer"] {
                let _ = writeln!(
                    o,
                    "impl<'a> components::{n}<'a> for {view} {{}}\nimpl<'b> components::{n}Builder<'b> for {owned} {{}}"
                );
            }
        }
        for n in names {
            let _ = writeln!(
                o,
                "impl<'a> components::{n}<'a> for {view} {{}}\nimpl{builder_generics} components::{n}Builder<'b> for {builder} {{}}"
            );
        }
    }

    fn emit_groups(&self, o: &mut String) {
        o.push_str("/// Repeating groups: entry views and entry builders.\npub mod groups {\n    use super::*;\n\n");
        for g in &self.groups {
            let f = self.field(g.count_tag);
            let ty = &g.ty;
            let _ = writeln!(
                o,
                "/// An entry of the repeating group `{}` ({}).\n#[derive(Clone, Copy, Debug)]\npub struct {ty}<'a> {{\n    fields: crate::codec::FieldSlice<'a>,\n    text: Option<&'a str>,\n}}\n\
                 /// Writes an entry of the repeating group `{}` ({}).\n#[derive(Debug)]\npub struct {ty}Builder<'x, 'b> {{\n    enc: &'x mut crate::codec::MessageEncoder<'b>,\n}}",
                f.name, g.count_tag, f.name, g.count_tag
            );
            // Membership: a bitmap for tags below 1024 (one load and a shift, inlined into the
            // group walk), a match for the rest.
            let mut mask = [0u64; 16];
            let mut large = Vec::new();
            for &t in &g.tags {
                if t < 1024 {
                    mask[(t >> 6) as usize] |= 1 << (t & 63);
                } else {
                    large.push(t.to_string());
                }
            }
            let words: Vec<String> = mask.iter().map(|w| format!("{w:#x}")).collect();
            let large = if large.is_empty() {
                "false".to_string()
            } else {
                format!("matches!(t, {})", large.join(" | "))
            };
            let _ = writeln!(
                o,
                "crate::__group!({ty}, {ty}Builder, {}, |t| {{\n    const LOW: [u64; 16] = [{}];\n    if t < 1024 {{\n        (LOW[(t >> 6) as usize] >> (t & 63)) & 1 != 0\n    }} else {{\n        {large}\n    }}\n}});",
                g.count_tag,
                words.join(", "),
            );
            let _ = writeln!(o, "impl<'a> {ty}<'a> {{");
            self.emit_accessors(o, &g.items, "pub ", true);
            let _ = writeln!(o, "}}\nimpl<'x, 'b> {ty}Builder<'x, 'b> {{");
            self.emit_accessors(o, &g.items, "pub ", false);
            o.push_str("}\n");
            self.emit_trait_impls(
                o,
                &g.items,
                &format!("{ty}<'a>"),
                "<'b>",
                &format!("{ty}Builder<'_, 'b>"),
                false,
            );
            o.push('\n');
        }
        o.push_str("}\n\n");
    }

    fn emit_messages(&self, o: &mut String) {
        for (m, items) in self.dict.messages().iter().zip(&self.messages) {
            let ty = type_name(&m.name);
            let cat = match m.category {
                MsgCategory::Admin => "session",
                MsgCategory::App => "application",
            };
            let _ = writeln!(
                o,
                "/// `{}` (MsgType `{}`), {cat} message: a zero-copy view of a decoded message.\n#[derive(Clone, Copy, Debug)]\npub struct {ty}<'a> {{\n    view: crate::codec::MessageView<'a>,\n    text: Option<&'a str>,\n}}\n\
                 /// Writes a [`{ty}`] (MsgType `{}`); fields are written in the order of the calls.\n///\n\
                 /// `E` is the encoder written to: owned for a whole message ([`{ty}::builder`]),\n\
                 /// borrowed for a body a session frames ([`{ty}Body`]).\n#[derive(Debug)]\npub struct {ty}Builder<'b, E = crate::codec::MessageEncoder<'b>> {{\n    enc: E,\n    _encoder: ::core::marker::PhantomData<&'b ()>,\n}}\n\
                 /// The body of a [`{ty}`] written into an encoder that a session started and\n\
                 /// finishes (see [`Message`](crate::Message)): the setters of [`{ty}Builder`].\n\
                 pub type {ty}Body<'x, 'b> = {ty}Builder<'b, &'x mut crate::codec::MessageEncoder<'b>>;\n\
                 crate::__message!({ty}, {ty}Builder, {ty}Body, {}, BEGIN_STRING);",
                m.name,
                doc_text(&m.msg_type),
                doc_text(&m.msg_type),
                byte_lit(&m.msg_type)
            );
            let _ = writeln!(o, "impl<'a> {ty}<'a> {{");
            self.emit_accessors(o, items, "pub ", true);
            let _ = writeln!(o, "}}\nimpl<'b, E: FieldEncode<'b>> {ty}Builder<'b, E> {{");
            self.emit_accessors(o, items, "pub ", false);
            o.push_str("}\n");
            self.emit_trait_impls(
                o,
                items,
                &format!("{ty}<'a>"),
                "<'b, E: FieldEncode<'b>>",
                &format!("{ty}Builder<'b, E>"),
                true,
            );
            o.push('\n');
        }
    }

    /// The typed dispatch: `MessageHandler` (one provided method per message) and `crack`.
    fn emit_cracker(&self, o: &mut String) {
        let version = self.dict.version();
        let example = self
            .dict
            .messages()
            .iter()
            .find(|m| m.msg_type == "D")
            .or_else(|| self.dict.messages().first());
        o.push_str(
            "/// Typed dispatch on MsgType, QuickFIX/J's `MessageCracker`: one method per message of\n\
             /// this version, called by [`crack`] with the zero-copy view of the message. Every\n\
             /// method has a default that returns [`UnsupportedMessageType`](crate::UnsupportedMessageType)\n\
             /// (converted into [`Error`](MessageHandler::Error)): implement those you handle.\n///\n\
             /// `C` is what the methods are given besides the message (the session's outbox, say;\n\
             /// `()` by default).\n",
        );
        if let Some(m) = example {
            let ty = type_name(&m.name);
            let method = snake(&m.name);
            let _ = write!(
                o,
                "///\n/// ```\n/// use peregrine_messages::UnsupportedMessageType;\n\
                 /// use peregrine_messages::codec::{{Decoder, DecoderConfig, EncodeBuffer}};\n\
                 /// use peregrine_messages::{module}::{{self, MessageHandler}};\n///\n\
                 /// #[derive(Default)]\n/// struct Counter {{ seen: usize }}\n\
                 /// impl MessageHandler for Counter {{\n///     type Error = UnsupportedMessageType;\n\
                 ///     fn on_{method}(&mut self, _msg: {module}::{ty}<'_>, _cx: &mut ()) -> Result<(), Self::Error> {{\n\
                 ///         self.seen += 1;\n///         Ok(())\n///     }}\n/// }}\n///\n\
                 /// let mut buf = EncodeBuffer::new();\n/// let wire = {module}::{ty}::builder(&mut buf).finish().to_vec();\n\
                 /// let mut decoder = Decoder::new(DecoderConfig::default());\n\
                 /// let msg = decoder.decode(&wire).unwrap();\n/// let mut counter = Counter::default();\n\
                 /// {module}::crack(&mut counter, &msg, &mut ()).unwrap();\n/// assert_eq!(counter.seen, 1);\n///\n\
                 /// // Anything else is unsupported:\n\
                 /// let other = {{ let mut b = buf.start({module}::BEGIN_STRING, b\"ZZ\"); b.str(58, b\"?\"); b.finish().to_vec() }};\n\
                 /// let msg = decoder.decode(&other).unwrap();\n\
                 /// assert_eq!({module}::crack(&mut counter, &msg, &mut ()), Err(UnsupportedMessageType));\n\
                 /// ```\n",
                module = module_name(&version),
            );
        }
        o.push_str(
            "///\n/// # Errors\n///\n\
             /// Every method: by default [`UnsupportedMessageType`](crate::UnsupportedMessageType)\n\
             /// converted into [`Error`](MessageHandler::Error); an implementation returns whatever\n\
             /// its handling of the message fails with, and [`crack`] passes it on.\n",
        );
        o.push_str(
            "#[doc(alias = \"MessageCracker\")]\n\
             // One `# Errors` section, in the trait's doc, for the methods (all alike).\n\
             #[allow(clippy::missing_errors_doc)]\n\
             pub trait MessageHandler<C: ?Sized = ()> {\n    \
             /// What the methods return on failure; the defaults return\n    \
             /// [`UnsupportedMessageType`](crate::UnsupportedMessageType) converted into it.\n    \
             type Error: From<crate::UnsupportedMessageType>;\n",
        );
        for m in self.dict.messages() {
            let ty = type_name(&m.name);
            let _ = writeln!(
                o,
                "    /// A [`{ty}`] (MsgType `{}`) was received.\n    #[inline]\n    fn on_{}(&mut self, msg: {ty}<'_>, cx: &mut C) -> Result<(), Self::Error> {{\n        let _ = (msg, cx);\n        Err(crate::UnsupportedMessageType.into())\n    }}",
                doc_text(&m.msg_type),
                snake(&m.name)
            );
        }
        o.push_str(
            "    /// A MsgType this version's dictionary does not define.\n    #[inline]\n    \
             fn on_unknown_msg_type(&mut self, msg: crate::codec::MessageView<'_>, cx: &mut C) -> Result<(), Self::Error> {\n        \
             let _ = (msg, cx);\n        Err(crate::UnsupportedMessageType.into())\n    }\n}\n\n",
        );
        o.push_str(
            "/// Calls the [`MessageHandler`] method of `msg`'s MsgType with the typed view of\n\
             /// `msg` (no copy, no allocation), or [`MessageHandler::on_unknown_msg_type`].\n///\n\
             /// # Errors\n///\n/// Whatever the handler's method returns.\n#[inline]\n\
             pub fn crack<C: ?Sized, H: MessageHandler<C> + ?Sized>(\n    handler: &mut H,\n    \
             msg: &crate::codec::MessageView<'_>,\n    cx: &mut C,\n) -> Result<(), H::Error> {\n    \
             use crate::TypedMessage as _;\n    let msg = *msg;\n    match msg.msg_type() {\n",
        );
        let mut seen = BTreeSet::new();
        for m in self.dict.messages() {
            if !seen.insert(m.msg_type.as_str()) {
                continue;
            }
            let ty = type_name(&m.name);
            let _ = writeln!(
                o,
                "        {} => handler.on_{}({ty}::wrap(msg), cx),",
                slice_pattern(&m.msg_type),
                snake(&m.name)
            );
        }
        o.push_str("        _ => handler.on_unknown_msg_type(msg, cx),\n    }\n}\n\n");
    }

    // -----------------------------------------------------------------------------------
    // Tests

    fn sample(&self, tag: u32) -> String {
        let t = self.rust_type(tag);
        match t.kind {
            Kind::Str => format!("\"S{tag}\""),
            Kind::Bytes => format!("&b\"D{tag}\"[..]"),
            Kind::Int | Kind::Uint => format!("{tag}"),
            Kind::Decimal => format!("Decimal::new({tag}5, 1)"),
            Kind::Char => "'C'".into(),
            Kind::Bool => "true".into(),
            Kind::Timestamp => "ts()".into(),
            Kind::Time => "tod()".into(),
            Kind::Date => "date()".into(),
            Kind::MonthYear => "month_year()".into(),
            Kind::Enum => format!("<{} as crate::FixEnum>::ALL[0]", t.read),
        }
    }

    /// Statements filling (or checking) `items` on `b` (or `v`). `path` is `Some(trait)` to
    /// call through a component trait, `None` for inherent methods.
    fn emit_fill_check(&self, o: &mut String, items: &[Item], path: Option<&str>, fill: bool) {
        for (i, it) in items.iter().enumerate() {
            match *it {
                Item::Field { tag, .. } => {
                    if is_framing(tag) || self.is_paired_length(items, i) {
                        continue;
                    }
                    let m = method_name(&self.field(tag).name);
                    let s = self.sample(tag);
                    match (fill, path) {
                        (true, Some(p)) => {
                            let _ = writeln!(o, "    components::{p}Builder::{m}(b, {s});");
                        }
                        (true, None) => {
                            let _ = writeln!(o, "    b.{m}({s});");
                        }
                        (false, Some(p)) => {
                            let _ = writeln!(
                                o,
                                "    assert_eq!(components::{p}::{m}(v), Some(Ok({s})), \"{m}\");"
                            );
                        }
                        (false, None) => {
                            let _ = writeln!(o, "    eq(v.{m}(), {s}, \"{m}\");");
                        }
                    }
                }
                Item::Comp { index } => {
                    let c = self.comp_name(index);
                    let _ = match (fill, path) {
                        (true, Some(_)) => writeln!(o, "    fill_c_{c}(b);"),
                        (true, None) => writeln!(o, "    fill_c_{c}(FieldEncode::encoder(b));"),
                        (false, Some(_)) => writeln!(o, "    check_c_{c}(v);"),
                        (false, None) => writeln!(o, "    check_c_{c}(&view);"),
                    };
                }
                Item::Group(gi) => {
                    let g = &self.groups[gi];
                    let m = method_name(&self.field(g.count_tag).name);
                    let call = match path {
                        Some(p) if fill => format!("components::{p}Builder::{m}(b, 1)"),
                        Some(p) => format!("components::{p}::{m}(v)"),
                        None if fill => format!("b.{m}(1)"),
                        None => format!("v.{m}()"),
                    };
                    if fill {
                        let _ = writeln!(o, "    fill_g_{}({call}.entry());", g.ty);
                    } else {
                        let _ = writeln!(o, "    check_g_{}(&one({call}, \"{m}\"));", g.ty);
                    }
                }
            }
        }
    }

    fn emit_tests(&self, o: &mut String) {
        o.push_str(
            "#[cfg(test)]\n#[allow(unused_imports, unused_mut, unused_variables, dead_code, non_snake_case, clippy::all)]\nmod tests {\n\
             use super::*;\nuse super::groups::*;\nuse crate::codec::value::{MonthYearQualifier, TimePrecision};\n\
             use crate::codec::{Decoder, DecoderConfig, EncodeBuffer, FieldSlice, MessageEncoder, MessageView};\nuse crate::{FixEnum, TypedMessage};\n\n\
             fn ts() -> UtcTimestamp { UtcTimestamp::from_unix_nanos(1_705_314_600_123_000_000, TimePrecision::Millis) }\n\
             fn tod() -> TimeOfDay { TimeOfDay { hour: 10, minute: 30, second: 0, nanos: 123_000_000, picos: 0, precision: TimePrecision::Millis } }\n\
             fn date() -> Date { Date { year: 2024, month: 1, day: 15 } }\n\
             fn month_year() -> MonthYear { MonthYear { year: 2024, month: 3, qualifier: MonthYearQualifier::None } }\n\
             #[inline(never)]\n#[track_caller]\nfn eq<T: PartialEq + core::fmt::Debug>(got: Option<Result<T, FieldError>>, want: T, name: &str) {\n    \
             match got {\n        Some(Ok(g)) if g == want => {}\n        other => panic!(\"{name}: read {other:?}, wrote {want:?}\"),\n    }\n}\n\
             #[track_caller]\nfn one<'a, E: crate::GroupEntry<'a>>(mut entries: Entries<'a, E>, name: &str) -> E {\n    \
             assert_eq!(entries.declared_count(), Some(Ok(1)), \"{name}: count\");\n    entries.next().unwrap_or_else(|| panic!(\"{name}: no entry\"))\n}\n\
             fn check_enum<E: FixEnum>() {\n    for (i, &v) in E::ALL.iter().enumerate() {\n        assert_eq!(E::from_bytes(v.as_bytes()), Some(v));\n        \
             assert!(E::ALL[..i].iter().all(|w| w.as_bytes() != v.as_bytes()));\n        let _ = v.description();\n    }\n    assert_eq!(E::from_bytes(b\"\\x01not a value\"), None);\n}\n\n",
        );
        // Header and trailer and components: generic over the implementing type.
        let mut comps: Vec<(String, &[Item])> = vec![
            ("StandardHeader".into(), &self.header[..]),
            ("StandardTrailer".into(), &self.trailer[..]),
        ];
        for (i, _) in self.dict.components().iter().enumerate() {
            comps.push((self.comp_name(i), &self.components[i][..]));
        }
        for (name, _) in &comps {
            let _ = writeln!(
                o,
                "impl<'b> components::{name}Builder<'b> for MessageEncoder<'b> {{}}\n\
                 impl<'a> components::{name}<'a> for MessageView<'a> {{}}\n\
                 impl<'a> components::{name}<'a> for FieldSlice<'a> {{}}"
            );
        }
        for (name, items) in comps {
            let _ = writeln!(o, "fn fill_c_{name}(b: &mut MessageEncoder<'_>) {{");
            self.emit_fill_check(o, items, Some(&name), true);
            let _ = writeln!(
                o,
                "}}\nfn check_c_{name}<'a, V: components::{name}<'a>>(v: &V) {{"
            );
            self.emit_fill_check(o, items, Some(&name), false);
            o.push_str("}\n");
        }
        for g in &self.groups {
            let ty = &g.ty;
            let _ = writeln!(o, "fn fill_g_{ty}(b: &mut {ty}Builder<'_, '_>) {{");
            self.emit_fill_check(o, &g.items, None, true);
            let _ = writeln!(
                o,
                "}}\nfn check_g_{ty}(v: &{ty}<'_>) {{\n    let view = v.fields();"
            );
            self.emit_fill_check(o, &g.items, None, false);
            o.push_str("}\n");
        }
        for (m, items) in self.dict.messages().iter().zip(&self.messages) {
            let ty = type_name(&m.name);
            let _ = writeln!(
                o,
                "#[test]\nfn round_trip_{}() {{\n    let mut buf = EncodeBuffer::new();\n    let mut builder = {ty}::builder(&mut buf);\n    let b = &mut builder;\n    fill_c_StandardHeader(FieldEncode::encoder(b));",
                snake(&m.name)
            );
            self.emit_fill_check(o, items, None, true);
            let _ = writeln!(
                o,
                "    fill_c_StandardTrailer(FieldEncode::encoder(b));\n    let wire = builder.finish().to_vec();\n    let mut decoder = Decoder::new(DecoderConfig::default());\n    \
                 let view = decoder.decode(&wire).expect(\"the message decodes\");\n    let v = &{ty}::from_view(view).expect(\"MsgType\");\n    check_c_StandardHeader(&view);"
            );
            self.emit_fill_check(o, items, None, false);
            o.push_str("    check_c_StandardTrailer(&view);\n}\n");
        }
        o.push_str("#[test]\nfn enums_round_trip() {\n");
        for &tag in &self.enums {
            let _ = writeln!(
                o,
                "    check_enum::<enums::{}>();",
                type_name(&self.field(tag).name)
            );
        }
        o.push_str("}\n}\n");
    }
}

/// The `peregrine_messages` module of a dictionary version (`FIX.4.4` → `fix44`,
/// `FIX.5.0SP2` → `fix50sp2`, `FIXT.1.1` → `fixt11`).
fn module_name(version: &str) -> String {
    version
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

fn enum_kind(t: &FixType) -> bool {
    !t.is_multiple_value() && !matches!(t, FixType::Boolean)
}

fn collect_tags(src: &Dictionary, members: &[Member], out: &mut BTreeSet<u32>) {
    for m in members {
        match m {
            Member::Field(f) => {
                out.insert(f.tag);
            }
            Member::Component(c) => collect_tags(src, &src.components()[c.index].members, out),
            Member::Group(g) => {
                out.insert(g.count_tag);
                collect_tags(src, &g.members, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake("NoPartyIDs"), "no_party_ids");
        assert_eq!(snake("MDReqID"), "md_req_id");
        assert_eq!(snake("ClOrdID"), "cl_ord_id");
        assert_eq!(snake("NoMDEntryTypes"), "no_md_entry_types");
        assert_eq!(snake("SecurityIDSource"), "security_id_source");
        assert_eq!(snake("NoIOIQualifiers"), "no_ioi_qualifiers");
        assert_eq!(method_name("Yield"), "yield_");
        assert_eq!(const_name("ClOrdID"), "CL_ORD_ID");
        assert_eq!(variant_name("PARTIALLY_FILLED", "1"), "PartiallyFilled");
        assert_eq!(variant_name("", "1"), "V1");
        assert_eq!(variant_name("1_DAY", "1"), "V1Day");
        assert_eq!(byte_lit("a\"b"), "b\"a\\\"b\"");
    }

    fn dict(name: &str) -> Dictionary {
        Dictionary::from_file(format!("dictionaries/{name}.xml")).unwrap()
    }

    #[test]
    fn variants_are_named_after_the_specification() {
        let (fix44, sp2, fix43, fix42) = (
            dict("FIX44"),
            dict("FIX50SP2"),
            dict("FIX43"),
            dict("FIX42"),
        );
        let refs = [&sp2, &fix43, &fix42];
        let namer = Namer::new(&fix44, None, &refs);
        for (field, value, quickfix, want) in [
            // Abbreviations of FIX 5.0 SP2's names.
            ("OrdStatus", "1", "PARTIAL", "PartiallyFilled"),
            ("OrdStatus", "3", "DONE", "DoneForDay"),
            ("OrdStatus", "A", "PENDINGNEW", "PendingNew"),
            ("OrdRejReason", "1", "UNKNOWNSYM", "UnknownSymbol"),
            ("OrdRejReason", "10", "INVINVID", "InvalidInvestorId"),
            ("PartyRole", "1", "EXECUTINGFIRM", "ExecutingFirm"),
            // FIX 5.0 SP2 says BROKER; 4.2's BROKER_OPTION is the one abbreviated.
            ("OrdRejReason", "0", "BROKEROPT", "BrokerOption"),
            // A reference with a qualifier after it.
            ("Side", "F", "LENDFINANCING", "Lend"),
            ("OrdRejReason", "15", "UNKNOWNACCOUNTS", "UnknownAccount"),
            // The table: a misspelling, abbreviations with no counterpart.
            ("OrdRejReason", "12", "SURVEILLENCE", "SurveillanceOption"),
            ("ExecType", "6", "PENDINGCXL", "PendingCancel"),
            ("CxlRejResponseTo", "1", "ORDCXLREQ", "OrderCancelRequest"),
            (
                "BusinessRejectReason",
                "3",
                "UNKNMSGTYPE",
                "UnsupportedMessageType",
            ),
            ("SettlType", "8", "T5", "SellersOption"),
            // Descriptions with separators are CamelCased as they are.
            ("OrdStatus", "6", "PENDING_CANCEL", "PendingCancel"),
            ("OrdType", "2", "LIMIT", "Limit"),
        ] {
            assert_eq!(
                namer.variant(field, value, quickfix),
                want,
                "{field} {value}"
            );
        }
        // The other dictionaries' names are CamelCased, misspellings corrected.
        let plain = Namer::new(&fix42, None, &[]);
        assert_eq!(
            plain.variant("OrdStatus", "1", "PARTIALLY_FILLED"),
            "PartiallyFilled"
        );
        assert_eq!(
            plain.variant("OrdRejReason", "12", "SURVEILLENCE_OPTION"),
            "SurveillanceOption"
        );
        // The table applies to its value only.
        assert_eq!(
            plain.variant("OrdRejReason", "13", "SURVEILLENCE_OPTION"),
            "SurveillenceOption"
        );
        assert_eq!(namer.split("UNKNOWNACCOUNTS"), "UNKNOWN_ACCOUNTS");
        assert_eq!(namer.split("CXLSYM"), "CXL_SYM");
        assert!(abbreviates("UNKNOWNSYM", "UNKNOWNSYMBOL"));
        assert!(!abbreviates("PENDINGCXL", "PENDINGCANCEL"));
        assert_eq!(
            doc_alias("PARTIAL", "PartiallyFilled").as_deref(),
            Some("PARTIAL")
        );
        assert_eq!(doc_alias("NEW", "New"), None);
        assert_eq!(doc_alias("Buy side", "BuySide"), None);

        let code = generate(
            &fix44,
            &Options {
                names_from: &refs,
                tests: false,
                ..Options::default()
            },
        );
        assert!(code.contains("#[doc(alias = \"PARTIAL\")]\n        PartiallyFilled,"));
        assert!(!code.contains("Unknownsym"));
        assert!(code.contains("fn on_new_order_single(&mut self, msg: NewOrderSingle<'_>"));
        assert!(
            code.contains("[b'D'] => handler.on_new_order_single(NewOrderSingle::wrap(msg), cx),")
        );
    }
}

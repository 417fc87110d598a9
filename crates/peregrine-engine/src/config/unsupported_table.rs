//! docs/settings.md's table of the QuickFIX keys Peregrine does not implement,
//! rendered from [`UNSUPPORTED_KEYS`].

use std::fmt::Write as _;

use super::{Effect, KeyOrigin, UnsupportedKey, UNSUPPORTED_KEYS};

/// The Markdown table of [`UNSUPPORTED_KEYS`]: one row per run of keys with
/// the same effect and note (keys, the engines they come from, error or
/// warning, what Peregrine does instead). docs/settings.md shows it (a test
/// fails when the two differ; `PEREGRINE_BLESS=1 cargo test -p
/// peregrine-engine --test it settings_table` writes it there).
///
/// ```
/// let table = peregrine_engine::config::unsupported_table();
/// assert!(table.contains("`ResetOnError` (`ResetOnError=N` accepted) | J | **error** |"));
/// ```
pub fn unsupported_table() -> String {
    let mut out = String::from(
        "| keys | from QuickFIX/J, C++ | when set | what Peregrine does instead |\n\
         | --- | --- | --- | --- |\n",
    );
    let mut rest = UNSUPPORTED_KEYS;
    while let Some(first) = rest.first() {
        let n = rest
            .iter()
            .take_while(|k| k.note == first.note && k.effect == first.effect)
            .count();
        let (group, tail) = rest.split_at(n);
        rest = tail;
        let keys: Vec<String> = group.iter().map(key_cell).collect();
        let from = |o: KeyOrigin| {
            group
                .iter()
                .any(|k| k.origin == o || k.origin == KeyOrigin::Both)
        };
        let origin = match (from(KeyOrigin::QuickFixJ), from(KeyOrigin::QuickFixCpp)) {
            (true, true) => "J, C++",
            (true, false) => "J",
            _ => "C++",
        };
        let effect = match first.effect {
            Effect::SecurityOrDelivery => "**error**",
            Effect::CosmeticOrPerformance => "warning",
        };
        let _ = writeln!(
            out,
            "| {} | {origin} | {effect} | {} |",
            keys.join(", "),
            first.note
        );
    }
    out
}

/// `` `Key` ``, `` `Key<n>` `` for a numbered one, and the values accepted.
fn key_cell(k: &UnsupportedKey) -> String {
    let mut cell = format!("`{}{}`", k.key, if k.numbered { "<n>" } else { "" });
    if !k.same_as_peregrine.is_empty() {
        let values: Vec<String> = k
            .same_as_peregrine
            .iter()
            .map(|v| format!("`{}={v}`", k.key))
            .collect();
        cell.push_str(&format!(" ({} accepted)", values.join(" or ")));
    }
    cell
}

//! The engine README's settings table, rendered from the catalog.

use std::fmt::Write as _;

use super::{Key, KeySource, KeySuffix, CATALOG};

/// The Markdown table of every key (key, default, meaning), in
/// [`CATALOG`]'s order: what the engine README's "Settings" section shows
/// (a test fails when the two differ; `PEREGRINE_BLESS=1 cargo test -p
/// peregrine-engine --test it settings_table` writes it there).
///
/// ```
/// let table = peregrine_engine::config::settings_table();
/// assert!(table.starts_with("| key | default | meaning |\n"));
/// assert!(table.contains("\n| `HeartBtInt` | 30 | "));
/// assert!(table.contains("\n| `SocketAcceptHost` (QuickFIX/Go) | 0.0.0.0 | "));
/// ```
pub fn settings_table() -> String {
    let mut out = String::from("| key | default | meaning |\n| --- | --- | --- |\n");
    for key in CATALOG {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            key_cell(key),
            key.default,
            key.doc_text()
        );
    }
    out
}

/// `` `Name` ``, its other forms, and where it comes from unless it is
/// QuickFIX's common key.
fn key_cell(key: &Key) -> String {
    let mut cell = format!("`{}`", key.name);
    match key.suffix {
        KeySuffix::None => {}
        KeySuffix::Number => cell.push_str(&format!(", `{}<n>`", key.name)),
        KeySuffix::Version => cell.push_str(&format!(", `{}.<version>`", key.name)),
    }
    if key.sources != [KeySource::QuickFix] {
        let sources: Vec<String> = key.sources.iter().map(ToString::to_string).collect();
        cell.push_str(&format!(" ({})", sources.join(", ")));
    }
    cell
}

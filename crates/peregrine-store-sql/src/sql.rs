//! The statements, built once per store from the checked table names.

use crate::key::SqlStoreConfig;

/// The key columns, in QuickFIX/J's order.
pub(crate) const KEY_COLUMNS: &str = "beginstring, sendercompid, sendersubid, senderlocid, \
     targetcompid, targetsubid, targetlocid, session_qualifier";

/// `beginstring = $1 AND ... session_qualifier = $8` in the placeholder
/// style `p` makes from a 1-based index.
pub(crate) fn key_where(p: fn(usize) -> String) -> String {
    KEY_COLUMNS
        .split(", ")
        .enumerate()
        .map(|(i, c)| format!("{c} = {}", p(i + 1)))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// `$1, ..., $8`.
pub(crate) fn key_values(p: fn(usize) -> String) -> String {
    (1..=8).map(p).collect::<Vec<_>>().join(", ")
}

/// The migration for the configured table names.
pub(crate) fn migration(template: &str, config: &SqlStoreConfig) -> String {
    template
        .replace("{sessions}", config.sessions_table.as_str())
        .replace("{messages}", config.messages_table.as_str())
}

/// PostgreSQL's and SQLite's numbered placeholders (`$1`; SQLite takes
/// `?1`, and `$1` too, as a named one: use its own).
pub(crate) fn dollar(i: usize) -> String {
    format!("${i}")
}

pub(crate) fn question(i: usize) -> String {
    format!("?{i}")
}

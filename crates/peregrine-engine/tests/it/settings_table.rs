//! The generated tables: the engine README's settings table is the one
//! `config::settings_table()` renders from the key catalog, and
//! docs/settings.md's table of QuickFIX keys Peregrine does not implement is
//! `config::unsupported_table()`'s. When one differs its test fails; run
//! `PEREGRINE_BLESS=1 cargo test -p peregrine-engine --test it settings_table`
//! to write the rendered tables into the files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file's text with its table (the `|` or `- ` lines after the line holding `marker`)
/// replaced by `table`, and the table it had.
fn with_table(readme: &str, marker: &str, table: &str) -> (String, String) {
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("no line with {marker:?}"));
    let start = start + readme[start..].find('\n').expect("a line after the marker") + 1;
    let len: usize = readme[start..]
        .split_inclusive('\n')
        .take_while(|l| l.starts_with('|') || l.starts_with("- "))
        .map(str::len)
        .sum();
    let old = readme[start..start + len].to_string();
    let new = format!("{}{table}{}", &readme[..start], &readme[start + len..]);
    (new, old)
}

/// Fails when the table after `marker` in `path` is not `table`; writes it there
/// under `PEREGRINE_BLESS`.
fn check_or_bless(path: PathBuf, marker: &str, table: &str, renderer: &str) {
    // Two tables live in docs/settings.md: one test at a time reads and writes it.
    static FILES: Mutex<()> = Mutex::new(());
    let _one_at_a_time = FILES.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(&path).unwrap();
    let (blessed, old) = with_table(&text, marker, table);
    if std::env::var_os("PEREGRINE_BLESS").is_some() {
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    if old != table {
        let first = old
            .lines()
            .zip(table.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("file:     {a}\nrendered: {b}"))
            .unwrap_or_else(|| "the tables differ in length".into());
        panic!(
            "{}'s table is not {renderer}'s; run \
             PEREGRINE_BLESS=1 cargo test -p peregrine-engine --test it settings_table\n{first}",
            path.display()
        );
    }
}

#[test]
fn the_readme_settings_table_is_the_catalogs() {
    check_or_bless(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"),
        "<!-- settings table: generated from config::CATALOG",
        &peregrine_engine::config::settings_table(),
        "config::settings_table()",
    );
}

#[test]
fn the_unsupported_keys_table_is_unsupported_keys() {
    check_or_bless(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/settings.md"),
        "<!-- unsupported keys table: generated from config::UNSUPPORTED_KEYS",
        &peregrine_engine::config::unsupported_table(),
        "config::unsupported_table()",
    );
}

/// docs/settings.md's list of the keys by where they come from.
fn key_list() -> String {
    use peregrine_engine::config::{KeySource, CATALOG};
    let mut out = String::new();
    for (source, title) in [
        (
            KeySource::QuickFix,
            "QuickFIX's (QuickFIX/J's or QuickFIX C++'s names, usually both)",
        ),
        (KeySource::QuickFixJ, "QuickFIX/J's"),
        (KeySource::QuickFixCpp, "QuickFIX C++'s"),
        (KeySource::QuickFixGo, "QuickFIX/Go's"),
        (KeySource::Ours, "Peregrine's own"),
    ] {
        let keys: Vec<String> = CATALOG
            .iter()
            .filter(|k| k.sources.contains(&source))
            .map(|k| format!("`{}`", k.name))
            .collect();
        out.push_str(&format!("- {title}: {}\n", keys.join(", ")));
    }
    out
}

#[test]
fn the_settings_key_list_is_the_catalogs() {
    check_or_bless(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/settings.md"),
        "<!-- key list: generated from config::CATALOG",
        &key_list(),
        "the catalog",
    );
}

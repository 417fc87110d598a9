//! The engine README's settings table is the one `config::settings_table()`
//! renders from the key catalog. When it differs the test fails; run
//! `PEREGRINE_BLESS=1 cargo test -p peregrine-engine --test settings_table`
//! to write the rendered table into the README.

use std::path::Path;

/// The line just before the table in the README.
const MARKER: &str = "<!-- settings table: generated from config::CATALOG";

/// The README's text with its table (the `|` lines after [`MARKER`]) replaced by `table`,
/// and the table it had.
fn with_table(readme: &str, table: &str) -> (String, String) {
    let start = readme
        .find(MARKER)
        .expect("the README has the settings table's marker");
    let start = start + readme[start..].find('\n').expect("a line after the marker") + 1;
    let len: usize = readme[start..]
        .split_inclusive('\n')
        .take_while(|l| l.starts_with('|'))
        .map(str::len)
        .sum();
    let old = readme[start..start + len].to_string();
    let new = format!("{}{table}{}", &readme[..start], &readme[start + len..]);
    (new, old)
}

#[test]
fn the_readme_settings_table_is_the_catalogs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let table = peregrine_engine::config::settings_table();
    let (blessed, old) = with_table(&readme, &table);
    if std::env::var_os("PEREGRINE_BLESS").is_some() {
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    if old != table {
        let first = old
            .lines()
            .zip(table.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("README:   {a}\ncatalog:  {b}"))
            .unwrap_or_else(|| "the tables differ in length".into());
        panic!(
            "crates/peregrine-engine/README.md's settings table is not config::settings_table()'s; \
             run PEREGRINE_BLESS=1 cargo test -p peregrine-engine --test settings_table\n{first}"
        );
    }
}

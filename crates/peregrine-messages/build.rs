//! Generates the typed messages of every enabled FIX version into `OUT_DIR`.
//!
//! The dictionaries are `peregrine-dict`'s built-in ones (compiled into that crate), not
//! files next to this one, so that the crate builds the same from its published package.

use peregrine_dict::codegen::{self, Options};
use peregrine_dict::{builtin, Dictionary};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const VERSIONS: &[(&str, &str, &str, bool)] = &[
    // (feature, output file, dictionary, uses the FIXT 1.1 header)
    ("fix40", "fix40.rs", "FIX40.xml", false),
    ("fix41", "fix41.rs", "FIX41.xml", false),
    ("fix42", "fix42.rs", "FIX42.xml", false),
    ("fix43", "fix43.rs", "FIX43.xml", false),
    ("fix44", "fix44.rs", "FIX44.xml", false),
    ("fixt11", "fixt11.rs", "FIXT11.xml", false),
    ("fix50", "fix50.rs", "FIX50.xml", true),
    ("fix50sp1", "fix50sp1.rs", "FIX50SP1.xml", true),
    ("fix50sp2", "fix50sp2.rs", "FIX50SP2.xml", true),
];

/// The dictionaries whose value descriptions name the enum variants of a dictionary that
/// runs words together (QuickFIX's FIX 4.4: `PARTIAL` is named `PartiallyFilled` after
/// FIX 5.0 SP2's `PARTIALLY_FILLED`), in order of preference: see
/// `peregrine_dict::codegen`, "Enum variant names".
const NAMES_FROM: &[&str] = &["FIX50SP2.xml", "FIX43.xml", "FIX42.xml"];

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PEREGRINE_NO_RUSTFMT");
    let any = VERSIONS.iter().any(|(feature, ..)| {
        std::env::var_os(format!("CARGO_FEATURE_{}", feature.to_uppercase())).is_some()
    });
    let names_from: Arc<Vec<Dictionary>> = Arc::new(if any {
        let loads: Vec<_> = NAMES_FROM
            .iter()
            .map(|&xml| std::thread::spawn(move || load(xml)))
            .collect();
        loads
            .into_iter()
            .map(|t| t.join().expect("loading a dictionary failed"))
            .collect()
    } else {
        Vec::new()
    });
    let threads: Vec<_> = VERSIONS
        .iter()
        .filter(|(feature, ..)| {
            std::env::var_os(format!("CARGO_FEATURE_{}", feature.to_uppercase())).is_some()
        })
        .map(|&(_, file, xml, transport)| {
            let target = out.join(file);
            let names_from = Arc::clone(&names_from);
            std::thread::spawn(move || {
                let dict = load(xml);
                let transport = transport.then(|| load("FIXT11.xml"));
                let names_from: Vec<&Dictionary> = names_from.iter().collect();
                generate(&dict, transport.as_ref(), &names_from, &target)
            })
        })
        .collect();
    for t in threads {
        t.join().expect("code generation failed");
    }
}

/// A built-in dictionary by its file name; a change to it rebuilds `peregrine-dict`, and so
/// reruns this script.
fn load(file: &str) -> Dictionary {
    let xml = builtin::by_file_name(file)
        .unwrap_or_else(|| panic!("{file} is not one of peregrine-dict's built-in dictionaries"));
    Dictionary::from_xml_str(file, xml).unwrap_or_else(|e| panic!("loading {file}: {e}"))
}

fn generate(
    dict: &Dictionary,
    transport: Option<&Dictionary>,
    names_from: &[&Dictionary],
    target: &Path,
) {
    let options = Options {
        transport,
        names_from,
        ..Options::default()
    };
    let code = codegen::generate(dict, &options);
    std::fs::write(target, code).unwrap_or_else(|e| panic!("writing {}: {e}", target.display()));
    if std::env::var_os("PEREGRINE_NO_RUSTFMT").is_none() {
        codegen::rustfmt(target);
    }
}

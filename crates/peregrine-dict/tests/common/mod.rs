//! Shared test helpers: build wire messages from `|`-separated text.
#![allow(dead_code)]

use peregrine_codec::{Decoder, DecoderConfig};
use peregrine_dict::{Dictionary, ValidationSettings, Validator};

/// `8=FIX.4.4|35=0|...|` → wire bytes with BodyLength and CheckSum filled in
/// (an explicit 9= or 10= is kept as written).
pub fn wire(text: &str) -> Vec<u8> {
    let text = text.replace('|', "\x01");
    let mut fields: Vec<&str> = text.split('\x01').filter(|f| !f.is_empty()).collect();
    let has_len = fields.iter().any(|f| f.starts_with("9="));
    let has_sum = fields.iter().any(|f| f.starts_with("10="));
    let mut out = Vec::new();
    let begin = fields.remove(0);
    let body: String = fields
        .iter()
        .filter(|f| !f.starts_with("9=") && !f.starts_with("10="))
        .map(|f| format!("{f}\x01"))
        .collect();
    out.extend_from_slice(begin.as_bytes());
    out.push(1);
    if has_len {
        let l = fields.iter().find(|f| f.starts_with("9=")).unwrap();
        out.extend_from_slice(l.as_bytes());
    } else {
        out.extend_from_slice(format!("9={}", body.len()).as_bytes());
    }
    out.push(1);
    out.extend_from_slice(body.as_bytes());
    if has_sum {
        let c = fields.iter().find(|f| f.starts_with("10=")).unwrap();
        out.extend_from_slice(c.as_bytes());
    } else {
        let sum = out.iter().map(|&b| b as u32).sum::<u32>() % 256;
        out.extend_from_slice(format!("10={sum:03}").as_bytes());
    }
    out.push(1);
    out
}

/// A decoder that leaves empty values to the validator.
pub fn decoder() -> Decoder {
    Decoder::new(DecoderConfig {
        reject_empty_values: false,
        ..DecoderConfig::default()
    })
}

/// The QuickFIX acceptance scripts' folders, each with its application dictionary.
pub const SCRIPT_VERSIONS: [(&str, &str); 8] = [
    ("fix40", "FIX40.xml"),
    ("fix41", "FIX41.xml"),
    ("fix42", "FIX42.xml"),
    ("fix43", "FIX43.xml"),
    ("fix44", "FIX44.xml"),
    ("fix50", "FIX50.xml"),
    ("fix50sp1", "FIX50SP1.xml"),
    ("fix50sp2", "FIX50SP2.xml"),
];

/// The validator (default settings) for the scripts' folder `dir`: FIXT (`transport`)
/// with `app` for the FIX 5.0 folders, `app` alone before.
pub fn script_validator<'d>(
    dir: &str,
    transport: &'d Dictionary,
    app: &'d Dictionary,
) -> Validator<'d> {
    if dir.starts_with("fix50") {
        Validator::fixt(transport, app, ValidationSettings::default())
    } else {
        Validator::new(app, ValidationSettings::default())
    }
}

/// The acceptance scripts' server definitions: `PEREGRINE_ACCEPTANCE_DIR`, else
/// the repository's copy (`acceptance/quickfix`).
pub fn scripts_dir() -> std::path::PathBuf {
    let dir = std::env::var("PEREGRINE_ACCEPTANCE_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("{}/../../acceptance/quickfix", env!("CARGO_MANIFEST_DIR")));
    std::path::PathBuf::from(dir).join("definitions/server")
}

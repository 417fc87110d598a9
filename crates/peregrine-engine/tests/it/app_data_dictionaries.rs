//! `AppDataDictionary.<version>` (QuickFIX/J's per-ApplVerID application
//! dictionaries of a FIXT.1.1 session): read from the settings, loaded by start-up's
//! dictionary cache, and refused with file, line and key when the version is not one.

use std::path::Path;

use peregrine_engine::builder::DictionaryCache;
use peregrine_engine::config::Settings;
use peregrine_engine::preflight;

fn dicts() -> String {
    format!(
        "{}/../peregrine-dict/dictionaries",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fixt(keys: &str) -> Result<Settings, String> {
    let text = format!(
        "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
         [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\n\
         TransportDataDictionary={d}/FIXT11.xml\n{keys}",
        d = dicts()
    );
    Settings::parse(&text, Path::new("dir/fixt.cfg")).map_err(|e| e.to_string())
}

#[test]
fn each_version_gets_the_dictionary_its_key_names() {
    let d = dicts();
    let s = fixt(&format!(
        "AppDataDictionary={d}/FIX50SP2.xml\nAppDataDictionary.FIX.4.4={d}/FIX44.xml\n\
         AppDataDictionary.FIX.4.2={d}/FIX42.xml\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let session = &s.sessions[0];
    let versions: Vec<_> = session
        .app_data_dictionaries
        .iter()
        .map(|v| (v.appl_ver_id, v.key.as_str()))
        .collect();
    assert_eq!(
        versions,
        [
            ("6", "AppDataDictionary.FIX.4.4"),
            ("4", "AppDataDictionary.FIX.4.2")
        ]
    );
    let loaded = DictionaryCache::default().load(session).unwrap().unwrap();
    let version = |appl: &[u8]| loaded.application_for(appl).map(|d| d.version());
    assert_eq!(version(b"6").as_deref(), Some("FIX.4.4"));
    assert_eq!(version(b"4").as_deref(), Some("FIX.4.2"));
    assert_eq!(version(b"9").as_deref(), Some("FIX.5.0SP2"));
    // A version without its own key: AppDataDictionary's.
    assert_eq!(version(b"7").as_deref(), Some("FIX.5.0SP2"));
    assert!(preflight::check(&s, None).is_empty());
}

#[test]
fn per_version_keys_alone_are_enough() {
    let d = dicts();
    let s = fixt(&format!("AppDataDictionary.FIX.5.0SP2={d}/FIX50SP2.xml\n")).unwrap();
    assert!(preflight::check(&s, None).is_empty());
    let loaded = DictionaryCache::default()
        .load(&s.sessions[0])
        .unwrap()
        .unwrap();
    assert_eq!(
        loaded.application_for(b"9").unwrap().version(),
        "FIX.5.0SP2"
    );
    assert!(loaded.application_for(b"6").is_none());
    // Neither kind: start-up (and check-config) names the key missing.
    let s = fixt("").unwrap();
    let e = preflight::check(&s, None);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].to_string()
            .starts_with("dir/fixt.cfg:5: AppDataDictionary: missing"),
        "{}",
        e[0]
    );
}

#[test]
fn a_version_that_is_not_one_is_refused_with_file_line_and_key() {
    for (key, shown) in [
        ("AppDataDictionary.FIX.4.5", "\"FIX.4.5\""),
        ("AppDataDictionary.9", "\"9\""),
        ("AppDataDictionary.", "\"\""),
        ("AppDataDictionary.fix.4.4", "\"fix.4.4\""),
    ] {
        let e = fixt(&format!("{key}=FIX44.xml\n")).unwrap_err();
        let want = format!("dir/fixt.cfg:9: {key}: {shown} is not a FIX version");
        assert!(e.starts_with(&want), "{e}");
    }
    // A file that cannot be read is named by its key.
    let s = fixt("AppDataDictionary.FIX.4.4=nowhere/FIX44.xml\n").unwrap();
    let e = preflight::check(&s, None);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].to_string()
            .starts_with("dir/fixt.cfg:9: AppDataDictionary.FIX.4.4: "),
        "{}",
        e[0]
    );
}

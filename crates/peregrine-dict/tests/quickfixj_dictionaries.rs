//! Every dictionary QuickFIX/J 2.3.1 ships loads: FIX40 … FIX44, FIX50, FIX50SP1,
//! FIX50SP2 and FIXT11, and the `.modified` copies of FIX44, FIX50SP1 and FIX50SP2,
//! read at test time from the quickfixj-core jar that `make deps` puts in the local
//! Maven repository (their licence does not let us copy them here without theirs).
//! Attributes QuickFIX/J's dictionaries add (`msgcat="Allocation"`, a `<fix>`
//! root's `servicepack`, …) are ignored, as QuickFIX/J ignores them.

use std::path::PathBuf;
use std::process::Command;

mod common;

use peregrine_dict::{Dictionary, LoadOptions, SessionRejectReason, ValidationSettings, Validator};

/// The dictionaries in quickfixj-core 2.3.1, with whether each is a transport one.
const SHIPPED: [(&str, bool); 12] = [
    ("FIX40.xml", false),
    ("FIX41.xml", false),
    ("FIX42.xml", false),
    ("FIX43.xml", false),
    ("FIX44.xml", false),
    ("FIX44.modified.xml", false),
    ("FIX50.xml", false),
    ("FIX50SP1.xml", false),
    ("FIX50SP1.modified.xml", false),
    ("FIX50SP2.xml", false),
    ("FIX50SP2.modified.xml", false),
    ("FIXT11.xml", true),
];

fn jar() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let jar = PathBuf::from(home)
        .join(".m2/repository/org/quickfixj/quickfixj-core/2.3.1/quickfixj-core-2.3.1.jar");
    jar.is_file().then_some(jar)
}

/// `entry` of the jar, read with `unzip -p` (or the JDK's `jar` when there is no
/// unzip).
fn read_entry(jar: &PathBuf, entry: &str) -> String {
    if let Ok(out) = Command::new("unzip").arg("-p").arg(jar).arg(entry).output() {
        assert!(
            out.status.success(),
            "unzip -p {} {entry}: {out:?}",
            jar.display()
        );
        return String::from_utf8(out.stdout).expect("UTF-8");
    }
    let dir = std::env::temp_dir().join(format!("peregrine-qfj-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let status = Command::new("jar")
        .arg("xf")
        .arg(jar)
        .arg(entry)
        .current_dir(&dir)
        .status()
        .expect("neither unzip nor jar to read the QuickFIX/J jar with");
    assert!(status.success(), "jar xf {} {entry}", jar.display());
    let text = std::fs::read_to_string(dir.join(entry)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn every_dictionary_quickfixj_ships_loads() {
    let Some(jar) = jar() else {
        eprintln!(
            "skipped: no quickfixj-core-2.3.1.jar in ~/.m2 (`make deps` installs it); \
             QuickFIX/J's dictionaries were not checked"
        );
        return;
    };
    for (name, transport) in SHIPPED {
        let text = read_entry(&jar, name);
        assert!(
            text.contains("<fix"),
            "{name}: not read from {}",
            jar.display()
        );
        let d = Dictionary::from_xml_str(name, &text)
            .unwrap_or_else(|e| panic!("QuickFIX/J's {name} does not load: {e}"));
        assert_eq!(d.is_transport(), transport, "{name}");
        if !transport {
            assert!(d.message("D").is_some(), "{name}: no NewOrderSingle");
        }
        assert!(d.field(35).is_some(), "{name}: no MsgType");
        // Strict loading refuses only what QuickFIX/J's own loader would refuse
        // too; report what it finds rather than fail on it.
        if let Err(e) = Dictionary::from_xml_str_with(name, &text, LoadOptions { strict: true }) {
            eprintln!("{name}: strict: {e}");
        }
    }
}

#[test]
fn quickfixj_fix43_and_fix44_require_symbol_inside_instrument() {
    // The difference the README warns about: QuickFIX's dictionaries leave Symbol(55)
    // optional inside Instrument; QuickFIX/J's require it.
    let Some(jar) = jar() else {
        eprintln!("skipped: no quickfixj-core-2.3.1.jar in ~/.m2 (`make deps` installs it)");
        return;
    };
    for name in ["FIX43.xml", "FIX44.xml"] {
        let text = read_entry(&jar, name);
        let instrument = text
            .split("<component name=\"Instrument\">")
            .nth(1)
            .and_then(|rest| rest.split("</component>").next())
            .unwrap_or_else(|| panic!("{name}: no Instrument component"));
        assert!(
            instrument.contains("<field name=\"Symbol\" required=\"Y\""),
            "{name}: Symbol not required in QuickFIX/J's Instrument"
        );
        Dictionary::from_xml_str(name, &text).unwrap();
    }
    // An order naming its instrument by SecurityID alone: QuickFIX's FIX44 takes it,
    // QuickFIX/J's rejects it (RequiredTagMissing, RefTagID 55).
    let qfj = Dictionary::from_xml_str("FIX44.xml", &read_entry(&jar, "FIX44.xml")).unwrap();
    let quickfix = Dictionary::from_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/dictionaries/FIX44.xml"
    ))
    .unwrap();
    let order = common::wire(
        "8=FIX.4.4|35=D|34=2|49=TW|52=20240115-10:30:00.123|56=ISLD|11=A|48=US5949181045|\
         22=4|54=1|60=20240115-10:30:00.123|38=100|40=1|",
    );
    let mut decoder = common::decoder();
    let msg = decoder.decode(&order).unwrap();
    let settings = ValidationSettings::default();
    assert_eq!(Validator::new(&quickfix, settings).validate(&msg), Ok(()));
    let e = Validator::new(&qfj, settings).validate(&msg).unwrap_err();
    assert_eq!(
        (e.reason, e.ref_tag),
        (SessionRejectReason::RequiredTagMissing, Some(55))
    );
}

#[test]
fn a_message_category_of_quickfixjs_own_is_an_application_message() {
    // QuickFIX/J's FIX50.xml has `msgcat="Allocation"`; QuickFIX/J takes only
    // `admin` as a session message. Other attributes it does not know are ignored.
    let xml = r#"<fix type="FIX" major="5" minor="0" servicepack="0">
      <header/><trailer/>
      <messages>
        <message name="AllocationInstruction" msgtype="J" msgcat="Allocation" section="PostTrade">
          <field name="AllocID" required="Y"/>
        </message>
        <message name="Heartbeat" msgtype="0" msgcat="admin"/>
      </messages>
      <components/>
      <fields>
        <field number="70" name="AllocID" type="STRING" abbr="AllocID"/>
      </fields>
    </fix>"#;
    let d = Dictionary::from_xml_str("FIX50.xml", xml).unwrap();
    let category = |t: &str| d.message(t).unwrap().category;
    assert_eq!(category("J"), peregrine_dict::MsgCategory::App);
    assert_eq!(category("0"), peregrine_dict::MsgCategory::Admin);
}

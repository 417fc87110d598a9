//! Validation: one test per reject reason, groups, settings, ordering, FIXT.

mod common;

use common::{decoder, wire};
use peregrine_dict::{
    Dictionary, SessionRejectReason as R, ValidationError, ValidationSettings, Validator,
};
use std::sync::OnceLock;

fn fix44() -> &'static Dictionary {
    static D: OnceLock<Dictionary> = OnceLock::new();
    D.get_or_init(|| Dictionary::from_file("dictionaries/FIX44.xml").unwrap())
}
fn fix42() -> &'static Dictionary {
    static D: OnceLock<Dictionary> = OnceLock::new();
    D.get_or_init(|| Dictionary::from_file("dictionaries/FIX42.xml").unwrap())
}
fn fixt() -> &'static (Dictionary, Dictionary) {
    static D: OnceLock<(Dictionary, Dictionary)> = OnceLock::new();
    D.get_or_init(|| {
        (
            Dictionary::from_file("dictionaries/FIXT11.xml").unwrap(),
            Dictionary::from_file("dictionaries/FIX50SP2.xml").unwrap(),
        )
    })
}

const T: &str = "20240115-10:30:00.123";

fn check_with(v: &Validator<'_>, text: &str) -> Result<(), ValidationError> {
    let text = text.replace("<TIME>", T);
    let bytes = wire(&text);
    let mut d = decoder();
    let msg = d.decode(&bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
    v.validate(&msg)
}

fn check(text: &str) -> Result<(), ValidationError> {
    check_with(
        &Validator::new(fix44(), ValidationSettings::default()),
        text,
    )
}

fn check_s(settings: ValidationSettings, text: &str) -> Result<(), ValidationError> {
    check_with(&Validator::new(fix44(), settings), text)
}

#[track_caller]
fn expect(r: Result<(), ValidationError>, reason: R, tag: Option<u32>, text: &str) {
    let e = r.expect_err("expected a reject");
    assert_eq!((e.reason, e.ref_tag), (reason, tag), "{e:?}");
    assert_eq!(e.text(), text);
}

const HDR: &str = "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|";

#[test]
fn valid_messages_pass() {
    assert_eq!(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|"),
        Ok(())
    );
    assert_eq!(
        check(&format!("{HDR}11=id|21=3|40=1|54=1|55=MSFT|60=<TIME>|")),
        Ok(())
    );
    // Execution report of the benchmark.
    assert_eq!(
        check("8=FIX.4.4|35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|"),
        Ok(())
    );
    // Header and body in another order (script 15).
    assert_eq!(
        check(
            "8=FIX.4.4|35=D|49=TW|34=3|56=ISLD|52=<TIME>|40=1|55=MSFT|60=<TIME>|54=1|21=3|11=id|"
        ),
        Ok(())
    );
}

#[test]
fn reason_0_invalid_tag_number() {
    for tag in [999u32, 5000] {
        let r = check(&format!(
            "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|{tag}=HI|"
        ));
        expect(r, R::InvalidTagNumber, Some(tag), "Invalid tag number");
    }
}

#[test]
fn reason_1_required_tag_missing() {
    expect(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|"),
        R::RequiredTagMissing,
        Some(56),
        "Required tag missing",
    );
    expect(
        check("8=FIX.4.4|35=D|49=TW|34=3|56=ISLD|52=<TIME>|40=1|60=<TIME>|54=1|21=3|"),
        R::RequiredTagMissing,
        Some(11),
        "Required tag missing",
    );
    // Lowest missing tag first; header before body.
    expect(
        check("8=FIX.4.4|35=D|34=3|52=<TIME>|56=ISLD|40=1|"),
        R::RequiredTagMissing,
        Some(49),
        "Required tag missing",
    );
}

#[test]
fn reason_2_tag_not_defined_for_message_type() {
    expect(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|55=MSFT|"),
        R::TagNotDefinedForThisMessageType,
        Some(55),
        "Tag not defined for this message type",
    );
}

#[test]
fn reason_4_tag_without_value() {
    expect(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=|"),
        R::TagSpecifiedWithoutAValue,
        Some(56),
        "Tag specified without a value",
    );
}

#[test]
fn reason_5_value_incorrect() {
    let t = "Value is incorrect (out of range) for this tag";
    expect(
        check(&format!(
            "{HDR}11=ID|21=4|40=1|54=1|38=002000.00|55=INTC|60=<TIME>|"
        )),
        R::ValueIsIncorrect,
        Some(21),
        t,
    );
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|38=2000|55=INTC|60=<TIME>|167=BOO|"
        )),
        R::ValueIsIncorrect,
        Some(167),
        t,
    );
    assert_eq!(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|38=2000|55=INTC|60=<TIME>|167=CS|"
        )),
        Ok(())
    );
    // MULTIPLEVALUESTRING: every token must be valid (ExecInst 18).
    assert_eq!(
        check(&format!(
            "{HDR}11=ID|18=1 2|21=1|40=1|54=1|55=INTC|60=<TIME>|"
        )),
        Ok(())
    );
    expect(
        check(&format!(
            "{HDR}11=ID|18=1 %|21=1|40=1|54=1|55=INTC|60=<TIME>|"
        )),
        R::ValueIsIncorrect,
        Some(18),
        t,
    );
}

#[test]
fn reason_6_incorrect_data_format() {
    let t = "Incorrect data format for value";
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|38=+200.00|55=INTC|60=<TIME>|"
        )),
        R::IncorrectDataFormatForValue,
        Some(38),
        t,
    );
    expect(
        check(&format!("{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=20240115|")),
        R::IncorrectDataFormatForValue,
        Some(60),
        t,
    );
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|126=20040415|"
        )),
        R::IncorrectDataFormatForValue,
        Some(126),
        t,
    );
    expect(
        check("8=FIX.4.4|35=0|34=x|49=TW|52=<TIME>|56=ISLD|"),
        R::IncorrectDataFormatForValue,
        Some(34),
        t,
    );
    expect(
        check("8=FIX.4.4|35=0|34=2|43=X|49=TW|52=<TIME>|56=ISLD|"),
        R::IncorrectDataFormatForValue,
        Some(43),
        t,
    );
    // CHAR must be one character from FIX.4.2 on.
    expect(
        check(&format!("{HDR}11=ID|21=11|40=1|54=1|55=INTC|60=<TIME>|")),
        R::IncorrectDataFormatForValue,
        Some(21),
        t,
    );
}

#[test]
fn reason_11_invalid_msg_type() {
    expect(
        check("8=FIX.4.4|35=*|34=2|49=TW|52=<TIME>|56=ISLD|"),
        R::InvalidMsgType,
        None,
        "Invalid MsgType",
    );
    // Structure problems are reported before the MsgType, as in QuickFIX.
    expect(
        check("8=FIX.4.4|35=*|112=x|34=2|49=TW|52=<TIME>|56=ISLD|"),
        R::TagSpecifiedOutOfRequiredOrder,
        Some(34),
        "Tag specified out of required order",
    );
}

#[test]
fn reason_13_tag_appears_more_than_once() {
    let t = "Tag appears more than once";
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|40=2|54=1|38=200.00|55=INTC|60=<TIME>|"
        )),
        R::TagAppearsMoreThanOnce,
        Some(40),
        t,
    );
    expect(
        check("8=FIX.4.4|35=0|34=2|49=TW|49=TW|52=<TIME>|56=ISLD|"),
        R::TagAppearsMoreThanOnce,
        Some(49),
        t,
    );
    // Inside one group entry.
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=1|448=A|447=D|447=D|"
        )),
        R::TagAppearsMoreThanOnce,
        Some(447),
        t,
    );
}

#[test]
fn reason_14_out_of_required_order() {
    let t = "Tag specified out of required order";
    expect(
        check(
            "8=FIX.4.4|35=D|11=id|21=3|40=1|54=1|55=MSFT|60=<TIME>|34=2|49=TW|52=<TIME>|56=ISLD|",
        ),
        R::TagSpecifiedOutOfRequiredOrder,
        Some(34),
        t,
    );
    expect(
        check(
            "8=FIX.4.4|35=D|55=MSFT|34=3|49=TW|52=<TIME>|56=ISLD|11=id|21=3|40=1|54=1|60=<TIME>|",
        ),
        R::TagSpecifiedOutOfRequiredOrder,
        Some(34),
        t,
    );
    // A trailer field before the end.
    expect(
        check(&format!("{HDR}11=id|93=2|89=ab|40=1|54=1|60=<TIME>|")),
        R::TagSpecifiedOutOfRequiredOrder,
        Some(40),
        t,
    );
}

#[test]
fn reason_15_group_fields_out_of_order() {
    let t = "Repeating group fields out of order";
    // The first field of an entry must be the delimiter.
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=1|447=D|448=A|"
        )),
        R::RepeatingGroupFieldsOutOfOrder,
        Some(447),
        t,
    );
    // Members out of dictionary order (PartyRole 452 before PartyIDSource 447).
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=1|448=A|452=1|447=D|"
        )),
        R::RepeatingGroupFieldsOutOfOrder,
        Some(447),
        t,
    );
}

#[test]
fn reason_16_numingroup_count() {
    let t = "Incorrect NumInGroup count for repeating group";
    expect(
        check(&format!("{HDR}11=ID|21=1|40=1|54=1|38=200.00|55=INTC|386=3|336=PRE-OPEN|336=AFTER-HOURS|60=<TIME>|")),
        R::IncorrectNumInGroupCount,
        Some(386),
        t,
    );
    expect(
        check(&format!(
            "{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|386=1|336=A|336=B|"
        )),
        R::IncorrectNumInGroupCount,
        Some(386),
        t,
    );
    // Count zero with no entries is fine (script 21).
    assert_eq!(
        check("8=FIX.4.4|35=d|34=2|49=TW|56=ISLD|52=<TIME>|320=JCD1091-20021011|322=1034356488676|323=6|55=TBS|22=8|167=CS|336=ONE_MAIN|58=No Products found for this Class Symbol|454=0|"),
        Ok(())
    );
}

#[test]
fn nested_groups() {
    let ok = format!("{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=2|448=A|447=D|452=1|802=2|523=x|803=1|523=y|803=2|448=B|447=D|452=3|");
    assert_eq!(check(&ok), Ok(()));
    // Nested count wrong.
    let bad = ok.replace("802=2", "802=3");
    expect(
        check(&bad),
        R::IncorrectNumInGroupCount,
        Some(802),
        "Incorrect NumInGroup count for repeating group",
    );
    // Outer count wrong.
    let bad = ok.replace("453=2", "453=1");
    expect(
        check(&bad),
        R::IncorrectNumInGroupCount,
        Some(453),
        "Incorrect NumInGroup count for repeating group",
    );
    // Bad value inside a nested group.
    let bad = ok.replace("803=2", "803=x");
    expect(
        check(&bad),
        R::IncorrectDataFormatForValue,
        Some(803),
        "Incorrect data format for value",
    );
    // After the group, body fields continue.
    assert_eq!(
        check(&format!(
            "{HDR}11=ID|453=1|448=A|447=D|452=1|21=1|40=1|54=1|55=INTC|60=<TIME>|"
        )),
        Ok(())
    );
}

#[test]
fn group_required_member_missing() {
    // NoLegs (555) entries in a multileg order: LegSymbol (600) delimiter; in FIX44 MultilegOrder
    // (AB) requires... use NoRelatedSym in QuoteRequest (R): Symbol (55) delimiter, required.
    let r = check("8=FIX.4.4|35=R|34=2|49=TW|52=<TIME>|56=ISLD|131=q1|146=1|55=X|555=1|600=L|");
    assert_eq!(r, Ok(()));
}

#[test]
fn priority_structure_then_required_then_fields() {
    // Missing 11 and a bad enum: required wins.
    expect(
        check(&format!("{HDR}21=9|40=1|54=1|60=<TIME>|")),
        R::RequiredTagMissing,
        Some(11),
        "Required tag missing",
    );
    // Duplicate and a bad enum: the duplicate (structure) wins.
    expect(
        check(&format!("{HDR}11=a|21=9|40=1|54=1|54=1|60=<TIME>|")),
        R::TagAppearsMoreThanOnce,
        Some(54),
        "Tag appears more than once",
    );
    // Two field errors in the body: lowest tag first (QuickFIX walks tag-sorted maps).
    expect(
        check(&format!("{HDR}11=a|54=9|21=9|40=1|60=<TIME>|")),
        R::ValueIsIncorrect,
        Some(21),
        "Value is incorrect (out of range) for this tag",
    );
    // A header field error beats a body one.
    expect(
        check("8=FIX.4.4|35=D|34=2|43=Q|49=TW|52=<TIME>|56=ISLD|11=a|21=9|40=1|54=1|60=<TIME>|"),
        R::IncorrectDataFormatForValue,
        Some(43),
        "Incorrect data format for value",
    );
}

#[test]
fn settings_toggles() {
    let d = ValidationSettings::default;
    // ValidateFieldsOutOfOrder=N
    let s = ValidationSettings {
        validate_fields_out_of_order: false,
        ..d()
    };
    assert_eq!(
        check_s(
            s,
            "8=FIX.4.4|35=D|11=id|21=3|40=1|54=1|55=MSFT|60=<TIME>|34=2|49=TW|52=<TIME>|56=ISLD|"
        ),
        Ok(())
    );
    // ValidateFieldsHaveValues=N
    let s = ValidationSettings {
        validate_fields_have_values: false,
        ..d()
    };
    assert_eq!(
        check_s(s, &format!("{HDR}11=ID|21=1|40=1|54=1|55=|60=<TIME>|")),
        Ok(())
    );
    // ValidateUserDefinedFields=N
    let s = ValidationSettings {
        validate_user_defined_fields: false,
        ..d()
    };
    assert_eq!(
        check_s(s, "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|5000=HI|"),
        Ok(())
    );
    expect(
        check_s(s, "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|999=HI|"),
        R::InvalidTagNumber,
        Some(999),
        "Invalid tag number",
    );
    // AllowUnknownMsgFields=Y
    let s = ValidationSettings {
        allow_unknown_msg_fields: true,
        ..d()
    };
    assert_eq!(
        check_s(
            s,
            "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|55=MSFT|999=x|"
        ),
        Ok(())
    );
    expect(
        check_s(s, "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|5001=x|"),
        R::InvalidTagNumber,
        Some(5001),
        "Invalid tag number",
    );
    // ValidateUnorderedGroupFields=N
    let s = ValidationSettings {
        validate_unordered_group_fields: false,
        ..d()
    };
    assert_eq!(
        check_s(
            s,
            &format!("{HDR}11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=1|448=A|452=1|447=D|")
        ),
        Ok(())
    );
}

#[test]
fn fix42_reject_fields() {
    let v = Validator::new(fix42(), ValidationSettings::default());
    let e = check_with(&v, "8=FIX.4.2|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|21=1|40=1|40=2|54=1|38=200|55=INTC|60=<TIME>|").unwrap_err();
    assert_eq!((e.reason, e.ref_tag), (R::TagAppearsMoreThanOnce, Some(40)));
    assert_eq!(
        (e.ref_tag_field("FIX.4.2"), e.reason_field("FIX.4.2")),
        (Some(40), None)
    );
    let e = check_with(
        &v,
        "8=FIX.4.2|35=D|49=TW|34=3|56=ISLD|52=<TIME>|40=1|60=<TIME>|54=1|21=3|11=id|",
    )
    .unwrap_err();
    assert_eq!(
        (e.reason, e.ref_tag, e.reason_field("FIX.4.2")),
        (R::RequiredTagMissing, Some(55), Some(1))
    );
    assert_eq!(
        e.reject_text("FIX.4.0").to_string(),
        "Required tag missing (55)"
    );
}

#[test]
fn fixt11_with_fix50sp2() {
    let (t, app) = fixt();
    let v = Validator::fixt(t, app, ValidationSettings::default());
    // Admin message from the transport dictionary.
    assert_eq!(
        check_with(
            &v,
            "8=FIXT.1.1|35=A|34=1|49=TW|52=<TIME>|56=ISLD|98=0|108=30|1137=9|"
        ),
        Ok(())
    );
    // Application message from FIX50SP2, with a FIXT header field.
    assert_eq!(check_with(&v, "8=FIXT.1.1|35=D|34=2|49=TW|52=<TIME>|56=ISLD|1128=9|11=id|40=1|54=1|55=MSFT|60=<TIME>|"), Ok(()));
    expect(
        check_with(
            &v,
            "8=FIXT.1.1|35=D|34=2|49=TW|52=<TIME>|56=ISLD|40=1|54=1|55=MSFT|60=<TIME>|",
        ),
        R::RequiredTagMissing,
        Some(11),
        "Required tag missing",
    );
    // Admin messages are checked against FIXT11 alone (as QuickFIX does): 58 is defined
    // there, 55 is not.
    expect(
        check_with(&v, "8=FIXT.1.1|35=0|34=2|49=TW|52=<TIME>|56=ISLD|58=Text|"),
        R::TagNotDefinedForThisMessageType,
        Some(58),
        "Tag not defined for this message type",
    );
    expect(
        check_with(&v, "8=FIXT.1.1|35=0|34=2|49=TW|52=<TIME>|56=ISLD|55=MSFT|"),
        R::InvalidTagNumber,
        Some(55),
        "Invalid tag number",
    );
    expect(
        check_with(&v, "8=FIXT.1.1|35=*|34=2|49=TW|52=<TIME>|56=ISLD|"),
        R::InvalidMsgType,
        None,
        "Invalid MsgType",
    );
    expect(check_with(&v, "8=FIXT.1.1|35=D|34=2|49=TW|52=<TIME>|56=ISLD|1128=Z|11=id|40=1|54=1|55=MSFT|60=<TIME>|"), R::ValueIsIncorrect, Some(1128), "Value is incorrect (out of range) for this tag");
    // Groups nested three deep in FIX50SP2 (Parties → PtysSubGrp).
    assert_eq!(
        check_with(&v, "8=FIXT.1.1|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=id|453=1|448=A|447=D|452=1|802=1|523=s|803=1|40=1|54=1|55=MSFT|60=<TIME>|"),
        Ok(())
    );
}

#[test]
fn header_hops_group() {
    assert_eq!(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|627=2|628=A|629=<TIME>|628=B|"),
        Ok(())
    );
    expect(
        check("8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|627=3|628=A|628=B|"),
        R::IncorrectNumInGroupCount,
        Some(627),
        "Incorrect NumInGroup count for repeating group",
    );
}

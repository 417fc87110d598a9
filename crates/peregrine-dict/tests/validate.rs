//! Validation: one test per reject reason, groups, settings, ordering, FIXT.

mod common;

use common::{decoder, script_validator, wire, SCRIPT_VERSIONS};
use peregrine_dict::{
    Dictionary, SessionRejectReason as R, ShapeCache, ValidationError, ValidationSettings,
    Validator,
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
    // ListStatus (N): NoOrders (73) entries require ClOrdID, CumQty, OrdStatus, LeavesQty,
    // CxlQty and AvgPx.
    let head = "8=FIX.4.4|35=N|34=2|49=TW|52=<TIME>|56=ISLD|66=L1|429=1|82=2|431=1|83=1|68=2|73=2|";
    let first = "11=A|14=0|39=0|151=5|84=0|6=0|";
    let second = "11=B|14=1|39=1|151=4|84=0|6=1.5|";
    assert_eq!(check(&format!("{head}{first}{second}")), Ok(()));
    // CumQty (14) missing from the second entry: the member is reported.
    expect(
        check(&format!("{head}{first}{}", second.replace("14=1|", ""))),
        R::RequiredTagMissing,
        Some(14),
        "Required tag missing",
    );
    // AvgPx (6) missing from the first entry (it ends where the next entry starts).
    expect(
        check(&format!("{head}{}{second}", first.replace("6=0|", ""))),
        R::RequiredTagMissing,
        Some(6),
        "Required tag missing",
    );
    // A group that is present with a required delimiter: NoRelatedSym (146) in QuoteRequest,
    // with a nested NoLegs (555) entry.
    assert_eq!(
        check("8=FIX.4.4|35=R|34=2|49=TW|52=<TIME>|56=ISLD|131=q1|146=1|55=X|555=1|600=L|"),
        Ok(())
    );
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

#[test]
fn reason_3_undefined_tag_is_sent_as_invalid_tag_number() {
    // QuickFIX never sends 373=3: a tag the dictionary does not define at all is reported
    // as "Invalid tag number" (0), which is what script 14a expects for 999 and 5000 (and
    // for 0 and -1, which the codec already refuses as garbled). Wherever an undefined tag
    // appears (among the body fields, after them, in a group entry, under FIXT), the reason is 0
    // with the tag as RefTagID, never 3.
    assert_eq!(R::UndefinedTag.code(), 3);
    assert_eq!(R::UndefinedTag.text(), "Undefined Tag");
    assert_eq!(R::from_code(3), Some(R::UndefinedTag));
    let v = Validator::new(fix44(), ValidationSettings::default());
    let placements = [
        "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|999=HI|",
        "8=FIX.4.4|35=0|34=2|49=TW|52=<TIME>|56=ISLD|112=x|999=HI|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|999=HI|21=1|40=1|54=1|55=INTC|60=<TIME>|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|453=1|448=A|999=HI|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|21=1|40=1|54=1|55=INTC|60=<TIME>|20000=HI|",
    ];
    for text in placements {
        let e = check_with(&v, text).expect_err(text);
        let want = if text.contains("20000=") { 20000 } else { 999 };
        assert_eq!(
            (e.reason, e.ref_tag),
            (R::InvalidTagNumber, Some(want)),
            "{text}"
        );
        assert_ne!(e.reason, R::UndefinedTag);
    }
    // Tag 0 (which the codec refuses before validation) is an invalid tag number too.
    let fields: &[(u32, &[u8])] = &[
        (8, b"FIX.4.4"),
        (35, b"0"),
        (34, b"2"),
        (49, b"TW"),
        (52, b"20240115-10:30:00"),
        (56, b"ISLD"),
        (0, b"HI"),
    ];
    let e = v.validate_fields(b"0", fields.iter().copied()).unwrap_err();
    assert_eq!((e.reason, e.ref_tag), (R::InvalidTagNumber, Some(0)));
    // FIXT: a tag defined in neither dictionary.
    let (t, app) = fixt();
    let v = Validator::fixt(t, app, ValidationSettings::default());
    let e = check_with(
        &v,
        "8=FIXT.1.1|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=id|40=1|54=1|55=MSFT|60=<TIME>|4999=x|",
    )
    .unwrap_err();
    assert_eq!((e.reason, e.ref_tag), (R::InvalidTagNumber, Some(4999)));
}

/// The acceptance scripts' directory (see [`common::scripts_dir`]), if present.
fn scripts() -> Option<std::path::PathBuf> {
    let p = common::scripts_dir();
    p.exists().then_some(p)
}

#[test]
fn unsupported_msg_type_is_not_a_validation_error() {
    // Script 2r: an ExecutionReport sent to an acceptor whose application does not handle
    // it. The MsgType is in the dictionary, so validation passes; the application says
    // "unsupported" and the session answers 35=j 380=3 (35=3 before FIX.4.2) with this text.
    let er44 = "8=FIX.4.4|35=8|34=2|49=TW|52=<TIME>|56=ISLD|37=id|17=id|150=0|39=0|55=WLRI|54=1|151=100|14=0|6=0.0|";
    assert_eq!(check(er44), Ok(()));
    // …whereas a MsgType the dictionary does not have is a session Reject (2q).
    expect(
        check(&er44.replace("35=8", "35=ZZ")),
        R::InvalidMsgType,
        None,
        "Invalid MsgType",
    );
    assert_eq!(
        ValidationError::UNSUPPORTED_MESSAGE_TYPE_TEXT,
        "Unsupported Message Type"
    );
    // Every version's script 2r: the message validates, the scripted answer carries the
    // constant's text, and it is a BusinessMessageReject from FIX.4.2 on.
    let Some(root) = scripts() else {
        eprintln!("acceptance scripts not found; the scripted part is skipped");
        return;
    };
    let load = |f: &str| Dictionary::from_file(format!("dictionaries/{f}")).unwrap();
    let transport = load("FIXT11.xml");
    let mut checked = 0;
    for (dir, file) in SCRIPT_VERSIONS {
        let app = load(file);
        let v = script_validator(dir, &transport, &app);
        let text = std::fs::read_to_string(root.join(dir).join("2r_UnregisteredMsgType.def"))
            .unwrap_or_else(|e| panic!("{dir}: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        let (i, sent) = lines
            .iter()
            .enumerate()
            .find(|(_, l)| l.starts_with("I8=") && l.contains("\x0135=8\x01"))
            .unwrap_or_else(|| panic!("{dir}: no ExecutionReport sent"));
        let answer = lines[i + 1..]
            .iter()
            .find(|l| l.starts_with("E8="))
            .unwrap_or_else(|| panic!("{dir}: no answer"));
        let sent = sent[1..].replace('\x01', "|").replace("<TIME>", T);
        assert_eq!(check_with(&v, &sent), Ok(()), "{dir}: {sent}");
        assert!(
            answer.contains(&format!(
                "\x0158={}\x01",
                ValidationError::UNSUPPORTED_MESSAGE_TYPE_TEXT
            )),
            "{dir}: {answer}"
        );
        let business = answer.contains("\x0135=j\x01");
        assert_eq!(
            business,
            !matches!(dir, "fix40" | "fix41"),
            "{dir}: {answer}"
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

#[test]
fn scenario_2t_first_three_fields_out_of_order_never_reach_the_validator() {
    // The codec refuses a message whose first three fields are not 8, 9, 35 (the session
    // treats it as garbled and ignores it), so the validator is never asked.
    use peregrine_codec::DecodeError;
    let mut d = decoder();
    let ok = wire(&format!("8=FIX.4.4|35=0|34=2|49=TW|52={T}|56=ISLD|"));
    assert!(d.decode(&ok).is_ok());
    // 34 second, 35 third: BodyLength and CheckSum right, the order wrong.
    let late_type = wire(&format!("8=FIX.4.4|34=3|35=0|49=TW|52={T}|56=ISLD|"));
    assert_eq!(
        d.decode(&late_type).unwrap_err(),
        DecodeError::MsgTypeNotThird
    );
    // 35 first.
    let mut first_type = b"35=0\x01".to_vec();
    first_type.extend_from_slice(&ok);
    assert_eq!(
        d.decode(&first_type).unwrap_err(),
        DecodeError::BeginStringNotFirst
    );
}

#[test]
fn check_latency_and_max_latency() {
    let now = 1_705_314_600_000_000_000i128; // 2024-01-15 10:30:00 UTC
    let hb = wire("8=FIX.4.4|35=0|34=2|49=TW|52=20240115-10:30:00.000|56=ISLD|");
    let mut d = decoder();
    let msg = d.decode(&hb).unwrap();
    let settings = ValidationSettings {
        max_latency_secs: 30,
        ..ValidationSettings::default()
    };
    let v = Validator::new(fix44(), settings);
    let sec = 1_000_000_000i128;
    // Inside the window on both sides, and exactly at its edges.
    for offset in [0, 30 * sec, -30 * sec, 29 * sec] {
        assert_eq!(v.check_latency(&msg, now + offset), Ok(()), "{offset}");
    }
    for offset in [30 * sec + 1, -30 * sec - 1, 3600 * sec] {
        let e = v.check_latency(&msg, now + offset).unwrap_err();
        assert_eq!((e.reason, e.ref_tag), (R::SendingTimeAccuracyProblem, None));
        assert_eq!(e.text(), "SendingTime accuracy problem");
    }
    // CheckLatency=N: never a latency error.
    let off = Validator::new(
        fix44(),
        ValidationSettings {
            check_latency: false,
            ..settings
        },
    );
    assert_eq!(off.check_latency(&msg, now + 3600 * sec), Ok(()));
    // The default MaxLatency is QuickFIX's 120 s.
    let dflt = Validator::new(fix44(), ValidationSettings::default());
    assert_eq!(dflt.check_latency(&msg, now + 120 * sec), Ok(()));
    assert!(dflt.check_latency(&msg, now + 121 * sec).is_err());
    // A SendingTime that does not parse is reason 6 on tag 52; a missing one reason 1.
    let bad = wire("8=FIX.4.4|35=0|34=2|49=TW|52=20240115-25:30:00|56=ISLD|");
    let e = v.check_latency(&d.decode(&bad).unwrap(), now).unwrap_err();
    assert_eq!(
        (e.reason, e.ref_tag),
        (R::IncorrectDataFormatForValue, Some(52))
    );
    let missing = wire("8=FIX.4.4|35=0|34=2|49=TW|56=ISLD|");
    let e = v
        .check_latency(&d.decode(&missing).unwrap(), now)
        .unwrap_err();
    assert_eq!((e.reason, e.ref_tag), (R::RequiredTagMissing, Some(52)));
}

#[test]
fn a_shape_cache_shared_between_validators_answers_for_each() {
    // One cache used with FIX.4.4 and FIX.4.2 validators and with other settings: a shape
    // kept for one validator must not pass a message the other rejects (HandlInst 21 is
    // required in FIX.4.2's NewOrderSingle, not in FIX.4.4's; the NewOrderSingle has the
    // same position in both dictionaries' tables or not, the cache must not care).
    let v44 = Validator::new(fix44(), ValidationSettings::default());
    let v42 = Validator::new(fix42(), ValidationSettings::default());
    let v44_unordered = Validator::new(
        fix44(),
        ValidationSettings {
            validate_fields_out_of_order: false,
            ..ValidationSettings::default()
        },
    );
    let texts = [
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|40=1|54=1|38=200|55=INTC|60=<TIME>|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|21=1|40=1|54=1|38=200|55=INTC|60=<TIME>|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|40=1|54=9|38=200|55=INTC|60=<TIME>|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|40=1|54=1|38=2x0|55=INTC|60=<TIME>|",
        "8=FIX.4.4|35=D|34=2|49=TW|52=<TIME>|56=ISLD|11=ID|40=1|54=1|38=|55=INTC|60=<TIME>|",
    ];
    let mut shapes = ShapeCache::new();
    let mut decoder = decoder();
    let mut hits_possible = 0;
    for round in 0..3 {
        for text in &texts {
            let bytes = wire(&text.replace("<TIME>", T));
            let msg = decoder.decode(&bytes).unwrap();
            for v in [&v44, &v42, &v44, &v44_unordered, &v44] {
                let want = v.validate(&msg);
                assert_eq!(
                    v.validate_with(&msg, &mut shapes),
                    want,
                    "round {round}: {text}"
                );
                assert_eq!(v.validate_with(&msg, &mut shapes), want, "again: {text}");
                hits_possible += want.is_ok() as usize;
            }
        }
    }
    assert!(hits_possible > 10);
    // Two dictionaries alike but for one required field: the message types sit at the
    // same places in both, so only the cache's knowing its validator keeps them apart.
    let text = std::fs::read_to_string("dictionaries/FIX44.xml").unwrap();
    // (Text added last: the other members keep their places in the tables.)
    let at = text.find("msgtype='D'>").unwrap();
    let end = at + text[at..].find("</message>").unwrap();
    let strict = format!(
        "{}   <field name='Text' required='Y' />\n  {}",
        &text[..end],
        &text[end..]
    );
    let strict = Dictionary::from_xml_str("FIX44-strict.xml", &strict).unwrap();
    let v_strict = Validator::new(&strict, ValidationSettings::default());
    let bytes = wire(&texts[0].replace("<TIME>", T));
    let msg = decoder.decode(&bytes).unwrap();
    for _ in 0..2 {
        assert_eq!(v44.validate_with(&msg, &mut shapes), Ok(()));
        assert_eq!(v44.validate_with(&msg, &mut shapes), Ok(()));
        let e = v_strict.validate_with(&msg, &mut shapes).unwrap_err();
        assert_eq!((e.reason, e.ref_tag), (R::RequiredTagMissing, Some(58)));
    }
    // The first text: fine for FIX.4.4, HandlInst missing for FIX.4.2.
    let bytes = wire(&texts[0].replace("<TIME>", T));
    let msg = decoder.decode(&bytes).unwrap();
    assert_eq!(v44.validate_with(&msg, &mut shapes), Ok(()));
    let e = v42.validate_with(&msg, &mut shapes).unwrap_err();
    assert_eq!((e.reason, e.ref_tag), (R::RequiredTagMissing, Some(21)));
}

/// UTCTimestamps to the picosecond (twelve fractional digits: FIX Latest, QuickFIX/J's
/// QFJ921_HigherResolutionTimestamps) validate in SendingTime, OrigSendingTime and
/// TransactTime, in FIX.4.2, FIX.4.4 and FIXT.1.1/FIX.5.0SP2, and with the shape
/// cache; fifteen digits are an incorrect data format, as QuickFIX/J says.
#[test]
fn picosecond_timestamps_validate_and_fifteen_digits_do_not() {
    const PICOS: &str = "20170408-00:00:00.123456789123";
    let (transport, app) = fixt();
    let fixt = Validator::fixt(transport, app, ValidationSettings::default());
    let fix42 = Validator::new(fix42(), ValidationSettings::default());
    let fix44 = Validator::new(fix44(), ValidationSettings::default());
    for (v, begin) in [
        (&fix42, "FIX.4.2"),
        (&fix44, "FIX.4.4"),
        (&fixt, "FIXT.1.1"),
    ] {
        // ApplVerID(1128) in a FIXT header.
        let appl = if begin == "FIXT.1.1" { "1128=9|" } else { "" };
        let order = |t: &str| {
            format!(
                "8={begin}|35=D|34=2|43=Y|49=TW|52={t}|56=ISLD|{appl}122={t}|\
                 11=ID|21=1|40=1|54=1|55=INTC|60={t}|"
            )
        };
        assert_eq!(check_with(v, &order(PICOS)), Ok(()), "{begin}");
        // The same through the shape cache, twice (the second only has its values checked).
        let bytes = wire(&order(PICOS));
        let mut d = decoder();
        let mut shapes = ShapeCache::new();
        for _ in 0..2 {
            let msg = d.decode(&bytes).unwrap();
            assert_eq!(v.validate_with(&msg, &mut shapes), Ok(()), "{begin}");
        }
        let fifteen = order(PICOS).replace(
            &format!("|60={PICOS}|"),
            "|60=20170408-00:00:00.123456789123456|",
        );
        expect(
            check_with(v, &fifteen),
            R::IncorrectDataFormatForValue,
            Some(60),
            "Incorrect data format for value",
        );
    }
}

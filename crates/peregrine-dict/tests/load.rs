//! Loading: every shipped dictionary, the model, FIXT pairing, malformed and custom dictionaries.

use peregrine_dict::{
    DictError, Dictionary, ErrorKind, FixType, LoadOptions, Member, MsgCategory,
    ValidationSettings, Validator,
};

const DIR: &str = "dictionaries";

fn load(name: &str) -> Dictionary {
    Dictionary::from_file(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_dictionary_loads_with_expected_counts() {
    // (file, version, fields, messages, components, admin messages)
    let expected = [
        ("FIX40.xml", "FIX.4.0", 139, 27, 0, 7),
        ("FIX41.xml", "FIX.4.1", 210, 28, 0, 7),
        ("FIX42.xml", "FIX.4.2", 405, 46, 0, 7),
        ("FIX43.xml", "FIX.4.3", 657, 67, 10, 7),
        ("FIX44.xml", "FIX.4.4", 953, 92, 24, 7),
        ("FIX50.xml", "FIX.5.0", 1130, 93, 121, 0),
        ("FIX50SP1.xml", "FIX.5.0SP1", 1415, 105, 163, 0),
        ("FIX50SP2.xml", "FIX.5.0SP2", 1610, 110, 198, 0),
        ("FIXT11.xml", "FIXT.1.1", 62, 7, 2, 7),
    ];
    for (file, version, fields, messages, components, admin) in expected {
        let d = load(file);
        assert_eq!(d.version(), version, "{file}");
        assert_eq!(d.field_count(), fields, "{file}");
        assert_eq!(d.fields().count(), fields, "{file}");
        assert_eq!(d.messages().len(), messages, "{file}");
        assert_eq!(d.components().len(), components, "{file}");
        let n_admin = d
            .messages()
            .iter()
            .filter(|m| m.category == MsgCategory::Admin)
            .count();
        assert_eq!(n_admin, admin, "{file}");
        for m in d.messages() {
            assert_eq!(d.message(&m.msg_type).unwrap().name, m.name);
            assert_eq!(d.message_bytes(m.msg_type.as_bytes()).unwrap().name, m.name);
        }
    }
}

#[test]
fn the_shared_copies_match_the_project_copies() {
    for f in ["FIX40.xml", "FIX44.xml", "FIX50SP2.xml", "FIXT11.xml"] {
        let shared = format!(
            "{}/../../../shared/fix-dictionaries/{f}",
            env!("CARGO_MANIFEST_DIR")
        );
        if std::path::Path::new(&shared).exists() {
            assert_eq!(
                std::fs::read(&shared).unwrap(),
                std::fs::read(format!("{DIR}/{f}")).unwrap()
            );
        }
    }
}

#[test]
fn fix44_model_details() {
    let d = load("FIX44.xml");
    assert_eq!(d.begin_string(), "FIX.4.4");
    assert_eq!(
        (d.fix_type(), d.major(), d.minor(), d.servicepack()),
        ("FIX", 4, 4, 0)
    );
    assert!(!d.is_transport());
    assert_eq!(d.max_tag(), 956);

    let side = d.field(54).unwrap();
    assert_eq!(side.name, "Side");
    assert_eq!(side.fix_type, FixType::Char);
    assert_eq!(side.values[0].value, "1");
    assert_eq!(side.values[0].description, "BUY");
    assert_eq!(d.field_by_name("Price").unwrap().tag, 44);
    assert_eq!(d.field(44).unwrap().fix_type, FixType::Price);
    assert_eq!(d.field(453).unwrap().fix_type, FixType::NumInGroup);
    assert!(d.field(999).is_none());

    let hb = d.message("0").unwrap();
    assert_eq!(
        (hb.name.as_str(), hb.category),
        ("Heartbeat", MsgCategory::Admin)
    );
    let nos = d.message("D").unwrap();
    assert_eq!(
        (nos.name.as_str(), nos.category),
        ("NewOrderSingle", MsgCategory::App)
    );
    assert_eq!(d.message_by_name("NewOrderSingle").unwrap().msg_type, "D");
    // The model keeps components as named things, in order.
    assert!(matches!(&nos.members[0], Member::Field(f) if f.tag == 11 && f.required));
    assert!(nos
        .members
        .iter()
        .any(|m| matches!(m, Member::Component(c) if c.name == "Instrument" && c.required)));
    let parties = d.component("Parties").unwrap();
    match &parties.members[0] {
        Member::Group(g) => {
            assert_eq!((g.count_tag, g.name.as_str()), (453, "NoPartyIDs"));
            assert!(g
                .members
                .iter()
                .any(|m| matches!(m, Member::Group(s) if s.name == "NoPartySubIDs")));
        }
        other => panic!("{other:?}"),
    }

    // Flattened: components expanded, nested groups, required propagation.
    let body = d.message_scope("D").unwrap();
    assert!(body.contains(55) && body.contains(453) && body.contains(38));
    assert!(
        body.is_required(11)
            && body.is_required(54)
            && body.is_required(60)
            && body.is_required(40)
    );
    assert!(
        !body.is_required(55),
        "Symbol is optional inside Instrument"
    );
    let req: Vec<u32> = body.required_tags().collect();
    assert_eq!(req, vec![11, 40, 54, 60]);
    let g = body.group(453).unwrap();
    assert_eq!(g.delimiter(), Some(448));
    assert!(g.contains(447) && g.contains(452) && g.contains(802));
    let sub = g.group(802).unwrap();
    assert_eq!(sub.delimiter(), Some(523));
    assert!(body.group(55).is_none());

    let header = d.header_scope();
    assert_eq!(
        header.required_tags().collect::<Vec<_>>(),
        vec![8, 9, 34, 35, 49, 52, 56]
    );
    assert!(header.group(627).is_some());
    assert_eq!(
        d.trailer_scope().tags().collect::<Vec<_>>(),
        vec![93, 89, 10]
    );
    assert!(
        d.is_header_tag(34) && d.is_header_tag(628) && d.is_trailer_tag(10) && !d.is_header_tag(11)
    );
}

#[test]
fn groups_nest_at_any_depth_in_fix50sp2() {
    let d = load("FIX50SP2.xml");
    assert!(d.header().is_empty() && d.trailer().is_empty());
    fn depth(s: &peregrine_dict::FlatScope<'_>) -> usize {
        s.groups().map(|(_, g)| 1 + depth(&g)).max().unwrap_or(0)
    }
    let deepest = d
        .messages()
        .iter()
        .map(|m| depth(&d.body_scope(m)))
        .max()
        .unwrap();
    assert!(deepest >= 3, "{deepest}");
    // Components nested in components: Instrument → SecAltIDGrp → NoSecurityAltID group.
    let nos = d.message_scope("D").unwrap();
    assert_eq!(nos.group(454).unwrap().delimiter(), Some(455));
}

#[test]
fn fixt11_with_fix50sp2() {
    let t = load("FIXT11.xml");
    let app = load("FIX50SP2.xml");
    assert!(t.is_transport());
    assert_eq!(t.begin_string(), "FIXT.1.1");
    assert!(t.header_scope().contains(1128));
    assert!(t.message("A").is_some() && t.message("D").is_none());
    assert!(app.message("D").is_some() && app.message("A").is_none());
    let v = Validator::fixt(&t, &app, ValidationSettings::default());
    assert!(std::ptr::eq(v.transport(), &t) && std::ptr::eq(v.application(), &app));
}

#[test]
fn quickfix_quirks_are_warnings_unless_strict() {
    let text = std::fs::read_to_string(format!("{DIR}/FIX50.xml")).unwrap();
    let d = Dictionary::from_xml_str("FIX50.xml", &text).unwrap();
    assert_eq!(d.warnings().len(), 3);
    let e = Dictionary::from_xml_str_with("FIX50.xml", &text, LoadOptions { strict: true })
        .unwrap_err();
    assert!(e.to_string().starts_with("FIX50.xml:"), "{e}");
    assert!(matches!(
        e,
        DictError::Invalid {
            kind: ErrorKind::GroupNotNumInGroup(_),
            ..
        }
    ));
}

// ---- malformed dictionaries -------------------------------------------------------------

const FIELDS: &str = "<fields>
<field number='8' name='BeginString' type='STRING'/>
<field number='10' name='CheckSum' type='STRING'/>
<field number='35' name='MsgType' type='STRING'/>
<field number='11' name='ClOrdID' type='STRING'/>
<field number='73' name='NoOrders' type='NUMINGROUP'/>
<field number='55' name='Symbol' type='STRING'/>
</fields>";

fn doc(messages: &str, components: &str, fields: &str) -> String {
    format!(
        "<fix type='FIX' major='4' minor='4'>\n<header><field name='BeginString' required='Y'/></header>\n\
         <trailer><field name='CheckSum' required='Y'/></trailer>\n<messages>\n{messages}\n</messages>\n\
         <components>\n{components}\n</components>\n{fields}\n</fix>"
    )
}

fn err(messages: &str, components: &str, fields: &str) -> String {
    let text = doc(messages, components, fields);
    Dictionary::from_xml_str_with("bad.xml", &text, LoadOptions { strict: true })
        .unwrap_err()
        .to_string()
}

#[test]
fn malformed_xml_names_file_and_line() {
    let e = Dictionary::from_xml_str("broken.xml", "<fix major='4' minor='4'>\n<fields>\n</fix>")
        .unwrap_err();
    assert!(matches!(e, DictError::Xml { line: 3, .. }), "{e}");
    assert!(e.to_string().starts_with("broken.xml:3: bad XML"), "{e}");
    assert_eq!(e.file(), "broken.xml");
}

#[test]
fn unknown_field_in_message_component_and_group() {
    let m = "<message name='NewOrderSingle' msgtype='D' msgcat='app'>\n<field name='ClOrdID' required='Y'/>\n<field name='Foo' required='N'/>\n</message>";
    assert_eq!(
        err(m, "", FIELDS),
        "bad.xml:7: <field name=\"Foo\">: unknown field referenced in message NewOrderSingle"
    );
    let c = "<component name='Instrument'>\n<field name='Bar' required='N'/>\n</component>";
    assert_eq!(
        err("", c, FIELDS),
        "bad.xml:9: <field name=\"Bar\">: unknown field referenced in component Instrument"
    );
    let g = "<message name='List' msgtype='E' msgcat='app'>\n<group name='NoOrders' required='Y'>\n<field name='Baz' required='Y'/>\n</group>\n</message>";
    assert_eq!(
        err(g, "", FIELDS),
        "bad.xml:7: <field name=\"Baz\">: unknown field referenced in group NoOrders"
    );
    let g2 = "<message name='List' msgtype='E' msgcat='app'>\n<group name='NoThings' required='Y'>\n<field name='ClOrdID' required='Y'/>\n</group>\n</message>";
    assert_eq!(
        err(g2, "", FIELDS),
        "bad.xml:6: <group name=\"NoThings\">: unknown field referenced in message List"
    );
}

#[test]
fn unknown_component() {
    let m = "<message name='NewOrderSingle' msgtype='D' msgcat='app'>\n<component name='Instrument' required='Y'/>\n</message>";
    assert_eq!(
        err(m, "", FIELDS),
        "bad.xml:6: <component name=\"Instrument\">: unknown component referenced in message NewOrderSingle"
    );
}

#[test]
fn duplicate_field_number_and_name() {
    let f = FIELDS.replace(
        "</fields>",
        "<field number='11' name='Other' type='STRING'/>\n</fields>",
    );
    let e = err("", "", &f);
    assert!(
        e.ends_with("<field name=\"Other\" number=\"11\">: duplicate field number 11"),
        "{e}"
    );
    assert!(e.starts_with("bad.xml:17:"), "{e}");
    let f = FIELDS.replace(
        "</fields>",
        "<field number='12' name='ClOrdID' type='STRING'/>\n</fields>",
    );
    assert!(err("", "", &f).ends_with(": duplicate field name ClOrdID"));
}

#[test]
fn group_not_numingroup() {
    let g = "<message name='X' msgtype='X' msgcat='app'>\n<group name='Symbol' required='N'>\n<field name='ClOrdID' required='Y'/>\n</group>\n</message>";
    assert_eq!(
        err(g, "", FIELDS),
        "bad.xml:6: <group name=\"Symbol\">: group is not a NumInGroup field (its type is STRING)"
    );
}

#[test]
fn missing_attributes_and_bad_numbers() {
    let f = FIELDS.replace(
        "<field number='55' name='Symbol' type='STRING'/>",
        "<field name='Symbol' type='STRING'/>",
    );
    assert_eq!(
        err("", "", &f),
        "bad.xml:16: <field name=\"Symbol\">: missing attribute `number`"
    );
    let f = FIELDS.replace("number='55'", "number='5x5'");
    assert_eq!(
        err("", "", &f),
        "bad.xml:16: <field name=\"Symbol\" number=\"5x5\">: attribute `number` is not a valid number: \"5x5\""
    );
    let f = FIELDS.replace("type='STRING'/>\n</fields>", "/>\n</fields>");
    assert!(err("", "", &f).ends_with("missing attribute `type`"));
    let m = "<message name='X' msgcat='app'>\n<field name='ClOrdID' required='Y'/>\n</message>";
    assert_eq!(
        err(m, "", FIELDS),
        "bad.xml:5: <message name=\"X\">: missing attribute `msgtype`"
    );
    let m = "<message name='X' msgtype='X' msgcat='app'>\n<field name='ClOrdID' required='maybe'/>\n</message>";
    assert!(err(m, "", FIELDS).ends_with("attribute `required` has an invalid value: \"maybe\""));
    let e = Dictionary::from_xml_str(
        "v.xml",
        "<fix major='four' minor='4'><fields/><messages/></fix>",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("attribute `major` is not a valid number"),
        "{e}"
    );
    let e = Dictionary::from_xml_str("v.xml", "<fix major='4' minor='4'><messages/></fix>")
        .unwrap_err();
    assert_eq!(e.to_string(), "v.xml:1: <fix>: missing <fields> section");
    let e = Dictionary::from_xml_str("v.xml", "<dictionary/>").unwrap_err();
    assert!(e.to_string().ends_with("root element is not <fix>"));
}

#[test]
fn duplicate_message_and_component_and_recursion() {
    let m = "<message name='A' msgtype='X' msgcat='app'><field name='ClOrdID' required='Y'/></message>\n\
             <message name='B' msgtype='X' msgcat='app'><field name='ClOrdID' required='Y'/></message>";
    assert!(err(m, "", FIELDS)
        .ends_with("<message name=\"B\" msgtype=\"X\">: duplicate message type X"));
    let c = "<component name='C'><field name='ClOrdID' required='Y'/></component>\n<component name='C'><field name='Symbol' required='Y'/></component>";
    assert!(err("", c, FIELDS).ends_with(": duplicate component C"));
    let c = "<component name='A'>\n<component name='B' required='N'/>\n</component>\n<component name='B'>\n<component name='A' required='N'/>\n</component>";
    let m =
        "<message name='M' msgtype='M' msgcat='app'><component name='A' required='N'/></message>";
    assert_eq!(
        err(m, c, FIELDS),
        "bad.xml:12: <component name=\"A\">: component A includes itself"
    );
    let g = "<message name='X' msgtype='X' msgcat='app'>\n<group name='NoOrders' required='N'>\n</group>\n</message>";
    assert_eq!(
        err(g, "", FIELDS),
        "bad.xml:6: <group name=\"NoOrders\">: group has no members"
    );
}

#[test]
fn io_error_names_the_path() {
    let e = Dictionary::from_file("dictionaries/NOPE.xml").unwrap_err();
    assert!(matches!(e, DictError::Io { .. }));
    assert!(e.to_string().starts_with("dictionaries/NOPE.xml: "), "{e}");
}

// ---- custom dictionaries ----------------------------------------------------------------

/// FIX44 plus a venue's extras: a field, a message with a group, and a field added to
/// NewOrderSingle.
pub fn venue_fix44() -> Dictionary {
    let text = std::fs::read_to_string(format!("{DIR}/FIX44.xml")).unwrap();
    let text = text
        .replace(
            " </fields>",
            "  <field number='20001' name='VenueOrderTag' type='STRING'/>\n  \
             <field number='20002' name='NoVenueLegs' type='NUMINGROUP'/>\n  \
             <field number='20003' name='VenueLegQty' type='QTY'/>\n  \
             <field number='20004' name='VenueFlag' type='CHAR'>\n   <value enum='A' description='ALPHA'/>\n   <value enum='B' description='BETA'/>\n  </field>\n </fields>",
        )
        .replace(
            " </messages>",
            "  <message name='VenueStatus' msgtype='U7' msgcat='app'>\n   \
             <field name='VenueOrderTag' required='Y'/>\n   <field name='VenueFlag' required='N'/>\n   \
             <group name='NoVenueLegs' required='N'>\n    <field name='Symbol' required='Y'/>\n    \
             <field name='VenueLegQty' required='Y'/>\n   </group>\n  </message>\n </messages>",
        )
        .replacen(
            "<message name='NewOrderSingle' msgcat='app' msgtype='D'>",
            "<message name='NewOrderSingle' msgcat='app' msgtype='D'>\n   <field name='VenueOrderTag' required='N'/>",
            1,
        );
    Dictionary::from_xml_str("FIX44-venue.xml", &text).unwrap()
}

#[test]
fn custom_dictionary_extra_field_message_and_group() {
    let d = venue_fix44();
    assert_eq!(d.field_count(), 957);
    assert_eq!(d.messages().len(), 93);
    assert_eq!(d.field(20001).unwrap().name, "VenueOrderTag");
    assert_eq!(d.max_tag(), 20004);
    let m = d.message("U7").unwrap();
    assert_eq!(
        (m.name.as_str(), m.category),
        ("VenueStatus", MsgCategory::App)
    );
    let s = d.message_scope("U7").unwrap();
    assert!(s.is_required(20001));
    let g = s.group(20002).unwrap();
    assert_eq!(g.delimiter(), Some(55));
    assert_eq!(g.required_tags().collect::<Vec<_>>(), vec![55, 20003]);
    assert!(d.message_scope("D").unwrap().contains(20001));

    let v = Validator::new(&d, ValidationSettings::default());
    let ok: &[(u32, &[u8])] = &[
        (8, b"FIX.4.4"),
        (9, b"1"),
        (35, b"U7"),
        (34, b"2"),
        (49, b"A"),
        (52, b"20240115-10:30:00"),
        (56, b"B"),
        (20001, b"x"),
        (20004, b"B"),
        (20002, b"2"),
        (55, b"AAPL"),
        (20003, b"10"),
        (55, b"MSFT"),
        (20003, b"20"),
        (10, b"000"),
    ];
    assert_eq!(v.validate_fields(b"U7", ok.iter().copied()), Ok(()));
    let bad_flag: Vec<(u32, &[u8])> = ok
        .iter()
        .map(|&(t, v)| if t == 20004 { (t, &b"C"[..]) } else { (t, v) })
        .collect();
    let e = v.validate_fields(b"U7", bad_flag).unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (5, Some(20004)));
    let missing_leg_qty: Vec<(u32, &[u8])> = ok
        .iter()
        .copied()
        .filter(|&(t, v)| !(t == 20003 && v == b"20"))
        .collect();
    let e = v.validate_fields(b"U7", missing_leg_qty).unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (1, Some(20003)));
}

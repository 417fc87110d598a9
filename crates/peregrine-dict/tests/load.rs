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

/// `$PEREGRINE_SHARED/fix-dictionaries`, the QuickFIX data the copy here was taken from, when
/// `PEREGRINE_SHARED` names it (nothing outside the repository is read otherwise).
fn shared_dictionaries() -> Option<std::path::PathBuf> {
    std::env::var("PEREGRINE_SHARED")
        .ok()
        .filter(|d| !d.is_empty())
        .map(|shared| std::path::PathBuf::from(shared).join("fix-dictionaries"))
}

#[test]
fn every_shared_dictionary_loads_and_matches_the_project_copy() {
    let Some(dir) = shared_dictionaries() else {
        eprintln!("PEREGRINE_SHARED not set; skipped");
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} not found; skipped", dir.display());
        return;
    };
    let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut loaded = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let ours = std::path::Path::new(DIR).join(&name);
        // Every shared file (dictionaries and the licence) is kept, unchanged, in the crate.
        assert_eq!(
            std::fs::read(path).unwrap(),
            std::fs::read(&ours).unwrap_or_else(|e| panic!("{}: {e}", ours.display())),
            "{name} differs from the project copy"
        );
        if name.ends_with(".xml") {
            let d = Dictionary::from_file(path).unwrap_or_else(|e| panic!("{e}"));
            assert!(!d.messages().is_empty() && d.field_count() > 0, "{name}");
            loaded.push(name);
        }
    }
    // All nine QuickFIX dictionaries at least (a new shared file is loaded too).
    assert!(loaded.len() >= 9, "{loaded:?}");
    for f in [
        "FIX40.xml",
        "FIX42.xml",
        "FIX44.xml",
        "FIX50SP2.xml",
        "FIXT11.xml",
    ] {
        assert!(loaded.iter().any(|l| l == f), "{f} missing from {loaded:?}");
    }
    assert!(std::path::Path::new(DIR).join("LICENSE.quickfix").exists());
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

#[test]
fn field_numbers_out_of_range_are_errors_not_allocations() {
    // A typo'd huge number must not size the dense tables (gigabytes): it is an error.
    for n in ["0", "1000000", "4294967295"] {
        let f = FIELDS.replace("number='55'", &format!("number='{n}'"));
        assert_eq!(
            err("", "", &f),
            format!(
                "bad.xml:16: <field name=\"Symbol\" number=\"{n}\">: field number {n} is out of range (1 to 999999)"
            )
        );
    }
    let f = FIELDS.replace("number='55'", "number='99999999999'");
    assert!(err("", "", &f).contains("is not a valid number"));
    let f = FIELDS.replace(
        "number='55'",
        &format!("number='{}'", peregrine_dict::MAX_TAG),
    );
    let d = Dictionary::from_xml_str("ok.xml", &doc("", "", &f)).unwrap();
    assert_eq!(d.field_by_name("Symbol").unwrap().tag, 999_999);
}

/// A dictionary with one message whose groups nest `depth` deep: NoL1 { F1, NoL2 { F2, … } }.
fn nested_groups_dictionary(depth: usize) -> String {
    let mut fields = String::new();
    for i in 1..=depth {
        fields.push_str(&format!(
            "<field number='{}' name='NoL{i}' type='NUMINGROUP'/>\n<field number='{}' name='F{i}' type='INT'/>\n",
            10000 + 2 * i,
            10001 + 2 * i
        ));
    }
    let mut group = String::new();
    for i in (1..=depth).rev() {
        group = format!("<group name='NoL{i}' required='N'>\n<field name='F{i}' required='Y'/>\n{group}</group>\n");
    }
    let f = FIELDS.replace("</fields>", &format!("{fields}</fields>"));
    doc(
        &format!("<message name='Deep' msgtype='U9' msgcat='app'>\n{group}</message>"),
        "",
        &f,
    )
}

#[test]
fn groups_nest_to_the_limit_and_an_error_past_it() {
    let max = peregrine_dict::MAX_GROUP_DEPTH;
    let d = Dictionary::from_xml_str("deep.xml", &nested_groups_dictionary(max)).unwrap();
    let mut scope = d.message_scope("U9").unwrap();
    for i in 1..=max {
        let count = 10000 + 2 * i as u32;
        let g = scope.group(count).unwrap_or_else(|| panic!("level {i}"));
        assert_eq!(g.delimiter(), Some(count + 1));
        scope = g;
    }
    // Validation walks every level: two entries at the top, one below each.
    let mut fields: Vec<(u32, Vec<u8>)> = vec![(8, b"FIX.4.4".to_vec()), (35, b"U9".to_vec())];
    for entry in 0..2 {
        if entry == 0 {
            fields.push((10002, b"2".to_vec()));
        }
        fields.push((10003, b"7".to_vec()));
        for i in 2..=max as u32 {
            fields.push((10000 + 2 * i, b"1".to_vec()));
            fields.push((10001 + 2 * i, b"7".to_vec()));
        }
    }
    fields.push((10, b"000".to_vec()));
    let v = Validator::new(&d, ValidationSettings::default());
    let as_refs = |f: &[(u32, Vec<u8>)]| f.iter().map(|(t, v)| (*t, v.clone())).collect::<Vec<_>>();
    let ok = as_refs(&fields);
    assert_eq!(
        v.validate_fields(b"U9", ok.iter().map(|(t, v)| (*t, &v[..]))),
        Ok(())
    );
    // The deepest count wrong in the second entry: reported on the deepest count tag.
    let deepest = 10000 + 2 * max as u32;
    let mut bad = as_refs(&fields);
    let last = bad.iter().rposition(|(t, _)| *t == deepest).unwrap();
    bad[last].1 = b"2".to_vec();
    let e = v
        .validate_fields(b"U9", bad.iter().map(|(t, v)| (*t, &v[..])))
        .unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (16, Some(deepest)));
    // A bad value at the deepest level.
    let mut bad = as_refs(&fields);
    let last = bad.iter().rposition(|(t, _)| *t == deepest + 1).unwrap();
    bad[last].1 = b"x".to_vec();
    let e = v
        .validate_fields(b"U9", bad.iter().map(|(t, v)| (*t, &v[..])))
        .unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (6, Some(deepest + 1)));

    // One more level is an error naming the file, the line and the group.
    let e = Dictionary::from_xml_str("deep.xml", &nested_groups_dictionary(max + 1)).unwrap_err();
    let line = 4 + 2 * (max as u32 + 1); // the message on line 5, then two lines a level
    assert_eq!(
        e.to_string(),
        format!(
            "deep.xml:{line}: <group name=\"NoL{}\">: repeating groups nested {} deep (limit {max})",
            max + 1,
            max + 1
        )
    );
    // Very deep XML is refused the same way (no deep recursion, no stack overflow).
    let e = Dictionary::from_xml_str("deeper.xml", &nested_groups_dictionary(2000)).unwrap_err();
    assert!(
        matches!(
            e,
            DictError::Invalid {
                kind: ErrorKind::TooDeep(17),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn components_nested_too_deep_are_an_error() {
    let chain = |n: usize| {
        let mut c = String::new();
        for i in 0..n {
            let inner = if i + 1 < n {
                format!("<component name='C{}' required='N'/>", i + 1)
            } else {
                "<field name='Symbol' required='N'/>".to_string()
            };
            c.push_str(&format!("<component name='C{i}'>{inner}</component>\n"));
        }
        doc(
            "<message name='M' msgtype='M' msgcat='app'><component name='C0' required='N'/></message>",
            &c,
            FIELDS,
        )
    };
    let max = peregrine_dict::MAX_COMPONENT_DEPTH;
    let d = Dictionary::from_xml_str("chain.xml", &chain(max)).unwrap();
    assert!(d.message_scope("M").unwrap().contains(55));
    let e = Dictionary::from_xml_str("chain.xml", &chain(max + 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "chain.xml:{}: <component name=\"C{max}\">: components nested {} deep (limit {max})",
            8 + max - 1,
            max + 1
        )
    );
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
    // The extra field in a standard message, and a field the venue did not add.
    let nos = |extra: &'static [u8], tag: u32| -> Vec<(u32, &'static [u8])> {
        vec![
            (8, b"FIX.4.4"),
            (35, b"D"),
            (34, b"2"),
            (49, b"A"),
            (52, b"20240115-10:30:00"),
            (56, b"B"),
            (11, b"id"),
            (tag, extra),
            (40, b"1"),
            (54, b"1"),
            (55, b"X"),
            (60, b"20240115-10:30:00"),
            (10, b"000"),
        ]
    };
    assert_eq!(v.validate_fields(b"D", nos(b"v", 20001)), Ok(()));
    let e = v.validate_fields(b"D", nos(b"v", 20005)).unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (0, Some(20005)));
    // The extra field is defined, but not for every message.
    let e = v.validate_fields(b"D", nos(b"A", 20004)).unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (2, Some(20004)));
    // The standard dictionary knows none of it.
    let std44 = load("FIX44.xml");
    let v44 = Validator::new(&std44, ValidationSettings::default());
    let e = v44.validate_fields(b"U7", ok.iter().copied()).unwrap_err();
    assert_eq!(e.reason.code(), 11);
    let e = v44.validate_fields(b"D", nos(b"v", 20001)).unwrap_err();
    assert_eq!((e.reason.code(), e.ref_tag), (0, Some(20001)));
}

#[test]
fn custom_dictionary_generates_typed_code_for_its_extras() {
    let d = venue_fix44();
    let code = peregrine_dict::codegen::generate(&d, &peregrine_dict::codegen::Options::default());
    for want in [
        "pub const VENUE_ORDER_TAG: u32 = 20001;",
        "pub enum VenueFlag {",
        "pub struct VenueStatus<'a> {",
        "pub struct VenueStatusBuilder<'b, E = crate::codec::MessageEncoder<'b>> {",
        "crate::__message!(VenueStatus, VenueStatusBuilder, VenueStatusBody, b\"U7\", BEGIN_STRING);",
        "pub struct VenueStatusNoVenueLegs<'a> {",
        "pub fn no_venue_legs(&self) -> Entries<'a, groups::VenueStatusNoVenueLegs<'a>>",
        "pub fn venue_leg_qty(&self) -> Option<Result<Decimal, FieldError>>",
        "fn round_trip_venue_status()",
    ] {
        assert!(code.contains(want), "generated code lacks {want}");
    }
    // NewOrderSingle gained the getter of the venue's field.
    let nos = code.find("impl<'a> NewOrderSingle<'a> {").unwrap();
    let nos_end = nos + code[nos..].find("\n}\n").unwrap();
    assert!(code[nos..nos_end].contains("pub fn venue_order_tag(&self)"));
}

//! One test per decoding and validation rule.
mod common;
use common::*;
use peregrine_codec::*;

fn decode_err(m: &[u8]) -> DecodeError {
    let mut d = Decoder::new(DecoderConfig::default());
    d.decode(m).map(|_| ()).unwrap_err()
}

#[test]
fn benchmark_messages_decode() {
    let er = execution_report();
    let mut d = Decoder::new(DecoderConfig::default());
    let v = d.decode(&er).unwrap();
    assert_eq!(v.get(37), Some(&b"ORD123456"[..]));
    assert_eq!(v.get(17), Some(&b"EXEC789012"[..]));
    assert_eq!(v.get(54), Some(&b"1"[..]));
    assert_eq!(v.msg_type(), b"8");
    assert_eq!(v.len(), 19);
    let tags: Vec<u32> = v.fields().map(|f| f.tag).collect();
    assert_eq!(
        tags,
        [8, 9, 35, 49, 56, 34, 52, 37, 17, 150, 39, 54, 151, 14, 6, 55, 38, 44, 10]
    );
}

#[test]
fn checksum_is_validated_and_switchable() {
    let mut m = execution_report();
    let n = m.len();
    m[n - 2] = if m[n - 2] == b'9' { b'0' } else { m[n - 2] + 1 };
    assert!(matches!(
        decode_err(&m),
        DecodeError::ChecksumMismatch { .. }
    ));
    let mut d = Decoder::new(DecoderConfig {
        validate_checksum: false,
        ..Default::default()
    });
    assert!(d.decode(&m).is_ok());
}

#[test]
fn checksum_must_be_three_digits() {
    let m = b"8=FIX.4.4\x019=5\x0135=0\x0110=3\x01";
    assert_eq!(decode_err(m), DecodeError::InvalidChecksum);
}

#[test]
fn body_length_is_validated_and_switchable() {
    let m = String::from_utf8(msg("FIX.4.4", "35=0|34=2|"))
        .unwrap()
        .replace("9=10", "9=11");
    assert_eq!(
        decode_err(m.as_bytes()),
        DecodeError::BodyLengthMismatch {
            declared: 11,
            actual: 10
        }
    );
    let mut d = Decoder::new(DecoderConfig {
        validate_body_length: false,
        validate_checksum: false,
        ..Default::default()
    });
    assert!(d.decode(m.as_bytes()).is_ok());
}

#[test]
fn field_order_of_the_standard_header() {
    assert_eq!(
        decode_err(b"9=5\x018=FIX.4.4\x0135=0\x0110=000\x01"),
        DecodeError::BeginStringNotFirst
    );
    assert_eq!(
        decode_err(b"8=FIX.4.4\x0135=0\x019=5\x0110=000\x01"),
        DecodeError::BodyLengthNotSecond
    );
    assert_eq!(
        decode_err(b"8=FIX.4.4\x019=5\x0134=0\x0135=0\x0110=000\x01"),
        DecodeError::MsgTypeNotThird
    );
    assert_eq!(
        decode_err(b"8=FIX.4.4\x019=5\x0135=0\x0134=1\x01"),
        DecodeError::ChecksumNotLast
    );
}

#[test]
fn tag_syntax() {
    type Check = fn(DecodeError) -> bool;
    let cases: [(&str, Check); 6] = [
        ("35=0|0=1|", |e| matches!(e, DecodeError::InvalidTag { .. })),
        ("35=0|012=1|", |e| {
            matches!(e, DecodeError::InvalidTag { .. })
        }),
        ("35=0|1a2=1|", |e| {
            matches!(e, DecodeError::InvalidTag { .. })
        }),
        ("35=0|=1|", |e| matches!(e, DecodeError::InvalidTag { .. })),
        ("35=0|1234567890=1|", |e| {
            matches!(e, DecodeError::InvalidTag { .. })
        }),
        ("35=0|58|", |e| {
            matches!(e, DecodeError::MissingEquals { .. })
        }),
    ];
    for (body, ok) in cases {
        let e = decode_err(&msg("FIX.4.4", body));
        assert!(ok(e), "{body}: {e:?}");
    }
}

#[test]
fn invalid_tag_reports_the_field_offset() {
    let m = msg("FIX.4.4", "35=0|4garbled9=TW|");
    let at = m.windows(8).position(|w| w == b"4garbled").unwrap();
    assert_eq!(decode_err(&m), DecodeError::InvalidTag { offset: at });
}

#[test]
fn empty_value_is_reported_with_its_tag() {
    let m = msg("FIX.4.4", "35=0|49=A|58=|56=B|");
    assert_eq!(decode_err(&m), DecodeError::EmptyValue { tag: 58 });
    let mut d = Decoder::new(DecoderConfig {
        reject_empty_values: false,
        ..Default::default()
    });
    let v = d.decode(&m).unwrap();
    assert_eq!(v.first_empty_value(), Some(58));
    assert_eq!(v.get(58), Some(&b""[..]));
    assert_eq!(v.get(56), Some(&b"B"[..]));
}

#[test]
fn raw_data_may_contain_soh() {
    let m = msg("FIX.4.4", "35=B|148=hi|95=7|96=a\x01b=\x01cd|58=t|");
    let mut d = Decoder::new(DecoderConfig::default());
    let v = d.decode(&m).unwrap();
    assert_eq!(v.get(96), Some(&b"a\x01b=\x01cd"[..]));
    assert_eq!(v.get(58), Some(&b"t"[..]));
    for (len_tag, data_tag) in [(93u32, 89u32), (212, 213), (354, 355)] {
        let m = msg(
            "FIX.4.4",
            &format!("35=B|{len_tag}=3|{data_tag}=\x01\x01\x01|"),
        );
        let v = d.decode(&m).unwrap();
        assert_eq!(v.get(data_tag), Some(&b"\x01\x01\x01"[..]));
    }
}

#[test]
fn raw_data_length_errors() {
    let m = msg("FIX.4.4", "35=B|95=9|96=abc|");
    assert_eq!(decode_err(&m), DecodeError::DataLengthMismatch { tag: 96 });
    let m = msg("FIX.4.4", "35=B|95=x|96=abc|");
    assert_eq!(decode_err(&m), DecodeError::InvalidDataLength { tag: 95 });
    let m = msg("FIX.4.4", "35=B|95=99999999999999999999999|96=abc|");
    assert_eq!(decode_err(&m), DecodeError::InvalidDataLength { tag: 95 });
}

#[test]
fn custom_data_fields() {
    let m = msg("FIX.4.4", "35=B|5001=2|5002=\x01\x01|");
    assert!(decode_err(&m) != DecodeError::DataLengthMismatch { tag: 5002 });
    let mut cfg = DecoderConfig::default();
    cfg.data_fields.insert(5001, 5002);
    let mut d = Decoder::new(cfg);
    assert_eq!(d.decode(&m).unwrap().get(5002), Some(&b"\x01\x01"[..]));
}

#[test]
fn too_large_is_refused() {
    let m = execution_report();
    let mut d = Decoder::new(DecoderConfig {
        max_message_size: 64,
        ..Default::default()
    });
    assert_eq!(
        d.decode(&m).unwrap_err(),
        DecodeError::TooLarge { len: m.len() }
    );
}

#[test]
fn repeated_tags_in_order_and_large_tags() {
    let m = msg(
        "FIX.4.4",
        "35=V|262=R|267=3|269=0|269=1|269=2|9999=x|123456=big|269=3|",
    );
    let mut d = Decoder::new(DecoderConfig::default());
    let v = d.decode(&m).unwrap();
    let all: Vec<_> = v.get_all(269).collect();
    assert_eq!(all, [&b"0"[..], b"1", b"2", b"3"]);
    assert_eq!(v.count(269), 4);
    assert_eq!(v.get(123456), Some(&b"big"[..]));
    assert_eq!(v.get(9999), Some(&b"x"[..]));
    assert_eq!(v.first_repeated_tag(), Some(269));
    assert!(!v.contains(270));
}

#[test]
fn index_does_not_leak_between_messages() {
    let mut d = Decoder::new(DecoderConfig::default());
    let a = msg("FIX.4.4", "35=0|112=a|");
    let b = msg("FIX.4.4", "35=0|58=b|");
    assert!(d.decode(&a).unwrap().contains(112));
    let v = d.decode(&b).unwrap();
    assert!(!v.contains(112));
    assert_eq!(v.get(58), Some(&b"b"[..]));
}

#[test]
fn nested_groups() {
    // NoPartyIDs(453)=2, each with PartySubIDs (802) nested.
    let m = msg(
        "FIX.4.4",
        "35=a|117=Q1|453=2|448=P1|447=D|452=1|802=2|523=S1|803=1|523=S2|803=2|448=P2|447=D|452=3|55=X|",
    );
    let mut d = Decoder::new(DecoderConfig::default());
    let v = d.decode(&m).unwrap();
    let sub = |t: u32| matches!(t, 523 | 803);
    let party = |t: u32| matches!(t, 448 | 447 | 452 | 802) || sub(t);
    let g = v.group(453, party).unwrap();
    assert_eq!(g.declared_count(), Ok(2));
    assert_eq!(g.delimiter(), Some(448));
    let entries: Vec<_> = g.entries().collect();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].get(448), Some(&b"P1"[..]));
    assert_eq!(entries[1].get(452), Some(&b"3"[..]));
    let nested = entries[0].group(802, sub).unwrap();
    let ids: Vec<_> = nested.entries().map(|e| e.get(523).unwrap()).collect();
    assert_eq!(ids, [&b"S1"[..], b"S2"]);
    assert!(entries[1].group(802, sub).is_none());
    // The field after the group is not part of it.
    assert_eq!(g.fields().iter().last().unwrap().tag, 452);
}

#[test]
fn group_count_mismatch_is_visible() {
    let m = msg("FIX.4.4", "35=V|267=3|269=0|269=1|55=X|");
    let mut d = Decoder::new(DecoderConfig::default());
    let v = d.decode(&m).unwrap();
    let g = v.group(267, |t| t == 269).unwrap();
    assert_eq!(g.declared_count(), Ok(3));
    assert_eq!(g.actual_count(), 2);
}

#[test]
fn framer_then_decoder_on_a_stream() {
    let mut stream = Vec::new();
    for i in 0..50 {
        stream.extend_from_slice(&msg("FIX.4.4", &format!("35=0|34={i}|")));
        if i % 7 == 0 {
            stream.extend_from_slice(b"noise\x01");
        }
    }
    let framer = Framer::default();
    let mut d = Decoder::new(DecoderConfig::default());
    let mut seqs = Vec::new();
    let mut garbled = 0;
    let mut frames = framer.frames(&stream);
    for ev in frames.by_ref() {
        match ev {
            FrameEvent::Message(m) => {
                seqs.push(d.decode(m).unwrap().get_as::<u64>(34).unwrap().unwrap())
            }
            FrameEvent::Garbled { .. } => garbled += 1,
        }
    }
    assert_eq!(seqs, (0..50).collect::<Vec<_>>());
    assert_eq!(garbled, 8);
    assert_eq!(frames.consumed(), stream.len());
}

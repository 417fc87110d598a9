//! The decoder's fast walk (every vector level) and its general walk must
//! give the same result, field for field and error for error, on messages
//! built to hit every rule: small and large tags, repeats, long tags, leading
//! zeros, empty tags and values, `=` inside values, data fields holding SOH,
//! wrong BodyLength and CheckSum, and mutated bytes.
use peregrine_codec::Level;
use peregrine_codec::*;
use proptest::prelude::*;

/// A tag, what `get` returned and what `get_all` returned.
type Lookup = (u32, Option<Vec<u8>>, Vec<Vec<u8>>);

/// Everything a decode produced, comparable across paths.
#[derive(Debug, PartialEq)]
struct Outcome {
    fields: Vec<(u32, Vec<u8>)>,
    first_empty: Option<u32>,
    first_repeated: Option<u32>,
    /// For every tag of the message: `get` and `get_all`.
    lookups: Vec<Lookup>,
}

fn outcome(d: &mut Decoder, msg: &[u8]) -> Result<Outcome, DecodeError> {
    let v = d.decode(msg)?;
    let fields: Vec<(u32, Vec<u8>)> = v.fields().map(|f| (f.tag, f.value.to_vec())).collect();
    let mut lookups = Vec::new();
    for &(tag, _) in &fields {
        lookups.push((
            tag,
            v.get(tag).map(<[u8]>::to_vec),
            v.get_all(tag).map(<[u8]>::to_vec).collect(),
        ));
    }
    // Tags that are not there must not be found (the index is per message).
    for tag in [1, 11, 58, 1023, 1024, 5000] {
        if !fields.iter().any(|f| f.0 == tag) {
            assert!(v.get(tag).is_none(), "tag {tag} found but absent");
        }
    }
    Ok(Outcome {
        first_empty: v.first_empty_value(),
        first_repeated: v.first_repeated_tag(),
        fields,
        lookups,
    })
}

/// One body field as text: a tag (sometimes malformed) and a value.
fn field() -> impl Strategy<Value = Vec<u8>> {
    let tag = prop_oneof![
        6 => (1u32..200).prop_map(|t| t.to_string().into_bytes()),
        2 => (200u32..1024).prop_map(|t| t.to_string().into_bytes()),
        2 => (1024u32..10_000).prop_map(|t| t.to_string().into_bytes()),
        1 => (10_000u32..2_000_000_000).prop_map(|t| t.to_string().into_bytes()),
        1 => Just(b"0".to_vec()),
        1 => Just(b"012".to_vec()),
        1 => Just(Vec::new()),
        1 => Just(b"12345678901".to_vec()),
        1 => Just(b"4a".to_vec()),
    ];
    let value = prop_oneof![
        6 => proptest::collection::vec(prop_oneof![0x20u8..0x7f, Just(b'=')], 0..12),
        2 => proptest::collection::vec(b'0'..=b'9', 1..6),
        1 => Just(Vec::new()),
    ];
    prop_oneof![
        10 => (tag, value).prop_map(|(mut t, v)| {
            t.push(b'=');
            t.extend_from_slice(&v);
            t.push(1);
            t
        }),
        // A data pair whose bytes may hold SOH and '=' (and a wrong length sometimes).
        1 => (proptest::collection::vec(prop_oneof![Just(1u8), Just(b'='), 0x20u8..0x7f], 0..10), 0usize..3)
            .prop_map(|(d, wrong)| {
                let n = if wrong == 0 { d.len() + 1 } else { d.len() };
                let mut f = format!("95={n}\x0196=").into_bytes();
                f.extend_from_slice(&d);
                f.push(1);
                f
            }),
        // No '=' at all.
        1 => Just(b"55\x01".to_vec()),
    ]
}

/// A message around `body` with right (or deliberately wrong) BodyLength and CheckSum.
fn message(body: &[u8], bad_len: bool, bad_sum: bool) -> Vec<u8> {
    let mut m = format!("8=FIX.4.4\x019={}\x01", body.len() + bad_len as usize).into_bytes();
    m.extend_from_slice(body);
    let sum = m.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32)) + bad_sum as u32;
    m.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    m
}

fn decoders() -> Vec<(String, Decoder)> {
    let configs = [
        DecoderConfig::default(),
        DecoderConfig {
            reject_empty_values: false,
            ..Default::default()
        },
    ];
    let mut out = Vec::new();
    for (c, config) in configs.iter().enumerate() {
        for level in [Level::Scalar, Level::Sse2, Level::Avx2, Level::Avx512] {
            for fast in [true, false] {
                let mut d = Decoder::new(config.clone());
                d.set_paths(level, fast);
                out.push((format!("config {c} {level:?} fast={fast}"), d));
            }
        }
    }
    out
}

fn check_all_paths(msg: &[u8]) {
    let mut decoders = decoders();
    // Each config's reference is its general walk with scalar code.
    for config in 0..2 {
        let group = &mut decoders[config * 8..config * 8 + 8];
        let want = {
            let (_, d) = &mut group[1]; // Scalar, general walk
            outcome(d, msg)
        };
        for (name, d) in group.iter_mut() {
            // Twice: the second decode must not see the first one's index.
            for round in 0..2 {
                assert_eq!(
                    outcome(d, msg),
                    want,
                    "{name}, round {round}, message {:?}",
                    String::from_utf8_lossy(msg)
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn fast_and_general_walks_agree(
        fields in proptest::collection::vec(field(), 0..30),
        msg_type in prop_oneof![Just(b"35=D\x01".to_vec()), Just(b"35=8\x01".to_vec()), Just(Vec::new())],
        bad_len in proptest::bool::weighted(0.05),
        bad_sum in proptest::bool::weighted(0.05),
    ) {
        let mut body = msg_type;
        for f in &fields {
            body.extend_from_slice(f);
        }
        check_all_paths(&message(&body, bad_len, bad_sum));
    }

    #[test]
    fn paths_agree_on_mutated_messages(
        fields in proptest::collection::vec(field(), 1..20),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), prop_oneof![Just(1u8), Just(b'='), Just(b'0'), Just(b'5'), any::<u8>()]), 1..4),
    ) {
        let mut body = b"35=D\x01".to_vec();
        for f in &fields {
            body.extend_from_slice(f);
        }
        let mut m = message(&body, false, false);
        for (i, b) in flips {
            let i = i.index(m.len());
            m[i] = b;
        }
        check_all_paths(&m);
    }
}

#[test]
fn messages_across_block_boundaries() {
    // Fields straddling every 64-byte boundary, tags of every length.
    for pad in 0..70 {
        let mut body = b"35=D\x01".to_vec();
        body.extend_from_slice(format!("58={}\x01", "x".repeat(pad)).as_bytes());
        for tag in [1u32, 22, 333, 4444, 55555, 666666, 7, 1023, 1024, 88] {
            body.extend_from_slice(format!("{tag}={tag}\x01").as_bytes());
        }
        body.extend_from_slice(b"333=again\x0122=\x01");
        check_all_paths(&message(&body, false, false));
    }
}

#[test]
fn messages_longer_than_the_vector_registers() {
    // Past 256 bytes the vector tag reader gathers from memory instead of
    // permuting registers: both must agree with the general walk.
    for fields in [10usize, 40, 90] {
        let mut body = b"35=D\x01".to_vec();
        for i in 0..fields {
            body.extend_from_slice(
                format!("{}={}\x01", 100 + i * 7, "v".repeat(i % 13)).as_bytes(),
            );
        }
        body.extend_from_slice(format!("58={}\x01", "t".repeat(300)).as_bytes());
        body.extend_from_slice(b"107=last\x01");
        check_all_paths(&message(&body, false, false));
    }
}

#[test]
fn common_messages_take_the_fast_paths() {
    // Agreement alone would not notice a fast path that always gives up.
    let er = message(b"35=8\x0149=SENDER\x0156=TARGET\x0134=12345\x0152=20240115-10:30:00.123\x0137=ORD123456\x0117=EXEC789012\x01150=0\x0139=0\x0154=1\x01151=1000\x0114=0\x016=0\x0155=AAPL\x0138=1000\x0144=150.50\x01", false, false);
    let mut long = b"35=D\x01".to_vec();
    long.extend_from_slice(format!("58={}\x01", "t".repeat(300)).as_bytes());
    let long = message(&long, false, false);
    let mut repeated = b"35=V\x01262=R\x01267=3\x01".to_vec();
    repeated.extend_from_slice(b"269=0\x01269=1\x01269=2\x01");
    let repeated = message(&repeated, false, false);
    for level in [Level::Scalar, Level::Sse2, Level::Avx2, Level::Avx512] {
        let mut d = Decoder::new(DecoderConfig::default());
        d.set_paths(level, true);
        let small = if level == Level::Avx512 && peregrine_codec::supported(Level::Avx512) {
            DecodePath::Vector
        } else {
            DecodePath::Fast
        };
        for (name, msg, want) in [
            ("er", &er, small),
            ("repeated", &repeated, small),
            ("long", &long, DecodePath::Fast),
        ] {
            d.decode(msg).unwrap();
            assert_eq!(d.last_path(), want, "{level:?} {name}");
        }
        // A data field takes the general walk.
        d.decode(&message(b"35=D\x0195=2\x0196=a\x01\x01", false, false))
            .unwrap();
        assert_eq!(d.last_path(), DecodePath::General, "{level:?} data field");
    }
}

#[test]
fn every_field_count_of_a_short_message() {
    // The one-pass AVX-512 path handles fields in chunks of 16 and keeps the
    // last two chunks in registers: every count from 5 to 61 fields (all of
    // them at most 256 bytes), on every path, and the vector path taken.
    for n in 1..=57usize {
        let mut body = b"35=D\x01".to_vec();
        for i in 0..n {
            body.extend_from_slice(format!("{}={}\x01", 1 + i % 9, i % 10).as_bytes());
        }
        let msg = message(&body, false, false);
        assert!(msg.len() <= 256, "{n} fields: {} bytes", msg.len());
        check_all_paths(&msg);
        if peregrine_codec::supported(Level::Avx512) {
            let mut d = Decoder::new(DecoderConfig::default());
            d.set_paths(Level::Avx512, true);
            let v = d.decode(&msg).unwrap();
            assert_eq!(v.len(), n + 4);
            // The first of each repeated tag, and the trailer.
            assert_eq!(v.get(1), Some(&b"0"[..]), "{n} fields");
            assert_eq!(v.get(10), Some(&msg[msg.len() - 4..msg.len() - 1]));
            assert_eq!(d.last_path(), DecodePath::Vector, "{n} fields");
        }
    }
}

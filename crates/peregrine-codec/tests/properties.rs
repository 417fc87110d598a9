//! Property tests: round trips, and the decoder/framer never panic or loop.
mod common;
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Val {
    Str(Vec<u8>),
    Uint(u64),
    Int(i64),
    Dec(i64, u8),
    Ts(i64, u8),
    Data(Vec<u8>),
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![
        // Short values and ones past the encoder's 48-byte window.
        proptest::collection::vec(0x20u8..0x7f, 1..120).prop_map(Val::Str),
        any::<u64>().prop_map(Val::Uint),
        any::<i64>().prop_map(Val::Int),
        (-1_000_000_000_000i64..1_000_000_000_000, 0u8..8).prop_map(|(m, s)| Val::Dec(m, s)),
        (0i64..4_000_000_000_000_000_000, 0u8..4).prop_map(|(n, p)| Val::Ts(n, p)),
        proptest::collection::vec(any::<u8>(), 0..30).prop_map(Val::Data),
    ]
}

fn precision(p: u8) -> TimePrecision {
    [
        TimePrecision::Seconds,
        TimePrecision::Millis,
        TimePrecision::Micros,
        TimePrecision::Nanos,
    ][p as usize]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    // Tags from 2000 on: below that, standard data-length tags would give random values a meaning.
    fn encode_decode_round_trip(fields in proptest::collection::vec((2000u32..100_000, val()), 0..40)) {
        let mut buf = EncodeBuffer::new();
        let mut m = buf.start(b"FIX.4.4", b"D");
        for (tag, v) in &fields {
            match v {
                Val::Str(s) => { m.str(*tag, s); }
                Val::Uint(n) => { m.uint(*tag, *n); }
                Val::Int(n) => { m.int(*tag, *n); }
                Val::Dec(mm, s) => { m.decimal(*tag, Decimal::new(*mm, *s)); }
                Val::Ts(n, p) => { m.timestamp(*tag, &UtcTimestamp::from_unix_nanos(*n, precision(*p)), precision(*p)); }
                Val::Data(d) => { m.data(95, 96, d); }
            }
        }
        let wire = m.finish().to_vec();
        prop_assert_eq!(Framer::default().next_frame(&wire), Frame::Message { len: wire.len() });
        let mut d = Decoder::new(DecoderConfig { reject_empty_values: false, ..Default::default() });
        let v = d.decode(&wire).unwrap();
        prop_assert_eq!(v.msg_type(), b"D");
        // Walk the decoded fields in order alongside what was written.
        let mut i = 3;
        for (tag, val) in &fields {
            match val {
                Val::Data(data) => {
                    prop_assert_eq!(v.field(i).tag, 95);
                    prop_assert_eq!(v.field(i + 1).value, &data[..]);
                    i += 2;
                    continue;
                }
                Val::Str(s) => prop_assert_eq!(v.field(i).value, &s[..]),
                Val::Uint(n) => prop_assert_eq!(value::parse_u64(v.field(i).value), Ok(*n)),
                Val::Int(n) => prop_assert_eq!(value::parse_i64(v.field(i).value), Ok(*n)),
                // Exact representation (Decimal's `==` compares values): the scale must survive.
                Val::Dec(mm, s) => prop_assert_eq!(value::parse_decimal(v.field(i).value).map(|d| (d.mantissa, d.scale)), Ok((*mm, *s))),
                Val::Ts(n, p) => {
                    let unit = [1_000_000_000, 1_000_000, 1_000, 1][*p as usize];
                    prop_assert_eq!(value::parse_timestamp(v.field(i).value).unwrap().to_unix_nanos(), n / unit * unit)
                }
            }
            prop_assert_eq!(v.field(i).tag, *tag);
            i += 1;
        }
        prop_assert_eq!(v.len(), i + 1);
    }

    #[test]
    // The encoder sums every byte as it writes it (no pass over the finished
    // message): check CheckSum and BodyLength against the bytes for every
    // kind of field, tags of every width, BeginStrings of 1 to 32 bytes.
    fn checksum_and_body_length_match_the_bytes(
        begin in proptest::collection::vec(0x21u8..0x7f, 1..=32),
        fields in proptest::collection::vec((prop_oneof![1u32..10, 10u32..100, 100u32..1000, 1000u32..2_000_000_000], val(), any::<u8>()), 0..40),
    ) {
        let mut buf = EncodeBuffer::new();
        let mut m = buf.start(&begin, b"D");
        for (tag, v, c) in &fields {
            match v {
                Val::Str(s) if s.len() % 3 == 0 => { m.str(*tag, &s[..s.len() / 3]); }
                Val::Str(s) => { m.str(*tag, s); }
                Val::Uint(n) => { m.uint(*tag, *n >> (n % 64)); }
                Val::Int(n) => { m.int(*tag, *n >> (n.unsigned_abs() % 64)); }
                Val::Dec(mm, s) => { m.decimal(*tag, Decimal::new(*mm, *s)); }
                Val::Ts(n, p) => { m.timestamp(*tag, &UtcTimestamp::from_unix_nanos(*n, precision(*p)), precision(*p)); }
                Val::Data(_) if c % 2 == 0 => { m.bool(*tag, *c > 100); }
                Val::Data(_) => { m.char(*tag, *c); }
            }
        }
        let body_len = m.body_len();
        let wire = m.finish().to_vec();
        let head = format!("8={}\x019={}\x01", String::from_utf8_lossy(&begin), body_len);
        prop_assert!(wire.starts_with(head.as_bytes()));
        prop_assert_eq!(wire.len(), head.len() + body_len + 7);
        let (msg, trailer) = wire.split_at(wire.len() - 7);
        let sum = msg.iter().map(|&b| b as u32).sum::<u32>() % 256;
        let want = format!("10={sum:03}\x01");
        prop_assert_eq!(trailer, want.as_bytes());
    }

    #[test]
    fn checksum_and_body_length_follow_the_begin_string(begins in proptest::collection::vec(
        prop_oneof![Just(&b"FIX.4.2"[..]), Just(&b"FIXT.1.1"[..]), Just(&b"FIX.4.4"[..]), Just(&b"F"[..])], 1..6),
        seq in any::<u64>()) {
        // One buffer, BeginStrings changing from message to message.
        let mut buf = EncodeBuffer::new();
        let mut d = Decoder::new(DecoderConfig::default());
        for begin in begins {
            let mut m = buf.start(begin, b"0");
            m.uint(34, seq).str(49, b"S").int(9000, -(seq as i64 % 1000));
            let wire = m.finish().to_vec();
            let v = d.decode(&wire).unwrap();
            prop_assert_eq!(v.begin_string(), begin);
            prop_assert_eq!(v.get_as::<u64>(34), Some(Ok(seq)));
        }
    }

    #[test]
    fn decoder_never_panics_on_random_bytes(bytes in proptest::collection::vec(
        prop_oneof![Just(1u8), Just(b'='), Just(b'8'), Just(b'9'), b'0'..=b'9', any::<u8>()], 0..300)) {
        let mut d = Decoder::new(DecoderConfig::default());
        let _ = d.decode(&bytes);
        let mut d = Decoder::new(DecoderConfig { validate_checksum: false, validate_body_length: false, reject_empty_values: false, ..Default::default() });
        if let Ok(v) = d.decode(&bytes) {
            for f in v.fields() { let _ = v.get(f.tag); }
        }
    }

    #[test]
    fn mutated_messages_never_panic_and_framing_always_progresses(
        picks in proptest::collection::vec((0usize..2, any::<usize>(), any::<u8>(), 0usize..4), 1..10)) {
        let base = [common::execution_report(), common::new_order_single()];
        let mut stream = Vec::new();
        for (which, at, byte, op) in picks {
            let mut m = base[which].clone();
            let i = at % m.len();
            match op {
                0 => m[i] = byte,
                1 => { m.insert(i, byte); }
                2 => { m.remove(i); }
                _ => {}
            }
            stream.extend_from_slice(&m);
        }
        let framer = Framer::new(4096);
        let mut d = Decoder::new(DecoderConfig::default());
        let mut pos = 0;
        let mut steps = 0;
        loop {
            steps += 1;
            prop_assert!(steps <= stream.len() + 1, "framer did not progress");
            match framer.next_frame(&stream[pos..]) {
                Frame::Incomplete => break,
                Frame::Message { len } => { prop_assert!(len > 0); let _ = d.decode(&stream[pos..pos + len]); pos += len; }
                Frame::Garbled { skip, .. } => { prop_assert!(skip > 0); pos += skip; }
            }
        }
        prop_assert!(pos <= stream.len());
    }

    #[test]
    fn framing_is_independent_of_how_bytes_arrive(cuts in proptest::collection::vec(1usize..60, 1..20)) {
        let mut stream = Vec::new();
        for _ in 0..5 { stream.extend_from_slice(&common::new_order_single()); stream.extend_from_slice(b"xx"); }
        // Feed the stream in chunks, framing as a session would.
        let framer = Framer::default();
        let mut buf: Vec<u8> = Vec::new();
        let mut messages = 0;
        let mut fed = 0;
        let mut cut = cuts.iter().cycle();
        while fed < stream.len() {
            let n = (*cut.next().unwrap()).min(stream.len() - fed);
            buf.extend_from_slice(&stream[fed..fed + n]);
            fed += n;
            loop {
                match framer.next_frame(&buf) {
                    Frame::Incomplete => break,
                    Frame::Message { len } => { messages += 1; buf.drain(..len); }
                    Frame::Garbled { skip, .. } => { buf.drain(..skip); }
                }
            }
        }
        prop_assert_eq!(messages, 5);
    }
}

//! Measures the cost of validating a FIX 4.4 ExecutionReport against FIX44.xml, next to
//! the cost of decoding it. Run in release:
//!
//! `cargo run --release -p peregrine-dict --example validate_bench`
use std::hint::black_box;
use std::time::Instant;

use peregrine_codec::{Decoder, DecoderConfig};
use peregrine_dict::{Dictionary, ValidationSettings, Validator};

fn wire(text: &str) -> Vec<u8> {
    let body: String = text
        .split('|')
        .filter(|f| !f.is_empty())
        .skip(1)
        .map(|f| format!("{f}\x01"))
        .collect();
    let mut out = format!("8=FIX.4.4\x019={}\x01{body}", body.len()).into_bytes();
    let sum = out.iter().map(|&b| b as u32).sum::<u32>() % 256;
    out.extend_from_slice(format!("10={sum:03}\x01").as_bytes());
    out
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/dictionaries/FIX44.xml");
    let t0 = Instant::now();
    let dict = Dictionary::from_file(dir).unwrap();
    println!("load FIX44.xml: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    let v = Validator::new(&dict, ValidationSettings::default());
    let msg = wire("8=FIX.4.4|35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|");
    let mut decoder = Decoder::new(DecoderConfig::default());
    assert!(v.validate(&decoder.decode(&msg).unwrap()).is_ok());

    let n = 2_000_000u32;
    for round in 0..3 {
        let t = Instant::now();
        for _ in 0..n {
            black_box(decoder.decode(black_box(&msg)).unwrap().len());
        }
        let decode_ns = t.elapsed().as_nanos() as f64 / n as f64;

        let view = decoder.decode(&msg).unwrap();
        let t = Instant::now();
        for _ in 0..n {
            black_box(v.validate(black_box(&view))).unwrap();
        }
        let validate_ns = t.elapsed().as_nanos() as f64 / n as f64;
        println!("round {round}: decode {decode_ns:.1} ns/msg, validate {validate_ns:.1} ns/msg ({} fields)", view.len());
    }
}

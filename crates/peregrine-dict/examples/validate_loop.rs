//! Decodes and validates the benchmark ExecutionReport against FIX44 in a
//! tight loop: a quick check of the validator's cost while tuning, and a
//! steady workload for `valgrind --tool=callgrind` (instruction counts are
//! stable on a busy machine where timings are not). The real benchmark is
//! `peregrine bench codec` (`er_validate`, `er_validate_full`).
//!
//! `N` sets the iterations; `MODE` is `validate` (a session's way: the shape
//! cache has seen the message's shape), `validate_full` (every message walked
//! in full) or `decode` (the decode alone, to subtract).
use peregrine_codec::__bench::time_batches;
use peregrine_codec::{Decoder, DecoderConfig};
use peregrine_dict::{Dictionary, ShapeCache, ValidationSettings, Validator};
use std::hint::black_box;

/// The ExecutionReport body of BENCHMARKS.md §1, `|` for SOH.
const ER_BODY: &str = "35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|";

fn main() {
    let er = peregrine_testkit::frame(ER_BODY);
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let mode = std::env::var("MODE").unwrap_or_else(|_| "validate".into());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dictionaries/FIX44.xml");
    let dict = Dictionary::from_file(path).expect("FIX44 dictionary");
    let validator = Validator::new(&dict, ValidationSettings::default());
    let mut decoder = Decoder::new(DecoderConfig::default());
    let mut shapes = ShapeCache::new();
    {
        let v = decoder.decode(&er).expect("decodes");
        validator.validate(&v).expect("validates");
    }
    let mut op: Box<dyn FnMut() -> usize> = match mode.as_str() {
        "validate" => Box::new(|| {
            let v = decoder.decode(black_box(&er)).expect("decodes");
            v.len() + validator.validate_with(&v, &mut shapes).is_ok() as usize
        }),
        "validate_full" => Box::new(|| {
            let v = decoder.decode(black_box(&er)).expect("decodes");
            v.len() + validator.validate(&v).is_ok() as usize
        }),
        "decode" => Box::new(|| decoder.decode(black_box(&er)).expect("decodes").len()),
        other => panic!("unknown MODE {other}"),
    };
    // The mean and the fastest batch (preemption only ever adds time).
    let (mean, best, s) = time_batches(n, &mut *op);
    println!("{mode}: {mean:.1} ns/op mean, {best:.1} ns/op best batch ({s})");
}

//! The cost of validating against a dictionary, next to the cost of parsing: the
//! ExecutionReport of BENCHMARKS.md §1 decoded with full framing validation (BodyLength,
//! CheckSum, syntax) and then validated against FIX44.xml with QuickFIX's default settings.
//! The bound is validate ≤ parse (validation costs at most as much again as parsing).
//!
//! `cargo run --release -p peregrine-dict --example validate_bench [-- --rounds N --iters N]`
//!
//! Both loops run interleaved in one process, `rounds` times each; the ratio is taken from the
//! medians (ns per message, loop overhead included in both). Also reported: a
//! NewOrderSingle with a nested Parties group, where the validator has more to do. The
//! figures recorded in the crate README come from this example.
//!
//! Instruction counts (repeatable on a noisy machine): `--only validate|shaped|parse --iters N`
//! runs just that loop on the ExecutionReport (and the NewOrderSingle with `--nos`), without
//! timing; run it under `valgrind --tool=callgrind` with two values of N and divide the
//! difference of the totals by the difference of the Ns.
use std::hint::black_box;
use std::time::Instant;

use peregrine_codec::{Decoder, DecoderConfig};
use peregrine_dict::{Dictionary, ShapeCache, ValidationSettings, Validator};

/// `8=FIX.4.4|…` with BodyLength and CheckSum filled in.
fn wire(text: &str) -> Vec<u8> {
    peregrine_testkit::frame(text.strip_prefix("8=FIX.4.4|").expect("a FIX.4.4 message"))
}

const ER: &str = "8=FIX.4.4|35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|";
const NOS_PARTIES: &str = "8=FIX.4.4|35=D|49=SENDER|56=TARGET|34=100|52=20240115-10:30:00.000|11=CLORD001|453=2|448=BRK1|447=D|452=1|802=1|523=DESK7|803=10|448=CLR2|447=D|452=4|21=1|55=AAPL|54=1|60=20240115-10:30:00.000|38=1000|40=2|44=150.00|59=0|";

fn arg(name: &str, default: u32) -> u32 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// (parse ns, validate ns, validate with a shape cache ns) medians for one message.
fn measure(v: &Validator<'_>, msg: &[u8], rounds: u32, iters: u32) -> (f64, f64, f64, usize) {
    let mut decoder = Decoder::new(DecoderConfig::default());
    let fields = decoder.decode(msg).expect("the message decodes").len();
    assert_eq!(
        v.validate(&decoder.decode(msg).unwrap()),
        Ok(()),
        "the message is valid"
    );
    let (mut parse, mut validate, mut shaped) = (Vec::new(), Vec::new(), Vec::new());
    let mut shapes = ShapeCache::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..iters {
            black_box(decoder.decode(black_box(msg)).unwrap().len());
        }
        parse.push(t.elapsed().as_nanos() as f64 / iters as f64);

        let view = decoder.decode(msg).unwrap();
        let t = Instant::now();
        for _ in 0..iters {
            black_box(v.validate(black_box(&view))).unwrap();
        }
        validate.push(t.elapsed().as_nanos() as f64 / iters as f64);

        let t = Instant::now();
        for _ in 0..iters {
            black_box(v.validate_with(black_box(&view), &mut shapes)).unwrap();
        }
        shaped.push(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    (
        median(&mut parse),
        median(&mut validate),
        median(&mut shaped),
        fields,
    )
}

/// Runs one loop only (for instruction counting): no timing, no output.
fn only(v: &Validator<'_>, what: &str, msg: &[u8], iters: u32) {
    let mut decoder = Decoder::new(DecoderConfig::default());
    match what {
        "parse" => {
            for _ in 0..iters {
                black_box(decoder.decode(black_box(msg)).unwrap().len());
            }
        }
        "validate" => {
            let view = decoder.decode(msg).unwrap();
            for _ in 0..iters {
                black_box(v.validate(black_box(&view))).unwrap();
            }
        }
        "shaped" => {
            let view = decoder.decode(msg).unwrap();
            let mut shapes = ShapeCache::new();
            for _ in 0..iters {
                black_box(v.validate_with(black_box(&view), &mut shapes)).unwrap();
            }
        }
        "parse_shaped" => {
            let mut shapes = ShapeCache::new();
            for _ in 0..iters {
                let view = decoder.decode(black_box(msg)).unwrap();
                black_box(v.validate_with(&view, &mut shapes)).unwrap();
            }
        }
        "parse_validate" => {
            for _ in 0..iters {
                let view = decoder.decode(black_box(msg)).unwrap();
                black_box(v.validate(&view)).unwrap();
            }
        }
        other => panic!("--only parse|validate|shaped|parse_validate|parse_shaped, not {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--only") {
        let what = args.get(i + 1).map_or("", String::as_str);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dictionaries/FIX44.xml");
        let dict = Dictionary::from_file(path).expect("FIX44.xml loads");
        let v = Validator::new(&dict, ValidationSettings::default());
        let text = if args.iter().any(|a| a == "--nos") {
            NOS_PARTIES
        } else {
            ER
        };
        only(&v, what, &wire(text), arg("--iters", 1_000_000));
        return;
    }
    let rounds = arg("--rounds", 7).max(1);
    let iters = arg("--iters", 1_000_000).max(1);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dictionaries/FIX44.xml");
    let t0 = Instant::now();
    let dict = Dictionary::from_file(path).expect("FIX44.xml loads");
    println!("load FIX44.xml: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    let v = Validator::new(&dict, ValidationSettings::default());
    println!("{rounds} interleaved rounds of {iters} messages each; medians");
    println!(
        "{:<34} {:>7} {:>10} {:>12} {:>8} {:>12} {:>8}",
        "message", "fields", "parse ns", "validate ns", "ratio", "w/ shapes ns", "ratio"
    );
    let mut er_ratio = 0.0;
    for (name, text) in [
        ("ExecutionReport (BENCHMARKS §1)", ER),
        ("NewOrderSingle + nested Parties", NOS_PARTIES),
    ] {
        let (parse, validate, shaped, fields) = measure(&v, &wire(text), rounds, iters);
        let ratio = validate / parse;
        if text == ER {
            er_ratio = ratio;
        }
        let shaped_ratio = shaped / parse;
        println!(
            "{name:<34} {fields:>7} {parse:>10.1} {validate:>12.1} {ratio:>8.2} {shaped:>12.1} {shaped_ratio:>8.2}"
        );
    }
    println!(
        "validate/parse for the ExecutionReport: {er_ratio:.2} (bound 1.00: {})",
        if er_ratio <= 1.0 { "within" } else { "OVER" }
    );
}

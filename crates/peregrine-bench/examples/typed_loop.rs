//! Reads one of the typed benchmark's messages in a tight loop (a quick check
//! while tuning, also handy under `valgrind --tool=callgrind`; the real
//! benchmark is `peregrine bench typed`).
//!
//! `CASE` is one of `mdr`, `qsr_group`, `qsr_nested`, `multileg`; `N` the iterations.
use peregrine_bench::typed::{canonical, read_mdr, read_multileg, read_qsr};
use peregrine_codec::{Decoder, DecoderConfig};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let case = std::env::var("CASE").unwrap_or_else(|_| "qsr_group".into());
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let msg = canonical(&case);
    let read: fn(&mut Decoder, &[u8]) -> Option<u64> = match case.as_str() {
        "mdr" => read_mdr,
        "qsr_group" | "qsr_nested" => read_qsr,
        "multileg" => read_multileg,
        other => panic!("unknown CASE {other:?}"),
    };
    let mut d = Decoder::new(DecoderConfig::default());
    assert!(read(&mut d, &msg).is_some(), "{case} does not read");
    for _ in 0..3 {
        let batch = 2_000u32;
        let mut best = f64::MAX;
        let mut s = 0u64;
        for _ in 0..(n / batch).max(1) {
            let t = Instant::now();
            for _ in 0..batch {
                s = s.wrapping_add(read(&mut d, black_box(&msg)).unwrap_or(0));
            }
            best = best.min(t.elapsed().as_nanos() as f64 / batch as f64);
        }
        println!("read_{case}: {best:.1} ns/op best batch ({s})");
    }
}

//! Times the decoder and encoder on the benchmark messages in tight loops (a
//! quick check while tuning, also handy under `valgrind --tool=callgrind`;
//! the real benchmark is `peregrine bench codec`).
//!
//! `N` sets the iterations, `MODE` one of `decode`, `decode_only`, `encode`,
//! `encode_min`, `masks`, `all`.
use peregrine_codec::__bench::{field_masks_and_sum, time_batches, BlockMasks};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::{Decoder, DecoderConfig, EncodeBuffer};
use std::hint::black_box;

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    // `MSG=hb` decodes a Heartbeat, `MSG=nos` the NewOrderSingle, instead of
    // the ExecutionReport (the differences show the per-field cost).
    let m = match std::env::var("MSG").as_deref() {
        Ok("hb") => common::msg(
            "FIX.4.4",
            "35=0|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|",
        ),
        Ok("nos") => common::new_order_single(),
        _ => common::execution_report(),
    };
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000_000);
    let mode = std::env::var("MODE").unwrap_or_else(|_| "all".into());
    let mut d = Decoder::new(DecoderConfig::default());
    let mut out = EncodeBuffer::with_capacity(256);
    let ts = UtcTimestamp::from_unix_nanos(1_705_314_600_000_000_000, TimePrecision::Millis);
    let mut masks = [BlockMasks::default(); 4];
    // Each line: the mean and the fastest batch, robust against a busy machine.
    let time = |name: &str, f: &mut dyn FnMut() -> usize| {
        let (mean, best, s) = time_batches(n, f);
        println!("{name}: {mean:.1} ns/op mean, {best:.1} ns/op best batch ({s})");
    };
    for _ in 0..3 {
        if mode == "masks" || mode == "all" {
            time("masks+sum", &mut || {
                field_masks_and_sum(black_box(&m), &mut masks) as usize
            });
        }
        if mode == "decode" || mode == "all" {
            time("decode+read4", &mut || {
                let v = d.decode(black_box(&m)).unwrap();
                v.get(37).map_or(0, |x| x.len())
                    + v.get(17).map_or(0, |x| x.len())
                    + v.get(54).map_or(0, |x| x.len())
                    + v.msg_type().len()
            });
        }
        if mode == "decode_only" {
            // The decode alone (the fields count), to see what the four reads cost.
            time("decode", &mut || d.decode(black_box(&m)).unwrap().len());
        }
        if mode == "encode_min" {
            // Only what every message costs: start, 35=, BodyLength, CheckSum.
            time("encode_min", &mut || {
                out.start(b"FIX.4.4", black_box(b"0")).finish().len()
            });
        }
        if mode == "encode" || mode == "all" {
            time("encode", &mut || {
                // Values through black_box: an application's, not constants.
                let (sender, target, seq, ts) =
                    black_box((&b"SENDER"[..], &b"TARGET"[..], 100, &ts));
                let (id, sym, qty, px) = black_box((&b"CLORD001"[..], &b"AAPL"[..], 1000, 15000));
                let mut e = out.start(b"FIX.4.4", b"D");
                e.str(49, sender).str(56, target).uint(34, seq);
                e.timestamp(52, ts, TimePrecision::Millis);
                e.str(11, id).str(55, sym).char(54, b'1');
                e.timestamp(60, ts, TimePrecision::Millis);
                e.uint(38, qty)
                    .char(40, b'2')
                    .decimal(44, Decimal::new(px, 2))
                    .char(59, b'0');
                e.finish().len()
            });
        }
    }
}

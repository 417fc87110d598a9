//! scratch
use peregrine_codec::{Decoder, DecoderConfig};
use std::hint::black_box;
fn msg(body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut m = format!("8=FIX.4.4\x019={}\x01{}", body.len(), body).into_bytes();
    let sum: u32 = m.iter().map(|&b| b as u32).sum();
    m.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    m
}
fn main() {
    let n: usize = std::env::var("N").unwrap().parse().unwrap();
    let m = msg("35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|");
    let mut d = Decoder::new(DecoderConfig::default());
    let mut s = 0;
    let t = std::time::Instant::now();
    for _ in 0..n { s += d.decode(black_box(&m)).unwrap().len(); }
    println!("{s} {:.1} ns", t.elapsed().as_nanos() as f64 / n as f64);
}

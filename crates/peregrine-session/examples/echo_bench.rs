//! Steady-state cost of the session path: receive a NewOrderSingle, validate it against
//! FIX44.xml, hand it to the echo application, encode and store the echo.
//!
//! `cargo run --release -p peregrine-session --example echo_bench [messages]`
use std::time::Instant;

use peregrine_session::{EchoApp, Session};
use peregrine_store::MemoryStore;

#[path = "../tests/support/mod.rs"]
mod support;
use support::{config, fix44, log_on, message, new_order, T0};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let dicts = fix44();
    let mut cfg = config("FIX.4.4");
    cfg.dictionaries = Some(dicts.clone());
    let store = MemoryStore::with_capacity(T0, n + 16, (n + 16) * 256);
    let mut session = Session::new(cfg, store, T0);
    let mut app = EchoApp::new(Some(dicts));
    log_on(&mut session, &mut app);

    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let id = format!("ORD{i:09}");
            message(b"D", i as u64 + 2, T0, &new_order(id.as_bytes()))
        })
        .collect();
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    let mut bytes_out = 0usize;
    for m in &msgs {
        let t = Instant::now();
        session.on_bytes(m, T0, &mut app);
        session.commit().expect("commit");
        let len = session.outbound().len();
        bytes_out += len;
        session.consume_outbound(len, &mut app);
        lat.push(t.elapsed().as_nanos() as u64);
    }
    let total = start.elapsed();
    assert_eq!(session.next_target_seq(), n as u64 + 2);
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];
    println!(
        "{n} NewOrderSingle in → validated → echoed: {:.0} ns/msg, {:.2} M msg/s; p50 {} ns, p99 {} ns, p99.9 {} ns; {} bytes out",
        total.as_nanos() as f64 / n as f64,
        n as f64 / total.as_secs_f64() / 1e6,
        p(0.5),
        p(0.99),
        p(0.999),
        bytes_out
    );
}

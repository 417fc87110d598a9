//! Steady-state cost of the session path: receive a NewOrderSingle, validate it against
//! FIX44.xml, hand it to the echo application, encode and store the echo.
//!
//! `cargo run --release -p peregrine-session --example echo_bench [messages]`
use std::sync::Arc;
use std::time::Instant;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::EncodeBuffer;
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
use peregrine_store::MemoryStore;

fn message(msg_type: &[u8], seq: u64, now: i64, body: &[(u32, &[u8])]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(b"FIX.4.4", msg_type);
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Millis);
    m.uint(34, seq)
        .str(49, b"TW")
        .timestamp(52, &ts, TimePrecision::Millis)
        .str(56, b"ISLD");
    for &(t, v) in body {
        m.str(t, v);
    }
    m.finish().to_vec()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    );
    let dicts = Arc::new(Dictionaries::single(Dictionary::from_file(path).unwrap()));
    let t0 = 1_795_341_600_250_000_000i64;
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    cfg.dictionaries = Some(dicts.clone());
    let store = MemoryStore::with_capacity(t0, n + 16, (n + 16) * 256);
    let mut session = Session::new(cfg, store, t0);
    let mut app = EchoApp::new(Some(dicts));
    session.on_connected(t0, &mut app);
    session.on_bytes(
        &message(b"A", 1, t0, &[(98, b"0"), (108, b"30")]),
        t0,
        &mut app,
    );
    session.commit().expect("commit");
    session.consume_outbound(session.outbound().len(), &mut app);

    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let id = format!("ORD{i:09}");
            message(
                b"D",
                i as u64 + 2,
                t0,
                &[
                    (11, id.as_bytes()),
                    (21, b"1"),
                    (38, b"100"),
                    (40, b"2"),
                    (44, b"10.25"),
                    (54, b"1"),
                    (55, b"MSFT"),
                    (60, b"20261122-10:00:00.250"),
                ],
            )
        })
        .collect();
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    let mut bytes_out = 0usize;
    for m in &msgs {
        let t = Instant::now();
        session.on_bytes(m, t0, &mut app);
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

//! A small exchange for the router example: an acceptor over TLS that
//! answers each order with two ExecutionReports, New then Fill, and each
//! cancel with an OrderCancelReject (the order is filled already).
//!
//! ```text
//! cargo run -p peregrine-examples --example exchange -- examples/exchange.cfg
//! ```
//!
//! `peregrine bench gateway` (BENCHMARKS.md §8) compiles this file in as its
//! exchange: keep `Exchange` public.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

/// Keeps nothing: its answers are stored with the order's sequence number.
pub struct Exchange;

impl Application for Exchange {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let field = |tag| msg.get(tag).unwrap_or(b"");
        let id = field(11);
        let sent = match msg.msg_type() {
            b"D" => [
                (b"0", b"0", b"-N", &b"0"[..]),
                (b"F", b"2", b"-F", field(38)),
            ]
            .into_iter()
            .try_for_each(|(exec_type, status, suffix, filled)| {
                out.send(b"8", |m| {
                    m.str(37, id)
                        .str(17, &[id, &suffix[..]].concat())
                        .str(11, id);
                    m.str(150, exec_type)
                        .str(39, status)
                        .str(54, field(54))
                        .str(55, field(55));
                    m.str(38, field(38))
                        .str(14, filled)
                        .str(6, b"0")
                        .str(151, b"0");
                })
                .map(|_| ())
            }),
            b"F" => out
                .send(b"9", |m| {
                    m.str(37, field(41))
                        .str(11, id)
                        .str(41, field(41))
                        .str(39, b"2");
                    m.str(434, b"1")
                        .str(102, b"0")
                        .str(58, b"too late to cancel");
                })
                .map(|_| ()),
            b"j" => Ok(()), // a reject is not answered (no reject loops)
            _ => return Err(AppReject::UnsupportedMessageType),
        };
        sent.map_err(|e| AppReject::business(0, e.to_string()))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = std::env::args()
        .nth(1)
        .unwrap_or("examples/exchange.cfg".into());
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let exchange = EngineBuilder::load(&cfg)?
        .stop_flag(stop.clone())
        .start(|_session| Exchange)?;
    println!("exchange listening on {:?}", exchange.listener_addrs());
    // Until SIGINT or SIGTERM: then every session logs out.
    exchange.wait()?;
    Ok(())
}

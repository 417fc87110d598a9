//! A small venue: an acceptor that fills every NewOrderSingle at once with
//! one ExecutionReport, with the settings of a QuickFIX `.cfg`.
//!
//! ```text
//! cargo run -p peregrine-examples --example venue -- examples/venue.cfg
//! ```
//!
//! It stops on SIGINT or SIGTERM (logging every session out).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

/// Answers orders; keeps no state, so a restart loses nothing: an order
/// is answered once its ExecutionReport is stored with the order's
/// sequence number, and re-sent by the client otherwise.
struct Venue;

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if msg.msg_type() != b"D" {
            return Err(AppReject::UnsupportedMessageType);
        }
        let cl_ord_id = msg.get(11).unwrap_or_default();
        let symbol = msg.get(55).unwrap_or_default();
        let side = msg.get(54).unwrap_or(b"1");
        let qty = msg.get(38).unwrap_or(b"0");
        let price = msg.get(44).unwrap_or(b"0");
        let order_id = [b"O-", cl_ord_id].concat();
        out.send(b"8", |er| {
            er.str(6, price) // AvgPx
                .str(11, cl_ord_id)
                .str(14, qty) // CumQty
                .str(17, &order_id) // ExecID: one report per order
                .str(31, price) // LastPx
                .str(32, qty) // LastQty
                .str(37, &order_id) // OrderID
                .str(38, qty)
                .char(39, b'2') // OrdStatus: Filled
                .str(54, side)
                .str(55, symbol)
                .char(150, b'F') // ExecType: Trade
                .str(151, b"0"); // LeavesQty
        })
        .map(|_seq| ())
        .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = std::env::args()
        .nth(1)
        .unwrap_or("examples/venue.cfg".into());
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let venue = EngineBuilder::load(&cfg)?
        .stop_flag(stop.clone())
        .start(|_session| Venue)?;
    println!("venue listening on {:?}", venue.listener_addrs());
    while !stop.load(Ordering::Relaxed) && !venue.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
    }
    venue.stop()?;
    println!("venue stopped");
    Ok(())
}

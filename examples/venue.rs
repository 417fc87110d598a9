//! A small venue: an acceptor that fills every NewOrderSingle at once with
//! one ExecutionReport, with the settings of a QuickFIX `.cfg`.
//!
//! ```text
//! cargo run -p peregrine-examples --example venue -- examples/venue.cfg
//! ```
//!
//! It stops on SIGINT or SIGTERM (logging every session out).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;
use peregrine_messages::codec::value::Decimal;
use peregrine_messages::fix44::enums::{ExecType, OrdStatus};
use peregrine_messages::fix44::{
    self, prelude::*, tags, ExecutionReport, MessageHandler, NewOrderSingle,
};

/// Answers orders. It keeps no state, so a crash loses nothing: an order's
/// ExecutionReport is stored together with the order's sequence number, and
/// an order the venue had not answered is sent again by the client.
struct Venue;

impl MessageHandler<Outbox<'_>> for Venue {
    type Error = AppReject;

    fn on_new_order_single(
        &mut self,
        order: NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        // Absent or unreadable: a session Reject naming the tag (373=1, or 6).
        let cl_ord_id = order.cl_ord_id().required(tags::CL_ORD_ID)?;
        let side = order.side().required(tags::SIDE)?;
        let qty = order.order_qty().required(tags::ORDER_QTY)?;
        let price = order.price().value().unwrap_or(Decimal::new(0, 0));
        let symbol = order.symbol().value().unwrap_or("");
        out.send_typed::<ExecutionReport>(|fill| {
            fill.order_id(cl_ord_id)
                .exec_id(cl_ord_id) // one report per order
                .exec_type(ExecType::Trade)
                .ord_status(OrdStatus::Filled)
                .cl_ord_id(cl_ord_id)
                .symbol(symbol)
                .side(side)
                .order_qty(qty)
                .last_qty(qty)
                .last_px(price)
                .leaves_qty(Decimal::new(0, 0))
                .cum_qty(qty)
                .avg_px(price);
        })?;
        Ok(())
    }
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        // NewOrderSingle to the method above; anything else is refused with a
        // BusinessMessageReject (UnsupportedMessageType).
        fix44::crack(self, msg, out)
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
    // Until SIGINT or SIGTERM: then every session logs out.
    venue.wait()?;
    println!("venue stopped");
    Ok(())
}

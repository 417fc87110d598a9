//! The exchange process (`peregrine-bench gateway-peer --role exchange`): the
//! application of `examples/exchange.rs` itself (compiled in from that file: one source
//! of truth), answering each order with New then Fill, on the settings of
//! [`settings::exchange`]. It prints `ready` once it listens and `router-logged-on` when
//! the router's session logs on (the driver starts the load then); it runs until it is
//! ended (SIGTERM).

use std::io::Write as _;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

use super::args::PeerArgs;
use super::settings;
use crate::{Error, Result};

/// examples/exchange.rs; its `main` is the example's, not used here.
#[allow(dead_code)]
#[path = "../../../../examples/exchange.rs"]
mod example;

/// The line the exchange prints when the router has logged on.
pub const ROUTER_LOGGED_ON: &str = "router-logged-on";

/// The example's exchange, saying when the router logs on.
struct Announced(example::Exchange);

impl Application for Announced {
    fn on_logon(&mut self, _id: &SessionId, _out: &mut Outbox<'_>) {
        println!("{ROUTER_LOGGED_ON}");
        let _ = std::io::stdout().flush();
    }

    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        self.0.from_app(msg, id, out)
    }
}

/// Runs the exchange until it is ended.
///
/// # Errors
///
/// [`Error::Engine`] when it does not start or its engine fails.
pub fn run(a: &PeerArgs) -> Result<()> {
    let engine = EngineBuilder::new(settings::exchange(a.port, &a.dict)?)
        .start(|_| Announced(example::Exchange))
        .map_err(Error::engine("the exchange did not start"))?;
    println!("ready");
    let _ = std::io::stdout().flush();
    // Until its engine ends (the harness ends the process).
    engine
        .wait()
        .map(|_| ())
        .map_err(Error::engine("the exchange's engine failed"))
}

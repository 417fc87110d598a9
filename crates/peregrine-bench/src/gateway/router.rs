//! Peregrine's router process (`peregrine-bench gateway-peer --role router`): the
//! application of `examples/router.rs` itself (compiled in from that file: one source of
//! truth), on the settings [`settings::peregrine_router_cfg`] writes to the run's
//! directory and the engine loads as the example loads its own (`EngineBuilder::load`).
//!
//! It prints `ready` once it listens. It counts the orders its clients send it (the
//! only thing added to the example's application); from the first, after
//! `--warmup-ms` and 100 ms more, it counts the process's allocations (the counting
//! allocator of the `peregrine` binary) over `--measure-ms` less 200 ms, inside the
//! load's window, and prints them per order as one JSON line
//! `{"router_allocs_per_order", "allocations", "orders"}`. It runs until it is ended: SIGTERM stops
//! its engine and it exits 0.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

use super::args::PeerArgs;
use super::settings::{self, RouterPlace};
use crate::{Error, Result};

/// examples/router.rs; its `main` is the example's, not used here.
#[allow(dead_code)]
#[path = "../../../../examples/router.rs"]
mod example;

/// The example's router, counting the orders it is sent.
struct Counted {
    router: example::Router,
    orders: Arc<AtomicU64>,
}

impl Application for Counted {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let order = msg.msg_type() == b"D" && *id != self.router.exchange;
        self.router.from_app(msg, id, out)?;
        if order {
            self.orders.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Runs the router until it is ended.
///
/// # Errors
///
/// [`Error::Output`] when its settings cannot be written, [`Error::Engine`] when it does
/// not start or its engine fails.
pub fn run(a: &PeerArgs) -> Result<()> {
    std::fs::create_dir_all(&a.dir).map_err(|e| Error::output(&a.dir, e))?;
    let cfg = a.dir.join("router.cfg");
    let place = RouterPlace {
        port: a.port,
        exchange_port: a.exchange_port,
        sessions: a.sessions,
        dir: &a.dir,
        dict: &a.dict,
    };
    std::fs::write(&cfg, settings::peregrine_router_cfg(&place))
        .map_err(|e| Error::output(&cfg, e))?;
    let orders = Arc::new(AtomicU64::new(0));
    let counted = orders.clone();
    // SIGTERM (the driver's end) stops the engine and the process exits 0.
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())
        .map_err(Error::engine("the router's SIGTERM handler"))?;
    let engine = EngineBuilder::load(&cfg)
        .map_err(Error::engine("the router's settings"))?
        .stop_flag(stop.clone())
        .start(move |_| Counted {
            router: example::Router::default(),
            orders: counted.clone(),
        })
        .map_err(Error::engine("the router did not start"))?;
    println!("ready");
    let _ = std::io::stdout().flush();
    while orders.load(Ordering::Relaxed) == 0 && !engine.is_finished() {
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(a.warmup_ms + 100));
    let (allocs, taken) = (crate::alloc::allocations(), orders.load(Ordering::Relaxed));
    std::thread::sleep(Duration::from_millis(
        a.measure_ms.saturating_sub(200).max(100),
    ));
    let (allocs, taken) = (
        crate::alloc::allocations() - allocs,
        orders.load(Ordering::Relaxed) - taken,
    );
    let per_order = crate::alloc::is_counting().then(|| allocs as f64 / taken.max(1) as f64);
    println!(
        "{}",
        serde_json::json!({"router_allocs_per_order": per_order, "allocations": allocs, "orders": taken})
    );
    let _ = std::io::stdout().flush();
    // Until the harness stops it (SIGTERM sets the engine's stop flag).
    engine
        .wait()
        .map(|_| ())
        .map_err(Error::engine("the router's engine failed"))
}

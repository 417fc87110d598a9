//! BENCHMARKS.md §8 (the design's §7), an order gateway: `peregrine bench gateway`
//! (`make bench-gateway`).
//!
//! ```text
//! client load (C0…C{N-1}) ──▶ router (GW) ──▶ exchange (EXCH)
//!        ◀──────── Fill ◀──────── router ◀──── New, Fill
//! ```
//!
//! Three processes per run: the client load ([`load`]: Peregrine, N initiator sessions,
//! one order in flight each, the round trip timed to the Fill), the router under test,
//! and the exchange ([`exchange`]: examples/exchange.rs's application). The router is
//! Peregrine's ([`router`]: examples/router.rs's application, one engine journal) or the
//! same router on QuickFIX/J 2.3.1 (peers/quickfixj/.../firstapp/Router.java), with the
//! same clients and exchange, file stores with the same sync policy
//! ([`settings::SYNC_POLICY`]) and FIX44 validation on both. With 1 and with 100 client
//! sessions, 5 runs interleaved; p50/p99/p99.9 and orders/s, the router's CPU time and
//! (Peregrine's) allocations per order; the targets of issue 25 ([`mod@targets`]).
//!
//! The processes keep the contract of [`crate::process`]: the exchange prints `ready`
//! once it listens and `router-logged-on` once the router's session is up, the load
//! prints one JSON line and exits 0, Peregrine's router prints its allocations as one
//! JSON line; anything else goes to stderr.

pub mod args;
pub mod driver;
pub mod exchange;
pub mod load;
pub mod router;
pub mod settings;
pub mod targets;

pub use args::{GatewayConfig, PeerArgs, Role};
pub use driver::run;

use crate::Result;

/// One harness process of the benchmark (`peregrine-bench gateway-peer --role …`).
///
/// ```
/// use peregrine_bench::{gateway::peer_main, Error};
/// assert!(matches!(peer_main(&["--role".into(), "venue".into()]), Err(Error::Usage(_))));
/// ```
///
/// # Errors
///
/// [`crate::Error::Usage`] for bad arguments; the role's own errors.
pub fn peer_main(args: &[String]) -> Result<()> {
    let a = PeerArgs::parse(args)?;
    // 100 sessions and their stores: more descriptors than the usual 1,024 may be needed.
    let _ = crate::process::raise_open_files_limit();
    match a.role {
        Role::Exchange => exchange::run(&a),
        Role::Router => router::run(&a),
        Role::Load => load::run(&a),
    }
}

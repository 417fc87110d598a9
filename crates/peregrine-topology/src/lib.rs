//! # peregrine-topology
//!
//! The trading topology of BENCHMARKS.md §3, built from the real Peregrine layers:
//!
//! ```text
//! Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX acceptor) ⇄ Aeron (IPC or UDP) ⇄ Executor
//! ```
//!
//! * The [`venue`] is a Peregrine initiator engine (`peregrine-engine` + `peregrine-session`,
//!   logon, sequence numbers, message store) that sends NewOrderSingles, one in flight at a
//!   time, each with a fresh ClOrdID written without allocating, and times every round trip
//!   into an HDR histogram.
//! * The [`gateway`] is a Peregrine acceptor engine, built with
//!   [`EngineBuilder::build_local`] from its settings and polled ([`Engine::poll`]) in its
//!   own loop (the venue is built the same way);
//!   its [`Application`](peregrine_session::Application) turns each NewOrderSingle into an
//!   SBE `NewOrder` (prices and quantities fixed point) published with `try_claim`; the same
//!   loop polls the Aeron subscription for SBE `ExecutionReport`s and sends the FIX
//!   ExecutionReport on the session the order came from.
//! * The [`executor`] decodes each `NewOrder` and answers a filled `ExecutionReport`.
//!
//! Each part runs its own loop on its own thread with a configurable idle strategy
//! (default spin-then-yield: three spinning threads on a 2-core machine). Every step of
//! the round trip is stamped with the engine's clock ([`clock`]) and aggregated into
//! per-step histograms ([`steps`]).
//!
//! [`floor`] is the transport floor: the same bytes through the same TCP and Aeron hops
//! with no FIX work at all. [`demo`] is `peregrine run` (`make run`): one run with its
//! latency table, step breakdown, allocations per round trip, JSON and HDR percentile plot
//! (drawn with `peregrine-report`, which the benchmarks share).
//!
//! [`Engine::poll`]: peregrine_engine::Engine::poll
//! [`EngineBuilder::build_local`]: peregrine_engine::EngineBuilder::build_local
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod clock;
pub mod demo;
mod error;
pub mod executor;
pub mod floor;
pub mod gateway;
mod parts;
pub mod samples;
pub mod steps;
pub mod topology;
pub mod venue;
mod wait;

pub use error::{Error, Result, Source};
pub use topology::{run, Part, RunResult, TopologyConfig, Transport};

/// Aeron stream carrying SBE `NewOrder`s, gateway to executor.
///
/// ```
/// use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
/// assert_ne!(ORDERS_STREAM, REPORTS_STREAM); // one channel can carry both
/// ```
pub const ORDERS_STREAM: i32 = 3001;
/// Aeron stream carrying SBE `ExecutionReport`s, executor to gateway.
///
/// ```
/// assert_eq!(peregrine_topology::REPORTS_STREAM, 3002);
/// ```
pub const REPORTS_STREAM: i32 = 3002;

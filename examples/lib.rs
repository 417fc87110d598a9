//! A first application on Peregrine, as two programs:
//!
//! * `venue.rs`, an acceptor that answers every NewOrderSingle with an
//!   ExecutionReport;
//! * `client.rs`, an initiator whose orders are produced on another thread
//!   and sent through the engine's [`Sender`](peregrine_engine::Sender); it
//!   checks that every order is answered exactly once.
//!
//! ```text
//! cargo run -p peregrine-examples --example venue -- examples/venue.cfg
//! cargo run -p peregrine-examples --example client -- examples/client.cfg 1000
//! ```
//!
//! `scripts/examples.sh` (run by `make test`) runs them against each other
//! with the file store and kills the venue with SIGKILL in the middle.

/// The README's Rust snippets, compiled (and run) as doctests so that the
/// front door cannot drift from the API (`rust,ignore` marks a fragment).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

/// The router snippet of docs/forwarding.md, compiled the same way.
#[cfg(doctest)]
#[doc = include_str!("../docs/forwarding.md")]
mod forwarding {}

/// The codec crate README's example, compiled the same way.
#[cfg(doctest)]
#[doc = include_str!("../crates/peregrine-codec/README.md")]
mod codec {}

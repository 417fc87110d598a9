//! # peregrine-sim
//!
//! Deterministic simulation testing of Peregrine's sans-IO session layer:
//! two real [`Session`](peregrine_session::Session)s — an initiator and an
//! acceptor, each on a real store (the memory store, or the file store with
//! a simulated crash of its file system) and with its application — connected
//! by a simulated network and clock, everything drawn from one seeded PRNG. A
//! run is a list of [`Action`](faults::Action)s generated from the seed; the
//! same seed replays the same run, byte for byte.
//!
//! | module | job |
//! | --- | --- |
//! | [`clock`] | the simulated clock (time passing, jumps forward and back) |
//! | [`config`] | a run's configuration from its seed (stores, reset flags, bounds) |
//! | [`faults`] | the actions and faults, drawn from the PRNG or fuzzer bytes; the census |
//! | [`store`] | the real stores, wrapped to crash (unsynced writes lost, a torn last record) |
//! | [`world`] | the nodes, the network and the driver that steps them |
//! | [`invariants`] | the ledger and the invariants checked after every step |
//! | [`route`] | the routing world: a router's two sessions on one engine journal, crashed mid-turn |
//! | [`runner`] | one run: actions, checks, the settle once faults stop, panics caught |
//! | [`trace`] | a failing run shrunk to a minimal trace, and printed |
//!
//! Faults: delays (bytes arrive only when delivered, in any chunking), network
//! stalls, connection drops at any byte (half-written frames lost), half-open
//! connections, duplicate connections (refused by the acceptor's engine, as
//! Peregrine's does), a crash of either side at any step — before or after
//! its commit — and its restart on what the store kept, clock jumps forward
//! and back, slow consumers, Logons with too-high sequence numbers (an
//! operator's `set_next_sender_seq`), ResendRequests of huge ranges (an
//! operator's `set_next_target_seq` far back), mixes of ResetOnLogon,
//! ResetOnLogout and ResetOnDisconnect, garbled bytes, graceful logouts.
//!
//! The invariants are listed in [`invariants`]. A run that breaks one prints
//! the seed, the step, the invariant and the trace shrunk to the actions that
//! still break it ([`trace::shrink`]); `peregrine-sim --seed S --steps N`
//! replays it.
//!
//! ```
//! let out = peregrine_sim::runner::run_seed(1, 2_000);
//! assert!(out.violation.is_none(), "{:?}", out.violation);
//! assert!(out.census.get(peregrine_sim::faults::Tally::WireMessages) > 100);
//! ```
#![forbid(unsafe_code)]

pub mod clock;
pub mod config;
pub mod faults;
pub mod invariants;
pub mod route;
pub mod runner;
pub mod store;
pub mod trace;
pub mod world;

//! Experiment 5 (BENCHMARKS.md §5), scale, in two parts, each a pair of processes per
//! engine (the contract between the driver and the harnesses is
//! `peers/two-process-harnesses.md`; the harnesses print `ready`, then JSON lines):
//!
//! 1. **Streaming** ([`stream`]): one session sends NewOrderSingles one way as fast as
//!    its session layer allows; the receiver validates every message with the FIX44
//!    dictionary, checks every MsgSeqNum, and reports msg/s over a window of
//!    `seconds` after a one-second warm-up, with the in-memory store and with the file
//!    store (`FileStoreSync=N`).
//! 2. **Many sessions** ([`sessions`]): N initiator sessions in one load-generator
//!    process (always Peregrine) against one acceptor with N configured sessions on one
//!    thread: time until all are logged on, then one order in flight per session for
//!    `seconds`: aggregate round trips/s and p50/p99 round trip; the driver reads the
//!    acceptor's RSS before the sessions and once they are all logged on and idle.
//!    Beside the acceptors, the [`floor`]: the same N connections and bytes bounced with
//!    no FIX work on either side, the machine's own ceiling on round trips/s.
//!
//! [`driver`] runs both parts for Peregrine and its peers (QuickFIX/J, QuickFIX C++),
//! interleaved run by run, and reports medians with min–max, the targets, and
//! `target/bench-results/scale.json`.

pub mod args;
pub mod driver;
pub mod floor;
pub mod sessions;
pub mod stream;
pub mod targets;
pub mod window;

pub use driver::{run, ScaleBenchConfig};

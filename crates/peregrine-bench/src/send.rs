//! BENCHMARKS.md §6: the send handle, [`peregrine_engine::Sender`].
//!
//! ```text
//! app thread ─ Sender::send ─▶ queue ─▶ engine thread (FIX initiator session) ─ TCP 127.0.0.1 ─▶ counterparty
//! ```
//!
//! Everything on Peregrine's side goes through the public API a library user has: an
//! initiator engine with one FIX.4.4 session over a memory store sized up front, built
//! and run on a thread of its own by [`EngineBuilder`](peregrine_engine::EngineBuilder) (`store_with`, `start`), and
//! messages submitted from other threads
//! through [`RunningEngine::sender`](peregrine_engine::RunningEngine::sender). The counterparty is **a plain socket reader**, not a
//! second engine: a raw FIX acceptor on a [`TcpListener`](std::net::TcpListener) that answers the Logon (and
//! TestRequest and Logout), frames what it reads and timestamps each message as it comes
//! off the socket. So the figures are the send path's alone (no second session decoding
//! in front of the clock), and the latency cases run two threads (the application's and
//! the engine's), one per core on the 2-core machine of BENCHMARKS.md.
//!
//! Three measurements, for each idle strategy of the engine (busy spin, and block:
//! waiting in `epoll`, woken by the sender):
//!
//! 1. **App thread → wire latency**: the application thread takes the time, calls
//!    [`Sender::send`](peregrine_engine::Sender::send), then reads the counterparty's socket itself (busy-polling a
//!    non-blocking read) until the message is there, and takes the time again: one
//!    monotonic clock, one thread, no clock skew. Paced: one message in flight, the next
//!    no sooner than [`SendBenchConfig::pace`] after the previous one was sent, so the
//!    figure is latency, not queueing (and under `block` the engine is back in `epoll`
//!    before each send). Also reported: how long the `send` call itself keeps the
//!    application thread (`send_call_*`). Each message carries its index (ClOrdID(11)),
//!    checked on arrival.
//! 2. **Throughput**: one, then four producer threads send
//!    [`SendBenchConfig::messages`] messages in all as fast as they can; a full queue
//!    ([`SubmitError::QueueFull`](peregrine_engine::SubmitError::QueueFull)) is retried with a backoff (spin 1, 2, 4 … 32 times,
//!    then `yield` between tries) and every retry is counted. The counterparty reads on
//!    its own thread (blocking reads) and checks that each producer's messages arrive
//!    complete and in order; sends/s = messages ÷ (first send → last message read).
//! 3. **Allocations per message**, counted by the binary's counting allocator
//!    ([`crate::alloc`]) across every thread of the process (producers, the engine, the
//!    counterparty) over the measured messages, after a warm-up. In the throughput
//!    warm-up the counterparty does not read until the queue is full (the engine holds
//!    a session's messages once its socket is full:
//!    [`peregrine_engine::sender::SEND_HOLD_BYTES`]), so every slot of the queue has
//!    been made and used before anything is counted. The memory store is sized for the
//!    run up front ([`MemoryStore::with_capacity`](peregrine_store::MemoryStore::with_capacity)): its arena otherwise doubles a
//!    handful of times per million messages, which is the store's growth, not the send
//!    path's. Any allocation in steady state fails the benchmark ([`Error::Allocates`](crate::Error::Allocates)).
//!
//! A fresh engine and counterparty per case and run; cases interleaved run by run.

use std::time::Duration;

mod case;
mod config;
mod counterparty;
mod harness;
mod initiator;
mod latency;
mod order;
mod run;
mod tables;
mod throughput;

pub use case::{SendCase, SendResults};
pub use config::SendBenchConfig;
pub use counterparty::{Counterparty, Polled};
pub use initiator::{idle_name, initiator_settings};
pub use order::{field, order};
pub use run::run;
pub use tables::tables;

/// The initiator session every case sends through.
pub const SESSION: &str = "FIX.4.4:CLIENT->VENUE";

/// The most producer threads a throughput case takes.
pub const MAX_PRODUCERS: usize = 64;

/// How long a case waits for the logon, a message, or the engine before it fails.
pub(super) const PATIENCE: Duration = Duration::from_secs(30);

/// Room in the memory store per message (a message here is ~170 bytes).
pub(super) const STORE_BYTES_PER_MESSAGE: usize = 256;

//! Idle strategies are Peregrine's one set, from `peregrine-agent`: the loops
//! that poll Aeron idle with the same [`IdleStrategy`] as the engine's reactor.
//!
//! `Block` (waiting in `epoll`) is not here: an Aeron subscription has no file
//! descriptor to wait on, so a loop polling one would spin with it.
//!
//! ```
//! use peregrine_aeron::{Idle, IdleStrategy};
//!
//! // As a command line names it (`--idle backoff:500`).
//! let mut idle: Idle = "backoff:500".parse().unwrap();
//! for _ in 0..3 {
//!     let work = 0; // what a poll returned: nothing, so the strategy backs off
//!     idle.idle(work);
//! }
//! idle.reset();
//! ```

/// Agrona's back-off: spin, then yield, then park for doubling periods.
#[doc(inline)]
pub use peregrine_agent::Backoff;
/// Spins with a CPU pause hint: the lowest latency, a whole core.
#[doc(inline)]
pub use peregrine_agent::BusySpin;
/// An idle strategy chosen at run time by name (`busy-spin`, `spin-then-yield:N`,
/// `backoff:MICROS`, `block`); `block` is for the engine's reactor, not for Aeron loops.
#[doc(inline)]
pub use peregrine_agent::Idle;
/// What a polling loop does between duty cycles, given the work the cycle did.
#[doc(inline)]
pub use peregrine_agent::IdleStrategy;
/// Spins a number of idle cycles, then yields the thread.
#[doc(inline)]
pub use peregrine_agent::SpinThenYield;

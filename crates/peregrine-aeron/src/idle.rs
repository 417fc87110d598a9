//! Idle strategies are Peregrine's one set, from `peregrine-agent`: the loops
//! that poll Aeron idle with the same [`IdleStrategy`] as the engine's reactor.

pub use peregrine_agent::{Backoff, BusySpin, Idle, IdleStrategy, SpinThenYield};

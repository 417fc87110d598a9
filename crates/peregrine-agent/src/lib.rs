//! Peregrine's duty-cycle loop, in the manner of Agrona's `Agent`,
//! `AgentRunner` and `IdleStrategy`: every polling thread of Peregrine (the
//! engine's reactor, the topology's gateway, executor and venue, the
//! benchmarks' loops) is an [`Agent`] whose [`do_work`](Agent::do_work) does
//! what is ready and says how much, run by one loop that calls an
//! [`IdleStrategy`] after every cycle.
//!
//! * [`IdleStrategy`]: what a loop does after a cycle that found no work, with
//!   [`BusySpin`], [`SpinThenYield`], [`Backoff`] and [`Block`], and [`Idle`],
//!   the run-time choice among them that settings files name
//!   (`IdleStrategy=spin-then-yield:100`).
//! * [`Agent`], [`run_agent`] (on the calling thread) and [`AgentRunner`] (on a
//!   thread of its own, stopped and joined by [`AgentRunner::close`]).
//! * [`wait_until`]: the same idling for a loop that waits for one thing (a
//!   connection, a reply) until a deadline.
//!
//! ```
//! use std::time::Duration;
//! use peregrine_agent::{Agent, AgentRunner, Idle};
//!
//! /// Counts to a thousand, one number per cycle.
//! struct Counter(u32);
//!
//! impl Agent for Counter {
//!     type Error = std::convert::Infallible;
//!     fn do_work(&mut self, _may_wait: Duration) -> Result<usize, Self::Error> {
//!         if self.0 == 1000 {
//!             return Ok(0); // no work: the idle strategy runs
//!         }
//!         self.0 += 1;
//!         Ok(1)
//!     }
//!     fn role_name(&self) -> &str {
//!         "counter"
//!     }
//!     fn is_done(&self) -> bool {
//!         self.0 == 1000
//!     }
//! }
//!
//! let runner = AgentRunner::start(Counter(0), "backoff".parse::<Idle>()?)?;
//! let (counter, result) = runner.join();
//! assert!(result.is_ok());
//! assert_eq!(counter.0, 1000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(clippy::missing_errors_doc)]

mod agent;
mod choice;
mod idle;
mod wait;

pub use agent::{run_agent, Agent, AgentRunner};
pub use choice::{Idle, ParseIdleError, MAX_PARK_MICROS_RANGE, SPINS_RANGE};
pub use idle::{Backoff, Block, BusySpin, IdleStrategy, SpinThenYield, BLOCK_MAX_WAIT};
pub use wait::{wait_until, Polled};

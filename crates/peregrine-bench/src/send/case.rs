//! What a case measured ([`SendCase`]) and a whole run's results ([`SendResults`]).

use serde::Serialize;

use crate::report::{Aggregate, Record};

/// One case of one run, as measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SendCase {
    /// `wire_latency_spin`, `throughput_4p_block`, …
    pub case: String,
    /// The run (from 1).
    pub run: usize,
    /// The engine's idle strategy.
    pub idle: String,
    /// Producer threads (1 for latency).
    pub producers: usize,
    /// Measured messages handed to the [`Sender`](peregrine_engine::Sender).
    pub sent: u64,
    /// Measured messages the counterparty read, complete and in order.
    pub delivered: u64,
    /// Warm-up messages before them (sent and delivered).
    pub warmup: u64,
    /// Seconds from the first measured send to the last measured message read.
    pub seconds: f64,
    /// Measured messages per second (`delivered / seconds`).
    pub per_second: f64,
    /// [`SubmitError::QueueFull`](peregrine_engine::SubmitError::QueueFull) answers retried
    /// during the measured messages.
    pub queue_full: u64,
    /// The queue was full at least once during the warm-up (every slot of the queue
    /// made; always so for throughput, which waits for it; latency uses one or two).
    pub pool_warm: bool,
    /// Allocations in the process during the measured messages (`None`: the binary does
    /// not count them).
    pub allocations: Option<u64>,
}

impl SendCase {
    /// Allocations per measured message (`None`: not counted).
    ///
    /// ```
    /// # use peregrine_bench::send::SendCase;
    /// let c = SendCase { case: "x".into(), run: 1, idle: "block".into(), producers: 1, sent: 4,
    ///     delivered: 4, warmup: 0, seconds: 1.0, per_second: 4.0, queue_full: 0, pool_warm: true,
    ///     allocations: Some(2) };
    /// assert_eq!(c.allocs_per_message(), Some(0.5));
    /// ```
    pub fn allocs_per_message(&self) -> Option<f64> {
        self.allocations.map(|a| a as f64 / self.sent.max(1) as f64)
    }
}

/// What [`run`](super::run()) found.
#[derive(Clone, Debug)]
pub struct SendResults {
    /// Every case of every run.
    pub cases: Vec<SendCase>,
    /// The records (µs), as in the JSON's `runs`.
    pub records: Vec<Record>,
    /// Medians across runs, as in the JSON's `results`.
    pub aggregates: Vec<Aggregate>,
}

//! What a case measured ([`SendCase`]) and a whole run's results ([`SendResults`]).

use serde::Serialize;

use crate::report::{Aggregate, Record};

/// One case of one run, as measured.
///
/// ```
/// use peregrine_bench::send::SendCase;
/// let c = SendCase { case: "wire_latency_spin".into(), run: 1, idle: "busy-spin".into(), producers: 1,
///     sent: 2_000, delivered: 2_000, warmup: 500, seconds: 0.1, per_second: 20_000.0, queue_full: 0,
///     pool_warm: true, allocations: Some(0) };
/// assert_eq!(c.allocs_per_message(), Some(0.0));
/// ```
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
///
/// ```no_run
/// let mut cfg = peregrine_bench::send::SendBenchConfig::default();
/// cfg.apply(&peregrine_bench::Options { smoke: true, ..Default::default() });
/// let results = peregrine_bench::send::run(&cfg)?; // about a second
/// assert_eq!(results.records.len(), results.cases.len());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SendResults {
    /// Every case of every run.
    pub cases: Vec<SendCase>,
    /// The records (µs), as in the JSON's `runs`.
    pub records: Vec<Record>,
    /// Medians across runs, as in the JSON's `results`.
    pub aggregates: Vec<Aggregate>,
}

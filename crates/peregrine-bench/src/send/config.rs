//! The benchmark's settings, [`SendBenchConfig`].

use std::time::Duration;

use peregrine_engine::Idle;

use crate::{Options, RunSettings, Smoke};

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::send::SendBenchConfig;
/// let cfg = SendBenchConfig::default();
/// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup, cfg.messages), (5, 100_000, 10_000, 1_000_000));
/// assert_eq!(cfg.producers, [1, 4]);
/// assert!(cfg.common.peers.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct SendBenchConfig {
    /// Runs; latency: measured messages (`--count`) per idle strategy per run; warm-up
    /// messages per case per run (discarded); where the JSON goes. No peers: this
    /// benchmark measures Peregrine's send handle alone.
    pub common: RunSettings,
    /// Throughput: messages per case per run (all producers together).
    pub messages: u64,
    /// Throughput: the producer thread counts (each a case).
    pub producers: Vec<usize>,
    /// Latency: the least time from one send to the next.
    pub pace: Duration,
    /// The engine's idle strategies (each a case).
    pub idles: Vec<Idle>,
}

impl Default for SendBenchConfig {
    fn default() -> Self {
        SendBenchConfig {
            common: RunSettings::new("send", 100_000, 10_000, Smoke::LATENCY, &[]),
            messages: 1_000_000,
            producers: vec![1, 4],
            pace: Duration::from_micros(50),
            idles: vec![Idle::busy_spin(), Idle::block()],
        }
    }
}

impl SendBenchConfig {
    /// Applies command-line options: `--smoke` (1 run; 500 warm-up + 2,000 paced messages and 20,000 throughput
    /// messages, a send every 20 µs: about a second, for `make test`), then the others
    /// ([`RunSettings::apply`], `--count` as `iters`; `--peers` is ignored: this
    /// benchmark has none).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::send::SendBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { smoke: true, out: Some("s.json"), peers: Some("quickfixj"), ..Default::default() });
    /// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup, cfg.messages), (1, 2_000, 500, 20_000));
    /// assert_eq!(cfg.common.out, std::path::Path::new("s.json"));
    /// assert!(cfg.common.peers.is_empty());
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        let no_peers = Options {
            peers: None,
            ..*options
        };
        self.common.apply(&no_peers);
        if options.smoke {
            self.messages = 20_000;
            self.pace = Duration::from_micros(20);
        }
    }
}

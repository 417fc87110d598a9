//! The benchmark's settings, [`SendBenchConfig`].

use std::path::PathBuf;
use std::time::Duration;

use peregrine_engine::Idle;

use crate::Options;

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::send::SendBenchConfig;
/// let cfg = SendBenchConfig::default();
/// assert_eq!((cfg.runs, cfg.count, cfg.warmup, cfg.messages), (5, 100_000, 10_000, 1_000_000));
/// assert_eq!(cfg.producers, [1, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct SendBenchConfig {
    /// Interleaved runs.
    pub runs: usize,
    /// Latency: measured messages per idle strategy per run.
    pub count: u64,
    /// Warm-up messages per case per run (discarded).
    pub warmup: u64,
    /// Throughput: messages per case per run (all producers together).
    pub messages: u64,
    /// Throughput: the producer thread counts (each a case).
    pub producers: Vec<usize>,
    /// Latency: the least time from one send to the next.
    pub pace: Duration,
    /// The engine's idle strategies (each a case).
    pub idles: Vec<Idle>,
    /// Where the JSON goes.
    pub out: PathBuf,
}

impl Default for SendBenchConfig {
    fn default() -> Self {
        SendBenchConfig {
            runs: 5,
            count: 100_000,
            warmup: 10_000,
            messages: 1_000_000,
            producers: vec![1, 4],
            pace: Duration::from_micros(50),
            idles: vec![Idle::busy_spin(), Idle::block()],
            out: crate::repo_root().join("target/bench-results/send.json"),
        }
    }
}

impl SendBenchConfig {
    /// Applies command-line options: `--smoke` (1 run; 500 warm-up + 2,000 paced
    /// messages, 20,000 throughput messages: about a second, for `make test`), then the
    /// others ([`Options::apply_to`], `--count` as `iters`; this benchmark has no peers).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::send::SendBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { smoke: true, out: Some("s.json"), ..Default::default() });
    /// assert_eq!((cfg.runs, cfg.count, cfg.warmup, cfg.messages), (1, 2_000, 500, 20_000));
    /// assert_eq!(cfg.out, std::path::Path::new("s.json"));
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        if options.smoke {
            self.runs = 1;
            self.count = 2_000;
            self.warmup = 500;
            self.messages = 20_000;
            self.pace = Duration::from_micros(20);
        }
        let mut no_peers = Vec::new();
        options.apply_to(
            &mut self.runs,
            &mut self.count,
            &mut self.warmup,
            &mut no_peers,
            &mut self.out,
        );
    }
}

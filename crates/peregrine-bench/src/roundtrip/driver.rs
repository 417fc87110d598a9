//! The driver of `peregrine bench roundtrip`: for each run, for each config, every engine
//! in turn (Peregrine, QuickFIX/J, QuickFIX C++, the floor), each as two fresh processes
//! on a free port with fresh store directories; then medians across runs, the table, the
//! JSON, the HDR plot and the targets.

use super::peer::{histogram_of_pairs, PeerArgs, PeerEngine, ResultLine, Role};
use super::{targets, RtConfig};
use crate::peers::PeerError;
use crate::process::Harness;
use crate::progress::Progress;
use crate::report::{self, new_histogram, Aggregate, Record};
use crate::results;
use crate::{Error, Options, Result, RunSettings, Smoke};
use hdrhistogram::Histogram;
use peregrine_report::plot;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The engines in run and report order.
pub const ENGINES: [&str; 4] = ["peregrine", "quickfixj", "quickfix-cpp", "floor"];

/// The peers this experiment knows.
pub const PEERS: [&str; 2] = ["quickfixj", "quickfix-cpp"];

/// How long an acceptor has to say `ready`.
const READY_PATIENCE: Duration = Duration::from_secs(60);

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::roundtrip::RoundTripConfig;
/// let cfg = RoundTripConfig::default();
/// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup), (5, 100_000, 10_000));
/// assert_eq!((cfg.fsync_iters, cfg.fsync_warmup), (2_000, 200));
/// assert_eq!(cfg.configs.len(), 5); // balanced, optimized, fsync, tls, production
/// ```
#[derive(Clone, Debug)]
pub struct RoundTripConfig {
    /// Runs; measured and warm-up round trips per engine, config and run (all configs but
    /// fsync); peers (`quickfixj`, `quickfix-cpp`); where the JSON goes (the plot beside
    /// it, `.svg`; the processes' store and log directories in `roundtrip-work/` beside
    /// it, removed after each pair).
    pub common: RunSettings,
    /// Measured round trips in `fsync` (an fdatasync costs milliseconds here).
    pub fsync_iters: u64,
    /// Warm-up round trips in `fsync`.
    pub fsync_warmup: u64,
    /// Measured and warm-up round trips in `production` when not those of the others: a
    /// smoke run's (QuickFIX/J logging from a cold JVM takes milliseconds a round trip).
    pub production_counts: Option<(u64, u64)>,
    /// The configs, in run order.
    pub configs: Vec<RtConfig>,
    /// The peers were named on the command line: one that is not built is an error
    /// (otherwise it is skipped, saying so).
    pub peers_explicit: bool,
    /// Include the TCP floor.
    pub floor: bool,
    /// The `peregrine` binary that runs our sides (`bench roundtrip-peer`): the running
    /// one by default.
    pub exe: Option<PathBuf>,
}

impl Default for RoundTripConfig {
    fn default() -> Self {
        RoundTripConfig {
            common: RunSettings::new("roundtrip", 100_000, 10_000, Smoke::LATENCY, &PEERS),
            fsync_iters: 2_000,
            fsync_warmup: 200,
            production_counts: None,
            configs: RtConfig::ALL.to_vec(),
            peers_explicit: false,
            floor: true,
            exe: None,
        }
    }
}

impl RoundTripConfig {
    /// Applies command-line options: `--smoke` (1 run of 500 + 2,000 round trips, `fsync` 20 + 100,
    /// `production` 100 + 400), then the others ([`RunSettings::apply`]); `--iters`/`--warmup`
    /// below the fsync or production counts lower those too.
    ///
    /// ```
    /// use peregrine_bench::{roundtrip::RoundTripConfig, Options};
    /// let mut cfg = RoundTripConfig::default();
    /// cfg.apply(&Options { smoke: true, peers: Some("quickfixj"), ..Default::default() });
    /// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup, cfg.fsync_iters, cfg.fsync_warmup), (1, 2_000, 500, 100, 20));
    /// assert_eq!(cfg.production_counts, Some((400, 100)));
    /// assert!(cfg.peers_explicit && cfg.common.peers == ["quickfixj"]);
    /// let mut cfg = RoundTripConfig::default();
    /// cfg.apply(&Options { iters: Some(50), warmup: Some(5), ..Default::default() });
    /// assert_eq!((cfg.fsync_iters, cfg.fsync_warmup, cfg.peers_explicit), (50, 5, false));
    /// assert_eq!(cfg.production_counts, None);
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        self.common.apply(options);
        if options.smoke {
            self.fsync_iters = 100;
            self.fsync_warmup = 20;
            self.production_counts = Some((400, 100));
        }
        self.production_counts = self
            .production_counts
            .map(|(i, w)| (i.min(self.common.iters), w.min(self.common.warmup)));
        self.fsync_iters = self.fsync_iters.min(self.common.iters);
        self.fsync_warmup = self.fsync_warmup.min(self.common.warmup);
        self.peers_explicit = options.peers.is_some();
    }

    /// Measured and warm-up round trips of `config`.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::{RoundTripConfig, RtConfig};
    /// assert_eq!(RoundTripConfig::default().counts(RtConfig::Fsync), (2_000, 200));
    /// assert_eq!(RoundTripConfig::default().counts(RtConfig::Production), (100_000, 10_000));
    /// ```
    pub fn counts(&self, config: RtConfig) -> (u64, u64) {
        match config {
            RtConfig::Fsync => (self.fsync_iters, self.fsync_warmup),
            RtConfig::Production => self
                .production_counts
                .unwrap_or((self.common.iters, self.common.warmup)),
            _ => (self.common.iters, self.common.warmup),
        }
    }
}

/// How to start one engine's two processes.
///
/// ```
/// use peregrine_bench::roundtrip::driver::EngineCommand;
/// let c = EngineCommand::peer("/repo".as_ref(), "quickfixj")?;
/// assert_eq!((c.engine.as_str(), c.prefix.as_slice(), c.ours), ("quickfixj", &["RoundTrip".to_string()][..], false));
/// # Ok::<(), peregrine_bench::peers::PeerError>(())
/// ```
#[derive(Clone, Debug)]
pub struct EngineCommand {
    /// Its name in the report.
    pub engine: String,
    /// The program.
    pub program: PathBuf,
    /// Arguments before the common ones (`--role …`).
    pub prefix: Vec<String>,
    /// Whether it is one of ours (its acceptor exits by itself and must exit cleanly;
    /// its initiator reports its histogram).
    pub ours: bool,
    /// What must exist for it to count as built.
    pub built: PathBuf,
}

impl EngineCommand {
    /// Our side, `engine`, run by the `peregrine-bench` binary `exe`.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::{driver::EngineCommand, PeerEngine};
    /// let c = EngineCommand::ours("/bin/peregrine-bench".as_ref(), PeerEngine::Floor);
    /// assert_eq!(c.prefix, ["roundtrip-peer", "--engine", "floor"]);
    /// ```
    pub fn ours(exe: &Path, engine: PeerEngine) -> EngineCommand {
        EngineCommand {
            engine: engine.name().into(),
            program: exe.into(),
            prefix: ["roundtrip-peer", "--engine", engine.name()]
                .map(String::from)
                .to_vec(),
            ours: true,
            built: exe.into(),
        }
    }

    /// A peer's harness: `quickfixj` (`peers/quickfixj/run.sh RoundTrip`, built when its
    /// class is compiled) or `quickfix-cpp` (`peers/quickfix-cpp/build/roundtrip`).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::driver::EngineCommand;
    /// let c = EngineCommand::peer("/repo".as_ref(), "quickfix-cpp")?;
    /// assert_eq!(c.program, std::path::Path::new("/repo/peers/quickfix-cpp/build/roundtrip"));
    /// assert!(EngineCommand::peer("/repo".as_ref(), "artio").is_err());
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Unknown`] for another name.
    pub fn peer(root: &Path, engine: &str) -> std::result::Result<EngineCommand, PeerError> {
        match engine {
            "quickfixj" => Ok(EngineCommand {
                engine: engine.into(),
                program: root.join("peers/quickfixj/run.sh"),
                prefix: vec!["RoundTrip".into()],
                ours: false,
                built: root.join("peers/quickfixj/target/classes/peregrine/peers/RoundTrip.class"),
            }),
            "quickfix-cpp" => {
                let program = root.join("peers/quickfix-cpp/build/roundtrip");
                Ok(EngineCommand {
                    engine: engine.into(),
                    built: program.clone(),
                    program,
                    prefix: vec![],
                    ours: false,
                })
            }
            other => Err(PeerError::Unknown {
                engine: other.into(),
                known: "quickfixj, quickfix-cpp",
            }),
        }
    }

    /// Whether what it needs is there.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::driver::EngineCommand;
    /// assert!(!EngineCommand::peer("/nowhere".as_ref(), "quickfix-cpp")?.is_built());
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    pub fn is_built(&self) -> bool {
        self.built.is_file()
    }
}

/// The peers asked for, each built; with `explicit` false, one that is not built is left
/// out with a message on stderr.
///
/// # Errors
///
/// [`PeerError::Unknown`]; [`PeerError::NotBuilt`] when `explicit`.
pub(crate) fn peer_commands(
    root: &Path,
    peers: &[String],
    explicit: bool,
) -> std::result::Result<Vec<EngineCommand>, PeerError> {
    let mut out = Vec::new();
    for p in peers {
        let cmd = EngineCommand::peer(root, p)?;
        if cmd.is_built() {
            out.push(cmd);
        } else if explicit {
            return Err(PeerError::NotBuilt {
                engine: cmd.engine,
                missing: cmd.built,
            });
        } else {
            eprintln!(
                "bench roundtrip: skipping {}: not built ({} missing; `make deps` builds it)",
                cmd.engine,
                cmd.built.display()
            );
        }
    }
    Ok(out)
}

/// Converts a record in nanoseconds to microseconds (the unit of the report).
///
/// ```
/// use peregrine_bench::report::{Record, Stats};
/// let mut r = Record { engine: "quickfixj".into(), case: "balanced".into(), unit: "ns".into(),
///     stats: Stats { p50: 41_500.0, throughput_per_s: 20_000.0, ..Stats::default() }, allocs_per_op: None, settings: String::new() };
/// peregrine_bench::roundtrip::driver::to_us(&mut r);
/// assert_eq!((r.unit.as_str(), r.stats.p50, r.stats.throughput_per_s), ("us", 41.5, 20_000.0));
/// ```
pub fn to_us(r: &mut Record) {
    if r.unit != "ns" {
        return;
    }
    let s = &mut r.stats;
    for v in [
        &mut s.min,
        &mut s.p50,
        &mut s.mean,
        &mut s.p90,
        &mut s.p99,
        &mut s.p999,
        &mut s.max,
    ] {
        *v /= 1000.0;
    }
    r.unit = "us".into();
}

/// What one pair of processes gave.
#[derive(Debug)]
pub(crate) enum PairOutcome {
    /// Its record (µs) and its histogram (ns): ours always, a peer's when its line has
    /// `hdr` (the harnesses print it since issue 12 §4; an older line has none).
    Measured(Record, Option<Box<Histogram<u64>>>),
    /// A peer printed no line for `fsync`: it cannot force its store to disk.
    Unsupported,
}

/// The engines in the order run `run` (from 1) runs them: each run starts one engine
/// later than the one before (run 1 as listed). This VM's scheduling mode holds for
/// seconds at a time, so with a fixed order the engine that follows a slow stretch
/// would draw its slow runs every time.
fn run_order<T>(engines: &[T], run: usize) -> impl Iterator<Item = &T> {
    let n = engines.len();
    let first = run.saturating_sub(1) % n.max(1);
    engines[first..].iter().chain(&engines[..first])
}

/// Runs one engine's acceptor and initiator once for `config` in fresh directories under
/// `work` (removed afterwards); in `production`, checks their logs before removing them
/// ([`super::logs::check`]).
///
/// # Errors
///
/// [`Error::Peer`] when a process does not start, say `ready`, finish in time or exit
/// cleanly (a wrong reply, a sequence error or a reject make ours exit 1), or prints no
/// result (but for a peer's `fsync`); [`Error::Check`] for a result line that does not
/// read, or logs of `production` that miss messages.
pub(crate) fn run_pair(
    cmd: &EngineCommand,
    config: RtConfig,
    (iters, warmup): (u64, u64),
    work: &Path,
    dict: &Path,
) -> Result<PairOutcome> {
    let dir = work.join(format!("{}-{}-{}", cmd.engine, config, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = |role: Role| PeerArgs {
        engine: PeerEngine::Peregrine,
        role,
        config,
        port: 0,
        dir: dir.join(role.name()),
        dict: dict.into(),
        iters,
        warmup,
    };
    if config.tls() {
        peregrine_testkit::tls::TestPki::write(&dir.join("pki"));
    }
    let port = crate::loopback::free_port()?;
    let common = |role: Role| -> Vec<String> {
        let a = PeerArgs { port, ..args(role) };
        let _ = std::fs::create_dir_all(&a.dir);
        // The engine is chosen by the prefix (`--engine …`, or the harness itself).
        let mut v = cmd.prefix.clone();
        v.extend(a.to_args().into_iter().skip(2));
        if role == Role::Acceptor && !cmd.ours {
            // No --iters/--warmup for a peer's acceptor; ours sizes its store by them.
            v.truncate(v.len() - 4);
        }
        v
    };
    let acceptor_args = common(Role::Acceptor);
    let initiator_args = common(Role::Initiator);
    let result = (|| -> Result<PairOutcome> {
        let mut acceptor = Harness::spawn(&cmd.engine, &cmd.program, &acceptor_args)?;
        acceptor.wait_ready(READY_PATIENCE)?;
        let mut initiator = Harness::spawn(&cmd.engine, &cmd.program, &initiator_args)?;
        let patience = args(Role::Initiator).patience() + Duration::from_secs(30);
        let lines = initiator.wait_lines(patience)?;
        if cmd.ours {
            // Our venue exits once the client has logged out; a reject or gap it saw fails it.
            acceptor.wait_lines(Duration::from_secs(30))?;
        } else {
            acceptor.terminate();
        }
        let outcome = outcome_of_lines(cmd, config, &lines)?;
        if config.logs() {
            for role in [Role::Acceptor, Role::Initiator] {
                let logs = super::peregrine::log_dir(&args(role).dir);
                super::logs::check(&logs, &cmd.engine, role.name(), iters + warmup)?;
            }
        }
        Ok(outcome)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// What an initiator's JSON lines say for `config`: its record (µs) and its histogram (ours
/// always, a peer's when its line has `hdr`); a peer that printed no line for `fsync` cannot
/// force its store to disk.
///
/// # Errors
///
/// [`PeerError::MissingCase`] when there is no line for `config` (but for a peer's
/// `fsync`), [`Error::Check`] or [`PeerError::BadLine`] for a line that does not read.
fn outcome_of_lines(
    cmd: &EngineCommand,
    config: RtConfig,
    lines: &[String],
) -> Result<PairOutcome> {
    for line in lines {
        if cmd.ours {
            let l = ResultLine::parse(line)?;
            if l.ns.case == config.name() {
                return Ok(PairOutcome::Measured(
                    l.record(),
                    Some(Box::new(l.histogram()?)),
                ));
            }
        } else {
            let mut r = crate::peers::record_of_line(&cmd.engine, line)?;
            if r.case == config.name() {
                r.engine.clone_from(&cmd.engine);
                to_us(&mut r);
                let h = peer_histogram(&cmd.engine, line)?.map(Box::new);
                return Ok(PairOutcome::Measured(r, h));
            }
        }
    }
    if config == RtConfig::Fsync && !cmd.ours {
        return Ok(PairOutcome::Unsupported);
    }
    Err(PeerError::MissingCase {
        engine: cmd.engine.clone(),
        case: config.name().into(),
    }
    .into())
}

/// The histogram in a peer's line (`hdr`, as in [`ResultLine`]), if it has one.
///
/// # Errors
///
/// [`PeerError::BadLine`] when the line is not JSON or `hdr` is not a list of
/// `[value_ns, count]` pairs, [`Error::Check`] for a value out of the histogram's bounds.
fn peer_histogram(engine: &str, line: &str) -> Result<Option<Histogram<u64>>> {
    #[derive(serde::Deserialize)]
    struct Hdr {
        #[serde(default)]
        hdr: Option<Vec<[u64; 2]>>,
    }
    let l: Hdr = serde_json::from_str(line).map_err(|source| PeerError::BadLine {
        engine: engine.into(),
        line: line.into(),
        source,
    })?;
    l.hdr.as_deref().map(histogram_of_pairs).transpose()
}

/// Runs the whole experiment; returns the aggregates (also printed, written as JSON and
/// plotted).
///
/// ```no_run
/// use peregrine_bench::roundtrip::{run, RoundTripConfig};
/// let mut cfg = RoundTripConfig::default();
/// cfg.apply(&peregrine_bench::Options { smoke: true, peers: Some("none"), ..Default::default() });
/// let aggs = run(&cfg)?;
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Peer`] for an unknown peer, one named but not built, or a pair that fails
/// (any engine: a failed run, a wrong reply or a sequence error fails the benchmark);
/// [`Error::Output`] when the JSON or the plot cannot be written.
pub fn run(cfg: &RoundTripConfig) -> Result<Vec<Aggregate>> {
    let root = crate::repo_root();
    let exe = match &cfg.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe().map_err(Error::engine(
            "cannot find the running peregrine-bench binary",
        ))?,
    };
    let mut engines = vec![EngineCommand::ours(&exe, PeerEngine::Peregrine)];
    engines.extend(peer_commands(&root, &cfg.common.peers, cfg.peers_explicit)?);
    if cfg.floor {
        engines.push(EngineCommand::ours(&exe, PeerEngine::Floor));
    }
    let dict = crate::fix44_dictionary();
    if !dict.is_file() {
        return Err(Error::Dictionary {
            path: dict,
            source: None,
        });
    }
    let work = cfg
        .common
        .out
        .parent()
        .unwrap_or(Path::new("."))
        .join("roundtrip-work");
    let machine = report::machine();
    eprintln!("bench roundtrip: {machine}");
    let mut bar = Progress::new(
        "bench roundtrip",
        cfg.common.runs * cfg.configs.len() * engines.len(),
    );
    let mut all = Vec::new();
    let mut hists: BTreeMap<(String, String), Histogram<u64>> = BTreeMap::new();
    // Engine and config pairs with a run whose line had no histogram: plotted from their
    // median percentiles, not from a histogram missing that run.
    let mut without_hdr = BTreeSet::new();
    let mut unsupported = Vec::new();
    for run in 1..=cfg.common.runs {
        for &config in &cfg.configs {
            for cmd in run_order(&engines, run) {
                if (config.tls() && cmd.engine != "peregrine")
                    || (config.logs() && cmd.engine == "floor")
                {
                    // Peregrine's TLS beside its own balanced run; the floor is plain TCP
                    // and the peers' harnesses have no TLS settings. The floor has no FIX
                    // session, so nothing to log: its balanced row stands.
                    let what = format!("{} {config}", cmd.engine);
                    if !unsupported.contains(&what) {
                        unsupported.push(what);
                    }
                    bar.step(&format!("run {run}: {config}: {} skipped", cmd.engine));
                    continue;
                }
                bar.show(&format!("run {run}: {config}: {}", cmd.engine));
                match run_pair(cmd, config, cfg.counts(config), &work, &dict).map_err(|e| {
                    Error::Engine {
                        what: format!("run {run}, {config}, {}", cmd.engine),
                        source: Some(Box::new(e)),
                    }
                })? {
                    PairOutcome::Measured(r, h) => {
                        let key = (r.engine.clone(), r.case.clone());
                        match h {
                            Some(h) => {
                                let into = hists.entry(key).or_insert_with(new_histogram);
                                // Same bounds everywhere: adding cannot fail.
                                let _ = into.add(&*h);
                            }
                            None => {
                                without_hdr.insert(key);
                            }
                        }
                        all.push(r);
                    }
                    PairOutcome::Unsupported => {
                        let what = format!("{} {config}", cmd.engine);
                        if !unsupported.contains(&what) {
                            unsupported.push(what);
                        }
                    }
                }
                bar.step(&format!("run {run}: {config}: {} done", cmd.engine));
            }
        }
    }
    bar.finish();
    let _ = std::fs::remove_dir(&work);
    hists.retain(|key, _| !without_hdr.contains(key));
    let aggs = report::aggregate(&all);
    let targets = targets(&aggs);
    let settings = report::settings_by_case(&aggs);
    let config = serde_json::json!({
        "runs": cfg.common.runs,
        "iters": cfg.common.iters,
        "warmup": cfg.common.warmup,
        "fsync_iters": cfg.fsync_iters,
        "fsync_warmup": cfg.fsync_warmup,
        "production_counts": cfg.production_counts,
        "configs": cfg.configs.iter().map(|c| c.name()).collect::<Vec<_>>(),
        "engines": engines.iter().map(|e| e.engine.as_str()).collect::<Vec<_>>(),
        "order": "interleaved: each run runs every config, and in each config every engine once, in the order of `engines` rotated by one per run (run 1 as listed, run 2 from the second, ...); two fresh processes per engine, config and run, on a free port, with fresh store directories",
        "method": "one order in flight; the initiator takes t1 before sending a NewOrderSingle and t2 after the ExecutionReport's ClOrdID is checked, from the engine's own callback thread; warm-up discarded; HDR histogram (3 significant digits; the peers keep exact samples, take their percentiles by nearest rank and print their distribution bucketed as such a histogram, which the plot draws); mean = wall time of the measured round trips / count; medians across runs, figure by figure",
        "logs": "production only: message and event logs on at both ends (Peregrine FileLogPath, QuickFIX/J and QuickFIX C++ FileLogFactory with their defaults otherwise), in each process's directory, checked after the pair to hold every order and report, removed with it",
        "idle": format!("Peregrine both sides and the floor: {} in balanced, optimized, tls and production (the engine thread never yields; Peregrine's engines read their one connection directly, asking epoll every 8th turn), {} in fsync (its fdatasyncs need the kernel's journal thread on the same cores); the peers as their `settings` say", RtConfig::Optimized.idle(), RtConfig::Fsync.idle()),
        "machine": machine,
        "load_average_end": report::load_average(),
        "settings": settings,
        "unsupported": unsupported,
        "targets": targets.iter().map(|t| serde_json::json!({"goal": t.goal, "measured": t.measured, "met": t.met})).collect::<Vec<_>>(),
        "anchors_us": super::targets::ANCHORS.iter().map(|(e, c, p50, p99)| serde_json::json!({"engine": e, "config": c, "p50": p50, "p99": p99})).collect::<Vec<_>>(),
    });
    results::write_json(&cfg.common.out, "roundtrip", config, &aggs, &all)?;
    let svg = results::plot_beside(
        &cfg.common.out,
        "Round trip with session guarantees (BENCHMARKS.md §4), latency log scale",
        &series(&aggs, &hists, &cfg.configs),
    )?;
    println!("{}", super::table::markdown(&aggs, &cfg.configs));
    println!("Settings:");
    for (k, v) in &settings {
        println!("  {k}: {v}");
    }
    for u in &unsupported {
        println!("  {u}: not supported by the harness (no result line), left out");
    }
    if let (Some(tls), Some(plain)) = (
        report::find(&aggs, "peregrine", RtConfig::Tls.name()),
        report::find(&aggs, "peregrine", RtConfig::Balanced.name()),
    ) {
        println!(
            "TLS: Peregrine p50 {:.2} µs over TLS vs {:.2} µs in clear (balanced), {:+.2} µs; p99 {:.2} vs {:.2} µs",
            tls.stats.p50,
            plain.stats.p50,
            tls.stats.p50 - plain.stats.p50,
            tls.stats.p99,
            plain.stats.p99
        );
    }
    if let (Some(logged), Some(plain)) = (
        report::find(&aggs, "peregrine", RtConfig::Production.name()),
        report::find(&aggs, "peregrine", RtConfig::Balanced.name()),
    ) {
        println!(
            "Logs: Peregrine p50 {:.2} µs with message and event logs on (production) vs {:.2} µs without (balanced), {:+.2} µs; p99 {:.2} vs {:.2} µs",
            logged.stats.p50,
            plain.stats.p50,
            logged.stats.p50 - plain.stats.p50,
            logged.stats.p99,
            plain.stats.p99
        );
    }
    let production = cfg
        .production_counts
        .map(|(i, w)| format!(", {i} + {w} in production"))
        .unwrap_or_default();
    println!(
        "Counts: {} + {} warm-up round trips per engine, config and run ({} + {} in fsync{production}), {} runs",
        cfg.common.iters, cfg.common.warmup, cfg.fsync_iters, cfg.fsync_warmup, cfg.common.runs
    );
    println!("\n{}", targets::targets_text(&targets));
    println!("{}", targets::anchors_text());
    println!(
        "results: {}\nplot: {}",
        cfg.common.out.display(),
        svg.display()
    );
    Ok(aggs)
}

/// The plot's curves: every engine from its histogram (all runs merged); one without (a
/// peer's line with no `hdr`) from its median percentiles, named `… (p)`.
fn series(
    aggs: &[Aggregate],
    hists: &BTreeMap<(String, String), Histogram<u64>>,
    configs: &[RtConfig],
) -> Vec<plot::Series> {
    let mut out = Vec::new();
    for config in configs {
        for engine in ENGINES {
            let Some(a) = report::find(aggs, engine, config.name()) else {
                continue;
            };
            let key = (engine.to_string(), config.name().to_string());
            out.push(match hists.get(&key) {
                Some(h) => plot::series_from_histogram(&format!("{engine} {config}"), h),
                None => {
                    let s = &a.stats;
                    plot::series_from_summary(
                        &format!("{engine} {config} (p)"),
                        s.min,
                        s.p50,
                        s.p90,
                        s.p99,
                        s.p999,
                    )
                }
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_peers() {
        let mut c = RoundTripConfig::default();
        c.apply(&Options {
            runs: Some(2),
            peers: Some("none"),
            out: Some("x.json"),
            ..Options::default()
        });
        assert_eq!(
            (c.common.runs, c.common.peers.len(), c.peers_explicit),
            (2, 0, true)
        );
        assert_eq!(c.counts(RtConfig::Balanced), (100_000, 10_000));
        let nowhere = Path::new("/nowhere");
        // Not built: skipped when the peers were not named, an error when they were.
        assert!(peer_commands(nowhere, &["quickfixj".into()], false)
            .unwrap()
            .is_empty());
        assert!(matches!(
            peer_commands(nowhere, &["quickfix-cpp".into()], true),
            Err(PeerError::NotBuilt { .. })
        ));
        assert!(matches!(
            peer_commands(nowhere, &["artio".into()], false),
            Err(PeerError::Unknown { .. })
        ));
    }

    #[test]
    fn result_lines_by_case() {
        let peer = EngineCommand::peer(Path::new("/repo"), "quickfix-cpp").unwrap();
        let line = |case: &str| {
            format!(
                r#"{{"engine":"x","case":"{case}","min":1000,"p50":2000,"mean":2000,"p90":3000,"p99":4000,"p999":5000,"max":6000,"throughput_per_s":7,"settings":"says \"fsync\""}}"#
            )
        };
        let lines = vec![line("optimized"), line("balanced")];
        match outcome_of_lines(&peer, RtConfig::Balanced, &lines).unwrap() {
            PairOutcome::Measured(r, None) => {
                assert_eq!(
                    (r.engine.as_str(), r.case.as_str(), r.stats.p50),
                    ("quickfix-cpp", "balanced", 2.0)
                );
            }
            other => panic!("{other:?}"),
        }
        // A peer without an fsync line cannot fsync; any other missing line is a failure.
        assert!(matches!(
            outcome_of_lines(&peer, RtConfig::Fsync, &lines),
            Ok(PairOutcome::Unsupported)
        ));
        assert!(outcome_of_lines(&peer, RtConfig::Optimized, &[]).is_err());
        let ours = EngineCommand::ours(Path::new("/bin/peregrine"), PeerEngine::Floor);
        assert!(outcome_of_lines(&ours, RtConfig::Fsync, &[]).is_err());
        assert!(outcome_of_lines(&ours, RtConfig::Balanced, &[line("balanced")]).is_err());
        // no hdr
    }

    #[test]
    fn a_peer_line_with_hdr_gives_its_histogram() {
        let peer = EngineCommand::peer(Path::new("/repo"), "quickfixj").unwrap();
        let line = r#"{"engine":"quickfixj","case":"optimized","unit":"ns","iters":4,"min":18048,"p50":20480,"mean":20000.5,"p90":20480,"p99":20480,"p999":20480,"max":20480,"throughput_per_s":7,"jvm_alloc_bytes_per_op":1.5,"settings":"s","hdr":[[18048,1],[20480,3]]}"#;
        match outcome_of_lines(&peer, RtConfig::Optimized, &[line.into()]).unwrap() {
            PairOutcome::Measured(r, Some(h)) => {
                assert_eq!((r.stats.p50, h.len(), h.min()), (20.48, 4, 18_048));
            }
            other => panic!("{other:?}"),
        }
        // A malformed or out-of-bounds hdr is an error, not a silent fallback.
        for bad in [r#""hdr":[[1]]"#, r#""hdr":[[18446744073709551615,1]]"#] {
            let l = line.replace(r#""hdr":[[18048,1],[20480,3]]"#, bad);
            assert!(
                outcome_of_lines(&peer, RtConfig::Optimized, &[l]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn each_run_starts_one_engine_later() {
        let engines = ["peregrine", "quickfixj", "quickfix-cpp", "floor"];
        let order = |run| run_order(&engines, run).copied().collect::<Vec<_>>();
        assert_eq!(order(1), engines);
        assert_eq!(
            order(2),
            ["quickfixj", "quickfix-cpp", "floor", "peregrine"]
        );
        assert_eq!(
            order(4),
            ["floor", "peregrine", "quickfixj", "quickfix-cpp"]
        );
        assert_eq!(order(5), engines);
        assert!(run_order::<&str>(&[], 3).next().is_none());
    }

    #[test]
    fn series_from_histograms_or_summaries() {
        let rec = |engine: &str| Record {
            engine: engine.into(),
            case: "optimized".into(),
            unit: "us".into(),
            stats: crate::report::Stats {
                min: 10.0,
                p50: 20.0,
                mean: 20.0,
                p90: 30.0,
                p99: 40.0,
                p999: 50.0,
                max: 60.0,
                throughput_per_s: 1.0,
            },
            allocs_per_op: None,
            settings: String::new(),
        };
        let aggs = report::aggregate(&[rec("quickfixj"), rec("quickfix-cpp")]);
        let mut hists = BTreeMap::new();
        let mut h = new_histogram();
        h.record_n(20_000, 3).unwrap();
        hists.insert(("quickfixj".to_string(), "optimized".to_string()), h);
        let names: Vec<String> = series(&aggs, &hists, &[RtConfig::Optimized])
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["quickfixj optimized", "quickfix-cpp optimized (p)"]);
    }
}

//! Running a peer's harness (a separate process) and reading its results:
//! one JSON object per case per line on stdout, times in nanoseconds unless the line
//! says otherwise (`"unit": "us"`).

use crate::progress::Progress;
use crate::report::{self, Aggregate, Record, Stats};
use crate::Error;
use crate::RunSettings;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// How to start one peer harness.
///
/// ```
/// use std::path::Path;
/// use peregrine_bench::peers::PeerCommand;
///
/// let mut cmd = PeerCommand::e2e(Path::new("/repo"), "quickfixj", "e2e-quickfixj");
/// cmd.args = vec!["--spins".into(), "100".into()];
/// assert_eq!(cmd.engine, "quickfixj");
/// ```
#[derive(Clone, Debug)]
pub struct PeerCommand {
    /// Engine name in the report.
    pub engine: String,
    /// Program to run.
    pub program: PathBuf,
    /// Arguments before the common ones (`--cases`, `--iters`, `--warmup`, `--dict`).
    pub args: Vec<String>,
}

#[derive(Deserialize)]
struct Line {
    engine: String,
    case: String,
    mean: f64,
    min: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
    max: f64,
    throughput_per_s: f64,
    #[serde(default)]
    unit: Option<String>,
    #[serde(default)]
    settings: String,
    /// The JVM harnesses of the trading topology report what the whole JVM allocated.
    #[serde(default)]
    jvm_alloc_bytes_per_op: Option<f64>,
}

/// What went wrong with a peer's harness.
///
/// ```
/// use peregrine_bench::peers::PeerError;
/// let e = PeerError::Unknown { engine: "fixy".into(), known: "quickfix-cpp, quickfixj" };
/// assert_eq!(e.to_string(), r#"unknown peer engine "fixy" (known: quickfix-cpp, quickfixj)"#);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum PeerError {
    /// No harness of that name for this benchmark.
    Unknown {
        /// The name asked for.
        engine: String,
        /// The names there are.
        known: &'static str,
    },
    /// The harness is not built.
    NotBuilt {
        /// The engine.
        engine: String,
        /// What is missing (the binary, or the jar beside `run.sh`).
        missing: PathBuf,
    },
    /// The harness could not be started.
    Start {
        /// The engine.
        engine: String,
        /// The program.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The harness exited with a failure.
    Failed {
        /// The engine.
        engine: String,
        /// How it exited.
        status: ExitStatus,
        /// The last lines it wrote to stderr.
        stderr_tail: String,
    },
    /// A result line that does not read.
    BadLine {
        /// The engine.
        engine: String,
        /// The line.
        line: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A two-process harness did not say `ready` or did not finish in time
    /// ([`crate::process::Harness`]).
    Timeout {
        /// The engine.
        engine: String,
        /// The program.
        program: PathBuf,
        /// What was awaited (`ready`, its results, its exit).
        waiting_for: &'static str,
        /// The last lines it wrote to stderr.
        stderr_tail: String,
    },
    /// No result for a case asked for.
    MissingCase {
        /// The engine.
        engine: String,
        /// The case.
        case: String,
    },
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::Unknown { engine, known } => {
                write!(f, "unknown peer engine {engine:?} (known: {known})")
            }
            PeerError::NotBuilt { engine, missing } => write!(
                f,
                "peer {engine} is not built ({} missing): run `make deps`",
                missing.display()
            ),
            PeerError::Start {
                engine,
                program,
                source,
            } => write!(f, "{engine}: cannot start {}: {source}", program.display()),
            PeerError::Failed {
                engine,
                status,
                stderr_tail,
            } => write!(f, "{engine} exited with {status}:\n{stderr_tail}"),
            PeerError::BadLine {
                engine,
                line,
                source,
            } => write!(f, "{engine}: bad result line {line:?}: {source}"),
            PeerError::Timeout {
                engine,
                program,
                waiting_for,
                stderr_tail,
            } => write!(
                f,
                "{engine}: {} did not give {waiting_for} in time:\n{stderr_tail}",
                program.display()
            ),
            PeerError::MissingCase { engine, case } => {
                write!(f, "{engine}: no result for case {case}")
            }
        }
    }
}

impl std::error::Error for PeerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PeerError::Start { source, .. } => Some(source),
            PeerError::BadLine { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl PeerCommand {
    /// A C++ harness built under `peers/quickfix-cpp/build/`.
    ///
    /// ```
    /// use std::path::Path;
    /// let cmd = peregrine_bench::peers::PeerCommand::quickfix_cpp(Path::new("/repo"), "codec_bench");
    /// assert_eq!(cmd.engine, "quickfix-cpp");
    /// assert_eq!(cmd.program, Path::new("/repo/peers/quickfix-cpp/build/codec_bench"));
    /// ```
    pub fn quickfix_cpp(root: &Path, binary: &str) -> PeerCommand {
        PeerCommand {
            engine: "quickfix-cpp".into(),
            program: root.join("peers/quickfix-cpp/build").join(binary),
            args: vec![],
        }
    }

    /// A Java harness class (`CodecBench`, `TypedBench`) of the QuickFIX/J Maven
    /// project under `peers/quickfixj/`, started through its `run.sh` (JVM options
    /// there, overridable with `PEREGRINE_JVM_OPTS`).
    ///
    /// ```
    /// use std::path::Path;
    /// let cmd = peregrine_bench::peers::PeerCommand::quickfixj(Path::new("/repo"), "TypedBench");
    /// assert_eq!(cmd.program, Path::new("/repo/peers/quickfixj/run.sh"));
    /// assert_eq!(cmd.args, ["TypedBench"]);
    /// ```
    pub fn quickfixj(root: &Path, main_class: &str) -> PeerCommand {
        PeerCommand {
            engine: "quickfixj".into(),
            program: root.join("peers/quickfixj/run.sh"),
            args: vec![main_class.into()],
        }
    }

    /// The harness of a micro-benchmark (codec, typed) by engine name: `quickfix-cpp`
    /// runs the C++ binary `cpp_binary`, `quickfixj` the Java class `java_class`.
    ///
    /// ```
    /// use std::path::Path;
    /// use peregrine_bench::peers::{PeerCommand, PeerError};
    /// let root = Path::new("/repo");
    /// let cmd = PeerCommand::micro(root, "quickfixj", "codec_bench", "CodecBench").unwrap();
    /// assert_eq!(cmd.args, ["CodecBench"]);
    /// assert!(matches!(
    ///     PeerCommand::micro(root, "artio", "codec_bench", "CodecBench"),
    ///     Err(PeerError::Unknown { .. })
    /// ));
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Unknown`] for any other name.
    pub fn micro(
        root: &Path,
        engine: &str,
        cpp_binary: &str,
        java_class: &str,
    ) -> Result<PeerCommand, PeerError> {
        match engine {
            "quickfix-cpp" => Ok(PeerCommand::quickfix_cpp(root, cpp_binary)),
            "quickfixj" => Ok(PeerCommand::quickfixj(root, java_class)),
            other => Err(PeerError::Unknown {
                engine: other.into(),
                known: "quickfix-cpp, quickfixj",
            }),
        }
    }

    /// A trading-topology harness (BENCHMARKS.md §3) under `peers/<dir>/`, started
    /// through its `run.sh`: `e2e-quickfixj` (engine `quickfixj`) or `e2e-artio` (`artio`).
    ///
    /// ```
    /// use std::path::Path;
    /// let cmd = peregrine_bench::peers::PeerCommand::e2e(Path::new("/repo"), "artio", "e2e-artio");
    /// assert_eq!(cmd.program, Path::new("/repo/peers/e2e-artio/run.sh"));
    /// ```
    pub fn e2e(root: &Path, engine: &str, dir: &str) -> PeerCommand {
        PeerCommand {
            engine: engine.into(),
            program: root.join("peers").join(dir).join("run.sh"),
            args: vec![],
        }
    }

    /// What a build makes: the C++ binary itself, or a jar in `target/` beside `run.sh`
    /// (`target/*.jar`).
    ///
    /// ```
    /// use std::path::Path;
    /// let cmd = peregrine_bench::peers::PeerCommand::e2e(Path::new("/repo"), "artio", "e2e-artio");
    /// assert_eq!(cmd.built(), Path::new("/repo/peers/e2e-artio/target/*.jar"));
    /// ```
    pub fn built(&self) -> PathBuf {
        match (self.runs_a_jar(), self.program.parent()) {
            (true, Some(dir)) => dir.join("target/*.jar"),
            _ => self.program.clone(),
        }
    }

    fn runs_a_jar(&self) -> bool {
        self.program.file_name().and_then(|n| n.to_str()) == Some("run.sh")
    }

    /// Whether the harness looks built (see [`built`](Self::built)).
    ///
    /// ```
    /// use std::path::Path;
    /// let cmd = peregrine_bench::peers::PeerCommand::quickfix_cpp(Path::new("/nowhere"), "codec_bench");
    /// assert!(!cmd.is_available());
    /// ```
    pub fn is_available(&self) -> bool {
        if !self.runs_a_jar() {
            return self.program.is_file();
        }
        self.program
            .parent()
            .and_then(|d| std::fs::read_dir(d.join("target")).ok())
            .is_some_and(|mut entries| {
                entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".jar")))
            })
    }

    /// The harness, if it is built.
    ///
    /// ```
    /// use std::path::Path;
    /// use peregrine_bench::peers::{PeerCommand, PeerError};
    /// let cmd = PeerCommand::quickfix_cpp(Path::new("/nowhere"), "codec_bench");
    /// assert!(matches!(cmd.if_built(), Err(PeerError::NotBuilt { .. })));
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::NotBuilt`], naming what is missing.
    pub fn if_built(self) -> Result<PeerCommand, PeerError> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(PeerError::NotBuilt {
                missing: self.built(),
                engine: self.engine,
            })
        }
    }

    /// Runs the harness for `cases` and returns one record per case.
    ///
    /// ```no_run
    /// use peregrine_bench::peers::PeerCommand;
    /// let cmd = PeerCommand::quickfix_cpp(&peregrine_bench::repo_root(), "codec_bench");
    /// let records = cmd.run(&["er_parse"], 100_000, 100_000, &peregrine_bench::fix44_dictionary())?;
    /// println!("{}: {} ns mean", records[0].engine, records[0].stats.mean);
    /// # Ok::<(), peregrine_bench::peers::PeerError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PeerError::Start`], [`PeerError::Failed`], [`PeerError::BadLine`], or
    /// [`PeerError::MissingCase`] when a case has no result.
    pub fn run(
        &self,
        cases: &[&str],
        iters: u64,
        warmup: u64,
        dict: &Path,
    ) -> Result<Vec<Record>, PeerError> {
        let out = Command::new(&self.program)
            .args(&self.args)
            .arg("--cases")
            .arg(cases.join(","))
            .arg("--iters")
            .arg(iters.to_string())
            .arg("--warmup")
            .arg(warmup.to_string())
            .arg("--dict")
            .arg(dict)
            .output()
            .map_err(|source| PeerError::Start {
                engine: self.engine.clone(),
                program: self.program.clone(),
                source,
            })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
            return Err(PeerError::Failed {
                engine: self.engine.clone(),
                status: out.status,
                stderr_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            });
        }
        let records = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with('{'))
            .map(|l| record_of_line(&self.engine, l))
            .collect::<Result<Vec<_>, _>>()?;
        for c in cases {
            if !records.iter().any(|r| r.case == *c) {
                return Err(PeerError::MissingCase {
                    engine: self.engine.clone(),
                    case: (*c).into(),
                });
            }
        }
        Ok(records)
    }
}

/// The record of one result line of a harness (`engine` names it in errors).
///
/// ```
/// let line = r#"{"engine":"quickfixj","case":"balanced","min":1,"p50":2,"mean":2,"p90":3,"p99":4,"p999":5,"max":6,"throughput_per_s":7,"settings":"FileStore"}"#;
/// let r = peregrine_bench::peers::record_of_line("quickfixj", line)?;
/// assert_eq!((r.case.as_str(), r.unit.as_str(), r.stats.p99), ("balanced", "ns", 4.0));
/// # Ok::<(), peregrine_bench::peers::PeerError>(())
/// ```
///
/// # Errors
///
/// [`PeerError::BadLine`] when the line is not such a JSON object.
pub fn record_of_line(engine: &str, line: &str) -> Result<Record, PeerError> {
    let l: Line = serde_json::from_str(line).map_err(|source| PeerError::BadLine {
        engine: engine.into(),
        line: line.into(),
        source,
    })?;
    let mut settings = l.settings;
    if let Some(b) = l.jvm_alloc_bytes_per_op {
        settings.push_str(&format!("; JVM allocation {b:.1} bytes per operation"));
    }
    Ok(Record {
        engine: l.engine,
        case: l.case,
        unit: l.unit.unwrap_or_else(|| "ns".into()),
        stats: Stats {
            min: l.min,
            p50: l.p50,
            mean: l.mean,
            p90: l.p90,
            p99: l.p99,
            p999: l.p999,
            max: l.max,
            throughput_per_s: l.throughput_per_s,
        },
        allocs_per_op: None,
        settings,
    })
}

/// The harnesses `engines` of a micro-benchmark (see [`PeerCommand::micro`]), each
/// built.
///
/// ```
/// let none = peregrine_bench::peers::micro_peers(&[], "codec_bench", "CodecBench")?;
/// assert!(none.is_empty());
/// assert!(peregrine_bench::peers::micro_peers(&["nope".into()], "codec_bench", "CodecBench").is_err());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`PeerError::Unknown`] or [`PeerError::NotBuilt`]; [`Error::Dictionary`] when there
/// are peers and the FIX44 dictionary they are given is not there.
pub fn micro_peers(
    engines: &[String],
    cpp_binary: &str,
    java_class: &str,
) -> crate::Result<Vec<PeerCommand>> {
    let root = crate::repo_root();
    let peers = engines
        .iter()
        .map(|e| PeerCommand::micro(&root, e, cpp_binary, java_class)?.if_built())
        .collect::<Result<Vec<_>, _>>()?;
    let dict = crate::fix44_dictionary();
    if !peers.is_empty() && !dict.is_file() {
        return Err(Error::Dictionary {
            path: dict,
            source: None,
        });
    }
    Ok(peers)
}

/// The interleaved rounds of a micro-benchmark (codec, typed): each round runs
/// Peregrine's side, then every peer's harness on the same cases, so that a slow spell of
/// a shared machine falls on every engine alike; and the report they share.
///
/// ```no_run
/// use peregrine_bench::peers::{micro_peers, Rounds};
///
/// let rounds = Rounds {
///     name: "typed",
///     runs: 5,
///     cases: &peregrine_bench::typed::CASES,
///     iters: 200_000,
///     warmup: 300_000,
///     peers: micro_peers(&["quickfix-cpp".into()], "typed_bench", "TypedBench")?,
/// };
/// let records = rounds.run(|| peregrine_bench::typed::run_peregrine(200_000, 300_000))?;
/// println!("{}", peregrine_bench::report::markdown_table(&peregrine_bench::report::aggregate(&records)));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Debug)]
pub struct Rounds<'a> {
    /// The benchmark (`codec`): the progress bar says `bench codec`, the JSON
    /// `"bench": "codec"`.
    pub name: &'a str,
    /// Rounds.
    pub runs: usize,
    /// The cases the peers run.
    pub cases: &'a [&'a str],
    /// Measured operations per case.
    pub iters: u64,
    /// Warm-up operations per case.
    pub warmup: u64,
    /// The peers' harnesses.
    pub peers: Vec<PeerCommand>,
}

impl<'a> Rounds<'a> {
    /// The rounds of the micro-benchmark `name` on `cases` with the settings every
    /// benchmark has: its runs and counts, and the harnesses of its peers
    /// ([`micro_peers`]: `cpp_binary`, `java_class`).
    ///
    /// ```
    /// use peregrine_bench::{peers::Rounds, RunSettings, Smoke};
    /// let mut common = RunSettings::new("demo", 10, 0, Smoke::MICRO, &[]);
    /// common.runs = 2;
    /// let rounds = Rounds::micro("demo", &[], &common, "demo_bench", "DemoBench")?;
    /// assert_eq!((rounds.runs, rounds.iters, rounds.peers.len()), (2, 10, 0));
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`micro_peers`].
    pub fn micro(
        name: &'a str,
        cases: &'a [&'a str],
        common: &RunSettings,
        cpp_binary: &str,
        java_class: &str,
    ) -> crate::Result<Rounds<'a>> {
        Ok(Rounds {
            name,
            runs: common.runs,
            cases,
            iters: common.iters,
            warmup: common.warmup,
            peers: micro_peers(&common.peers, cpp_binary, java_class)?,
        })
    }
}

impl Rounds<'_> {
    /// Runs the rounds, Peregrine's side by `peregrine()`, and returns every record.
    ///
    /// ```
    /// use peregrine_bench::peers::Rounds;
    /// use peregrine_bench::report::Record;
    ///
    /// let rounds = Rounds { name: "demo", runs: 3, cases: &[], iters: 10, warmup: 0, peers: vec![] };
    /// let mut calls = 0;
    /// let records = rounds.run(|| {
    ///     calls += 1;
    ///     Ok(Vec::<Record>::new())
    /// })?;
    /// assert_eq!((calls, records.len()), (3, 0));
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The first error of `peregrine()` or of a peer ([`Error::Peer`]).
    pub fn run(
        &self,
        mut peregrine: impl FnMut() -> crate::Result<Vec<Record>>,
    ) -> crate::Result<Vec<Record>> {
        let dict = crate::fix44_dictionary();
        let label = format!("bench {}", self.name);
        let mut bar = Progress::new(&label, self.runs * (1 + self.peers.len()));
        let mut all = Vec::new();
        for run in 1..=self.runs {
            bar.show(&format!("run {run}: peregrine"));
            all.extend(peregrine()?);
            bar.step(&format!("run {run}: peregrine done"));
            for p in &self.peers {
                bar.show(&format!("run {run}: {}", p.engine));
                all.extend(p.run(self.cases, self.iters, self.warmup, &dict)?);
                bar.step(&format!("run {run}: {} done", p.engine));
            }
        }
        bar.finish();
        Ok(all)
    }

    /// Aggregates the records of [`run`](Self::run), writes them to `out` as JSON (with
    /// the settings every micro-benchmark reports, each engine's settings as its
    /// `settings_case` says them, and `extra`), prints the table, and returns the
    /// aggregates.
    ///
    /// ```
    /// use peregrine_bench::peers::Rounds;
    ///
    /// let rounds = Rounds { name: "demo", runs: 1, cases: &[], iters: 10, warmup: 0, peers: vec![] };
    /// let out = std::env::temp_dir().join(format!("peregrine-rounds-{}.json", std::process::id()));
    /// let aggs = rounds.report(&[], &out, "case", serde_json::json!({"note": "empty"}))?;
    /// assert!(aggs.is_empty());
    /// let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    /// assert_eq!((json["bench"].as_str(), json["config"]["note"].as_str()), (Some("demo"), Some("empty")));
    /// # std::fs::remove_file(&out).unwrap();
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Output`] when the JSON cannot be written.
    pub fn report(
        &self,
        all: &[Record],
        out: &Path,
        settings_case: &str,
        extra: serde_json::Value,
    ) -> crate::Result<Vec<Aggregate>> {
        let aggs = report::aggregate(all);
        let mut config = serde_json::json!({
            "runs": self.runs,
            "iters": self.iters,
            "warmup": self.warmup,
            "engines": std::iter::once("peregrine").chain(self.peers.iter().map(|p| p.engine.as_str())).collect::<Vec<_>>(),
            "method": "mean = one timed batch / count; percentiles = per-operation monotonic-clock timing minus the median empty-timer cost; median across runs",
            "settings": aggs.iter().filter(|a| a.case == settings_case).map(|a| (a.engine.clone(), a.settings.clone())).collect::<std::collections::BTreeMap<_, _>>(),
            "simd": format!("{:?}", peregrine_codec::detected_level()),
        });
        if let (Some(config), serde_json::Value::Object(extra)) = (config.as_object_mut(), extra) {
            config.extend(extra);
        }
        crate::results::write_json(out, self.name, config, &aggs, all)?;
        println!("{}", report::markdown_table(&aggs));
        Ok(aggs)
    }
}

/// The micro-benchmarks' allocation target, as a line of their targets text: Peregrine's
/// allocations per `what` summed over every case, met when 0.
pub(crate) fn allocations_target(aggs: &[Aggregate], what: &str) -> String {
    let allocs: f64 = aggs
        .iter()
        .filter(|a| a.engine == "peregrine")
        .filter_map(|a| a.allocs_per_op)
        .sum();
    format!(
        "  allocations per {what} (peregrine, all cases): {allocs} {}\n",
        if allocs == 0.0 { "met" } else { "MISSED" }
    )
}

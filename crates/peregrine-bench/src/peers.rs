//! Running a peer's harness (a separate process) and reading its results:
//! one JSON object per case per line on stdout, times in nanoseconds unless the line
//! says otherwise (`"unit": "us"`).

use crate::report::{Record, Stats};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to start one peer harness.
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

/// What went wrong running a peer.
#[derive(Debug)]
pub struct PeerError(pub String);

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PeerError {}

impl PeerCommand {
    /// A C++ harness built under `peers/quickfix-cpp/build/`.
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
    pub fn quickfixj(root: &Path, main_class: &str) -> PeerCommand {
        PeerCommand {
            engine: "quickfixj".into(),
            program: root.join("peers/quickfixj/run.sh"),
            args: vec![main_class.into()],
        }
    }

    /// A trading-topology harness (BENCHMARKS.md §3) under `peers/<dir>/`, started
    /// through its `run.sh`: `e2e-quickfixj` (engine `quickfixj`) or `e2e-artio` (`artio`).
    pub fn e2e(root: &Path, engine: &str, dir: &str) -> PeerCommand {
        PeerCommand {
            engine: engine.into(),
            program: root.join("peers").join(dir).join("run.sh"),
            args: vec![],
        }
    }

    /// Whether the harness looks built (the C++ binary, or a jar in `target/` beside
    /// `run.sh`).
    pub fn is_available(&self) -> bool {
        match self.program.file_name().and_then(|n| n.to_str()) {
            Some("run.sh") => self
                .program
                .parent()
                .and_then(|d| std::fs::read_dir(d.join("target")).ok())
                .is_some_and(|mut entries| {
                    entries
                        .any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".jar")))
                }),
            _ => self.program.is_file(),
        }
    }

    /// Runs the harness for `cases` and returns one record per case.
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
            .map_err(|e| {
                PeerError(format!(
                    "{}: cannot start {}: {e}",
                    self.engine,
                    self.program.display()
                ))
            })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
            return Err(PeerError(format!(
                "{} exited with {}:\n{}",
                self.engine,
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        let mut records = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let line = line.trim();
            if !line.starts_with('{') {
                continue;
            }
            let l: Line = serde_json::from_str(line).map_err(|e| {
                PeerError(format!("{}: bad result line {line:?}: {e}", self.engine))
            })?;
            let mut settings = l.settings;
            if let Some(b) = l.jvm_alloc_bytes_per_op {
                settings.push_str(&format!("; JVM allocation {b:.1} bytes per operation"));
            }
            records.push(Record {
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
            });
        }
        for c in cases {
            if !records.iter().any(|r| r.case == *c) {
                return Err(PeerError(format!(
                    "{}: no result for case {c}",
                    self.engine
                )));
            }
        }
        Ok(records)
    }
}

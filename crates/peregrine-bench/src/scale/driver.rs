//! `peregrine bench scale`: runs both parts of experiment 5 for Peregrine and its peers,
//! interleaved run by run, each pair of processes fresh (a new port and directory), and
//! reports medians across runs with min–max, the targets, and
//! `target/bench-results/scale.json`.
//!
//! Streaming: per run, for the in-memory then the file store, every engine's receiver
//! (waited for until `ready`), then its sender; the receiver's line is the result.
//! Many sessions: per run and N, every acceptor (Peregrine, QuickFIX/J) against
//! Peregrine's load generator; the acceptor's RSS (`VmRSS`) is read once it is `ready`
//! and again [`RSS_SETTLE`] after the load generator says `logged-on` (all sessions
//! logged on, idle until the orders start), and `(after − before) / N` is the memory
//! per session. The driver raises its open-file limit to the hard limit, which every
//! harness inherits.
//!
//! A missed target does not fail the command; a harness that fails (a sequence error
//! included) does, after the other runs and the report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::peers::{PeerCommand, PeerError};
use crate::process::{raise_open_files_limit, rss_bytes, Harness};
use crate::progress::Progress;
use crate::report::{self, new_histogram, Record};
use crate::results;
use crate::{Error, Result};
use peregrine_report::plot;

use super::args::StoreChoice;
use super::targets::{targets, Figures, SessionFigures};

/// How long after `logged-on` the acceptor's RSS is read (the load generator waits
/// [`super::sessions::IDLE_BEFORE_ORDERS`] before its orders).
pub const RSS_SETTLE: Duration = Duration::from_millis(700);

/// The streaming peers (engine names).
pub const STREAM_PEERS: [&str; 2] = ["quickfixj", "quickfix-cpp"];
/// The many-sessions peers (acceptors under test besides Peregrine).
pub const SESSION_PEERS: [&str; 1] = ["quickfixj"];

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::scale::ScaleBenchConfig;
/// let cfg = ScaleBenchConfig::default();
/// assert_eq!((cfg.runs, cfg.session_runs, cfg.seconds), (5, 3, 5));
/// assert_eq!(cfg.sessions, [1_000, 10_000]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleBenchConfig {
    /// Streaming runs.
    pub runs: usize,
    /// Many-sessions runs (fewer: each run of 10,000 sessions takes a while).
    pub session_runs: usize,
    /// Measured seconds of each case.
    pub seconds: u64,
    /// Session counts of the many-sessions part.
    pub sessions: Vec<usize>,
    /// Run the streaming part.
    pub stream: bool,
    /// Run the many-sessions part.
    pub many: bool,
    /// The store of Peregrine's many-sessions acceptor (`--sessions-store`;
    /// memory by default; `file` and `journal` fsync every commit: a durable
    /// gateway, per-session stores against one engine journal).
    pub sessions_store: StoreChoice,
    /// Peer engines (`quickfixj`, `quickfix-cpp`).
    pub peers: Vec<String>,
    /// `--peers` was given: a peer that is not built is an error (otherwise it is
    /// left out, saying so).
    pub peers_given: bool,
    /// Where the JSON goes.
    pub out: PathBuf,
}

impl Default for ScaleBenchConfig {
    fn default() -> Self {
        ScaleBenchConfig {
            runs: 5,
            session_runs: 3,
            seconds: 5,
            sessions: vec![1_000, 10_000],
            stream: true,
            many: true,
            sessions_store: StoreChoice::Memory,
            peers: STREAM_PEERS.iter().map(|p| p.to_string()).collect(),
            peers_given: false,
            out: crate::repo_root().join("target/bench-results/scale.json"),
        }
    }
}

impl ScaleBenchConfig {
    /// Reads the options of `peregrine bench scale`: `--runs N` (streaming; the
    /// many-sessions part runs `min(N, 3)`), `--seconds S`, `--sessions 1000,10000`,
    /// `--parts stream,sessions`, `--peers a,b|none`, `--sessions-store
    /// memory|file|journal`, `--smoke` (1 run of 1 s, 50 sessions), `--out FILE`.
    ///
    /// ```
    /// use peregrine_bench::scale::ScaleBenchConfig;
    /// let args: Vec<String> = "--smoke --parts sessions --peers none".split(' ').map(String::from).collect();
    /// let cfg = ScaleBenchConfig::parse(&args)?;
    /// assert_eq!((cfg.runs, cfg.seconds, cfg.stream, cfg.many), (1, 1, false, true));
    /// assert_eq!(cfg.sessions, [50]);
    /// assert!(cfg.peers.is_empty() && cfg.peers_given);
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for an unknown option or a bad value.
    pub fn parse(args: &[String]) -> Result<ScaleBenchConfig> {
        let mut cfg = ScaleBenchConfig::default();
        if args.iter().any(|a| a == "--smoke") {
            cfg.runs = 1;
            cfg.session_runs = 1;
            cfg.seconds = 1;
            cfg.sessions = vec![50];
        }
        let mut it = args.iter().filter(|a| *a != "--smoke");
        while let Some(key) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| Error::Usage(format!("{key} needs a value")))?;
            let number = |v: &str| -> Result<u64> {
                v.trim()
                    .parse()
                    .map_err(|_| Error::Usage(format!("{key}: {v:?} is not a number")))
            };
            match key.as_str() {
                "--runs" => {
                    cfg.runs = (number(value)? as usize).max(1);
                    cfg.session_runs = cfg.runs.min(3);
                }
                "--seconds" => cfg.seconds = number(value)?.max(1),
                "--sessions" => {
                    cfg.sessions = value
                        .split(',')
                        .map(|v| number(v).map(|n| (n as usize).max(1)))
                        .collect::<Result<_>>()?
                }
                "--parts" => {
                    cfg.stream = false;
                    cfg.many = false;
                    for p in value.split(',') {
                        match p {
                            "stream" => cfg.stream = true,
                            "sessions" => cfg.many = true,
                            other => {
                                return Err(Error::Usage(format!(
                                    "--parts: unknown part {other:?} (stream, sessions)"
                                )))
                            }
                        }
                    }
                }
                "--peers" => {
                    cfg.peers_given = true;
                    cfg.peers = crate::peer_list(value);
                    if let Some(p) = cfg
                        .peers
                        .iter()
                        .find(|p| !STREAM_PEERS.contains(&p.as_str()))
                    {
                        return Err(PeerError::Unknown {
                            engine: p.clone(),
                            known: "quickfixj, quickfix-cpp",
                        }
                        .into());
                    }
                }
                "--out" => cfg.out = value.into(),
                "--sessions-store" => {
                    cfg.sessions_store = match value.as_str() {
                        "memory" => StoreChoice::Memory,
                        "file" => StoreChoice::File,
                        "journal" => StoreChoice::Journal,
                        other => {
                            return Err(Error::Usage(format!(
                                "--sessions-store: {other:?} is not memory|file|journal"
                            )))
                        }
                    }
                }
                other => return Err(Error::Usage(format!("unknown option {other}"))),
            }
        }
        Ok(cfg)
    }
}

/// The many-sessions floor's name in the tables: N plain connections bounced with no
/// FIX work ([`super::floor`]).
const FLOOR: &str = "floor";

/// How to start one engine's harness of one part.
#[derive(Clone, Debug)]
struct Engine {
    name: String,
    program: PathBuf,
    /// Arguments before `--role …`.
    prefix: Vec<String>,
}

impl Engine {
    fn peregrine(subcommand: &str) -> Result<Engine> {
        let exe = std::env::current_exe().map_err(Error::engine(
            "cannot find the running peregrine-bench binary",
        ))?;
        Ok(Engine {
            name: "peregrine".into(),
            program: exe,
            prefix: vec![subcommand.into()],
        })
    }

    fn of(cmd: PeerCommand) -> Engine {
        Engine {
            name: cmd.engine,
            program: cmd.program,
            prefix: cmd.args,
        }
    }

    fn spawn(&self, args: &[String]) -> std::result::Result<Harness, PeerError> {
        let all: Vec<&str> = self.prefix.iter().chain(args).map(String::as_str).collect();
        Harness::spawn(&self.name, &self.program, all)
    }
}

/// The peers of a part that will run: those asked for (each must be built), or, when
/// `--peers` was not given, those built (the others are named on stderr).
fn peers_of(cfg: &ScaleBenchConfig, part: &str) -> Result<Vec<Engine>> {
    let root = crate::repo_root();
    let mut out = Vec::new();
    for p in &cfg.peers {
        let cmd = match (part, p.as_str()) {
            ("stream", "quickfixj") => PeerCommand::quickfixj(&root, "Stream"),
            ("stream", "quickfix-cpp") => PeerCommand::quickfix_cpp(&root, "stream"),
            ("sessions", "quickfixj") => PeerCommand::quickfixj(&root, "ManySessions"),
            _ => continue, // no such harness for this part (QuickFIX C++ acceptor)
        };
        match cmd.if_built() {
            Ok(cmd) => out.push(Engine::of(cmd)),
            Err(e) if !cfg.peers_given => eprintln!("bench scale: {part}: {e}; left out"),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// A fresh directory for one process.
fn fresh_dir(base: &Path, name: &str) -> Result<PathBuf> {
    let d = base.join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).map_err(|e| Error::output(&d, e))?;
    Ok(d)
}

/// What one pair of processes measured beyond its record.
#[derive(Clone, Debug, Default, serde::Serialize)]
struct Extra {
    engine: String,
    case: String,
    run: usize,
    messages: Option<u64>,
    seq_errors: Option<u64>,
    logon_all_ms: Option<f64>,
    rss_before: Option<u64>,
    rss_after: Option<u64>,
    bytes_per_session: Option<f64>,
    /// The load generator's allocations per round trip (Peregrine's initiator side).
    load_allocs_per_op: Option<f64>,
    /// CPU per round trip over the window, µs: the acceptor's process, all of it and
    /// in the kernel, and the load's.
    acceptor_cpu_us: Option<f64>,
    acceptor_kernel_us: Option<f64>,
    load_cpu_us: Option<f64>,
    load_kernel_us: Option<f64>,
    /// The load generator's round-trip histogram (`[value_ns, count]`), for the plot.
    #[serde(skip)]
    hdr: Vec<[u64; 2]>,
}

fn field<T: serde::de::DeserializeOwned>(line: &serde_json::Value, key: &str) -> Option<T> {
    line.get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// The one result line of a harness: its record (named `engine`) and the JSON.
fn result_of(engine: &str, lines: &[String], case: &str) -> Result<(Record, serde_json::Value)> {
    for l in lines {
        let mut r = crate::peers::record_of_line(engine, l)?;
        if r.case == case {
            r.engine = engine.into();
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
            return Ok((r, v));
        }
    }
    Err(PeerError::MissingCase {
        engine: engine.into(),
        case: case.into(),
    }
    .into())
}

/// A peer's command line: `head`, then `--dir DIR --dict DICT --seconds S`.
fn peer_args(head: &[&str], dir: &Path, dict: &str, seconds: &str) -> Vec<String> {
    head.iter()
        .map(|s| s.to_string())
        .chain([
            "--dir".into(),
            dir.display().to_string(),
            "--dict".into(),
            dict.into(),
            "--seconds".into(),
            seconds.into(),
        ])
        .collect()
}

/// The streaming cases: the store, and whether the message and event logs are on at
/// both ends (issue 31: production keeps its logs on).
const STREAM_CASES: [(&str, bool); 3] = [("memory", false), ("file", false), ("file", true)];

/// A streaming case's name: `stream-memory`, `stream-file`, `stream-file-logs`.
pub(crate) fn stream_case(store: &str, logs: bool) -> String {
    format!("stream-{store}{}", if logs { "-logs" } else { "" })
}

fn stream_pair(
    cfg: &ScaleBenchConfig,
    e: &Engine,
    store: &str,
    logs: bool,
    run: usize,
    work: &Path,
) -> Result<(Record, Extra)> {
    let port = crate::loopback::free_port()?.to_string();
    let dict = crate::fix44_dictionary().display().to_string();
    let seconds = cfg.seconds.to_string();
    let case = stream_case(store, logs);
    let base = fresh_dir(work, &format!("{}-{case}-{run}", e.name))?;
    let logs = if logs { "Y" } else { "N" };
    let common = |role: &str, dir: &Path| {
        peer_args(
            &[
                "--role", role, "--store", store, "--logs", logs, "--port", &port,
            ],
            dir,
            &dict,
            &seconds,
        )
    };
    let mut receiver = e.spawn(&common("receiver", &base.join("receiver")))?;
    receiver.wait_ready(Duration::from_secs(60))?;
    let mut sender = e.spawn(&common("sender", &base.join("sender")))?;
    let patience = Duration::from_secs(cfg.seconds + 120);
    let sent = sender.wait_lines(patience);
    let lines = receiver.wait_lines(Duration::from_secs(60));
    // With logs on, the receiver's messages log holds at least the window's orders, and
    // its event log something (a harness that left its logs off fails the run).
    let logged =
        (logs == "Y").then(|| crate::roundtrip::logs::count(&base.join("receiver").join("log")));
    let _ = std::fs::remove_dir_all(&base);
    // The receiver's failure (a sequence error) says more than the sender's.
    let lines = lines?;
    sent?;
    let (mut record, v) = result_of(&e.name, &lines, &case)?;
    record.allocs_per_op = field(&v, "allocs_per_op");
    record.settings = format!("{}; {}", sender_settings(&e.name), record.settings);
    let extra = Extra {
        engine: e.name.clone(),
        case: case.clone(),
        run,
        messages: field(&v, "messages"),
        seq_errors: field(&v, "seq_errors"),
        ..Extra::default()
    };
    if let Some(logged) = logged {
        let logged = logged?;
        let window = extra.messages.unwrap_or(0);
        if logged.orders < window || logged.event_bytes == 0 {
            return Err(Error::failed_check(format!(
                "{} {case} run {run}: the receiver's logs hold {} NewOrderSingles for {window} in the window and {} bytes of events: logging is not on",
                e.name, logged.orders, logged.event_bytes
            )));
        }
    }
    if extra.seq_errors.unwrap_or(0) > 0 {
        return Err(Error::failed_check(format!(
            "{} {case} run {run}: {} sequence errors",
            e.name,
            extra.seq_errors.unwrap_or(0)
        )));
    }
    Ok((record, extra))
}

/// How each engine's streaming sender is written and bounded (the receiver's settings
/// come in its result line).
fn sender_settings(engine: &str) -> &'static str {
    match engine {
        "peregrine" => "sender: initiator on one thread (EngineBuilder::build), filling the Sender queue (4,096 messages) until QueueFull, then Engine::turn; at most 32 KiB unsent per session; same store as the receiver",
        "quickfixj" => "sender: SocketInitiator, Session.send in a loop, parked 20 µs at a time while more than 1 MiB waits in MINA's write queue (QuickFIX/J has no back-pressure of its own); same store as the receiver",
        "quickfix-cpp" => "sender: ThreadedSocketInitiator, Session::send in a loop; its send(2) blocks, so TCP flow control bounds it (the single-threaded initiator queues without bound); same store as the receiver",
        _ => "sender: the engine's harness",
    }
}

fn sessions_pair(
    cfg: &ScaleBenchConfig,
    acceptor: &Engine,
    load: &Engine,
    n: usize,
    run: usize,
    work: &Path,
) -> Result<(Record, Extra)> {
    let port = crate::loopback::free_port()?.to_string();
    let dict = crate::fix44_dictionary().display().to_string();
    let base = fresh_dir(work, &format!("{}-sessions-{n}-{run}", acceptor.name))?;
    let (sessions, seconds) = (n.to_string(), cfg.seconds.to_string());
    let store = cfg.sessions_store.name();
    let args = |role: &str, dir: &Path| {
        let mut head = vec!["--role", role, "--sessions", &sessions, "--port", &port];
        if acceptor.name == "peregrine" && role == "acceptor" {
            head.extend(["--store", store]);
        }
        peer_args(&head, dir, &dict, &seconds)
    };
    // The harness roles of this pair, and what the report says of its acceptor.
    let (acceptor_role, load_role, who) = match acceptor.name.as_str() {
        FLOOR => (
            "floor-acceptor",
            "floor-load",
            "acceptor and load: the floor (scale/floor.rs)".to_string(),
        ),
        "peregrine" => (
            "acceptor",
            "load",
            format!("acceptor: Peregrine, {n} sessions configured in code on one port, one engine thread (EngineBuilder::start), {} store, UseDataDictionary=N, idle {}", match cfg.sessions_store {
                StoreChoice::Memory => "memory",
                StoreChoice::File => "file (a directory per session, FileStoreSync=Y)",
                StoreChoice::Journal => "engine journal (EngineJournal=Y, FileStoreSync=Y)",
            }, crate::loopback::idle()),
        ),
        peer => (
            "acceptor",
            "load",
            format!("acceptor: {peer} harness: one SocketAcceptor with the default single-threaded event handling (one message-processor thread for every session, MINA I/O threads), {n} session sections built in code, MemoryStore, UseDataDictionary=N, no logging; JVM -Xms32m -Xmx4g (run.sh's default for ManySessions: a heap that is not pre-touched, so RSS per session means something)"),
        ),
    };
    let mut acc = acceptor.spawn(&args(acceptor_role, &base.join("acceptor")))?;
    acc.wait_ready(Duration::from_secs(180))?;
    let rss = |h: &Harness| rss_bytes(h.pid()).ok();
    let rss_before = rss(&acc);
    // The load reads the acceptor's CPU time over its window.
    let mut load_args = args(load_role, &base.join("load"));
    load_args.extend(["--acceptor-pid".into(), acc.pid().to_string()]);
    let mut load_gen = load.spawn(&load_args)?;
    load_gen.wait_line("logged-on", Duration::from_secs(240))?;
    std::thread::sleep(RSS_SETTLE);
    let rss_after = rss(&acc);
    let lines = load_gen.wait_lines(Duration::from_secs(cfg.seconds + 180));
    // Peregrine's acceptor counts its allocations over the same window.
    let (acceptor_allocs, acceptor_fsyncs): (Option<f64>, Option<f64>) =
        match (&lines, acceptor.name.as_str()) {
            (Ok(_), "peregrine") => {
                let line = acc.next_json_line(Duration::from_secs(30))?;
                let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                (
                    field(&v, "acceptor_allocs_per_order"),
                    field(&v, "acceptor_fsyncs_per_order"),
                )
            }
            _ => (None, None),
        };
    acc.terminate();
    let _ = std::fs::remove_dir_all(&base);
    let case = format!("sessions-{n}");
    let (mut record, v) = result_of(&acceptor.name, &lines?, &case)?;
    record.allocs_per_op = acceptor_allocs;
    record.settings = match acceptor_fsyncs {
        Some(f) if cfg.sessions_store != StoreChoice::Memory => {
            format!(
                "{who}; acceptor fsyncs per order answered {f:.3}; {}",
                record.settings
            )
        }
        _ => format!("{who}; {}", record.settings),
    };
    let bytes_per_session = match (rss_before, rss_after) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b) as f64 / n as f64),
        _ => None,
    };
    Ok((
        record,
        Extra {
            engine: acceptor.name.clone(),
            case,
            run,
            logon_all_ms: field(&v, "logon_all_ms"),
            rss_before,
            rss_after,
            bytes_per_session,
            load_allocs_per_op: field(&v, "load_allocs_per_op"),
            acceptor_cpu_us: field(&v, "acceptor_cpu_us"),
            acceptor_kernel_us: field(&v, "acceptor_kernel_us"),
            load_cpu_us: field(&v, "load_cpu_us"),
            load_kernel_us: field(&v, "load_kernel_us"),
            hdr: field(&v, "hdr").unwrap_or_default(),
            ..Extra::default()
        },
    ))
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Median and min–max of `v`.
fn spread_of(v: Vec<f64>) -> Option<(f64, f64, f64)> {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    median(v).map(|m| (m, lo, hi))
}

/// Median and min–max of `f` over the records of (engine, case).
fn spread(
    all: &[Record],
    engine: &str,
    case: &str,
    f: impl Fn(&Record) -> f64,
) -> Option<(f64, f64, f64)> {
    spread_by(all, engine, case, |r| Some(f(r)))
}

/// Median and min–max of `f` over the records of (engine, case) that have it.
fn spread_by(
    all: &[Record],
    engine: &str,
    case: &str,
    f: impl Fn(&Record) -> Option<f64>,
) -> Option<(f64, f64, f64)> {
    spread_of(
        all.iter()
            .filter(|r| r.engine == engine && r.case == case)
            .filter_map(f)
            .collect(),
    )
}

fn extra_spread(
    extras: &[Extra],
    engine: &str,
    case: &str,
    f: impl Fn(&Extra) -> Option<f64>,
) -> Option<(f64, f64, f64)> {
    spread_of(
        extras
            .iter()
            .filter(|x| x.engine == engine && x.case == case)
            .filter_map(f)
            .collect(),
    )
}

/// Allocations per operation: the median across runs, or — when not counted.
fn fmt_allocs(s: Option<(f64, f64, f64)>) -> String {
    s.map_or("—".into(), |(m, _, hi)| {
        if hi > m {
            format!("{m:.3} (max {hi:.3})")
        } else {
            format!("{m:.3}")
        }
    })
}

/// CPU per round trip, µs: the median across runs, and of it in the kernel.
fn fmt_cpu(all: Option<(f64, f64, f64)>, kernel: Option<(f64, f64, f64)>) -> String {
    match (all, kernel) {
        (Some((a, ..)), Some((k, ..))) => format!("{a:.1} ({k:.1})"),
        _ => "—".into(),
    }
}

fn fmt_spread(s: Option<(f64, f64, f64)>, digits: usize) -> String {
    match s {
        Some((m, lo, hi)) => format!("{m:.digits$} ({lo:.digits$}–{hi:.digits$})"),
        None => "—".into(),
    }
}

/// The plot's curves: each acceptor at each N, from the load generator's histograms of
/// every run merged.
fn sessions_series(extras: &[Extra], engines: &[String], ns: &[usize]) -> Vec<plot::Series> {
    let mut out = Vec::new();
    for &n in ns {
        let case = format!("sessions-{n}");
        for e in engines {
            let mut h = new_histogram();
            for x in extras.iter().filter(|x| &x.engine == e && x.case == case) {
                for &[v, count] in &x.hdr {
                    h.saturating_record_n(v, count);
                }
            }
            if !h.is_empty() {
                out.push(plot::series_from_histogram(
                    &format!("{e} acceptor, {n} sessions"),
                    &h,
                ));
            }
        }
    }
    out
}

/// The streaming table (Markdown).
fn stream_table(all: &[Record], extras: &[Extra], engines: &[String]) -> String {
    let mut s = String::from("| case | engine | msg/s, median (min–max of runs) | 100 ms intervals: min / p50 / max msg/s | messages in window | receiver allocs per message | peregrine ÷ engine |\n|---|---|---:|---:|---:|---:|---:|\n");
    for case in STREAM_CASES.map(|(store, logs)| stream_case(store, logs)) {
        let case = case.as_str();
        let ours = spread(all, "peregrine", case, |r| r.stats.throughput_per_s).map(|x| x.0);
        for e in engines {
            let Some(rate) = spread(all, e, case, |r| r.stats.throughput_per_s) else {
                continue;
            };
            let med = |f: fn(&Record) -> f64| spread(all, e, case, f).map_or(0.0, |x| x.0);
            let msgs = extra_spread(extras, e, case, |x| x.messages.map(|m| m as f64));
            s.push_str(&format!(
                "| {case} | {e} | {} | {:.0} / {:.0} / {:.0} | {} | {} | {} |\n",
                fmt_spread(Some(rate), 0),
                med(|r| r.stats.min),
                med(|r| r.stats.p50),
                med(|r| r.stats.max),
                msgs.map_or("—".into(), |m| format!("{:.0}", m.0)),
                fmt_allocs(spread_by(all, e, case, |r| r.allocs_per_op)),
                match ours {
                    Some(o) if e != "peregrine" && rate.0 > 0.0 => format!("{:.1}×", o / rate.0),
                    _ => "—".into(),
                }
            ));
        }
    }
    s
}

/// The many-sessions table (Markdown).
fn sessions_table(all: &[Record], extras: &[Extra], engines: &[String], ns: &[usize]) -> String {
    let mut s = String::from("| sessions | acceptor | all logged on, ms | round trips/s | p50 µs | p99 µs | acceptor KiB per idle session | acceptor KiB per configured session (RSS at ready ÷ N) | allocs per round trip: acceptor / load | CPU µs per round trip (of it in the kernel): acceptor / load | peregrine ÷ engine (round trips/s) |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for &n in ns {
        let case = format!("sessions-{n}");
        let ours = spread(all, "peregrine", &case, |r| r.stats.throughput_per_s).map(|x| x.0);
        for e in engines {
            let Some(rts) = spread(all, e, &case, |r| r.stats.throughput_per_s) else {
                continue;
            };
            s.push_str(&format!(
                "| {n} | {e} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} | {} |\n",
                fmt_spread(extra_spread(extras, e, &case, |x| x.logon_all_ms), 0),
                fmt_spread(Some(rts), 0),
                fmt_spread(spread(all, e, &case, |r| r.stats.p50), 1),
                fmt_spread(spread(all, e, &case, |r| r.stats.p99), 1),
                fmt_spread(
                    extra_spread(extras, e, &case, |x| x
                        .bytes_per_session
                        .map(|b| b / 1024.0)),
                    1
                ),
                fmt_spread(
                    extra_spread(extras, e, &case, |x| x
                        .rss_before
                        .map(|b| b as f64 / 1024.0 / n as f64)),
                    1
                ),
                fmt_allocs(spread_by(all, e, &case, |r| r.allocs_per_op)),
                fmt_allocs(extra_spread(extras, e, &case, |x| x.load_allocs_per_op)),
                fmt_cpu(
                    extra_spread(extras, e, &case, |x| x.acceptor_cpu_us),
                    extra_spread(extras, e, &case, |x| x.acceptor_kernel_us)
                ),
                fmt_cpu(
                    extra_spread(extras, e, &case, |x| x.load_cpu_us),
                    extra_spread(extras, e, &case, |x| x.load_kernel_us)
                ),
                match ours {
                    Some(o) if e != "peregrine" && rts.0 > 0.0 => format!("{:.1}×", o / rts.0),
                    _ => "—".into(),
                }
            ));
        }
    }
    s
}

fn figures(all: &[Record], extras: &[Extra], engine: &str, ns: &[usize]) -> Figures {
    let rate = |case: &str| spread(all, engine, case, |r| r.stats.throughput_per_s).map(|x| x.0);
    Figures {
        stream_memory: rate("stream-memory"),
        stream_file: rate("stream-file"),
        stream_file_logs: rate("stream-file-logs"),
        sessions: ns
            .iter()
            .filter_map(|&n| {
                let case = format!("sessions-{n}");
                let median = |f: fn(&Extra) -> Option<f64>| {
                    extra_spread(extras, engine, &case, f).map(|x| x.0)
                };
                Some(SessionFigures {
                    n,
                    round_trips_per_s: rate(&case)?,
                    logon_all_ms: median(|x| x.logon_all_ms).unwrap_or(f64::NAN),
                    bytes_per_session: median(|x| x.bytes_per_session),
                    kernel_us_per_round_trip: median(|x| {
                        Some(x.acceptor_kernel_us? + x.load_kernel_us?)
                    }),
                })
            })
            .collect(),
    }
}

/// What the runs of both parts gave: their records and extras, and the runs that
/// failed (each noted and skipped, so that one bad run does not hide the others).
#[derive(Default)]
struct Runs {
    all: Vec<Record>,
    extras: Vec<Extra>,
    failures: Vec<String>,
    first_failure: Option<Error>,
}

impl Runs {
    /// Runs one pair of processes under the progress bar as `what`.
    fn measure(
        &mut self,
        bar: &mut Progress,
        what: String,
        pair: impl FnOnce() -> Result<(Record, Extra)>,
    ) {
        bar.show(&what);
        match pair() {
            Ok((r, x)) => {
                self.all.push(r);
                self.extras.push(x);
            }
            Err(e) => {
                eprintln!("\nbench scale: {what}: {e}");
                self.failures.push(format!("{what}: {e}"));
                self.first_failure.get_or_insert(e);
            }
        }
        bar.step(&format!("{what} done"));
    }
}

/// Runs the benchmark (see the [module documentation](self)) and returns every record.
///
/// ```no_run
/// let args: Vec<String> = ["--smoke", "--peers", "none"].map(String::from).to_vec();
/// let cfg = peregrine_bench::scale::ScaleBenchConfig::parse(&args)?;
/// let records = peregrine_bench::scale::run(&cfg)?;
/// assert!(!records.is_empty());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Peer`] for a peer that is unknown or (asked for and) not built; the first
/// failure of a harness (after every other run, the tables and the JSON);
/// [`Error::Output`] when the JSON cannot be written.
pub fn run(cfg: &ScaleBenchConfig) -> Result<Vec<Record>> {
    let limit = raise_open_files_limit().unwrap_or(0);
    let machine = report::machine();
    eprintln!("bench scale: {machine}; open-file limit {limit}");
    let mut stream_engines = vec![Engine::peregrine("stream-peer")?];
    if cfg.stream {
        stream_engines.extend(peers_of(cfg, "stream")?);
    }
    let load = Engine::peregrine("scale-peer")?;
    let mut acceptors = vec![load.clone()];
    if cfg.many {
        acceptors.extend(peers_of(cfg, "sessions")?);
        // The machine's own ceiling beside them: no FIX work on either side.
        acceptors.push(Engine {
            name: FLOOR.into(),
            ..load.clone()
        });
    }
    let work = cfg
        .out
        .parent()
        .unwrap_or(Path::new("."))
        .join("scale-work");
    let steps = usize::from(cfg.stream) * cfg.runs * STREAM_CASES.len() * stream_engines.len()
        + usize::from(cfg.many) * cfg.session_runs * cfg.sessions.len() * acceptors.len();
    let mut bar = Progress::new("bench scale", steps.max(1));
    let mut runs = Runs::default();
    if cfg.stream {
        for run in 1..=cfg.runs {
            for (store, logs) in STREAM_CASES {
                for e in &stream_engines {
                    let case = stream_case(store, logs);
                    runs.measure(&mut bar, format!("run {run}: {} {case}", e.name), || {
                        stream_pair(cfg, e, store, logs, run, &work)
                    });
                }
            }
        }
    }
    if cfg.many {
        for run in 1..=cfg.session_runs {
            for &n in &cfg.sessions {
                for a in &acceptors {
                    runs.measure(
                        &mut bar,
                        format!("run {run}: {} sessions-{n}", a.name),
                        || sessions_pair(cfg, a, &load, n, run, &work),
                    );
                }
            }
        }
    }
    bar.finish();
    let _ = std::fs::remove_dir_all(&work);
    let Runs {
        all,
        extras,
        failures,
        first_failure,
    } = runs;

    let ours = figures(&all, &extras, "peregrine", &cfg.sessions);
    let qfj = figures(&all, &extras, "quickfixj", &cfg.sessions);
    let has_qfj = all.iter().any(|r| r.engine == "quickfixj");
    let floor = figures(&all, &extras, FLOOR, &cfg.sessions);
    let has_floor = all.iter().any(|r| r.engine == FLOOR);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let targets = targets(
        &ours,
        has_qfj.then_some(&qfj),
        has_floor.then_some(&floor),
        cpus,
    );
    let aggs = report::aggregate(&all);
    let settings = report::settings_by_case(&aggs);
    let config = serde_json::json!({
        "runs_stream": cfg.runs,
        "runs_sessions": cfg.session_runs,
        "seconds": cfg.seconds,
        "sessions": cfg.sessions,
        "parts": {"stream": cfg.stream, "sessions": cfg.many},
        "sessions_store": cfg.sessions_store.name(),
        "machine": machine,
        "load_average_end": report::load_average(),
        "open_file_limit": limit,
        "order": "interleaved: each run runs every engine once per case (streaming: memory then file store; sessions: each N), a fresh pair of processes, port and directory each time",
        "method": "streaming: the receiver's msg/s over [1 s, 1 s + seconds) after its first application message, percentiles = 100 ms interval rates; sessions: round trips/s over `seconds` after a 1 s warm-up with one order in flight per session, round trip t1 before the send in from_app to t2 after the report's ClOrdID is checked (HDR, µs); acceptor RSS (VmRSS) once ready and 0.7 s after all sessions logged on (idle), (after − before) / N; medians across runs",
        "settings": settings,
        "per_run": extras,
        "targets": targets.iter().map(|t| serde_json::json!({"goal": t.goal, "measured": t.measured, "met": t.met})).collect::<Vec<_>>(),
        "failed_runs": failures,
    });
    results::write_json(&cfg.out, "scale", config, &aggs, &all)?;
    let names: Vec<String> = acceptors.iter().map(|e| e.name.clone()).collect();
    let plot = if cfg.many {
        Some(results::plot_beside(
            &cfg.out,
            "Many sessions on one acceptor (BENCHMARKS.md §5): round trip, one order in flight per session, log scale",
            &sessions_series(&extras, &names, &cfg.sessions),
        )?)
    } else {
        None
    };

    if cfg.stream {
        let names: Vec<String> = stream_engines.iter().map(|e| e.name.clone()).collect();
        println!(
            "Streaming, one session one way ({} runs, {} s windows):\n{}",
            cfg.runs,
            cfg.seconds,
            stream_table(&all, &extras, &names)
        );
    }
    if cfg.many {
        println!(
            "Many sessions on one acceptor, Peregrine's load generator ({} runs, {} s measured):\n{}",
            cfg.session_runs,
            cfg.seconds,
            sessions_table(&all, &extras, &names, &cfg.sessions)
        );
    }
    println!("Settings:");
    for (k, v) in &settings {
        println!("  {k}: {v}");
    }
    println!("\n{}", crate::e2e::targets_text(&targets));
    for f in &failures {
        println!("FAILED (left out of the medians): {f}");
    }
    println!("results: {}", cfg.out.display());
    if let Some(svg) = plot {
        println!("plot: {}", svg.display());
    }
    match first_failure {
        Some(e) => Err(e),
        None => Ok(all),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let c = ScaleBenchConfig::parse(&args("--runs 2 --seconds 3 --sessions 100,2000 --parts stream --peers quickfixj --out x.json")).unwrap();
        assert_eq!((c.runs, c.session_runs, c.seconds), (2, 2, 3));
        assert_eq!(c.sessions, [100, 2000]);
        assert!(c.stream && !c.many && c.peers_given);
        assert_eq!(c.peers, ["quickfixj"]);
        assert_eq!(c.out, Path::new("x.json"));
        for bad in [
            "--runs",
            "--runs x",
            "--parts both",
            "--peers artio",
            "--sessions 1,x",
            "--bogus 1",
        ] {
            assert!(ScaleBenchConfig::parse(&args(bad)).is_err(), "{bad}");
        }
        let d = ScaleBenchConfig::parse(&[]).unwrap();
        assert_eq!(d, ScaleBenchConfig::default());
        assert!(!d.peers_given);
    }

    #[test]
    fn tables_and_figures() {
        let rec = |engine: &str, case: &str, rate: f64| Record {
            engine: engine.into(),
            case: case.into(),
            unit: "msg/s".into(),
            stats: report::Stats {
                throughput_per_s: rate,
                p50: rate,
                ..Default::default()
            },
            allocs_per_op: None,
            settings: String::new(),
        };
        let all = vec![
            rec("peregrine", "stream-memory", 3e6),
            rec("quickfixj", "stream-memory", 2e5),
            rec("peregrine", "stream-memory", 2e6),
            rec("peregrine", "sessions-1000", 1e5),
        ];
        let extras = vec![Extra {
            engine: "peregrine".into(),
            case: "sessions-1000".into(),
            logon_all_ms: Some(300.0),
            bytes_per_session: Some(4096.0),
            acceptor_cpu_us: Some(9.0),
            acceptor_kernel_us: Some(4.0),
            load_cpu_us: Some(8.0),
            load_kernel_us: Some(3.5),
            ..Extra::default()
        }];
        let t = stream_table(&all, &extras, &["peregrine".into(), "quickfixj".into()]);
        assert!(
            t.contains("| stream-memory | peregrine | 2500000 (2000000–3000000) |"),
            "{t}"
        );
        assert!(t.contains("| 12.5× |"), "{t}");
        let f = figures(&all, &extras, "peregrine", &[1000, 10_000]);
        assert_eq!(f.stream_memory, Some(2.5e6));
        assert_eq!(
            f.sessions,
            vec![SessionFigures {
                n: 1000,
                logon_all_ms: 300.0,
                round_trips_per_s: 1e5,
                bytes_per_session: Some(4096.0),
                kernel_us_per_round_trip: Some(7.5),
            }]
        );
        let s = sessions_table(&all, &extras, &["peregrine".into()], &[1000]);
        assert!(
            s.contains("| 1000 | peregrine | 300 (300–300) | 100000 (100000–100000) |"),
            "{s}"
        );
        assert!(s.contains("| 4.0 (4.0–4.0) |"), "{s}");
        assert!(s.contains("| 9.0 (4.0) / 8.0 (3.5) |"), "{s}");
    }
}

//! The driver of `peregrine bench gateway`: for each run, each session count and each
//! router (Peregrine's, then QuickFIX/J's), three fresh processes on fresh ports and
//! directories — the exchange, the router, the client load — the load's result line
//! read, the processes ended. Then the medians across runs, the table, the targets, the
//! JSON and the plot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hdrhistogram::Histogram;
use peregrine_report::plot;
use peregrine_report::progress::Progress;

use super::args::GatewayConfig;
use super::exchange::ROUTER_LOGGED_ON;
use super::settings::{self, RouterPlace};
use super::targets::{case, targets, targets_text};
use crate::peers::PeerCommand;
use crate::process::{raise_open_files_limit, Harness};
use crate::report::{self, Record};
use crate::roundtrip::peer::histogram_of_pairs;
use crate::{loopback, results, Error, Result};

/// How long a process has to come up (the QuickFIX/J router's JVM included) and the
/// router to log on to the exchange.
const START_PATIENCE: Duration = Duration::from_secs(60);

/// Allocations per order above which a run of Peregrine's router fails: an allocation
/// back on the path of every order (one or more per order), not the stores' message
/// index growing by doubling (a few in tens of thousands of orders, BENCHMARKS.md §8).
pub const ALLOCS_PER_ORDER_LIMIT: f64 = 0.1;

/// Fails a run whose router allocated on the path of every order
/// ([`ALLOCS_PER_ORDER_LIMIT`]).
///
/// ```
/// use peregrine_bench::gateway::driver::check_allocations;
/// assert!(check_allocations("sessions-1", 1, 14, 100_000).is_ok());
/// assert!(check_allocations("sessions-1", 1, 150_000, 10_000).is_err());
/// ```
///
/// # Errors
///
/// [`Error::Allocates`] above the limit.
pub fn check_allocations(case: &str, run: usize, allocations: u64, orders: u64) -> Result<()> {
    if allocations as f64 > ALLOCS_PER_ORDER_LIMIT * orders.max(1) as f64 {
        return Err(Error::Allocates {
            case: format!("Peregrine's router, {case}"),
            run,
            allocations,
            messages: orders,
        });
    }
    Ok(())
}

/// One run of one router with one session count, as measured.
#[derive(Debug)]
pub struct RunResult {
    /// The load's figures (µs), with the router's allocations per order (Peregrine's).
    pub record: Record,
    /// The round trips of the window (ns).
    pub histogram: Histogram<u64>,
    /// The router's CPU time per order (µs), user and kernel.
    pub router_cpu_us: Option<f64>,
    /// The router's allocations and the orders of its window (Peregrine's).
    pub router_allocs: Option<(u64, u64)>,
}

/// The router's process of one run.
struct Router {
    name: String,
    program: PathBuf,
    args: Vec<String>,
}

/// The routers to run: Peregrine's, and each peer that is built (one asked for on the
/// command line must be).
fn routers(cfg: &GatewayConfig, exe: &Path, dir: &Path, place: &RouterPlace<'_>) -> Vec<Router> {
    let mut all = vec![Router {
        name: "peregrine".into(),
        program: exe.into(),
        args: peer_args([
            "--role",
            "router",
            "--port",
            &place.port.to_string(),
            "--exchange-port",
            &place.exchange_port.to_string(),
            "--sessions",
            &place.sessions.to_string(),
            "--dir",
            &dir.display().to_string(),
            "--dict",
            &place.dict.display().to_string(),
            "--warmup-ms",
            &(cfg.warmup_seconds * 1000).to_string(),
            "--measure-ms",
            &(cfg.seconds * 1000).to_string(),
        ]),
    }];
    for p in &cfg.peers {
        let cmd = PeerCommand::quickfixj(&crate::repo_root(), "firstapp.Router");
        all.push(Router {
            name: p.clone(),
            program: cmd.program,
            args: vec![
                "firstapp.Router".into(),
                dir.join("router.cfg").display().to_string(),
            ],
        });
    }
    all
}

fn peer_args<const N: usize>(args: [&str; N]) -> Vec<String> {
    ["gateway-peer"]
        .into_iter()
        .chain(args)
        .map(String::from)
        .collect()
}

/// One run: exchange, router, load; the load's line.
fn one(
    cfg: &GatewayConfig,
    exe: &Path,
    router_name: &str,
    n: usize,
    run: usize,
    dir: &Path,
) -> Result<RunResult> {
    std::fs::create_dir_all(dir).map_err(|e| Error::output(dir, e))?;
    let dict = crate::fix44_dictionary();
    let (port, exchange_port) = (loopback::free_port()?, loopback::free_port()?);
    let place = RouterPlace {
        port,
        exchange_port,
        sessions: n,
        dir,
        dict: &dict,
    };
    let mut exchange = Harness::spawn(
        "exchange",
        exe,
        peer_args([
            "--role",
            "exchange",
            "--port",
            &exchange_port.to_string(),
            "--dict",
            &dict.display().to_string(),
        ]),
    )?;
    exchange.wait_ready(START_PATIENCE)?;
    let Some(r) = routers(cfg, exe, dir, &place)
        .into_iter()
        .find(|r| r.name == router_name)
    else {
        return Err(Error::Usage(format!("no router {router_name}")));
    };
    if r.name != "peregrine" {
        let path = dir.join("router.cfg");
        std::fs::write(&path, settings::quickfixj_router_cfg(&place))
            .map_err(|e| Error::output(&path, e))?;
    }
    let mut router = Harness::spawn(&r.name, &r.program, &r.args)?;
    exchange.wait_line(ROUTER_LOGGED_ON, START_PATIENCE)?;
    let mut load = Harness::spawn(
        &r.name,
        exe,
        peer_args([
            "--role",
            "load",
            "--port",
            &port.to_string(),
            "--sessions",
            &n.to_string(),
            "--engine",
            &r.name,
            "--router-pid",
            &router.pid().to_string(),
            "--dict",
            &dict.display().to_string(),
            "--warmup-ms",
            &(cfg.warmup_seconds * 1000).to_string(),
            "--measure-ms",
            &(cfg.seconds * 1000).to_string(),
        ]),
    )?;
    let patience = START_PATIENCE * 3 + Duration::from_secs(cfg.warmup_seconds + cfg.seconds);
    let lines = load.wait_lines(patience)?;
    let line = lines
        .first()
        .ok_or_else(|| Error::failed_check("the load printed no result line"))?;
    let (allocs, router_allocs) = if r.name == "peregrine" {
        let l = router.next_json_line(Duration::from_secs(10))?;
        let v: serde_json::Value =
            serde_json::from_str(&l).map_err(|e| Error::check("the router's line", e))?;
        let counted = v["allocations"].as_u64().zip(v["orders"].as_u64());
        (v["router_allocs_per_order"].as_f64(), counted)
    } else {
        (None, None)
    };
    router.terminate();
    exchange.terminate();
    let _ = std::fs::remove_dir_all(dir);
    if let Some((allocations, orders)) = router_allocs {
        check_allocations(&case(n), run, allocations, orders)?;
    }
    let mut record = crate::peers::record_of_line(&r.name, line)?;
    record.allocs_per_op = allocs;
    record.settings = router_text(&r.name);
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| Error::check("the load's line", e))?;
    let pairs: Vec<[u64; 2]> = serde_json::from_value(v["hdr"].clone())
        .map_err(|e| Error::check("the load's histogram", e))?;
    Ok(RunResult {
        record,
        histogram: histogram_of_pairs(&pairs)?,
        router_cpu_us: v["router_cpu_us"].as_f64(),
        router_allocs,
    })
}

/// Each router as the report states it.
///
/// ```
/// let s = peregrine_bench::gateway::driver::router_text("quickfixj");
/// assert!(s.contains("Router.java") && s.contains("FileStoreSync=N"));
/// ```
pub fn router_text(name: &str) -> String {
    let common = "plain TCP on 127.0.0.1, UseDataDictionary=Y (FIX44.xml), FileStoreSync=N, FileLogPath (every message logged to files), ResetOnLogon=Y, TCP_NODELAY; clients C0..C{N-1} from an acceptor template with an allow list, the exchange an initiator; ClOrdID prefixed with the client's CompID both ways, each forward sent from inside the callback that received the message";
    match name {
        "peregrine" => format!("examples/router.rs (its application compiled into `peregrine-bench gateway-peer --role router`), EngineBuilder::load of the .cfg, EngineJournal=Y (one journal for every session: a turn's forwards and sequence numbers in one write), IdleStrategy=block, one engine thread; {common}; allocations counted by the binary's counting allocator"),
        _ => format!("QuickFIX/J 2.3.1 peers/quickfixj/.../firstapp/Router.java (DynamicAcceptorSessionProvider, SocketAcceptor + SocketInitiator, Session.sendToTarget from fromApp), a FileStore per session, FileLogFactory, JVM -Xms1g -Xmx1g -XX:+AlwaysPreTouch, G1; {common}"),
    }
}

/// Runs the benchmark (see the [module documentation](self)) and reports it.
///
/// # Errors
///
/// [`Error::Peer`] for a peer named on the command line that is not built; the first
/// failed run (after every other run, the tables and the JSON), [`Error::Allocates`]
/// among them when Peregrine's router allocates on the path of every order
/// ([`check_allocations`]); [`Error::Output`] when the JSON or the plot cannot be written.
pub fn run(cfg: &GatewayConfig) -> Result<Vec<Record>> {
    let exe = std::env::current_exe().map_err(Error::engine(
        "cannot find the running peregrine-bench binary",
    ))?;
    let limit = raise_open_files_limit().unwrap_or(0);
    let machine = report::machine();
    eprintln!("bench gateway: {machine}; open-file limit {limit}");
    let mut cfg = cfg.clone();
    if !cfg.peers.is_empty() {
        match PeerCommand::quickfixj(&crate::repo_root(), "firstapp.Router").if_built() {
            Ok(_) => {}
            Err(e) if cfg.peers_given => return Err(e.into()),
            Err(_) => {
                eprintln!(
                    "bench gateway: the QuickFIX/J router is not built (make deps): left out"
                );
                cfg.peers.clear();
            }
        }
    }
    let names: Vec<String> = std::iter::once("peregrine".to_string())
        .chain(cfg.peers.iter().cloned())
        .collect();
    let work = cfg
        .out
        .parent()
        .unwrap_or(Path::new("."))
        .join("gateway-work");
    let mut bar = Progress::new(
        "bench gateway",
        (cfg.runs * cfg.sessions.len() * names.len()).max(1),
    );
    let mut records = Vec::new();
    let mut histograms: BTreeMap<(String, usize), Histogram<u64>> = BTreeMap::new();
    let mut cpu: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    // Allocations and orders of Peregrine's router's windows, summed over the runs.
    let mut allocations: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut first_failure = None;
    for run in 1..=cfg.runs {
        for &n in &cfg.sessions {
            for name in &names {
                let what = format!("run {run}: {name} sessions-{n}");
                bar.show(&what);
                let dir = work.join(format!("{name}-{n}-{run}"));
                match one(&cfg, &exe, name, n, run, &dir) {
                    Ok(r) => {
                        if let Some(h) = histograms.get_mut(&(name.clone(), n)) {
                            let _ = h.add(&r.histogram);
                        } else {
                            histograms.insert((name.clone(), n), r.histogram);
                        }
                        if let Some(c) = r.router_cpu_us {
                            cpu.entry(format!("{name} {}", case(n)))
                                .or_default()
                                .push(c);
                        }
                        if let Some((a, o)) = r.router_allocs {
                            let sum = allocations.entry(case(n)).or_default();
                            *sum = (sum.0 + a, sum.1 + o);
                        }
                        records.push(r.record);
                    }
                    Err(e) => {
                        eprintln!("bench gateway: {what} failed: {e}");
                        failures.push(format!("{what}: {e}"));
                        first_failure.get_or_insert(e);
                    }
                }
                bar.step(&what);
            }
        }
    }
    bar.finish();
    let _ = std::fs::remove_dir_all(&work);

    let aggs = report::aggregate(&records);
    let targets = targets(&aggs, &cfg.sessions);
    let cpu: BTreeMap<String, f64> = cpu.into_iter().map(|(k, v)| (k, median(v))).collect();
    let config = serde_json::json!({
        "runs": cfg.runs,
        "seconds": cfg.seconds,
        "warmup_seconds": cfg.warmup_seconds,
        "sessions": cfg.sessions,
        "smoke": cfg.smoke,
        "machine": machine,
        "load_average_end": report::load_average(),
        "order": "interleaved: each run runs every session count, and for each every router, with a fresh exchange, router and load (fresh ports and directories)",
        "method": "client load → router → exchange → router → client; one order in flight per client session; round trip from right before the NewOrderSingle is sent to the Fill ExecutionReport (HDR, µs); orders/s = round trips in the window / window; router allocations per order over its own window inside the load's (the peregrine-bench binary's counting allocator); router CPU per order from /proc/PID/stat over the load's window; medians across runs",
        "sync_policy": settings::SYNC_POLICY,
        "rig": settings::RIG_TEXT,
        "settings": report::settings_by_case(&aggs),
        "router_cpu_us_per_order": cpu,
        "peregrine_router_allocations": allocations.iter().map(|(c, (a, o))| (c.clone(), serde_json::json!({"allocations": a, "orders": o}))).collect::<serde_json::Map<_, _>>(),
        "targets": targets.iter().map(|t| serde_json::json!({"goal": t.goal, "measured": t.measured, "met": t.met})).collect::<Vec<_>>(),
        "failed_runs": failures,
    });
    results::write_json(&cfg.out, "gateway", config, &aggs, &records)?;
    let series: Vec<plot::Series> = histograms
        .iter()
        .map(|((name, n), h)| plot::series_from_histogram(&format!("{name} {}", case(*n)), h))
        .collect();
    let svg = results::plot_beside(
        &cfg.out,
        "Order gateway (BENCHMARKS.md §8): client → router → exchange → router → client, one order in flight per session, log scale",
        &series,
    )?;
    println!(
        "Order gateway, {} run(s), {} s measured after {} s warm-up ({}):\n{}",
        cfg.runs,
        cfg.seconds,
        cfg.warmup_seconds,
        settings::SYNC_POLICY,
        table(&aggs, &cpu, &cfg.sessions, &names)
    );
    print!("{}", targets_text(&targets));
    for (c, (a, o)) in &allocations {
        println!("Peregrine's router, {c}: {a} allocations in {o} orders (its windows, all runs)");
    }
    println!("Results: {} and {}", cfg.out.display(), svg.display());
    match first_failure {
        Some(e) => Err(e),
        None => Ok(records),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_unstable_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The report's table: one row per session count × router, µs.
///
/// ```
/// use std::collections::BTreeMap;
/// use peregrine_bench::report::{aggregate, Record, Stats};
/// let rec = Record { engine: "peregrine".into(), case: "sessions-1".into(), unit: "us".into(),
///     stats: Stats { p50: 42.0, throughput_per_s: 20_000.0, ..Stats::default() },
///     allocs_per_op: Some(0.0), settings: String::new() };
/// let t = peregrine_bench::gateway::driver::table(&aggregate(&[rec]), &BTreeMap::new(), &[1], &["peregrine".into()]);
/// assert!(t.contains("| 1 | peregrine | 42.0 (42.0–42.0) |"), "{t}");
/// ```
pub fn table(
    aggs: &[report::Aggregate],
    cpu: &BTreeMap<String, f64>,
    sessions: &[usize],
    names: &[String],
) -> String {
    let mut s = String::from(
        "| sessions | router | p50 µs (min–max) | p99 µs | p99.9 µs | orders/s | router CPU µs/order | router allocs/order | p50 ÷ Peregrine's | orders/s ÷ Peregrine's |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for &n in sessions {
        let c = case(n);
        let ours = report::find(aggs, "peregrine", &c);
        for name in names {
            let Some(a) = report::find(aggs, name, &c) else {
                continue;
            };
            let ratio = |f: fn(&report::Stats) -> f64| match ours {
                Some(o) if name != "peregrine" && f(&o.stats) > 0.0 => {
                    format!("{:.2}×", f(&a.stats) / f(&o.stats))
                }
                _ => "—".into(),
            };
            s.push_str(&format!(
                "| {n} | {name} | {:.1} ({:.1}–{:.1}) | {:.1} | {:.1} | {:.0} | {} | {} | {} | {} |\n",
                a.stats.p50,
                a.p50_range[0],
                a.p50_range[1],
                a.stats.p99,
                a.stats.p999,
                a.stats.throughput_per_s,
                cpu.get(&format!("{name} {c}"))
                    .map_or("—".into(), |c| format!("{c:.1}")),
                a.allocs_per_op.map_or("—".into(), |x| format!("{x:.2}")),
                ratio(|s| s.p50),
                ratio(|s| s.throughput_per_s),
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_on_every_order_fail_the_run_growth_does_not() {
        // The stores' index doubling: 788 in 948,182 orders (BENCHMARKS.md §8).
        assert!(check_allocations("sessions-100", 3, 788, 948_182).is_ok());
        assert!(check_allocations("sessions-1", 1, 0, 0).is_ok());
        // One per order (a String per lookup, say) fails, naming the case and run.
        match check_allocations("sessions-1", 2, 30_000, 30_000) {
            Err(Error::Allocates {
                case,
                run,
                allocations,
                messages,
            }) => assert_eq!(
                (case.as_str(), run, allocations, messages),
                ("Peregrine's router, sessions-1", 2, 30_000, 30_000)
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn the_table_has_a_row_per_router_and_ratios_to_peregrine() {
        let rec = |engine: &str, p50: f64, per_s: f64| Record {
            engine: engine.into(),
            case: case(100),
            unit: "us".into(),
            stats: report::Stats {
                p50,
                throughput_per_s: per_s,
                ..report::Stats::default()
            },
            allocs_per_op: None,
            settings: String::new(),
        };
        let aggs = report::aggregate(&[
            rec("peregrine", 2_000.0, 40_000.0),
            rec("quickfixj", 16_000.0, 4_000.0),
        ]);
        let cpu = BTreeMap::from([("quickfixj sessions-100".to_string(), 204.0)]);
        let names = ["peregrine".to_string(), "quickfixj".to_string()];
        let t = table(&aggs, &cpu, &[1, 100], &names);
        assert_eq!(t.lines().count(), 4, "{t}"); // header, rule, two rows (no 1-session data)
        assert!(
            t.contains("| 100 | quickfixj | 16000.0 (16000.0–16000.0) |"),
            "{t}"
        );
        assert!(t.contains("| 204.0 | — | 8.00× | 0.10× |"), "{t}");
    }
}

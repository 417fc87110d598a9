//! Many sessions, Peregrine's side (`peregrine-bench scale-peer --role acceptor|load`;
//! the same command's `floor-acceptor|floor-load` are [`super::floor`]'s).
//!
//! **The acceptor** is a user's venue: N sessions VENUE→CLIENT0 … CLIENT{N-1} configured
//! in code ([`Settings::builder`]), one port, one reactor thread
//! ([`EngineBuilder::start`]), in-memory store, `UseDataDictionary=N`, an application
//! that answers each NewOrderSingle with an ExecutionReport (typed, [`fix44::crack`]).
//! It prints `ready` once it listens; once orders flow it counts its allocations per
//! order answered over the load's window (a warm-up second after the first order, then
//! `seconds`) and prints them as one JSON line; it runs until it is ended (SIGTERM).
//!
//! **The load generator** is one process, one engine thread, N initiator sessions
//! CLIENTk→VENUE. It measures from its start (settings, engine, connections, logons)
//! until every session is logged on (`logon_all_ms`), prints `logged-on` on stdout (the
//! driver reads the acceptor's RSS then), waits [`IDLE_BEFORE_ORDERS`] with the sessions
//! idle, then gives every session its first order through the [`Sender`]; each
//! ExecutionReport's `from_app` checks its ClOrdID, takes the time and sends the
//! session's next order (one order in flight per session). After a warm-up second the
//! round trips of `seconds` are counted and timed (t1 right before the send in
//! `from_app`, t2 once the report's ClOrdID is checked) into one HDR histogram. It prints
//! one JSON line `sessions-N` (µs, with its histogram and its own allocations per round
//! trip), logs every session out and exits.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use peregrine_codec::MessageView;
use peregrine_engine::config::Settings;
use peregrine_engine::{EngineBuilder, SubmitError};
use peregrine_messages::fix44::{self, ExecutionReport, MessageHandler, NewOrderSingle};
use peregrine_session::{AppReject, Application, Outbox, SessionId};

use super::args::{PeerArgs, Role, StoreChoice};
use crate::loopback;
use crate::order::{self, write_order, write_report, ClOrdId, OrderFields};
use crate::process::{cpu_times, CpuTimes};
use crate::report::{new_histogram, Stats};
use crate::{Error, Result};
use peregrine_engine::store::FsyncPolicy;

// For the documentation's links only.
#[cfg(doc)]
use peregrine_engine::Sender;

/// How long the sessions stay idle once all are logged on, before the orders: the
/// driver reads the acceptor's RSS in this time.
pub const IDLE_BEFORE_ORDERS: Duration = Duration::from_millis(1500);

/// Round trips before the measured `seconds` (discarded).
pub const WARMUP: Duration = Duration::from_secs(1);

/// How long the load generator waits for all its sessions to log on.
const LOGON_PATIENCE: Duration = Duration::from_secs(120);

/// The settings of one side: N sessions on one port (acceptor) or N initiators to it
/// (load), FIX.4.4, HeartBtInt 30, ResetOnLogon, TCP_NODELAY, `UseDataDictionary=N`;
/// the acceptor's store as `store` says (a durable one fsyncs every commit,
/// `FileStoreSync=Y`, under `dir`), the load's in memory.
///
/// ```
/// use peregrine_bench::scale::args::StoreChoice;
/// let dir = std::path::Path::new("/tmp/x");
/// let s = peregrine_bench::scale::sessions::settings(true, 9000, 3, StoreChoice::Journal, dir)?;
/// assert!(s.sessions[0].engine_journal && s.sessions[0].file_store_path.is_some());
/// assert_eq!(s.sessions.len(), 3);
/// assert_eq!(s.sessions[2].session_name(), "FIX.4.4:VENUE->CLIENT2");
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the settings do not build.
pub fn settings(
    acceptor: bool,
    port: u16,
    n: usize,
    store: StoreChoice,
    dir: &std::path::Path,
) -> Result<Settings> {
    let mut b = Settings::builder().default(|d| {
        let d = loopback::defaults(d, acceptor).use_data_dictionary(false);
        let d = match store {
            StoreChoice::Memory => d,
            StoreChoice::File | StoreChoice::Journal => d
                .file_store_path(dir.join("store"))
                .file_store_sync(FsyncPolicy::EveryCommit)
                .engine_journal(store == StoreChoice::Journal),
        };
        loopback::endpoint(d, acceptor, port)
    });
    for k in 0..n {
        let client = format!("CLIENT{k}");
        b = if acceptor {
            b.session("FIX.4.4", "VENUE", &client, |s| s)
        } else {
            b.session("FIX.4.4", &client, "VENUE", |s| s)
        };
    }
    b.build().map_err(Error::engine("many-sessions settings"))
}

/// The acceptor's application: one ExecutionReport per NewOrderSingle.
#[derive(Debug, Default)]
pub(crate) struct Venue {
    /// Reports sent (OrderID `O<n>`, ExecID `E<n>`).
    pub(crate) reports: u64,
    /// Orders answered by every session of the engine (read by the acceptor's main
    /// thread to count allocations per order).
    pub(crate) answered: Arc<AtomicU64>,
}

impl MessageHandler<Outbox<'_>> for Venue {
    type Error = AppReject;

    fn on_new_order_single(
        &mut self,
        order: NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let fields = OrderFields::of(&order)?;
        self.reports += 1;
        let n = self.reports;
        out.send_typed::<ExecutionReport>(|er| write_report(er, &fields, n))?;
        self.answered.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }
}

/// What the load generator's sessions share (they all run on the engine's thread).
#[derive(Debug)]
pub(crate) struct Shared {
    /// Sessions logged on.
    pub(crate) logged_on: AtomicUsize,
    /// Round trips are counted and timed.
    pub(crate) measuring: AtomicBool,
    /// No next order is sent.
    pub(crate) stop: AtomicBool,
    /// Round trips counted.
    pub(crate) round_trips: AtomicU64,
    /// Reports whose ClOrdID was not the order in flight.
    pub(crate) mismatches: AtomicU64,
    /// Round-trip times (ns).
    pub(crate) histogram: Mutex<Histogram<u64>>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            logged_on: AtomicUsize::new(0),
            measuring: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            round_trips: AtomicU64::new(0),
            mismatches: AtomicU64::new(0),
            histogram: Mutex::new(new_histogram()),
        }
    }
}

/// One load session's application: one order in flight.
#[derive(Debug)]
pub(crate) struct Load {
    shared: Arc<Shared>,
    ids: ClOrdId,
    /// When the order in flight was sent (`None`: the first, sent by the main thread).
    sent_at: Option<Instant>,
}

impl Load {
    /// A session's application; its ClOrdIDs start after `offset` (unique across
    /// sessions).
    pub(crate) fn new(shared: Arc<Shared>, offset: u64) -> Load {
        Load {
            shared,
            ids: ClOrdId::starting_after(offset),
            sent_at: None,
        }
    }
}

impl MessageHandler<Outbox<'_>> for Load {
    type Error = AppReject;

    fn on_execution_report(
        &mut self,
        report: ExecutionReport<'_>,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let t2 = Instant::now();
        if let Some(t1) = self.sent_at.take() {
            let ok = report.cl_ord_id().and_then(|r| r.ok()) == Some(self.ids.current());
            if !ok {
                self.shared.mismatches.fetch_add(1, Ordering::Relaxed);
            } else if self.shared.measuring.load(Ordering::Relaxed) {
                self.shared.round_trips.fetch_add(1, Ordering::Relaxed);
                let ns = t2.duration_since(t1).as_nanos() as u64;
                let mut h = self
                    .shared
                    .histogram
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                let _ = h.record(ns.max(1));
            }
        }
        if self.shared.stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let ids = &mut self.ids;
        let t1 = Instant::now();
        out.send_typed::<NewOrderSingle>(|o| write_order(o, ids.advance(), order::now(), true))?;
        self.sent_at = Some(t1);
        Ok(())
    }
}

impl Application for Load {
    fn on_logon(&mut self, _id: &SessionId, _out: &mut Outbox<'_>) {
        self.shared.logged_on.fetch_add(1, Ordering::Relaxed);
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }
}

/// Runs one side of the many-sessions experiment (see the [module documentation](self)).
///
/// ```no_run
/// // The acceptor (what `peregrine-bench scale-peer …` runs): listens, says `ready`.
/// let args = "--role acceptor --port 9000 --sessions 1000 --seconds 5".split(' ').map(String::from).collect::<Vec<_>>();
/// peregrine_bench::scale::sessions::main(&args)?;
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// ```
/// use peregrine_bench::{scale::sessions::main, Error};
/// // A streaming role is not one of this harness's.
/// assert!(matches!(main(&["--role", "sender"].map(String::from)), Err(Error::Usage(_))));
/// ```
///
/// # Errors
///
/// [`Error::Usage`] for bad arguments, [`Error::Engine`] when the engine does not start
/// or the sessions do not log on in time, [`Error::Check`] for reports that do not
/// answer the order in flight.
pub fn main(args: &[String]) -> Result<()> {
    let a = PeerArgs::parse(
        args,
        &[
            Role::Acceptor,
            Role::Load,
            Role::FloorAcceptor,
            Role::FloorLoad,
        ],
    )?;
    // Each session is a connection: 10,000 need more than the usual 1,024 descriptors.
    let limit = crate::process::raise_open_files_limit().unwrap_or(0);
    if limit < a.sessions as u64 + 64 {
        eprintln!(
            "scale-peer: open-file limit {limit} is below {} sessions + 64",
            a.sessions
        );
    }
    match a.role {
        Role::Acceptor => accept(&a),
        Role::FloorAcceptor => super::floor::accept(&a),
        Role::FloorLoad => super::floor::load(&a),
        _ => load(&a),
    }
}

fn accept(a: &PeerArgs) -> Result<()> {
    let started = Instant::now();
    let answered = Arc::new(AtomicU64::new(0));
    let count = answered.clone();
    let engine = EngineBuilder::new(settings(true, a.port, a.sessions, a.store, &a.dir)?)
        .start(move |_| Venue {
            answered: count.clone(),
            ..Venue::default()
        })
        .map_err(Error::engine("the acceptor did not start"))?;
    eprintln!(
        "acceptor: {} sessions configured and listening in {:.0} ms; {} store, UseDataDictionary=N, one engine thread, idle {}",
        a.sessions,
        started.elapsed().as_secs_f64() * 1e3,
        a.store.name(),
        loopback::idle()
    );
    println!("ready");
    let _ = std::io::stdout().flush();
    // The load's window, seen from here: from a warm-up after the first order, for
    // `seconds`. The process's allocations over it per order answered go out as one
    // JSON line (the engine thread is the only one working).
    while answered.load(Ordering::Relaxed) == 0 && !engine.is_finished() {
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(WARMUP);
    // Every store fsync of the engine (a journal's are timed by one session's store).
    let metrics = engine.handle().metrics().clone();
    let fsyncs = || -> u64 {
        metrics
            .sessions()
            .iter()
            .map(|s| s.store_fsync().snapshot().count())
            .sum()
    };
    let (allocs, orders, synced) = (
        crate::alloc::allocations(),
        answered.load(Ordering::Relaxed),
        fsyncs(),
    );
    std::thread::sleep(Duration::from_secs(a.seconds));
    let (allocs, orders, synced) = (
        crate::alloc::allocations() - allocs,
        answered.load(Ordering::Relaxed) - orders,
        fsyncs() - synced,
    );
    let per_order = crate::alloc::is_counting().then(|| allocs as f64 / orders.max(1) as f64);
    let fsyncs_per_order = synced as f64 / orders.max(1) as f64;
    println!(
        "{}",
        serde_json::json!({"acceptor_allocs_per_order": per_order, "orders": orders,
            "acceptor_fsyncs_per_order": fsyncs_per_order})
    );
    let _ = std::io::stdout().flush();
    // Until the driver ends it.
    while !engine.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
    }
    engine
        .stop()
        .map(|_| ())
        .map_err(Error::engine("the acceptor's engine failed"))
}

fn load(a: &PeerArgs) -> Result<()> {
    let started = Instant::now();
    let n = a.sessions;
    let shared = Arc::new(Shared::default());
    let mut next = 0u64;
    let apps = shared.clone();
    let engine = EngineBuilder::new(settings(false, a.port, n, StoreChoice::Memory, &a.dir)?)
        .start(move |_| {
            next += 1;
            // ClOrdIDs unique across sessions: each session's counter starts far apart.
            Load::new(apps.clone(), next << 40)
        })
        .map_err(Error::engine("the load generator did not start"))?;
    let built = started.elapsed();
    while shared.logged_on.load(Ordering::Relaxed) < n {
        if started.elapsed() > LOGON_PATIENCE {
            return Err(Error::failed_check(format!(
                "{} of {n} sessions logged on within {} s",
                shared.logged_on.load(Ordering::Relaxed),
                LOGON_PATIENCE.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let logon_all = started.elapsed();
    eprintln!(
        "load: {n} sessions logged on {:.0} ms after start (settings and engine built in {:.0} ms)",
        logon_all.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3
    );
    println!("logged-on");
    let _ = std::io::stdout().flush();
    std::thread::sleep(IDLE_BEFORE_ORDERS);

    // The first order of every session, from this thread; the rest from from_app.
    let sender = engine.sender();
    let refs: Vec<_> = (0..n)
        .filter_map(|k| engine.session_ref(&format!("FIX.4.4:CLIENT{k}->VENUE")))
        .collect();
    let mut first = ClOrdId::starting_after(0);
    for r in &refs {
        loop {
            match sender.send_typed::<NewOrderSingle>(*r, |o| {
                write_order(o, first.advance(), order::now(), true)
            }) {
                Ok(()) => break,
                Err(SubmitError::QueueFull) => std::thread::sleep(Duration::from_micros(100)),
                Err(e) => {
                    return Err(Error::Engine {
                        what: "the first orders".into(),
                        source: Some(Box::new(e)),
                    })
                }
            }
        }
    }
    std::thread::sleep(WARMUP);
    shared.measuring.store(true, Ordering::Relaxed);
    let measure = Instant::now();
    let cpu = CpuWindow::start(a.acceptor_pid);
    let allocs = crate::alloc::allocations();
    std::thread::sleep(Duration::from_secs(a.seconds));
    let allocs = crate::alloc::allocations() - allocs;
    shared.measuring.store(false, Ordering::Relaxed);
    let cpu = cpu.end();
    let seconds = measure.elapsed().as_secs_f64();
    shared.stop.store(true, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(200));
    engine
        .stop()
        .map_err(Error::engine("the load generator did not stop"))?;

    let mismatches = shared.mismatches.load(Ordering::Relaxed);
    if mismatches > 0 {
        return Err(Error::failed_check(format!(
            "{mismatches} ExecutionReports did not answer the order in flight"
        )));
    }
    let round_trips = shared.round_trips.load(Ordering::Relaxed);
    let h = shared.histogram.lock().unwrap_or_else(|p| p.into_inner());
    if round_trips == 0 || h.is_empty() {
        return Err(Error::failed_check("no round trip in the measured window"));
    }
    let line = sessions_line(
        "load",
        n,
        &h,
        round_trips,
        seconds,
        &cpu,
        serde_json::json!({
            "logon_all_ms": logon_all.as_secs_f64() * 1e3,
            // This process's (the load generator's) allocations per round trip.
            "load_allocs_per_op": crate::alloc::is_counting()
                .then(|| allocs as f64 / round_trips.max(1) as f64),
            "settings": format!(
                "load generator: Peregrine, {n} initiator sessions on one engine thread (EngineBuilder::start), memory store, UseDataDictionary=N, idle {}; one order in flight per session, the next sent from from_app; {} s warm-up, then {:.1} s measured",
                loopback::idle(), WARMUP.as_secs(), seconds
            ),
        }),
    );
    println!("{line}");
    Ok(())
}

/// The CPU time the acceptor's process and this one (the load) use over the measured
/// window, reported per round trip: what each side's work costs, in user space and in
/// the kernel (where on loopback most of it is the TCP work of the messages). Both
/// sides share the same CPUs: [`targets`](super::targets::targets) sets what the least
/// kernel time per round trip leaves them beside the 10× target.
pub(crate) struct CpuWindow {
    acceptor: Option<(u32, CpuTimes)>,
    load: Option<CpuTimes>,
}

impl CpuWindow {
    /// At the window's start; `acceptor` is `--acceptor-pid` (none: not reported).
    pub(crate) fn start(acceptor: Option<u32>) -> CpuWindow {
        CpuWindow {
            acceptor: acceptor.and_then(|pid| Some((pid, cpu_times(pid).ok()?))),
            load: cpu_times(std::process::id()).ok(),
        }
    }

    /// At the window's end: what each side used since the start (those that could be
    /// read).
    pub(crate) fn end(&self) -> CpuUsed {
        CpuUsed {
            acceptor: self
                .acceptor
                .and_then(|(pid, before)| Some(cpu_times(pid).ok()?.since(before))),
            load: self
                .load
                .and_then(|before| Some(cpu_times(std::process::id()).ok()?.since(before))),
        }
    }
}

/// The CPU time each side used over a window ([`CpuWindow`]); by default, none read.
#[derive(Default)]
pub(crate) struct CpuUsed {
    acceptor: Option<CpuTimes>,
    load: Option<CpuTimes>,
}

impl CpuUsed {
    /// µs per round trip, as the result line's fields `acceptor_cpu_us`,
    /// `acceptor_kernel_us`, `load_cpu_us`, `load_kernel_us` (those measured).
    pub(crate) fn per_round_trip(
        &self,
        round_trips: u64,
    ) -> serde_json::Map<String, serde_json::Value> {
        let us = |d: Duration| d.as_secs_f64() * 1e6 / round_trips.max(1) as f64;
        let mut v = serde_json::Map::new();
        for (side, used) in [("acceptor", self.acceptor), ("load", self.load)] {
            if let Some(used) = used {
                v.insert(format!("{side}_cpu_us"), us(used.total()).into());
                v.insert(format!("{side}_kernel_us"), us(used.system).into());
            }
        }
        v
    }
}

/// One many-sessions result line, the load generator's or the floor's: `sessions-N`, the
/// round trips of the window (`h`, ns, printed in µs), their count over `seconds` (the
/// throughput; with N orders in flight the mean comes from the histogram, not the wall
/// time), the histogram itself, the CPU each side used per round trip, and `extra`'s
/// fields (what the harness adds: the logon time, allocations, settings).
pub(crate) fn sessions_line(
    engine: &str,
    n: usize,
    h: &Histogram<u64>,
    round_trips: u64,
    seconds: f64,
    cpu: &CpuUsed,
    extra: serde_json::Value,
) -> serde_json::Value {
    let us = |q: f64| crate::report::us(h, q);
    let stats = Stats {
        min: h.min() as f64 / 1e3,
        p50: us(0.5),
        mean: h.mean() / 1e3,
        p90: us(0.9),
        p99: us(0.99),
        p999: us(0.999),
        max: h.max() as f64 / 1e3,
        throughput_per_s: round_trips as f64 / seconds,
    };
    let mut line = serde_json::json!({
        "engine": engine,
        "case": format!("sessions-{n}"),
        "unit": "us",
        "min": stats.min, "p50": stats.p50, "mean": stats.mean, "p90": stats.p90,
        "p99": stats.p99, "p999": stats.p999, "max": stats.max,
        "throughput_per_s": stats.throughput_per_s,
        "sessions": n,
        "round_trips": round_trips,
        "seconds": seconds,
        "hdr": crate::roundtrip::peer::pairs_of_histogram(h),
    });
    if let Some(line) = line.as_object_mut() {
        line.extend(cpu.per_round_trip(round_trips));
        if let serde_json::Value::Object(extra) = extra {
            line.extend(extra);
        }
    }
    line
}

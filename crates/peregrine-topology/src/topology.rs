//! Assembling and running the topology: an Aeron media driver, then the executor, the
//! gateway and the venue, each on its own thread.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use hdrhistogram::Histogram;
use peregrine_aeron::{AeronClient, Channel, DriverConfig, DriverIdle, MediaDriver, Threading};
use peregrine_engine::fix::StoreKind;
use peregrine_engine::{AppEngine, BoxedStore, EngineBuilder, EngineOptions, Idle};
use peregrine_session::Application;
use peregrine_store::MemoryStore;

use crate::executor::{Executor, ExecutorCounters};
use crate::gateway::{Gateway, GatewayApp, GatewayCounters};
use crate::parts::{aeron_end, join, spawn, watch, End};
use crate::steps::{Stamps, StepHistograms};
use crate::venue::{FillMismatch, Venue, VenueApp, VenueState};
use crate::{Error, Result};

/// The gateway ⇄ executor hop.
///
/// ```
/// use peregrine_topology::{TopologyConfig, Transport};
///
/// let cfg = TopologyConfig {
///     transport: Transport::Udp {
///         orders: "10.77.0.1:40123".parse().unwrap(),
///         reports: "10.77.0.2:40124".parse().unwrap(),
///     },
///     ..TopologyConfig::default()
/// };
/// assert!(cfg.describe().contains("Aeron UDP (orders 10.77.0.1:40123, reports 10.77.0.2:40124)"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Aeron IPC (shared memory) on one host.
    Ipc,
    /// Aeron UDP unicast: orders to `orders` (where the executor listens), reports to
    /// `reports` (where the gateway listens).
    Udp {
        /// The executor's orders endpoint.
        orders: SocketAddr,
        /// The gateway's reports endpoint.
        reports: SocketAddr,
    },
}

impl Transport {
    /// The orders and reports channels.
    ///
    /// ```
    /// use peregrine_topology::Transport;
    /// let (orders, reports) = Transport::Ipc.channels();
    /// assert_eq!(orders, reports); // one IPC channel, two streams
    /// ```
    pub fn channels(&self) -> (Channel, Channel) {
        match self {
            Transport::Ipc => (Channel::ipc(), Channel::ipc()),
            Transport::Udp { orders, reports } => (Channel::udp(*orders), Channel::udp(*reports)),
        }
    }
}

/// Which parts this process runs.
///
/// ```no_run
/// use std::sync::{atomic::AtomicBool, Arc};
/// use peregrine_topology::{run, Part, TopologyConfig, Transport};
///
/// // The executor of a topology whose venue and gateway run on another host.
/// let stop = Arc::new(AtomicBool::new(false)); // raised by a signal handler, say
/// let cfg = TopologyConfig {
///     part: Part::Executor,
///     transport: Transport::Udp { orders: "10.77.0.1:40123".parse().unwrap(), reports: "10.77.0.2:40124".parse().unwrap() },
///     stop: Some(stop),
///     ..TopologyConfig::default()
/// };
/// let r = run(&cfg, &mut |_, _| {})?;
/// println!("filled {}", r.executor.map_or(0, |e| e.filled));
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Venue, gateway and executor (steps timed).
    All,
    /// Venue and gateway; the executor runs elsewhere (another process or host).
    VenueGateway,
    /// The executor only, until it has filled [`TopologyConfig::executor_limit`] orders or
    /// the stop flag is raised.
    Executor,
}

/// Settings of one run.
///
/// ```
/// use peregrine_engine::Idle;
/// use peregrine_topology::TopologyConfig;
///
/// let cfg = TopologyConfig::default();
/// assert_eq!((cfg.warmup, cfg.count), (10_000, 100_000));
/// assert_eq!(cfg.idle, Idle::spin_then_yield(100));
/// let quick = TopologyConfig { warmup: 100, count: 1_000, ..cfg };
/// assert_eq!(quick.count, 1_000);
/// ```
#[derive(Clone, Debug)]
pub struct TopologyConfig {
    /// Warm-up round trips (not recorded).
    pub warmup: u64,
    /// Measured round trips.
    pub count: u64,
    /// What each part's loop does when idle (not `block`: the loops poll two transports).
    pub idle: Idle,
    /// The sessions' message store.
    pub store: StoreKind,
    /// The file store's directory (a fresh temporary one when `None`).
    pub store_dir: Option<PathBuf>,
    /// The file store's fsync policy (`FileStoreSync`: `always`, `never`, milliseconds).
    pub store_sync: String,
    /// A FIX.4.4 data dictionary to validate with on both sessions (`None`: no dictionary).
    pub dictionary: Option<PathBuf>,
    /// The gateway ⇄ executor hop.
    pub transport: Transport,
    /// Which parts run here.
    pub part: Part,
    /// Connect to a running media driver in this directory instead of embedding one.
    pub external_driver: Option<String>,
    /// The embedded driver's idle strategy.
    pub driver_idle: DriverIdle,
    /// Reads the process's allocation counter (the binary's counting allocator).
    pub allocations: Option<fn() -> u64>,
    /// Longest wait for anything (a logon, a connection, a reply).
    pub timeout: Duration,
    /// [`Part::Executor`]: stop after this many fills.
    pub executor_limit: Option<u64>,
    /// Raise to stop early (a [`Part::Executor`] run, for instance).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig {
            warmup: 10_000,
            count: 100_000,
            idle: Idle::spin_then_yield(100),
            store: StoreKind::Memory,
            store_dir: None,
            store_sync: "always".into(),
            dictionary: None,
            transport: Transport::Ipc,
            part: Part::All,
            external_driver: None,
            driver_idle: DriverIdle::Backoff,
            allocations: None,
            timeout: Duration::from_secs(20),
            executor_limit: None,
            stop: None,
        }
    }
}

impl TopologyConfig {
    /// A one-line description of the settings, for reports.
    ///
    /// ```
    /// let text = peregrine_topology::TopologyConfig::default().describe();
    /// assert!(text.contains("idle spin-then-yield:100") && text.contains("transport Aeron IPC"));
    /// ```
    pub fn describe(&self) -> String {
        format!(
            "threads: venue, gateway, executor (+ Aeron driver, {:?}); idle {}; store {}{}; dictionary {}; transport {}",
            self.driver_idle,
            self.idle,
            match self.store {
                StoreKind::Memory => "memory".to_string(),
                StoreKind::File => "file".to_string(),
                StoreKind::Sql => "database".to_string(),
            },
            if self.store == StoreKind::File {
                format!(" (FileStoreSync={})", self.store_sync)
            } else {
                String::new()
            },
            self.dictionary
                .as_ref()
                .map_or("none (UseDataDictionary=N)".into(), |d| d.display().to_string()),
            match &self.transport {
                Transport::Ipc => "Aeron IPC".to_string(),
                Transport::Udp { orders, reports } =>
                    format!("Aeron UDP (orders {orders}, reports {reports})"),
            }
        )
    }
}

/// What a run measured and counted.
///
/// ```no_run
/// use peregrine_topology::{run, TopologyConfig};
///
/// let cfg = TopologyConfig { warmup: 100, count: 1_000, ..TopologyConfig::default() };
/// let r = run(&cfg, &mut |_, _| {})?;
/// r.check(1_100)?;
/// println!("{} round trips, p50 {} ns, gateway {:?}", r.measured, r.rtt.value_at_quantile(0.5), r.gateway);
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Round-trip times of the measured orders, ns (empty for [`Part::Executor`]).
    pub rtt: Histogram<u64>,
    /// Per-step times, ns (empty unless [`Part::All`]).
    pub steps: StepHistograms,
    /// Measured round trips.
    pub measured: u64,
    /// Wall time of the measured phase.
    pub wall: Duration,
    /// Allocations in the whole process (all three parts) over the measured phase.
    pub allocations: Option<u64>,
    /// ExecutionReports the venue received (warm-up included).
    pub fills: u64,
    /// ExecutionReports that did not match their order.
    pub errors: u64,
    /// The first mismatch.
    pub first_error: Option<FillMismatch>,
    /// The venue session's next sender and target sequence numbers at the end.
    pub venue_seq: (u64, u64),
    /// The gateway session's next sender and target sequence numbers at the end.
    pub gateway_seq: (u64, u64),
    /// The gateway's counters.
    pub gateway: GatewayCounters,
    /// The executor's counters (when it ran here).
    pub executor: Option<ExecutorCounters>,
    /// The settings, described.
    pub settings: String,
}

impl RunResult {
    /// Measured round trips per second of wall time.
    ///
    /// ```no_run
    /// let r = peregrine_topology::run(&Default::default(), &mut |_, _| {})?;
    /// println!("{:.0} round trips/s", r.throughput());
    /// # Ok::<(), peregrine_topology::Error>(())
    /// ```
    pub fn throughput(&self) -> f64 {
        self.measured as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Checks that every one of the `orders` sent (warm-up included) came back as the
    /// right fill.
    ///
    /// ```no_run
    /// use peregrine_topology::{run, Error, TopologyConfig};
    ///
    /// let cfg = TopologyConfig { warmup: 10, count: 100, ..TopologyConfig::default() };
    /// match run(&cfg, &mut |_, _| {})?.check(110) {
    ///     Ok(()) => println!("every fill came back right"),
    ///     Err(Error::Check { what }) => eprintln!("{what}"),
    ///     Err(other) => return Err(other),
    /// }
    /// # Ok::<(), peregrine_topology::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Check`] naming how many fills came back, how many were wrong, and the
    /// first mismatch.
    pub fn check(&self, orders: u64) -> Result<()> {
        if self.errors == 0 && self.fills == orders {
            return Ok(());
        }
        Err(Error::Check {
            what: format!(
                "{} fills of {orders} ({} wrong){}",
                self.fills,
                self.errors,
                self.first_error
                    .as_ref()
                    .map_or(String::new(), |m| format!(": {m}"))
            ),
        })
    }
}

fn settings_text(
    cfg: &TopologyConfig,
    initiator: Option<u16>,
    store_dir: &std::path::Path,
) -> String {
    let mut t = String::from("[DEFAULT]\n");
    match initiator {
        Some(port) => t.push_str(&format!(
            "ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=VENUE\nTargetCompID=GATEWAY\nHeartBtInt=30\nReconnectInterval=1\n"
        )),
        None => t.push_str(
            "ConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\nSocketAcceptPort=0\n\
             SenderCompID=GATEWAY\nTargetCompID=VENUE\n",
        ),
    }
    match &cfg.dictionary {
        Some(d) => t.push_str(&format!(
            "UseDataDictionary=Y\nDataDictionary={}\n",
            d.display()
        )),
        None => t.push_str("UseDataDictionary=N\n"),
    }
    t.push_str(&format!(
        "FileStorePath={}\nFileStoreSync={}\nIdleStrategy=busy-spin\n[SESSION]\nBeginString=FIX.4.4\n",
        store_dir.display(),
        cfg.store_sync
    ));
    t
}

/// The engine of the venue (`initiator`: the gateway's port) or the gateway (`None`),
/// built from its settings with `app` making the session's application. The part's own
/// loop idles (it polls Aeron too); the engine never waits.
fn engine<A: Application + 'static>(
    cfg: &TopologyConfig,
    initiator: Option<u16>,
    store_dir: &std::path::Path,
    part: &'static str,
    app: impl FnMut(&peregrine_engine::SessionContext<'_>) -> A,
) -> Result<AppEngine<A>> {
    let text = settings_text(cfg, initiator, store_dir);
    let mut builder = EngineBuilder::parse(&text, "topology.cfg")
        .map_err(|e| Error::setup(part, "settings", e))?
        .options(EngineOptions {
            idle: Idle::busy_spin(),
            message_logs: false,
            stop_flag: None,
            ..EngineOptions::default()
        })
        .idle(Idle::busy_spin());
    builder = match cfg.store {
        StoreKind::Memory => {
            // Room for every message of the run up front, so that the store never grows
            // (and so never allocates) while orders flow.
            let msgs = (cfg.warmup + cfg.count) as usize + 1_000;
            builder.store_with(move |_, now| {
                Ok(Box::new(MemoryStore::with_capacity(now, msgs, msgs * 320)) as BoxedStore)
            })
        }
        kind @ (StoreKind::File | StoreKind::Sql) => builder.store(kind),
    };
    let engine = builder
        .build_local(app)
        .map_err(|e| Error::setup(part, "engine", e))?;
    if engine.sessions().is_empty() {
        return Err(Error::Setup {
            part,
            what: "settings (no session in them)",
            source: None,
        });
    }
    Ok(engine)
}

struct GatewayEnd {
    counters: GatewayCounters,
    seq: (u64, u64),
}

fn gateway_thread(
    cfg: &TopologyConfig,
    dir: &str,
    store_dir: &std::path::Path,
    stamps: Option<Arc<Stamps>>,
    running: &AtomicBool,
    ready: &mpsc::Sender<Result<SocketAddr>>,
) -> Result<GatewayEnd> {
    let setup = || -> Result<(AeronClient, Gateway)> {
        let (client, orders, reports) = aeron_end(
            dir,
            &cfg.transport,
            End::Gateway,
            "gateway",
            Some(cfg.timeout),
        )?;
        let counters = Rc::new(RefCell::new(GatewayCounters::default()));
        let orders = Rc::new(RefCell::new(orders));
        let engine = engine(cfg, None, store_dir, "gateway", |_| {
            GatewayApp::new(orders.clone(), counters.clone(), stamps.clone(), 0)
        })?;
        let sessions = engine.sessions().into_iter().map(|s| s.name).collect();
        let gw = Gateway {
            engine,
            reports,
            sessions,
            counters,
            stamps,
        };
        Ok((client, gw))
    };
    let (client, mut gw) = match setup() {
        Ok(g) => g,
        Err(e) => {
            let _ = ready.send(Err(e.clone()));
            return Err(e);
        }
    };
    let addr = gw.engine.listener_addrs()[0];
    let _ = ready.send(Ok(addr));
    // The sequence numbers are read before the engine shuts down (and logs out).
    let seq = gw.run(&mut cfg.idle.fresh(), running)?;
    let counters = *gw.counters.borrow();
    drop(gw);
    drop(client);
    Ok(GatewayEnd { counters, seq })
}

struct VenueEnd {
    result: crate::venue::VenueResult,
    seq: (u64, u64),
}

fn venue_thread(
    cfg: &TopologyConfig,
    addr: SocketAddr,
    store_dir: &std::path::Path,
    stamps: Option<Arc<Stamps>>,
    done: &AtomicU64,
) -> Result<VenueEnd> {
    let state = Rc::new(VenueState::default());
    let engine = engine(cfg, Some(addr.port()), store_dir, "venue", |_| {
        VenueApp::new(state.clone())
    })?;
    let session = engine.sessions()[0].name.clone();
    let mut venue = Venue {
        engine,
        session,
        state,
        stamps,
    };
    let mut idle = cfg.idle.fresh();
    venue.logon(&mut idle, cfg.timeout)?;
    let result = venue.run(
        cfg.warmup,
        cfg.count,
        &mut idle,
        cfg.timeout,
        done,
        cfg.allocations,
    )?;
    let seq = venue
        .engine
        .sessions()
        .first()
        .map_or((0, 0), |s| (s.next_sender_seq, s.next_target_seq));
    venue
        .engine
        .shutdown()
        .map_err(|e| Error::transport("venue", "shutdown", e))?;
    Ok(VenueEnd { result, seq })
}

fn executor_thread(
    cfg: &TopologyConfig,
    dir: &str,
    stamps: Option<Arc<Stamps>>,
    running: &AtomicBool,
) -> Result<ExecutorCounters> {
    let (client, reports, orders) =
        aeron_end(dir, &cfg.transport, End::Executor, "executor", None)?;
    let mut ex = Executor {
        orders,
        reports,
        stamps,
        counters: ExecutorCounters::default(),
        limit: if cfg.part == Part::Executor {
            cfg.executor_limit
        } else {
            None
        },
    };
    let r = ex.run(&mut cfg.idle.fresh(), running);
    drop(ex);
    drop(client);
    r
}

/// Runs the topology (the parts `cfg.part` names) and returns what it measured.
/// `progress(done, total)` is called about every 100 ms from the calling thread.
///
/// ```no_run
/// use peregrine_topology::{run, TopologyConfig};
///
/// let cfg = TopologyConfig { warmup: 100, count: 1_000, ..TopologyConfig::default() };
/// let r = run(&cfg, &mut |done, total| eprint!("\r{done}/{total}"))?;
/// assert_eq!(r.measured, 1_000);
/// println!("p50 {} ns, {:.0} round trips/s", r.rtt.value_at_quantile(0.5), r.throughput());
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Config`] when the idle strategy is `block`; otherwise the first error of a
/// part ([`Error::Setup`], [`Error::Transport`], [`Error::Timeout`]), or
/// [`Error::Panicked`]. Fills that came back wrong are not an error here: they are
/// counted in [`RunResult::errors`].
pub fn run(cfg: &TopologyConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<RunResult> {
    if cfg.idle.is_block() {
        return Err(Error::Config {
            reason: "idle strategy `block` does not fit: every part polls two transports".into(),
        });
    }
    let _driver = match &cfg.external_driver {
        Some(_) => None,
        None => Some(
            MediaDriver::launch(&DriverConfig {
                idle: cfg.driver_idle,
                threading: Threading::Shared,
                ..DriverConfig::default()
            })
            .map_err(|e| Error::setup("aeron media driver", "launch", e))?,
        ),
    };
    let dir = match (&cfg.external_driver, &_driver) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => d.dir().to_string(),
        (None, None) => unreachable!(),
    };
    let temp_store = cfg.store_dir.is_none().then(|| {
        std::env::temp_dir().join(format!(
            "peregrine-topology-{}-{}",
            std::process::id(),
            crate::clock::now()
        ))
    });
    let store_dir = cfg
        .store_dir
        .clone()
        .or_else(|| temp_store.clone())
        .unwrap_or_default();
    let stamps = (cfg.part == Part::All).then(|| Arc::new(Stamps::new()));
    let running = Arc::new(AtomicBool::new(true));
    let stop = cfg
        .stop
        .clone()
        .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let done = Arc::new(AtomicU64::new(0));
    let total = cfg.warmup + cfg.count;

    let executor = (cfg.part != Part::VenueGateway)
        .then(|| {
            let (cfg, dir, stamps, running) =
                (cfg.clone(), dir.clone(), stamps.clone(), running.clone());
            spawn("executor", move || {
                executor_thread(&cfg, &dir, stamps, &running)
            })
        })
        .transpose()?;

    if cfg.part == Part::Executor {
        let h = executor.expect("spawned");
        while !h.is_finished() {
            std::thread::sleep(Duration::from_millis(50));
            if stop.load(Ordering::Relaxed) {
                running.store(false, Ordering::Relaxed);
            }
        }
        let counters = join(h, "executor")?;
        return Ok(RunResult {
            rtt: crate::steps::new_histogram(),
            steps: StepHistograms::default(),
            measured: 0,
            wall: Duration::ZERO,
            allocations: None,
            fills: 0,
            errors: 0,
            first_error: None,
            venue_seq: (0, 0),
            gateway_seq: (0, 0),
            gateway: GatewayCounters::default(),
            executor: Some(counters),
            settings: cfg.describe(),
        });
    }

    let (ready_tx, ready_rx) = mpsc::channel();
    let gateway = {
        let (cfg, dir, store_dir, stamps, running) = (
            cfg.clone(),
            dir.clone(),
            store_dir.clone(),
            stamps.clone(),
            running.clone(),
        );
        spawn("gateway", move || {
            gateway_thread(&cfg, &dir, &store_dir, stamps, &running, &ready_tx)
        })?
    };
    let stop_all = |running: &AtomicBool| running.store(false, Ordering::Relaxed);
    let started_within = cfg.timeout + Duration::from_secs(5);
    let addr = match ready_rx.recv_timeout(started_within) {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => {
            stop_all(&running);
            let _ = gateway.join();
            if let Some(h) = executor {
                let _ = h.join();
            }
            return Err(e);
        }
        Err(_) => {
            stop_all(&running);
            return Err(Error::Timeout {
                part: "gateway",
                waiting_for: "listening address".into(),
                after: started_within,
            });
        }
    };
    let venue = {
        let (cfg, store_dir, stamps, done) =
            (cfg.clone(), store_dir.clone(), stamps.clone(), done.clone());
        spawn("venue", move || {
            venue_thread(&cfg, addr, &store_dir, stamps, &done)
        })?
    };
    watch(&venue, &done, total, progress, || {
        stop.load(Ordering::Relaxed) || gateway.is_finished()
    });
    let venue = join(venue, "venue");
    stop_all(&running);
    let gateway = join(gateway, "gateway");
    let executor = executor.map(|h| join(h, "executor")).transpose();
    if let Some(t) = temp_store {
        let _ = std::fs::remove_dir_all(t);
    }
    let venue = venue?;
    let gateway = gateway?;
    let executor = executor?;
    Ok(RunResult {
        measured: venue.result.rtt.len(),
        rtt: venue.result.rtt,
        steps: venue.result.steps,
        wall: venue.result.wall,
        allocations: venue.result.allocations,
        fills: venue.result.fills,
        errors: venue.result.errors,
        first_error: venue.result.first_error,
        venue_seq: venue.seq,
        gateway_seq: gateway.seq,
        gateway: gateway.counters,
        executor,
        settings: cfg.describe(),
    })
}

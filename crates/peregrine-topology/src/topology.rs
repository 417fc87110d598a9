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
use peregrine_aeron::{
    AeronClient, Channel, ClientConfig, DriverConfig, DriverIdle, MediaDriver, SpinThenYield,
    Threading,
};
use peregrine_engine::config::{SessionSettings, Settings};
use peregrine_engine::fix::{self, FixSession, StoreKind};
use peregrine_engine::{now_nanos, Engine, EngineOptions, Idle, IdleStrategy};
use peregrine_session::Session;
use peregrine_store::{MemoryStore, MessageStore};

use crate::executor::{Executor, ExecutorCounters};
use crate::gateway::{Gateway, GatewayApp, GatewayCounters, GatewayDriver};
use crate::steps::{Stamps, StepHistograms};
use crate::venue::{Venue, VenueApp, VenueState};
use crate::{Error, Result, ORDERS_STREAM, REPORTS_STREAM};

/// The gateway ⇄ executor hop.
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
    pub fn channels(&self) -> (Channel, Channel) {
        match self {
            Transport::Ipc => (Channel::ipc(), Channel::ipc()),
            Transport::Udp { orders, reports } => (Channel::udp(*orders), Channel::udp(*reports)),
        }
    }
}

/// Which parts this process runs.
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
    pub fn describe(&self) -> String {
        format!(
            "threads: venue, gateway, executor (+ Aeron driver, {:?}); idle {}; store {}{}; dictionary {}; transport {}",
            self.driver_idle,
            self.idle,
            match self.store {
                StoreKind::Memory => "memory".to_string(),
                StoreKind::File => "file".to_string(),
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
    pub first_error: Option<String>,
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
    pub fn throughput(&self) -> f64 {
        self.measured as f64 / self.wall.as_secs_f64().max(1e-9)
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

fn open_store(cfg: &TopologyConfig, s: &SessionSettings) -> Result<Box<dyn MessageStore + Send>> {
    let now = now_nanos();
    match cfg.store {
        StoreKind::Memory => {
            // Room for every message of the run up front, so that the store never grows
            // (and so never allocates) while orders flow.
            let msgs = (cfg.warmup + cfg.count) as usize + 1_000;
            Ok(Box::new(MemoryStore::with_capacity(now, msgs, msgs * 320)))
        }
        StoreKind::File => {
            fix::open_store(s, StoreKind::File, now).map_err(|e| Error::at("store", e))
        }
    }
}

fn session_settings(text: &str) -> Result<SessionSettings> {
    let settings =
        Settings::parse(text, "topology.cfg".as_ref()).map_err(|e| Error::at("settings", e))?;
    settings
        .sessions
        .into_iter()
        .next()
        .ok_or_else(|| Error("settings: no session".into()))
}

fn engine_options() -> EngineOptions {
    // The part's own loop idles (it polls Aeron too); the engine never waits.
    EngineOptions {
        idle: Idle::busy_spin(),
        message_logs: false,
        stop_flag: None,
        ..EngineOptions::default()
    }
}

type Store = Box<dyn MessageStore + Send>;

fn aeron_client(dir: &str) -> Result<AeronClient> {
    AeronClient::connect(&ClientConfig::with_dir(dir.to_string()))
        .map_err(|e| Error::at("aeron client", e))
}

struct GatewayEnd {
    counters: GatewayCounters,
    seq: (u64, u64),
}

#[allow(clippy::too_many_arguments)]
fn gateway_thread(
    cfg: &TopologyConfig,
    dir: &str,
    store_dir: &std::path::Path,
    stamps: Option<Arc<Stamps>>,
    running: &AtomicBool,
    ready: &mpsc::Sender<Result<SocketAddr>>,
) -> Result<GatewayEnd> {
    let setup = || -> Result<(AeronClient, Gateway<Store>)> {
        let client = aeron_client(dir)?;
        let (orders_ch, reports_ch) = cfg.transport.channels();
        let orders = client
            .publisher(&orders_ch, ORDERS_STREAM)
            .map_err(|e| Error::at("gateway orders publication", e))?;
        let reports = client
            .subscriber(&reports_ch, REPORTS_STREAM)
            .map_err(|e| Error::at("gateway reports subscription", e))?;
        let mut wait = SpinThenYield::default();
        orders
            .wait_connected(&mut wait, cfg.timeout)
            .map_err(|e| Error::at("gateway: executor's orders subscription", e))?;
        reports
            .wait_connected(&mut wait, cfg.timeout)
            .map_err(|e| Error::at("gateway: executor's reports publication", e))?;
        let s = session_settings(&settings_text(cfg, None, store_dir))?;
        let dicts = fix::load_dictionaries(&s).map_err(|e| Error::at("dictionary", e))?;
        let session = Session::new(
            fix::session_config(&s, dicts),
            open_store(cfg, &s)?,
            now_nanos(),
        );
        let counters = Rc::new(RefCell::new(GatewayCounters::default()));
        let app = GatewayApp::new(
            Rc::new(RefCell::new(orders)),
            counters.clone(),
            stamps.clone(),
            0,
        );
        let mut engine =
            Engine::new(engine_options()).map_err(|e| Error::at("gateway engine", e))?;
        engine
            .add_session(
                &s,
                GatewayDriver {
                    inner: FixSession::new(session, app),
                },
            )
            .map_err(|e| Error::at("gateway session", e))?;
        let gw = Gateway {
            engine,
            reports,
            sessions: vec![s.session_name()],
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
    let mut idle = cfg.idle.fresh();
    let mut seq = (0, 0);
    while running.load(Ordering::Relaxed) {
        idle.idle(usize::from(gw.turn()?));
    }
    if let Some(s) = gw.engine.sessions().first() {
        seq = (s.next_sender_seq, s.next_target_seq);
    }
    gw.engine
        .shutdown()
        .map_err(|e| Error::at("gateway shutdown", e))?;
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
    let s = session_settings(&settings_text(cfg, Some(addr.port()), store_dir))?;
    let dicts = fix::load_dictionaries(&s).map_err(|e| Error::at("dictionary", e))?;
    let session = Session::new(
        fix::session_config(&s, dicts),
        open_store(cfg, &s)?,
        now_nanos(),
    );
    let state = Rc::new(VenueState::default());
    let mut engine = Engine::new(engine_options()).map_err(|e| Error::at("venue engine", e))?;
    engine
        .add_session(&s, FixSession::new(session, VenueApp::new(state.clone())))
        .map_err(|e| Error::at("venue session", e))?;
    let mut venue = Venue {
        engine,
        session: s.session_name(),
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
        .map_err(|e| Error::at("venue shutdown", e))?;
    Ok(VenueEnd { result, seq })
}

fn executor_thread(
    cfg: &TopologyConfig,
    dir: &str,
    stamps: Option<Arc<Stamps>>,
    running: &AtomicBool,
) -> Result<ExecutorCounters> {
    let client = aeron_client(dir)?;
    let (orders_ch, reports_ch) = cfg.transport.channels();
    let orders = client
        .subscriber(&orders_ch, ORDERS_STREAM)
        .map_err(|e| Error::at("executor orders subscription", e))?;
    let reports = client
        .publisher(&reports_ch, REPORTS_STREAM)
        .map_err(|e| Error::at("executor reports publication", e))?;
    let mut ex = Executor {
        orders,
        reports,
        stamps,
        counters: ExecutorCounters::default(),
    };
    let limit = if cfg.part == Part::Executor {
        cfg.executor_limit
    } else {
        None
    };
    let r = ex.run(&mut cfg.idle.fresh(), running, limit);
    drop(ex);
    drop(client);
    r
}

fn join<T>(h: std::thread::JoinHandle<Result<T>>, what: &str) -> Result<T> {
    h.join()
        .map_err(|_| Error(format!("{what} thread panicked")))?
}

/// Runs the topology (the parts `cfg.part` names) and returns what it measured.
/// `progress(done, total)` is called about every 100 ms from the calling thread.
pub fn run(cfg: &TopologyConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<RunResult> {
    if cfg.idle.is_block() {
        return Err(Error(
            "idle strategy `block` does not fit: every part polls two transports".into(),
        ));
    }
    let _driver = match &cfg.external_driver {
        Some(_) => None,
        None => Some(
            MediaDriver::launch(&DriverConfig {
                idle: cfg.driver_idle,
                threading: Threading::Shared,
                ..DriverConfig::default()
            })
            .map_err(|e| Error::at("aeron media driver", e))?,
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
            now_nanos()
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

    let executor = (cfg.part != Part::VenueGateway).then(|| {
        let (cfg, dir, stamps, running) =
            (cfg.clone(), dir.clone(), stamps.clone(), running.clone());
        std::thread::Builder::new()
            .name("executor".into())
            .spawn(move || executor_thread(&cfg, &dir, stamps, &running))
    });
    let executor = executor.transpose().map_err(|e| Error::at("spawn", e))?;

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
        std::thread::Builder::new()
            .name("gateway".into())
            .spawn(move || gateway_thread(&cfg, &dir, &store_dir, stamps, &running, &ready_tx))
            .map_err(|e| Error::at("spawn", e))?
    };
    let stop_all = |running: &AtomicBool| running.store(false, Ordering::Relaxed);
    let addr = match ready_rx.recv_timeout(cfg.timeout + Duration::from_secs(5)) {
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
            return Err(Error("gateway did not start in time".into()));
        }
    };
    let venue = {
        let (cfg, store_dir, stamps, done) =
            (cfg.clone(), store_dir.clone(), stamps.clone(), done.clone());
        std::thread::Builder::new()
            .name("venue".into())
            .spawn(move || venue_thread(&cfg, addr, &store_dir, stamps, &done))
            .map_err(|e| Error::at("spawn", e))?
    };
    while !venue.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        progress(done.load(Ordering::Relaxed), total);
        if stop.load(Ordering::Relaxed) || gateway.is_finished() {
            break;
        }
    }
    progress(done.load(Ordering::Relaxed), total);
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

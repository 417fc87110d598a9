//! The transport floor: the round trip's bytes through the same hops (TCP on loopback,
//! Aeron IPC) by the thinnest code possible — raw non-blocking TCP sockets polled in a
//! loop, raw Aeron publish/poll of pre-encoded bytes, no FIX or SBE work, no sessions.
//! A socket is polled the cheapest way there is: a zero-timeout `epoll_wait` on its one
//! edge-triggered registration (cheaper than a `read` that says `WouldBlock`: it takes
//! no socket lock), then reads until one comes back short.
//! Same threads (venue, gateway, executor) and the same idle strategy as the topology,
//! so that the difference is what the engine, the session and the codecs cost.
//!
//! With [`FloorConfig::steps`] the floor stamps the same points as the topology (the
//! points where the topology does FIX or SBE work collapse into one), so that the two
//! step breakdowns can be compared hop by hop.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use peregrine_aeron::{BusySpin, DriverConfig, MediaDriver, Publisher, Subscriber};
use peregrine_agent::{run_agent, Agent};
use peregrine_engine::Idle;

use crate::parts::{aeron_end, join, spawn, watch, End};
use crate::samples::WireBytes;
use crate::steps::{new_histogram, point, Stamps, StepHistograms};
use crate::wait::{gateway_stamps, poll_until, Polled};
use crate::{Error, Result, Transport};

/// Settings of a floor run.
///
/// ```
/// use peregrine_topology::floor::FloorConfig;
///
/// let cfg = FloorConfig { count: 1_000, steps: false, ..FloorConfig::default() };
/// assert_eq!((cfg.warmup, cfg.count), (10_000, 1_000));
/// assert_eq!(cfg.bytes.fix_nos, peregrine_topology::samples::wire_bytes().fix_nos);
/// ```
#[derive(Clone, Debug)]
pub struct FloorConfig {
    /// Warm-up round trips.
    pub warmup: u64,
    /// Measured round trips.
    pub count: u64,
    /// Idle strategy of the three loops.
    pub idle: Idle,
    /// The bytes that cross each hop.
    pub bytes: WireBytes,
    /// Longest wait for anything.
    pub timeout: Duration,
    /// Stamp the points of the round trip (as the topology does) and time the steps.
    pub steps: bool,
}

impl Default for FloorConfig {
    fn default() -> Self {
        FloorConfig {
            warmup: 10_000,
            count: 100_000,
            idle: Idle::spin_then_yield(100),
            bytes: crate::samples::wire_bytes(),
            timeout: Duration::from_secs(20),
            steps: true,
        }
    }
}

/// What a floor run measured.
///
/// ```no_run
/// use peregrine_topology::floor::{run, FloorConfig};
///
/// let r = run(&FloorConfig { warmup: 100, count: 1_000, ..FloorConfig::default() }, &mut |_, _| {})?;
/// println!("p50 {} ns, {:.0} round trips/s", r.rtt.value_at_quantile(0.5), r.throughput());
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FloorResult {
    /// Round-trip times, ns.
    pub rtt: Histogram<u64>,
    /// Wall time of the measured phase.
    pub wall: Duration,
    /// The steps (empty histograms unless [`FloorConfig::steps`]); the steps where the
    /// topology parses, extracts and encodes take no time here.
    pub steps: StepHistograms,
}

impl FloorResult {
    /// Measured round trips per second.
    ///
    /// ```
    /// use std::time::Duration;
    /// use peregrine_topology::{floor::FloorResult, steps::{new_histogram, StepHistograms}};
    ///
    /// let mut rtt = new_histogram();
    /// for _ in 0..500 {
    ///     rtt.record(20_000).unwrap();
    /// }
    /// let r = FloorResult { rtt, wall: Duration::from_millis(10), steps: StepHistograms::default() };
    /// assert_eq!(r.throughput().round(), 50_000.0);
    /// ```
    pub fn throughput(&self) -> f64 {
        self.rtt.len() as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// What one poll of a socket found.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Bytes,
    Nothing,
    Closed,
}

/// One non-blocking TCP connection with its own epoll instance.
struct Wire {
    stream: mio::net::TcpStream,
    poll: mio::Poll,
    events: mio::Events,
    /// The last read filled the buffer: read again without asking epoll.
    more: bool,
    /// The part whose connection it is (for errors).
    part: &'static str,
}

impl Wire {
    fn new(stream: std::net::TcpStream, part: &'static str) -> Result<Wire> {
        let setup = |what| move |e| Error::setup(part, what, e);
        stream.set_nodelay(true).map_err(setup("TCP_NODELAY"))?;
        stream
            .set_nonblocking(true)
            .map_err(setup("non-blocking socket"))?;
        let mut stream = mio::net::TcpStream::from_std(stream);
        let poll = mio::Poll::new().map_err(setup("epoll"))?;
        poll.registry()
            .register(&mut stream, mio::Token(0), mio::Interest::READABLE)
            .map_err(setup("epoll"))?;
        Ok(Wire {
            stream,
            poll,
            events: mio::Events::with_capacity(4),
            more: false,
            part,
        })
    }

    /// Writes all of `bytes`, spinning on `WouldBlock`.
    fn write_all(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            match self.stream.write(bytes) {
                Ok(0) => {
                    return Err(Error::Transport {
                        part: self.part,
                        what: "connection closed",
                        source: None,
                    })
                }
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::hint::spin_loop(),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::transport(self.part, "write", e)),
            }
        }
        Ok(())
    }

    /// Reads what has arrived into `buf[*have..]`.
    fn read(&mut self, buf: &mut [u8], have: &mut usize) -> Result<Got> {
        if !self.more {
            match self.poll.poll(&mut self.events, Some(Duration::ZERO)) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => return Ok(Got::Nothing),
                Err(e) => return Err(Error::transport(self.part, "epoll", e)),
            }
            if self.events.is_empty() {
                return Ok(Got::Nothing);
            }
        }
        let mut got = Got::Nothing;
        loop {
            let space = buf.len() - *have;
            if space == 0 {
                self.more = true;
                return Ok(got);
            }
            match self.stream.read(&mut buf[*have..]) {
                Ok(0) => return Ok(Got::Closed),
                Ok(n) => {
                    *have += n;
                    got = Got::Bytes;
                    if n < space {
                        // Drained: new data raises a new (edge-triggered) event.
                        self.more = false;
                        return Ok(got);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.more = false;
                    return Ok(got);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::transport(self.part, "read", e)),
            }
        }
    }
}

fn stamp(stamps: &Option<Arc<Stamps>>, p: usize) {
    if let Some(s) = stamps {
        s.stamp(p);
    }
}

/// The floor's gateway, an [`Agent`]: each cycle reads the venue's bytes from TCP and
/// publishes a pre-encoded order on Aeron for every whole NewOrderSingle, then polls the
/// reports and writes a pre-encoded ExecutionReport to TCP for each.
struct FloorGateway<'a> {
    cfg: &'a FloorConfig,
    wire: Wire,
    orders: Publisher,
    reports: Subscriber,
    buf: Vec<u8>,
    have: usize,
    stamps: Option<Arc<Stamps>>,
    /// The venue closed the connection: it is done (its result says whether the run was
    /// whole).
    closed: bool,
}

impl Agent for FloorGateway<'_> {
    type Error = Error;

    #[inline]
    fn do_work(&mut self, _may_wait: Duration) -> Result<usize> {
        let mut work = false;
        let got = self.wire.read(&mut self.buf, &mut self.have)?;
        if got == Got::Closed {
            self.closed = true;
            // News, not idleness: the loop ends without idling.
            return Ok(1);
        }
        let cfg = self.cfg;
        let bytes = &cfg.bytes;
        if got == Got::Bytes {
            work = true;
            if let Some(st) = &self.stamps {
                let t = crate::clock::now();
                for p in [
                    point::GW_READ,
                    point::GW_PARSED,
                    point::GW_EXTRACTED,
                    point::GW_ENCODED,
                ] {
                    st.set(p, t);
                }
            }
            let nos_len = bytes.fix_nos.len();
            while self.have >= nos_len {
                self.orders
                    .publish_retry(&bytes.sbe_order[..], &mut BusySpin, cfg.timeout)
                    .map_err(|e| Error::transport("floor gateway", "publish", e))?;
                stamp(&self.stamps, point::GW_PUBLISHED);
                self.buf.copy_within(nos_len..self.have, 0);
                self.have -= nos_len;
            }
        }
        let (wire, stamps) = (&mut self.wire, &self.stamps);
        let mut failure = None;
        let n = self
            .reports
            .poll(
                |_| {
                    stamp(stamps, point::GW_ER_DECODED);
                    if let Err(e) = wire.write_all(&bytes.fix_er) {
                        failure = Some(e);
                    }
                    if let Some(st) = stamps {
                        st.stamp(point::GW_WRITTEN);
                        st.gateway_finished();
                    }
                },
                16,
            )
            .map_err(|e| Error::transport("floor gateway", "reports poll", e))?;
        if let Some(e) = failure {
            return Err(e);
        }
        work |= n > 0;
        Ok(usize::from(work))
    }

    fn role_name(&self) -> &str {
        "floor-gateway"
    }

    fn is_done(&self) -> bool {
        self.closed
    }
}

fn gateway(
    cfg: &FloorConfig,
    dir: &str,
    listener: TcpListener,
    running: &AtomicBool,
    stamps: Option<Arc<Stamps>>,
) -> Result<()> {
    const PART: &str = "floor gateway";
    let (client, orders, reports) =
        aeron_end(dir, &Transport::Ipc, End::Gateway, PART, Some(cfg.timeout))?;
    let (s, _) = listener
        .accept()
        .map_err(|e| Error::setup(PART, "accept", e))?;
    let mut agent = FloorGateway {
        cfg,
        wire: Wire::new(s, PART)?,
        orders,
        reports,
        buf: vec![0u8; 64 * 1024],
        have: 0,
        stamps,
        closed: false,
    };
    let r = run_agent(&mut agent, &mut cfg.idle.fresh(), running);
    drop(agent);
    drop(client);
    r
}

/// The floor's executor, an [`Agent`]: each cycle polls the orders and publishes a
/// pre-encoded report for each.
struct FloorExecutor<'a> {
    cfg: &'a FloorConfig,
    orders: Subscriber,
    reports: Publisher,
    stamps: Option<Arc<Stamps>>,
}

impl Agent for FloorExecutor<'_> {
    type Error = Error;

    #[inline]
    fn do_work(&mut self, _may_wait: Duration) -> Result<usize> {
        let (cfg, reports, stamps) = (self.cfg, &mut self.reports, &self.stamps);
        let mut failure = None;
        let n = self
            .orders
            .poll(
                |_| {
                    stamp(stamps, point::EX_DECODED);
                    if let Err(e) =
                        reports.publish_retry(&cfg.bytes.sbe_report[..], &mut BusySpin, cfg.timeout)
                    {
                        failure = Some(Error::transport("floor executor", "publish", e));
                    }
                    stamp(stamps, point::EX_PUBLISHED);
                },
                16,
            )
            .map_err(|e| Error::transport("floor executor", "orders poll", e))?;
        match failure {
            Some(e) => Err(e),
            None => Ok(n),
        }
    }

    fn role_name(&self) -> &str {
        "floor-executor"
    }
}

fn executor(
    cfg: &FloorConfig,
    dir: &str,
    running: &AtomicBool,
    stamps: Option<Arc<Stamps>>,
) -> Result<()> {
    let (client, reports, orders) =
        aeron_end(dir, &Transport::Ipc, End::Executor, "floor executor", None)?;
    let mut agent = FloorExecutor {
        cfg,
        orders,
        reports,
        stamps,
    };
    let r = run_agent(&mut agent, &mut cfg.idle.fresh(), running);
    drop(agent);
    drop(client);
    r
}

fn venue(
    cfg: &FloorConfig,
    port: u16,
    done: &AtomicU64,
    stamps: Option<Arc<Stamps>>,
) -> Result<FloorResult> {
    const PART: &str = "floor venue";
    let s = std::net::TcpStream::connect(("127.0.0.1", port))
        .map_err(|e| Error::setup(PART, "connect", e))?;
    let mut s = Wire::new(s, PART)?;
    let er_len = cfg.bytes.fix_er.len();
    let mut buf = vec![0u8; 64 * 1024];
    let mut rtt = new_histogram();
    let mut steps = StepHistograms::default();
    let mut idle = cfg.idle.fresh();
    let patience = cfg.timeout.as_nanos() as u64;
    let mut wall_start = crate::clock::now();
    for i in 0..cfg.warmup + cfg.count {
        if i == cfg.warmup {
            wall_start = crate::clock::now();
        }
        let t0 = crate::clock::now();
        if let Some(st) = &stamps {
            st.set(point::VENUE_SEND, t0);
        }
        s.write_all(&cfg.bytes.fix_nos)?;
        let mut have = 0;
        // As the topology's venue: the clock is read now and then only.
        poll_until::<1024, _, _>(
            &mut idle,
            t0,
            patience,
            || {
                if have >= er_len {
                    return Ok(Polled::Done);
                }
                match s.read(&mut buf, &mut have)? {
                    Got::Bytes => Ok(Polled::Work),
                    Got::Nothing => Ok(Polled::Nothing),
                    Got::Closed => Err(Error::Transport {
                        part: PART,
                        what: "the gateway closed the connection",
                        source: None,
                    }),
                }
            },
            || Error::Timeout {
                part: PART,
                waiting_for: "reply".into(),
                after: cfg.timeout,
            },
        )?;
        let t1 = crate::clock::now();
        if let Some(st) = &stamps {
            st.set(point::VENUE_RECEIVED, t1);
            gateway_stamps(st, i, &mut BusySpin, t0, cfg.timeout, PART)?;
            if i >= cfg.warmup {
                steps.record(st);
            }
        }
        if i >= cfg.warmup {
            rtt.saturating_record(t1.saturating_sub(t0).max(1));
        }
        done.store(i + 1, Ordering::Relaxed);
    }
    Ok(FloorResult {
        rtt,
        wall: Duration::from_nanos(crate::clock::now().saturating_sub(wall_start)),
        steps,
    })
}

/// Runs the floor: an embedded media driver, then executor, gateway and venue threads.
/// `progress(done, total)` is called about every 100 ms from the calling thread.
///
/// ```no_run
/// use peregrine_topology::floor::{run, FloorConfig};
///
/// let cfg = FloorConfig { warmup: 100, count: 1_000, ..FloorConfig::default() };
/// let r = run(&cfg, &mut |_, _| {})?;
/// assert_eq!(r.rtt.len(), 1_000);
/// println!("floor p50 {} ns", r.rtt.value_at_quantile(0.5));
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
///
/// # Errors
///
/// The first error of the gateway, the executor or the venue ([`Error::Setup`],
/// [`Error::Transport`], [`Error::Timeout`]), or [`Error::Panicked`].
pub fn run(cfg: &FloorConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<FloorResult> {
    let driver = MediaDriver::launch(&DriverConfig::default())
        .map_err(|e| Error::setup("aeron media driver", "launch", e))?;
    let dir = driver.dir().to_string();
    let listen = |e| Error::setup("floor gateway", "listen", e);
    let listener = TcpListener::bind("127.0.0.1:0").map_err(listen)?;
    let port = listener.local_addr().map_err(listen)?.port();
    let running = Arc::new(AtomicBool::new(true));
    let done = Arc::new(AtomicU64::new(0));
    let stamps = cfg.steps.then(|| Arc::new(Stamps::new()));
    let ex = {
        let (cfg, dir, running, stamps) =
            (cfg.clone(), dir.clone(), running.clone(), stamps.clone());
        spawn("floor-executor", move || {
            executor(&cfg, &dir, &running, stamps)
        })?
    };
    let gw = {
        let (cfg, dir, running, stamps) =
            (cfg.clone(), dir.clone(), running.clone(), stamps.clone());
        spawn("floor-gateway", move || {
            gateway(&cfg, &dir, listener, &running, stamps)
        })?
    };
    let v = {
        let (cfg, done) = (cfg.clone(), done.clone());
        spawn("floor-venue", move || venue(&cfg, port, &done, stamps))?
    };
    let total = cfg.warmup + cfg.count;
    watch(&v, &done, total, progress, || {
        gw.is_finished() || ex.is_finished()
    });
    running.store(false, Ordering::Relaxed);
    let g = join(gw, "floor gateway");
    let e = join(ex, "floor executor");
    // If the gateway or executor failed, the venue times out by itself.
    let r = join(v, "floor venue");
    g?;
    e?;
    drop(driver);
    r
}

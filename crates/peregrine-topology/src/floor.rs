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
use peregrine_aeron::{BusySpin, DriverConfig, MediaDriver, SpinThenYield};
use peregrine_engine::{Idle, IdleStrategy};

use crate::samples::WireBytes;
use crate::steps::{new_histogram, point, Stamps, StepHistograms};
use crate::{Error, Result, ORDERS_STREAM, REPORTS_STREAM};

/// Settings of a floor run.
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
    pub fn throughput(&self) -> f64 {
        self.rtt.len() as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

fn io(what: &'static str) -> impl Fn(std::io::Error) -> Error {
    move |e| Error::at(what, e)
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
}

impl Wire {
    fn new(stream: std::net::TcpStream) -> Result<Wire> {
        stream.set_nodelay(true).map_err(io("nodelay"))?;
        stream.set_nonblocking(true).map_err(io("nonblocking"))?;
        let mut stream = mio::net::TcpStream::from_std(stream);
        let poll = mio::Poll::new().map_err(io("epoll"))?;
        poll.registry()
            .register(&mut stream, mio::Token(0), mio::Interest::READABLE)
            .map_err(io("epoll"))?;
        Ok(Wire {
            stream,
            poll,
            events: mio::Events::with_capacity(4),
            more: false,
        })
    }

    /// Writes all of `bytes`, spinning on `WouldBlock`.
    fn write_all(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            match self.stream.write(bytes) {
                Ok(0) => return Err(Error("floor: connection closed".into())),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::hint::spin_loop(),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::at("floor write", e)),
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
                Err(e) => return Err(Error::at("floor epoll", e)),
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
                Err(e) => return Err(Error::at("floor read", e)),
            }
        }
    }
}

fn stamp(stamps: &Option<Arc<Stamps>>, p: usize) {
    if let Some(s) = stamps {
        s.stamp(p);
    }
}

fn gateway(
    cfg: &FloorConfig,
    dir: &str,
    listener: TcpListener,
    running: &AtomicBool,
    stamps: Option<Arc<Stamps>>,
) -> Result<()> {
    let client = peregrine_aeron::AeronClient::connect(&peregrine_aeron::ClientConfig::with_dir(
        dir.to_string(),
    ))
    .map_err(|e| Error::at("floor aeron", e))?;
    let mut orders = client
        .publisher(&peregrine_aeron::Channel::ipc(), ORDERS_STREAM)
        .map_err(|e| Error::at("floor orders", e))?;
    let mut reports = client
        .subscriber(&peregrine_aeron::Channel::ipc(), REPORTS_STREAM)
        .map_err(|e| Error::at("floor reports", e))?;
    let mut wait = SpinThenYield::default();
    orders
        .wait_connected(&mut wait, cfg.timeout)
        .map_err(|e| Error::at("floor orders", e))?;
    reports
        .wait_connected(&mut wait, cfg.timeout)
        .map_err(|e| Error::at("floor reports", e))?;
    let (s, _) = listener.accept().map_err(io("floor accept"))?;
    let mut s = Wire::new(s)?;
    let nos_len = cfg.bytes.fix_nos.len();
    let mut buf = vec![0u8; 64 * 1024];
    let mut have = 0usize;
    let mut idle = cfg.idle.fresh();
    let mut failure = None;
    while running.load(Ordering::Relaxed) {
        let mut work = false;
        let got = s.read(&mut buf, &mut have)?;
        if got == Got::Closed {
            // The venue is done (its result says whether the run was whole).
            break;
        }
        if got == Got::Bytes {
            work = true;
            if let Some(st) = &stamps {
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
            while have >= nos_len {
                orders
                    .publish_retry(&cfg.bytes.sbe_order[..], &mut BusySpin, cfg.timeout)
                    .map_err(|e| Error::at("floor publish", e))?;
                stamp(&stamps, point::GW_PUBLISHED);
                buf.copy_within(nos_len..have, 0);
                have -= nos_len;
            }
        }
        let n = reports
            .poll(
                |_| {
                    stamp(&stamps, point::GW_ER_DECODED);
                    if let Err(e) = s.write_all(&cfg.bytes.fix_er) {
                        failure = Some(e);
                    }
                    if let Some(st) = &stamps {
                        st.stamp(point::GW_WRITTEN);
                        st.gateway_finished();
                    }
                },
                16,
            )
            .map_err(|e| Error::at("floor poll", e))?;
        if let Some(e) = failure.take() {
            return Err(e);
        }
        work |= n > 0;
        idle.idle(usize::from(work));
    }
    drop(orders);
    drop(reports);
    drop(client);
    Ok(())
}

fn executor(
    cfg: &FloorConfig,
    dir: &str,
    running: &AtomicBool,
    stamps: Option<Arc<Stamps>>,
) -> Result<()> {
    let client = peregrine_aeron::AeronClient::connect(&peregrine_aeron::ClientConfig::with_dir(
        dir.to_string(),
    ))
    .map_err(|e| Error::at("floor aeron", e))?;
    let mut orders = client
        .subscriber(&peregrine_aeron::Channel::ipc(), ORDERS_STREAM)
        .map_err(|e| Error::at("floor orders", e))?;
    let mut reports = client
        .publisher(&peregrine_aeron::Channel::ipc(), REPORTS_STREAM)
        .map_err(|e| Error::at("floor reports", e))?;
    let mut idle = cfg.idle.fresh();
    let mut failure = None;
    while running.load(Ordering::Relaxed) {
        let n = orders
            .poll(
                |_| {
                    stamp(&stamps, point::EX_DECODED);
                    if let Err(e) =
                        reports.publish_retry(&cfg.bytes.sbe_report[..], &mut BusySpin, cfg.timeout)
                    {
                        failure = Some(Error::at("floor publish", e));
                    }
                    stamp(&stamps, point::EX_PUBLISHED);
                },
                16,
            )
            .map_err(|e| Error::at("floor poll", e))?;
        if let Some(e) = failure.take() {
            return Err(e);
        }
        idle.idle(usize::from(n > 0));
    }
    drop(orders);
    drop(reports);
    drop(client);
    Ok(())
}

fn venue(
    cfg: &FloorConfig,
    port: u16,
    done: &AtomicU64,
    stamps: Option<Arc<Stamps>>,
) -> Result<FloorResult> {
    let s = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(io("floor connect"))?;
    let mut s = Wire::new(s)?;
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
        idle.reset();
        let mut idle_polls = 0u32;
        while have < er_len {
            let got = s.read(&mut buf, &mut have)?;
            if got == Got::Closed {
                return Err(Error("floor: the gateway closed the connection".into()));
            }
            if got == Got::Bytes {
                idle.reset();
            } else {
                idle.idle(0);
                idle_polls = idle_polls.wrapping_add(1);
                // As the topology's venue: the clock is read now and then only.
                if idle_polls % 1024 == 0 && crate::clock::now() - t0 > patience {
                    return Err(Error("floor: no reply within the timeout".into()));
                }
            }
        }
        let t1 = crate::clock::now();
        if let Some(st) = &stamps {
            st.set(point::VENUE_RECEIVED, t1);
            // The gateway stamps its write after the write returns: wait for it.
            while st.gateway_done() < i + 1 {
                std::hint::spin_loop();
                if crate::clock::now() - t0 > patience {
                    return Err(Error("floor: gateway stamps missing".into()));
                }
            }
            if i >= cfg.warmup {
                steps.record(st);
            }
        }
        if i >= cfg.warmup {
            rtt.saturating_record((t1 - t0).max(1));
        }
        done.store(i + 1, Ordering::Relaxed);
    }
    Ok(FloorResult {
        rtt,
        wall: Duration::from_nanos(crate::clock::now() - wall_start),
        steps,
    })
}

/// Runs the floor: an embedded media driver, then executor, gateway and venue threads.
pub fn run(cfg: &FloorConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<FloorResult> {
    let driver =
        MediaDriver::launch(&DriverConfig::default()).map_err(|e| Error::at("aeron driver", e))?;
    let dir = driver.dir().to_string();
    let listener = TcpListener::bind("127.0.0.1:0").map_err(io("floor listen"))?;
    let port = listener.local_addr().map_err(io("floor listen"))?.port();
    let running = Arc::new(AtomicBool::new(true));
    let done = Arc::new(AtomicU64::new(0));
    let stamps = cfg.steps.then(|| Arc::new(Stamps::new()));
    let spawn = |name: &str, f: Box<dyn FnOnce() -> Result<()> + Send>| {
        std::thread::Builder::new()
            .name(name.into())
            .spawn(f)
            .map_err(|e| Error::at("spawn", e))
    };
    let ex = {
        let (cfg, dir, running, stamps) =
            (cfg.clone(), dir.clone(), running.clone(), stamps.clone());
        spawn(
            "floor-executor",
            Box::new(move || executor(&cfg, &dir, &running, stamps)),
        )?
    };
    let gw = {
        let (cfg, dir, running, stamps) =
            (cfg.clone(), dir.clone(), running.clone(), stamps.clone());
        spawn(
            "floor-gateway",
            Box::new(move || gateway(&cfg, &dir, listener, &running, stamps)),
        )?
    };
    let v = {
        let (cfg, done) = (cfg.clone(), done.clone());
        std::thread::Builder::new()
            .name("floor-venue".into())
            .spawn(move || venue(&cfg, port, &done, stamps))
            .map_err(|e| Error::at("spawn", e))?
    };
    let total = cfg.warmup + cfg.count;
    while !v.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        progress(done.load(Ordering::Relaxed), total);
        if gw.is_finished() || ex.is_finished() {
            break;
        }
    }
    progress(done.load(Ordering::Relaxed), total);
    running.store(false, Ordering::Relaxed);
    let g = gw
        .join()
        .map_err(|_| Error("floor gateway panicked".into()))?;
    let e = ex
        .join()
        .map_err(|_| Error("floor executor panicked".into()))?;
    // If the gateway or executor failed, the venue times out by itself.
    let r = v.join().map_err(|_| Error("floor venue panicked".into()))?;
    g?;
    e?;
    drop(driver);
    r
}

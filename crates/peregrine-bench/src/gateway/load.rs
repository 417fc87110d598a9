//! The client load (`peregrine-bench gateway-peer --role load`): one Peregrine process,
//! N initiator sessions C0…C{N-1} → GW on one engine thread ([`settings::load`]), the
//! same whichever router it drives.
//!
//! Each session sends its first NewOrderSingle from `on_logon` and each next one from
//! the callback that receives the Fill of the previous one: one order in flight per
//! session. The round trip is from right before the send to the Fill ExecutionReport
//! (ExecType=F) whose ClOrdID is the order in flight (client → router → exchange →
//! router → client; the New report in between is passed over). Once every session is
//! logged on it waits `--warmup-ms`, then times the round trips of `--measure-ms` into
//! one HDR histogram, and prints one JSON line: case `sessions-N` under `--engine`'s
//! name (µs), orders/s, the histogram, and the router's CPU time per order when
//! `--router-pid` is given. A report out of turn, a rejected order or a Reject fails
//! the run.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppReject, Application, Outbox, RejectLogon, SessionId};
use peregrine_engine::EngineBuilder;
use peregrine_messages::fix44::NewOrderSingle;

use super::args::PeerArgs;
use super::settings;
use crate::order::{self, write_order, ClOrdId};
use crate::process::cpu_times;
use crate::report::new_histogram;
use crate::scale::sessions::{sessions_line, CpuUsed};
use crate::{Error, Result};

/// How long the load waits for all its sessions to log on.
const LOGON_PATIENCE: Duration = Duration::from_secs(120);

/// What the sessions share (they all run on the engine's thread).
struct Shared {
    logged_on: AtomicUsize,
    measuring: AtomicBool,
    stop: AtomicBool,
    round_trips: AtomicU64,
    /// Fills that did not answer the order in flight, rejected orders, rejects.
    wrong: AtomicU64,
    histogram: Mutex<Histogram<u64>>,
}

/// One client session: one order in flight.
struct Client {
    shared: Arc<Shared>,
    ids: ClOrdId,
    sent_at: Option<Instant>,
}

impl Client {
    fn send(&mut self, out: &mut Outbox<'_>) -> std::result::Result<(), AppReject> {
        if self.shared.stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let ids = &mut self.ids;
        let t1 = Instant::now();
        out.send_typed::<NewOrderSingle>(|o| write_order(o, ids.advance(), order::now(), false))?;
        self.sent_at = Some(t1);
        Ok(())
    }
}

impl Application for Client {
    fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
        self.shared.logged_on.fetch_add(1, Ordering::Relaxed);
        if self.send(out).is_err() {
            self.shared.wrong.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let t2 = Instant::now();
        let report = msg.msg_type() == b"8";
        match msg.get(150) {
            Some(b"0") if report => return Ok(()), // New: the Fill follows
            Some(b"F") if report => {}
            _ => {
                self.shared.wrong.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
        }
        let Some(t1) = self.sent_at.take() else {
            self.shared.wrong.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        if msg.get(11) != Some(self.ids.current().as_bytes()) {
            self.shared.wrong.fetch_add(1, Ordering::Relaxed);
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
        self.send(out)
    }

    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> std::result::Result<(), RejectLogon> {
        if msg.msg_type() == b"3" {
            self.shared.wrong.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Runs the load and prints its result line.
///
/// # Errors
///
/// [`Error::Engine`] when the engine does not start or stop, [`Error::Check`] when the
/// sessions do not log on in time, no round trip is measured, or a report, reject or
/// rejected order is seen that the experiment does not expect.
pub fn run(a: &PeerArgs) -> Result<()> {
    let n = a.sessions;
    let shared = Arc::new(Shared {
        logged_on: AtomicUsize::new(0),
        measuring: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        round_trips: AtomicU64::new(0),
        wrong: AtomicU64::new(0),
        histogram: Mutex::new(new_histogram()),
    });
    let apps = shared.clone();
    let started = Instant::now();
    let engine = EngineBuilder::new(settings::load(a.port, n, &a.dict)?)
        .start(move |_| Client {
            shared: apps.clone(),
            ids: ClOrdId::default(),
            sent_at: None,
        })
        .map_err(Error::engine("the load did not start"))?;
    while shared.logged_on.load(Ordering::Relaxed) < n {
        if started.elapsed() > LOGON_PATIENCE || engine.is_finished() {
            return Err(Error::failed_check(format!(
                "{} of {n} client sessions logged on within {} s",
                shared.logged_on.load(Ordering::Relaxed),
                LOGON_PATIENCE.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let logon_all = started.elapsed();
    std::thread::sleep(Duration::from_millis(a.warmup_ms));
    shared.measuring.store(true, Ordering::Relaxed);
    let window = Instant::now();
    let router_cpu = a.router_pid.and_then(|p| Some((p, cpu_times(p).ok()?)));
    std::thread::sleep(Duration::from_millis(a.measure_ms));
    shared.measuring.store(false, Ordering::Relaxed);
    let seconds = window.elapsed().as_secs_f64();
    let router_cpu = router_cpu.and_then(|(p, before)| Some(cpu_times(p).ok()?.since(before)));
    shared.stop.store(true, Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(100));
    engine
        .stop()
        .map_err(Error::engine("the load did not stop"))?;

    let wrong = shared.wrong.load(Ordering::Relaxed);
    if wrong > 0 {
        return Err(Error::failed_check(format!(
            "{wrong} reports out of turn, rejected orders or rejects"
        )));
    }
    let round_trips = shared.round_trips.load(Ordering::Relaxed);
    let h = shared.histogram.lock().unwrap_or_else(|p| p.into_inner());
    if round_trips == 0 || h.is_empty() {
        return Err(Error::failed_check("no round trip in the measured window"));
    }
    let per_order = |d: Duration| d.as_secs_f64() * 1e6 / round_trips as f64;
    let line = sessions_line(
        &a.engine,
        n,
        &h,
        round_trips,
        seconds,
        &CpuUsed::default(),
        serde_json::json!({
            "logon_all_ms": logon_all.as_secs_f64() * 1e3,
            "router_cpu_us": router_cpu.map(|c| per_order(c.total())),
            "router_kernel_us": router_cpu.map(|c| per_order(c.system)),
            "settings": format!(
                "{}; {} ms warm-up, then {seconds:.1} s measured",
                settings::RIG_TEXT,
                a.warmup_ms
            ),
        }),
    );
    println!("{line}");
    let _ = std::io::stdout().flush();
    Ok(())
}

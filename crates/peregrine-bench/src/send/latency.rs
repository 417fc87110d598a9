//! App thread → wire latency, one message in flight.

use std::time::Instant;

use hdrhistogram::Histogram;
use peregrine_engine::Idle;

use super::case::SendCase;
use super::config::SendBenchConfig;
use super::counterparty::Polled;
use super::harness::{allocations, connect, send_order, stop, submit_error};
use super::initiator::idle_name;
use super::order::order_id;
use super::PATIENCE;
use crate::report::new_histogram;
use crate::{Error, Result};

/// What a latency case measured: the case, the wire latency and the `send` call (ns).
pub(super) type Latency = (SendCase, Histogram<u64>, Histogram<u64>);

/// Measures app thread → wire latency under `idle` (see the module documentation).
///
/// # Errors
///
/// [`Error::Engine`] when the engine or the counterparty fails or a message does not
/// arrive in time; [`Error::Check`] when a message other than the one sent arrives.
pub(super) fn latency_case(cfg: &SendBenchConfig, idle: Idle, run: usize) -> Result<Latency> {
    let (engine, mut cp, sender, session) = connect(idle, cfg.common.warmup + cfg.common.iters)?;
    cp.set_nonblocking(true)
        .map_err(Error::engine("counterparty socket"))?;
    let mut wire = new_histogram();
    let mut call = new_histogram();
    let (mut queue_full, mut a0, mut t_start) = (0, None, Instant::now());
    let mut last_send = Instant::now() - cfg.pace;
    let total = cfg.common.warmup + cfg.common.iters;
    let mut wrong: Option<(u64, Option<(usize, u64)>)> = None;
    for i in 0..total {
        if i == cfg.common.warmup {
            a0 = allocations();
            t_start = Instant::now();
        }
        while last_send.elapsed() < cfg.pace {
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        let retries = send_order(&sender, session, 0, i).map_err(submit_error)?;
        let t1 = Instant::now();
        last_send = t0;
        let mut arrived = false;
        while !arrived {
            let polled = cp.poll(&mut |m| {
                let id = order_id(m);
                if id == Some((0, i)) {
                    arrived = true;
                } else if wrong.is_none() {
                    wrong = Some((i, id));
                }
            })?;
            if let Some((i, id)) = wrong {
                return Err(Error::failed_check(format!(
                    "message {i} sent, {id:?} (producer, index) arrived"
                )));
            }
            if polled == Polled::Closed || (!arrived && t0.elapsed() > PATIENCE) {
                return Err(Error::Engine {
                    what: format!("message {i} did not arrive ({polled:?})"),
                    source: None,
                });
            }
        }
        let t2 = Instant::now();
        if i >= cfg.common.warmup {
            queue_full += retries;
            // Within the histogram's bounds (1 ns to 100 s): recording cannot fail.
            let _ = wire.record(((t2 - t0).as_nanos() as u64).max(1));
            let _ = call.record(((t1 - t0).as_nanos() as u64).max(1));
        }
    }
    let seconds = t_start.elapsed().as_secs_f64();
    let allocations = a0.zip(allocations()).map(|(a, b)| b - a);
    stop(engine, cp)?;
    let case = SendCase {
        case: format!("wire_latency_{}", idle_name(&idle)),
        run,
        idle: idle.to_string(),
        producers: 1,
        sent: cfg.common.iters,
        delivered: wire.len(),
        warmup: cfg.common.warmup,
        seconds,
        per_second: wire.len() as f64 / seconds.max(1e-9),
        queue_full,
        pool_warm: true,
        allocations,
    };
    Ok((case, wire, call))
}

//! Sends per second from several producer threads, checked complete and in order.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::{Idle, Sender, SessionRef, SubmitError};

use super::case::SendCase;
use super::config::SendBenchConfig;
use super::counterparty::{Counterparty, Polled};
use super::harness::{allocations, connect, send_order, submit_error};
use super::initiator::idle_name;
use super::order::order_id;
use super::{MAX_PRODUCERS, PATIENCE};
use crate::{Error, Result};

/// What the producers and the counterparty share in a throughput case.
pub(super) struct Shared {
    /// 0 wait, 1 warm-up, 2 warm-up over, 3 measured.
    phase: AtomicUsize,
    /// Producers done with the current phase.
    done: AtomicUsize,
    /// Warm-up messages sent, all producers.
    warm_sent: AtomicU64,
    /// A full queue seen during the warm-up.
    warm_full: AtomicBool,
    /// Messages read by the counterparty, complete and in order.
    delivered: AtomicU64,
    /// Nanoseconds from `base` to the counterparty's last read with a message in it.
    last_arrival: AtomicU64,
    /// Messages out of order or unknown.
    wrong: AtomicU64,
    /// The counterparty does not read (the warm-up, until the queue is full).
    paused: AtomicBool,
    /// The case is over: the counterparty drains until the engine closes.
    stopping: AtomicBool,
    base: Instant,
}

pub(super) fn producer(
    shared: &Shared,
    sender: &Sender,
    session: SessionRef,
    p: usize,
    per_producer: u64,
) -> std::result::Result<u64, SubmitError> {
    while shared.phase.load(Ordering::Acquire) == 0 {
        std::thread::yield_now();
    }
    let mut index = 0;
    while shared.phase.load(Ordering::Acquire) == 1 {
        if send_order(sender, session, p, index)? > 0 {
            shared.warm_full.store(true, Ordering::Relaxed);
        }
        index += 1;
    }
    shared.warm_sent.fetch_add(index, Ordering::AcqRel);
    shared.done.fetch_add(1, Ordering::AcqRel);
    while shared.phase.load(Ordering::Acquire) != 3 {
        std::thread::yield_now();
    }
    let mut queue_full = 0;
    for _ in 0..per_producer {
        queue_full += send_order(sender, session, p, index)?;
        index += 1;
    }
    Ok(queue_full)
}

pub(super) fn counterparty_reader(shared: &Shared, mut cp: Counterparty) -> Result<()> {
    let mut next = [0u64; MAX_PRODUCERS];
    // Idle reads (of 50 ms) after the case is over before giving up on the engine's close.
    let mut idle_reads_left = PATIENCE.as_millis() / 50;
    loop {
        if shared.paused.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let mut got = 0;
        let polled = cp.poll(&mut |m| match order_id(m) {
            Some((p, i)) if p < MAX_PRODUCERS && next[p] == i => {
                next[p] += 1;
                got += 1;
            }
            _ => {
                shared.wrong.fetch_add(1, Ordering::Relaxed);
            }
        });
        if got > 0 {
            shared
                .last_arrival
                .store(shared.base.elapsed().as_nanos() as u64, Ordering::Release);
            shared.delivered.fetch_add(got, Ordering::AcqRel);
        }
        match polled? {
            Polled::Closed => return Ok(()),
            Polled::Nothing if shared.stopping.load(Ordering::Acquire) => {
                // Waits for the engine's Logout and close.
                idle_reads_left = idle_reads_left.saturating_sub(1);
                if idle_reads_left == 0 {
                    return Ok(());
                }
            }
            _ => {}
        }
    }
}

/// Waits until `f` holds (sleeping 1 ms between looks), at most `PATIENCE`.
pub(super) fn wait_for(what: &str, mut f: impl FnMut() -> bool) -> Result<()> {
    let deadline = Instant::now() + PATIENCE;
    while !f() {
        if Instant::now() > deadline {
            return Err(Error::Engine {
                what: format!("timed out waiting for {what}"),
                source: None,
            });
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// Measures sends/s from `producers` threads under `idle` (see the module
/// documentation).
///
/// # Errors
///
/// [`Error::Engine`] when the engine or the counterparty fails or the messages do not
/// all arrive in time; [`Error::Check`] when a message is lost, duplicated or reordered.
pub(super) fn throughput_case(
    cfg: &SendBenchConfig,
    idle: Idle,
    producers: usize,
    run: usize,
) -> Result<SendCase> {
    let producers = producers.clamp(1, MAX_PRODUCERS);
    let per_producer = cfg.messages.div_ceil(producers as u64);
    let messages = per_producer * producers as u64;
    // Room in the store for the warm-up too (its producers go on while the main
    // thread looks every millisecond).
    let (engine, cp, sender, session) = connect(idle, messages + 2 * cfg.common.warmup + 200_000)?;
    let shared = Arc::new(Shared {
        phase: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        warm_sent: AtomicU64::new(0),
        warm_full: AtomicBool::new(false),
        delivered: AtomicU64::new(0),
        last_arrival: AtomicU64::new(0),
        wrong: AtomicU64::new(0),
        paused: AtomicBool::new(true),
        stopping: AtomicBool::new(false),
        base: Instant::now(),
    });
    let reader = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("counterparty".into())
            .spawn(move || counterparty_reader(&shared, cp))
            .map_err(Error::engine("cannot start the counterparty thread"))?
    };
    let mut threads = Vec::new();
    for p in 0..producers {
        let shared = shared.clone();
        let sender = sender.clone();
        threads.push(
            std::thread::Builder::new()
                .name(format!("producer-{p}"))
                .spawn(move || producer(&shared, &sender, session, p, per_producer))
                .map_err(Error::engine("cannot start a producer thread"))?,
        );
    }
    let result: Result<(u64, Duration, Duration, Option<u64>)> = (|| {
        // The warm-up: the counterparty does not read until the queue is full (the
        // engine holds the session's messages once its socket is full), so every
        // slot of the queue is made and used; then it reads, and the producers go on
        // until `warmup` messages have arrived.
        shared.phase.store(1, Ordering::Release);
        wait_for("a full queue in the warm-up", || {
            shared.warm_full.load(Ordering::Relaxed)
        })?;
        shared.paused.store(false, Ordering::Release);
        wait_for("the warm-up", || {
            shared.delivered.load(Ordering::Acquire) >= cfg.common.warmup
        })?;
        shared.phase.store(2, Ordering::Release);
        wait_for("the producers' warm-up", || {
            shared.done.load(Ordering::Acquire) == producers
        })?;
        let warm = shared.warm_sent.load(Ordering::Acquire);
        wait_for("the warm-up's messages", || {
            shared.delivered.load(Ordering::Acquire) == warm
        })?;
        let a0 = allocations();
        let start = shared.base.elapsed();
        shared.phase.store(3, Ordering::Release);
        wait_for("the measured messages", || {
            shared.delivered.load(Ordering::Acquire) >= warm + messages
                || shared.wrong.load(Ordering::Relaxed) > 0
        })?;
        let allocations = a0.zip(allocations()).map(|(a, b)| b - a);
        let end = Duration::from_nanos(shared.last_arrival.load(Ordering::Acquire));
        Ok((warm, start, end, allocations))
    })();
    shared.stopping.store(true, Ordering::Release);
    shared.paused.store(false, Ordering::Release);
    if result.is_err() {
        // Let blocked producers finish: the engine goes, sends fail.
        shared.phase.store(3, Ordering::Release);
    }
    let stopped = engine
        .stop()
        .map(drop)
        .map_err(Error::engine("the engine failed"));
    let mut queue_full = 0;
    let mut failed = None;
    for t in threads {
        match t.join() {
            Ok(Ok(n)) => queue_full += n,
            Ok(Err(e)) => failed = Some(e),
            Err(_) => failed = Some(SubmitError::EngineStopped),
        }
    }
    let read = reader.join();
    let (warm, start, end, allocations) = match (result, read) {
        (Ok(r), _) => r,
        // What the counterparty saw says more than a timeout.
        (Err(_), Ok(Err(e))) => return Err(e),
        (Err(e), _) => return Err(e),
    };
    stopped?;
    if let Some(e) = failed {
        return Err(submit_error(e));
    }
    let wrong = shared.wrong.load(Ordering::Acquire);
    let delivered = shared.delivered.load(Ordering::Acquire) - warm;
    if wrong > 0 || delivered != messages {
        return Err(Error::failed_check(format!(
            "{messages} messages sent, {delivered} delivered in order, {wrong} out of order or unknown"
        )));
    }
    let seconds = end.saturating_sub(start).as_secs_f64().max(1e-9);
    Ok(SendCase {
        case: format!("throughput_{producers}p_{}", idle_name(&idle)),
        run,
        idle: idle.to_string(),
        producers,
        sent: messages,
        delivered,
        warmup: warm,
        seconds,
        per_second: delivered as f64 / seconds,
        queue_full,
        pool_warm: shared.warm_full.load(Ordering::Relaxed),
        allocations,
    })
}

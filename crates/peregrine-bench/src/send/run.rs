//! The whole experiment: every case, run by run, then the report.

use hdrhistogram::Histogram;
use peregrine_engine::Idle;

use super::case::SendResults;
use super::config::SendBenchConfig;
use super::initiator::idle_name;
use super::latency::latency_case;
use super::tables::{latency_record, tables, throughput_record};
use super::throughput::throughput_case;
use crate::progress::Progress;
use crate::report::{self, us};
use crate::{Error, Result};

/// Runs the whole experiment: prints the tables, writes the JSON, and fails when any
/// case allocated in steady state.
///
/// ```no_run
/// use peregrine_bench::send::{run, SendBenchConfig};
/// let mut cfg = SendBenchConfig::default();
/// cfg.apply(&peregrine_bench::Options { smoke: true, ..Default::default() });
/// let results = run(&cfg)?;
/// assert!(results.cases.iter().all(|c| c.delivered == c.sent));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] or [`Error::Check`] from a case; [`Error::Output`] when the JSON
/// cannot be written; [`Error::Allocates`] (after the results are printed and written)
/// when a case allocated during its measured messages.
pub fn run(cfg: &SendBenchConfig) -> Result<SendResults> {
    let machine = report::machine();
    eprintln!("bench send: {machine}");
    let per_run = cfg.idles.len() * (1 + cfg.producers.len());
    let mut bar = Progress::new("bench send", cfg.common.runs * per_run);
    let mut cases = Vec::new();
    let mut records = Vec::new();
    let mut wire_all: Vec<(String, Histogram<u64>)> = Vec::new();
    let settings = |idle: &Idle, what: &str| {
        format!(
            "Peregrine initiator engine (FIX.4.4, memory store sized for the run, no logs) on its own thread, idle {idle}; Sender queue {}; counterparty: a raw FIX acceptor on a plain socket, 127.0.0.1 TCP_NODELAY; {what}",
            peregrine_engine::sender::DEFAULT_SEND_QUEUE
        )
    };
    for run in 1..=cfg.common.runs {
        for idle in &cfg.idles {
            let name = idle_name(idle);
            bar.show(&format!("run {run}: latency, {name}"));
            let (case, wire, call) = latency_case(cfg, *idle, run)?;
            records.push(latency_record(
                &case.case,
                &wire,
                &case,
                settings(
                    idle,
                    &format!(
                        "app thread takes the time, sends, busy-polls the counterparty's socket until the message is read; one in flight, a send every ≥ {} µs",
                        cfg.pace.as_micros()
                    ),
                ),
            ));
            records.push(latency_record(
                &format!("send_call_{name}"),
                &call,
                &case,
                settings(idle, "time inside Sender::send on the app thread"),
            ));
            match wire_all.iter_mut().find(|(n, _)| *n == case.case) {
                Some((_, h)) => {
                    let _ = h.add(&wire);
                }
                None => wire_all.push((case.case.clone(), wire)),
            }
            cases.push(case);
            bar.step(&format!("run {run}: latency, {name} done"));
            for &p in &cfg.producers {
                bar.show(&format!("run {run}: throughput, {p} producer(s), {name}"));
                let case = throughput_case(cfg, *idle, p, run)?;
                records.push(throughput_record(
                    &case,
                    settings(
                        idle,
                        &format!("{p} producer thread(s) as fast as they can, a full queue retried with backoff; the counterparty reads on its own thread"),
                    ),
                ));
                cases.push(case);
                bar.step(&format!(
                    "run {run}: throughput, {p} producer(s), {name} done"
                ));
            }
        }
    }
    bar.finish();
    let aggs = report::aggregate(&records);
    let config = serde_json::json!({
        "runs": cfg.common.runs,
        "count": cfg.common.iters,
        "warmup": cfg.common.warmup,
        "messages": cfg.messages,
        "producers": cfg.producers,
        "pace_us": cfg.pace.as_micros() as u64,
        "idles": cfg.idles.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
        "send_queue": peregrine_engine::sender::DEFAULT_SEND_QUEUE,
        "machine": machine,
        "load_average_end": report::load_average(),
        "counterparty": "a plain socket reader: a raw FIX.4.4 acceptor (answers Logon, TestRequest, Logout) that frames and timestamps what it reads; not a second engine",
        "method": "latency: the app thread takes the time, calls Sender::send, busy-polls the counterparty's non-blocking socket until the message is framed, takes the time (one thread, one monotonic clock); throughput: messages ÷ (first measured send → the counterparty's read that completed the last); allocations: the counting allocator, every thread of the process, over the measured messages",
        "cases": cases,
    });
    report::write_json(&cfg.common.out, "send", config, &aggs, &records)
        .map_err(|e| Error::output(&cfg.common.out, e))?;
    println!("{}", tables(&aggs, &cases));
    for (name, h) in &wire_all {
        println!(
            "{name}, all runs together: p50 {:.2} µs, p99 {:.2} µs, p99.9 {:.2} µs, max {:.0} µs ({} messages)",
            us(h, 0.5),
            us(h, 0.99),
            us(h, 0.999),
            h.max() as f64 / 1000.0,
            h.len()
        );
    }
    println!(
        "counterparty: a plain socket reader (raw FIX acceptor) on 127.0.0.1; engine: Peregrine initiator on its own thread; {} core(s)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("results: {}", cfg.common.out.display());
    if let Some(c) = cases.iter().find(|c| c.allocations.is_some_and(|a| a > 0)) {
        println!(
            "FAILED: allocations in steady state ({}, run {})",
            c.case, c.run
        );
        return Err(Error::Allocates {
            case: c.case.clone(),
            run: c.run,
            allocations: c.allocations.unwrap_or(0),
            messages: c.sent,
        });
    }
    match cases.first().and_then(|c| c.allocations) {
        Some(_) => println!("allocations per message in steady state: 0 in every case and run"),
        None => println!(
            "allocations: not counted (the binary does not install the counting allocator)"
        ),
    }
    Ok(SendResults {
        cases,
        records,
        aggregates: aggs,
    })
}

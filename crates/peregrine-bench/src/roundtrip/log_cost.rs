//! What the message log costs the engine thread, per logged message (issue 31 §1): the
//! `production` round trip's two messages through [`peregrine_engine::SessionLog`] as the
//! engine hands them over (`incoming` with the bytes read, `outgoing` with the bytes
//! written, the time it already has), into a real `FileLogPath` directory in the system's
//! temporary directory, removed afterwards. Run by `bench codec` as Peregrine-only cases
//! ([`CASES`]):
//!
//! * `log_message`: one ExecutionReport, `incoming`: what the engine thread pays to log a
//!   message. Since issue 31 §2 that is the copy of its bytes and time into the logging
//!   thread's ring (the framing, timestamp, escaping and writing are that thread's); before,
//!   it was the framing, the timestamp, the escaping and the copy into the log's buffer.
//! * `log_turn`: one turn of the venue in the round trip: the NewOrderSingle in, the
//!   ExecutionReport out. Per logged message it is half of this. (Before issue 31 §2 the
//!   engine also flushed its logs each turn, and this case included that `flush`; the
//!   engine no longer does, and `flush` now waits for the logging thread.)
//!
//! Not included: reading the clock (the engine reads it anyway). In a loop this tight the
//! logging thread cannot keep up and the ring fills: the engine thread then waits, which
//! shows in the tail and the mean; the median is the hand-over's cost.

use crate::measure::{measure, Measured};
use crate::{Error, Result};
use peregrine_engine::SessionLog;
use std::path::PathBuf;

/// The cases, in report order.
///
/// ```
/// assert_eq!(peregrine_bench::roundtrip::log_cost::CASES, ["log_message", "log_turn"]);
/// ```
pub const CASES: [&str; 2] = ["log_message", "log_turn"];

/// At most this many measured operations per case (each writes a message or two, some
/// 200 bytes each, to a file: the codec's million would write gigabytes).
pub const MAX_ITERS: u64 = 200_000;

/// At most this many warm-up operations per case.
pub const MAX_WARMUP: u64 = 20_000;

/// A NewOrderSingle as the round trip's client sends it (169 bytes).
///
/// ```
/// let m = peregrine_bench::roundtrip::log_cost::order();
/// assert_eq!(m.len(), 169);
/// ```
pub fn order() -> Vec<u8> {
    crate::codec::fix44(
        "35=D|34=1234|49=CLIENT|52=20261128-10:00:00.123|56=VENUE|11=C000001234|109=CLIENT1|\
         55=EUR/USD|54=1|60=20261128-10:00:00.123|38=100|40=2|44=1.2345|",
    )
}

/// The venue's ExecutionReport that answers it (210 bytes).
///
/// ```
/// let m = peregrine_bench::roundtrip::log_cost::report();
/// assert_eq!(m.len(), 210);
/// ```
pub fn report() -> Vec<u8> {
    crate::codec::fix44(
        "35=8|34=1234|49=VENUE|52=20261128-10:00:00.124|56=CLIENT|6=0|11=C000001234|14=0|\
         17=E1234|37=O1234|38=100|39=0|44=1.2345|54=1|55=EUR/USD|60=20261128-10:00:00.123|\
         109=CLIENT1|150=0|151=100|",
    )
}

/// A fresh log directory of this process under the system's temporary directory.
fn fresh_dir(case: &str) -> Result<PathBuf> {
    let dir =
        std::env::temp_dir().join(format!("peregrine-bench-log-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| Error::Engine {
        what: format!("cannot create {}", dir.display()),
        source: Some(e.into()),
    })?;
    Ok(dir)
}

/// Measures both cases ([`measure`]: `warmup` and `iters`, each at most [`MAX_WARMUP`] and
/// [`MAX_ITERS`]) and checks that the messages log holds every message logged; returns
/// each case's name and figures.
///
/// ```
/// let cases = peregrine_bench::roundtrip::log_cost::run(100, 10, 0.0)?;
/// assert_eq!(cases.len(), 2);
/// assert!(cases.iter().all(|(_, m)| m.stats.p50 > 0.0));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the log's directory or files cannot be made; [`Error::Check`]
/// when the messages log does not hold one line per message logged.
pub fn run(iters: u64, warmup: u64, overhead_ns: f64) -> Result<Vec<(&'static str, Measured)>> {
    let (iters, warmup) = (iters.clamp(1, MAX_ITERS), warmup.min(MAX_WARMUP));
    let (nos, er) = (order(), report());
    // A time of day as the engine passes it (ns since the epoch), moving on 1 µs a call.
    let mut now: i64 = 1_795_000_000_000_000_000;
    let mut out = Vec::new();
    for case in CASES {
        let dir = fresh_dir(case)?;
        let result = (|| -> Result<Measured> {
            let mut log =
                SessionLog::open(&dir, "FIX.4.4:VENUE->CLIENT").map_err(|e| Error::Engine {
                    what: format!("cannot open the log in {}", dir.display()),
                    source: Some(e.into()),
                })?;
            let per_op = match case {
                "log_message" => 1,
                _ => 2,
            };
            let m = match case {
                "log_message" => measure(warmup, iters, overhead_ns, || {
                    now += 1_000;
                    log.incoming(std::hint::black_box(&er), now);
                }),
                _ => measure(warmup, iters, overhead_ns, || {
                    now += 1_000;
                    log.incoming(std::hint::black_box(&nos), now);
                    log.outgoing(std::hint::black_box(&er), now);
                }),
            };
            drop(log);
            let logged = (warmup + 2 * iters) * per_op;
            check_lines(&dir, logged)?;
            Ok(m)
        })();
        let _ = std::fs::remove_dir_all(&dir);
        out.push((case, result?));
    }
    Ok(out)
}

/// Checks that the messages log in `dir` holds `logged` lines: the log really wrote what
/// was timed.
fn check_lines(dir: &std::path::Path, logged: u64) -> Result<()> {
    let path = dir.join("FIX.4.4-VENUE-CLIENT.messages.log");
    let text = std::fs::read(&path)
        .map_err(|e| Error::check(format!("cannot read {}", path.display()), e))?;
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
    if lines != logged {
        return Err(Error::failed_check(format!(
            "{}: {lines} lines, {logged} messages logged",
            path.display()
        )));
    }
    Ok(())
}

//! One side of the round trip as a process of its own: `peregrine-bench roundtrip-peer
//! --engine peregrine|floor --role acceptor|initiator --config C --port P --dir DIR --dict D
//! [--iters N --warmup W]` (hidden; the driver starts it through
//! `std::env::current_exe()`), and the JSON line its initiator prints.

use super::{floor, peregrine, RtConfig};
use crate::report::round_trip::stats_from_histogram;
use crate::report::{new_histogram, Record};
use crate::{Error, Result};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Which of our engines a peer process runs.
///
/// ```
/// use peregrine_bench::roundtrip::{PeerArgs, PeerEngine};
/// let args = ["--role", "acceptor", "--config", "balanced", "--port", "1", "--dir", "d", "--dict", "x"].map(String::from);
/// assert_eq!(PeerArgs::parse(&args)?.engine, PeerEngine::Peregrine); // the default
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerEngine {
    /// Peregrine's engine, on the public application API.
    Peregrine,
    /// The TCP floor: canned bytes, no FIX work.
    Floor,
}

impl PeerEngine {
    /// Its name in the report.
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::PeerEngine::Floor.name(), "floor");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PeerEngine::Peregrine => "peregrine",
            PeerEngine::Floor => "floor",
        }
    }
}

/// Which side of the session a peer process is.
///
/// ```
/// use peregrine_bench::roundtrip::{PeerArgs, Role};
/// let args = ["--role", "initiator", "--config", "fsync", "--port", "1", "--dir", "d", "--dict", "x"].map(String::from);
/// assert_eq!(PeerArgs::parse(&args)?.role, Role::Initiator);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// VENUE: listens, answers each NewOrderSingle with an ExecutionReport.
    Acceptor,
    /// CLIENT: connects, sends the orders, measures, reports.
    Initiator,
}

impl Role {
    /// Its name on the command line.
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::Role::Acceptor.name(), "acceptor");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Role::Acceptor => "acceptor",
            Role::Initiator => "initiator",
        }
    }
}

/// The arguments of one peer process.
///
/// ```
/// use peregrine_bench::roundtrip::{PeerArgs, PeerEngine, Role, RtConfig};
/// let args: Vec<String> = "--engine floor --role initiator --config optimized --port 9000 --dir /tmp/x --dict FIX44.xml --iters 10 --warmup 2"
///     .split(' ').map(String::from).collect();
/// let a = PeerArgs::parse(&args)?;
/// assert_eq!((a.engine, a.role, a.config, a.port), (PeerEngine::Floor, Role::Initiator, RtConfig::Optimized, 9000));
/// assert_eq!((a.iters, a.warmup), (10, 2));
/// assert_eq!(PeerArgs::parse(&a.to_args())?, a);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerArgs {
    /// `--engine` (default `peregrine`).
    pub engine: PeerEngine,
    /// `--role`.
    pub role: Role,
    /// `--config`.
    pub config: RtConfig,
    /// `--port`: where the acceptor listens and the initiator connects.
    pub port: u16,
    /// `--dir`: a fresh directory for the store, and in `production` for the message and
    /// event logs (`DIR/log`, [`super::peregrine::log_dir`]).
    pub dir: PathBuf,
    /// `--dict`: the FIX44 dictionary.
    pub dict: PathBuf,
    /// `--iters`: measured round trips (the initiator; Peregrine's acceptor sizes its
    /// memory store by them).
    pub iters: u64,
    /// `--warmup`: warm-up round trips (as `--iters`).
    pub warmup: u64,
}

impl PeerArgs {
    /// Parses the arguments after `roundtrip-peer`.
    ///
    /// ```
    /// use peregrine_bench::{roundtrip::PeerArgs, Error};
    /// let args = ["--role", "acceptor", "--config", "tls", "--port", "9000", "--dir", "d", "--dict", "x"].map(String::from);
    /// let a = PeerArgs::parse(&args)?;
    /// assert_eq!((a.port, a.iters, a.warmup), (9000, 1_000, 100)); // counts by default
    /// assert!(matches!(PeerArgs::parse(&args[..2]), Err(Error::Usage(_)))); // --config … missing
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`]: an unknown option or value, a value missing, a required option
    /// (`--role`, `--config`, `--port`, `--dir`, `--dict`) left out.
    pub fn parse(args: &[String]) -> Result<PeerArgs> {
        const KNOWN: [&str; 8] = [
            "--engine", "--role", "--config", "--port", "--dir", "--dict", "--iters", "--warmup",
        ];
        let mut values: [Option<&str>; 8] = [None; 8];
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let Some(i) = KNOWN.iter().position(|k| k == a) else {
                return Err(Error::Usage(format!(
                    "roundtrip-peer: unknown argument {a:?} (known: {})",
                    KNOWN.join(" ")
                )));
            };
            let v = it
                .next()
                .ok_or_else(|| Error::Usage(format!("roundtrip-peer: {a} needs a value")))?;
            values[i] = Some(v.as_str());
        }
        let required = |i: usize| {
            values[i]
                .ok_or_else(|| Error::Usage(format!("roundtrip-peer: {} is required", KNOWN[i])))
        };
        let number = |i: usize, default: u64| -> Result<u64> {
            values[i].map_or(Ok(default), |v| {
                v.parse().map_err(|_| {
                    Error::Usage(format!(
                        "roundtrip-peer: {}: {v:?} is not a number",
                        KNOWN[i]
                    ))
                })
            })
        };
        let engine = match values[0].unwrap_or("peregrine") {
            "peregrine" => PeerEngine::Peregrine,
            "floor" => PeerEngine::Floor,
            other => {
                return Err(Error::Usage(format!(
                    "roundtrip-peer: --engine {other:?} (known: peregrine, floor)"
                )))
            }
        };
        let role = match required(1)? {
            "acceptor" => Role::Acceptor,
            "initiator" => Role::Initiator,
            other => {
                return Err(Error::Usage(format!(
                    "roundtrip-peer: --role {other:?} (known: acceptor, initiator)"
                )))
            }
        };
        let port = required(3)?;
        Ok(PeerArgs {
            engine,
            role,
            config: required(2)?.parse()?,
            port: port.parse().map_err(|_| {
                Error::Usage(format!("roundtrip-peer: --port {port:?} is not a port"))
            })?,
            dir: required(4)?.into(),
            dict: required(5)?.into(),
            iters: number(6, 1_000)?.max(1),
            warmup: number(7, 100)?,
        })
    }

    /// The arguments that [`parse`](Self::parse) reads back into these.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::PeerArgs;
    /// let a = PeerArgs::parse(&["--role", "acceptor", "--config", "optimized", "--port", "7", "--dir", "d", "--dict", "x"].map(String::from))?;
    /// assert_eq!(a.to_args()[..4], ["--engine", "peregrine", "--role", "acceptor"]);
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    pub fn to_args(&self) -> Vec<String> {
        [
            ("--engine", self.engine.name().to_string()),
            ("--role", self.role.name().to_string()),
            ("--config", self.config.name().to_string()),
            ("--port", self.port.to_string()),
            ("--dir", self.dir.display().to_string()),
            ("--dict", self.dict.display().to_string()),
            ("--iters", self.iters.to_string()),
            ("--warmup", self.warmup.to_string()),
        ]
        .into_iter()
        .flat_map(|(k, v)| [k.to_string(), v])
        .collect()
    }

    /// How long the initiator may take for all its round trips before it gives up: a
    /// minute, plus 50 ms per round trip (an fsync costs a few ms on each side here).
    ///
    /// ```
    /// # use peregrine_bench::roundtrip::PeerArgs;
    /// let a = PeerArgs::parse(&["--role", "initiator", "--config", "fsync", "--port", "1", "--dir", "d", "--dict", "x", "--iters", "100", "--warmup", "0"].map(String::from))?;
    /// assert_eq!(a.patience().as_secs(), 65);
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    pub fn patience(&self) -> Duration {
        Duration::from_secs(60) + Duration::from_millis(50) * (self.iters + self.warmup) as u32
    }
}

/// Runs one peer process (`peregrine-bench roundtrip-peer ARGS`): an acceptor prints
/// `ready` once it listens and returns once its counterparty is gone; an initiator runs
/// the round trips and prints its [`ResultLine`].
///
/// ```
/// let bad = ["--role", "acceptor"].map(String::from);
/// assert!(matches!(peregrine_bench::roundtrip::peer_main(&bad), Err(peregrine_bench::Error::Usage(_))));
/// ```
///
/// # Errors
///
/// [`Error::Usage`] for arguments that do not read; [`Error::Engine`] when the engine or
/// a socket fails or a deadline passes; [`Error::Check`] for a wrong reply, a sequence
/// error or a reject.
pub fn peer_main(args: &[String]) -> Result<()> {
    let args = PeerArgs::parse(args)?;
    std::fs::create_dir_all(&args.dir).map_err(|e| Error::Engine {
        what: format!("cannot create {}", args.dir.display()),
        source: Some(e.into()),
    })?;
    match (args.engine, args.role) {
        (PeerEngine::Peregrine, Role::Acceptor) => peregrine::acceptor_main(&args),
        (PeerEngine::Peregrine, Role::Initiator) => peregrine::initiator_main(&args),
        (PeerEngine::Floor, Role::Acceptor) => floor::acceptor_main(&args),
        (PeerEngine::Floor, Role::Initiator) => floor::initiator_main(&args),
    }
}

/// Prints `ready` on stdout, flushed (the driver waits for it).
pub(crate) fn say_ready() {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "ready");
    let _ = out.flush();
}

/// The line an initiator prints: the peers' format ([`crate::peers::record_of_line`],
/// nanoseconds), plus what only our processes report: allocations per round trip and the
/// histogram itself (`hdr`: `[value_ns, count]` pairs), so that the driver can plot every
/// run's distribution, not only its percentiles.
///
/// ```
/// use peregrine_bench::roundtrip::peer::ResultLine;
/// let mut h = peregrine_bench::report::new_histogram();
/// for v in [20_000u64, 21_000, 40_000] { h.record(v).unwrap(); }
/// let line = ResultLine::new("floor", "optimized", &h, 0.06, None, "canned bytes".into());
/// let text = serde_json::to_string(&line).unwrap();
/// let back = ResultLine::parse(&text)?;
/// assert_eq!(back.histogram()?.len(), 3);
/// assert_eq!(peregrine_bench::peers::record_of_line("floor", &text)?.stats.p50, back.ns.stats.p50);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultLine {
    /// The record in nanoseconds, as the peers print theirs: engine `peregrine` or
    /// `floor`, case the config's name; the mean is the wall time of the measured round
    /// trips ÷ their count, the throughput their count ÷ that time; allocations per
    /// measured round trip in the initiator process (`None`: not counted).
    #[serde(flatten)]
    pub ns: Record,
    /// The histogram: `[value_ns, count]` for every recorded value.
    pub hdr: Vec<[u64; 2]>,
}

impl ResultLine {
    /// The line of histogram `h` (ns) whose measured round trips took `wall_secs` in all.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::peer::ResultLine;
    /// let mut h = peregrine_bench::report::new_histogram();
    /// h.record_n(10_000, 1_000).unwrap();
    /// let line = ResultLine::new("peregrine", "balanced", &h, 0.5, Some(0.0), String::new());
    /// assert_eq!((line.ns.unit.as_str(), line.ns.stats.throughput_per_s), ("ns", 2_000.0));
    /// assert_eq!((line.hdr.len(), line.hdr[0][1]), (1, 1_000)); // one value (as HDR buckets it), 1,000 times
    /// ```
    pub fn new(
        engine: &str,
        case: &str,
        h: &Histogram<u64>,
        wall_secs: f64,
        allocs_per_op: Option<f64>,
        settings: String,
    ) -> ResultLine {
        ResultLine {
            ns: Record {
                engine: engine.into(),
                case: case.into(),
                unit: "ns".into(),
                stats: stats_from_histogram(h, wall_secs, 1.0),
                allocs_per_op,
                settings,
            },
            hdr: pairs_of_histogram(h),
        }
    }

    /// Reads a line back.
    ///
    /// ```
    /// use peregrine_bench::{roundtrip::peer::ResultLine, Error};
    /// assert!(matches!(ResultLine::parse("ready"), Err(Error::Check { .. })));
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Check`] when it is not such a line.
    pub fn parse(line: &str) -> Result<ResultLine> {
        serde_json::from_str(line).map_err(|e| Error::check(format!("bad result line {line:?}"), e))
    }

    /// The histogram again.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::peer::ResultLine;
    /// let mut h = peregrine_bench::report::new_histogram();
    /// h.record_n(25_000, 4).unwrap();
    /// let line = ResultLine::new("floor", "optimized", &h, 0.001, None, String::new());
    /// assert_eq!(line.histogram()?, h);
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Check`] for a value out of the histogram's bounds.
    pub fn histogram(&self) -> Result<Histogram<u64>> {
        histogram_of_pairs(&self.hdr)
    }

    /// Prints the line on stdout (flushed).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::peer::ResultLine;
    /// let h = peregrine_bench::report::new_histogram();
    /// ResultLine::new("floor", "optimized", &h, 0.0, None, String::new()).print()?; // {"engine":"floor",…}
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Output`] when stdout refuses it.
    pub fn print(&self) -> Result<()> {
        use std::io::Write;
        let text = serde_json::to_string(self).map_err(|e| Error::output("stdout", e))?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")
            .and_then(|()| out.flush())
            .map_err(|e| Error::output("stdout", e))
    }

    /// Its record in µs (as the driver reports every engine).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::peer::ResultLine;
    /// let mut h = peregrine_bench::report::new_histogram();
    /// h.record_n(42_000, 10).unwrap();
    /// let r = ResultLine::new("peregrine", "balanced", &h, 0.001, None, String::new()).record();
    /// assert_eq!(r.unit, "us");
    /// assert!((r.stats.p50 - 42.0).abs() < 0.1);
    /// ```
    pub fn record(&self) -> Record {
        let mut r = self.ns.clone();
        super::driver::to_us(&mut r);
        r
    }
}

/// The `[value_ns, count]` pair of every value recorded in `h`: what [`ResultLine::hdr`]
/// carries ([`histogram_of_pairs`] reads them back).
///
/// ```
/// use peregrine_bench::roundtrip::peer::{histogram_of_pairs, pairs_of_histogram};
/// let mut h = peregrine_bench::report::new_histogram();
/// h.record_n(1_000, 3).unwrap();
/// assert_eq!(pairs_of_histogram(&h), [[1_000, 3]]);
/// assert_eq!(histogram_of_pairs(&pairs_of_histogram(&h))?, h);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
pub fn pairs_of_histogram(h: &Histogram<u64>) -> Vec<[u64; 2]> {
    h.iter_recorded()
        .map(|v| [v.value_iterated_to(), v.count_at_value()])
        .collect()
}

/// A histogram ([`new_histogram`], ns) of `hdr` pairs `[value_ns, count]`: what our lines
/// carry ([`ResultLine::hdr`]) and the peers' too (their samples rounded down to the lowest
/// value of their bucket, so each lands in the bucket it would have landed in).
///
/// ```
/// let h = peregrine_bench::roundtrip::peer::histogram_of_pairs(&[[18_048, 1], [20_480, 3]])?;
/// assert_eq!((h.len(), h.min(), h.value_at_quantile(0.5)), (4, 18_048, h.highest_equivalent(20_480)));
/// assert!(peregrine_bench::roundtrip::peer::histogram_of_pairs(&[[u64::MAX, 1]]).is_err());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Check`] for a value out of the histogram's bounds.
pub fn histogram_of_pairs(hdr: &[[u64; 2]]) -> Result<Histogram<u64>> {
    let mut h = new_histogram();
    for [v, n] in hdr {
        h.record_n(*v, *n)
            .map_err(|e| Error::check("a histogram value out of bounds", e.to_string()))?;
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parse_and_refuse() {
        let a = PeerArgs::parse(&args(
            "--role acceptor --config balanced --port 1 --dir d --dict x",
        ))
        .unwrap();
        assert_eq!(
            (a.engine, a.role, a.config, a.iters, a.warmup),
            (
                PeerEngine::Peregrine,
                Role::Acceptor,
                RtConfig::Balanced,
                1_000,
                100
            )
        );
        for (bad, says) in [
            (
                "--role acceptor --config balanced --port 1 --dir d",
                "--dict is required",
            ),
            (
                "--role x --config balanced --port 1 --dir d --dict x",
                "--role \"x\"",
            ),
            (
                "--role acceptor --config fast --port 1 --dir d --dict x",
                "unknown config",
            ),
            (
                "--role acceptor --config balanced --port 70000 --dir d --dict x",
                "not a port",
            ),
            (
                "--role acceptor --config balanced --port 1 --dir d --dict x --iters ten",
                "not a number",
            ),
            (
                "--role acceptor --config balanced --port 1 --dir d --dict x --spins 3",
                "unknown argument",
            ),
            (
                "--engine artio --role acceptor --config balanced --port 1 --dir d --dict x",
                "--engine",
            ),
            (
                "--role acceptor --config balanced --port 1 --dir d --dict",
                "needs a value",
            ),
        ] {
            match PeerArgs::parse(&args(bad)) {
                Err(Error::Usage(m)) => assert!(m.contains(says), "{bad}: {m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn result_line_round_trips_and_converts_to_us() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let line = ResultLine::new("peregrine", "balanced", &h, 0.5, Some(0.25), "s".into());
        let back = ResultLine::parse(&serde_json::to_string(&line).unwrap()).unwrap();
        assert_eq!(back, line);
        assert_eq!(back.histogram().unwrap().len(), 1000);
        let r = back.record();
        assert_eq!(r.unit, "us");
        assert!((r.stats.p50 - 500.0).abs() < 1.0 && (r.stats.mean - 500.0).abs() < 1e-9);
        assert_eq!(r.allocs_per_op, Some(0.25));
    }
}

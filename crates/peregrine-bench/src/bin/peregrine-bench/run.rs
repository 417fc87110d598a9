//! `peregrine-bench NAME` and `peregrine-bench run`: the parsed options handed to the
//! benchmark crate through [`peregrine_bench::Options`], and to the topology's demo.

use std::fmt;

use crate::cli::{Bench, CommonBenchArgs, RunArgs};

/// What stops a benchmark or the topology's demo (each says what it is).
#[derive(Debug)]
pub enum Error {
    /// A benchmark failed.
    Bench(peregrine_bench::Error),
    /// The trading topology's demo failed.
    Topology(peregrine_topology::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Bench(e) => write!(f, "{e}"),
            Error::Topology(e) => write!(f, "{e}"),
        }
    }
}

impl From<peregrine_bench::Error> for Error {
    fn from(e: peregrine_bench::Error) -> Self {
        Error::Bench(e)
    }
}

impl From<peregrine_topology::Error> for Error {
    fn from(e: peregrine_topology::Error) -> Self {
        Error::Topology(e)
    }
}

/// The options every benchmark shares, with `iters` (`--iters`, or `--count`)
/// and `peers` as this benchmark names them.
fn options<'a>(
    common: &'a CommonBenchArgs,
    iters: Option<u64>,
    peers: Option<&'a str>,
) -> peregrine_bench::Options<'a> {
    peregrine_bench::Options {
        smoke: common.smoke,
        runs: common.runs,
        iters,
        warmup: common.warmup,
        peers,
        out: common.out.as_deref(),
    }
}

/// Runs one benchmark (or one harness process of one).
pub fn bench(bench: Bench) -> Result<(), Error> {
    match bench {
        Bench::Codec(a) => {
            let mut cfg = peregrine_bench::codec::CodecBenchConfig::default();
            cfg.apply(&options(&a.common, a.iters, a.peers.as_deref()));
            peregrine_bench::codec::run(&cfg)?;
        }
        Bench::Typed(a) => {
            let mut cfg = peregrine_bench::typed::TypedBenchConfig::default();
            cfg.apply(&options(&a.common, a.iters, a.peers.as_deref()));
            peregrine_bench::typed::run(&cfg)?;
        }
        Bench::E2e(a) => {
            let mut cfg = peregrine_bench::e2e::E2eBenchConfig::default();
            cfg.apply(&options(&a.common, a.count, a.peers.as_deref()));
            cfg.floor = !a.no_floor;
            peregrine_bench::e2e::run(&cfg)?;
        }
        Bench::Roundtrip(a) => {
            let mut cfg = peregrine_bench::roundtrip::RoundTripConfig::default();
            cfg.apply(&options(&a.common, a.iters, a.peers.as_deref()));
            cfg.floor = !a.no_floor;
            if let Some(c) = &a.configs {
                cfg.configs = peregrine_bench::roundtrip::RtConfig::parse_list(c)?;
            }
            if let Some(n) = a.fsync_iters {
                cfg.fsync_iters = n.max(1);
                cfg.fsync_warmup = n / 10;
            }
            peregrine_bench::roundtrip::run(&cfg)?;
        }
        Bench::Send(a) => {
            let mut cfg = peregrine_bench::send::SendBenchConfig::default();
            cfg.apply(&options(&a.common, a.count, None));
            if let Some(n) = a.messages {
                cfg.messages = n.max(1);
            }
            if let Some(n) = a.pace_us {
                cfg.pace = std::time::Duration::from_micros(n);
            }
            peregrine_bench::send::run(&cfg)?;
        }
        Bench::Scale(a) => {
            let cfg = peregrine_bench::scale::ScaleBenchConfig::parse(&a.to_args())?;
            peregrine_bench::scale::run(&cfg)?;
        }
        Bench::Gateway(a) => {
            let cfg = peregrine_bench::gateway::GatewayConfig::parse(&a.to_args())?;
            peregrine_bench::gateway::run(&cfg)?;
        }
        Bench::RoundtripPeer(a) => peregrine_bench::roundtrip::peer_main(&a.args)?,
        Bench::StreamPeer(a) => peregrine_bench::scale::stream::main(&a.args)?,
        Bench::ScalePeer(a) => peregrine_bench::scale::sessions::main(&a.args)?,
        Bench::GatewayPeer(a) => peregrine_bench::gateway::peer_main(&a.args)?,
    }
    Ok(())
}

/// `peregrine-bench run` (`peregrine run`, `make run`): the trading topology, 10,000 warm-up and 100,000
/// measured round trips by default, results in target/bench-results/topology.json.
pub fn topology(a: RunArgs) -> Result<(), Error> {
    let mut cfg = peregrine_topology::demo::DemoConfig::default();
    cfg.count = a.count.unwrap_or(cfg.count).max(1);
    cfg.warmup = a.warmup.unwrap_or(cfg.warmup);
    if let Some(o) = a.out {
        cfg.out = o.into();
    }
    Ok(peregrine_topology::demo::run(&cfg)?)
}

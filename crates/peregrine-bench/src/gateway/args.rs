//! The gateway benchmark's command lines: the driver's (`peregrine bench gateway
//! --runs N --seconds S --warmup-seconds W --sessions 1,100 --peers quickfixj|none
//! --smoke --out FILE`, [`GatewayConfig`]) and its harness processes' (`peregrine bench
//! gateway-peer --role exchange|router|load …`, [`PeerArgs`]).

use std::path::PathBuf;

use crate::{Error, Result};

/// The routers the benchmark knows besides Peregrine's.
pub const ROUTER_PEERS: [&str; 1] = ["quickfixj"];

/// The driver's settings.
///
/// ```
/// use peregrine_bench::gateway::GatewayConfig;
/// let cfg = GatewayConfig::default();
/// assert_eq!((cfg.runs, cfg.seconds, cfg.warmup_seconds), (5, 5, 3));
/// assert_eq!(cfg.sessions, [1, 100]);
/// assert_eq!(cfg.peers, ["quickfixj"]);
/// assert!(cfg.out.ends_with("target/bench-results/gateway.json"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayConfig {
    /// Interleaved runs of every router × session count.
    pub runs: usize,
    /// The measured window of each run, in seconds.
    pub seconds: u64,
    /// Round trips before the window (discarded: connections settle, the JVM compiles).
    pub warmup_seconds: u64,
    /// The client session counts.
    pub sessions: Vec<usize>,
    /// The routers beside Peregrine's (`quickfixj`).
    pub peers: Vec<String>,
    /// Whether peers were named on the command line (then one not built is an error,
    /// else it is left out, saying so).
    pub peers_given: bool,
    /// Where the JSON goes (the plot beside it, `.svg`).
    pub out: PathBuf,
    /// A smoke run (reported as such).
    pub smoke: bool,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            runs: 5,
            seconds: 5,
            warmup_seconds: 3,
            sessions: vec![1, 100],
            peers: vec!["quickfixj".into()],
            peers_given: false,
            out: crate::repo_root().join("target/bench-results/gateway.json"),
            smoke: false,
        }
    }
}

impl GatewayConfig {
    /// Reads the driver's options: `--smoke` is one run of 1 s after 1 s of warm-up;
    /// options given replace the defaults (and the smoke sizes), whatever their order.
    ///
    /// ```
    /// use peregrine_bench::gateway::GatewayConfig;
    /// let args = ["--sessions", "1,10", "--smoke", "--runs", "2"].map(String::from);
    /// let cfg = GatewayConfig::parse(&args)?;
    /// assert_eq!((cfg.runs, cfg.seconds, cfg.warmup_seconds, cfg.smoke), (2, 1, 1, true));
    /// assert_eq!(cfg.sessions, [1, 10]);
    /// assert!(GatewayConfig::parse(&["--peers".into(), "artio".into()]).is_err());
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for an unknown option, a missing or bad value, or an unknown peer.
    pub fn parse(args: &[String]) -> Result<GatewayConfig> {
        let mut cfg = GatewayConfig::default();
        if args.iter().any(|a| a == "--smoke") {
            cfg.smoke = true;
            cfg.runs = 1;
            cfg.seconds = 1;
            cfg.warmup_seconds = 1;
        }
        let mut it = args.iter().filter(|a| *a != "--smoke");
        while let Some(key) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| usage(format!("{key} needs a value")))?;
            match key.as_str() {
                "--runs" => cfg.runs = (number(key, value)? as usize).max(1),
                "--seconds" => cfg.seconds = number(key, value)?.max(1),
                "--warmup-seconds" => cfg.warmup_seconds = number(key, value)?,
                "--sessions" => {
                    cfg.sessions = value
                        .split(',')
                        .map(|v| number(key, v).map(|n| (n as usize).max(1)))
                        .collect::<Result<_>>()?
                }
                "--peers" => {
                    cfg.peers_given = true;
                    cfg.peers = crate::peer_list(value);
                    if let Some(p) = cfg
                        .peers
                        .iter()
                        .find(|p| !ROUTER_PEERS.contains(&p.as_str()))
                    {
                        return Err(usage(format!(
                            "--peers: no {p} router (known: quickfixj, or none)"
                        )));
                    }
                }
                "--out" => cfg.out = value.into(),
                other => return Err(usage(format!("unknown option {other}"))),
            }
        }
        Ok(cfg)
    }
}

/// What a harness process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The exchange (examples/exchange.rs): New then Fill for each order.
    Exchange,
    /// Peregrine's router (examples/router.rs), counting its allocations per order.
    Router,
    /// The client load: N initiator sessions, one order in flight each.
    Load,
}

/// The parsed arguments of one harness process.
///
/// ```
/// use peregrine_bench::gateway::{PeerArgs, Role};
/// let args = "--role load --port 9000 --sessions 100 --engine quickfixj --warmup-ms 500 --measure-ms 2000"
///     .split(' ').map(String::from).collect::<Vec<_>>();
/// let a = PeerArgs::parse(&args)?;
/// assert_eq!((a.role, a.port, a.sessions, a.engine.as_str()), (Role::Load, 9000, 100, "quickfixj"));
/// assert_eq!((a.warmup_ms, a.measure_ms), (500, 2000));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerArgs {
    /// `--role exchange|router|load`.
    pub role: Role,
    /// `--port`: where this process listens (exchange, router) or connects (load).
    pub port: u16,
    /// `--exchange-port`: where the router connects to the exchange.
    pub exchange_port: u16,
    /// `--sessions`: client sessions (C0 … C{N-1}).
    pub sessions: usize,
    /// `--dir`: this process's fresh directory (settings, stores, logs).
    pub dir: PathBuf,
    /// `--dict`: the FIX44 dictionary.
    pub dict: PathBuf,
    /// `--warmup-ms`: from the first order, round trips not counted.
    pub warmup_ms: u64,
    /// `--measure-ms`: the measured window after the warm-up.
    pub measure_ms: u64,
    /// `--engine`: the router's name the load reports its figures under.
    pub engine: String,
    /// `--router-pid`: the router's process, whose CPU time the load reports per order.
    pub router_pid: Option<u32>,
}

impl PeerArgs {
    /// Parses `--key value` pairs.
    ///
    /// ```
    /// use peregrine_bench::gateway::PeerArgs;
    /// assert!(PeerArgs::parse(&["--role".into(), "venue".into()]).is_err());
    /// assert!(PeerArgs::parse(&["--port".into(), "1".into()]).is_err()); // no role
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for an unknown option or role, a missing or bad value.
    pub fn parse(args: &[String]) -> Result<PeerArgs> {
        let mut a = PeerArgs {
            role: Role::Load,
            port: 0,
            exchange_port: 0,
            sessions: 1,
            dir: std::env::temp_dir().join(format!("peregrine-gateway-{}", std::process::id())),
            dict: crate::fix44_dictionary(),
            warmup_ms: 1_000,
            measure_ms: 1_000,
            engine: "peregrine".into(),
            router_pid: None,
        };
        let mut role = None;
        let mut it = args.iter();
        while let Some(key) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| usage(format!("{key} needs a value")))?;
            let port = || -> Result<u16> {
                u16::try_from(number(key, value)?)
                    .map_err(|_| usage(format!("{key}: {value} is out of range")))
            };
            match key.as_str() {
                "--role" => {
                    role = Some(match value.as_str() {
                        "exchange" => Role::Exchange,
                        "router" => Role::Router,
                        "load" => Role::Load,
                        other => return Err(usage(format!("--role: unknown role {other:?}"))),
                    })
                }
                "--port" => a.port = port()?,
                "--exchange-port" => a.exchange_port = port()?,
                "--sessions" => a.sessions = (number(key, value)? as usize).max(1),
                "--dir" => a.dir = value.into(),
                "--dict" => a.dict = value.into(),
                "--warmup-ms" => a.warmup_ms = number(key, value)?,
                "--measure-ms" => a.measure_ms = number(key, value)?.max(1),
                "--engine" => a.engine = value.clone(),
                "--router-pid" => {
                    a.router_pid = Some(
                        u32::try_from(number(key, value)?)
                            .map_err(|_| usage(format!("{key}: {value} is out of range")))?,
                    )
                }
                other => return Err(usage(format!("unknown option {other}"))),
            }
        }
        a.role = role.ok_or_else(|| usage("--role is required".into()))?;
        Ok(a)
    }
}

fn number(key: &str, value: &str) -> Result<u64> {
    value
        .trim()
        .parse()
        .map_err(|_| usage(format!("{key}: {value:?} is not a number")))
}

fn usage(text: String) -> Error {
    Error::Usage(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn driver_options() {
        let cfg = GatewayConfig::parse(&args(
            "--runs 3 --seconds 0 --warmup-seconds 2 --sessions 1,100 --peers none --out /tmp/g.json",
        ))
        .unwrap();
        assert_eq!((cfg.runs, cfg.seconds, cfg.warmup_seconds), (3, 1, 2));
        assert_eq!(cfg.sessions, [1, 100]);
        assert!(cfg.peers.is_empty() && cfg.peers_given && !cfg.smoke);
        assert_eq!(cfg.out, PathBuf::from("/tmp/g.json"));
        let smoke = GatewayConfig::parse(&args("--smoke")).unwrap();
        assert_eq!((smoke.runs, smoke.seconds, smoke.sessions.len()), (1, 1, 2));
        for bad in [
            "--runs",
            "--runs x",
            "--sessions 1,x",
            "--peers quickfix-cpp",
            "--bogus 1",
        ] {
            assert!(
                matches!(GatewayConfig::parse(&args(bad)), Err(Error::Usage(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn harness_options() {
        let a = PeerArgs::parse(&args(
            "--role router --port 7000 --exchange-port 7001 --sessions 0 --router-pid 12",
        ))
        .unwrap();
        assert_eq!(
            (a.role, a.port, a.exchange_port, a.sessions, a.router_pid),
            (Role::Router, 7000, 7001, 1, Some(12))
        );
        for bad in [
            "--role load --port 70000",
            "--role load --measure-ms",
            "--role sender",
            "--role load --router-pid -1",
            "--sessions 3",
        ] {
            assert!(
                matches!(PeerArgs::parse(&args(bad)), Err(Error::Usage(_))),
                "{bad}"
            );
        }
    }
}

//! Experiment §4 of BENCHMARKS.md, the round trip with session guarantees (the FIX
//! Antenna experiment): `peregrine bench roundtrip`.
//!
//! ```text
//! initiator (CLIENT) ── NewOrderSingle ──▶ TCP 127.0.0.1 ──▶ acceptor (VENUE)
//!        ◀──────────── ExecutionReport ◀───────────────────────────┘
//! ```
//!
//! Two processes, one order in flight: the initiator takes t1 right before it sends a
//! NewOrderSingle and t2 right after the ExecutionReport that answers it is parsed and its
//! ClOrdID checked; the next order is sent from the callback that received the report.
//! What is measured is what a FIX application pays per order with the session's
//! guarantees on (sequence numbers, a message store, validation), in five configurations
//! ([`RtConfig`]): `balanced` (file store not forced to disk, FIX44 validation),
//! `optimized` (memory store, no dictionary), `fsync` (every store write on disk before
//! the message leaves), `tls` (balanced over TLS 1.3, Peregrine only) and `production`
//! (balanced with the message and event logs on at both ends, as firms run: issue 31).
//!
//! Four engines, each as two processes of its own, interleaved run by run and config by
//! config: Peregrine ([`peregrine`], written on the public application API as the README
//! teaches it), QuickFIX/J and QuickFIX C++ (the harnesses under `peers/`), and the TCP
//! floor ([`floor`]: the same bytes bounced by the thinnest code), which is what the
//! loopback hop costs on this machine (not in `tls` or `production`). After a
//! `production` pair the driver checks both sides' logs ([`logs`]). The driver ([`driver`]) starts each pair
//! (`peregrine-bench roundtrip-peer …` for ours, [`peer`] parses its arguments), reads the
//! initiator's JSON line, and reports medians across runs, the targets ([`mod@targets`]) and
//! an HDR percentile plot.
//!
//! The processes keep the contract of `peers/two-process-harnesses.md` (and
//! [`crate::process`]): the acceptor prints `ready` once it listens, the initiator prints
//! one JSON line (nanoseconds) and exits 0; anything else goes to stderr.

pub mod driver;
pub mod floor;
pub mod log_cost;
pub mod logs;
pub mod peer;
pub mod peregrine;
pub mod table;
pub mod targets;
pub mod wire;

pub use driver::{run, RoundTripConfig};
pub use peer::{peer_main, PeerArgs, PeerEngine, Role};
pub use targets::{targets, Target};

use crate::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The initiator's session (`SenderCompID=CLIENT`, `TargetCompID=VENUE`).
pub const INITIATOR_SESSION: &str = "FIX.4.4:CLIENT->VENUE";

/// The acceptor's session.
pub const ACCEPTOR_SESSION: &str = "FIX.4.4:VENUE->CLIENT";

/// One configuration of the experiment.
///
/// ```
/// use peregrine_bench::roundtrip::RtConfig;
/// assert_eq!("balanced".parse::<RtConfig>()?, RtConfig::Balanced);
/// assert_eq!(RtConfig::Fsync.to_string(), "fsync");
/// assert!(RtConfig::Optimized.memory_store() && !RtConfig::Optimized.validates());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtConfig {
    /// File store, each record written to the OS before the message leaves but not forced
    /// to disk (`FileStoreSync=N`, QuickFIX/J's default); validation with the FIX44
    /// dictionary.
    Balanced,
    /// Memory store; BodyLength, CheckSum and garbled-message checks only
    /// (`UseDataDictionary=N`).
    Optimized,
    /// As balanced, with every commit forced to disk before the message leaves
    /// (`FileStoreSync=Y`, Peregrine's default).
    Fsync,
    /// As balanced, over TLS 1.3 (`SocketUseSSL=Y`, the acceptor's certificate checked
    /// by the initiator): Peregrine only, the cost of TLS beside `balanced`.
    Tls,
    /// As balanced, with the message and event logs on at both ends, in a directory of
    /// the pair's that is removed after the run: Peregrine's `FileLogPath`, QuickFIX/J's
    /// and QuickFIX C++'s `FileLogFactory` (their defaults otherwise). The driver checks
    /// afterwards that every order and report is in both sides' messages logs.
    Production,
}

impl RtConfig {
    /// Every configuration, in report order.
    pub const ALL: [RtConfig; 5] = [
        RtConfig::Balanced,
        RtConfig::Optimized,
        RtConfig::Fsync,
        RtConfig::Tls,
        RtConfig::Production,
    ];

    /// Its name (the `case` of its results, `--config` of the peers).
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::RtConfig::Optimized.name(), "optimized");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            RtConfig::Balanced => "balanced",
            RtConfig::Optimized => "optimized",
            RtConfig::Fsync => "fsync",
            RtConfig::Tls => "tls",
            RtConfig::Production => "production",
        }
    }

    /// Whether the connection speaks TLS (the pair's directory holds `pki/`).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// assert!(RtConfig::Tls.tls() && !RtConfig::Balanced.tls());
    /// ```
    pub fn tls(self) -> bool {
        self == RtConfig::Tls
    }

    /// The idle strategy of both Peregrine processes and of the floor in this config.
    /// Busy-spin where the round trip is CPU and network only: each process's engine
    /// thread has one of the two cores (its other threads sleep while round trips run),
    /// and under busy-spin an engine with few connections reads its sockets directly
    /// instead of asking epoll first (one system call less per message, BENCHMARKS §4).
    /// `fsync` spins then yields: its fdatasyncs need the kernel's journal thread on the
    /// same two cores, and a thread that never yields holds it off (p99 3.8–6.0 ms
    /// against 0.39–0.46 ms, measured alternated).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// assert_eq!(RtConfig::Optimized.idle().to_string(), "busy-spin");
    /// assert_eq!(RtConfig::Fsync.idle().to_string(), "spin-then-yield:100");
    /// ```
    pub fn idle(self) -> peregrine_engine::Idle {
        match self {
            RtConfig::Fsync => crate::loopback::idle(),
            RtConfig::Balanced | RtConfig::Optimized | RtConfig::Tls | RtConfig::Production => {
                peregrine_engine::Idle::busy_spin()
            }
        }
    }

    /// Whether the message and event logs are on at both ends (`production`).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// let logged: Vec<RtConfig> = RtConfig::ALL.into_iter().filter(|c| c.logs()).collect();
    /// assert_eq!(logged, [RtConfig::Production]);
    /// ```
    pub fn logs(self) -> bool {
        self == RtConfig::Production
    }

    /// Whether it keeps messages in memory (else in the file store).
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// assert!(RtConfig::Optimized.memory_store() && !RtConfig::Fsync.memory_store());
    /// ```
    pub fn memory_store(self) -> bool {
        self == RtConfig::Optimized
    }

    /// Whether messages are validated with the FIX44 dictionary.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// assert!(RtConfig::Tls.validates() && RtConfig::Production.validates() && !RtConfig::Optimized.validates());
    /// ```
    pub fn validates(self) -> bool {
        self != RtConfig::Optimized
    }

    /// Whether every store write is forced to disk before the message leaves.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// let forced: Vec<RtConfig> = RtConfig::ALL.into_iter().filter(|c| c.fsyncs()).collect();
    /// assert_eq!(forced, [RtConfig::Fsync]);
    /// ```
    pub fn fsyncs(self) -> bool {
        self == RtConfig::Fsync
    }

    /// A list of names separated by commas (`--configs balanced,optimized`), in the
    /// order given, without repeats.
    ///
    /// ```
    /// use peregrine_bench::roundtrip::RtConfig;
    /// assert_eq!(RtConfig::parse_list("fsync,balanced,fsync")?, [RtConfig::Fsync, RtConfig::Balanced]);
    /// assert!(RtConfig::parse_list("balanced,fast").is_err());
    /// assert!(RtConfig::parse_list("").is_err());
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for an unknown name or an empty list.
    pub fn parse_list(list: &str) -> Result<Vec<RtConfig>> {
        let mut configs = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let c = name.parse()?;
            if !configs.contains(&c) {
                configs.push(c);
            }
        }
        if configs.is_empty() {
            return Err(Error::Usage(format!(
                "--configs {list:?}: name at least one of balanced, optimized, fsync, tls, production"
            )));
        }
        Ok(configs)
    }
}

impl fmt::Display for RtConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RtConfig {
    type Err = Error;

    fn from_str(s: &str) -> Result<RtConfig> {
        RtConfig::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "unknown config {s:?} (known: balanced, optimized, fsync, tls, production)"
                ))
            })
    }
}

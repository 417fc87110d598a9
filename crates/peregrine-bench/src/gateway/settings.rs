//! The settings of the gateway's processes: both routers' `.cfg` files (written to the
//! run's directory, the shape of `examples/router.cfg` and
//! `peers/quickfixj/firstapp/router.cfg` with plain TCP, this run's ports and
//! directories and FIX44 validation), and the exchange's and the load's, made in code.
//!
//! Both routers keep their sessions in file stores written to the operating system
//! before a message leaves and never forced to disk (`FileStoreSync=N`, QuickFIX/J's
//! default; [`SYNC_POLICY`]), log every message to files (`FileLogPath`: QuickFIX/J's
//! `Router.java` always uses its `FileLogFactory`), validate with the FIX44 dictionary
//! and set `ResetOnLogon=Y` and TCP_NODELAY.

use std::path::Path;

use peregrine_engine::config::{Section, Settings};
use peregrine_engine::Idle;

use crate::{loopback, Error, Result};

/// The router's CompID.
pub const ROUTER: &str = "GW";

/// The exchange's CompID (examples/router.rs addresses it by this name).
pub const EXCHANGE: &str = "EXCH";

/// The sync policy of both routers' stores, as the report states it.
pub const SYNC_POLICY: &str = "FileStoreSync=N on both routers (every store write handed to the OS before the message leaves, no fsync: QuickFIX/J's default)";

/// The CompID of client session `k`: `C0`, `C1`, …
///
/// ```
/// assert_eq!(peregrine_bench::gateway::settings::client(7), "C7");
/// ```
pub fn client(k: usize) -> String {
    format!("C{k}")
}

/// The allow list of `n` clients: `C0,C1,…`.
///
/// ```
/// assert_eq!(peregrine_bench::gateway::settings::allowed(3), "C0,C1,C2");
/// ```
pub fn allowed(n: usize) -> String {
    (0..n).map(client).collect::<Vec<_>>().join(",")
}

/// Where a router listens and connects, and where it keeps its files.
#[derive(Clone, Copy, Debug)]
pub struct RouterPlace<'a> {
    /// The clients' port.
    pub port: u16,
    /// The exchange's port.
    pub exchange_port: u16,
    /// Client sessions allowed (`C0` … `C{n-1}`).
    pub sessions: usize,
    /// The run's directory: stores and logs go under it.
    pub dir: &'a Path,
    /// The FIX44 dictionary.
    pub dict: &'a Path,
}

/// Peregrine's router settings (examples/router.cfg over plain TCP): one engine
/// journal, the client acceptor template with the allow list, the exchange initiator.
///
/// ```
/// use peregrine_bench::gateway::settings::{peregrine_router_cfg, RouterPlace};
/// let p = RouterPlace { port: 7000, exchange_port: 7001, sessions: 2, dir: "/tmp/g".as_ref(), dict: "/d/FIX44.xml".as_ref() };
/// let cfg = peregrine_router_cfg(&p);
/// assert!(cfg.contains("EngineJournal=Y") && cfg.contains("FileStoreSync=N"));
/// assert!(cfg.contains("AllowedTargetCompIDs=C0,C1") && cfg.contains("SocketConnectPort=7001"));
/// ```
pub fn peregrine_router_cfg(p: &RouterPlace<'_>) -> String {
    router_cfg(p, "EngineJournal=Y\nIdleStrategy=block\nSocketNodelay=Y\n")
}

/// The QuickFIX/J router's settings (peers/quickfixj/firstapp/router.cfg over plain
/// TCP): a file store per session, QuickFIX/J's own keys.
///
/// ```
/// use peregrine_bench::gateway::settings::{quickfixj_router_cfg, RouterPlace};
/// let p = RouterPlace { port: 7000, exchange_port: 7001, sessions: 1, dir: "/tmp/g".as_ref(), dict: "/d/FIX44.xml".as_ref() };
/// let cfg = quickfixj_router_cfg(&p);
/// assert!(cfg.contains("FileStoreSync=N") && !cfg.contains("EngineJournal"));
/// assert!(cfg.contains("SocketTcpNoDelay=Y") && cfg.contains("NonStopSession=Y"));
/// ```
pub fn quickfixj_router_cfg(p: &RouterPlace<'_>) -> String {
    router_cfg(p, "SocketTcpNoDelay=Y\nNonStopSession=Y\n")
}

fn router_cfg(p: &RouterPlace<'_>, engine_keys: &str) -> String {
    format!(
        "# Written by `peregrine bench gateway` for one run.\n\
         [DEFAULT]\n\
         SenderCompID={ROUTER}\n\
         FileStorePath={store}\n\
         FileLogPath={log}\n\
         FileStoreSync=N\n\
         UseDataDictionary=Y\n\
         DataDictionary={dict}\n\
         ResetOnLogon=Y\n\
         HeartBtInt=30\n\
         StartTime=00:00:00\n\
         EndTime=00:00:00\n\
         {engine_keys}\n\
         [SESSION]\n\
         ConnectionType=acceptor\n\
         AcceptorTemplate=Y\n\
         BeginString=FIX.4.4\n\
         TargetCompID=*\n\
         AllowedTargetCompIDs={allowed}\n\
         SocketAcceptAddress=127.0.0.1\n\
         SocketAcceptPort={port}\n\n\
         [SESSION]\n\
         ConnectionType=initiator\n\
         BeginString=FIX.4.4\n\
         TargetCompID={EXCHANGE}\n\
         SocketConnectHost=127.0.0.1\n\
         SocketConnectPort={exchange_port}\n\
         ReconnectInterval=1\n",
        store = p.dir.join("router-store").display(),
        log = p.dir.join("router-log").display(),
        dict = p.dict.display(),
        allowed = allowed(p.sessions),
        port = p.port,
        exchange_port = p.exchange_port,
    )
}

/// The idle strategy of every Peregrine process of the gateway: three busy processes
/// share two cores, so none spins (`block`, the engine's default).
pub fn idle() -> Idle {
    Idle::block()
}

/// FIX44 validation, memory store, [`idle`]: the exchange's and the load's defaults.
fn rig(d: Section, acceptor: bool, dict: &Path) -> Section {
    loopback::defaults(d, acceptor)
        .idle_strategy(idle())
        .use_data_dictionary(true)
        .data_dictionary(dict)
}

/// The exchange's settings: one acceptor session EXCH→GW on `port`.
///
/// ```
/// let s = peregrine_bench::gateway::settings::exchange(7001, &peregrine_bench::fix44_dictionary())?;
/// assert_eq!(s.sessions[0].session_name(), "FIX.4.4:EXCH->GW");
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the settings do not build.
pub fn exchange(port: u16, dict: &Path) -> Result<Settings> {
    Settings::builder()
        .default(|d| loopback::endpoint(rig(d, true, dict), true, port))
        .session("FIX.4.4", EXCHANGE, ROUTER, |s| s)
        .build()
        .map_err(Error::engine("the exchange's settings"))
}

/// The load's settings: `n` initiator sessions C0…C{n-1} → GW on `port`.
///
/// ```
/// let s = peregrine_bench::gateway::settings::load(7000, 3, &peregrine_bench::fix44_dictionary())?;
/// assert_eq!(s.sessions.len(), 3);
/// assert_eq!(s.sessions[2].session_name(), "FIX.4.4:C2->GW");
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the settings do not build.
pub fn load(port: u16, n: usize, dict: &Path) -> Result<Settings> {
    let mut b =
        Settings::builder().default(|d| loopback::endpoint(rig(d, false, dict), false, port));
    for k in 0..n {
        b = b.session("FIX.4.4", &client(k), ROUTER, |s| s);
    }
    b.build().map_err(Error::engine("the load's settings"))
}

/// The rig's settings as the report states them.
pub const RIG_TEXT: &str = "client load: one Peregrine process, N initiator sessions C0..C{N-1} on one engine thread, memory store, one NewOrderSingle in flight per session (the next sent from the callback of the Fill), round trip from the send to the Fill ExecutionReport; exchange: examples/exchange.rs's application (New then Fill) in one Peregrine process, memory store; both UseDataDictionary=Y (FIX44), IdleStrategy=block, TCP_NODELAY, plain TCP on 127.0.0.1";

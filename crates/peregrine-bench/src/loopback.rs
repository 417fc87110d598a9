//! The settings every Peregrine process of a two-process benchmark shares (the round
//! trip of §4, streaming and many sessions of §5): FIX.4.4 sessions over TCP on
//! 127.0.0.1, HeartBtInt=30, ResetOnLogon=Y, TCP_NODELAY, one busy engine thread that
//! spins then yields (§4 overrides the idle strategy per config:
//! [`RtConfig::idle`](crate::roundtrip::RtConfig::idle)). Each experiment adds its store
//! and validation. And the free port each pair of processes meets on.

use peregrine_engine::config::{ConnectionType, Section};
use peregrine_engine::Idle;

use crate::{Error, Result};

/// Busy polls before the engine thread yields (`spin-then-yield:100`): two busy
/// processes on two cores.
pub const IDLE_SPINS: u32 = 100;

/// The idle strategy of §5's Peregrine processes and of §4's `fsync` config (the other
/// §4 configs busy-spin: [`RtConfig::idle`](crate::roundtrip::RtConfig::idle)).
///
/// ```
/// assert_eq!(peregrine_bench::loopback::idle().to_string(), "spin-then-yield:100");
/// ```
pub fn idle() -> Idle {
    Idle::spin_then_yield(IDLE_SPINS)
}

/// The shared keys of a `[DEFAULT]` section: ConnectionType, HeartBtInt=30,
/// ResetOnLogon=Y, SocketNodelay=Y and [`idle`].
///
/// ```
/// use peregrine_engine::config::Section;
/// let d = peregrine_bench::loopback::defaults(Section::default(), true);
/// assert_eq!(d.get("ConnectionType"), Some("acceptor"));
/// assert_eq!(d.get("ResetOnLogon"), Some("Y"));
/// ```
pub fn defaults(d: Section, acceptor: bool) -> Section {
    d.connection_type(if acceptor {
        ConnectionType::Acceptor
    } else {
        ConnectionType::Initiator
    })
    .heart_bt_int(30)
    .reset_on_logon(true)
    .set("SocketNodelay", true)
    .idle_strategy(idle())
}

/// Where a session listens (acceptor: 127.0.0.1:`port`) or connects to (initiator,
/// reconnecting each second until the acceptor is up).
///
/// ```
/// use peregrine_engine::config::Section;
/// let s = peregrine_bench::loopback::endpoint(Section::default(), false, 9000);
/// assert_eq!(s.get("SocketConnectPort"), Some("9000"));
/// ```
pub fn endpoint(s: Section, acceptor: bool, port: u16) -> Section {
    if acceptor {
        s.socket_accept_address("127.0.0.1")
            .socket_accept_port(port)
    } else {
        s.socket_connect("127.0.0.1", port).reconnect_interval(1)
    }
}

/// A free TCP port on 127.0.0.1 (the OS's pick, released for the acceptor to take).
///
/// ```
/// assert_ne!(peregrine_bench::loopback::free_port()?, 0);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the OS has no port to give.
pub fn free_port() -> Result<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(Error::engine("no free port on 127.0.0.1"))
}

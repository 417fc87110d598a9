//! Ports for tests that start listeners.

use std::net::{Ipv4Addr, TcpListener};

/// A TCP port on 127.0.0.1 that was free a moment ago (the OS's pick, released for
/// the process under test to take).
///
/// ```
/// let port = peregrine_testkit::net::free_port();
/// assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
/// ```
///
/// # Panics
///
/// When the OS has no port to give.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

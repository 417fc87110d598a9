//! What every case does: connect and log on, send with backoff, count allocations, stop.

use std::net::TcpListener;

use peregrine_engine::{Idle, RunningEngine, Sender, SessionRef, SubmitError};

use super::counterparty::Counterparty;
use super::initiator::{start_initiator, Quiet};
use super::order::order;
use super::{PATIENCE, SESSION};
use crate::{Error, Result};

/// Stops the engine gracefully while the counterparty answers its Logout.
pub(super) fn stop(engine: RunningEngine<Quiet>, cp: Counterparty) -> Result<()> {
    let drain = std::thread::Builder::new()
        .name("counterparty".into())
        .spawn(move || cp.drain_until_closed(PATIENCE))
        .map_err(Error::engine("cannot start the counterparty thread"))?;
    let stopped = engine.stop().map_err(Error::engine("the engine failed"));
    let _ = drain.join();
    stopped.map(|_| ())
}

/// A listener for the counterparty, the engine connected to it and logged on.
pub(super) fn connect(
    idle: Idle,
    messages: u64,
) -> Result<(RunningEngine<Quiet>, Counterparty, Sender, SessionRef)> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(Error::engine("counterparty bind"))?;
    let port = listener
        .local_addr()
        .map_err(Error::engine("counterparty address"))?
        .port();
    let engine = start_initiator(port, idle, messages)?;
    let cp = Counterparty::accept(&listener, PATIENCE)?;
    if !engine.wait_logged_on(PATIENCE) {
        return Err(Error::Engine {
            what: "the initiator did not log on".into(),
            source: None,
        });
    }
    let sender = engine.sender();
    let session = engine.session_ref(SESSION).ok_or_else(|| Error::Engine {
        what: format!("no session {SESSION}"),
        source: None,
    })?;
    Ok((engine, cp, sender, session))
}

/// Sends one order, retrying a full queue with a backoff; the retries.
pub(super) fn send_order(
    sender: &Sender,
    session: SessionRef,
    producer: usize,
    index: u64,
) -> std::result::Result<u64, SubmitError> {
    let mut retries = 0;
    loop {
        match sender.send(session, b"D", |m| order(m, producer, index)) {
            Ok(()) => return Ok(retries),
            Err(SubmitError::QueueFull) => {
                retries += 1;
                if retries <= 6 {
                    for _ in 0..1u32 << (retries - 1) {
                        std::hint::spin_loop();
                    }
                } else {
                    std::thread::yield_now();
                }
            }
            Err(e) => return Err(e),
        }
    }
}

pub(super) fn submit_error(e: SubmitError) -> Error {
    Error::engine("Sender::send")(e)
}

/// The process's allocations so far, if the binary counts them. (`is_counting`
/// allocates to find out: asked once, outside any measured window.)
pub(super) fn allocations() -> Option<u64> {
    static COUNTING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    COUNTING
        .get_or_init(crate::alloc::is_counting)
        .then(crate::alloc::allocations)
}

//! Peregrine's side: the initiator engine, its settings and its quiet application.

use std::path::Path;

use peregrine_codec::MessageView;
use peregrine_engine::{BoxedStore, EngineBuilder, Idle, RunningEngine};
use peregrine_session::{AppReject, Application, Outbox, SessionId};
use peregrine_store::MemoryStore;

use super::STORE_BYTES_PER_MESSAGE;
use crate::{Error, Result};

/// The name of an idle strategy in case names: `spin`, `block`, or its own.
///
/// ```
/// use peregrine_bench::send::idle_name;
/// use peregrine_engine::Idle;
/// assert_eq!(idle_name(&Idle::busy_spin()), "spin");
/// assert_eq!(idle_name(&Idle::block()), "block");
/// ```
pub fn idle_name(idle: &Idle) -> String {
    match idle {
        Idle::BusySpin(_) => "spin".into(),
        Idle::Block(_) => "block".into(),
        other => other.to_string().replace([':', '-'], "_"),
    }
}

/// The application behind the initiator session: the counterparty sends it nothing
/// but session messages.
#[derive(Debug, Default)]
pub(super) struct Quiet;

impl Application for Quiet {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        Ok(())
    }
}

/// The initiator's settings: one FIX.4.4 session to `port` on 127.0.0.1, no data
/// dictionary, no logs.
///
/// ```
/// let text = peregrine_bench::send::initiator_settings(9876);
/// assert!(text.contains("SocketConnectPort=9876"));
/// ```
pub fn initiator_settings(port: u16) -> String {
    format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
         SocketConnectPort={port}\nSenderCompID=CLIENT\nTargetCompID=VENUE\n\
         UseDataDictionary=N\nHeartBtInt=30\nReconnectInterval=1\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    )
}

/// Starts the initiator engine on its own thread under `idle`, with a memory store
/// that has room for `messages` messages.
///
/// # Errors
///
/// [`Error::Engine`] when the settings, the reactor or the engine thread fail.
pub(super) fn start_initiator(
    port: u16,
    idle: Idle,
    messages: u64,
) -> Result<RunningEngine<Quiet>> {
    let messages = messages as usize + 1_000;
    EngineBuilder::parse(&initiator_settings(port), Path::new("bench-send.cfg"))
        .map_err(Error::engine("the initiator's settings"))?
        .idle(idle)
        // Sized up front: storing the measured messages allocates nothing.
        .store_with(move |_, now| {
            let store =
                MemoryStore::with_capacity(now, messages, messages * STORE_BYTES_PER_MESSAGE);
            Ok(Box::new(store) as BoxedStore)
        })
        .start(|_| Quiet)
        .map_err(Error::engine("cannot start the engine"))
}

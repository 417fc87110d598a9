//! Peregrine's I/O engine: the sockets, threads and files around the sans-IO
//! FIX session of `peregrine-session`.
//!
//! * [`EngineBuilder`] builds a running acceptor or initiator from settings
//!   and an application factory: stores, logs, dictionaries (loaded once per
//!   file), idle strategy, admin interface;
//! * [`config`] reads QuickFIX-style `.cfg` settings ([`config::Settings`]), or
//!   makes the same in code ([`config::Settings::builder`]), and refuses a
//!   QuickFIX key it does not implement when that would change security or
//!   delivery ([`config::UNSUPPORTED_KEYS`]);
//! * [`Sender`] sends messages through the sessions from any thread, and
//!   [`EngineHandle`] carries [`Command`]s (stop, logout, logon, reset, add and
//!   remove sessions, sequence numbers);
//! * [`Engine`] runs many sessions on one reactor thread: a TCP acceptor (one
//!   port, sessions routed by CompIDs, acceptor templates) and initiators
//!   (reconnect interval, failover hosts), with a configurable
//!   [`IdleStrategy`], TCP_NODELAY and buffer sizes, slow-consumer detection,
//!   graceful shutdown with Logout;
//! * [`preflight::check`] finds what start-up would refuse in settings
//!   (dictionaries, store and log directories, listeners) without starting;
//! * [`SessionLog`] writes the message and event logs;
//! * [`admin`] is the operator's HTTP interface (`/sessions`, `/metrics`,
//!   `/seqnum`, `/logout`, `/logon`, `/reset`, `/testrequest`, `/addsession`,
//!   `/removesession`), and serves the operations [`console`] page;
//! * [`metrics`]: every session's counters and latency histograms and the
//!   reactor's, read from any thread without stopping it ([`Metrics`]), and
//!   rendered for Prometheus;
//! * [`SessionDriver`] is what the engine needs from a session, and
//!   [`SessionView`] what the operator sees of it and may set.
//!
//! The engine never decides anything about the FIX protocol: it moves bytes
//! and time, and does what the session's events say.
//!
//! The crates an application needs are re-exported ([`codec`], [`session`],
//! [`store`]), so `peregrine-engine` (and `peregrine-messages` for typed
//! messages) is the one dependency. `examples/venue.rs` and
//! `examples/client.rs` in the repository are a whole venue and client.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod admin;
pub mod builder;
pub mod command;
pub mod config;
pub mod console;
pub mod driver;
pub mod engine;
pub mod fix;
mod http;
#[doc(hidden)]
pub mod internal;
pub mod journals;
pub mod log;
pub mod metrics;
pub mod preflight;
pub mod sender;
mod session_info;
pub mod tls;

pub use admin::spawn_admin_server;
pub use builder::{
    AppEngine, BoxedStore, BuildError, EngineBuilder, RunningEngine, SessionContext, StoreFactory,
};
pub use command::{
    AddSessionError, CallError, Command, CommandError, EngineHandle, Outcome, Reply,
};
pub use config::{ConfigError, ConfigWarning, ConnectionType, SessionSettings, Settings};
pub use driver::{now_nanos, DriverEvent, Nanos, SessionDriver, SessionView};
pub use engine::{Engine, EngineOptions, SessionInfo, SocketOptions, WriteGate};
pub use log::SessionLog;
pub use metrics::{Metrics, SessionMetrics};
pub use peregrine_agent::{Agent, Idle, IdleStrategy, ParseIdleError};
pub use sender::{Sender, SessionRef, SubmitError};

/// The codec (`peregrine-codec`): [`MessageView`](codec::MessageView),
/// [`MessageEncoder`](codec::MessageEncoder).
pub use peregrine_codec as codec;
/// The sans-IO session (`peregrine-session`):
/// [`Application`](session::Application), [`SessionId`](session::SessionId).
pub use peregrine_session as session;
/// The message stores (`peregrine-store`).
pub use peregrine_store as store;

//! Peregrine's I/O engine: the sockets, threads and files around the sans-IO
//! FIX session of `peregrine-session`.
//!
//! * [`config`] reads QuickFIX-style `.cfg` settings ([`config::Settings`]), or
//!   makes the same in code ([`config::Settings::builder`]), and refuses a
//!   QuickFIX key it does not implement when that would change security or
//!   delivery ([`config::UNSUPPORTED_KEYS`]);
//! * [`EngineBuilder`] builds a running acceptor or initiator from them and an
//!   application factory;
//! * [`Engine`] runs many sessions on one reactor thread: a TCP acceptor (one
//!   port, sessions routed by CompIDs) and initiators (reconnect interval,
//!   failover hosts), with a configurable [`IdleStrategy`], TCP_NODELAY and
//!   buffer sizes, slow-consumer detection, graceful shutdown with Logout;
//! * [`SessionLog`] writes the message and event logs;
//! * [`admin`] is the operator's HTTP interface (`/seqnum`, `/sessions`);
//! * [`SessionDriver`] is what the engine needs from a session.
//!
//! The engine never decides anything about the FIX protocol: it moves bytes
//! and time, and does what the session's events say.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod admin;
pub mod builder;
pub mod command;
pub mod config;
pub mod driver;
pub mod engine;
pub mod fix;
pub mod log;
pub mod sender;

pub use admin::spawn_admin_server;
pub use builder::{AppEngine, BuildError, EngineBuilder, RunningEngine, SessionContext};
pub use command::{Command, CommandError, EngineHandle, Outcome, Reply};
pub use config::{ConfigError, ConfigWarning, ConnectionType, SessionSettings, Settings};
pub use driver::{now_nanos, DriverEvent, Nanos, SessionDriver};
pub use engine::{Engine, EngineOptions, SessionInfo, SocketOptions};
pub use log::SessionLog;
pub use peregrine_agent::{Agent, Idle, IdleStrategy, ParseIdleError};
pub use sender::{Sender, SessionRef, SubmitError};

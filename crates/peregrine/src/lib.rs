//! Peregrine, a FIX protocol engine, as one dependency.
//!
//! ```toml
//! [dependencies]
//! peregrine = "0.1"   # FIX 4.4's typed messages, TLS and the SQL stores by default
//! ```
//!
//! and one import, `use peregrine::prelude::*;`, which brings what a first
//! application needs: [`EngineBuilder`](prelude::EngineBuilder) (an acceptor or
//! initiator from a QuickFIX-style `.cfg`, or from settings made in code), the
//! [`Application`](prelude::Application) trait with its
//! [`Outbox`](prelude::Outbox), the thread-safe [`Sender`](prelude::Sender),
//! [`SessionId`](prelude::SessionId), the settings types, and the typed message
//! modules of the enabled FIX versions (`fix44`, …).
//!
//! ```
//! use peregrine::prelude::*;
//!
//! /// Answers every NewOrderSingle with a fill; refuses other messages.
//! struct Venue;
//!
//! impl fix44::MessageHandler<Outbox<'_>> for Venue {
//!     type Error = AppReject;
//!
//!     fn on_new_order_single(
//!         &mut self,
//!         order: fix44::NewOrderSingle<'_>,
//!         out: &mut Outbox<'_>,
//!     ) -> Result<(), AppReject> {
//!         // Absent or malformed: a session Reject with 373=1 (or 6) and 371=11.
//!         let id = order.cl_ord_id().required(fix44::tags::CL_ORD_ID)?;
//!         out.send_typed::<fix44::ExecutionReport>(|fill| {
//!             fill.order_id(id)
//!                 .exec_id(id)
//!                 .exec_type(fix44::enums::ExecType::Trade)
//!                 .ord_status(fix44::enums::OrdStatus::Filled)
//!                 .cl_ord_id(id);
//!         })?;
//!         Ok(())
//!     }
//! }
//!
//! impl Application for Venue {
//!     fn from_app(
//!         &mut self,
//!         msg: &MessageView,
//!         _id: &SessionId,
//!         out: &mut Outbox<'_>,
//!     ) -> Result<(), AppReject> {
//!         fix44::crack(self, msg, out)
//!     }
//! }
//!
//! // The settings of a `.cfg` file (EngineBuilder::load reads one from disk).
//! let cfg = "
//! [DEFAULT]
//! ConnectionType=acceptor
//! SocketAcceptAddress=127.0.0.1
//! SocketAcceptPort=0
//! DataDictionary=FIX44.xml
//! [SESSION]
//! BeginString=FIX.4.4
//! SenderCompID=VENUE
//! TargetCompID=CLIENT
//! ";
//! let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(|_session| Venue)?;
//! assert_eq!(venue.listener_addrs().len(), 1); // port 0: the system chose one
//! venue.stop()?; // logs every session out
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `fix40` … `fix50sp2`, `fixt11` | `fix44` | the typed messages of that version ([`messages`]`::fix44`, in the prelude as `fix44`), generated at build time from QuickFIX's dictionary |
//! | `tls` | yes | [`tls`] and the TLS settings types in the prelude; the engine always links rustls, so `SocketUseSSL=Y` works either way |
//! | `sql-store` | yes | the PostgreSQL and SQLite stores (`JdbcURL`, `SQLStoreDriver`); compiles SQLite's C |
//! | `aeron` | no | `peregrine::aeron`, the Aeron transport (builds Aeron's C with cmake: minutes) |
//! | `ha` | no | `peregrine::ha`, leadership per session group on etcd (etcd's client needs `protoc`) |
//!
//! # The crates underneath
//!
//! [`engine`] (sockets, threads, `.cfg` settings, logs, admin HTTP), [`session`]
//! (the sans-IO FIX session), [`messages`] (typed messages), [`codec`]
//! (tag=value framing, views, encoder), [`store`] (message stores) and
//! [`dict`] (QuickFIX data dictionaries) are re-exported whole, so anything
//! the prelude leaves out is one path away (`peregrine::engine::Command`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// QuickFIX data dictionaries (`peregrine-dict`): loading, validation, the
/// built-in dictionaries.
pub use peregrine_dict as dict;
/// The I/O engine (`peregrine-engine`): [`EngineBuilder`](engine::EngineBuilder),
/// settings ([`engine::config`]), [`Sender`](engine::Sender), commands, metrics,
/// the admin interface.
pub use peregrine_engine as engine;
/// The codec (`peregrine-codec`): [`MessageView`](codec::MessageView),
/// [`MessageEncoder`](codec::MessageEncoder), typed values.
pub use peregrine_engine::codec;
/// The sans-IO FIX session (`peregrine-session`):
/// [`Application`](session::Application), [`Outbox`](session::Outbox),
/// [`SessionId`](session::SessionId).
pub use peregrine_engine::session;
/// The message stores (`peregrine-store`): memory, the file journal.
pub use peregrine_engine::store;
/// Typed FIX messages (`peregrine-messages`), one module per enabled version.
pub use peregrine_messages as messages;

/// TLS (`SocketUseSSL=Y`): the rustls configurations the engine makes from
/// the settings.
#[cfg(feature = "tls")]
pub use peregrine_engine::tls;

/// The Aeron transport (`peregrine-aeron`).
#[cfg(feature = "aeron")]
pub use peregrine_aeron as aeron;

/// High availability (`peregrine-ha`): leadership per session group on etcd.
#[cfg(feature = "ha")]
pub use peregrine_ha as ha;

pub mod prelude;

//! What a first application needs, in one import: `use peregrine::prelude::*;`.
//!
//! The engine ([`EngineBuilder`], [`RunningEngine`], [`Sender`],
//! [`EngineHandle`]), the application's side of a session ([`Application`],
//! [`Outbox`], [`SessionId`], [`AppReject`], [`AppEvent`]), settings read from
//! a `.cfg` or made in code ([`Settings`], [`SessionSettings`],
//! [`ConnectionType`]), decoded messages and their values ([`MessageView`], [`Decimal`],
//! [`UtcTimestamp`]) and
//! the typed message modules of the enabled FIX versions (`fix44`, …), with
//! the traits their getters and setters come from ([`TypedMessage`],
//! [`FieldAccess`], [`FieldResult`] (`.required(tag)?`, `.value()` on a getter), and
//! every version's header and component traits, imported
//! unnamed so that versions do not clash: `order.symbol("X")` works with no
//! other import).

pub use peregrine_engine::codec::value::{Decimal, TimePrecision, UtcTimestamp};
pub use peregrine_engine::codec::MessageView;
pub use peregrine_engine::config::{ConnectionType, SessionSettings, Settings};
pub use peregrine_engine::session::{
    AppEvent, AppReject, Application, Outbox, SessionId, SessionState,
};
pub use peregrine_engine::{
    BuildError, ConfigError, EngineBuilder, EngineHandle, RunningEngine, Sender, SessionContext,
    SessionRef, SubmitError,
};
pub use peregrine_messages::{FieldAccess, FieldResult, Message, TypedMessage};

// Every enabled version's component traits (`symbol()`, `side()` on any message that has
// the component), unnamed, so that several versions' traits can be in scope together.
#[cfg(feature = "fix40")]
pub use peregrine_messages::fix40::traits::*;
#[cfg(feature = "fix41")]
pub use peregrine_messages::fix41::traits::*;
#[cfg(feature = "fix42")]
pub use peregrine_messages::fix42::traits::*;
#[cfg(feature = "fix43")]
pub use peregrine_messages::fix43::traits::*;
#[cfg(feature = "fix44")]
pub use peregrine_messages::fix44::traits::*;
#[cfg(feature = "fix50")]
pub use peregrine_messages::fix50::traits::*;
#[cfg(feature = "fix50sp1")]
pub use peregrine_messages::fix50sp1::traits::*;
#[cfg(feature = "fix50sp2")]
pub use peregrine_messages::fix50sp2::traits::*;
#[cfg(feature = "fixt11")]
pub use peregrine_messages::fixt11::traits::*;

#[cfg(feature = "tls")]
pub use peregrine_engine::config::{TlsSettings, TlsVersion};

#[cfg(feature = "fix40")]
pub use peregrine_messages::fix40;
#[cfg(feature = "fix41")]
pub use peregrine_messages::fix41;
#[cfg(feature = "fix42")]
pub use peregrine_messages::fix42;
#[cfg(feature = "fix43")]
pub use peregrine_messages::fix43;
#[cfg(feature = "fix44")]
pub use peregrine_messages::fix44;
#[cfg(feature = "fix50")]
pub use peregrine_messages::fix50;
#[cfg(feature = "fix50sp1")]
pub use peregrine_messages::fix50sp1;
#[cfg(feature = "fix50sp2")]
pub use peregrine_messages::fix50sp2;
#[cfg(feature = "fixt11")]
pub use peregrine_messages::fixt11;

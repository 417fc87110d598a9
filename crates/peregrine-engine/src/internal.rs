//! Not the public API (hidden from the documentation; it may change without
//! notice): what this workspace uses below [`EngineBuilder`](crate::EngineBuilder).
//!
//! Why it exists: the engine's own integration tests and `peregrine-ha`'s
//! drive an [`Engine`](crate::Engine) turn by turn with a different
//! application per session (boxed, from a factory closure), and the
//! `peregrine` command chooses its application at run time ([`DynApp`]).
//! Applications use [`EngineBuilder`](crate::EngineBuilder) instead, whose
//! [`AppEngine`](crate::AppEngine) keeps each application's own type.

pub use crate::fix::adapter::{build_session, BoxedFixSession};
pub use crate::fix::apps::DynApp;

//! The bridge to `peregrine-session`, one job per file:
//!
//! * `settings.rs`: settings → the session's identity, its
//!   [`SessionConfig`](peregrine_session::SessionConfig) and its schedule;
//! * `dictionaries.rs`: the dictionary files a session
//!   names, loaded once per file ([`DictionaryCache`]);
//! * `stores.rs`: which message store a session uses, and
//!   opening it;
//! * `adapter.rs`: [`FixSession`], a
//!   [`Session`](peregrine_session::Session) with its application seen as a
//!   [`SessionDriver`](crate::SessionDriver);
//! * `apps.rs`: [`LogApp`], an application that logs what it is told (and
//!   `DynApp`, any application boxed, for the workspace's own use).
//!
//! This module depends on [`config`](crate::config), [`driver`](crate::driver)
//! and [`log`](crate::log) only: the engine, the builder and preflight use it,
//! never the other way round (see `docs/architecture.md`).

pub(crate) mod adapter;
pub(crate) mod apps;
mod dictionaries;
mod settings;
mod stores;

pub use adapter::FixSession;
pub use apps::LogApp;
pub use dictionaries::{dictionary_files, load_dictionaries, DictionaryCache, DictionaryFiles};
pub use settings::{schedule, session_config, session_id};
pub use stores::{file_store_dir, open_store, store_kind, StoreKind};
pub(crate) use stores::{fsync_policy, on_damage};

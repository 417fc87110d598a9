//! QuickFIX-style `.cfg` settings.
//!
//! A settings file is a list of sections. `[DEFAULT]` holds values every
//! session inherits; each `[SESSION]` describes one session and may override
//! any default. Lines are `Key=Value`; blank lines and lines starting with `#`
//! or `;` are ignored; keys are matched without regard to case.
//!
//! ```
//! use peregrine_engine::config::{ConnectionType, Settings};
//! let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nHeartBtInt=20\n\
//!             SenderCompID=ISLD\nTargetCompID=TW\n\n[SESSION]\nBeginString=FIX.4.4\n";
//! let settings = Settings::parse(text, "fix44.cfg".as_ref())?;
//! let s = &settings.sessions[0];
//! assert_eq!(s.connection_type, ConnectionType::Acceptor);
//! assert_eq!(s.heart_bt_int, 20);
//! assert_eq!(s.session_name(), "FIX.4.4:ISLD->TW");
//! # Ok::<(), peregrine_engine::config::ConfigError>(())
//! ```
//!
//! # Relative paths
//!
//! QuickFIX resolves relative paths (`DataDictionary`, `FileStorePath`,
//! `FileLogPath`, …) against the process's working directory. Peregrine
//! resolves them against **the directory of the `.cfg` file**, so a settings
//! file and the files it names can move together; when the file named that
//! way does not exist but one relative to the working directory does, that
//! one is used (so cfgs written for QuickFIX keep working).
//!
//! # Errors and warnings
//!
//! A value that cannot be used is an error naming the file, the line and the
//! key: `fix44.cfg:3: HeartBtInt: "abc" is not a number`. A QuickFIX key
//! Peregrine does not implement is an error when ignoring it would change
//! security or delivery, and a [`ConfigWarning`] when it would only change
//! logs or performance (the table: [`UNSUPPORTED_KEYS`]); a key nobody
//! knows is a warning too. Warnings are printed to stderr when no `tracing`
//! subscriber is installed ([`Settings::report_warnings`]).
//!
//! # Settings in code
//!
//! [`Settings::builder`] makes the same settings without a file: every value
//! goes through the same parsing and checks, and an error says `set in code`
//! where a file's would say `file:line`. See [`SettingsBuilder`].

mod catalog;
mod error;
mod ha;
mod keys;
mod parse;
mod reader;
mod schedule;
mod session;
mod settings;
mod settings_builder;
mod sql_store;
mod tls;
mod typed;
mod unsupported;
mod unsupported_table;
mod values;

pub use catalog::{
    catalog_key, range_of, settings_table, DefaultValue, Key, KeySource, KeySuffix, ValueKind,
    CATALOG, KNOWN_KEYS, NUMERIC_RANGES,
};
pub use error::{ConfigError, ConfigWarning, Origin};
pub use ha::{HaSettings, DEFAULT_HA_GROUP, DEFAULT_HA_LEASE_TTL};
pub use reader::resolve_path;
pub use session::{SessionSettings, VersionDictionary};
pub use settings::Settings;
pub use settings_builder::{Section, SettingsBuilder, ToSetting};
pub use sql_store::{SqlSource, SqlStoreSettings};
pub use tls::{TlsSettings, TlsVersion};
pub use unsupported::{unsupported, Effect, KeyOrigin, UnsupportedKey, UNSUPPORTED_KEYS};
pub use unsupported_table::unsupported_table;
pub use values::{ConnectionType, SettingLine, SlowConsumerAction, StoreDamage, TimeOfDay};

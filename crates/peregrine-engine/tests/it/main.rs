//! The engine's integration tests that can share a process, as one test binary:
//! each file was a binary of its own, and each linked the whole engine (about 20 s of
//! `make test` apiece). Tests that need a process to themselves stay in their own
//! binaries beside this one: a counting global allocator (`faults`, `zero_alloc`),
//! the process's memory (`memory_per_session`, `outbound_rss`), its descriptor limit
//! (`fd_limit`), or a child copy of the binary killed with SIGKILL (`kill9`,
//! `router_kill9`) or run for one test (`child_test`: `config`, `screen_log`).

#[path = "../support/mod.rs"]
mod support;

mod admin;
mod app_data_dictionaries;
mod builder;
mod console;
mod console_api;
mod control;
mod defaults;
mod direct_read;
mod dynamic;
mod engine;
mod engine_journal;
mod engine_thread;
mod forward;
mod ha_config;
mod many_sessions;
mod metrics;
mod monitoring;
mod poll;
mod schedule_status;
mod send;
mod settings_builder;
mod settings_table;
mod settle;
mod slow_consumer;
#[cfg(feature = "sql-store")]
mod sql_store;
#[cfg(feature = "sql-store")]
mod sql_store_quickfixj;
mod tls;
mod write_gate;

//! The session's integration tests as one test binary: each file was a binary of
//! its own, linking the session, the stores and the dictionaries again. The two that
//! install a counting global allocator (`zero_alloc`, `memory_bounds`) need a
//! process to themselves and stay beside it.

#[path = "../common/mod.rs"]
mod common;
#[path = "../support/mod.rs"]
mod support;

mod acceptance;
mod appl_ver_dictionaries;
mod application;
mod callback_outboxes;
mod crash_restart;
mod durability;
mod forwards;
mod garbled_and_checksum;
mod required_fields;
mod schedule_zones;
mod transitions;

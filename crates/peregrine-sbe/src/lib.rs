//! SBE (Simple Binary Encoding) codecs for Peregrine's internal order flow.
//!
//! Everything below [`generated`] is produced by Real Logic's `sbe-tool` (sbe-all 1.38.1,
//! Rust target) from the schema `crates/peregrine-aeron/sbe/orders.xml`, and is committed
//! so that a build needs no Java. Do not edit it by hand: change the schema and run
//! `make sbe`, which regenerates the files and formats them with rustfmt.
//!
//! The generated items are re-exported at the crate root (the generated modules refer to
//! each other through `crate::`), so `peregrine_sbe::new_order_codec::NewOrderEncoder` and
//! friends are the paths to use. `peregrine-aeron` wraps them in a typed, allocation-free
//! API; most users want that crate rather than this one.
#![forbid(unsafe_code)]

/// The sbe-tool output. Generated code follows the generator's conventions, not ours, so
/// it alone is exempt from the documentation and clippy rules.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_imports, dead_code)]
#[path = "generated/lib.rs"]
pub mod generated;

pub use generated::*;

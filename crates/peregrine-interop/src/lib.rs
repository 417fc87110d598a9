//! The interop suite's pieces: Peregrine's side (`interop-peer`, an application that
//! answers every NewOrderSingle with one ExecutionReport and records what it was
//! delivered), a TCP proxy that cuts the connection at chosen byte counts
//! ([`proxy`]), and the check that every message was delivered exactly once and in
//! order ([`deliveries`]). `tests/quickfixj.rs` runs them against QuickFIX/J's
//! `peers/quickfixj/.../Interop.java`.

pub mod deliveries;
pub mod proxy;

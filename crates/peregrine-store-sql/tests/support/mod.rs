//! What the database store tests share: the PostgreSQL cluster harness,
//! QuickFIX/J's JdbcStore on it, and the persistence cases both stores run.
//! (peregrine-engine's tests include `pg.rs` and `qfj.rs` by path.)
#![allow(dead_code)]

pub mod cases;
pub mod pg;
pub mod qfj;

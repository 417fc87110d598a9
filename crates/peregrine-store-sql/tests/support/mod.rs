//! What the database store tests share: the PostgreSQL cluster harness and
//! the persistence cases both stores run.
#![allow(dead_code)]

pub mod cases;
pub mod pg;

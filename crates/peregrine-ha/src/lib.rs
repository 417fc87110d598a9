//! Peregrine's high availability, first part: which node leads a session group,
//! decided on etcd (issue 26 §1). Replication of the engine journal over Aeron builds on
//! it in the crate `peregrine-replication`; `docs/standby.md` says what exists and what
//! is to come.
//!
//! * [`Leadership`] campaigns for a group's leader key, `<prefix>/<group>/leader`,
//!   created under an etcd lease of `HaLeaseTTL` seconds and kept alive every TTL/3;
//!   the value is the node's name. It watches the key: when the leader resigns or its
//!   lease expires etcd deletes the key, and a standby's create wins.
//! * The fencing token is a [`Term`]: the leader key's **create revision**. etcd's
//!   revisions come from one counter that only grows, so every later win has a
//!   greater term. (Leases have no revision of their own — a grant changes no key —
//!   and their IDs are not ordered.) What the leader replicates will carry its term;
//!   a standby keeps a [`TermFence`] and refuses records of an older term.
//! * [`LeaderGate`] answers "may I write?" on the writer's thread from the clock:
//!   this node leads until the lease's **local deadline**, `sent + TTL - margin`, with
//!   `sent` the monotonic instant at which the newest keep-alive that etcd answered
//!   was *sent* (the grant, at first) and `margin` a tenth of the TTL (at least
//!   100 ms).
//!
//! # Why a deposed leader stops writing before a standby can win
//!
//! etcd renews a lease when it *receives* a keep-alive, for the TTL it granted, so
//! its expiry is at least `sent + TTL` for the newest keep-alive it received. A
//! standby can only create the leader key after etcd has expired the lease and
//! deleted the key (etcd checks for expired leases every 500 ms and revokes them
//! through its log, which only adds delay). Our deadline is `margin` earlier than
//! `sent + TTL` for the newest keep-alive etcd *answered*, which is no later than
//! the newest it received. So our gate closes at least `margin` before any standby
//! can win, whatever happened in between: partitioned from etcd (no answer moves
//! the deadline), paused by SIGSTOP or a long GC-like stall (the clock kept running;
//! an answer read after the pause carries its old send time), or etcd itself
//! stalled. Measuring from the *send* matters: measured from the answer's arrival, a
//! reply read after a pause would extend a lease etcd had already let go.
//!
//! What the margin must cover: the difference between this host's monotonic clock
//! rate and the etcd leader's (parts per million), and the time between a writer's
//! check and its `write(2)`. A thread stopped exactly between the two (after the
//! check, before the system call) is the one window a local check cannot close;
//! FIX counterparties do not check fencing tokens, so nothing on the wire can.
//!
//! ```no_run
//! use peregrine_ha::{HaConfig, Leadership};
//! use std::time::{Duration, Instant};
//! let mut config = HaConfig::new("node-a", "orders", ["127.0.0.1:2379"]);
//! config.peers = vec!["node-b".into()];
//! config.lease_ttl = Duration::from_secs(2);
//! let leadership = Leadership::start(config)?;
//! let gate = leadership.gate();
//! loop {
//!     match gate.term_at(Instant::now()) {
//!         Some(term) => { /* write, carrying `term` */ }
//!         None => { /* hold the sessions: standby */ }
//!     }
//!     # break;
//! }
//! # Ok::<(), peregrine_ha::HaError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod campaign;
pub mod config;
mod error;
mod event;
mod gate;
mod leadership;
mod term;

pub use config::{HaConfig, HaConfigError};
pub use error::HaError;
pub use event::{LeadershipEvent, LossReason};
pub use gate::LeaderGate;
pub use leadership::Leadership;
pub use term::{Admitted, StaleTerm, Term, TermFence};

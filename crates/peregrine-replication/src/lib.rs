//! Replication of Peregrine's engine journal from the active node to a standby
//! over Aeron, fenced by the leadership term (issue 26 §2).
//!
//! * [`ReplicationSource`] (the active) follows the engine journal with a
//!   [`JournalFollower`](peregrine_store::JournalFollower) from the position
//!   the standby asks for and publishes every change of every committed
//!   transaction, each frame carrying the term from a [`TermSource`] (the
//!   [`LeaderGate`](peregrine_ha::LeaderGate): the leader key's create
//!   revision). Its [`AckedPosition`] is what the standby last said it holds.
//! * [`ReplicationSink`] (the standby) applies the stream to a
//!   [`JournalReplica`](peregrine_store::JournalReplica), each transaction
//!   whole, refuses frames of an older term than its
//!   [`TermFence`](peregrine_ha::TermFence), and acknowledges the position its
//!   replica journal holds.
//! * [`frame`]: the frames on the wire.
//!
//! Nothing here holds the engine: the source runs beside it, reading the
//! journal file, and the engine does not wait for an acknowledgement
//! (`ReplicationMode=sync` is not built). `docs/standby.md` says what exists.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use peregrine_aeron::{AeronClient, DriverConfig};
//! use peregrine_ha::Term;
//! use peregrine_replication::{ReplicationConfig, ReplicationSink, ReplicationSource};
//! use peregrine_store::{EngineJournal, JournalConfig, MessageStore};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (active_dir, standby_dir) = (tempfile::tempdir()?, tempfile::tempdir()?);
//! let journal = EngineJournal::open(active_dir.path(), JournalConfig::default(), 0)?;
//! let mut venue = journal.session("FIX.4.4:GW->VENUE", 0)?;
//! venue.store(1, b"35=D|11=C-1|")?;
//! venue.incr_next_sender_seq()?;
//! venue.commit()?;
//!
//! let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
//! let config = ReplicationConfig::ipc();
//! let term = Term::new(7).unwrap();
//! let mut active = ReplicationSource::new(&client, &config, active_dir.path(), term)?;
//! let mut standby = ReplicationSink::open(&client, &config, standby_dir.path(), JournalConfig::default())?;
//! let end = Instant::now() + Duration::from_secs(10);
//! while active.acked_position() != Some(journal.position()) && Instant::now() < end {
//!     active.poll()?;
//!     standby.poll()?;
//! }
//! assert_eq!(active.acked_position(), Some(journal.position()));
//! assert_eq!(standby.replica().store("FIX.4.4:GW->VENUE").unwrap().next_sender_seq(), 2);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod acked;
mod config;
mod error;
pub mod frame;
mod outbound;
mod receive;
mod sink;
mod source;
mod term_source;

pub use acked::AckedPosition;
pub use config::ReplicationConfig;
pub use error::ReplicationError;
pub use sink::{ReplicationSink, SinkStats};
pub use source::{ReplicationSource, SourceStats};
pub use term_source::TermSource;

//! The standby's handling of data frames: which stream it follows, whether a
//! frame follows on from what the replica holds, the term fence, and the
//! replica's changes.

use std::path::PathBuf;
use std::time::Instant;

use peregrine_ha::TermFence;
use peregrine_store::{
    JournalChange, JournalConfig, JournalPosition, JournalReplica, StoreError, MAX_MESSAGE_LEN,
};

use crate::frame::{Body, DataFrame};
use crate::SinkStats;

/// A message arriving in chunks.
struct Assembly {
    session: String,
    seq: u64,
    total: usize,
    bytes: Vec<u8>,
}

/// The stream a standby follows and what it expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Locked {
    instance: u64,
    epoch: u64,
}

pub(crate) struct Receiver {
    dir: PathBuf,
    config: JournalConfig,
    /// `None` only while being reopened.
    replica: Option<JournalReplica>,
    pub(crate) fence: TermFence,
    pub(crate) stats: SinkStats,
    locked: Option<Locked>,
    /// The next transaction's start (`None`: any, the first of a stream
    /// from the journal's start).
    expect: Option<JournalPosition>,
    /// The first transaction must begin with a RESTART.
    expect_restart: bool,
    /// The transaction being applied: its start and next change's index.
    txn: Option<(JournalPosition, u32)>,
    assembly: Option<Assembly>,
    /// The newest stream seen (instance, epoch).
    pub(crate) seen: (u64, u64),
    /// Where the active said its stream has reached (heartbeats, commits).
    pub(crate) leader_at: Option<JournalPosition>,
    /// A transaction was applied since the last status.
    pub(crate) advanced: bool,
    /// When the stream followed last sent a frame.
    pub(crate) heard: Instant,
}

impl Receiver {
    pub(crate) fn open(dir: PathBuf, config: JournalConfig) -> Result<Receiver, StoreError> {
        let replica = JournalReplica::open(&dir, config, 0)?;
        Ok(Receiver {
            dir,
            config,
            replica: Some(replica),
            fence: TermFence::default(),
            stats: SinkStats::default(),
            locked: None,
            expect: None,
            expect_restart: false,
            txn: None,
            assembly: None,
            seen: (0, 0),
            leader_at: None,
            advanced: false,
            heard: Instant::now(),
        })
    }

    pub(crate) fn replica(&mut self) -> &mut JournalReplica {
        self.replica.as_mut().expect("open")
    }

    pub(crate) fn position(&self) -> Option<JournalPosition> {
        self.replica.as_ref().and_then(JournalReplica::position)
    }

    /// Whether it follows a stream (else it asks for one).
    pub(crate) fn is_streaming(&self) -> bool {
        self.locked.is_some()
    }

    /// Drops a transaction half applied: the replica is opened again from
    /// its files, which hold only whole transactions.
    fn abandon(&mut self) -> Result<(), StoreError> {
        self.assembly = None;
        if self.txn.take().is_some() {
            self.stats.abandoned += 1;
            self.replica = None;
            self.replica = Some(JournalReplica::open(&self.dir, self.config, 0)?);
        }
        Ok(())
    }

    /// Stops following: the next status asks again.
    pub(crate) fn lose(&mut self) -> Result<(), StoreError> {
        self.locked = None;
        self.stats.lost += 1;
        self.abandon()
    }

    /// Handles one frame.
    pub(crate) fn on_frame(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.stats.frames += 1;
        let Ok(frame) = DataFrame::decode(bytes) else {
            self.stats.bad_frames += 1;
            return Ok(());
        };
        let stream = Locked {
            instance: frame.instance,
            epoch: frame.epoch,
        };
        if self.fence.admit(frame.term).is_err() {
            self.stats.stale_term += 1;
            // The stream followed is of a deposed active: ask for another.
            if self.locked == Some(stream) {
                return self.lose();
            }
            return Ok(());
        }
        if frame.instance != self.seen.0 || frame.epoch > self.seen.1 {
            self.seen = (frame.instance, frame.epoch);
        }
        if frame.body == Body::Start {
            return self.on_start(stream, frame.from);
        }
        match self.locked {
            Some(l) if l == stream => self.heard = Instant::now(),
            // An older epoch of the stream followed: still in flight.
            Some(l) if l.instance == stream.instance && stream.epoch < l.epoch => {
                self.stats.ignored += 1;
                return Ok(());
            }
            // Another epoch or instance: the active answered someone else or
            // started again; what it sends does not follow on from ours.
            Some(_) => return self.lose(),
            None => {
                self.stats.ignored += 1;
                return Ok(());
            }
        }
        if frame.body == Body::Heartbeat {
            self.leader_at = frame.from.max(self.leader_at);
            return Ok(());
        }
        let from = frame.from.expect("decode checks changes carry it");
        if frame.index == 0 {
            let fits = frame.body == Body::Restart
                || (!self.expect_restart && self.expect.map_or(true, |e| e == from));
            if !fits {
                return self.lose();
            }
            // A transaction started again (the active gave up on back pressure).
            self.abandon()?;
            self.txn = Some((from, 0));
        } else if self.txn != Some((from, frame.index)) {
            return self.lose();
        }
        // An index at u32::MAX is no transaction of a journal: a hostile frame.
        let Some(next) = frame.index.checked_add(1) else {
            self.stats.bad_frames += 1;
            return self.lose();
        };
        self.txn = Some((from, next));
        self.apply(frame.body)
    }

    /// A START: an answer to our request if it streams from what we hold.
    fn on_start(
        &mut self,
        stream: Locked,
        from: Option<JournalPosition>,
    ) -> Result<(), StoreError> {
        let newer = match self.locked {
            Some(l) => l.instance != stream.instance || stream.epoch > l.epoch,
            None => true,
        };
        let held = self.position();
        if !newer || (from.is_some() && from != held) {
            self.stats.ignored += 1;
            return Ok(());
        }
        self.abandon()?;
        self.locked = Some(stream);
        self.heard = Instant::now();
        self.expect = from;
        // From the journal's start over a replica that holds something: only
        // a stream that starts with a RESTART replaces it.
        self.expect_restart = from.is_none() && held.is_some();
        self.stats.streams += 1;
        Ok(())
    }

    fn apply(&mut self, body: Body<'_>) -> Result<(), StoreError> {
        let change = match body {
            Body::Start | Body::Heartbeat => return Ok(()),
            Body::Restart => {
                self.expect_restart = false;
                JournalChange::Restart
            }
            Body::Session {
                name,
                creation_time,
            } => JournalChange::Session {
                name,
                creation_time,
            },
            Body::Message {
                session,
                seq,
                total,
                at,
                chunk,
            } => return self.message(session, seq, total as usize, at as usize, chunk),
            Body::Numbers {
                session,
                next_sender,
                next_target,
            } => JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            },
            Body::Reset {
                session,
                creation_time,
            } => JournalChange::Reset {
                session,
                creation_time,
            },
            Body::Commit { position } => {
                if self.assembly.is_some() {
                    return self.lose();
                }
                self.replica().apply(JournalChange::Commit { position })?;
                self.txn = None;
                self.expect = Some(position);
                self.leader_at = Some(position).max(self.leader_at);
                self.advanced = true;
                self.stats.transactions += 1;
                return Ok(());
            }
        };
        self.replica().apply(change)
    }

    /// A message's chunk: applied when the message is whole.
    fn message(
        &mut self,
        session: &str,
        seq: u64,
        total: usize,
        at: usize,
        chunk: &[u8],
    ) -> Result<(), StoreError> {
        if at == 0 && chunk.len() == total {
            return self.replica().apply(JournalChange::Message {
                session,
                seq,
                message: chunk,
            });
        }
        if total > MAX_MESSAGE_LEN {
            self.stats.bad_frames += 1;
            return self.lose();
        }
        if at == 0 {
            let mut bytes = self.assembly.take().map(|a| a.bytes).unwrap_or_default();
            bytes.clear();
            self.assembly = Some(Assembly {
                session: session.to_string(),
                seq,
                total,
                bytes,
            });
        }
        let Some(a) = self.assembly.as_mut() else {
            return self.lose();
        };
        if a.session != session || a.seq != seq || a.total != total || a.bytes.len() != at {
            return self.lose();
        }
        a.bytes.extend_from_slice(chunk);
        if a.bytes.len() < total {
            return Ok(());
        }
        let a = self.assembly.take().expect("present");
        let replica = self.replica.as_mut().expect("open");
        replica.apply(JournalChange::Message {
            session: &a.session,
            seq: a.seq,
            message: &a.bytes,
        })
    }
}

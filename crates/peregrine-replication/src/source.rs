//! [`ReplicationSource`]: the active's side. A [`JournalFollower`] on the
//! engine journal, started where the standby asks, publishing each change.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

use peregrine_aeron::AeronClient;
use peregrine_ha::Term;
use peregrine_store::{JournalChange, JournalFollower, JournalPosition};

use crate::frame::{chunk_capacity, Body, DataFrame};
use crate::outbound::{Outbound, Unsent};
use crate::{AckedPosition, ReplicationConfig, ReplicationError, TermSource};

/// What a [`ReplicationSource`] has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// Transactions sent whole (their commit frame published).
    pub transactions: u64,
    /// Frames published.
    pub frames: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Standby requests answered (each starts an epoch).
    pub answered: u64,
    /// Offers refused by back pressure (each retried).
    pub back_pressured: u64,
    /// Transactions abandoned because back pressure outlasted the offer
    /// timeout (sent again from their start).
    pub abandoned: u64,
    /// Times streaming stopped because no standby was connected.
    pub disconnected: u64,
    /// Heartbeats sent.
    pub heartbeats: u64,
    /// Status frames that were not status frames.
    pub bad_status: u64,
}

/// A stream under way: the follower and where to go back to.
struct Stream {
    follower: JournalFollower,
    /// A RESTART is owed before the first change (the standby's position
    /// was not one of this journal's: it is sent everything).
    owe_restart: bool,
    /// The end of the last transaction sent whole (else where it started).
    sent: Option<JournalPosition>,
}

impl Stream {
    /// A follower from `from`; one that cannot start there (not a position
    /// of this journal) starts from the journal's start with a RESTART.
    fn open(dir: &Path, from: Option<JournalPosition>) -> Result<Stream, ReplicationError> {
        match JournalFollower::open(dir, from) {
            Ok(follower) => Ok(Stream {
                follower,
                owe_restart: false,
                sent: from,
            }),
            Err(_) if from.is_some() => Ok(Stream {
                follower: JournalFollower::open(dir, None)?,
                owe_restart: true,
                sent: None,
            }),
            Err(e) => Err(e.into()),
        }
    }
}

/// The active's side of replication: answers a standby's request by following
/// the engine journal from the standby's position and publishing every change
/// of every committed transaction, each frame carrying the term.
///
/// Protocol (one standby per pair of streams):
///
/// * A standby asks (a status frame with its position and a request flag)
///   when it starts and whenever what it receives does not follow on from what
///   it holds. The active answers with a new *epoch*: a START frame naming the
///   position it streams from, then the transactions after it, each as its
///   changes and a COMMIT. A position that is not one of this journal's
///   committed ends (another history) is answered from the journal's start
///   with a RESTART; one from before a compaction, by the follower's own
///   RESTART and the compacted journal.
/// * Every poll reads the standby's status frames: its position is the
///   [`acked`](Self::acked) one.
/// * With nothing to send, a HEARTBEAT every `heartbeat_interval` says where
///   the stream is.
/// * No term ([`TermSource::term`] is `None`, this node does not lead):
///   nothing is sent, and the stream stops until a standby asks again.
///
/// Back pressure: a refused frame is retried (back-off idle, status frames
/// read meanwhile) for at most `offer_timeout`; past it the transaction in
/// flight is abandoned and, at the next poll, sent again from its start (the
/// standby drops what it had of it). A request heard meanwhile ends the
/// retries: it is answered at the next poll. No standby connected: streaming stops at
/// once and waits for a request (a standby that comes back asks). So the
/// active holds nothing for a slow or absent standby: the journal is the
/// buffer, read again from the standby's position.
///
/// Memory: the follower's read window (64 KiB, or the largest record), the
/// session names, and one frame (at most the publication's largest message,
/// an eighth of its term length: a longer message goes in several frames).
///
/// Aeron handles are single-threaded: make and poll a source on one thread.
pub struct ReplicationSource<T: TermSource> {
    dir: PathBuf,
    terms: T,
    out: Outbound,
    heartbeat_interval: std::time::Duration,
    instance: u64,
    epoch: u64,
    /// The START of `epoch` was published.
    answered: bool,
    /// The request it answered: the standby's seen stream and position (a
    /// standby asks again until the START arrives; the same request is not
    /// answered twice).
    answered_request: Option<(u64, u64, Option<JournalPosition>)>,
    stream: Option<Stream>,
}

/// A random stream instance, never 0 (the standby's "none seen").
fn fresh_instance() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish().max(1)
}

impl<T: TermSource> ReplicationSource<T> {
    /// The source for the engine journal in `dir`, publishing with `client`.
    ///
    /// # Errors
    ///
    /// [`ReplicationError::Transport`] when Aeron cannot add the streams.
    pub fn new(
        client: &AeronClient,
        config: &ReplicationConfig,
        dir: impl AsRef<Path>,
        terms: T,
    ) -> Result<ReplicationSource<T>, ReplicationError> {
        Ok(ReplicationSource {
            dir: dir.as_ref().to_path_buf(),
            terms,
            out: Outbound::new(client, config)?,
            heartbeat_interval: config.heartbeat_interval,
            instance: fresh_instance(),
            epoch: 0,
            answered: false,
            answered_request: None,
            stream: None,
        })
    }

    /// The standby's acknowledged position (a handle for any thread).
    pub fn acked(&self) -> AckedPosition {
        self.out.acked.clone()
    }

    /// The standby's acknowledged position now.
    pub fn acked_position(&self) -> Option<JournalPosition> {
        self.out.acked.get()
    }

    /// What it has done.
    pub fn stats(&self) -> SourceStats {
        self.out.stats
    }

    /// The end of the last transaction sent whole, if streaming.
    pub fn sent_position(&self) -> Option<JournalPosition> {
        self.stream.as_ref().and_then(|s| s.sent)
    }

    /// This source's stream instance (random per source).
    pub fn instance(&self) -> u64 {
        self.instance
    }

    /// One round of work: status frames, a request, new transactions, a
    /// heartbeat. The frames read and sent (0: idle).
    ///
    /// # Errors
    ///
    /// [`ReplicationError::Store`] when the journal cannot be read;
    /// [`ReplicationError::Transport`] / [`ReplicationError::Publish`] for
    /// Aeron failures that retrying does not cure.
    pub fn poll(&mut self) -> Result<usize, ReplicationError> {
        let mut work = self.out.read_status()?;
        let Some(term) = self.terms.term() else {
            // Not leading: send nothing, answer nothing.
            self.stream = None;
            self.answered = false;
            self.out.request = None;
            return Ok(work);
        };
        if let Some(request) = self.out.request.take() {
            // Already answered with a newer epoch than the standby had seen:
            // that answer is on its way.
            let asked = (request.instance, request.epoch, request.position);
            let stale = self.answered
                && ((request.instance == self.instance && request.epoch < self.epoch)
                    || self.answered_request == Some(asked));
            if !stale {
                self.answered_request = Some(asked);
                self.answer(term, request.position)?;
                work += 1;
            }
        }
        let frames = self.out.stats.frames;
        self.stream_changes(term)?;
        work += (self.out.stats.frames - frames) as usize;
        if self.answered && self.out.last_sent.elapsed() >= self.heartbeat_interval {
            let at = self.stream.as_ref().map(|s| s.follower.position());
            let beat = self.frame(term, 0, at, Body::Heartbeat);
            match self.out.send(&beat) {
                Ok(()) => self.out.stats.heartbeats += 1,
                Err(e) => self.unsent(e)?,
            }
        }
        Ok(work)
    }

    fn frame<'a>(
        &self,
        term: Term,
        index: u32,
        from: Option<JournalPosition>,
        body: Body<'a>,
    ) -> DataFrame<'a> {
        DataFrame {
            term,
            instance: self.instance,
            epoch: self.epoch,
            index,
            from,
            body,
        }
    }

    /// A new epoch streaming from `from`.
    fn answer(
        &mut self,
        term: Term,
        from: Option<JournalPosition>,
    ) -> Result<(), ReplicationError> {
        self.epoch += 1;
        self.answered = false;
        let stream = Stream::open(&self.dir, from)?;
        let start_from = if stream.owe_restart { None } else { from };
        self.stream = Some(stream);
        let start = self.frame(term, 0, start_from, Body::Start);
        match self.out.send(&start) {
            Ok(()) => {
                self.answered = true;
                self.out.stats.answered += 1;
                Ok(())
            }
            Err(e) => self.unsent(e),
        }
    }

    /// What a frame that could not be sent does to the stream.
    fn unsent(&mut self, e: Unsent) -> Result<(), ReplicationError> {
        match e {
            Unsent::NotConnected => {
                self.out.stats.disconnected += 1;
                self.stream = None;
                self.answered = false;
                Ok(())
            }
            Unsent::Asked => {
                self.stream = None;
                self.answered = false;
                Ok(())
            }
            Unsent::GaveUp => {
                self.out.stats.abandoned += 1;
                // Back to the end of the last transaction sent whole.
                if let Some(s) = self.stream.take() {
                    let mut again = Stream::open(&self.dir, s.sent)?;
                    again.owe_restart |= s.owe_restart;
                    self.stream = Some(again);
                }
                Ok(())
            }
            Unsent::Failed(e) => Err(e.into()),
            Unsent::Unframed(e) => Err(ReplicationError::Frame(e)),
        }
    }

    /// Publishes every transaction committed past the stream's position.
    fn stream_changes(&mut self, term: Term) -> Result<(), ReplicationError> {
        if !self.answered {
            return Ok(());
        }
        let Some(mut stream) = self.stream.take() else {
            return Ok(());
        };
        let mut txn = Txn {
            term,
            instance: self.instance,
            epoch: self.epoch,
            from: stream.follower.position(),
            index: 0,
            owe_restart: stream.owe_restart,
            sent: stream.sent,
            max_frame: self.out.max_frame(),
        };
        let out = &mut self.out;
        let mut failed: Option<Unsent> = None;
        let polled = stream.follower.poll(&mut |change| {
            if failed.is_none() {
                failed = txn.send(out, change).err();
            }
        });
        // The RESTART stays owed until a transaction after it went whole.
        stream.owe_restart &= txn.sent == stream.sent;
        stream.sent = txn.sent;
        self.stream = Some(stream);
        polled?;
        match failed {
            Some(e) => self.unsent(e),
            None => Ok(()),
        }
    }
}

/// The transaction being sent: what its frames carry.
struct Txn {
    term: Term,
    instance: u64,
    epoch: u64,
    /// The position it starts at.
    from: JournalPosition,
    /// The next change's index in it.
    index: u32,
    owe_restart: bool,
    /// The end of the last transaction sent whole.
    sent: Option<JournalPosition>,
    max_frame: usize,
}

impl Txn {
    fn frame<'a>(&mut self, out: &mut Outbound, body: Body<'a>) -> Result<(), Unsent> {
        let frame = DataFrame {
            term: self.term,
            instance: self.instance,
            epoch: self.epoch,
            index: self.index,
            from: Some(self.from),
            body,
        };
        self.index = self.index.wrapping_add(1);
        out.send(&frame)
    }

    /// Sends one change as its frame (a message as several when it is
    /// longer than a frame holds).
    fn send(&mut self, out: &mut Outbound, change: JournalChange<'_>) -> Result<(), Unsent> {
        if self.index == 0 && self.owe_restart && change != JournalChange::Restart {
            self.frame(out, Body::Restart)?;
        }
        self.owe_restart = false;
        match change {
            JournalChange::Restart => self.frame(out, Body::Restart),
            JournalChange::Session {
                name,
                creation_time,
            } => self.frame(
                out,
                Body::Session {
                    name,
                    creation_time,
                },
            ),
            JournalChange::Message {
                session,
                seq,
                message,
            } => {
                // Messages are at most the store's 64 MiB: a u32 holds them.
                let total = message.len() as u32;
                let cap = chunk_capacity(self.max_frame, session);
                let mut at = 0;
                loop {
                    let end = message.len().min(at + cap);
                    self.frame(
                        out,
                        Body::Message {
                            session,
                            seq,
                            total,
                            at: at as u32,
                            chunk: &message[at..end],
                        },
                    )?;
                    at = end;
                    if at >= message.len() {
                        return Ok(());
                    }
                }
            }
            JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            } => self.frame(
                out,
                Body::Numbers {
                    session,
                    next_sender,
                    next_target,
                },
            ),
            JournalChange::Reset {
                session,
                creation_time,
            } => self.frame(
                out,
                Body::Reset {
                    session,
                    creation_time,
                },
            ),
            JournalChange::Commit { position } => {
                self.frame(out, Body::Commit { position })?;
                out.stats.transactions += 1;
                self.from = position;
                self.sent = Some(position);
                self.index = 0;
                Ok(())
            }
        }
    }
}

impl<T: TermSource> std::fmt::Debug for ReplicationSource<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicationSource")
            .field("dir", &self.dir)
            .field("instance", &self.instance)
            .field("epoch", &self.epoch)
            .field("sent", &self.sent_position())
            .field("stats", &self.out.stats)
            .finish()
    }
}

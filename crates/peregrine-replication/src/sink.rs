//! [`ReplicationSink`]: the standby's side. Applies the active's stream to a
//! [`JournalReplica`] and says, on the status stream, what it holds.

use std::path::Path;
use std::time::{Duration, Instant};

use peregrine_aeron::{AeronClient, Publisher, Subscriber};
use peregrine_ha::{Term, TermFence};
use peregrine_store::{JournalConfig, JournalPosition, JournalReplica};

use crate::frame::Status;
use crate::receive::Receiver;
use crate::{ReplicationConfig, ReplicationError};

/// What a [`ReplicationSink`] has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkStats {
    /// Frames read.
    pub frames: u64,
    /// Leader transactions applied (and acknowledged).
    pub transactions: u64,
    /// Frames refused for an older term than the fence's.
    pub stale_term: u64,
    /// Frames that were not frames of this format.
    pub bad_frames: u64,
    /// Frames of no stream it follows (before an answer; old epochs).
    pub ignored: u64,
    /// Streams followed (answers to its requests).
    pub streams: u64,
    /// Times what arrived did not follow on from what it holds (it asks again).
    pub lost: u64,
    /// Transactions half applied and dropped (the replica opened again).
    pub abandoned: u64,
    /// Requests sent.
    pub requests: u64,
    /// Status frames sent.
    pub statuses: u64,
}

/// The standby's side of replication: asks the active to stream from the
/// replica's position, applies each transaction whole to the
/// [`JournalReplica`] in its directory, refuses frames of a term older than
/// its [`TermFence`], and acknowledges on the status stream the position its
/// replica journal holds (written, and fsynced under
/// `FsyncPolicy::EveryCommit`, before the acknowledgement).
///
/// * It asks (a status frame with a request) at start, every
///   `request_interval` until a START answers it, whenever what arrives
///   does not follow on from what it holds (a frame lost, another epoch, an
///   active started again), and when the stream it follows has been silent
///   for five `heartbeat_interval`s (the active died or stopped leading). A standby that started late or was down is so
///   caught up from its saved position, while the active serves.
/// * A transaction is applied whole or not at all: one abandoned half way (the
///   active gave up on back pressure, or died) is dropped by opening the
///   replica again from its files.
/// * It says where it is after every poll that applied a transaction, and
///   every `status_interval` (the active's [`AckedPosition`](crate::AckedPosition)).
///   A status the publication refuses (no active, back pressure) is not
///   queued: the next one says the newer state.
///
/// Memory: the replica (its sessions' state), one frame, and a message
/// arriving in chunks (at most the store's 64 MiB message).
///
/// Aeron handles are single-threaded: make and poll a sink on one thread.
pub struct ReplicationSink {
    data: Subscriber,
    status: Publisher,
    rx: Receiver,
    fragment_limit: usize,
    status_interval: Duration,
    request_interval: Duration,
    /// A stream silent this long (five heartbeat intervals) is given up.
    silence: Duration,
    last_status: Option<Instant>,
    last_request: Option<Instant>,
}

impl ReplicationSink {
    /// The sink applying to the replica in `dir` (made if absent), on the
    /// streams of `config`.
    ///
    /// # Errors
    ///
    /// [`ReplicationError::Store`] when the replica cannot be opened;
    /// [`ReplicationError::Transport`] when Aeron cannot add the streams.
    pub fn open(
        client: &AeronClient,
        config: &ReplicationConfig,
        dir: impl AsRef<Path>,
        journal: JournalConfig,
    ) -> Result<ReplicationSink, ReplicationError> {
        let rx = Receiver::open(dir.as_ref().to_path_buf(), journal)?;
        Ok(ReplicationSink {
            data: client.subscriber(&config.data, config.data_stream)?,
            status: client.publisher(&config.status, config.status_stream)?,
            rx,
            fragment_limit: config.fragment_limit,
            status_interval: config.status_interval,
            request_interval: config.request_interval,
            silence: config.heartbeat_interval * 5,
            last_status: None,
            last_request: None,
        })
    }

    /// The leader position the replica holds.
    pub fn position(&self) -> Option<JournalPosition> {
        self.rx.position()
    }

    /// Where the active said its stream has reached (`None`: not heard).
    /// `position() < leader_position()`: the standby is behind.
    pub fn leader_position(&self) -> Option<JournalPosition> {
        self.rx.leader_at
    }

    /// Whether it follows a stream of the active (else it is asking for one).
    pub fn is_streaming(&self) -> bool {
        self.rx.is_streaming()
    }

    /// The term fence.
    pub fn fence(&self) -> TermFence {
        self.rx.fence
    }

    /// Learns of a term from elsewhere (etcd's leader key): frames of older
    /// terms are refused from now on.
    pub fn raise_term(&mut self, term: Term) {
        self.rx.fence.raise(term);
    }

    /// The replica (to read its sessions).
    pub fn replica(&mut self) -> &mut JournalReplica {
        self.rx.replica()
    }

    /// What it has done.
    pub fn stats(&self) -> SinkStats {
        self.rx.stats
    }

    /// One round of work: frames applied, then a status or a request when
    /// due. The frames read.
    ///
    /// # Errors
    ///
    /// [`ReplicationError::Store`] when the replica fails (open the sink
    /// again: the replica recovers from its files);
    /// [`ReplicationError::Transport`] when Aeron's poll fails.
    pub fn poll(&mut self) -> Result<usize, ReplicationError> {
        let rx = &mut self.rx;
        let mut failed = None;
        let n = self.data.poll(
            |bytes| {
                if failed.is_none() {
                    failed = rx.on_frame(bytes).err();
                }
            },
            self.fragment_limit,
        )?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        // The active died, stopped leading, or lost its subscriber: ask
        // whoever streams now.
        if self.rx.is_streaming() && self.rx.heard.elapsed() >= self.silence {
            self.rx.lose()?;
        }
        self.say_status();
        Ok(n)
    }

    /// Sends a request (not streaming, none lately) or a status (something
    /// applied, or none lately).
    fn say_status(&mut self) {
        let now = Instant::now();
        let due = |last: Option<Instant>, every: Duration| {
            last.map_or(true, |t| now.duration_since(t) >= every)
        };
        let request = !self.rx.is_streaming();
        if request && !due(self.last_request, self.request_interval) {
            return;
        }
        if !request && !self.rx.advanced && !due(self.last_status, self.status_interval) {
            return;
        }
        let status = Status {
            instance: self.rx.seen.0,
            epoch: self.rx.seen.1,
            term: self.rx.fence.current(),
            position: self.rx.position(),
            request,
        };
        if self.status.publish_bytes(&status.encode()).is_ok() {
            self.rx.advanced = false;
            self.last_status = Some(now);
            self.rx.stats.statuses += 1;
            if request {
                self.last_request = Some(now);
                self.rx.stats.requests += 1;
            }
        }
    }
}

impl std::fmt::Debug for ReplicationSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicationSink")
            .field("position", &self.position())
            .field("streaming", &self.is_streaming())
            .field("fence", &self.rx.fence.current())
            .field("stats", &self.rx.stats)
            .finish()
    }
}

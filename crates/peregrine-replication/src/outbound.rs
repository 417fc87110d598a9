//! The active's end of the two Aeron streams: sending data frames under a
//! stated back-pressure rule, and reading the standby's status frames.

use std::time::{Duration, Instant};

use peregrine_aeron::{
    AeronClient, Backoff, IdleStrategy, PublishError, Publisher, Refusal, Subscriber,
};

use crate::frame::{DataFrame, FrameError, Status};
use crate::{AckedPosition, ReplicationConfig, ReplicationError, SourceStats};

/// Why a frame was not sent.
#[derive(Debug)]
pub(crate) enum Unsent {
    /// No standby is connected: streaming stops until one asks.
    NotConnected,
    /// Back pressure outlasted the offer timeout: the transaction in flight is
    /// abandoned and sent again from its start.
    GaveUp,
    /// A failure retrying does not cure.
    Failed(PublishError),
    /// A standby asked for a stream meanwhile: this one gives way.
    Asked,
    /// The frame format cannot carry the change.
    Unframed(FrameError),
}

pub(crate) struct Outbound {
    publisher: Publisher,
    status: Subscriber,
    buf: Vec<u8>,
    pub(crate) acked: AckedPosition,
    pub(crate) stats: SourceStats,
    /// The newest request heard and not yet answered (one: a newer replaces it).
    pub(crate) request: Option<Status>,
    offer_timeout: Duration,
    fragment_limit: usize,
    pub(crate) last_sent: Instant,
}

impl Outbound {
    pub(crate) fn new(
        client: &AeronClient,
        config: &ReplicationConfig,
    ) -> Result<Outbound, ReplicationError> {
        Ok(Outbound {
            publisher: client.publisher(&config.data, config.data_stream)?,
            status: client.subscriber(&config.status, config.status_stream)?,
            buf: Vec::new(),
            acked: AckedPosition::default(),
            stats: SourceStats::default(),
            request: None,
            offer_timeout: config.offer_timeout,
            fragment_limit: config.fragment_limit,
            last_sent: Instant::now(),
        })
    }

    /// The largest frame: the publication's largest message (an eighth of its
    /// term length; Aeron's fragment assembler joins its MTU-sized fragments).
    pub(crate) fn max_frame(&self) -> usize {
        self.publisher.max_message_length()
    }

    /// Reads the standby's status frames: the acknowledged position, and the
    /// newest request. The number read.
    pub(crate) fn read_status(&mut self) -> Result<usize, ReplicationError> {
        let (acked, stats, request) = (&self.acked, &mut self.stats, &mut self.request);
        let n = self.status.poll(
            |bytes| match Status::decode(bytes) {
                Ok(s) => {
                    acked.set(s.position, s.term);
                    if s.request {
                        *request = Some(s);
                    }
                }
                Err(_) => stats.bad_status += 1,
            },
            self.fragment_limit,
        )?;
        Ok(n)
    }

    /// Sends one frame. Back pressure (or a term rotation) is retried, under
    /// a back-off, for at most the offer timeout, reading status frames
    /// meanwhile; no subscriber stops at once.
    pub(crate) fn send(&mut self, frame: &DataFrame<'_>) -> Result<(), Unsent> {
        // The journal's own limits (names of 1 KiB) are the format's: a
        // change it cannot frame is a bug, reported as an error.
        frame.encode(&mut self.buf).map_err(Unsent::Unframed)?;
        let mut idle = Backoff::default();
        let mut since: Option<Instant> = None;
        loop {
            match self.publisher.publish_bytes(&self.buf) {
                Ok(_) => {
                    self.stats.frames += 1;
                    self.stats.bytes += self.buf.len() as u64;
                    self.last_sent = Instant::now();
                    return Ok(());
                }
                Err(PublishError::Refused(Refusal::NotConnected)) => {
                    return Err(Unsent::NotConnected)
                }
                Err(PublishError::Refused(r)) => {
                    self.stats.back_pressured += 1;
                    if since.get_or_insert_with(Instant::now).elapsed() >= self.offer_timeout {
                        return Err(Unsent::GaveUp);
                    }
                    // Acknowledgements keep flowing while the standby catches up;
                    // a request (a standby started again) is answered at once.
                    let _ = self.read_status();
                    if self.request.is_some() {
                        return Err(Unsent::Asked);
                    }
                    if r != Refusal::AdminAction {
                        idle.idle(0);
                    }
                }
                Err(e) => return Err(Unsent::Failed(e)),
            }
        }
    }
}

//! [`ReplicationError`]: why a side of the replication stream stopped.

use std::fmt;

use peregrine_aeron::{PublishError, TransportError};
use peregrine_store::StoreError;

use crate::frame::FrameError;

/// Why a [`ReplicationSource`](crate::ReplicationSource) or
/// [`ReplicationSink`](crate::ReplicationSink) could not go on.
#[derive(Debug)]
pub enum ReplicationError {
    /// Aeron could not add a stream, or a poll failed.
    Transport(TransportError),
    /// A publication failed in a way retrying does not cure (closed, …).
    Publish(PublishError),
    /// The journal (the active's) or the replica (the standby's) failed.
    Store(StoreError),
    /// A journal change the frame format cannot carry.
    Frame(FrameError),
}

impl fmt::Display for ReplicationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplicationError::Transport(e) => write!(f, "replication transport: {e}"),
            ReplicationError::Publish(e) => write!(f, "replication publication: {e}"),
            ReplicationError::Store(e) => write!(f, "replication journal: {e}"),
            ReplicationError::Frame(e) => write!(f, "replication frame: {e}"),
        }
    }
}

impl std::error::Error for ReplicationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplicationError::Transport(e) => Some(e),
            ReplicationError::Publish(e) => Some(e),
            ReplicationError::Store(e) => Some(e),
            ReplicationError::Frame(e) => Some(e),
        }
    }
}

impl From<TransportError> for ReplicationError {
    fn from(e: TransportError) -> Self {
        ReplicationError::Transport(e)
    }
}

impl From<PublishError> for ReplicationError {
    fn from(e: PublishError) -> Self {
        ReplicationError::Publish(e)
    }
}

impl From<StoreError> for ReplicationError {
    fn from(e: StoreError) -> Self {
        ReplicationError::Store(e)
    }
}

//! [`ReplicationConfig`]: where the stream goes and how often each side speaks.

use std::time::Duration;

use peregrine_aeron::Channel;

/// The two Aeron streams of one active ⇄ standby pair and the intervals of
/// their protocol. Both sides are given the same.
///
/// Over UDP the data channel names the standby's address (its subscription
/// binds it) and the status channel the active's; on one host both may be
/// [`Channel::ipc`].
#[derive(Clone, Debug)]
pub struct ReplicationConfig {
    /// Active → standby: the journal's changes.
    pub data: Channel,
    /// The data stream's id.
    pub data_stream: i32,
    /// Standby → active: its position and its requests.
    pub status: Channel,
    /// The status stream's id.
    pub status_stream: i32,
    /// The active says where it is this often when it has nothing to send.
    pub heartbeat_interval: Duration,
    /// The standby says where it is this often (and after every poll that
    /// applied a transaction).
    pub status_interval: Duration,
    /// A standby not being streamed to asks again this often.
    pub request_interval: Duration,
    /// How long the active retries a frame refused by back pressure before it
    /// abandons the transaction in flight (sent again from its start later).
    pub offer_timeout: Duration,
    /// Frames read from a subscription per poll.
    pub fragment_limit: usize,
}

impl ReplicationConfig {
    /// Both streams on `data` and `status` with the default ids (26001,
    /// 26002) and intervals: heartbeat and status 100 ms, request 250 ms,
    /// offer timeout 1 s, 64 frames per poll.
    pub fn new(data: Channel, status: Channel) -> Self {
        ReplicationConfig {
            data,
            data_stream: 26001,
            status,
            status_stream: 26002,
            heartbeat_interval: Duration::from_millis(100),
            status_interval: Duration::from_millis(100),
            request_interval: Duration::from_millis(250),
            offer_timeout: Duration::from_secs(1),
            fragment_limit: 64,
        }
    }

    /// Both streams over IPC (one host).
    pub fn ipc() -> Self {
        ReplicationConfig::new(Channel::ipc(), Channel::ipc())
    }
}

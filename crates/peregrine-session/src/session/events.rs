//! What the session says about itself: its state, why it asks for the
//! connection to be closed, and the events the engine polls.

// For the documentation's links only.
#[cfg(doc)]
use crate::Session;

/// Where the session is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionState {
    /// No transport connection.
    Disconnected,
    /// Acceptor: connected, waiting for the peer's Logon.
    AwaitingLogon,
    /// Initiator: our Logon is sent, waiting for the answer.
    LogonSent,
    /// Both Logons exchanged.
    LoggedOn,
    /// Our Logout is sent, waiting for the peer's (or the LogoutTimeout).
    LogoutSent,
    /// The session asked the engine to close the connection
    /// ([`SessionEvent::Disconnect`]); waiting for [`Session::on_disconnected`].
    Closing,
}

/// Why the session asks for the connection to be closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The Logout handshake completed (ours or theirs).
    Logout,
    /// Our Logout was not answered within LogoutTimeout.
    LogoutTimeout,
    /// No Logon within LogonTimeout.
    LogonTimeout,
    /// Nothing received for 2.4 heartbeat intervals (TestRequest unanswered).
    HeartbeatTimeout,
    /// The first message was not a valid Logon (wrong CompIDs, BeginString, SendingTime,
    /// garbled, invalid, or not a Logon at all).
    InvalidLogon,
    /// A message arrived that the session state does not allow (e.g. a second Logon).
    InvalidState,
    /// MsgSeqNum lower than expected without PossDupFlag (a Logout was sent).
    SeqNumTooLow,
    /// The application refused the Logon (a Logout was sent).
    LogonRejected,
    /// NextExpectedMsgSeqNum(789) higher than our next MsgSeqNum (a Logout was sent).
    NextExpectedTooHigh,
    /// Outside the session schedule.
    OutsideSchedule,
    /// [`Session::logout`] was called while not logged on.
    Requested,
    /// More than `max_logon_size` bytes arrived before the session was logged on.
    LogonTooLarge,
    /// The messages held while a gap is filled reached `max_inbound_queue_bytes`
    /// (a Logout saying so was sent).
    InboundQueueFull,
    /// The outbound buffer reached `max_outbound_bytes` (the peer does not read);
    /// what was not written is in the store, for the resend the peer will ask for.
    OutboundQueueFull,
    /// The store could not commit: nothing that depended on it was sent.
    StoreFailure,
}

impl std::fmt::Display for DisconnectReason {
    /// What an event log says.
    ///
    /// ```
    /// use peregrine_session::DisconnectReason;
    /// assert_eq!(DisconnectReason::LogonTimeout.to_string(), "no Logon within LogonTimeout");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DisconnectReason::Logout => "logged out",
            DisconnectReason::LogoutTimeout => "our Logout was not answered within LogoutTimeout",
            DisconnectReason::LogonTimeout => "no Logon within LogonTimeout",
            DisconnectReason::HeartbeatTimeout => "nothing received for 2.4 heartbeat intervals",
            DisconnectReason::InvalidLogon => "the first message was not a valid Logon",
            DisconnectReason::InvalidState => "a message the session's state does not allow",
            DisconnectReason::SeqNumTooLow => "MsgSeqNum too low",
            DisconnectReason::LogonRejected => "the application refused the Logon",
            DisconnectReason::NextExpectedTooHigh => {
                "NextExpectedMsgSeqNum higher than our next MsgSeqNum"
            }
            DisconnectReason::OutsideSchedule => "outside the session's hours",
            DisconnectReason::Requested => "logout requested while not logged on",
            DisconnectReason::LogonTooLarge => "more than MaxLogonMessageSize before the Logon",
            DisconnectReason::InboundQueueFull => {
                "the messages held for a gap reached MaxInboundQueueBytes"
            }
            DisconnectReason::OutboundQueueFull => {
                "the outbound queue reached MaxOutboundQueueBytes (the peer does not read)"
            }
            DisconnectReason::StoreFailure => "the store could not commit",
        })
    }
}

/// Something the engine or the operator may want to know, polled with
/// [`Session::poll_event`]. Only [`SessionEvent::Disconnect`] requires action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// Both Logons exchanged.
    LoggedOn,
    /// The session was logged on and the connection is gone.
    LoggedOut,
    /// The engine must write what is pending in [`Session::outbound`], close the
    /// connection and call [`Session::on_disconnected`].
    Disconnect(DisconnectReason),
    /// We rejected an inbound message (session Reject or BusinessMessageReject).
    Rejected {
        /// MsgSeqNum of the rejected message (0 when it had none).
        ref_seq: u64,
        /// SessionRejectReason (373) or BusinessRejectReason (380).
        reason: u32,
    },
    /// Bytes were dropped as garbled (no sequence number consumed).
    Garbled,
    /// A sequence gap: we sent a ResendRequest.
    ResendRequested {
        /// BeginSeqNo(7).
        begin: u64,
        /// EndSeqNo(16) as sent (0 or 999999 for "to the end").
        end: u64,
    },
    /// The peer asked for a resend; we answered it.
    ResendAnswered {
        /// BeginSeqNo(7).
        begin: u64,
        /// Last sequence number covered.
        end: u64,
    },
    /// The store failed; the session carries on but persistence is compromised.
    StoreFailed,
    /// The store found acknowledged data damaged or missing when it opened
    /// (see [`peregrine_store::Recovery`]): resend requests for the lost
    /// messages are answered with gap fills.
    StoreDataLost {
        /// How many messages are known to be lost.
        messages: u64,
    },
}

//! Why a message was not sent: the application's veto and the send errors.

use std::fmt;

use peregrine_store::StoreError;

// For the documentation's links only.
#[cfg(doc)]
use super::{Application, Outbox};

/// The application's veto of an outgoing application message, returned by
/// [`Application::to_app`] (QuickFIX/J's `DoNotSend`).
///
/// Every error a send can give, from which call, and what to do: `docs/sending.md`.
///
/// ```
/// use peregrine_session::DoNotSend;
/// let veto: Result<(), DoNotSend> = Err(DoNotSend);
/// assert!(veto.is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DoNotSend;

impl fmt::Display for DoNotSend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the application vetoed the message (DoNotSend)")
    }
}

impl std::error::Error for DoNotSend {}

/// Why a message could not be sent.
///
/// Every error a send can give, from which call, and what to do: `docs/sending.md`.
///
/// ```
/// use peregrine_session::SendError;
/// assert_eq!(SendError::NotLoggedOn.to_string(), "session is not logged on");
/// ```
#[derive(Debug)]
pub enum SendError {
    /// The session is not logged on (application messages wait for the logon).
    NotLoggedOn,
    /// The store refused the message (the message was not sent).
    Store(StoreError),
    /// [`Application::to_app`] vetoed the message: it was not stored nor sent, and
    /// its MsgSeqNum was not used (the next message takes it), as in QuickFIX/J.
    DoNotSend,
    /// More extra header fields than a message may carry
    /// ([`Outbox::MAX_HEADER_FIELDS`]): nothing was stored nor sent, and the
    /// MsgSeqNum was not used.
    TooManyHeaderFields {
        /// How many were given.
        given: usize,
        /// The most a message takes.
        max: usize,
    },
    /// An extra header field that the session writes itself (BeginString,
    /// BodyLength, MsgType, MsgSeqNum, SenderCompID, TargetCompID, SendingTime,
    /// PossDupFlag, OrigSendingTime, LastMsgSeqNumProcessed, CheckSum): a message
    /// whose MsgSeqNum or CompIDs differ from the session's would not be the
    /// message stored. Nothing was stored nor sent.
    SessionHeaderField {
        /// The tag given.
        tag: u32,
    },
    /// A callback's [`Outbox`] holds as many bytes as the outbound buffer may
    /// (`max_outbound_bytes`): its messages are sent when the callback returns,
    /// and this one was not kept.
    CallbackOutboxFull {
        /// The bound, in bytes.
        bound: usize,
    },
    /// [`Outbox::send_to`] named a session its engine does not have (or a
    /// session alone, without an engine, has no others).
    NoSuchSession {
        /// The session as it was named.
        to: String,
    },
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NotLoggedOn => f.write_str("session is not logged on"),
            SendError::Store(e) => write!(f, "store error: {e}"),
            SendError::DoNotSend => f.write_str("vetoed by the application (DoNotSend)"),
            SendError::TooManyHeaderFields { given, max } => write!(
                f,
                "{given} extra header fields given, a message takes at most {max}"
            ),
            SendError::SessionHeaderField { tag } => {
                write!(f, "header field {tag} is written by the session")
            }
            SendError::CallbackOutboxFull { bound } => write!(
                f,
                "the callback's outbox holds {bound} bytes, its bound (max_outbound_bytes)"
            ),
            SendError::NoSuchSession { to } => write!(f, "no session {to} in this engine"),
        }
    }
}

impl std::error::Error for SendError {}

impl From<StoreError> for SendError {
    fn from(e: StoreError) -> Self {
        SendError::Store(e)
    }
}

impl From<DoNotSend> for SendError {
    fn from(_: DoNotSend) -> Self {
        SendError::DoNotSend
    }
}

//! The application side: callbacks, and sending from inside them.

use std::fmt;

use peregrine_codec::{MessageEncoder, MessageView};
use peregrine_dict::ValidationError;
use peregrine_store::StoreError;

use crate::config::SessionId;

/// Refusal of a Logon by [`Application::from_admin`]: the session answers with a Logout
/// carrying `text` and disconnects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RejectLogon {
    /// Text(58) of the Logout.
    pub text: &'static str,
}

/// Why the application did not accept an application message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppReject {
    /// The application does not handle this MsgType: BusinessMessageReject (35=j, 380=3,
    /// 58="Unsupported Message Type") from FIX.4.2 on, session Reject before.
    UnsupportedMessageType,
    /// A BusinessMessageReject with this BusinessRejectReason(380) and Text(58)
    /// (a session Reject with the text before FIX.4.2).
    Business {
        /// BusinessRejectReason(380).
        reason: u32,
        /// Text(58).
        text: &'static str,
        /// BusinessRejectRefID(379)... is not sent; RefTagID is not part of 35=j.
        ref_tag: Option<u32>,
    },
    /// A session-level Reject (35=3) with this reason and tag.
    Session(ValidationError),
}

/// Why a message could not be sent.
#[derive(Debug)]
pub enum SendError {
    /// The session is not logged on (application messages wait for the logon).
    NotLoggedOn,
    /// The store refused the message (the message was not sent).
    Store(StoreError),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NotLoggedOn => f.write_str("session is not logged on"),
            SendError::Store(e) => write!(f, "store error: {e}"),
        }
    }
}

impl std::error::Error for SendError {}

impl From<StoreError> for SendError {
    fn from(e: StoreError) -> Self {
        SendError::Store(e)
    }
}

/// The application: QuickFIX's callbacks, zero-copy. Every method but
/// [`Application::from_app`] has a default.
///
/// ```
/// use peregrine_codec::MessageView;
/// use peregrine_session::{AppReject, Application, Outbox, SessionId};
///
/// struct Printer;
/// impl Application for Printer {
///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         println!("{:?}", msg.msg_type());
///         Ok(())
///     }
/// }
/// ```
// QuickFIX's callback names (`from_admin`, `from_app`) are part of the contract.
#[allow(clippy::wrong_self_convention)]
pub trait Application {
    /// The session was created.
    fn on_create(&mut self, _id: &SessionId) {}
    /// The session is logged on (both Logons exchanged).
    fn on_logon(&mut self, _id: &SessionId) {}
    /// The session was logged on and is not any more.
    fn on_logout(&mut self, _id: &SessionId) {}
    /// Inbound admin message. For a Logon, return `Err` to refuse it (e.g. a bad
    /// Username(553)/Password(554)): the session sends a Logout and disconnects.
    ///
    /// # Errors
    ///
    /// Return [`RejectLogon`] to refuse a Logon; the session answers with a Logout
    /// carrying its text. For any other admin message the session ignores the result.
    fn from_admin(&mut self, _msg: &MessageView<'_>, _id: &SessionId) -> Result<(), RejectLogon> {
        Ok(())
    }
    /// Inbound application message, in sequence and validated. May send through `out`.
    /// `Err` makes the session send the reject the FIX version calls for.
    ///
    /// # Errors
    ///
    /// Return an [`AppReject`] when the application does not accept the message: the
    /// session sends a BusinessMessageReject (35=j) from FIX.4.2 on, or a session Reject
    /// (35=3), as the variant says. The message's sequence number is used either way.
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject>;
}

/// What the session gives an [`Outbox`]: the sending half of the session.
pub(crate) trait Sink {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError>;
}

/// Lets the application send while handling a message.
///
/// ```
/// use peregrine_codec::MessageView;
/// use peregrine_session::{AppReject, Application, Outbox, SessionId};
///
/// /// Acknowledges every order with an ExecutionReport.
/// struct Acker;
/// impl Application for Acker {
///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         if msg.msg_type() != b"D" {
///             return Err(AppReject::UnsupportedMessageType);
///         }
///         let cl_ord_id = msg.get(11).unwrap_or(b"?");
///         out.send(b"8", |m| {
///             m.str(11, cl_ord_id).str(37, b"1").str(39, b"0").str(150, b"0");
///         })
///         .map(|_seq| ())
///         .map_err(|_| AppReject::Business { reason: 0, text: "store failure", ref_tag: None })
///     }
/// }
/// ```
pub struct Outbox<'s> {
    sink: &'s mut dyn Sink,
}

impl fmt::Debug for Outbox<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Outbox")
    }
}

impl<'s> Outbox<'s> {
    pub(crate) fn new(sink: &'s mut dyn Sink) -> Self {
        Outbox { sink }
    }

    /// Builds and sends one message: the session writes the standard header (8, 9, 35,
    /// then 34, 49, 52, 56, … in ascending tag order), the closure writes the body.
    /// Returns the MsgSeqNum used.
    ///
    /// # Errors
    ///
    /// [`SendError::Store`] when the store refuses the message (see
    /// [`MessageStore::store`](peregrine_store::MessageStore::store)) or cannot
    /// advance the next outgoing sequence number.
    pub fn send(
        &mut self,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.send_with_header(msg_type, &[], body)
    }

    /// Like [`Outbox::send`], with extra header fields (e.g. PossResend(97), or
    /// routing fields) merged into the header in ascending tag order. At most 16 extra
    /// fields are sent; any after the sixteenth are left out.
    ///
    /// # Errors
    ///
    /// As [`Outbox::send`].
    pub fn send_with_header(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        let mut body = Some(body);
        self.sink.send_dyn(msg_type, header, &mut |enc| {
            if let Some(f) = body.take() {
                f(enc)
            }
        })
    }
}

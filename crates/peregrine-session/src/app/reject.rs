//! Refusals the application returns: of a Logon, of an application message.

use std::borrow::Cow;
use std::fmt;

use peregrine_dict::ValidationError;
use peregrine_messages::UnsupportedMessageType;

use super::SendError;

// For the documentation's links only.
#[cfg(doc)]
use super::Application;

/// Refusal of a Logon by [`Application::from_admin`]: the session answers with a Logout
/// carrying `text` and disconnects (QuickFIX/J's `RejectLogon`).
///
/// ```
/// use peregrine_session::RejectLogon;
///
/// let fixed = RejectLogon::new("Invalid password");
/// let user = "TW";
/// let built = RejectLogon::new(format!("Unknown user {user}"));
/// assert_eq!(fixed.text, "Invalid password");
/// assert_eq!(built.text, "Unknown user TW");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectLogon {
    /// Text(58) of the Logout: a `&'static str` costs nothing, a `String` is taken as
    /// it is.
    pub text: Cow<'static, str>,
}

impl RejectLogon {
    /// A refusal whose Logout says `text`.
    ///
    /// ```
    /// let r = peregrine_session::RejectLogon::new("Logon outside trading hours");
    /// assert_eq!(r.text, "Logon outside trading hours");
    /// ```
    pub fn new(text: impl Into<Cow<'static, str>>) -> Self {
        RejectLogon { text: text.into() }
    }
}

/// What BusinessRejectRefID(379) of a BusinessMessageReject carries: the value of
/// the business-level ID of the rejected message (its ClOrdID, QuoteReqID, …).
///
/// ```
/// use peregrine_session::RefId;
///
/// // Copied by the session from the rejected message as it writes the reject:
/// let from_the_message = RefId::Field(11); // ClOrdID
/// // Or a value of the application's own:
/// let given = RefId::Value("ORD-7".into());
/// assert_ne!(from_the_message, given);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefId {
    /// The value of this tag in the rejected message (no copy; 379 is left out when
    /// the message does not carry the tag).
    Field(u32),
    /// This value.
    Value(Cow<'static, str>),
}

/// Why the application did not accept an application message
/// ([`Application::from_app`]'s error).
///
/// Every error a send can give, from which call, and what to do: `docs/sending.md`.
///
/// ```
/// use peregrine_session::{AppReject, RefId};
///
/// let symbol = "XYZ";
/// let reject = AppReject::Business {
///     reason: 2, // UnknownSecurity
///     text: format!("Unknown symbol {symbol}").into(),
///     ref_id: Some(RefId::Field(11)),
/// };
/// assert!(matches!(reject, AppReject::Business { reason: 2, .. }));
/// assert_eq!(AppReject::business(0, "Not now").to_string(), "business reject 0: Not now");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppReject {
    /// The application does not handle this MsgType: BusinessMessageReject (35=j, 380=3,
    /// 58="Unsupported Message Type") from FIX.4.2 on, session Reject before.
    UnsupportedMessageType,
    /// A BusinessMessageReject (35=j) with this BusinessRejectReason(380), Text(58) and,
    /// when given, BusinessRejectRefID(379); before FIX.4.2 (no 35=j) a session Reject
    /// (35=3) with the text.
    Business {
        /// BusinessRejectReason(380): 0 Other, 1 UnknownID, 2 UnknownSecurity,
        /// 3 UnsupportedMessageType, 4 ApplicationNotAvailable,
        /// 5 ConditionallyRequiredFieldMissing, 6 NotAuthorized, …
        reason: u32,
        /// Text(58): a `&'static str` costs nothing, a `String` (e.g. from `format!`)
        /// is taken as it is.
        text: Cow<'static, str>,
        /// BusinessRejectRefID(379), written when given (and, for
        /// [`RefId::Field`], when the message carries the field).
        ref_id: Option<RefId>,
    },
    /// A session-level Reject (35=3) with this reason and tag.
    Session(ValidationError),
}

impl AppReject {
    /// A [`AppReject::Business`] with no BusinessRejectRefID(379).
    ///
    /// ```
    /// use peregrine_session::AppReject;
    /// let r = AppReject::business(4, "Application not available");
    /// assert!(matches!(r, AppReject::Business { reason: 4, ref_id: None, .. }));
    /// ```
    pub fn business(reason: u32, text: impl Into<Cow<'static, str>>) -> Self {
        AppReject::Business {
            reason,
            text: text.into(),
            ref_id: None,
        }
    }
}

/// A reply the application could not send (the store refused it, or
/// `to_app` vetoed it) while handling a message: the message is rejected with a
/// BusinessMessageReject, BusinessRejectReason(380)=0 (Other) and the error as
/// Text(58), so `?` works on a send inside [`Application::from_app`].
///
/// ```
/// use peregrine_session::{AppReject, SendError};
/// let reject = AppReject::from(SendError::NotLoggedOn);
/// assert!(matches!(reject, AppReject::Business { reason: 0, .. }));
/// ```
impl From<SendError> for AppReject {
    fn from(e: SendError) -> Self {
        AppReject::business(0, e.to_string())
    }
}

/// A field the application required and did not find, or found unreadable, as
/// `peregrine_messages::FieldResult::required` and `optional` report it: the message is
/// answered with a session Reject (35=3) with that SessionRejectReason(373) and
/// RefTagID(371) ([`AppReject::Session`]), so `?` on a typed getter works inside
/// [`Application::from_app`].
///
/// ```
/// use peregrine_dict::{SessionRejectReason, ValidationError};
/// use peregrine_session::AppReject;
/// let missing = ValidationError::new(SessionRejectReason::RequiredTagMissing, Some(11));
/// assert_eq!(AppReject::from(missing), AppReject::Session(missing));
/// ```
impl From<ValidationError> for AppReject {
    fn from(e: ValidationError) -> Self {
        AppReject::Session(e)
    }
}

/// What a generated `MessageHandler` method returns for a message it does not handle:
/// [`AppReject::UnsupportedMessageType`] (a BusinessMessageReject with
/// BusinessRejectReason(380)=3), so that `fix44::crack(self, msg, out)` can be all of
/// [`Application::from_app`].
///
/// ```
/// use peregrine_messages::UnsupportedMessageType;
/// use peregrine_session::AppReject;
/// assert_eq!(AppReject::from(UnsupportedMessageType), AppReject::UnsupportedMessageType);
/// ```
impl From<UnsupportedMessageType> for AppReject {
    fn from(_: UnsupportedMessageType) -> Self {
        AppReject::UnsupportedMessageType
    }
}

impl fmt::Display for AppReject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppReject::UnsupportedMessageType => f.write_str("unsupported message type"),
            AppReject::Business { reason, text, .. } => {
                write!(f, "business reject {reason}: {text}")
            }
            AppReject::Session(e) => write!(f, "session reject: {e:?}"),
        }
    }
}

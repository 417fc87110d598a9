//! The messages the session is about to send, as the application sees them.

use std::fmt;

use peregrine_codec::{DecodeError, MessageView};

use crate::on_demand::OnDemandDecoder;

use super::fields::{field_setters, AddedFields};

// For the documentation's links only.
#[cfg(doc)]
use super::Application;

/// An admin message the session is about to send, as [`Application::to_admin`] sees
/// it: its MsgType and MsgSeqNum, and a place to add fields (QuickFIX/J's `toAdmin`
/// with the message still to be written).
///
/// Header fields (SenderSubID(50), TargetSubID(57), SenderLocationID(142),
/// OnBehalfOfCompID(115), …) go into the header, in ascending tag order; the fields
/// the session writes in every header (8, 9, 35, 34, 49, 52, 56, 43, 122, 369) are its
/// own and are not replaced (nor is CheckSum(10)). Any other field is written after
/// the session's body fields, in the order added. The session's own body fields are
/// not replaced either: a tag it writes (HeartBtInt(108) in a Logon, Text(58) in a
/// Logout, …) added here would be sent twice — those come from
/// [`SessionConfig`](crate::SessionConfig) (e.g. `username`/`password` for 553/554
/// when they are fixed).
///
/// Values are copied into a buffer the session keeps between messages, so adding
/// fields allocates nothing once it has grown to what the application adds.
///
/// ```
/// use peregrine_codec::{msg_type, tag, MessageView};
/// use peregrine_session::{AdminMessage, AppReject, Application, Outbox, SessionId};
///
/// struct Venue { token: Vec<u8> }
/// impl Application for Venue {
///     fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
///         msg.str(tag::TARGET_SUB_ID, b"GATEWAY"); // in the header of every admin message
///         if msg.msg_type() == msg_type::LOGON {
///             msg.data(tag::RAW_DATA_LENGTH, tag::RAW_DATA, &self.token)
///                 .bool(8013, true)
///                 .uint(tag::DEFAULT_APPL_VER_ID, 9);
///         }
///     }
///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
///         Ok(())
///     }
/// }
/// ```
pub struct AdminMessage<'a> {
    msg_type: &'a [u8],
    seq: u64,
    fields: &'a mut AddedFields,
}

impl fmt::Debug for AdminMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminMessage")
            .field("msg_type", &String::from_utf8_lossy(self.msg_type))
            .field("seq", &self.seq)
            .field("added", &self.fields.len())
            .finish()
    }
}

impl<'a> AdminMessage<'a> {
    pub(super) fn new(msg_type: &'a [u8], seq: u64, fields: &'a mut AddedFields) -> Self {
        AdminMessage {
            msg_type,
            seq,
            fields,
        }
    }

    /// MsgType(35), one of the administrative
    /// [`msg_type`](peregrine_codec::msg_type)s: `LOGON` (A), `HEARTBEAT` (0),
    /// `TEST_REQUEST` (1), `RESEND_REQUEST` (2), `REJECT` (3), `SEQUENCE_RESET` (4),
    /// `LOGOUT` (5).
    ///
    /// ```
    /// # use peregrine_session::AdminMessage;
    /// use peregrine_codec::msg_type;
    /// fn is_logon(msg: &AdminMessage<'_>) -> bool {
    ///     msg.msg_type() == msg_type::LOGON
    /// }
    /// ```
    pub fn msg_type(&self) -> &[u8] {
        self.msg_type
    }

    /// MsgSeqNum(34) the message will carry.
    ///
    /// ```
    /// # use peregrine_session::AdminMessage;
    /// fn first_of_the_day(msg: &AdminMessage<'_>) -> bool {
    ///     msg.seq_num() == 1
    /// }
    /// ```
    pub fn seq_num(&self) -> u64 {
        self.seq
    }

    field_setters!(AdminMessage);
}

/// An application message the session is about to send, as [`Application::to_app`]
/// sees it: encoded as it will go on the wire (header, PossDupFlag and
/// OrigSendingTime of a resend included), decoded only when asked
/// ([`view`](Self::view)), so an application that does not look costs nothing.
///
/// Fields set with [`str`](Self::str), [`uint`](Self::uint), … amend it: each
/// replaces its tag's value wherever the message has it (so not a tag of a repeating
/// group: build those where the message is built), or is added (header fields such as
/// OnBehalfOfCompID(115) or DeliverToCompID(128) at the end of the header, others at
/// the end of the body; a tag set twice keeps its last value). The fields the session
/// writes in every header (8, 9, 35, 34, 49, 52, 56, 43, 122, 369) and CheckSum(10)
/// are its own and are not changed. [`as_bytes`](Self::as_bytes) and
/// [`view`](Self::view) show the message before the amendment.
///
/// ```
/// use peregrine_codec::{msg_type, MessageView};
/// use peregrine_session::{AppReject, Application, DoNotSend, OutgoingMessage, Outbox, SessionId};
///
/// struct Audit { sent: Vec<(u64, Vec<u8>)> }
/// impl Application for Audit {
///     fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
///         if msg.msg_type() == msg_type::NEW_ORDER_SINGLE && !msg.is_resend() {
///             let cl_ord_id = msg.view().ok().and_then(|v| v.get(11)).unwrap_or(b"").to_vec();
///             self.sent.push((msg.seq_num(), cl_ord_id));
///         }
///         Ok(())
///     }
///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
///         Ok(())
///     }
/// }
/// ```
pub struct OutgoingMessage<'a> {
    raw: &'a [u8],
    msg_type: &'a [u8],
    seq: u64,
    resend: bool,
    decoder: &'a mut OnDemandDecoder,
    fields: &'a mut AddedFields,
}

impl fmt::Debug for OutgoingMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutgoingMessage")
            .field("msg_type", &String::from_utf8_lossy(self.msg_type))
            .field("seq", &self.seq)
            .field("resend", &self.resend)
            .field("added", &self.fields.len())
            .finish()
    }
}

impl<'a> OutgoingMessage<'a> {
    pub(crate) fn new(
        raw: &'a [u8],
        msg_type: &'a [u8],
        seq: u64,
        resend: bool,
        decoder: &'a mut OnDemandDecoder,
        fields: &'a mut AddedFields,
    ) -> Self {
        fields.clear();
        OutgoingMessage {
            raw,
            msg_type,
            seq,
            resend,
            decoder,
            fields,
        }
    }

    /// MsgType(35).
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// use peregrine_codec::msg_type;
    /// fn is_order(msg: &OutgoingMessage<'_>) -> bool {
    ///     msg.msg_type() == msg_type::NEW_ORDER_SINGLE
    /// }
    /// ```
    pub fn msg_type(&self) -> &[u8] {
        self.msg_type
    }

    /// MsgSeqNum(34).
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn number(msg: &OutgoingMessage<'_>) -> u64 {
    ///     msg.seq_num()
    /// }
    /// ```
    pub fn seq_num(&self) -> u64 {
        self.seq
    }

    /// A resend (PossDupFlag(43)=Y) in answer to the peer's ResendRequest: vetoed,
    /// it is replaced by a SequenceReset-GapFill.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn stale(msg: &OutgoingMessage<'_>) -> bool {
    ///     msg.is_resend()
    /// }
    /// ```
    pub fn is_resend(&self) -> bool {
        self.resend
    }

    /// The message's bytes, as they will be written.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn size(msg: &OutgoingMessage<'_>) -> usize {
    ///     msg.as_bytes().len()
    /// }
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.raw
    }

    /// The message decoded (on each call: keep the view rather than call again).
    ///
    /// # Errors
    ///
    /// The decoder's, when the bytes the application wrote into the body do not make
    /// a well-formed message (e.g. a value holding SOH); the message is still sent
    /// unless vetoed.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn symbol_is(msg: &mut OutgoingMessage<'_>, symbol: &[u8]) -> bool {
    ///     msg.view().is_ok_and(|v| v.get(55) == Some(symbol))
    /// }
    /// ```
    pub fn view(&mut self) -> Result<MessageView<'_>, DecodeError> {
        self.decoder.get().decode(self.raw)
    }

    field_setters!(OutgoingMessage);
}

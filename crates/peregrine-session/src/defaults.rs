//! The default of every setting a session has, in one place: what
//! [`SessionConfig::new`](crate::SessionConfig::new) starts from and what the
//! engine's `.cfg` reader takes for a key left out, so that a session made in
//! code and one from an empty `[SESSION]` behave the same (a test in the
//! engine's `tests/defaults.rs` builds both and compares them).
//!
//! Each constant is named after its QuickFIX key. Dictionary validation
//! defaults (`Validate*`, `AllowUnknownMsgFields`, `CheckLatency`,
//! `MaxLatency`) are [`ValidationSettings::DEFAULT`]'s.

use peregrine_dict::ValidationSettings;

/// `HeartBtInt`: 30 seconds (QuickFIX/J's).
pub const HEART_BT_INT: u32 = 30;
/// `LogonTimeout`: 10 seconds (QuickFIX/J's).
pub const LOGON_TIMEOUT: u32 = 10;
/// `LogoutTimeout`: 2 seconds (QuickFIX/J's).
pub const LOGOUT_TIMEOUT: u32 = 2;
/// `ResetOnLogon`: N.
pub const RESET_ON_LOGON: bool = false;
/// `ResetOnLogout`: N.
pub const RESET_ON_LOGOUT: bool = false;
/// `ResetOnDisconnect`: N.
pub const RESET_ON_DISCONNECT: bool = false;
/// `RefreshOnLogon`: N.
pub const REFRESH_ON_LOGON: bool = false;
/// `CheckCompID`: Y.
pub const CHECK_COMP_ID: bool = true;
/// `ResendRequestChunkSize`: 0, unlimited.
pub const RESEND_REQUEST_CHUNK_SIZE: u32 = 0;
/// `EnableLastMsgSeqNumProcessed`: N.
pub const ENABLE_LAST_MSG_SEQ_NUM_PROCESSED: bool = false;
/// `EnableNextExpectedMsgSeqNum`: N.
pub const ENABLE_NEXT_EXPECTED_MSG_SEQ_NUM: bool = false;
/// `PersistMessages`: Y.
pub const PERSIST_MESSAGES: bool = true;
/// `UseDataDictionary`: Y.
pub const USE_DATA_DICTIONARY: bool = true;
/// `MaxMessageSize`: 1 MiB.
pub const MAX_MESSAGE_SIZE: usize = peregrine_codec::frame::DEFAULT_MAX_MESSAGE_SIZE;
/// `MaxLogonMessageSize` (ours): 8 KiB buffered before the session is logged on.
pub const MAX_LOGON_MESSAGE_SIZE: usize = 8 * 1024;
/// `MaxInboundQueueBytes` (ours): 16 MiB held while a sequence gap is filled.
pub const MAX_INBOUND_QUEUE_BYTES: usize = 16 << 20;
/// `MaxOutboundQueueBytes` (ours, the engine's slow-consumer limit): 64 MiB.
/// Not a session setting; here because [`SLOW_CONSUMER_HARD_LIMIT`] is four
/// times it.
pub const MAX_OUTBOUND_QUEUE_BYTES: usize = 64 << 20;
/// `SlowConsumerHardLimit` (ours): 4 × [`MAX_OUTBOUND_QUEUE_BYTES`], 256 MiB,
/// the outbound buffer's ceiling
/// ([`SessionConfig::max_outbound_bytes`](crate::SessionConfig::max_outbound_bytes)).
pub const SLOW_CONSUMER_HARD_LIMIT: usize = 4 * MAX_OUTBOUND_QUEUE_BYTES;
/// `SendRedundantResendRequests` (QuickFIX/J's): N.
pub const SEND_REDUNDANT_RESEND_REQUESTS: bool = false;
/// `ValidateChecksum` (QuickFIX/J's): Y.
pub const VALIDATE_CHECKSUM: bool = true;
/// `RejectGarbledMessage` (QuickFIX/J's): N.
pub const REJECT_GARBLED_MESSAGE: bool = false;
/// `QueueWhileLoggedOut` (ours): Y, QuickFIX/J's behaviour.
pub const QUEUE_WHILE_LOGGED_OUT: bool = true;

/// `ResendRequestTimeout` (ours) for a configured `HeartBtInt`: twice it, at
/// most a day (86,400 s), and 60 s when it is 0 (an acceptor that takes the
/// peer's interval). An acceptor's default does not follow the interval its
/// peer asks for in its Logon.
///
/// ```
/// use peregrine_session::defaults::{resend_request_timeout, HEART_BT_INT};
/// assert_eq!(resend_request_timeout(HEART_BT_INT), 60);
/// assert_eq!(resend_request_timeout(10), 20);
/// assert_eq!(resend_request_timeout(0), 60);
/// ```
pub const fn resend_request_timeout(heart_bt_int: u32) -> u32 {
    if heart_bt_int == 0 {
        60
    } else if heart_bt_int > 43_200 {
        86_400
    } else {
        heart_bt_int * 2
    }
}

/// A default as the settings table of the engine's README writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// `Y` or `N`.
    Flag(bool),
    /// A number (seconds, bytes or a count: [`Key::kind`] says which).
    Number(u64),
    /// A rule, for a default that follows another key.
    Rule(&'static str),
}

impl std::fmt::Display for DefaultValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DefaultValue::Flag(b) => f.write_str(if *b { "Y" } else { "N" }),
            DefaultValue::Number(n) => write!(f, "{n}"),
            DefaultValue::Rule(r) => f.write_str(r),
        }
    }
}

/// One key of the table of [`KEYS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The `.cfg` key.
    pub name: &'static str,
    /// What its value is: `Y/N`, `seconds`, `bytes`, `count`, or a list of words.
    pub kind: &'static str,
    /// Its default: the constant above.
    pub default: DefaultValue,
    /// What it does, in one line.
    pub doc: &'static str,
}

const fn key(
    name: &'static str,
    kind: &'static str,
    default: DefaultValue,
    doc: &'static str,
) -> Key {
    Key {
        name,
        kind,
        default,
        doc,
    }
}

const V: ValidationSettings = ValidationSettings::DEFAULT;

const fn flag(name: &'static str, value: bool, doc: &'static str) -> Key {
    key(name, "Y/N", DefaultValue::Flag(value), doc)
}

/// The keys whose default is one of the constants above (or
/// [`ValidationSettings::DEFAULT`]'s), with that default: what a test checks
/// the engine README's settings table against.
pub const KEYS: [Key; 31] = [
    key(
        "HeartBtInt",
        "seconds",
        DefaultValue::Number(HEART_BT_INT as u64),
        "initiator's heartbeat interval",
    ),
    key(
        "LogonTimeout",
        "seconds",
        DefaultValue::Number(LOGON_TIMEOUT as u64),
        "wait for the Logon answer",
    ),
    key(
        "LogoutTimeout",
        "seconds",
        DefaultValue::Number(LOGOUT_TIMEOUT as u64),
        "wait for the Logout answer",
    ),
    flag(
        "ResetOnLogon",
        RESET_ON_LOGON,
        "sequence numbers to 1 at each Logon",
    ),
    flag(
        "ResetOnLogout",
        RESET_ON_LOGOUT,
        "sequence numbers to 1 at each Logout",
    ),
    flag(
        "ResetOnDisconnect",
        RESET_ON_DISCONNECT,
        "sequence numbers to 1 at each disconnect",
    ),
    flag(
        "RefreshOnLogon",
        REFRESH_ON_LOGON,
        "reload the store at each Logon",
    ),
    flag(
        "CheckCompID",
        CHECK_COMP_ID,
        "refuse messages with other CompIDs",
    ),
    key(
        "ResendRequestChunkSize",
        "count",
        DefaultValue::Number(RESEND_REQUEST_CHUNK_SIZE as u64),
        "messages per ResendRequest, 0 = unlimited",
    ),
    flag(
        "EnableLastMsgSeqNumProcessed",
        ENABLE_LAST_MSG_SEQ_NUM_PROCESSED,
        "LastMsgSeqNumProcessed(369) on every message",
    ),
    flag(
        "EnableNextExpectedMsgSeqNum",
        ENABLE_NEXT_EXPECTED_MSG_SEQ_NUM,
        "NextExpectedMsgSeqNum(789) in Logon",
    ),
    flag(
        "PersistMessages",
        PERSIST_MESSAGES,
        "keep sent messages for resends",
    ),
    flag(
        "UseDataDictionary",
        USE_DATA_DICTIONARY,
        "validate with the dictionaries",
    ),
    key(
        "MaxMessageSize",
        "bytes",
        DefaultValue::Number(MAX_MESSAGE_SIZE as u64),
        "largest inbound message",
    ),
    key(
        "MaxLogonMessageSize",
        "bytes",
        DefaultValue::Number(MAX_LOGON_MESSAGE_SIZE as u64),
        "bytes before the Logon is complete",
    ),
    key(
        "MaxInboundQueueBytes",
        "bytes",
        DefaultValue::Number(MAX_INBOUND_QUEUE_BYTES as u64),
        "messages held while a gap is filled",
    ),
    key(
        "MaxOutboundQueueBytes",
        "bytes",
        DefaultValue::Number(MAX_OUTBOUND_QUEUE_BYTES as u64),
        "slow-consumer limit on unsent bytes",
    ),
    key(
        "SlowConsumerHardLimit",
        "bytes",
        DefaultValue::Rule("4 × `MaxOutboundQueueBytes`"),
        "unsent bytes past which the session is disconnected",
    ),
    key(
        "ResendRequestTimeout",
        "seconds",
        DefaultValue::Rule("2 × the configured HeartBtInt"),
        "a ResendRequest without progress is sent again",
    ),
    flag(
        "SendRedundantResendRequests",
        SEND_REDUNDANT_RESEND_REQUESTS,
        "a ResendRequest for every gap seen",
    ),
    flag(
        "ValidateChecksum",
        VALIDATE_CHECKSUM,
        "refuse a wrong CheckSum(10)",
    ),
    flag(
        "RejectGarbledMessage",
        REJECT_GARBLED_MESSAGE,
        "answer a garbled message with a Reject",
    ),
    flag(
        "QueueWhileLoggedOut",
        QUEUE_WHILE_LOGGED_OUT,
        "store what is sent while logged out, for the resend",
    ),
    flag(
        "ValidateFieldsOutOfOrder",
        V.validate_fields_out_of_order,
        "reject fields out of their place",
    ),
    flag(
        "ValidateFieldsHaveValues",
        V.validate_fields_have_values,
        "reject empty values",
    ),
    flag(
        "ValidateUserDefinedFields",
        V.validate_user_defined_fields,
        "tags from 5000 must be in the dictionary",
    ),
    flag(
        "AllowUnknownMsgFields",
        V.allow_unknown_msg_fields,
        "accept tags below 5000 the message does not define",
    ),
    flag(
        "ValidateUnorderedGroupFields",
        V.validate_unordered_group_fields,
        "group members in dictionary order",
    ),
    flag(
        "CheckLatency",
        V.check_latency,
        "reject a SendingTime too far from ours",
    ),
    key(
        "MaxLatency",
        "seconds",
        DefaultValue::Number(V.max_latency_secs as u64),
        "how far is too far",
    ),
    key(
        "TimeStampPrecision",
        "SECONDS, MILLIS, MICROS, NANOS or PICOS",
        DefaultValue::Rule("MILLIS (SECONDS before FIX.4.2)"),
        "the precision of the timestamps written",
    ),
];

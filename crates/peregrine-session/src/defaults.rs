//! The default of every setting a session has, in one place: what
//! [`SessionConfig::new`](crate::SessionConfig::new) starts from and what the
//! engine's `.cfg` reader takes for a key left out, so that a session made in
//! code and one from an empty `[SESSION]` behave the same (a test in the
//! engine's `tests/it/defaults.rs` builds both and compares them).
//!
//! Each constant is named after its QuickFIX key. Dictionary validation
//! defaults (`Validate*`, `AllowUnknownMsgFields`, `CheckLatency`,
//! `MaxLatency`) are
//! [`ValidationSettings::DEFAULT`](peregrine_dict::ValidationSettings::DEFAULT)'s.
//! What each key does, with its range, is said once, in the engine's key
//! catalog (`peregrine_engine::config::CATALOG`), whose defaults for these
//! keys are these constants.

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

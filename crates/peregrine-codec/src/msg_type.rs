//! MsgType(35) values by their names in the FIX specification: the
//! administrative messages every session handles, and the application
//! messages Peregrine's own examples and benchmarks use.
//!
//! ```
//! use peregrine_codec::msg_type;
//! assert!(msg_type::is_admin(msg_type::LOGON));
//! assert!(!msg_type::is_admin(msg_type::NEW_ORDER_SINGLE));
//! ```

/// Heartbeat (0).
pub const HEARTBEAT: &[u8] = b"0";
/// TestRequest (1).
pub const TEST_REQUEST: &[u8] = b"1";
/// ResendRequest (2).
pub const RESEND_REQUEST: &[u8] = b"2";
/// Reject (3), a session-level reject.
pub const REJECT: &[u8] = b"3";
/// SequenceReset (4), Reset or GapFill.
pub const SEQUENCE_RESET: &[u8] = b"4";
/// Logout (5).
pub const LOGOUT: &[u8] = b"5";
/// Logon (A).
pub const LOGON: &[u8] = b"A";

/// ExecutionReport (8).
pub const EXECUTION_REPORT: &[u8] = b"8";
/// OrderCancelReject (9).
pub const ORDER_CANCEL_REJECT: &[u8] = b"9";
/// NewOrderSingle (D).
pub const NEW_ORDER_SINGLE: &[u8] = b"D";
/// OrderCancelRequest (F).
pub const ORDER_CANCEL_REQUEST: &[u8] = b"F";
/// OrderCancelReplaceRequest (G).
pub const ORDER_CANCEL_REPLACE_REQUEST: &[u8] = b"G";
/// BusinessMessageReject (j), from FIX.4.2.
pub const BUSINESS_MESSAGE_REJECT: &[u8] = b"j";
/// SecurityDefinition (d).
pub const SECURITY_DEFINITION: &[u8] = b"d";
/// MarketDataSnapshotFullRefresh (W).
pub const MARKET_DATA_SNAPSHOT_FULL_REFRESH: &[u8] = b"W";
/// MarketDataIncrementalRefresh (X).
pub const MARKET_DATA_INCREMENTAL_REFRESH: &[u8] = b"X";

/// Whether `msg_type` is an administrative (session-level) message.
pub fn is_admin(msg_type: &[u8]) -> bool {
    matches!(
        msg_type,
        HEARTBEAT | TEST_REQUEST | RESEND_REQUEST | REJECT | SEQUENCE_RESET | LOGOUT | LOGON
    )
}

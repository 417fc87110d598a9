//! The session layer's keys: timers, sequence numbers, resends, validation and
//! sizes. Their defaults are `peregrine_session::defaults`' (and
//! `ValidationSettings::DEFAULT`'s), what a session made in code has too.

use peregrine_dict::ValidationSettings;
use peregrine_session::defaults as d;

use super::{
    flag, key, number, text, with_suffix, DefaultValue, Key, KeySuffix, ValueKind, OURS, QF, QFJ,
};

const V: ValidationSettings = ValidationSettings::DEFAULT;
const fn n(value: usize) -> DefaultValue {
    DefaultValue::Number(value as u64)
}
const MESSAGE: (&str, u64, u64) = ("bytes", 256, peregrine_store::MAX_MESSAGE_LEN as u64);

pub(super) const KEYS: &[Key] = &[
    number(
        "HeartBtInt",
        QF,
        ("seconds", 0, peregrine_session::MAX_HEARTBEAT_SECS as u64),
        n(d::HEART_BT_INT as usize),
        "initiator's heartbeat interval in seconds (an acceptor takes the peer's); {range} (QuickFIX's `int`; a peer's Logon outside it is refused with a Logout saying so); at least 1 for an initiator",
    ),
    number(
        "LogonTimeout",
        QF,
        ("seconds", 1, 3_600),
        n(d::LOGON_TIMEOUT as usize),
        "seconds to wait for the Logon answer; {range}; also bounds an unrouted connection and a TCP connect",
    ),
    number(
        "LogoutTimeout",
        QF,
        ("seconds", 1, 3_600),
        n(d::LOGOUT_TIMEOUT as usize),
        "seconds to wait for the Logout answer; {range}",
    ),
    flag(
        "UseDataDictionary",
        QF,
        d::USE_DATA_DICTIONARY,
        "validate with the dictionaries",
    ),
    text(
        "DataDictionary",
        QF,
        "a path",
        "none",
        "the QuickFIX XML dictionary of a FIX.4.x session; a QuickFIX file name with no such file (`FIX44.xml`, … `FIX50SP2.xml`, `FIXT11.xml`) is the built-in copy, as QuickFIX/J finds them in its jar",
    ),
    text(
        "TransportDataDictionary",
        QF,
        "a path",
        "none",
        "FIXT.1.1: the transport dictionary (`FIXT11.xml`, built in as for `DataDictionary`)",
    ),
    with_suffix(
        text(
            "AppDataDictionary",
            QF,
            "a path",
            "none",
            "FIXT.1.1: the application dictionary (`FIX50SP2.xml`, …, built in as for `DataDictionary`). `AppDataDictionary.<version>` (QuickFIX/J's): the application dictionary of one ApplVerID, the version as QuickFIX/J names it (`AppDataDictionary.FIX.4.4`, `…FIX.5.0SP2`); a message is validated with the one of its ApplVerID(1128), else of the counterparty's Logon's DefaultApplVerID(1137), else of ours, falling back to `AppDataDictionary` (none: Reject 373=18 on 1128). Another version name stops start-up at its line; with these, `AppDataDictionary` may be left out",
        ),
        KeySuffix::Version,
    ),
    text(
        "DefaultApplVerID",
        QF,
        "an ApplVerID or a FIX version",
        "required for FIXT.1.1",
        "an ApplVerID (`0` … `9`, FIX Latest's `10`) or the version it names (`FIX.2.7`, `FIX.3.0`, `FIX.4.0` … `FIX.4.4`, `FIX.5.0`, `FIX.5.0SP1`, `FIX.5.0SP2`, `FIX.Latest`), the forms QuickFIX/J takes; any other value stops start-up (and `check-config`) at its line, in any session. A counterparty's Logon whose DefaultApplVerID(1137) is not an ApplVerID (`0` … `10`, or a value the transport dictionary adds to ApplVerID(1128)) is refused with a Logout saying `Invalid DefaultApplVerID=…` (QuickFIX/J's text) and the connection dropped",
    ),
    flag(
        "ResetOnLogon",
        QF,
        d::RESET_ON_LOGON,
        "sequence numbers to 1 at each Logon",
    ),
    flag(
        "ResetOnLogout",
        QF,
        d::RESET_ON_LOGOUT,
        "sequence numbers to 1 at each Logout",
    ),
    flag(
        "ResetOnDisconnect",
        QF,
        d::RESET_ON_DISCONNECT,
        "sequence numbers to 1 at each disconnect",
    ),
    flag(
        "RefreshOnLogon",
        QF,
        d::REFRESH_ON_LOGON,
        "reload the store at each Logon",
    ),
    flag(
        "PersistMessages",
        QF,
        d::PERSIST_MESSAGES,
        "keep sent messages for resends",
    ),
    number(
        "ResendRequestChunkSize",
        QF,
        ("count", 0, u32::MAX as u64),
        n(d::RESEND_REQUEST_CHUNK_SIZE as usize),
        "messages per ResendRequest, 0 = unlimited; {range}",
    ),
    number(
        "ResendRequestTimeout",
        OURS,
        ("seconds", 0, 86_400),
        DefaultValue::Text("2 × the configured HeartBtInt (60 when it is 0; an acceptor's default does not follow the interval the peer asks for)"),
        "seconds a ResendRequest may go without progress before what is still missing is asked for again; 0 = never; {range}",
    ),
    flag(
        "SendRedundantResendRequests",
        QFJ,
        d::SEND_REDUNDANT_RESEND_REQUESTS,
        "Y: a ResendRequest for every gap seen, even while one is outstanding",
    ),
    flag(
        "ValidateChecksum",
        QFJ,
        d::VALIDATE_CHECKSUM,
        "N: a message whose CheckSum(10) value is wrong is processed (for a counterparty that computes it wrongly); it must still be three digits where BodyLength points, and BodyLength is checked either way",
    ),
    flag(
        "RejectGarbledMessage",
        QFJ,
        d::REJECT_GARBLED_MESSAGE,
        "Y: a garbled message of a logged-on session (a wrong CheckSum, 8/9/35 not the first three fields, no MsgType) is answered with a Reject (Text \"Message failed basic validity check\", RefSeqNum its MsgSeqNum or 0, RefMsgType its MsgType from FIX.4.2 on, no SessionRejectReason) and takes its sequence number when it is the one expected, as QuickFIX/J; N drops it without taking a number, and the gap is asked for when the next message comes. Either way bytes before a BeginString are skipped and a garbled Logon ends the connection. Not with `ValidateChecksum=N` (refused, as QuickFIX/J refuses the pair)",
    ),
    flag(
        "QueueWhileLoggedOut",
        OURS,
        d::QUEUE_WHILE_LOGGED_OUT,
        "an application message sent while the session is not logged on is stored under the next sequence number and reaches the counterparty through the resend it asks for after the next Logon (QuickFIX/J's behaviour); N refuses it with `SendError::NotLoggedOn` (a `Sender`'s message is then counted in `send_failures`)",
    ),
    flag(
        "EnableLastMsgSeqNumProcessed",
        QF,
        d::ENABLE_LAST_MSG_SEQ_NUM_PROCESSED,
        "LastMsgSeqNumProcessed(369) on every message",
    ),
    flag(
        "EnableNextExpectedMsgSeqNum",
        QF,
        d::ENABLE_NEXT_EXPECTED_MSG_SEQ_NUM,
        "NextExpectedMsgSeqNum(789) in Logon",
    ),
    flag(
        "CheckCompID",
        QF,
        d::CHECK_COMP_ID,
        "refuse messages with other CompIDs",
    ),
    flag(
        "CheckLatency",
        QF,
        V.check_latency,
        "reject a SendingTime too far from ours (`MaxLatency`)",
    ),
    number(
        "MaxLatency",
        QF,
        ("seconds", 1, 86_400),
        n(V.max_latency_secs as usize),
        "how far is too far, in seconds; {range}",
    ),
    flag(
        "ValidateFieldsOutOfOrder",
        QF,
        V.validate_fields_out_of_order,
        "reject fields out of their place",
    ),
    flag(
        "ValidateFieldsHaveValues",
        QF,
        V.validate_fields_have_values,
        "reject empty values",
    ),
    flag(
        "ValidateUserDefinedFields",
        QF,
        V.validate_user_defined_fields,
        "tags from 5000 must be in the dictionary",
    ),
    flag(
        "ValidateUnorderedGroupFields",
        QF,
        V.validate_unordered_group_fields,
        "group members in dictionary order",
    ),
    flag(
        "ValidateLengthAndChecksum",
        QF,
        true,
        "the session always checks BodyLength and CheckSum: `N` is an error (it could not be honoured)",
    ),
    flag(
        "AllowUnknownMsgFields",
        QF,
        V.allow_unknown_msg_fields,
        "accept tags below 5000 the message does not define",
    ),
    key(
        "TimeStampPrecision",
        QF,
        ValueKind::Text("SECONDS, MILLIS, MICROS, NANOS or PICOS"),
        DefaultValue::Text("MILLIS (SECONDS before FIX.4.2)"),
        "SECONDS, MILLIS, MICROS, NANOS (QuickFIX/J's), and `PICOS`, Peregrine's extension: twelve fractional digits, the finest FIX Latest allows (the clock reads nanoseconds, so the last three are zeros). The precision of what Peregrine writes (SendingTime, OrigSendingTime); what it reads may have 0 to 12 fractional digits (QuickFIX C++ reads up to 9, QuickFIX/J 3, 6, 9 or 12), and a value is kept as received",
    ),
    number(
        "MaxMessageSize",
        QF,
        MESSAGE,
        n(d::MAX_MESSAGE_SIZE),
        "largest inbound message in bytes; {range} (the store's record limit)",
    ),
    number(
        "MaxLogonMessageSize",
        OURS,
        MESSAGE,
        n(d::MAX_LOGON_MESSAGE_SIZE),
        "bytes a connection may send before its Logon is complete; {range}, at most `MaxMessageSize`",
    ),
    number(
        "MaxInboundQueueBytes",
        OURS,
        ("bytes", 4_096, 1 << 36),
        n(d::MAX_INBOUND_QUEUE_BYTES),
        "bytes of messages held while a sequence gap is filled (each counts its size + 64); past it, a Logout saying so; {range}, at least `MaxMessageSize`",
    ),
];

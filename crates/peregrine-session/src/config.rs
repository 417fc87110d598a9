//! Session identity and settings.

use std::fmt;
use std::sync::Arc;

use peregrine_codec::value::TimePrecision;
use peregrine_dict::{Dictionaries, ValidationSettings};

use crate::defaults;
use crate::schedule::{DailyTime, Schedule};

/// Nanoseconds since the Unix epoch, UTC. Used both for SendingTime and for timers.
pub type Nanos = i64;

/// One second in [`Nanos`].
pub const SECOND: Nanos = 1_000_000_000;

/// A source of the current time, as nanoseconds since the Unix epoch (UTC): what
/// [`SessionClock::Custom`] reads. Any `Fn() -> Nanos + Send + Sync` is one.
///
/// ```
/// use std::sync::Arc;
/// use peregrine_session::{Clock, SessionClock};
/// let fixed = SessionClock::Custom(Arc::new(|| 1_700_000_000_000_000_000i64));
/// # let _ = fixed;
/// ```
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Nanos;
}

impl<F: Fn() -> Nanos + Send + Sync> Clock for F {
    fn now(&self) -> Nanos {
        self()
    }
}

/// The system's realtime clock (`CLOCK_REALTIME`), in [`Nanos`]: what
/// [`SessionClock::System`] reads. A clock before the epoch reads as 0.
pub fn system_now() -> Nanos {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| Nanos::try_from(d.as_nanos()).unwrap_or(Nanos::MAX))
}

/// Where a session reads the time it writes: SendingTime(52) of every message,
/// and OrigSendingTime(122) of the SequenceReset-GapFills it sends. It is read
/// as each message is encoded (about 20 ns for the system clock, no
/// allocation), so SendingTime is when the message was made, not when the
/// driver last read its clock (under load an engine reads it once per turn of
/// its loop, and its `now` may lag by as long as a turn takes).
///
/// Timers, and the checks of what arrives (CheckLatency), go by the `now` the
/// driver passes in.
#[derive(Clone, Default)]
pub enum SessionClock {
    /// The system's realtime clock ([`system_now`]). The default.
    #[default]
    System,
    /// The `now` passed into the last call (never going backwards): what a
    /// deterministic test or a replay wants, the timestamps following the
    /// driver's virtual time.
    Driver,
    /// Another clock (a fake one in a test, or a cached or PTP-disciplined one).
    Custom(Arc<dyn Clock>),
}

impl SessionClock {
    /// The time to write now, `driver_now` being the `now` of the last call.
    #[inline]
    pub fn read(&self, driver_now: Nanos) -> Nanos {
        match self {
            SessionClock::System => system_now(),
            SessionClock::Driver => driver_now,
            SessionClock::Custom(c) => c.now(),
        }
    }
}

impl fmt::Debug for SessionClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SessionClock::System => "System",
            SessionClock::Driver => "Driver",
            SessionClock::Custom(_) => "Custom",
        })
    }
}

/// The largest MsgSeqNum, NewSeqNo, BeginSeqNo or EndSeqNo the session
/// accepts: 2^63 - 1 (a signed 64-bit integer, what other engines can hold).
/// Larger values, zero and negative ones are out of range.
pub const MAX_SEQ_NUM: u64 = i64::MAX as u64;

/// The largest HeartBtInt(108) accepted in a Logon: 2^31 - 1 seconds, as in
/// QuickFIX (an `int`). A Logon outside `0..=MAX_HEARTBEAT_SECS` is refused
/// with a Logout saying so.
pub const MAX_HEARTBEAT_SECS: u32 = i32::MAX as u32;

/// Default bound on what is buffered before logon (8 KiB):
/// [`defaults::MAX_LOGON_MESSAGE_SIZE`].
pub const DEFAULT_MAX_LOGON_SIZE: usize = defaults::MAX_LOGON_MESSAGE_SIZE;

/// Who we are on a session: BeginString and the CompIDs as seen from our side.
///
/// ```
/// use peregrine_session::SessionId;
/// let id = SessionId::new("FIX.4.4", "ISLD", "TW");
/// assert_eq!(id.to_string(), "FIX.4.4:ISLD->TW");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SessionId {
    /// BeginString(8), e.g. `FIX.4.4` or `FIXT.1.1`.
    pub begin_string: String,
    /// Our SenderCompID(49) (the peer's TargetCompID).
    pub sender_comp_id: String,
    /// Our TargetCompID(56) (the peer's SenderCompID).
    pub target_comp_id: String,
    /// QuickFIX's SessionQualifier, to tell apart sessions with the same CompIDs.
    pub qualifier: Option<String>,
}

impl SessionId {
    /// A session identifier without qualifier.
    pub fn new(begin_string: &str, sender_comp_id: &str, target_comp_id: &str) -> Self {
        SessionId {
            begin_string: begin_string.to_string(),
            sender_comp_id: sender_comp_id.to_string(),
            target_comp_id: target_comp_id.to_string(),
            qualifier: None,
        }
    }

    /// True for FIX.4.0 and FIX.4.1 (no RefTagID/SessionRejectReason, 999999 as infinity,
    /// whole-second timestamps).
    pub fn is_pre_fix42(&self) -> bool {
        is_pre_fix42(self.begin_string.as_bytes())
    }

    /// True for FIXT.1.1 (application versions in DefaultApplVerID).
    pub fn is_fixt(&self) -> bool {
        self.begin_string.starts_with("FIXT")
    }
}

pub(crate) fn is_pre_fix42(begin_string: &[u8]) -> bool {
    begin_string == b"FIX.4.0" || begin_string == b"FIX.4.1"
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}->{}",
            self.begin_string, self.sender_comp_id, self.target_comp_id
        )?;
        if let Some(q) = &self.qualifier {
            write!(f, ":{q}")?;
        }
        Ok(())
    }
}

/// Which side opens the connection and sends the first Logon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Waits for the peer's Logon and answers it.
    Acceptor,
    /// Sends the Logon when the connection is up.
    Initiator,
}

/// Dictionary validation switches (QuickFIX's `UseDataDictionary` and `Validate*` keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidationOptions {
    /// `UseDataDictionary` (Y): validate inbound messages against the dictionaries.
    pub use_data_dictionary: bool,
    /// The validator's settings (fields out of order, user-defined fields, …).
    pub settings: ValidationSettings,
}

impl Default for ValidationOptions {
    fn default() -> Self {
        ValidationOptions {
            use_data_dictionary: defaults::USE_DATA_DICTIONARY,
            settings: ValidationSettings::DEFAULT,
        }
    }
}

/// Everything a session needs to know; QuickFIX setting names in the field docs.
///
/// ```
/// use peregrine_session::{Role, SessionConfig, SessionId};
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.2", "ISLD", "TW"), Role::Acceptor);
/// assert_eq!(cfg.logon_timeout_secs, 10);
/// assert_eq!(cfg.timestamp_precision, peregrine_codec::value::TimePrecision::Millis);
/// ```
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The session.
    pub id: SessionId,
    /// Acceptor or initiator.
    pub role: Role,
    /// `HeartBtInt` (initiator); an acceptor takes the peer's.
    pub heartbeat_interval_secs: u32,
    /// `ResetOnLogon`.
    pub reset_on_logon: bool,
    /// `ResetOnLogout`.
    pub reset_on_logout: bool,
    /// `ResetOnDisconnect`.
    pub reset_on_disconnect: bool,
    /// `RefreshOnLogon`: reload the store on logon.
    pub refresh_on_logon: bool,
    /// `LogonTimeout` (10 s).
    pub logon_timeout_secs: u32,
    /// `LogoutTimeout` (2 s).
    pub logout_timeout_secs: u32,
    /// `CheckLatency` (Y).
    pub check_latency: bool,
    /// `MaxLatency` (120 s).
    pub max_latency_secs: u32,
    /// `CheckCompID` (Y).
    pub check_comp_id: bool,
    /// `ResendRequestChunkSize` (0 = unlimited).
    pub resend_request_chunk_size: u32,
    /// `EnableLastMsgSeqNumProcessed`: LastMsgSeqNumProcessed(369) on every outgoing message.
    pub enable_last_msg_seq_num_processed: bool,
    /// `EnableNextExpectedMsgSeqNum`: NextExpectedMsgSeqNum(789) in Logon. A peer's
    /// Logon numbered too high that carries one too gets no ResendRequest: it
    /// resends from the number ours named (ResendRequestTimeout asks if it does not).
    pub enable_next_expected_msg_seq_num: bool,
    /// `DefaultApplVerID` (FIXT.1.1), e.g. `FIX.5.0SP2` or `9`.
    pub default_appl_ver_id: Option<String>,
    /// `PersistMessages` (Y): keep outgoing messages for resends.
    pub persist_messages: bool,
    /// SendingTime precision: milliseconds from FIX.4.2 on, seconds before
    /// (`TimeStampPrecision`: SECONDS, MILLIS, MICROS, NANOS, and PICOS, twelve
    /// digits whose last three are zeros, the clock reading nanoseconds).
    pub timestamp_precision: TimePrecision,
    /// Dictionary validation switches.
    pub validation: ValidationOptions,
    /// Transport (+ application for FIXT) dictionaries; `None` validates structure only.
    pub dictionaries: Option<Arc<Dictionaries>>,
    /// `StartTime`/`EndTime` (`StartDay`/`EndDay` or `Weekdays`, `LogonTime`/`LogoutTime`)
    /// in `TimeZone`; `None` is always on (`NonStopSession`).
    pub schedule: Option<Schedule>,
    /// QuickFIX/Go's `ResetSeqTime`: at this local time each day a logged-on session
    /// resets its sequence numbers without disconnecting. It resets its store and sends
    /// a Logon with ResetSeqNumFlag(141)=Y and MsgSeqNum 1; the counterparty resets
    /// too and answers with its own (the FIX way of an in-session reset), and both
    /// go on from 2. A session not logged on at that time lets it pass (as QuickFIX/Go).
    pub reset_seq_time: Option<DailyTime>,
    /// Largest inbound message accepted (bytes).
    pub max_message_size: usize,
    /// Username(553) an initiator puts in its Logon (`Username`); the acceptor's
    /// [`Application::from_admin`](crate::Application::from_admin) checks it.
    pub username: Option<String>,
    /// Password(554) an initiator puts in its Logon (`Password`).
    pub password: Option<String>,
    /// Largest number of bytes buffered before the session is logged on
    /// (`MaxLogonMessageSize`, 8 KiB): a peer that sends more without
    /// completing a Logon is disconnected.
    pub max_logon_size: usize,
    /// Bound on the messages held while a sequence gap is being filled
    /// (`MaxInboundQueueBytes`, 16 MiB; each message counts its bytes plus
    /// 64). When it is reached the session sends a Logout saying so and
    /// disconnects; the counterparty resends after the next Logon.
    pub max_inbound_queue_bytes: usize,
    /// Hard bound on the outbound buffer (bytes not yet written to the
    /// transport). A message that would exceed it is stored (so a resend can
    /// deliver it) but not queued, and the session asks to be disconnected
    /// ([`DisconnectReason::OutboundQueueFull`](crate::DisconnectReason::OutboundQueueFull)).
    /// The engine sets it from `SlowConsumerHardLimit`; default 256 MiB
    /// ([`defaults::SLOW_CONSUMER_HARD_LIMIT`]), as from a `.cfg`.
    pub max_outbound_bytes: usize,
    /// Seconds a ResendRequest may go without progress (no message filling
    /// the gap) before it is sent again for what is still missing
    /// (`ResendRequestTimeout`; 0: never). Default 60, twice the default
    /// heartbeat interval: a `.cfg` takes twice its `HeartBtInt`
    /// ([`defaults::resend_request_timeout`]), so set both when changing
    /// [`heartbeat_interval_secs`](Self::heartbeat_interval_secs).
    pub resend_request_timeout_secs: u32,
    /// `SendRedundantResendRequests` (QuickFIX/J): a new ResendRequest for
    /// every gap seen, even while one is outstanding. Default N.
    pub send_redundant_resend_requests: bool,
    /// What [`Session::send`](crate::Session::send) does with an application
    /// message while the session is not logged on. `true` (the default, as
    /// QuickFIX/J): the message is stored with the next sequence number and not
    /// written; it reaches the counterparty, PossDupFlag=Y, in the resend its
    /// ResendRequest after the next Logon asks for (unless it could not: see
    /// `send`). `false`: refused with
    /// [`SendError::NotLoggedOn`](crate::SendError::NotLoggedOn), no sequence
    /// number used.
    pub queue_while_logged_out: bool,
    /// `ValidateChecksum` (QuickFIX/J; default `true`): `false` accepts a
    /// message whose CheckSum(10) value is wrong (it must still be a CheckSum
    /// field), for a counterparty that computes it wrongly. BodyLength is
    /// checked either way.
    pub validate_checksum: bool,
    /// `RejectGarbledMessage` (QuickFIX/J; default `false`): `true` answers a
    /// garbled message of a logged-on session (a wrong CheckSum, BeginString,
    /// BodyLength and MsgType not the first three fields, no MsgType) with a
    /// Reject, Text(58) "Message failed basic validity check", RefSeqNum(45)
    /// its MsgSeqNum (0 without one), RefMsgType(372) its MsgType if it has one
    /// (FIX.4.2 on), and takes its sequence number when it is the one
    /// expected, as QuickFIX/J does. `false` drops it without taking a number
    /// (the gap it leaves is asked for when the next message comes). Bytes
    /// before a BeginString are dropped either way, and a garbled message
    /// before the Logon ends the connection either way.
    pub reject_garbled_message: bool,
    /// Where SendingTime(52) comes from: read as each message is encoded.
    /// Default [`SessionClock::System`]; tests driving virtual time use
    /// [`SessionClock::Driver`].
    pub clock: SessionClock,
}

impl SessionConfig {
    /// QuickFIX's defaults for a session: the [`defaults`] a `.cfg` key left
    /// out takes too.
    pub fn new(id: SessionId, role: Role) -> Self {
        let precision = if id.is_pre_fix42() {
            TimePrecision::Seconds
        } else {
            TimePrecision::Millis
        };
        let validation = ValidationSettings::DEFAULT;
        SessionConfig {
            id,
            role,
            heartbeat_interval_secs: defaults::HEART_BT_INT,
            reset_on_logon: defaults::RESET_ON_LOGON,
            reset_on_logout: defaults::RESET_ON_LOGOUT,
            reset_on_disconnect: defaults::RESET_ON_DISCONNECT,
            refresh_on_logon: defaults::REFRESH_ON_LOGON,
            logon_timeout_secs: defaults::LOGON_TIMEOUT,
            logout_timeout_secs: defaults::LOGOUT_TIMEOUT,
            check_latency: validation.check_latency,
            max_latency_secs: validation.max_latency_secs,
            check_comp_id: defaults::CHECK_COMP_ID,
            resend_request_chunk_size: defaults::RESEND_REQUEST_CHUNK_SIZE,
            enable_last_msg_seq_num_processed: defaults::ENABLE_LAST_MSG_SEQ_NUM_PROCESSED,
            enable_next_expected_msg_seq_num: defaults::ENABLE_NEXT_EXPECTED_MSG_SEQ_NUM,
            default_appl_ver_id: None,
            persist_messages: defaults::PERSIST_MESSAGES,
            timestamp_precision: precision,
            validation: ValidationOptions {
                use_data_dictionary: defaults::USE_DATA_DICTIONARY,
                settings: validation,
            },
            dictionaries: None,
            schedule: None,
            reset_seq_time: None,
            max_message_size: defaults::MAX_MESSAGE_SIZE,
            username: None,
            password: None,
            max_logon_size: defaults::MAX_LOGON_MESSAGE_SIZE,
            max_inbound_queue_bytes: defaults::MAX_INBOUND_QUEUE_BYTES,
            max_outbound_bytes: defaults::SLOW_CONSUMER_HARD_LIMIT,
            resend_request_timeout_secs: defaults::resend_request_timeout(defaults::HEART_BT_INT),
            send_redundant_resend_requests: defaults::SEND_REDUNDANT_RESEND_REQUESTS,
            queue_while_logged_out: defaults::QUEUE_WHILE_LOGGED_OUT,
            validate_checksum: defaults::VALIDATE_CHECKSUM,
            reject_garbled_message: defaults::REJECT_GARBLED_MESSAGE,
            clock: SessionClock::System,
        }
    }
}

/// The ApplVerID(1128) values (the codes DefaultApplVerID(1137) takes too) with
/// the version each names, as QuickFIX and QuickFIX/J write it: `0` (FIX.2.7) to
/// `9` (FIX.5.0SP2), the values of QuickFIX's FIXT11 dictionary, and `10`
/// (FIX.Latest), which FIX Latest adds and QuickFIX/J knows.
pub const APPL_VER_IDS: [(&str, &str); 11] = [
    ("0", "FIX.2.7"),
    ("1", "FIX.3.0"),
    ("2", "FIX.4.0"),
    ("3", "FIX.4.1"),
    ("4", "FIX.4.2"),
    ("5", "FIX.4.3"),
    ("6", "FIX.4.4"),
    ("7", "FIX.5.0"),
    ("8", "FIX.5.0SP1"),
    ("9", "FIX.5.0SP2"),
    ("10", "FIX.Latest"),
];

/// The ApplVerID code `v` stands for, if it is one of [`APPL_VER_IDS`]: a code
/// (`9`) or a version name (`FIX.5.0SP2`), the two forms QuickFIX/J's
/// `DefaultApplVerID` setting takes. `None` for anything else.
///
/// ```
/// use peregrine_session::known_appl_ver_id;
/// assert_eq!(known_appl_ver_id("FIX.5.0SP2"), Some("9"));
/// assert_eq!(known_appl_ver_id("7"), Some("7"));
/// assert_eq!(known_appl_ver_id("33"), None);
/// assert_eq!(known_appl_ver_id("FIX.5.1"), None);
/// ```
pub fn known_appl_ver_id(v: &str) -> Option<&'static str> {
    APPL_VER_IDS
        .iter()
        .find(|(code, name)| v == *code || v == *name)
        .map(|(code, _)| *code)
}

/// ApplVerID(1128)/DefaultApplVerID(1137) enum value for a version name
/// (`FIX.5.0SP2` → `9`); values that are already codes, and any other value,
/// pass through (the engine refuses a setting [`known_appl_ver_id`] does not know).
///
/// ```
/// assert_eq!(peregrine_session::appl_ver_id_code("FIX.5.0"), "7");
/// assert_eq!(peregrine_session::appl_ver_id_code("9"), "9");
/// ```
pub fn appl_ver_id_code(v: &str) -> &str {
    known_appl_ver_id(v).unwrap_or(v)
}

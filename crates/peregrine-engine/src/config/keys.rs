//! The keys Peregrine knows, numeric keys' ranges, and the check every key goes through.

use std::path::Path;

use super::{unsupported, ConfigError, ConfigWarning, Effect, Origin, SettingLine};

/// Every key Peregrine understands (QuickFIX's names, and ours).
pub const KNOWN_KEYS: &[&str] = &[
    "BeginString",
    "SenderCompID",
    "TargetCompID",
    "SessionQualifier",
    "ConnectionType",
    "SocketAcceptPort",
    "SocketAcceptAddress",
    "SocketConnectHost",
    "SocketConnectPort",
    "HeartBtInt",
    "ReconnectInterval",
    "UseDataDictionary",
    "DataDictionary",
    "TransportDataDictionary",
    "AppDataDictionary",
    "FileStorePath",
    "FileLogPath",
    "ScreenLogShowEvents",
    "ScreenLogShowIncoming",
    "ScreenLogShowOutgoing",
    "PersistMessages",
    "StartTime",
    "EndTime",
    "StartDay",
    "EndDay",
    "TimeZone",
    "UseLocalTime",
    "Weekdays",
    "LogonTime",
    "LogoutTime",
    "LogonDay",
    "LogoutDay",
    "ResetSeqTime",
    "LogonTimeout",
    "LogoutTimeout",
    "SocketNodelay",
    "SocketSendBufferSize",
    "SocketReceiveBufferSize",
    "SocketUseSSL",
    "SocketCertificateFile",
    "SocketPrivateKeyFile",
    "SocketCAFile",
    "NeedClientAuth",
    "SocketServerName",
    "SocketMinimumTLSVersion",
    "ResetOnLogon",
    "ResetOnLogout",
    "ResetOnDisconnect",
    "RefreshOnLogon",
    "ResendRequestChunkSize",
    "EnableLastMsgSeqNumProcessed",
    "EnableNextExpectedMsgSeqNum",
    "DefaultApplVerID",
    "CheckCompID",
    "CheckLatency",
    "MaxLatency",
    "ValidateFieldsOutOfOrder",
    "ValidateFieldsHaveValues",
    "ValidateUserDefinedFields",
    "ValidateUnorderedGroupFields",
    "ValidateLengthAndChecksum",
    "AllowUnknownMsgFields",
    "MaxMessageSize",
    "AdminHttpPort",
    "AdminHttpAddress",
    "AdminHttpToken",
    "IdleStrategy",
    "MaxOutboundQueueBytes",
    "SlowConsumerHardLimit",
    "SlowConsumerAction",
    "MaxLogonMessageSize",
    "MaxInboundQueueBytes",
    "ResendRequestTimeout",
    "SendRedundantResendRequests",
    "ValidateChecksum",
    "RejectGarbledMessage",
    "QueueWhileLoggedOut",
    "FileStoreDamage",
    "SocketAcceptHost",
    "FileStoreSync",
    "EngineJournal",
    "TimeStampPrecision",
    "Username",
    "Password",
    "AcceptorTemplate",
    "AllowedTargetCompIDs",
    "MaxTemplateSessions",
    "NonStopSession",
    "HaNodeName",
    "HaPeers",
    "HaEtcdEndpoints",
    "HaLeaseTTL",
    "HaGroup",
    "JdbcURL",
    "JdbcDriver",
    "JdbcUser",
    "JdbcPassword",
    "JdbcStoreSessionsTableName",
    "JdbcStoreMessagesTableName",
    "JdbcSessionIdDefaultPropertyValue",
    "SQLStoreDriver",
    "SQLStoreDataSourceName",
];

/// The valid range of every numeric key (inclusive); a value outside it stops
/// start-up naming file, line and key. `SocketConnectPort<n>` takes
/// `SocketConnectPort`'s. Units: seconds for times, bytes for sizes,
/// milliseconds for `FileStoreSync`.
pub const NUMERIC_RANGES: &[(&str, u64, u64)] = &[
    ("SocketAcceptPort", 0, 65_535),
    ("SocketConnectPort", 1, 65_535),
    ("AdminHttpPort", 0, 65_535),
    (
        "HeartBtInt",
        0,
        peregrine_session::MAX_HEARTBEAT_SECS as u64,
    ),
    ("ReconnectInterval", 1, 86_400),
    ("LogonTimeout", 1, 3_600),
    ("LogoutTimeout", 1, 3_600),
    ("MaxLatency", 1, 86_400),
    ("ResendRequestChunkSize", 0, u32::MAX as u64),
    ("ResendRequestTimeout", 0, 86_400),
    (
        "MaxMessageSize",
        256,
        peregrine_store::MAX_MESSAGE_LEN as u64,
    ),
    (
        "MaxLogonMessageSize",
        256,
        peregrine_store::MAX_MESSAGE_LEN as u64,
    ),
    ("MaxInboundQueueBytes", 4_096, 1 << 36),
    ("MaxOutboundQueueBytes", 4_096, 1 << 36),
    ("SlowConsumerHardLimit", 4_096, 1 << 38),
    ("SocketSendBufferSize", 1_024, 1 << 30),
    ("SocketReceiveBufferSize", 1_024, 1 << 30),
    ("FileStoreSync", 1, 3_600_000),
    ("HaLeaseTTL", 1, 3_600),
    ("MaxTemplateSessions", 1, 1_000_000),
];

/// The range of a numeric key (case-insensitive), if it is one.
pub fn range_of(key: &str) -> Option<(u64, u64)> {
    let base = key.trim_end_matches(|c: char| c.is_ascii_digit());
    let base = if base.eq_ignore_ascii_case("SocketConnectPort") {
        base
    } else {
        key
    };
    NUMERIC_RANGES
        .iter()
        .find(|(k, _, _)| k.eq_ignore_ascii_case(base))
        .map(|&(_, min, max)| (min, max))
}

pub(super) fn is_known(key: &str) -> bool {
    if KNOWN_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
        return true;
    }
    // AppDataDictionary.FIX.4.4 (QuickFIX/J's; the version is checked with the session).
    const APP: &str = "AppDataDictionary.";
    if key
        .get(..APP.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(APP))
    {
        return true;
    }
    // SocketConnectHost1, SocketConnectPort2, ...
    for prefix in ["SocketConnectHost", "SocketConnectPort"] {
        if key.len() > prefix.len()
            && key.is_char_boundary(prefix.len())
            && key[..prefix.len()].eq_ignore_ascii_case(prefix)
            && key[prefix.len()..].bytes().all(|b| b.is_ascii_digit())
        {
            return true;
        }
    }
    false
}

/// What every key goes through, from a file or from code: a QuickFIX key
/// Peregrine does not implement is an error or a warning by its
/// [`Effect`] (unless its value says what Peregrine does anyway), and an
/// unknown key is a warning.
pub(super) fn check_key(
    origin: Origin,
    file: &Path,
    e: &SettingLine,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<(), ConfigError> {
    if is_known(&e.key) {
        return Ok(());
    }
    let message = match unsupported(&e.key) {
        None => "unknown key, ignored".to_string(),
        Some(k) if k.is_same_as_peregrine(&e.value) => return Ok(()),
        Some(k) if k.effect == Effect::SecurityOrDelivery => {
            return Err(ConfigError {
                file: file.to_path_buf(),
                line: e.line,
                key: Some(e.key.clone()),
                message: k.message(&e.value),
                origin,
            })
        }
        Some(k) => k.message(&e.value),
    };
    warnings.push(ConfigWarning {
        file: file.to_path_buf(),
        line: e.line,
        key: e.key.clone(),
        message,
        origin,
    });
    Ok(())
}

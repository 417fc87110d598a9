//! The QuickFIX/J and QuickFIX C++ settings keys Peregrine does not implement:
//! [`UNSUPPORTED_KEYS`].

use std::fmt;

/// What ignoring a key would change, which decides between an error and a
/// warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Who may connect, how the connection is protected, or which messages
    /// are delivered, kept, resent or rejected: an error at start-up.
    SecurityOrDelivery,
    /// How logs look or where they go, socket tuning, caches: a warning.
    CosmeticOrPerformance,
}

impl fmt::Display for Effect {
    /// ```
    /// use peregrine_engine::config::Effect;
    /// assert_eq!(Effect::SecurityOrDelivery.to_string(), "security or delivery");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Effect::SecurityOrDelivery => "security or delivery",
            Effect::CosmeticOrPerformance => "cosmetic or performance",
        })
    }
}

/// The engine a key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrigin {
    /// QuickFIX/J only.
    QuickFixJ,
    /// QuickFIX C++ only.
    QuickFixCpp,
    /// Both.
    Both,
}

impl fmt::Display for KeyOrigin {
    /// ```
    /// use peregrine_engine::config::KeyOrigin;
    /// assert_eq!(KeyOrigin::Both.to_string(), "QuickFIX/J and QuickFIX C++");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyOrigin::QuickFixJ => "QuickFIX/J",
            KeyOrigin::QuickFixCpp => "QuickFIX C++",
            KeyOrigin::Both => "QuickFIX/J and QuickFIX C++",
        })
    }
}

/// A QuickFIX key Peregrine does not implement (a row of
/// [`UNSUPPORTED_KEYS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsupportedKey {
    /// The key, as QuickFIX spells it (matched without regard to case).
    pub key: &'static str,
    /// `KEY1`, `KEY2`, … are the same key (QuickFIX's failover and
    /// repeated keys, e.g. `LogonTag1`).
    pub numbered: bool,
    /// Where it comes from.
    pub origin: KeyOrigin,
    /// Error or warning.
    pub effect: Effect,
    /// Values that say what Peregrine does anyway (case-insensitive; numbers
    /// compare by value): the key is accepted with them, without a word.
    pub same_as_peregrine: &'static [&'static str],
    /// What Peregrine does instead, or which of its keys to use.
    pub note: &'static str,
}

impl UnsupportedKey {
    /// Whether `value` says what Peregrine does anyway.
    ///
    /// ```
    /// use peregrine_engine::config::unsupported;
    /// let k = unsupported("HeartBeatTimeoutMultiplier").unwrap();
    /// assert!(k.is_same_as_peregrine("1.40"));
    /// assert!(!k.is_same_as_peregrine("3"));
    /// ```
    pub fn is_same_as_peregrine(&self, value: &str) -> bool {
        self.same_as_peregrine.iter().any(|same| {
            same.eq_ignore_ascii_case(value)
                || matches!(
                    (same.parse::<f64>(), value.parse::<f64>()),
                    (Ok(a), Ok(b)) if a == b
                )
        })
    }

    fn matches(&self, key: &str) -> bool {
        let k = self.key;
        key.eq_ignore_ascii_case(k)
            || (self.numbered
                && key.len() > k.len()
                && key.is_char_boundary(k.len())
                && key[..k.len()].eq_ignore_ascii_case(k)
                && key[k.len()..].bytes().all(|b| b.is_ascii_digit()))
    }

    /// The text of the error or warning about `value` of this key.
    ///
    /// ```
    /// use peregrine_engine::config::unsupported;
    /// let text = unsupported("ResetOnError").unwrap().message("Y");
    /// assert!(text.starts_with("QuickFIX/J key not implemented by Peregrine (security or delivery)"));
    /// assert!(text.contains("remove it, or set it to N"));
    /// ```
    pub fn message(&self, value: &str) -> String {
        let mut text = format!(
            "{} key not implemented by Peregrine ({}): {}",
            self.origin, self.effect, self.note
        );
        match (self.effect, self.same_as_peregrine) {
            (Effect::CosmeticOrPerformance, _) => text.push_str("; ignored"),
            (Effect::SecurityOrDelivery, []) => {
                text.push_str(&format!("; {value:?} cannot be honoured: remove the key"))
            }
            (Effect::SecurityOrDelivery, same) => text.push_str(&format!(
                "; {value:?} cannot be honoured: remove it, or set it to {} (what Peregrine does)",
                same.join(" or ")
            )),
        }
        text
    }
}

/// The row of [`UNSUPPORTED_KEYS`] for `key` (case-insensitive; `LogonTag2`
/// finds `LogonTag`), if Peregrine knows it as a QuickFIX key it does not
/// implement.
///
/// ```
/// use peregrine_engine::config::{unsupported, Effect};
/// assert_eq!(unsupported("LogonTag2").map(|k| k.key), Some("LogonTag"));
/// assert_eq!(unsupported("ScreenLogShowHeartBeats").map(|k| k.effect), Some(Effect::CosmeticOrPerformance));
/// assert!(unsupported("HeartBtInt").is_none()); // implemented
/// ```
pub fn unsupported(key: &str) -> Option<&'static UnsupportedKey> {
    UNSUPPORTED_KEYS.iter().find(|k| k.matches(key))
}

const fn row(
    key: &'static str,
    origin: KeyOrigin,
    effect: Effect,
    same_as_peregrine: &'static [&'static str],
    note: &'static str,
) -> UnsupportedKey {
    UnsupportedKey {
        key,
        numbered: false,
        origin,
        effect,
        same_as_peregrine,
        note,
    }
}

const fn numbered(k: UnsupportedKey) -> UnsupportedKey {
    UnsupportedKey {
        numbered: true,
        ..k
    }
}

use Effect::{CosmeticOrPerformance as COSMETIC, SecurityOrDelivery as SECURITY};
use KeyOrigin::{Both as BOTH, QuickFixCpp as CPP, QuickFixJ as QFJ};

const TLS: &str =
    "TLS is configured with PEM files: SocketUseSSL=Y, SocketCertificateFile, SocketPrivateKeyFile, SocketCAFile, NeedClientAuth, SocketServerName, SocketMinimumTLSVersion (convert a Java key store with keytool -importkeystore to PKCS12, then openssl pkcs12)";
const DB_STORE: &str =
    "messages and sequence numbers are kept in the file store (FileStorePath), in memory, or in PostgreSQL or SQLite in QuickFIX/J's JdbcStore tables (JdbcURL=jdbc:postgresql://host:port/db, JdbcUser, JdbcPassword; or SQLStoreDriver, SQLStoreDataSourceName)";
const DB_LOG: &str = "logs go to FileLogPath and tracing, not to a database";
const SCREEN_LOG: &str = "the screen log (ScreenLogShowEvents, ScreenLogShowIncoming, ScreenLogShowOutgoing) prints every message it is asked for, heartbeats included, with microseconds";
const SUB_IDS: &str = "sessions are told apart by BeginString, CompIDs and SessionQualifier only, and SenderSubID(50), SenderLocationID(142), TargetSubID(57), TargetLocationID(143) are not written in the header: an application that needs them adds them in Application::to_admin and to the messages it sends";
const DB_POOL: &str =
    "database connection tuning; a database store keeps one connection per session";

/// Every QuickFIX/J and QuickFIX C++ settings key Peregrine does not
/// implement, with what ignoring it would change. The table of docs/settings.md lists
/// the same (a test keeps the two in step).
///
/// A settings file written for QuickFIX may carry keys Peregrine has no
/// equivalent for. Ignoring such a key silently is only safe when nothing
/// about security or delivery depends on it, so each key is classified:
///
/// * [`Effect::SecurityOrDelivery`] (TLS, address filters, proxies, the
///   source address, database stores, session rules such as `ResetOnError`
///   or `RequiresOrigSendingTime`): start-up stops with an error naming file,
///   line and key, unless the value says what Peregrine does anyway
///   ([`UnsupportedKey::same_as_peregrine`], e.g. `ResetOnError=N`);
/// * [`Effect::CosmeticOrPerformance`] (log formats and destinations, socket
///   tuning, caches): a [`ConfigWarning`](super::ConfigWarning), printed to
///   stderr when no `tracing` subscriber is installed
///   ([`Settings::report_warnings`](super::Settings::report_warnings)).
///
/// A key in neither [`KNOWN_KEYS`](super::KNOWN_KEYS) nor this table (a typo,
/// or another engine's key) is a warning, `unknown key, ignored`.
///
/// The key names are QuickFIX/J's (`quickfixj-core`: `Session`,
/// `SessionFactory`, `Initiator`, `Acceptor`, `FileStoreFactory`,
/// `FileLogFactory`, `ScreenLogFactory`, `SLF4JLogFactory`, `JdbcSetting`,
/// `SleepycatStoreFactory`, `NetworkingOptions`, `SSLSupport`) and QuickFIX
/// C++'s (`src/C++/SessionSettings.h`); the notes are ours.
///
/// ```
/// use peregrine_engine::config::{unsupported, Effect, Settings};
///
/// let key = unsupported("resetonerror").unwrap();
/// assert_eq!((key.key, key.effect), ("ResetOnError", Effect::SecurityOrDelivery));
/// assert!(key.is_same_as_peregrine("n")); // ResetOnError=N: accepted
///
/// let cfg = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///            SocketKeyStore=venue.jks\n[SESSION]\nBeginString=FIX.4.4\n";
/// let e = Settings::parse(cfg, "venue.cfg".as_ref()).unwrap_err();
/// assert_eq!((e.line, e.key.as_deref()), (5, Some("SocketKeyStore")));
/// assert!(e.to_string().starts_with("venue.cfg:5: SocketKeyStore: "));
/// ```
pub const UNSUPPORTED_KEYS: &[UnsupportedKey] = &[
    // --- TLS (QuickFIX/J's SSLSupport, QuickFIX C++'s SSL acceptor/initiator).
    row("SocketKeyStore", QFJ, SECURITY, &[], TLS),
    row("SocketKeyStorePassword", QFJ, SECURITY, &[], TLS),
    row("KeyStoreType", QFJ, SECURITY, &[], TLS),
    row("KeyManagerFactoryAlgorithm", QFJ, SECURITY, &[], TLS),
    row("SocketTrustStore", QFJ, SECURITY, &[], TLS),
    row("SocketTrustStorePassword", QFJ, SECURITY, &[], TLS),
    row("TrustStoreType", QFJ, SECURITY, &[], TLS),
    row("TrustManagerFactoryAlgorithm", QFJ, SECURITY, &[], TLS),
    row("EnabledProtocols", QFJ, SECURITY, &[], TLS),
    row("CipherSuites", QFJ, SECURITY, &[], TLS),
    row("EndpointIdentificationAlgorithm", QFJ, SECURITY, &[], TLS),
    row("UseSNI", QFJ, SECURITY, &["Y"], TLS),
    row("SNIHostName", QFJ, SECURITY, &[], TLS),
    row("ServerCertificateFile", CPP, SECURITY, &[], TLS),
    row("ServerCertificateKeyFile", CPP, SECURITY, &[], TLS),
    row("ClientCertificateFile", CPP, SECURITY, &[], TLS),
    row("ClientCertificateKeyFile", CPP, SECURITY, &[], TLS),
    row("CertificationAuthoritiesFile", CPP, SECURITY, &[], TLS),
    row("CertificationAuthoritiesDirectory", CPP, SECURITY, &[], TLS),
    row("CertificateRevocationListFile", CPP, SECURITY, &[], TLS),
    row("CertificateRevocationListDirectory", CPP, SECURITY, &[], TLS),
    row("CertificateVerifyLevel", CPP, SECURITY, &[], TLS),
    row("SSLProtocol", CPP, SECURITY, &[], TLS),
    row("SSLCipherSuite", CPP, SECURITY, &[], TLS),
    row("TLSCipherSuites", CPP, SECURITY, &[], TLS),
    // --- Who may connect, and how we connect.
    row(
        "AllowedRemoteAddresses",
        BOTH,
        SECURITY,
        &[],
        "there is no address filter: any address may connect (filter with a firewall); CheckCompID still applies",
    ),
    row("ProxyType", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyVersion", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyHost", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyPort", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyUser", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyPassword", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyDomain", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row("ProxyWorkstation", QFJ, SECURITY, &[], "initiators connect directly, never through a proxy"),
    row(
        "SocketLocalHost",
        QFJ,
        SECURITY,
        &[],
        "an initiator's local address is the one the OS picks (a counterparty that allows only some source addresses would refuse it)",
    ),
    row(
        "SocketLocalPort",
        QFJ,
        SECURITY,
        &[],
        "an initiator's local port is the one the OS picks",
    ),
    numbered(row(
        "SocketConnectSourceHost",
        CPP,
        SECURITY,
        &[],
        "an initiator's local address is the one the OS picks (a counterparty that allows only some source addresses would refuse it)",
    )),
    numbered(row(
        "SocketConnectSourcePort",
        CPP,
        SECURITY,
        &[],
        "an initiator's local port is the one the OS picks",
    )),
    numbered(row(
        "SocketConnectProtocol",
        QFJ,
        SECURITY,
        &["TCP"],
        "connections are TCP (there is no in-process VM_PIPE transport)",
    )),
    row(
        "SocketAcceptProtocol",
        QFJ,
        SECURITY,
        &["TCP"],
        "connections are TCP (there is no in-process VM_PIPE transport)",
    ),
    row(
        "HostSelectionPolicy",
        CPP,
        SECURITY,
        &[],
        "an initiator tries SocketConnectHost, SocketConnectHost1, … in turn; there is no PRIORITY policy that returns to the first host",
    ),
    row(
        "HostSelectionPolicyPriorityStartOverInterval",
        CPP,
        SECURITY,
        &[],
        "an initiator tries its hosts in turn; there is no PRIORITY policy",
    ),
    row(
        "DynamicSession",
        QFJ,
        SECURITY,
        &["N"],
        "every initiator session connects at start-up; add sessions at run time with Command::AddSession",
    ),
    // --- Session identity.
    row("SenderSubID", QFJ, SECURITY, &[], SUB_IDS),
    row("SenderLocationID", QFJ, SECURITY, &[], SUB_IDS),
    row("TargetSubID", QFJ, SECURITY, &[], SUB_IDS),
    row("TargetLocationID", QFJ, SECURITY, &[], SUB_IDS),
    // --- Session rules.
    row(
        "ResetOnError",
        QFJ,
        SECURITY,
        &["N"],
        "an error never resets sequence numbers",
    ),
    row(
        "DisconnectOnError",
        QFJ,
        SECURITY,
        &["N"],
        "an error is answered as the FIX session rules say (Reject, Logout), not with a disconnect",
    ),
    row(
        "ForceResendWhenCorruptedStore",
        QFJ,
        SECURITY,
        &["N"],
        "a damaged file store is refused or reported (FileStoreDamage), never papered over with heartbeats",
    ),
    row(
        "RequiresOrigSendingTime",
        QFJ,
        SECURITY,
        &["Y"],
        "a PossDupFlag=Y message without OrigSendingTime(122) is always rejected",
    ),
    row(
        "ValidateSequenceNumbers",
        QFJ,
        SECURITY,
        &["Y"],
        "sequence numbers are always checked (gaps asked for, too-low numbers refused)",
    ),
    row(
        "ValidateIncomingMessage",
        QFJ,
        SECURITY,
        &["Y"],
        "to skip dictionary validation set UseDataDictionary=N",
    ),
    row(
        "RejectInvalidMessage",
        QFJ,
        SECURITY,
        &["Y"],
        "a message that fails validation is always rejected (the Validate* keys and UseDataDictionary choose what is checked)",
    ),
    row(
        "RejectMessageOnUnhandledException",
        QFJ,
        SECURITY,
        &["N"],
        "the application rejects a message by returning AppReject from from_app; there are no exceptions to catch",
    ),
    row(
        "AllowPosDup",
        QFJ,
        SECURITY,
        &["N"],
        "the session writes PossDupFlag and OrigSendingTime itself, on resends only",
    ),
    row(
        "AllowUnknownEnumValues",
        QFJ,
        SECURITY,
        &["N"],
        "a value outside a field's enumeration is rejected (allow others in the dictionary: allowOtherValues)",
    ),
    row(
        "FirstFieldInGroupIsDelimiter",
        QFJ,
        SECURITY,
        &["N"],
        "repeating groups are delimited as the dictionary defines them",
    ),
    row(
        "DisableHeartBeatCheck",
        QFJ,
        SECURITY,
        &["N"],
        "a silent counterparty is always disconnected (TestRequest at 1.2 × HeartBtInt, disconnect at 2.4 ×)",
    ),
    row(
        "HeartBeatTimeoutMultiplier",
        QFJ,
        SECURITY,
        &["1.4"],
        "a silent counterparty is disconnected after 2.4 × HeartBtInt (QuickFIX/J's default, 1.4)",
    ),
    row(
        "ClosedResendInterval",
        QFJ,
        SECURITY,
        &["N"],
        "a ResendRequest asks to the end (EndSeqNo 0, or 999999 before FIX.4.2) unless ResendRequestChunkSize splits it",
    ),
    numbered(row(
        "LogonTag",
        QFJ,
        SECURITY,
        &[],
        "set Username/Password, or add fields to the Logon in Application::to_admin",
    )),
    row(
        "MaxScheduledWriteRequests",
        QFJ,
        SECURITY,
        &["0"],
        "a slow counterparty is bounded by MaxOutboundQueueBytes and SlowConsumerAction",
    ),
    row(
        "SendNextExpectedMsgSeqNum",
        CPP,
        SECURITY,
        &["N"],
        "Peregrine's key for NextExpectedMsgSeqNum(789) is QuickFIX/J's EnableNextExpectedMsgSeqNum",
    ),
    row(
        "SendResetSeqNumFlag",
        CPP,
        SECURITY,
        &["N"],
        "to send ResetSeqNumFlag(141)=Y on Logon set ResetOnLogon=Y",
    ),
    // --- Stores other than the file journal.
    row("JdbcDataSourceName", QFJ, SECURITY, &[], DB_STORE),
    row("JndiContextFactory", QFJ, SECURITY, &[], DB_STORE),
    row("JndiProviderURL", QFJ, SECURITY, &[], DB_STORE),
    row("SleepycatDatabaseDir", QFJ, SECURITY, &[], DB_STORE),
    row("SleepycatMessageDbName", QFJ, SECURITY, &[], DB_STORE),
    row("SleepycatSequenceDbName", QFJ, SECURITY, &[], DB_STORE),
    row("MySQLStoreDatabase", CPP, SECURITY, &[], DB_STORE),
    row("MySQLStoreUser", CPP, SECURITY, &[], DB_STORE),
    row("MySQLStorePassword", CPP, SECURITY, &[], DB_STORE),
    row("MySQLStoreHost", CPP, SECURITY, &[], DB_STORE),
    row("MySQLStorePort", CPP, SECURITY, &[], DB_STORE),
    row("PostgreSQLStoreDatabase", CPP, SECURITY, &[], DB_STORE),
    row("PostgreSQLStoreUser", CPP, SECURITY, &[], DB_STORE),
    row("PostgreSQLStorePassword", CPP, SECURITY, &[], DB_STORE),
    row("PostgreSQLStoreHost", CPP, SECURITY, &[], DB_STORE),
    row("PostgreSQLStorePort", CPP, SECURITY, &[], DB_STORE),
    row("OdbcStoreUser", CPP, SECURITY, &[], DB_STORE),
    row("OdbcStorePassword", CPP, SECURITY, &[], DB_STORE),
    row("OdbcStoreConnectionString", CPP, SECURITY, &[], DB_STORE),
    // === Cosmetic or performance: warnings.
    // --- Database connection tuning.
    row("JdbcConnectionTimeout", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcConnectionIdleTimeout", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcConnectionKeepaliveTime", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcConnectionTestQuery", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcMaxActiveConnection", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcMaxConnectionLifeTime", QFJ, COSMETIC, &[], DB_POOL),
    row("JdbcMinIdleConnection", QFJ, COSMETIC, &[], DB_POOL),
    row("MySQLStoreUseConnectionPool", CPP, COSMETIC, &[], DB_POOL),
    row("PostgreSQLStoreUseConnectionPool", CPP, COSMETIC, &[], DB_POOL),
    // --- Logs.
    row("FileIncludeMilliseconds", QFJ, COSMETIC, &[], "message log lines carry microseconds"),
    row("FileIncludeTimeStampForMessages", QFJ, COSMETIC, &[], "every message log line carries its time"),
    row("FileLogHeartbeats", QFJ, COSMETIC, &[], "the message log holds every message, heartbeats included"),
    row("FileLogBackupPath", CPP, COSMETIC, &[], "logs are not rotated to a backup directory on reset"),
    row("ScreenLogShowHeartBeats", QFJ, COSMETIC, &[], SCREEN_LOG),
    row("ScreenIncludeMilliseconds", QFJ, COSMETIC, &[], SCREEN_LOG),
    row("SLF4JLogEventCategory", QFJ, COSMETIC, &[], "events go to tracing, target peregrine_engine"),
    row("SLF4JLogErrorEventCategory", QFJ, COSMETIC, &[], "events go to tracing, target peregrine_engine"),
    row("SLF4JLogIncomingMessageCategory", QFJ, COSMETIC, &[], "messages go to FileLogPath"),
    row("SLF4JLogOutgoingMessageCategory", QFJ, COSMETIC, &[], "messages go to FileLogPath"),
    row("SLF4JLogPrependSessionID", QFJ, COSMETIC, &[], "tracing events name their session"),
    row("SLF4JLogHeartbeats", QFJ, COSMETIC, &[], "messages go to FileLogPath"),
    row("JdbcLogIncomingTable", QFJ, COSMETIC, &[], DB_LOG),
    row("JdbcLogOutgoingTable", QFJ, COSMETIC, &[], DB_LOG),
    row("JdbcLogEventTable", QFJ, COSMETIC, &[], DB_LOG),
    row("JdbcLogHeartBeats", QFJ, COSMETIC, &[], DB_LOG),
    row("MySQLLogUseConnectionPool", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogDatabase", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogUser", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogPassword", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogHost", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogPort", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogIncomingTable", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogOutgoingTable", CPP, COSMETIC, &[], DB_LOG),
    row("MySQLLogEventTable", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogUseConnectionPool", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogDatabase", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogUser", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogPassword", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogHost", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogPort", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogIncomingTable", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogOutgoingTable", CPP, COSMETIC, &[], DB_LOG),
    row("PostgreSQLLogEventTable", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogUser", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogPassword", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogConnectionString", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogIncomingTable", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogOutgoingTable", CPP, COSMETIC, &[], DB_LOG),
    row("OdbcLogEventTable", CPP, COSMETIC, &[], DB_LOG),
    row(
        "LogMessageWhenSessionNotFound",
        QFJ,
        COSMETIC,
        &[],
        "a connection whose Logon names no session is closed, and said in a tracing line (rate-limited)",
    ),
    row("Description", QFJ, COSMETIC, &[], "a free-text label; Peregrine shows none"),
    // --- Sockets and performance.
    row(
        "SocketTcpNoDelay",
        QFJ,
        COSMETIC,
        &["Y"],
        "Peregrine's key for TCP_NODELAY is SocketNodelay (default Y)",
    ),
    row(
        "SocketReuseAddress",
        BOTH,
        COSMETIC,
        &["Y"],
        "listeners always set SO_REUSEADDR",
    ),
    row("SocketKeepAlive", QFJ, COSMETIC, &["N"], "SO_KEEPALIVE is not set; heartbeats find a dead peer"),
    row("SocketLinger", QFJ, COSMETIC, &[], "SO_LINGER is the OS default"),
    row("SocketOobInline", QFJ, COSMETIC, &[], "SO_OOBINLINE is not set"),
    row("SocketTrafficClass", QFJ, COSMETIC, &[], "IP_TOS is the OS default"),
    row(
        "SocketSynchronousWrites",
        QFJ,
        COSMETIC,
        &["N"],
        "sends are queued to the engine thread, which writes as the socket allows",
    ),
    row(
        "SocketSynchronousWriteTimeout",
        QFJ,
        COSMETIC,
        &[],
        "sends are queued to the engine thread, which writes as the socket allows",
    ),
    row(
        "SocketConnectTimeout",
        QFJ,
        COSMETIC,
        &[],
        "a TCP connect is bounded by LogonTimeout",
    ),
    row(
        "FileStoreMaxCachedMsgs",
        QFJ,
        COSMETIC,
        &[],
        "the file store keeps an index in memory and reads messages for a resend from the journal",
    ),
    row(
        "TestRequestDelayMultiplier",
        QFJ,
        COSMETIC,
        &["0.2"],
        "a TestRequest goes out after 1.2 × HeartBtInt without input (QuickFIX C++'s rule; 0.2 in QuickFIX/J's terms)",
    ),
    row(
        "MillisecondsInTimeStamp",
        CPP,
        COSMETIC,
        &[],
        "SendingTime's precision is TimeStampPrecision",
    ),
    row(
        "PreserveMessageFieldsOrder",
        CPP,
        COSMETIC,
        &["Y"],
        "the application reads a received message as it came on the wire, in its order",
    ),
    row(
        "HttpAcceptPort",
        CPP,
        COSMETIC,
        &[],
        "Peregrine's operator HTTP interface is AdminHttpPort (off by default)",
    ),
    row(
        "ContinueInitializationOnError",
        QFJ,
        COSMETIC,
        &["N"],
        "a session whose settings are wrong stops start-up",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_not_implemented() {
        for (i, k) in UNSUPPORTED_KEYS.iter().enumerate() {
            assert!(
                !crate::config::catalog::is_known(k.key),
                "{} is implemented: it does not belong in the table",
                k.key
            );
            assert!(
                UNSUPPORTED_KEYS[..i]
                    .iter()
                    .all(|o| !o.key.eq_ignore_ascii_case(k.key)),
                "{} twice",
                k.key
            );
            assert!(!k.note.is_empty());
        }
    }

    #[test]
    fn numbered_keys_match_their_numbers_only() {
        assert!(unsupported("LogonTag").is_some());
        assert!(unsupported("logontag12").is_some());
        assert!(unsupported("LogonTagX").is_none());
        assert!(unsupported("SocketUseSSL1").is_none());
    }
}

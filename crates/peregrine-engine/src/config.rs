//! QuickFIX-style `.cfg` settings.
//!
//! A settings file is a list of sections. `[DEFAULT]` holds values every
//! session inherits; each `[SESSION]` describes one session and may override
//! any default. Lines are `Key=Value`; blank lines and lines starting with `#`
//! or `;` are ignored; keys are matched without regard to case.
//!
//! ```
//! use peregrine_engine::config::{ConnectionType, Settings};
//! let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nHeartBtInt=20\n\
//!             SenderCompID=ISLD\nTargetCompID=TW\n\n[SESSION]\nBeginString=FIX.4.4\n";
//! let settings = Settings::parse(text, "fix44.cfg".as_ref())?;
//! let s = &settings.sessions[0];
//! assert_eq!(s.connection_type, ConnectionType::Acceptor);
//! assert_eq!(s.heart_bt_int, 20);
//! assert_eq!(s.session_name(), "FIX.4.4:ISLD->TW");
//! # Ok::<(), peregrine_engine::config::ConfigError>(())
//! ```
//!
//! # Relative paths
//!
//! QuickFIX resolves relative paths (`DataDictionary`, `FileStorePath`,
//! `FileLogPath`, …) against the process's working directory. Peregrine
//! resolves them against **the directory of the `.cfg` file**, so a settings
//! file and the files it names can move together; when the file named that
//! way does not exist but one relative to the working directory does, that
//! one is used (so cfgs written for QuickFIX keep working).
//!
//! # Errors and warnings
//!
//! A value that cannot be used is an error naming the file, the line and the
//! key: `fix44.cfg:3: HeartBtInt: "abc" is not a number`. A QuickFIX key
//! Peregrine does not implement is an error when ignoring it would change
//! security or delivery, and a [`ConfigWarning`] when it would only change
//! logs or performance (the table: [`UNSUPPORTED_KEYS`]); a key nobody
//! knows is a warning too. Warnings are printed to stderr when no `tracing`
//! subscriber is installed ([`Settings::report_warnings`]).
//!
//! # Settings in code
//!
//! [`Settings::builder`] makes the same settings without a file: every value
//! goes through the same parsing and checks, and an error says `set in code`
//! where a file's would say `file:line`. See [`SettingsBuilder`].

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use peregrine_dict::ValidationSettings;

use peregrine_agent::Idle;

mod schedule;
mod settings_builder;
mod tls;
mod unsupported;

pub use settings_builder::{Section, SettingsBuilder, ToSetting};
pub use tls::{TlsSettings, TlsVersion};
pub use unsupported::{unsupported, Effect, KeyOrigin, UnsupportedKey, UNSUPPORTED_KEYS};

/// Where settings come from, which decides how an error or a warning says
/// where the problem is.
///
/// ```
/// use peregrine_engine::config::{Origin, Settings};
/// let e = Settings::builder()
///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.set("SocketAcceptPort", "x"))
///     .build()
///     .unwrap_err();
/// assert_eq!(e.origin, Origin::Code);
/// assert_eq!(e.to_string(), r#"set in code: SocketAcceptPort: "x" is not a number"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// A `.cfg` file (or text parsed as one): messages name its file and line.
    #[default]
    File,
    /// Built in code ([`Settings::builder`]): there is no file or line, and
    /// messages say `set in code` instead.
    Code,
}

/// An error in settings (a file's, or made in code): where, which key, what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line number (0 when the problem is not on one line).
    pub line: usize,
    /// The key concerned, if any.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// A file (`file` and `line` say where) or code (they are empty and 0).
    pub origin: Origin,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.origin == Origin::Code {
            return match &self.key {
                Some(k) => write!(f, "set in code: {k}: {}", self.message),
                None => write!(f, "set in code: {}", self.message),
            };
        }
        let name = display_name(&self.file);
        match (self.line, &self.key) {
            (0, Some(k)) => write!(f, "{name}: {k}: {}", self.message),
            (0, None) => write!(f, "{name}: {}", self.message),
            (l, Some(k)) => write!(f, "{name}:{l}: {k}: {}", self.message),
            (l, None) => write!(f, "{name}:{l}: {}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A problem that does not stop the settings from being used: an unknown
/// key, or a QuickFIX key Peregrine does not implement whose absence changes
/// only logs or performance ([`Effect::CosmeticOrPerformance`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// The key concerned.
    pub key: String,
    /// What is odd.
    pub message: String,
    /// A file (`file` and `line` say where) or code (they are empty and 0).
    pub origin: Origin,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.origin == Origin::Code {
            return write!(f, "set in code: {}: {}", self.key, self.message);
        }
        write!(
            f,
            "{}:{}: {}: {}",
            display_name(&self.file),
            self.line,
            self.key,
            self.message
        )
    }
}

fn display_name(p: &Path) -> String {
    p.display().to_string()
}

/// One `Key=Value` line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key as written.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// 1-based line number.
    pub line: usize,
}

/// Whether the sessions accept or initiate connections (`ConnectionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionType {
    /// Listen on `SocketAcceptPort`.
    Acceptor,
    /// Connect to `SocketConnectHost`/`SocketConnectPort` (and failovers).
    Initiator,
}

/// What to do when a session's pending outbound bytes exceed
/// `MaxOutboundQueueBytes` (`SlowConsumerAction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowConsumerAction {
    /// Close the connection (the default).
    Disconnect,
    /// Keep the connection, mark the session slow (visible in `/sessions`
    /// and the event log) and keep queueing.
    Flag,
}

/// What the file store does when it finds acknowledged data damaged or missing
/// (`FileStoreDamage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreDamage {
    /// Refuse to start the session, saying what was lost (the default).
    Refuse,
    /// Start, with the loss reported in the log, the session's events and
    /// `/sessions`.
    Report,
}

/// A time of day in the session's `TimeZone` (UTC by default), in seconds since
/// midnight (`StartTime`/`EndTime`, `LogonTime`/`LogoutTime`, `ResetSeqTime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimeOfDay(pub u32);

/// A typed view of one `[SESSION]` with its `[DEFAULT]` values applied.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSettings {
    /// Settings file this came from (empty for settings made in code).
    pub file: PathBuf,
    /// Line of the `[SESSION]` header (0 for settings made in code).
    pub line: usize,
    /// A file or code.
    pub origin: Origin,
    /// Every effective entry: DEFAULT entries overridden by SESSION ones.
    pub entries: Vec<Entry>,
    /// `BeginString`.
    pub begin_string: String,
    /// `SenderCompID`.
    pub sender_comp_id: String,
    /// `TargetCompID`.
    pub target_comp_id: String,
    /// `SessionQualifier`.
    pub session_qualifier: Option<String>,
    /// `ConnectionType` (default acceptor).
    pub connection_type: ConnectionType,
    /// `SocketAcceptPort`.
    pub socket_accept_port: Option<u16>,
    /// `SocketAcceptAddress` (default 0.0.0.0).
    pub socket_accept_address: Option<String>,
    /// `SocketConnectHost`/`SocketConnectPort`, then `SocketConnectHost1`/`Port1`, … in order.
    pub connect_addresses: Vec<(String, u16)>,
    /// `HeartBtInt` in seconds (default 30).
    pub heart_bt_int: u32,
    /// `ReconnectInterval` in seconds (default 30).
    pub reconnect_interval: u32,
    /// `UseDataDictionary` (default Y).
    pub use_data_dictionary: bool,
    /// `DataDictionary`, resolved.
    pub data_dictionary: Option<PathBuf>,
    /// `TransportDataDictionary`, resolved.
    pub transport_data_dictionary: Option<PathBuf>,
    /// `AppDataDictionary`, resolved.
    pub app_data_dictionary: Option<PathBuf>,
    /// `FileStorePath`, resolved.
    pub file_store_path: Option<PathBuf>,
    /// `FileLogPath`, resolved.
    pub file_log_path: Option<PathBuf>,
    /// `PersistMessages` (default Y).
    pub persist_messages: bool,
    /// `StartTime`, in `time_zone`.
    pub start_time: Option<TimeOfDay>,
    /// `EndTime`, in `time_zone`.
    pub end_time: Option<TimeOfDay>,
    /// `StartDay` (0 = Sunday … 6 = Saturday).
    pub start_day: Option<u8>,
    /// `EndDay`: with `StartDay`, the window is weekly (from StartDay StartTime
    /// to EndDay EndTime).
    pub end_day: Option<u8>,
    /// `Weekdays` (QuickFIX/J, QuickFIX/Go): the days a daily window opens on, bit
    /// 0 = Sunday … bit 6 = Saturday; `None`: every day.
    pub weekdays: Option<u8>,
    /// `TimeZone` (an IANA name; `Local` or `UseLocalTime=Y`: the host's), UTC by
    /// default: the zone of every time of day above and below.
    pub time_zone: peregrine_session::TimeZone,
    /// `LogonTime`/`LogoutTime` (QuickFIX C++): a logon window inside the session
    /// window.
    pub logon_time: Option<(TimeOfDay, TimeOfDay)>,
    /// `LogonDay`/`LogoutDay` (QuickFIX C++): the logon window's days, for a weekly
    /// session (default StartDay/EndDay).
    pub logon_days: Option<(u8, u8)>,
    /// `ResetSeqTime` (QuickFIX/Go): a daily sequence reset without a disconnect.
    pub reset_seq_time: Option<TimeOfDay>,
    /// `LogonTimeout` in seconds (default 10).
    pub logon_timeout: u32,
    /// `LogoutTimeout` in seconds (default 2).
    pub logout_timeout: u32,
    /// `SocketNodelay` (default Y).
    pub socket_nodelay: bool,
    /// `SocketSendBufferSize` in bytes (default: the OS's).
    pub socket_send_buffer_size: Option<usize>,
    /// `SocketReceiveBufferSize` in bytes (default: the OS's).
    pub socket_receive_buffer_size: Option<usize>,
    /// `SocketUseSSL=Y` and the keys that go with it: the connection speaks TLS.
    pub tls: Option<TlsSettings>,
    /// `ResetOnLogon`.
    pub reset_on_logon: bool,
    /// `ResetOnLogout`.
    pub reset_on_logout: bool,
    /// `ResetOnDisconnect`.
    pub reset_on_disconnect: bool,
    /// `RefreshOnLogon`.
    pub refresh_on_logon: bool,
    /// `ResendRequestChunkSize` (0 = unlimited).
    pub resend_request_chunk_size: u32,
    /// `EnableLastMsgSeqNumProcessed`.
    pub enable_last_msg_seq_num_processed: bool,
    /// `EnableNextExpectedMsgSeqNum`.
    pub enable_next_expected_msg_seq_num: bool,
    /// `DefaultApplVerID` (FIXT.1.1).
    pub default_appl_ver_id: Option<String>,
    /// `CheckCompID` (default Y).
    pub check_comp_id: bool,
    /// `CheckLatency`, `MaxLatency` and the `Validate*` keys.
    pub validation: ValidationSettings,
    /// `ValidateLengthAndChecksum` (default Y): always Y, since the session
    /// always checks BodyLength and CheckSum (`N` is an error).
    pub validate_length_and_checksum: bool,
    /// `MaxMessageSize` in bytes (default 1 MiB).
    pub max_message_size: usize,
    /// `AdminHttpPort` (ours): the operator's HTTP interface
    /// ([`admin`](crate::admin)) listens on it. `None` (the key absent, or 0):
    /// no admin interface, the default.
    pub admin_http_port: Option<u16>,
    /// `AdminHttpAddress` (ours): the IP address the admin interface listens
    /// on; default 127.0.0.1 (loopback only).
    pub admin_http_address: IpAddr,
    /// `AdminHttpToken` (ours): the bearer token the admin commands that
    /// change the engine need; `None`: they are refused. Printable ASCII
    /// without spaces. Like `Password`, keep it out of logs (this type's
    /// `Debug` shows it).
    pub admin_http_token: Option<String>,
    /// `IdleStrategy` (ours; default block).
    pub idle_strategy: Idle,
    /// `MaxOutboundQueueBytes` (ours; default 64 MiB): slow-consumer limit.
    pub max_outbound_queue_bytes: usize,
    /// `SlowConsumerAction` (ours; `disconnect` or `flag`).
    pub slow_consumer_action: SlowConsumerAction,
    /// `SlowConsumerHardLimit` (ours; default 4 × `MaxOutboundQueueBytes`): the
    /// unsent bytes past which a session is disconnected even with
    /// `SlowConsumerAction=flag`, and which its outbound buffer never exceeds.
    pub slow_consumer_hard_limit: usize,
    /// `MaxLogonMessageSize` (ours; default 8192): what a connection may send
    /// before its Logon is complete.
    pub max_logon_message_size: usize,
    /// `MaxInboundQueueBytes` (ours; default 16 MiB): the messages held while a
    /// sequence gap is filled; past it, a Logout saying so.
    pub max_inbound_queue_bytes: usize,
    /// `ResendRequestTimeout` (ours; seconds, default 2 × `HeartBtInt`, 60 when
    /// that is 0; 0 = never): a gap that makes no progress for this long is
    /// asked for again.
    pub resend_request_timeout: u32,
    /// `SendRedundantResendRequests` (QuickFIX/J; default N).
    pub send_redundant_resend_requests: bool,
    /// `QueueWhileLoggedOut` (ours; default Y, QuickFIX/J's behaviour): an
    /// application message sent while the session is not logged on is stored
    /// and delivered by the resend after the next Logon; N refuses it
    /// (`SendError::NotLoggedOn`).
    pub queue_while_logged_out: bool,
    /// `FileStoreDamage` (ours): `refuse` to start when the file store lost
    /// acknowledged data (default), or `report` it and start.
    pub file_store_damage: StoreDamage,
    /// `FileStoreSync` (ours): `always` (default), `never`, or a number of milliseconds.
    pub file_store_sync: Option<u64>,
    /// `Username` (ours): Username(553) in an initiator's Logon.
    pub username: Option<String>,
    /// `Password` (ours): Password(554) in an initiator's Logon.
    pub password: Option<String>,
    /// `AcceptorTemplate` (QuickFIX/J's): not a session but a template; a
    /// Logon whose CompIDs fit it (`*` in `SenderCompID` or `TargetCompID`
    /// fits any) creates a session with these settings.
    pub acceptor_template: bool,
    /// `AllowedTargetCompIDs` (ours, with `AcceptorTemplate`): the
    /// counterparties (their SenderCompID, our TargetCompID) a template may
    /// create sessions for; empty: any.
    pub allowed_target_comp_ids: Vec<String>,
}

impl SessionSettings {
    /// `BEGIN:SENDER->TARGET`, with `:QUALIFIER` appended when there is one.
    pub fn session_name(&self) -> String {
        let mut s = format!(
            "{}:{}->{}",
            self.begin_string, self.sender_comp_id, self.target_comp_id
        );
        if let Some(q) = &self.session_qualifier {
            s.push(':');
            s.push_str(q);
        }
        s
    }

    /// The line of the effective entry for `key` (case-insensitive), 0 if absent.
    pub fn line_of(&self, key: &str) -> usize {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map_or(0, |e| e.line)
    }

    /// Whether a template (`AcceptorTemplate=Y`) fits a Logon for these
    /// CompIDs (ours first): `*` fits any, and the counterparty must be
    /// allowed.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=VENUE\nTargetCompID=*\n\
    ///             AcceptorTemplate=Y\nAllowedTargetCompIDs=A, B\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let t = &Settings::parse(text, "t.cfg".as_ref())?.sessions[0];
    /// assert!(t.template_fits("FIX.4.4", "VENUE", "A"));
    /// assert!(!t.template_fits("FIX.4.4", "VENUE", "C"));
    /// assert!(!t.template_fits("FIX.4.2", "VENUE", "A"));
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn template_fits(&self, begin_string: &str, sender: &str, target: &str) -> bool {
        let fits = |pattern: &str, id: &str| pattern == "*" || pattern == id;
        self.acceptor_template
            && self.begin_string == begin_string
            && fits(&self.sender_comp_id, sender)
            && fits(&self.target_comp_id, target)
            && (self.allowed_target_comp_ids.is_empty()
                || self.allowed_target_comp_ids.iter().any(|a| a == target))
    }

    /// The settings of the session a template creates for these CompIDs.
    pub fn for_comp_ids(&self, sender: &str, target: &str) -> SessionSettings {
        let mut s = self.clone();
        s.sender_comp_id = sender.into();
        s.target_comp_id = target.into();
        s.acceptor_template = false;
        s.allowed_target_comp_ids.clear();
        s
    }

    /// These settings for another session, named
    /// `BEGINSTRING:SENDER->TARGET[:QUALIFIER]`; `None` if `name` is not such
    /// a name or its BeginString differs.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=VENUE\nTargetCompID=A\n\
    ///             [SESSION]\nBeginString=FIX.4.4\n";
    /// let s = &Settings::parse(text, "v.cfg".as_ref())?.sessions[0];
    /// let b = s.renamed("FIX.4.4:VENUE->B:night").unwrap();
    /// assert_eq!(b.session_name(), "FIX.4.4:VENUE->B:night");
    /// assert!(s.renamed("FIX.4.2:VENUE->B").is_none());
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn renamed(&self, name: &str) -> Option<SessionSettings> {
        let (begin, rest) = name.split_once(':')?;
        let (sender, rest) = rest.split_once("->")?;
        let (target, qualifier) = match rest.split_once(':') {
            Some((t, q)) => (t, Some(q.to_string())),
            None => (rest, None),
        };
        if begin != self.begin_string || sender.is_empty() || target.is_empty() {
            return None;
        }
        let mut s = self.for_comp_ids(sender, target);
        s.session_qualifier = qualifier;
        Some(s)
    }

    /// Where an acceptor session listens: `SocketAcceptAddress` (default
    /// 0.0.0.0, a host name resolved) and `SocketAcceptPort` (default 0, an
    /// ephemeral port). Start-up and [`preflight`](crate::preflight) both
    /// resolve it here.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
    ///             [SESSION]\nBeginString=FIX.4.4\n";
    /// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
    /// assert_eq!(s.accept_address()?.to_string(), "0.0.0.0:5001");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The address does not resolve.
    pub fn accept_address(&self) -> std::io::Result<std::net::SocketAddr> {
        use std::net::ToSocketAddrs;
        let port = self.socket_accept_port.unwrap_or(0);
        let host = self.socket_accept_address.as_deref().unwrap_or("0.0.0.0");
        (host, port)
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other(format!("cannot resolve {host}")))
    }

    /// The raw value of `key`, if set (for keys this type does not model).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map(|e| e.value.as_str())
    }

    /// An error about `key` at its line in this session's file (or `set in
    /// code`).
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
    ///             [SESSION]\nBeginString=FIX.4.4\nDataDictionary=x.xml\n";
    /// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
    /// assert_eq!(s.error("DataDictionary", "cannot read").to_string(),
    ///            "a.cfg:7: DataDictionary: cannot read");
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn error(&self, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            line: self.line_of(key),
            key: Some(key.to_string()),
            message: message.into(),
            origin: self.origin,
        }
    }
}

/// A whole settings file, parsed and typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The file (empty for settings made in code).
    pub file: PathBuf,
    /// A file or code.
    pub origin: Origin,
    /// The `[DEFAULT]` entries.
    pub defaults: Vec<Entry>,
    /// One per `[SESSION]`, in file order.
    pub sessions: Vec<SessionSettings>,
    /// Unknown keys and similar.
    pub warnings: Vec<ConfigWarning>,
}

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
    "QueueWhileLoggedOut",
    "FileStoreDamage",
    "SocketAcceptHost",
    "FileStoreSync",
    "TimeStampPrecision",
    "Username",
    "Password",
    "AcceptorTemplate",
    "AllowedTargetCompIDs",
    "NonStopSession",
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

fn is_known(key: &str) -> bool {
    if KNOWN_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
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
fn check_key(
    origin: Origin,
    file: &Path,
    e: &Entry,
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

#[derive(Debug, PartialEq)]
enum SectionKind {
    Default,
    Session,
}

impl Settings {
    /// Settings made in code, with QuickFIX's defaults for every key left
    /// out (see [`SettingsBuilder`]).
    ///
    /// ```
    /// use peregrine_engine::config::{ConnectionType, Settings};
    /// let settings = Settings::builder()
    ///     .default(|d| d.connection_type(ConnectionType::Acceptor).use_data_dictionary(false))
    ///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.socket_accept_port(9878))
    ///     .build()?;
    /// assert_eq!(settings.sessions[0].heart_bt_int, 30); // QuickFIX's default
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn builder() -> SettingsBuilder {
        SettingsBuilder {
            defaults: Section::default(),
            sessions: Vec::new(),
        }
    }

    /// Reads and parses `path`; the warnings are also reported
    /// ([`report_warnings`](Self::report_warnings)).
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let e = Settings::load("/nonexistent/venue.cfg").unwrap_err();
    /// assert!(e.to_string().starts_with("/nonexistent/venue.cfg: cannot read"));
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Settings, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            key: None,
            message: format!("cannot read: {e}"),
            origin: Origin::File,
        })?;
        let settings = Settings::parse(&text, path)?;
        settings.report_warnings();
        Ok(settings)
    }

    /// Says each warning: through `tracing` when a subscriber is installed,
    /// else on stderr (a typo in a key is seen either way).
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
    ///             ScreenLogShowIncoming=Y\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let settings = Settings::parse(text, "a.cfg".as_ref())?;
    /// assert_eq!(settings.warnings[0].key, "ScreenLogShowIncoming");
    /// settings.report_warnings(); // peregrine: warning: a.cfg:5: ScreenLogShowIncoming: …
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn report_warnings(&self) {
        let subscriber = tracing::dispatcher::has_been_set();
        for w in &self.warnings {
            if subscriber {
                tracing::warn!("{w}");
            } else {
                eprintln!("peregrine: warning: {w}");
            }
        }
    }

    /// Parses settings text; `path` names the file in messages and is the base
    /// for relative paths.
    ///
    /// # Errors
    ///
    /// The text is not a settings file, a value cannot be used, a required
    /// key is missing, or a QuickFIX key Peregrine does not implement would
    /// change security or delivery ([`UNSUPPORTED_KEYS`]): the error names
    /// file, line and key.
    pub fn parse(text: &str, path: &Path) -> Result<Settings, ConfigError> {
        let err = |line: usize, key: Option<&str>, message: String| ConfigError {
            file: path.to_path_buf(),
            line,
            key: key.map(str::to_string),
            message,
            origin: Origin::File,
        };
        let mut defaults: Vec<Entry> = Vec::new();
        let mut raw_sessions: Vec<(usize, Vec<Entry>)> = Vec::new();
        let mut current: Option<SectionKind> = None;
        let mut warnings = Vec::new();
        let mut saw_default = false;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if line.starts_with('[') {
                let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
                    return Err(err(n, None, format!("{line:?} is not a section header")));
                };
                let name = name.trim();
                if name.eq_ignore_ascii_case("DEFAULT") {
                    if saw_default {
                        return Err(err(n, None, "a second [DEFAULT] section".into()));
                    }
                    saw_default = true;
                    current = Some(SectionKind::Default);
                } else if name.eq_ignore_ascii_case("SESSION") {
                    current = Some(SectionKind::Session);
                    raw_sessions.push((n, Vec::new()));
                } else {
                    return Err(err(
                        n,
                        None,
                        format!("unknown section [{name}] (expected [DEFAULT] or [SESSION])"),
                    ));
                }
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(err(n, None, format!("{line:?} is not Key=Value")));
            };
            let key = key.trim();
            let value = value.trim();
            if key.is_empty() {
                return Err(err(n, None, format!("{line:?} has no key")));
            }
            let entries = match current {
                None => {
                    return Err(err(
                        n,
                        Some(key),
                        "setting outside a [DEFAULT] or [SESSION] section".into(),
                    ))
                }
                Some(SectionKind::Default) => &mut defaults,
                Some(SectionKind::Session) => &mut raw_sessions.last_mut().expect("session").1,
            };
            if entries.iter().any(|e| e.key.eq_ignore_ascii_case(key)) {
                return Err(err(n, Some(key), "set twice in the same section".into()));
            }
            let entry = Entry {
                key: key.to_string(),
                value: value.to_string(),
                line: n,
            };
            check_key(Origin::File, path, &entry, &mut warnings)?;
            entries.push(entry);
        }
        if raw_sessions.is_empty() {
            return Err(err(0, None, "no [SESSION] section".into()));
        }
        Settings::assemble(Origin::File, path, defaults, raw_sessions, warnings)
    }

    /// Types every session (its `[DEFAULT]` entries overridden by its own)
    /// and checks that no two sessions are the same: the part of reading
    /// settings that a file and code share.
    fn assemble(
        origin: Origin,
        path: &Path,
        defaults: Vec<Entry>,
        raw_sessions: Vec<(usize, Vec<Entry>)>,
        warnings: Vec<ConfigWarning>,
    ) -> Result<Settings, ConfigError> {
        let mut sessions = Vec::with_capacity(raw_sessions.len());
        for (line, entries) in raw_sessions {
            let mut effective = defaults.clone();
            for e in entries {
                effective.retain(|d| !d.key.eq_ignore_ascii_case(&e.key));
                effective.push(e);
            }
            sessions.push(typed(origin, path, line, effective)?);
        }
        // Two sessions with the same identity cannot both exist (one pass with a map:
        // a venue may configure ten thousand sessions).
        let mut seen: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(sessions.len());
        for (i, a) in sessions.iter().enumerate() {
            let earlier = seen.insert(a.session_name(), i);
            if let Some(b) = earlier.map(|j| &sessions[j]) {
                let message = match origin {
                    Origin::File => format!(
                        "session {} is already defined at line {}",
                        a.session_name(),
                        b.line
                    ),
                    Origin::Code => format!("session {} is made twice", a.session_name()),
                };
                return Err(ConfigError {
                    file: path.to_path_buf(),
                    line: a.line,
                    key: None,
                    message,
                    origin,
                });
            }
        }
        check_engine_wide(origin, path, &sessions)?;
        Ok(Settings {
            file: path.to_path_buf(),
            origin,
            defaults,
            sessions,
            warnings,
        })
    }
}

/// Keys the engine reads once for all its sessions (one reactor thread, one admin
/// interface): a session that sets one differently from the first would be silently
/// ignored, so it is refused, naming where.
const ENGINE_WIDE_KEYS: [&str; 4] = [
    "IdleStrategy",
    "AdminHttpPort",
    "AdminHttpAddress",
    "AdminHttpToken",
];

fn check_engine_wide(
    origin: Origin,
    path: &Path,
    sessions: &[SessionSettings],
) -> Result<(), ConfigError> {
    let Some(first) = sessions.first() else {
        return Ok(());
    };
    for s in &sessions[1..] {
        let differs = [
            s.idle_strategy != first.idle_strategy,
            s.admin_http_port != first.admin_http_port,
            s.admin_http_address != first.admin_http_address,
            s.admin_http_token != first.admin_http_token,
        ];
        let Some(key) = ENGINE_WIDE_KEYS
            .iter()
            .zip(differs)
            .find_map(|(k, d)| d.then_some(*k))
        else {
            continue;
        };
        let line = s
            .entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map_or(s.line, |e| e.line);
        return Err(ConfigError {
            file: path.to_path_buf(),
            line,
            key: Some(key.into()),
            message: format!(
                "session {} sets it differently from session {}: it is one for the whole \
                 engine (set it in [DEFAULT], or run the sessions in two engines)",
                s.session_name(),
                first.session_name()
            ),
            origin,
        });
    }
    Ok(())
}

struct Reader<'a> {
    origin: Origin,
    file: &'a Path,
    section_line: usize,
    entries: &'a [Entry],
}

impl Reader<'_> {
    fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }
    fn err(&self, e: &Entry, message: String) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line: e.line,
            key: Some(e.key.clone()),
            message,
            origin: self.origin,
        }
    }
    fn string(&self, key: &str) -> Option<String> {
        self.entry(key).map(|e| e.value.clone())
    }
    fn required(&self, key: &str) -> Result<String, ConfigError> {
        match self.entry(key) {
            Some(e) if !e.value.is_empty() => Ok(e.value.clone()),
            Some(e) => Err(self.err(e, "must not be empty".into())),
            None => Err(ConfigError {
                file: self.file.to_path_buf(),
                line: self.section_line,
                key: Some(key.to_string()),
                message: "missing (required for every session)".into(),
                origin: self.origin,
            }),
        }
    }
    fn bool(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(default);
        };
        match e.value.as_str() {
            "Y" | "y" => Ok(true),
            "N" | "n" => Ok(false),
            v => Err(self.err(e, format!("{v:?} is not Y or N"))),
        }
    }
    /// A numeric key's value, checked against its range in [`NUMERIC_RANGES`].
    fn number<T: TryFrom<u64>>(&self, key: &str) -> Result<Option<T>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        let (min, max) = range_of(key).expect("every numeric key has a range");
        let v = e.value.as_str();
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.err(e, format!("{v:?} is not a number")));
        }
        match v.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(T::try_from(n).ok()),
            _ => Err(self.err(
                e,
                format!("{v:?} is out of range (it must be {min} to {max})"),
            )),
        }
    }
    fn num_or<T: TryFrom<u64>>(&self, key: &str, default: T) -> Result<T, ConfigError> {
        Ok(self.number(key)?.unwrap_or(default))
    }
    fn port(&self, key: &str) -> Result<Option<u16>, ConfigError> {
        self.number::<u16>(key)
    }
    fn time(&self, key: &str) -> Result<Option<TimeOfDay>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        let bad = || self.err(e, format!("{:?} is not a time HH:MM:SS", e.value));
        let parts: Vec<&str> = e.value.split(':').collect();
        if parts.len() != 3 || parts.iter().any(|p| p.len() != 2) {
            return Err(bad());
        }
        let n: Vec<u32> = parts
            .iter()
            .map(|p| p.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        if n[0] > 23 || n[1] > 59 || n[2] > 59 {
            return Err(bad());
        }
        Ok(Some(TimeOfDay(n[0] * 3600 + n[1] * 60 + n[2])))
    }
    fn day(&self, key: &str) -> Result<Option<u8>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        schedule::day_of(&e.value)
            .map(Some)
            .ok_or_else(|| self.err(e, format!("{:?} is not a day of the week", e.value)))
    }
    fn path(&self, key: &str) -> Result<Option<PathBuf>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        if e.value.is_empty() {
            return Err(self.err(e, "must not be empty".into()));
        }
        Ok(Some(resolve_path(self.file, &e.value)))
    }
}

/// Resolves a path from a settings file: absolute paths stay; a relative one
/// is taken against the settings file's directory, unless nothing exists there
/// and something exists relative to the working directory.
///
/// ```
/// use std::path::Path;
/// use peregrine_engine::config::resolve_path;
/// assert_eq!(resolve_path(Path::new("/etc/fix/a.cfg"), "/x/FIX44.xml"), Path::new("/x/FIX44.xml"));
/// assert_eq!(resolve_path(Path::new("/nonexistent/a.cfg"), "spec/nope.xml"),
///            Path::new("/nonexistent/spec/nope.xml"));
/// ```
pub fn resolve_path(cfg_file: &Path, value: &str) -> PathBuf {
    let p = Path::new(value);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let base = cfg_file.parent().unwrap_or(Path::new(""));
    let beside = base.join(p);
    if beside.exists() || !p.exists() {
        beside
    } else {
        p.to_path_buf()
    }
}

fn typed(
    origin: Origin,
    file: &Path,
    line: usize,
    entries: Vec<Entry>,
) -> Result<SessionSettings, ConfigError> {
    let r = Reader {
        origin,
        file,
        section_line: line,
        entries: &entries,
    };
    let connection_type = match r.entry("ConnectionType") {
        None => ConnectionType::Acceptor,
        Some(e) => match e.value.to_ascii_lowercase().as_str() {
            "acceptor" => ConnectionType::Acceptor,
            "initiator" => ConnectionType::Initiator,
            v => return Err(r.err(e, format!("{v:?} is not acceptor or initiator"))),
        },
    };
    let begin_string = r.required("BeginString")?;
    const BEGIN_STRINGS: [&str; 7] = [
        "FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIXT.1.1", "FIX.5.0",
    ];
    if !BEGIN_STRINGS.contains(&begin_string.as_str()) {
        let e = r.entry("BeginString").expect("present");
        return Err(r.err(
            e,
            format!("{begin_string:?} is not a FIX BeginString (FIX.4.0 … FIX.4.4, FIXT.1.1)"),
        ));
    }
    let sender_comp_id = r.required("SenderCompID")?;
    let target_comp_id = r.required("TargetCompID")?;

    let mut connect_addresses = Vec::new();
    let host_port = |h: &str, p: &str| -> Result<Option<(String, u16)>, ConfigError> {
        match (r.entry(h), r.port(p)?) {
            (Some(host), Some(port)) => Ok(Some((host.value.clone(), port))),
            (None, None) => Ok(None),
            (Some(e), None) => Err(r.err(e, format!("set without {p}"))),
            (None, Some(_)) => Err(r.err(r.entry(p).expect("present"), format!("set without {h}"))),
        }
    };
    if let Some(a) = host_port("SocketConnectHost", "SocketConnectPort")? {
        connect_addresses.push(a);
    }
    for i in 1.. {
        match host_port(
            &format!("SocketConnectHost{i}"),
            &format!("SocketConnectPort{i}"),
        )? {
            Some(a) => connect_addresses.push(a),
            None => break,
        }
    }
    let socket_accept_port = r.port("SocketAcceptPort")?;
    match connection_type {
        ConnectionType::Acceptor if socket_accept_port.is_none() => {
            return Err(ConfigError {
                file: file.to_path_buf(),
                line,
                origin,
                key: Some("SocketAcceptPort".into()),
                message: "missing (required for an acceptor)".into(),
            })
        }
        ConnectionType::Initiator if connect_addresses.is_empty() => {
            return Err(ConfigError {
                file: file.to_path_buf(),
                line,
                origin,
                key: Some("SocketConnectHost".into()),
                message: "missing SocketConnectHost/SocketConnectPort (required for an initiator)"
                    .into(),
            })
        }
        _ => {}
    }

    let idle_strategy = match r.entry("IdleStrategy") {
        None => Idle::default(),
        Some(e) => e
            .value
            .parse::<Idle>()
            .map_err(|m| r.err(e, m.to_string()))?,
    };
    let slow_consumer_action = match r.entry("SlowConsumerAction") {
        None => SlowConsumerAction::Disconnect,
        Some(e) => match e.value.to_ascii_lowercase().as_str() {
            "disconnect" => SlowConsumerAction::Disconnect,
            "flag" => SlowConsumerAction::Flag,
            v => return Err(r.err(e, format!("{v:?} is not disconnect or flag"))),
        },
    };
    // QuickFIX/J's Y/N, or ours: always, never, or an interval in milliseconds.
    let file_store_sync = match r.entry("FileStoreSync") {
        None => None,
        Some(e) => match e.value.to_ascii_lowercase().as_str() {
            "always" | "y" => None,
            "never" | "n" => Some(u64::MAX),
            v if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                Some(r.number::<u64>("FileStoreSync")?.expect("present"))
            }
            v => {
                return Err(r.err(
                    e,
                    format!("{v:?} is not Y, N, always, never or a number of milliseconds"),
                ))
            }
        },
    };
    let file_store_damage = match r.entry("FileStoreDamage") {
        None => StoreDamage::Refuse,
        Some(e) => match e.value.to_ascii_lowercase().as_str() {
            "refuse" => StoreDamage::Refuse,
            "report" => StoreDamage::Report,
            v => return Err(r.err(e, format!("{v:?} is not refuse or report"))),
        },
    };
    // SocketAcceptHost is QuickFIX/Go's name for SocketAcceptAddress.
    let socket_accept_address = match (r.entry("SocketAcceptAddress"), r.entry("SocketAcceptHost"))
    {
        (Some(a), Some(h)) if a.value != h.value => {
            return Err(r.err(
                h,
                format!(
                "{:?} differs from SocketAcceptAddress {:?} (line {}); they name the same thing",
                h.value, a.value, a.line
            ),
            ))
        }
        (Some(a), _) => Some(a.value.clone()),
        (None, Some(h)) => Some(h.value.clone()),
        (None, None) => None,
    }
    .filter(|v| !v.is_empty());
    if let Some(e) = r.entry("TimeStampPrecision") {
        if !["SECONDS", "MILLIS", "MICROS", "NANOS"]
            .contains(&e.value.to_ascii_uppercase().as_str())
        {
            return Err(r.err(
                e,
                format!("{:?} is not SECONDS, MILLIS, MICROS or NANOS", e.value),
            ));
        }
    }
    let heart_bt_int = r.num_or("HeartBtInt", 30u32)?;
    let validation = ValidationSettings {
        validate_fields_out_of_order: r.bool("ValidateFieldsOutOfOrder", true)?,
        validate_fields_have_values: r.bool("ValidateFieldsHaveValues", true)?,
        validate_user_defined_fields: r.bool("ValidateUserDefinedFields", true)?,
        allow_unknown_msg_fields: r.bool("AllowUnknownMsgFields", false)?,
        validate_unordered_group_fields: r.bool("ValidateUnorderedGroupFields", true)?,
        check_latency: r.bool("CheckLatency", true)?,
        max_latency_secs: r.num_or("MaxLatency", 120u32)?,
    };
    let max_message_size = r.num_or("MaxMessageSize", 1usize << 20)?;
    let max_logon_message_size = r.num_or(
        "MaxLogonMessageSize",
        peregrine_session::DEFAULT_MAX_LOGON_SIZE.min(max_message_size),
    )?;
    let max_outbound_queue_bytes = r.num_or("MaxOutboundQueueBytes", 64usize << 20)?;
    let slow_consumer_hard_limit = r.num_or(
        "SlowConsumerHardLimit",
        max_outbound_queue_bytes.saturating_mul(4),
    )?;
    let resend_request_timeout = r.num_or(
        "ResendRequestTimeout",
        if heart_bt_int == 0 {
            60
        } else {
            heart_bt_int.saturating_mul(2).min(86_400)
        },
    )?;
    let admin_http_address = match r.entry("AdminHttpAddress") {
        None => IpAddr::V4(Ipv4Addr::LOCALHOST),
        Some(e) => e.value.parse::<IpAddr>().map_err(|_| {
            r.err(
                e,
                format!("{:?} is not an IP address (e.g. 127.0.0.1 or ::1)", e.value),
            )
        })?,
    };
    // The token's value is never put in a message.
    let admin_http_token = match r.entry("AdminHttpToken") {
        None => None,
        Some(e) if e.value.is_empty() => {
            return Err(r.err(
                e,
                "must not be empty (leave the key out to refuse admin changes)".into(),
            ))
        }
        Some(e) if !e.value.bytes().all(|b| b.is_ascii_graphic()) => {
            return Err(r.err(
                e,
                "must be printable ASCII without spaces (it is sent in an HTTP header)".into(),
            ))
        }
        Some(e) => Some(e.value.clone()),
    };
    let schedule = r.schedule_keys()?;
    let s = SessionSettings {
        file: file.to_path_buf(),
        line,
        origin,
        begin_string,
        sender_comp_id,
        target_comp_id,
        session_qualifier: r.string("SessionQualifier").filter(|q| !q.is_empty()),
        connection_type,
        socket_accept_port,
        socket_accept_address,
        connect_addresses,
        heart_bt_int,
        reconnect_interval: r.num_or("ReconnectInterval", 30u32)?,
        use_data_dictionary: r.bool("UseDataDictionary", true)?,
        data_dictionary: r.path("DataDictionary")?,
        transport_data_dictionary: r.path("TransportDataDictionary")?,
        app_data_dictionary: r.path("AppDataDictionary")?,
        file_store_path: r.path("FileStorePath")?,
        file_log_path: r.path("FileLogPath")?,
        persist_messages: r.bool("PersistMessages", true)?,
        start_time: r.time("StartTime")?,
        end_time: r.time("EndTime")?,
        start_day: r.day("StartDay")?,
        end_day: r.day("EndDay")?,
        weekdays: schedule.weekdays,
        time_zone: schedule.time_zone.clone(),
        logon_time: schedule.logon_time.zip(schedule.logout_time),
        logon_days: schedule.logon_day.zip(schedule.logout_day),
        reset_seq_time: schedule.reset_seq_time,
        logon_timeout: r.num_or("LogonTimeout", 10u32)?,
        logout_timeout: r.num_or("LogoutTimeout", 2u32)?,
        socket_nodelay: r.bool("SocketNodelay", true)?,
        socket_send_buffer_size: r.number("SocketSendBufferSize")?,
        socket_receive_buffer_size: r.number("SocketReceiveBufferSize")?,
        tls: r.tls_keys(connection_type)?,
        reset_on_logon: r.bool("ResetOnLogon", false)?,
        reset_on_logout: r.bool("ResetOnLogout", false)?,
        reset_on_disconnect: r.bool("ResetOnDisconnect", false)?,
        refresh_on_logon: r.bool("RefreshOnLogon", false)?,
        resend_request_chunk_size: r.num_or("ResendRequestChunkSize", 0u32)?,
        enable_last_msg_seq_num_processed: r.bool("EnableLastMsgSeqNumProcessed", false)?,
        enable_next_expected_msg_seq_num: r.bool("EnableNextExpectedMsgSeqNum", false)?,
        default_appl_ver_id: r.string("DefaultApplVerID").filter(|v| !v.is_empty()),
        check_comp_id: r.bool("CheckCompID", true)?,
        validation,
        validate_length_and_checksum: r.bool("ValidateLengthAndChecksum", true)?,
        max_message_size,
        admin_http_port: r.port("AdminHttpPort")?.filter(|&p| p != 0),
        admin_http_address,
        admin_http_token,
        idle_strategy,
        max_outbound_queue_bytes,
        slow_consumer_hard_limit,
        slow_consumer_action,
        max_logon_message_size,
        max_inbound_queue_bytes: r.num_or("MaxInboundQueueBytes", 16usize << 20)?,
        resend_request_timeout,
        send_redundant_resend_requests: r.bool("SendRedundantResendRequests", false)?,
        queue_while_logged_out: r.bool("QueueWhileLoggedOut", true)?,
        file_store_sync,
        file_store_damage,
        username: r.string("Username").filter(|v| !v.is_empty()),
        password: r.string("Password").filter(|v| !v.is_empty()),
        acceptor_template: r.bool("AcceptorTemplate", false)?,
        allowed_target_comp_ids: r
            .string("AllowedTargetCompIDs")
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|id| !id.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        entries: Vec::new(),
    };
    if s.acceptor_template {
        if s.connection_type != ConnectionType::Acceptor {
            let e = r.entry("AcceptorTemplate").expect("set");
            return Err(r.err(e, "only an acceptor session can be a template".into()));
        }
    } else {
        for (key, value) in [
            ("SenderCompID", &s.sender_comp_id),
            ("TargetCompID", &s.target_comp_id),
        ] {
            if value == "*" {
                let e = r.entry(key).expect("set");
                return Err(r.err(e, "* (any) needs AcceptorTemplate=Y".into()));
            }
        }
        if let Some(e) = r.entry("AllowedTargetCompIDs") {
            return Err(r.err(e, "applies to a template only (AcceptorTemplate=Y)".into()));
        }
    }
    // Cross-key checks.
    let at_least = |key: &str, value: usize, other: &str, min: usize| -> Result<(), ConfigError> {
        match r.entry(key) {
            Some(e) if value < min => Err(r.err(
                e,
                format!("{value} is less than {other} ({min}), which it must hold"),
            )),
            _ => Ok(()),
        }
    };
    if max_logon_message_size > max_message_size {
        let e = r.entry("MaxLogonMessageSize").expect("only when set");
        return Err(r.err(
            e,
            format!("{max_logon_message_size} is more than MaxMessageSize ({max_message_size})"),
        ));
    }
    at_least(
        "MaxInboundQueueBytes",
        s.max_inbound_queue_bytes,
        "MaxMessageSize",
        max_message_size,
    )?;
    at_least(
        "SlowConsumerHardLimit",
        s.slow_consumer_hard_limit,
        "MaxOutboundQueueBytes",
        s.max_outbound_queue_bytes,
    )?;
    if s.begin_string == "FIXT.1.1" && s.default_appl_ver_id.is_none() {
        return Err(ConfigError {
            file: file.to_path_buf(),
            line,
            origin,
            key: Some("DefaultApplVerID".into()),
            message: "missing (required with BeginString=FIXT.1.1)".into(),
        });
    }
    if s.start_time.is_some() != s.end_time.is_some() {
        let key = if s.start_time.is_some() {
            "EndTime"
        } else {
            "StartTime"
        };
        return Err(ConfigError {
            file: file.to_path_buf(),
            line,
            origin,
            key: Some(key.into()),
            message: "missing (StartTime and EndTime go together)".into(),
        });
    }
    if s.start_day.is_some() != s.end_day.is_some() {
        let key = if s.start_day.is_some() {
            "EndDay"
        } else {
            "StartDay"
        };
        return Err(ConfigError {
            file: file.to_path_buf(),
            line,
            origin,
            key: Some(key.into()),
            message: "missing (StartDay and EndDay go together)".into(),
        });
    }
    if s.start_day.is_some() && s.start_time.is_none() {
        let e = r.entry("StartDay").expect("set");
        return Err(r.err(e, "a weekly window needs StartTime and EndTime too".into()));
    }
    r.check_schedule(
        s.start_time,
        s.end_time,
        s.start_day.zip(s.end_day),
        &schedule,
    )?;
    // Always checked: N would be a setting silently ignored.
    if !s.validate_length_and_checksum {
        let e = r
            .entry("ValidateLengthAndChecksum")
            .expect("N only when set");
        return Err(r.err(
            e,
            "N is not supported: the session always checks BodyLength and CheckSum".into(),
        ));
    }
    if s.heart_bt_int == 0 && s.connection_type == ConnectionType::Initiator {
        let e = r.entry("HeartBtInt").expect("0 only when set");
        return Err(r.err(e, "must be at least 1 for an initiator".into()));
    }
    Ok(SessionSettings { entries, ..s })
}

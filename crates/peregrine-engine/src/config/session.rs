//! [`SessionSettings`]: one session's typed settings, and what they answer.

use std::net::IpAddr;
use std::path::PathBuf;

use peregrine_agent::Idle;
use peregrine_dict::ValidationSettings;

use super::{
    ConfigError, ConnectionType, Origin, SettingLine, SlowConsumerAction, StoreDamage, TimeOfDay,
    TlsSettings,
};

/// One `AppDataDictionary.<version>` key: QuickFIX/J's application dictionary for
/// the messages of one ApplVerID(1128) of a FIXT.1.1 session
/// (`AppDataDictionary.FIX.4.4=FIX44.xml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDictionary {
    /// The ApplVerID code the key names (`"6"` for `FIX.4.4`).
    pub appl_ver_id: &'static str,
    /// The file, resolved.
    pub path: PathBuf,
    /// The key as written (`AppDataDictionary.FIX.4.4`), for errors.
    pub key: String,
}

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
    pub entries: Vec<SettingLine>,
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
    /// `AppDataDictionary.<version>` (QuickFIX/J's, FIXT.1.1): the application
    /// dictionary of the messages of one ApplVerID, in the order of the settings.
    pub app_data_dictionaries: Vec<VersionDictionary>,
    /// `FileStorePath`, resolved.
    pub file_store_path: Option<PathBuf>,
    /// The database store (`JdbcURL` or `SQLStoreDriver`), when set.
    pub sql_store: Option<super::SqlStoreSettings>,
    /// `FileLogPath`, resolved.
    pub file_log_path: Option<PathBuf>,
    /// `ScreenLogShowEvents`, `ScreenLogShowIncoming`, `ScreenLogShowOutgoing`:
    /// `None` when the session sets none of them (nothing printed); otherwise
    /// each unset one is Y, as QuickFIX's `ScreenLogFactory` reads them.
    pub screen_log: Option<crate::log::ScreenLogSettings>,
    /// `TimeStampPrecision`: the precision of the timestamps the session
    /// writes; `None` (the key left out): milliseconds, seconds before FIX.4.2
    /// ([`SessionConfig::new`](peregrine_session::SessionConfig::new)'s).
    pub timestamp_precision: Option<peregrine_codec::value::TimePrecision>,
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
    /// `ValidateChecksum` (QuickFIX/J; default Y): N accepts a message whose
    /// CheckSum(10) value is wrong.
    pub validate_checksum: bool,
    /// `RejectGarbledMessage` (QuickFIX/J; default N): Y answers a garbled
    /// message with a Reject and takes its sequence number. Not with
    /// `ValidateChecksum=N` (QuickFIX/J refuses the pair too).
    pub reject_garbled_message: bool,
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
    /// `EngineJournal` (ours; default Y): with `FileStorePath`, the session's
    /// store is a view of one journal shared by every session of the engine
    /// that names the same directory (`FileStorePath/engine.journal`), so a
    /// turn of the engine commits every session it touched in one write
    /// (see `peregrine_store::EngineJournal`). `N`: a `FileStore` directory of
    /// its own.
    pub engine_journal: bool,
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
    /// `MaxTemplateSessions` (ours, with `AcceptorTemplate`): the most
    /// sessions the template keeps at once (default 1,000). Each holds a
    /// store and logs, so a template open to any CompID would otherwise let
    /// counterparties make sessions without end; a Logon past the bound is
    /// refused (the connection closed, the event and `tracing` say why).
    pub max_template_sessions: usize,
    /// `HaNodeName`, `HaPeers`, `HaEtcdEndpoints`, `HaLeaseTTL`, `HaGroup` (ours,
    /// issue 26): this node's leadership settings, when `HaNodeName` is set. Read
    /// and checked; the engine does not act on them yet (`docs/standby.md`).
    pub ha: Option<super::HaSettings>,
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
        s.max_template_sessions = 0;
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

//! [`SettingsBuilder`]: settings made in code, read exactly as a `.cfg` is.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use peregrine_agent::Idle;
use peregrine_store::FsyncPolicy;

use super::keys::check_key;
use super::{
    ConfigError, ConnectionType, Origin, SettingLine, Settings, SlowConsumerAction, StoreDamage,
    TimeOfDay,
};

/// A value as a `.cfg` file writes it: `Y`/`N` for a `bool`, decimal for a
/// number, `HH:MM:SS` for a [`TimeOfDay`], the words the keys take for the
/// enums. The text then goes through the same parser as a file's.
///
/// ```
/// use peregrine_engine::config::{ConnectionType, TimeOfDay, ToSetting};
/// assert_eq!(true.to_setting(), "Y");
/// assert_eq!(30u32.to_setting(), "30");
/// assert_eq!(ConnectionType::Initiator.to_setting(), "initiator");
/// assert_eq!(TimeOfDay(8 * 3600 + 30 * 60).to_setting(), "08:30:00");
/// ```
pub trait ToSetting {
    /// The value's text in a `.cfg` file.
    fn to_setting(&self) -> String;
}

impl<T: ToSetting + ?Sized> ToSetting for &T {
    fn to_setting(&self) -> String {
        (**self).to_setting()
    }
}

impl ToSetting for str {
    fn to_setting(&self) -> String {
        self.to_string()
    }
}

impl ToSetting for String {
    fn to_setting(&self) -> String {
        self.clone()
    }
}

impl ToSetting for bool {
    fn to_setting(&self) -> String {
        if *self { "Y" } else { "N" }.to_string()
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl ToSetting for $t {
            fn to_setting(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
numbers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl ToSetting for Path {
    /// The path as text (a `.cfg` file is text: a path that is not UTF-8 is
    /// written lossily).
    fn to_setting(&self) -> String {
        self.to_string_lossy().into_owned()
    }
}

impl ToSetting for PathBuf {
    fn to_setting(&self) -> String {
        self.as_path().to_setting()
    }
}

impl ToSetting for IpAddr {
    fn to_setting(&self) -> String {
        self.to_string()
    }
}

impl ToSetting for ConnectionType {
    fn to_setting(&self) -> String {
        match self {
            ConnectionType::Acceptor => "acceptor",
            ConnectionType::Initiator => "initiator",
        }
        .to_string()
    }
}

impl ToSetting for SlowConsumerAction {
    fn to_setting(&self) -> String {
        match self {
            SlowConsumerAction::Disconnect => "disconnect",
            SlowConsumerAction::Flag => "flag",
        }
        .to_string()
    }
}

impl ToSetting for StoreDamage {
    fn to_setting(&self) -> String {
        match self {
            StoreDamage::Refuse => "refuse",
            StoreDamage::Report => "report",
        }
        .to_string()
    }
}

impl ToSetting for TimeOfDay {
    /// `HH:MM:SS` (a value of a day or more is written as it is, and refused
    /// by the parser as a file's would be).
    fn to_setting(&self) -> String {
        let s = self.0;
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

impl ToSetting for Idle {
    fn to_setting(&self) -> String {
        self.to_string()
    }
}

impl ToSetting for FsyncPolicy {
    /// `always`, `never`, or the number of milliseconds (`FileStoreSync`).
    fn to_setting(&self) -> String {
        match self {
            FsyncPolicy::EveryCommit => "always".to_string(),
            FsyncPolicy::Never => "never".to_string(),
            FsyncPolicy::EveryMillis(ms) => ms.to_string(),
        }
    }
}

/// The keys of one section, `[DEFAULT]` or a `[SESSION]`, as
/// [`SettingsBuilder`] collects them: [`set`](Self::set) takes any key by its
/// QuickFIX name, and the typed setters (named after the keys) cover the
/// common ones. Nothing is checked here: [`SettingsBuilder::build`] reads the
/// keys as the `.cfg` parser reads a file's.
///
/// ```
/// use peregrine_engine::config::Section;
/// let s = Section::default().set("HeartBtInt", 20).reset_on_logon(true);
/// assert_eq!(s.get("heartbtint"), Some("20"));
/// assert_eq!(s.get("ResetOnLogon"), Some("Y"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    entries: Vec<(String, String)>,
    failovers: usize,
}

impl Section {
    /// Sets `key` (QuickFIX's name, any case) to `value`, replacing an
    /// earlier value of the same key in this section.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().set("SocketAcceptPort", 9878).set("socketacceptport", 9879);
    /// assert_eq!(s.get("SocketAcceptPort"), Some("9879"));
    /// ```
    pub fn set(mut self, key: &str, value: impl ToSetting) -> Self {
        let value = value.to_setting();
        match self
            .entries
            .iter_mut()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(key.trim()))
        {
            Some(e) => *e = (key.to_string(), value),
            None => self.entries.push((key.to_string(), value)),
        }
        self
    }

    /// The value set for `key` (any case), as text.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().get("HeartBtInt"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(key.trim()))
            .map(|(_, v)| v.as_str())
    }

    /// `ConnectionType`.
    ///
    /// ```
    /// use peregrine_engine::config::{ConnectionType, Section};
    /// let s = Section::default().connection_type(ConnectionType::Initiator);
    /// assert_eq!(s.get("ConnectionType"), Some("initiator"));
    /// ```
    pub fn connection_type(self, value: ConnectionType) -> Self {
        self.set("ConnectionType", value)
    }

    /// `SenderCompID` (in `[DEFAULT]`; a session's own comes from
    /// [`SettingsBuilder::session`]).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().sender_comp_id("VENUE").get("SenderCompID"), Some("VENUE"));
    /// ```
    pub fn sender_comp_id(self, value: &str) -> Self {
        self.set("SenderCompID", value)
    }

    /// `TargetCompID` (in `[DEFAULT]`; a session's own comes from
    /// [`SettingsBuilder::session`]).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().target_comp_id("CLIENT").get("TargetCompID"), Some("CLIENT"));
    /// ```
    pub fn target_comp_id(self, value: &str) -> Self {
        self.set("TargetCompID", value)
    }

    /// `SessionQualifier`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().session_qualifier("night").get("SessionQualifier"), Some("night"));
    /// ```
    pub fn session_qualifier(self, value: &str) -> Self {
        self.set("SessionQualifier", value)
    }

    /// `SocketAcceptPort` (0: any free port).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().socket_accept_port(9878).get("SocketAcceptPort"), Some("9878"));
    /// ```
    pub fn socket_accept_port(self, port: u16) -> Self {
        self.set("SocketAcceptPort", port)
    }

    /// `SocketAcceptAddress`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().socket_accept_address("127.0.0.1");
    /// assert_eq!(s.get("SocketAcceptAddress"), Some("127.0.0.1"));
    /// ```
    pub fn socket_accept_address(self, address: &str) -> Self {
        self.set("SocketAcceptAddress", address)
    }

    /// An initiator's address: the first call sets `SocketConnectHost` and
    /// `SocketConnectPort`, the next ones the failovers `SocketConnectHost1`
    /// and `SocketConnectPort1`, `…2`, … in order.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().socket_connect("primary", 9878).socket_connect("backup", 9878);
    /// assert_eq!(s.get("SocketConnectHost"), Some("primary"));
    /// assert_eq!(s.get("SocketConnectHost1"), Some("backup"));
    /// ```
    pub fn socket_connect(mut self, host: &str, port: u16) -> Self {
        let suffix = match self.failovers {
            0 => String::new(),
            n => n.to_string(),
        };
        self.failovers += 1;
        self.set(&format!("SocketConnectHost{suffix}"), host)
            .set(&format!("SocketConnectPort{suffix}"), port)
    }

    /// `HeartBtInt`, seconds.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().heart_bt_int(20).get("HeartBtInt"), Some("20"));
    /// ```
    pub fn heart_bt_int(self, seconds: u32) -> Self {
        self.set("HeartBtInt", seconds)
    }

    /// `ReconnectInterval`, seconds.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().reconnect_interval(5).get("ReconnectInterval"), Some("5"));
    /// ```
    pub fn reconnect_interval(self, seconds: u32) -> Self {
        self.set("ReconnectInterval", seconds)
    }

    /// `UseDataDictionary`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().use_data_dictionary(false).get("UseDataDictionary"), Some("N"));
    /// ```
    pub fn use_data_dictionary(self, value: bool) -> Self {
        self.set("UseDataDictionary", value)
    }

    /// `DataDictionary` (a relative path is taken from the working
    /// directory).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().data_dictionary("spec/FIX44.xml");
    /// assert_eq!(s.get("DataDictionary"), Some("spec/FIX44.xml"));
    /// ```
    pub fn data_dictionary(self, path: impl AsRef<Path>) -> Self {
        self.set("DataDictionary", path.as_ref())
    }

    /// `TransportDataDictionary` (FIXT.1.1).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().transport_data_dictionary("spec/FIXT11.xml");
    /// assert_eq!(s.get("TransportDataDictionary"), Some("spec/FIXT11.xml"));
    /// ```
    pub fn transport_data_dictionary(self, path: impl AsRef<Path>) -> Self {
        self.set("TransportDataDictionary", path.as_ref())
    }

    /// `AppDataDictionary` (FIXT.1.1).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().app_data_dictionary("spec/FIX50SP2.xml");
    /// assert_eq!(s.get("AppDataDictionary"), Some("spec/FIX50SP2.xml"));
    /// ```
    pub fn app_data_dictionary(self, path: impl AsRef<Path>) -> Self {
        self.set("AppDataDictionary", path.as_ref())
    }

    /// `DefaultApplVerID` (FIXT.1.1), e.g. `FIX.5.0SP2`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().default_appl_ver_id("FIX.5.0SP2");
    /// assert_eq!(s.get("DefaultApplVerID"), Some("FIX.5.0SP2"));
    /// ```
    pub fn default_appl_ver_id(self, value: &str) -> Self {
        self.set("DefaultApplVerID", value)
    }

    /// `FileStorePath`: the sessions keep their messages and sequence
    /// numbers in the file store there.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().file_store_path("store").get("FileStorePath"), Some("store"));
    /// ```
    pub fn file_store_path(self, path: impl AsRef<Path>) -> Self {
        self.set("FileStorePath", path.as_ref())
    }

    /// `FileStoreSync`: when the file store fsyncs (default: every commit).
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// use peregrine_store::FsyncPolicy;
    /// let s = Section::default().file_store_sync(FsyncPolicy::EveryMillis(5));
    /// assert_eq!(s.get("FileStoreSync"), Some("5"));
    /// ```
    pub fn file_store_sync(self, policy: FsyncPolicy) -> Self {
        self.set("FileStoreSync", policy)
    }

    /// `EngineJournal`: the file store is one journal for every session of
    /// the engine under the same `FileStorePath` (`engine.journal`), each
    /// turn committed in one write whatever the number of sessions.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().file_store_path("store").engine_journal(true);
    /// assert_eq!(s.get("EngineJournal"), Some("Y"));
    /// ```
    pub fn engine_journal(self, on: bool) -> Self {
        self.set("EngineJournal", if on { "Y" } else { "N" })
    }

    /// `FileLogPath`: message and event logs there.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().file_log_path("log").get("FileLogPath"), Some("log"));
    /// ```
    pub fn file_log_path(self, path: impl AsRef<Path>) -> Self {
        self.set("FileLogPath", path.as_ref())
    }

    /// `PersistMessages`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().persist_messages(false).get("PersistMessages"), Some("N"));
    /// ```
    pub fn persist_messages(self, value: bool) -> Self {
        self.set("PersistMessages", value)
    }

    /// `ResetOnLogon`.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().reset_on_logon(true).get("ResetOnLogon"), Some("Y"));
    /// ```
    pub fn reset_on_logon(self, value: bool) -> Self {
        self.set("ResetOnLogon", value)
    }

    /// `StartTime` and `EndTime`: the daily window, in `TimeZone` (UTC by default).
    ///
    /// ```
    /// use peregrine_engine::config::{Section, TimeOfDay};
    /// let s = Section::default().window(TimeOfDay(8 * 3600), TimeOfDay(17 * 3600));
    /// assert_eq!((s.get("StartTime"), s.get("EndTime")), (Some("08:00:00"), Some("17:00:00")));
    /// ```
    pub fn window(self, start_time: TimeOfDay, end_time: TimeOfDay) -> Self {
        self.set("StartTime", start_time).set("EndTime", end_time)
    }

    /// `TimeZone`: the IANA zone of the window's times and of `ResetSeqTime`.
    ///
    /// ```
    /// use peregrine_engine::config::{Section, TimeOfDay};
    /// let s = Section::default()
    ///     .window(TimeOfDay(9 * 3600 + 1800), TimeOfDay(16 * 3600))
    ///     .time_zone("America/New_York");
    /// assert_eq!(s.get("TimeZone"), Some("America/New_York"));
    /// ```
    pub fn time_zone(self, name: &str) -> Self {
        self.set("TimeZone", name)
    }

    /// `ResetSeqTime` (QuickFIX/Go): each day at this time, in `TimeZone`, a
    /// logged-on session resets its sequence numbers without disconnecting.
    ///
    /// ```
    /// use peregrine_engine::config::{Section, TimeOfDay};
    /// let s = Section::default().reset_seq_time(TimeOfDay(17 * 3600));
    /// assert_eq!(s.get("ResetSeqTime"), Some("17:00:00"));
    /// ```
    pub fn reset_seq_time(self, time: TimeOfDay) -> Self {
        self.set("ResetSeqTime", time)
    }

    /// `Username` and `Password`: Username(553) and Password(554) in an
    /// initiator's Logon.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// let s = Section::default().credentials("trader", "secret");
    /// assert_eq!(s.get("Username"), Some("trader"));
    /// ```
    pub fn credentials(self, username: &str, password: &str) -> Self {
        self.set("Username", username).set("Password", password)
    }

    /// `IdleStrategy`.
    ///
    /// ```
    /// use peregrine_engine::{config::Section, Idle};
    /// let s = Section::default().idle_strategy(Idle::busy_spin());
    /// assert_eq!(s.get("IdleStrategy"), Some("busy-spin"));
    /// ```
    pub fn idle_strategy(self, idle: Idle) -> Self {
        self.set("IdleStrategy", idle)
    }

    /// `AdminHttpPort`: the operator's HTTP interface listens there.
    ///
    /// ```
    /// use peregrine_engine::config::Section;
    /// assert_eq!(Section::default().admin_http_port(8095).get("AdminHttpPort"), Some("8095"));
    /// ```
    pub fn admin_http_port(self, port: u16) -> Self {
        self.set("AdminHttpPort", port)
    }

    /// The section's entries, checked as a file's lines are (a key and a
    /// value that a `.cfg` line could hold, then [`check_key`]).
    fn into_entries(
        self,
        warnings: &mut Vec<super::ConfigWarning>,
    ) -> Result<Vec<SettingLine>, ConfigError> {
        let mut entries = Vec::with_capacity(self.entries.len());
        for (key, value) in self.entries {
            let (key, value) = (key.trim(), value.trim());
            let problem = if key.is_empty() {
                Some("an empty key")
            } else if key.contains(['=', '\n', '\r']) || key.starts_with(['[', '#', ';']) {
                Some("not a key a settings file can hold")
            } else if value.contains(['\n', '\r']) {
                Some("a value with a line break")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(ConfigError {
                    file: PathBuf::new(),
                    line: 0,
                    key: Some(key.to_string()),
                    message: problem.to_string(),
                    origin: Origin::Code,
                });
            }
            let entry = SettingLine {
                key: key.to_string(),
                value: value.to_string(),
                line: 0,
            };
            check_key(Origin::Code, Path::new(""), &entry, warnings)?;
            entries.push(entry);
        }
        Ok(entries)
    }
}

/// Settings made in code ([`Settings::builder`]): a `[DEFAULT]` section and
/// sessions, exactly as a `.cfg` file has them, read by the same parser.
///
/// Every value is turned into its `.cfg` text ([`ToSetting`]) and checked by
/// the code that checks a file's, so a code-built session equals the one the
/// same keys in a file make, every key left out has QuickFIX's default (and
/// Peregrine's where QuickFIX has none: see the engine README's table), and a bad value or a
/// QuickFIX key Peregrine does not implement is the same error, naming the
/// key and saying `set in code` where a file's would say `file:line`.
///
/// Relative paths (`DataDictionary`, `FileStorePath`, …) are taken from the
/// working directory.
///
/// ```
/// use peregrine_engine::config::{ConnectionType, Settings};
/// use peregrine_engine::EngineBuilder;
///
/// let settings = Settings::builder()
///     .default(|d| {
///         d.connection_type(ConnectionType::Acceptor)
///             .socket_accept_port(0)
///             .heart_bt_int(20)
///             .use_data_dictionary(false)
///     })
///     .session("FIX.4.4", "VENUE", "CLIENT_A", |s| s)
///     .session("FIX.4.4", "VENUE", "CLIENT_B", |s| s.set("ResetOnLogon", true))
///     .build()?;
/// assert_eq!(settings.sessions[1].session_name(), "FIX.4.4:VENUE->CLIENT_B");
/// assert!(settings.sessions[1].reset_on_logon);
/// assert_eq!(settings.sessions[0].logon_timeout, 10); // QuickFIX's default
///
/// // The same values in a file make the same sessions.
/// let file = Settings::parse(
///     "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nHeartBtInt=20\n\
///      UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\n\
///      TargetCompID=CLIENT_A\n",
///     "venue.cfg".as_ref(),
/// )?;
/// assert_eq!(file.sessions[0].heart_bt_int, settings.sessions[0].heart_bt_int);
///
/// // An engine from them: EngineBuilder::new(settings).start(|_| MyApp::default()).
/// let engine = EngineBuilder::new(settings).build(|_| peregrine_session::EchoApp::new(None))?;
/// assert_eq!(engine.sessions().len(), 2);
///
/// // A bad value is the parser's error, naming the key.
/// let e = Settings::builder()
///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.socket_accept_port(0).set("MaxLatency", 0))
///     .build()
///     .unwrap_err();
/// assert_eq!(e.to_string(), r#"set in code: MaxLatency: "0" is out of range (it must be 1 to 86400)"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsBuilder {
    pub(super) defaults: Section,
    pub(super) sessions: Vec<Section>,
}

impl SettingsBuilder {
    /// Sets keys of the `[DEFAULT]` section, which every session inherits
    /// (and may override). May be called more than once.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let settings = Settings::builder()
    ///     .default(|d| d.socket_accept_port(5001).use_data_dictionary(false))
    ///     .default(|d| d.heart_bt_int(10))
    ///     .session("FIX.4.4", "A", "B", |s| s.heart_bt_int(20))
    ///     .build()?;
    /// assert_eq!(settings.sessions[0].heart_bt_int, 20);
    /// assert_eq!(settings.sessions[0].socket_accept_port, Some(5001));
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn default(mut self, keys: impl FnOnce(Section) -> Section) -> Self {
        self.defaults = keys(self.defaults);
        self
    }

    /// Adds a session (a `[SESSION]` section) with `BeginString`,
    /// `SenderCompID` and `TargetCompID` (ours first), and its other keys.
    ///
    /// ```
    /// use peregrine_engine::config::{ConnectionType, Settings};
    /// let settings = Settings::builder()
    ///     .session("FIX.4.4", "CLIENT", "VENUE", |s| {
    ///         s.connection_type(ConnectionType::Initiator)
    ///             .socket_connect("127.0.0.1", 9878)
    ///             .use_data_dictionary(false)
    ///     })
    ///     .build()?;
    /// assert_eq!(settings.sessions[0].connect_addresses, [("127.0.0.1".to_string(), 9878)]);
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn session(
        mut self,
        begin_string: &str,
        sender_comp_id: &str,
        target_comp_id: &str,
        keys: impl FnOnce(Section) -> Section,
    ) -> Self {
        let section = Section::default()
            .set("BeginString", begin_string)
            .set("SenderCompID", sender_comp_id)
            .set("TargetCompID", target_comp_id);
        self.sessions.push(keys(section));
        self
    }

    /// Reads the sections as the `.cfg` parser reads a file's, and reports
    /// the warnings ([`Settings::report_warnings`]: stderr without a
    /// `tracing` subscriber).
    ///
    /// # Errors
    ///
    /// What [`Settings::parse`] refuses, saying `set in code` and the key:
    /// a value that cannot be used, a required key missing, a QuickFIX key
    /// Peregrine does not implement that would change security or delivery;
    /// and a key or value no `.cfg` line could hold, or no session at all.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let e = Settings::builder()
    ///     .default(|d| d.socket_accept_port(5001).set("SocketKeyStore", "venue.jks"))
    ///     .session("FIX.4.4", "A", "B", |s| s)
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(e.key.as_deref(), Some("SocketKeyStore"));
    /// assert!(e.to_string().starts_with("set in code: SocketKeyStore: "));
    /// ```
    pub fn build(self) -> Result<Settings, ConfigError> {
        let mut warnings = Vec::new();
        let defaults = self.defaults.into_entries(&mut warnings)?;
        if self.sessions.is_empty() {
            return Err(ConfigError {
                file: PathBuf::new(),
                line: 0,
                key: None,
                message: "no session (add one with SettingsBuilder::session)".into(),
                origin: Origin::Code,
            });
        }
        let mut sessions = Vec::with_capacity(self.sessions.len());
        for s in self.sessions {
            sessions.push((0, s.into_entries(&mut warnings)?));
        }
        let settings =
            Settings::assemble(Origin::Code, Path::new(""), defaults, sessions, warnings)?;
        settings.report_warnings();
        Ok(settings)
    }
}

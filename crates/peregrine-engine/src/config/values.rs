//! The values of settings: an [`SettingLine`] as written, and the typed values of keys.

/// One `Key=Value` line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingLine {
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

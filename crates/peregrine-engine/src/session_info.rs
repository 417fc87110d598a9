//! [`SessionInfo`]: what the engine reports about one session (`/sessions`,
//! [`Engine::sessions`](crate::Engine::sessions), the console). Plain data: the
//! reactor fills it, the admin interface formats it (as JSON there).

use crate::driver::Nanos;
use peregrine_session::SessionRef;

/// What `/sessions` shows about one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// `FIX.4.4:ISLD->TW`.
    pub name: String,
    /// The session's state name.
    pub state: String,
    /// Whether a connection is bound to it.
    pub connected: bool,
    /// Whether it is logged on.
    pub logged_on: bool,
    /// Next outgoing sequence number.
    pub next_sender_seq: u64,
    /// Next expected incoming sequence number.
    pub next_target_seq: u64,
    /// Bytes waiting to be written.
    pub pending_outbound: usize,
    /// Flagged as a slow consumer.
    pub slow_consumer: bool,
    /// Messages the store found lost when it opened (with `FileStoreDamage=report`).
    pub store_lost_messages: u64,
    /// Messages from a [`Sender`](crate::Sender) that the session refused (see [`crate::sender`]).
    pub send_failures: u64,
    /// It may log on: false after [`Command::Logout`](crate::Command::Logout)
    /// until [`Command::Logon`](crate::Command::Logon).
    pub enabled: bool,
    /// What a [`Sender`](crate::Sender) names it by: also for sessions made while the engine runs
    /// (from an acceptor template or [`Command::AddSession`](crate::Command::AddSession)),
    /// which [`RunningEngine::session_ref`](crate::RunningEngine::session_ref) does not
    /// know.
    pub session_ref: SessionRef,
    /// `acceptor` or `initiator`.
    pub role: &'static str,
    /// Its schedule in words (`08:00:00 - 17:00:00 daily UTC`); `None`:
    /// always on.
    pub schedule: Option<String>,
    /// With a schedule: whether a Logon is allowed now, and when that next
    /// changes (nanoseconds since the epoch).
    pub logon_allowed: bool,
    /// With a schedule: when [`logon_allowed`](Self::logon_allowed) next changes.
    pub schedule_changes_at: Option<Nanos>,
    /// When its last Logon completed (nanoseconds since the epoch).
    pub last_logon: Option<Nanos>,
    /// Why it is in its state: who logged it out, what ended its connection.
    pub note: Option<String>,
    /// Its messages log (`FileLogPath`), if it writes one.
    pub messages_log: Option<std::path::PathBuf>,
}

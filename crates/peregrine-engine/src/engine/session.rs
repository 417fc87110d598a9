//! A configured session as the engine hosts it: its settings, its driver, its
//! connection (if any), its logs and line limit.

use std::sync::Arc;

use crate::config::SessionSettings;
use crate::driver::Nanos;
use crate::log::{RateLimit, SessionLog};
use crate::metrics::SessionMetrics;

use super::ids::{ConnectionKey, ListenerKey};

/// A configured session as the engine hosts it.
pub(super) struct HostedSession<D> {
    /// `FIX.4.4:ISLD->TW[:qualifier]`.
    pub(super) name: String,
    /// The name without its qualifier, by which an operator may also name it.
    pub(super) unqualified_name: String,
    pub(super) has_qualifier: bool,
    pub(super) settings: SessionSettings,
    pub(super) driver: D,
    /// Its live connection.
    pub(super) connection: Option<ConnectionKey>,
    pub(super) log: Option<SessionLog>,
    /// Flagged as a slow consumer (`SlowConsumerAction=flag`).
    pub(super) slow: bool,
    /// An initiator: when to connect next.
    pub(super) next_connect: Nanos,
    /// An initiator: which of the failover addresses to try next.
    pub(super) next_address: usize,
    /// The live connection's Logon succeeded: an initiator stays with this address
    /// when the connection ends (it moves on after a connection that never logged on).
    pub(super) logged_on_here: bool,
    /// An acceptor: the listener its connections come in on.
    pub(super) listener: Option<ListenerKey>,
    /// When to give a store with a time-based fsync policy its chance to fsync.
    pub(super) next_store_sync: Option<Nanos>,
    /// Tells this session from an earlier one that had its key.
    pub(super) generation: u32,
    /// Messages from a [`Sender`](crate::Sender) the session refused.
    pub(super) send_failures: u64,
    /// Messages from a [`Sender`](crate::Sender) were handed to it this turn.
    pub(super) send_pending: bool,
    /// Messages from a [`Sender`](crate::Sender) held for it (its socket is
    /// not taking bytes), in the engine's `held_sends`.
    pub(super) held_sends: usize,
    /// The pass over the held messages in which it last had to wait.
    pub(super) hold_pass: u32,
    /// Being removed: it logs out, then it goes.
    pub(super) removing: bool,
    /// The acceptor template (its index in the engine's) that made it,
    /// which counts it against its `MaxTemplateSessions`.
    pub(super) template: Option<usize>,
    /// May log on ([`Command::Logout`](crate::Command::Logout) clears it,
    /// [`Command::Logon`](crate::Command::Logon) sets it).
    pub(super) enabled: bool,
    /// An operator asked for a reset (who, as the event log names them:
    /// "operator alice"): done once disconnected.
    pub(super) reset_pending: Option<String>,
    /// Event lines the peer can cause at will (garbled input, rejects) are
    /// written within this limit, one per connection.
    pub(super) lines: RateLimit,
    /// An initiator's TLS configuration (`SocketUseSSL=Y`), built when it was added.
    pub(super) tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    /// Its metrics (shared with readers on other threads).
    pub(super) metrics: Arc<SessionMetrics>,
    /// Its last logon and why it is in its state, for operators.
    pub(super) status: super::status::SessionStatus,
    /// Its schedule (`StartTime`/`EndTime`…); `None`: always on.
    pub(super) schedule: Option<peregrine_session::Schedule>,
    /// When its schedule next opens or closes, to say so in its event log
    /// (hours.rs); `None`: no schedule, or no edge ahead.
    pub(super) schedule_check: Option<Nanos>,
}

impl<D> HostedSession<D> {
    /// Flags it as a slow consumer, or clears the flag (and says so to its metrics).
    pub(super) fn set_slow(&mut self, slow: bool) {
        self.slow = slow;
        self.metrics.set_slow_consumer(slow);
    }

    /// An operator enabled or disabled it (and its metrics say so).
    pub(super) fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        self.metrics.set_enabled(enabled);
    }

    /// A line in the event log and `tracing`.
    pub(super) fn event(&mut self, text: &str, now: Nanos) {
        tracing::info!(session = %self.name, "{text}");
        if let Some(l) = &mut self.log {
            l.event(text, now);
        }
    }

    /// Says how many lines the limit left out, once it lets a line through again.
    pub(super) fn report_left_out(&mut self, now: Nanos) {
        if self.lines.suppressed() > 0 {
            if let Some(n) = self.lines.allow(now) {
                self.event(&format!("{n} lines left out by the log rate limit"), now);
            }
        }
        if let Some(l) = &mut self.log {
            l.report_left_out(now, false);
        }
    }

    /// A connection begins or ends: a fresh line limit (the old one's count said).
    pub(super) fn new_connection(&mut self, now: Nanos) {
        let left_out = self.lines.suppressed();
        if left_out > 0 {
            self.event(
                &format!("{left_out} lines left out by the log rate limit"),
                now,
            );
        }
        self.lines = RateLimit::new(now);
    }

    /// An event the peer can repeat at will: within the session's line limit.
    pub(super) fn peer_event(&mut self, text: &str, now: Nanos) {
        match self.lines.allow(now) {
            None => {}
            Some(0) => self.event(text, now),
            Some(n) => self.event(&format!("{text} ({n} such lines left out before)"), now),
        }
    }
}

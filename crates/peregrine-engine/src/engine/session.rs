//! A configured session as the engine hosts it: its settings, its driver, its
//! connection (if any), its logs and line limit.

use crate::config::SessionSettings;
use crate::driver::Nanos;
use crate::log::{RateLimit, SessionLog};

pub(super) struct Slot<D> {
    pub(super) name: String,
    pub(super) begin: String,
    pub(super) sender: String,
    pub(super) target: String,
    pub(super) qualifier: Option<String>,
    pub(super) settings: SessionSettings,
    pub(super) driver: D,
    pub(super) conn: Option<usize>,
    pub(super) log: Option<SessionLog>,
    pub(super) slow: bool,
    pub(super) next_connect: Nanos,
    pub(super) addr_idx: usize,
    pub(super) listener: Option<usize>,
    /// When to give a store with a time-based fsync policy its chance to fsync.
    pub(super) next_store_sync: Option<Nanos>,
    /// Event lines the peer can cause at will (garbled input, rejects) are
    /// written within this limit.
    pub(super) lines: RateLimit,
}

impl<D> Slot<D> {
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

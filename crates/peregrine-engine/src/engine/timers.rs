//! Timers, reconnects, store fsyncs, admin commands: the reactor's
//! housekeeping.

use crate::config::ConnectionType;
use crate::driver::{now_nanos, Nanos, SessionDriver};

use super::ids::{ConnectionKey, ListenerKey, SessionKey};
use super::{Engine, SEC};

impl<D: SessionDriver> Engine<D> {
    /// Commands, timers and reconnects, log lines left out.
    pub(super) fn housekeeping(&mut self) -> bool {
        self.metrics.engine().housekept();
        let mut work = self.drain_commands();
        work |= self.timers();
        self.finish_removals(now_nanos());
        self.sync_journals_if_due();
        self.publish_metrics_if_stale();
        let now = now_nanos();
        for s in self.sessions.iter_mut() {
            s.report_left_out(now);
        }
        if self.unrouted_lines.suppressed() > 0 {
            if let Some(n) = self.unrouted_lines.allow(now) {
                tracing::info!("{n} lines about connections that never named a session left out");
            }
        }
        work
    }

    /// Returns once every session's message and event log lines handed over
    /// so far are written to the operating system (the logging thread writes
    /// them within 10 ms otherwise): for reading a log the engine is still
    /// writing. A [`Command::ListSessions`](crate::Command::ListSessions) does
    /// the same before it answers.
    pub fn flush_logs(&self) {
        if let Some(w) = &self.log_writer {
            w.flush();
        }
    }

    /// The earliest of every deadline the engine keeps: the sessions' timers,
    /// store fsyncs, reconnects, listener retries, logon and connect timeouts.
    pub(super) fn next_timer(&self) -> Option<Nanos> {
        let mut t: Option<Nanos> = None;
        let mut min = |x: Nanos| t = Some(t.map_or(x, |y| y.min(x)));
        for s in self.sessions.iter() {
            if let Some(d) = s.driver.next_deadline() {
                min(d);
            }
            if let Some(d) = s.next_store_sync {
                min(d);
            }
            if let Some(d) = s.schedule_check {
                min(d);
            }
            if s.settings.connection_type == ConnectionType::Initiator
                && s.connection.is_none()
                && !s.removing
                && s.enabled
                && !self.stopping
            {
                min(s.next_connect);
            }
        }
        for l in &self.listeners {
            if let Some(r) = l.retry_at {
                min(r);
            }
        }
        for (_, c) in self.connections.iter() {
            match (c.session, c.listener) {
                (None, Some(l)) => min(c.opened_at + self.listeners[l.0].logon_timeout),
                (Some(id), _) if c.connecting => min(c.opened_at
                    + Nanos::from(self.sessions[id].settings.logon_timeout.max(1)) * SEC),
                _ => {}
            }
        }
        t
    }

    /// Runs what is due.
    pub(super) fn timers(&mut self) -> bool {
        let now = now_nanos();
        let mut work = false;
        let mut fired = std::mem::take(&mut self.fired);
        for id in self.sessions.key_space() {
            if !self.sessions.contains(id) {
                continue;
            }
            if self.sessions[id]
                .driver
                .next_deadline()
                .is_some_and(|d| d <= now)
            {
                self.sessions[id].driver.on_timer(now);
                work = true;
                if self.batches() {
                    // Heartbeats come due together: one journal write for
                    // all of them, after this pass.
                    fired.push(id);
                }
            }
            if fired.last() != Some(&id) {
                self.service(id, now);
            }
            let s = &mut self.sessions[id];
            s.check_schedule(now);
            if s.next_store_sync.is_some_and(|d| d <= now) {
                let interval = s.driver.store_sync_interval().unwrap_or(SEC);
                s.next_store_sync = Some(now + interval);
                if let Err(e) = s.driver.sync_store_if_due() {
                    s.event(&format!("store sync failed: {e}"), now);
                }
                work = true;
            }
            if s.settings.connection_type == ConnectionType::Initiator
                && s.connection.is_none()
                && s.enabled
                && !self.stopping
                && s.next_connect <= now
            {
                self.connect(id, now);
                work = true;
            }
        }
        self.service_fired(&mut fired, now);
        self.fired = fired;
        for l in (0..self.listeners.len()).map(ListenerKey) {
            if self.listeners[l.0].retry_at.is_some_and(|r| r <= now) {
                self.accept_all(l);
                work = true;
            }
        }
        // Collected first (closing needs the engine); an empty Vec does not
        // allocate, so a quiet turn allocates nothing.
        let due: Vec<(ConnectionKey, Option<SessionKey>, &str)> = self
            .connections
            .iter()
            .filter_map(|(key, c)| match (c.session, c.listener) {
                (None, Some(l)) if c.opened_at + self.listeners[l.0].logon_timeout <= now => {
                    Some((key, None, "no logon in time"))
                }
                (Some(id), _) if c.connecting => {
                    let limit = Nanos::from(self.sessions[id].settings.logon_timeout.max(1)) * SEC;
                    (c.opened_at + limit <= now).then_some((key, Some(id), "connect timed out"))
                }
                _ => None,
            })
            .collect();
        for (key, initiator, why) in due {
            if let Some(id) = initiator {
                // The next attempt tries the next failover address.
                self.sessions[id].next_address += 1;
            }
            self.close_connection(key, why, now);
            work = true;
        }
        work
    }

    /// The sessions whose timers fired this pass commit together: what they
    /// sent on others first, then every one commits, the journal is written
    /// once (one fsync by policy), then each writes its output.
    fn service_fired(&mut self, fired: &mut Vec<SessionKey>, now: Nanos) {
        if fired.is_empty() {
            return;
        }
        for &id in fired.iter() {
            if self.sessions.contains(id) {
                self.deliver_forwards(id, now);
                self.sessions[id].driver.commit();
            }
        }
        self.write_journals();
        for &id in fired.iter() {
            if self.sessions.contains(id) {
                self.service(id, now);
            }
        }
        fired.clear();
    }
}

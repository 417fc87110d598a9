//! Committing and writing what a session queued; slow consumers.

use std::io;

use crate::config::SlowConsumerAction;
use crate::driver::{now_nanos, DriverEvent, Nanos, SessionDriver};
use peregrine_session::DisconnectReason;

use super::ids::SessionKey;
use super::transport::{failure, TransportError};
use super::Engine;

impl<D: SessionDriver> Engine<D> {
    /// Commits what the session stored, writes what it queued, lets the
    /// store settle (the work no message waits for), handles its events,
    /// checks the slow-consumer limits.
    pub(super) fn service(&mut self, id: SessionKey, now: Nanos) {
        // What its callbacks sent on other sessions (from a timer's events, a
        // Logout's, …) is theirs before it commits: one transaction.
        self.deliver_forwards(id, now);
        self.sessions[id].driver.commit();
        self.flush(id, now);
        self.sessions[id].driver.settle();
        while let Some(event) = self.sessions[id].driver.poll_event() {
            match event {
                DriverEvent::Disconnect(why) => {
                    self.flush(id, now);
                    if matches!(why, DisconnectReason::OutboundQueueFull) {
                        // The session's own ceiling (SlowConsumerHardLimit) came
                        // first, within one turn of input.
                        self.flag(id, now);
                    }
                    match self.sessions[id].connection {
                        Some(key) => self.close_connection(key, &why.to_string(), now),
                        // Nothing to close: let the session finish its transition.
                        None => self.sessions[id].driver.on_disconnected(now),
                    }
                }
                DriverEvent::LoggedOn => {
                    let s = &mut self.sessions[id];
                    s.logged_on_here = true;
                    s.status.last_logon = Some(now);
                    s.status.note = None;
                    s.event("logged on", now);
                }
                DriverEvent::LoggedOut => self.sessions[id].event("logged out", now),
                DriverEvent::Info(t) => self.sessions[id].peer_event(&t, now),
                DriverEvent::Warning(t) => {
                    let s = &mut self.sessions[id];
                    tracing::warn!(session = %s.name, "{t}");
                    if let Some(l) = &mut s.log {
                        l.event(&t, now);
                    }
                }
            }
            self.flush(id, now);
        }
        self.check_slow_consumer(id, now);
    }

    /// `MaxOutboundQueueBytes` (disconnect or flag) and `SlowConsumerHardLimit`
    /// (disconnect, whatever the action).
    fn check_slow_consumer(&mut self, id: SessionKey, now: Nanos) {
        let s = &mut self.sessions[id];
        let pending = s.driver.outbound().len();
        s.metrics.set_outbound_pending(pending);
        let Some(key) = s.connection else {
            return;
        };
        let settings = &s.settings;
        if pending > settings.slow_consumer_hard_limit {
            // Flagging has a ceiling too: past it the connection goes, whatever
            // the action (what was not written is resent after the next Logon).
            // A queue that went past both limits in one turn is flagged first,
            // so the event log says what an operator asked to be told.
            self.flag(id, now);
            let s = &mut self.sessions[id];
            let settings = &s.settings;
            let why = format!(
                "slow consumer: {pending} bytes pending, over SlowConsumerHardLimit ({}), disconnecting",
                settings.slow_consumer_hard_limit
            );
            tracing::warn!(session = %s.name, "{why}");
            self.close_connection_as(key, &why, DisconnectReason::SlowConsumer, now);
        } else if pending > settings.max_outbound_queue_bytes {
            let limit = settings.max_outbound_queue_bytes;
            match settings.slow_consumer_action {
                SlowConsumerAction::Disconnect => {
                    let why = format!(
                        "slow consumer: {pending} bytes pending (limit {limit}), disconnecting"
                    );
                    tracing::warn!(session = %s.name, "{why}");
                    self.close_connection_as(key, &why, DisconnectReason::SlowConsumer, now);
                }
                SlowConsumerAction::Flag => self.flag(id, now),
            }
        } else if s.slow && pending <= settings.max_outbound_queue_bytes / 2 {
            s.set_slow(false);
            s.event("no longer a slow consumer", now);
        }
    }

    /// Flags a session with `SlowConsumerAction=flag` as a slow consumer, once.
    /// Also called before a flagging session is cut at its hard limit (the
    /// queue can jump past both limits in one turn), so the event log says
    /// what an operator asked to be told.
    fn flag(&mut self, id: SessionKey, now: Nanos) {
        let s = &mut self.sessions[id];
        if s.settings.slow_consumer_action == SlowConsumerAction::Flag && !s.slow {
            s.set_slow(true);
            let pending = s.driver.outbound().len();
            let limit = s.settings.max_outbound_queue_bytes;
            let why = format!("slow consumer: {pending} bytes pending (limit {limit})");
            tracing::warn!(session = %s.name, "{why}");
            s.event(&why, now);
        }
    }

    /// Writes what the session may send, as far as the socket takes it.
    pub(super) fn flush(&mut self, id: SessionKey, now: Nanos) {
        // High availability: not a byte unless this node leads (gate.rs).
        if self.options.write_gate.is_some() && !self.may_write(now) {
            return;
        }
        // Nothing leaves before the journal holds it (journal.rs); a session
        // with nothing to write (a writable event in the middle of a turn's
        // reads) does not make the journal write early.
        if self.batches()
            && (self.sessions[id].driver.outbound().is_empty() || !self.write_journals())
        {
            return;
        }
        let s = &mut self.sessions[id];
        let Some(key) = s.connection else {
            // Nothing can be written without a connection; the session
            // keeps (or drops) its queue as it sees fit.
            return;
        };
        let Some(connection) = self.connections.get_mut(key) else {
            return;
        };
        if connection.connecting {
            return;
        }
        loop {
            let out = s.driver.outbound();
            if out.is_empty() {
                return;
            }
            match connection.io.write(out) {
                Ok(0) => return,
                Ok(n) => {
                    s.metrics.sent(n);
                    if let Some(l) = &mut s.log {
                        // Stamped when written (the turn's `now` may be long past:
                        // SendingTime is read at encoding, the log line must not precede it).
                        l.outgoing(&out[..n], now_nanos());
                    }
                    s.driver.consume_outbound(n);
                    s.metrics.set_outbound_pending(s.driver.outbound().len());
                }
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let (why, reason) = failure("write", e);
                    self.close_connection_as(key, &why, reason, now);
                    return;
                }
            }
        }
    }
}

//! Committing and writing what a session queued; slow consumers.

use std::io::{self, Write};

use crate::config::SlowConsumerAction;
use crate::driver::{DriverEvent, Nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
    /// Commits what the session stored, writes what it queued, handles its
    /// events, checks the slow-consumer limits.
    pub(super) fn service(&mut self, i: usize, now: Nanos) {
        self.slots[i].driver.commit();
        loop {
            self.flush(i, now);
            let Some(ev) = self.slots[i].driver.poll_event() else {
                break;
            };
            match ev {
                DriverEvent::Disconnect(why) => {
                    self.flush(i, now);
                    match self.slots[i].conn {
                        Some(c) => self.close_conn(c, &why, now),
                        // Nothing to close: let the session finish its transition.
                        None => self.slots[i].driver.on_disconnected(now),
                    }
                }
                DriverEvent::LoggedOn => self.slots[i].event("logged on", now),
                DriverEvent::LoggedOut => self.slots[i].event("logged out", now),
                DriverEvent::Info(t) => self.slots[i].peer_event(&t, now),
                DriverEvent::Warning(t) => {
                    tracing::warn!(session = %self.slots[i].name, "{t}");
                    if let Some(l) = &mut self.slots[i].log {
                        l.event(&t, now);
                    }
                }
            }
        }
        let s = &mut self.slots[i];
        let pending = s.driver.outbound().len();
        if let Some(c) = s
            .conn
            .filter(|_| pending > s.settings.slow_consumer_hard_limit)
        {
            // Flagging has a ceiling too: past it the connection goes, whatever
            // the action (what was not written is resent after the next Logon).
            let why = format!(
                "slow consumer: {pending} bytes pending, over SlowConsumerHardLimit ({}), disconnecting",
                s.settings.slow_consumer_hard_limit
            );
            tracing::warn!(session = %s.name, "{why}");
            self.close_conn(c, &why, now);
        } else if s.conn.is_some() && pending > s.settings.max_outbound_queue_bytes {
            match s.settings.slow_consumer_action {
                SlowConsumerAction::Disconnect => {
                    let why = format!(
                        "slow consumer: {pending} bytes pending (limit {}), disconnecting",
                        s.settings.max_outbound_queue_bytes
                    );
                    let c = s.conn.expect("connected");
                    tracing::warn!(session = %s.name, "{why}");
                    self.close_conn(c, &why, now);
                }
                SlowConsumerAction::Flag => {
                    if !s.slow {
                        s.slow = true;
                        let why = format!(
                            "slow consumer: {pending} bytes pending (limit {})",
                            s.settings.max_outbound_queue_bytes
                        );
                        tracing::warn!(session = %s.name, "{why}");
                        s.event(&why, now);
                    }
                }
            }
        } else if s.slow && s.conn.is_some() && pending <= s.settings.max_outbound_queue_bytes / 2 {
            s.slow = false;
            s.event("no longer a slow consumer", now);
        }
    }

    pub(super) fn flush(&mut self, i: usize, now: Nanos) {
        let s = &mut self.slots[i];
        let Some(c) = s.conn else {
            // Nothing can be written without a connection; the session
            // keeps (or drops) its queue as it sees fit.
            return;
        };
        let Some(conn) = self.conns[c].as_mut() else {
            return;
        };
        if conn.connecting {
            return;
        }
        loop {
            let out = s.driver.outbound();
            if out.is_empty() {
                return;
            }
            match conn.stream.write(out) {
                Ok(0) => return,
                Ok(n) => {
                    if let Some(l) = &mut s.log {
                        l.outgoing(&out[..n], now);
                    }
                    s.driver.consume_outbound(n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let why = format!("write failed: {e}");
                    self.close_conn(c, &why, now);
                    return;
                }
            }
        }
    }
}

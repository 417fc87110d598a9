//! Commands from other threads (the admin interface, handles).

use crate::command::{Command, CommandError, Outcome, Reply};
use crate::driver::{now_nanos, SessionDriver};

use super::ids::SessionKey;
use super::Engine;

impl<D: SessionDriver> Engine<D> {
    /// The session `name` names: its full name, or its name without the
    /// qualifier when that fits exactly one session.
    pub(super) fn find_session(&self, name: &str) -> Result<SessionKey, CommandError> {
        let mut keys = self.sessions.keys();
        if let Some(key) = keys.find(|&k| self.sessions[k].name == name) {
            return Ok(key);
        }
        let mut unqualified = self.sessions.keys().filter(|&k| {
            self.sessions[k].has_qualifier && self.sessions[k].unqualified_name == name
        });
        match (unqualified.next(), unqualified.next()) {
            (Some(key), None) => Ok(key),
            (None, _) => Err(CommandError::NoSuchSession { name: name.into() }),
            (Some(_), Some(_)) => Err(CommandError::AmbiguousSession { name: name.into() }),
        }
    }

    /// Carries out every command waiting; whether there were any.
    pub(super) fn drain_commands(&mut self) -> bool {
        let mut work = false;
        while let Ok((command, reply_to)) = self.rx.try_recv() {
            work = true;
            let reply = self.command(command);
            let _ = reply_to.send(reply);
        }
        work
    }

    fn command(&mut self, command: Command) -> Reply {
        match command {
            Command::Stop => {
                self.stop_requested = true;
                Ok(Outcome::Stopping)
            }
            Command::ListSessions => Ok(Outcome::Sessions(self.sessions())),
            Command::SetSeqNum {
                session,
                next_sender,
                next_target,
            } => {
                let key = self.find_session(&session)?;
                let session = self.sessions[key].name.clone();
                let now = now_nanos();
                let s = &mut self.sessions[key];
                let failed = |error| CommandError::Store {
                    session: session.clone(),
                    error,
                };
                if let Some(n) = next_sender {
                    s.driver.set_next_sender_seq(n).map_err(failed)?;
                    s.event(&format!("operator set next sender seq to {n}"), now);
                }
                if let Some(n) = next_target {
                    s.driver.set_next_target_seq(n).map_err(failed)?;
                    s.event(&format!("operator set next target seq to {n}"), now);
                }
                Ok(Outcome::SeqNums {
                    session: s.name.clone(),
                    next_sender_seq: s.driver.next_sender_seq(),
                    next_target_seq: s.driver.next_target_seq(),
                })
            }
        }
    }
}

//! Commands from other threads (the admin interface, handles).

use crate::command::{AddSessionError, Command, CommandError, Outcome, Reply};
use crate::driver::{now_nanos, SessionDriver};
use crate::log::Escaped;

use super::ids::SessionKey;
use super::status::operator;
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
            self.metrics.engine().command();
            let reply = self.command(command);
            let _ = reply_to.send(reply);
        }
        work
    }

    fn command(&mut self, command: Command) -> Reply {
        self.command_by(command, None)
    }

    /// Carries out `command`, asked for by `by` (an operator's name and
    /// address, for the event log).
    fn command_by(&mut self, command: Command, by: Option<&str>) -> Reply {
        match command {
            Command::ByOperator { operator, command } => self.command_by(*command, Some(&operator)),
            Command::TestRequest { session } => {
                let key = self.find_session(&session)?;
                let now = now_nanos();
                let s = &mut self.sessions[key];
                let sent = s.driver.send_test_request(now);
                let line = if sent {
                    format!("{} sent a TestRequest", operator(by))
                } else {
                    format!(
                        "{} asked for a TestRequest: not logged on, none sent",
                        operator(by)
                    )
                };
                s.event(&line, now);
                let session = s.name.clone();
                if sent {
                    self.service(key, now);
                }
                Ok(Outcome::TestRequest { session, sent })
            }
            Command::Stop => {
                self.stop_requested = true;
                Ok(Outcome::Stopping)
            }
            Command::ListSessions => {
                // Whoever asks may read the logs next (the console does): they are
                // written up to this moment.
                self.flush_logs();
                Ok(Outcome::Sessions(self.sessions()))
            }
            Command::AddSession(settings) => {
                let key = self.add_at_run_time(&settings)?;
                Ok(Outcome::SessionAdded {
                    session: self.sessions[key].name.clone(),
                    reference: self.sessions.reference(key),
                })
            }
            Command::AddSessionLike { session, like } => {
                let key = self.find_session(&like)?;
                let settings = self.sessions[key]
                    .settings
                    .renamed(&session)
                    .ok_or_else(|| CommandError::CannotAdd {
                        name: session.clone(),
                        why: AddSessionError::BadName,
                    })?;
                let key = self.add_at_run_time(&settings)?;
                Ok(Outcome::SessionAdded {
                    session: self.sessions[key].name.clone(),
                    reference: self.sessions.reference(key),
                })
            }
            Command::RemoveSession { session } => {
                let key = self.find_session(&session)?;
                let session = self.sessions[key].name.clone();
                let gone = self.remove_session(key);
                Ok(Outcome::SessionRemoved {
                    session,
                    logging_out: !gone,
                })
            }
            Command::Logout { session, text } => {
                let key = self.find_session(&session)?;
                let now = now_nanos();
                let s = &mut self.sessions[key];
                s.set_enabled(false);
                let note = match &text {
                    Some(t) => format!("logged out by {}: {}", operator(by), Escaped(t.as_bytes())),
                    None => format!("logged out by {}", operator(by)),
                };
                s.event(&note, now);
                s.status.note = Some(note);
                let logging_out = s.connection.is_some();
                if logging_out {
                    s.driver.logout(now, text.as_deref());
                    self.service(key, now);
                }
                Ok(Outcome::LoggedOut {
                    session: self.sessions[key].name.clone(),
                    logging_out,
                })
            }
            Command::Logon { session } => {
                let key = self.find_session(&session)?;
                let now = now_nanos();
                let s = &mut self.sessions[key];
                let already = s.enabled;
                if already {
                    s.event(
                        &format!("{} asked for Logon: it may log on already", operator(by)),
                        now,
                    );
                } else {
                    s.set_enabled(true);
                    s.next_connect = now;
                    s.event(&format!("{} enabled the session", operator(by)), now);
                    s.status.note = Some(format!("enabled by {}", operator(by)));
                }
                Ok(Outcome::Enabled {
                    session: s.name.clone(),
                    already,
                })
            }
            Command::ResetSeqNums { session } => {
                let key = self.find_session(&session)?;
                let now = now_nanos();
                let name = self.sessions[key].name.clone();
                let s = &mut self.sessions[key];
                if s.connection.is_some() {
                    s.reset_pending = Some(operator(by));
                    s.event(&format!("{} reset: logging out first", operator(by)), now);
                    s.driver
                        .logout(now, Some("sequence numbers reset by the operator"));
                    self.service(key, now);
                    // Logged out already (the connection closed): reset done.
                    let after_logout = self.sessions[key].reset_pending.is_some();
                    return Ok(Outcome::Reset {
                        session: name,
                        after_logout,
                    });
                }
                let was = (s.driver.next_sender_seq(), s.driver.next_target_seq());
                s.driver
                    .reset_seq_nums(now)
                    .map_err(|error| CommandError::Store {
                        session: name.clone(),
                        error,
                    })?;
                s.event(
                    &format!(
                        "{} reset sequence numbers to 1 (were: next sender {}, next target {})",
                        operator(by),
                        was.0,
                        was.1
                    ),
                    now,
                );
                Ok(Outcome::Reset {
                    session: name,
                    after_logout: false,
                })
            }
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
                    let was = s.driver.next_sender_seq();
                    s.driver.set_next_sender_seq(n).map_err(failed)?;
                    s.event(
                        &format!("{} set next sender seq to {n} (was {was})", operator(by)),
                        now,
                    );
                }
                if let Some(n) = next_target {
                    let was = s.driver.next_target_seq();
                    s.driver.set_next_target_seq(n).map_err(failed)?;
                    s.event(
                        &format!("{} set next target seq to {n} (was {was})", operator(by)),
                        now,
                    );
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

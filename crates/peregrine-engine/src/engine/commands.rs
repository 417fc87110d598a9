//! Commands from other threads (the admin interface, handles).

use crate::admin::{Command, Reply};
use crate::driver::{now_nanos, SessionDriver};

use super::*;

impl<D: SessionDriver> Engine<D> {
    pub(super) fn find_session(&self, name: &str) -> Result<usize, Reply> {
        if let Some(i) = self.slots.iter().position(|s| s.name == name) {
            return Ok(i);
        }
        // Without the qualifier, if that names exactly one session.
        let matches: Vec<usize> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.qualifier.is_some() && format!("{}:{}->{}", s.begin, s.sender, s.target) == name
            })
            .map(|(i, _)| i)
            .collect();
        match matches.as_slice() {
            [i] => Ok(*i),
            [] => Err(Reply::new(404, format!("no session {name}\n"))),
            _ => Err(Reply::new(
                400,
                format!("{name} names several sessions; add the qualifier\n"),
            )),
        }
    }

    pub(super) fn drain_commands(&mut self) -> bool {
        let mut work = false;
        while let Ok((cmd, reply)) = self.rx.try_recv() {
            work = true;
            let answer = self.command(cmd);
            let _ = reply.send(answer);
        }
        work
    }

    pub(super) fn command(&mut self, cmd: Command) -> Reply {
        match cmd {
            Command::Stop => {
                self.stop_requested = true;
                Reply::new(200, "stopping\n")
            }
            Command::ListSessions => {
                let items: Vec<String> = self.sessions().iter().map(SessionInfo::to_json).collect();
                Reply::new(200, format!("[{}]\n", items.join(",")))
            }
            Command::SetSeqNum {
                session,
                next_sender,
                next_target,
            } => {
                let i = match self.find_session(&session) {
                    Ok(i) => i,
                    Err(r) => return r,
                };
                let now = now_nanos();
                let s = &mut self.slots[i];
                if let Some(n) = next_sender {
                    if let Err(e) = s.driver.set_next_sender_seq(n) {
                        return Reply::new(500, format!("{e}\n"));
                    }
                    s.event(&format!("operator set next sender seq to {n}"), now);
                }
                if let Some(n) = next_target {
                    if let Err(e) = s.driver.set_next_target_seq(n) {
                        return Reply::new(500, format!("{e}\n"));
                    }
                    s.event(&format!("operator set next target seq to {n}"), now);
                }
                Reply::new(
                    200,
                    format!(
                        "OK {} next_sender_seq={} next_target_seq={}\n",
                        s.name,
                        s.driver.next_sender_seq(),
                        s.driver.next_target_seq()
                    ),
                )
            }
        }
    }
}

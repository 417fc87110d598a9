//! A session's schedule in its event log, as QuickFIX/J writes it when a
//! session is created: the schedule itself, then a line each time the session
//! leaves or enters its window, so that one held back (an acceptor refusing
//! a Logon, an initiator not connecting) says why and until when.

use peregrine_session::WindowState;

use crate::driver::Nanos;
use crate::log::Escaped;

use super::session::HostedSession;
use super::status;

impl<D> HostedSession<D> {
    /// Says the session's schedule (or that it has none) when it is made, and
    /// where it stands now.
    pub(super) fn log_schedule(&mut self, now: Nanos) {
        let line = match status::schedule_text(&self.settings) {
            // From the settings file, escaped all the same like any log value.
            Some(text) => format!("schedule: {}", Escaped(text.as_bytes())),
            None => "no schedule (always on)".to_string(),
        };
        self.event(&line, now);
        self.schedule_check = self.schedule.as_ref().map(|_| now);
        self.check_schedule(now);
    }

    /// At each window edge: one line saying the session is outside its
    /// schedule and when the next window opens, or inside it and when it
    /// closes. Between edges this is one comparison.
    pub(super) fn check_schedule(&mut self, now: Nanos) {
        let (Some(schedule), Some(at)) = (&self.schedule, self.schedule_check) else {
            return;
        };
        if now < at {
            return;
        }
        let (line, next) = match schedule.window_state(now) {
            WindowState::Closed { opens: Some(t) } => (
                format!(
                    "outside the schedule, next window opens at {}",
                    schedule.local_text(t)
                ),
                Some(t),
            ),
            WindowState::Closed { opens: None } => (
                format!(
                    "outside the schedule, and no window opens within {} window edges",
                    peregrine_session::Schedule::MAX_STEPS
                ),
                None,
            ),
            WindowState::Open { closes: Some(t) } => (
                format!(
                    "inside the schedule, window closes at {}",
                    schedule.local_text(t)
                ),
                Some(t),
            ),
            WindowState::Open { closes: None } => {
                ("inside the schedule (it does not close)".to_string(), None)
            }
        };
        self.schedule_check = next;
        self.event(&line, now);
    }
}

//! What an operator is told about a session beside its counters: when it
//! last logged on, why it is in its state (who logged it out, what ended its
//! connection), and its schedule in words.

use crate::config::{ConnectionType, SessionSettings};
use crate::driver::Nanos;

/// A session's status as the reactor last saw it.
#[derive(Debug, Clone, Default)]
pub(super) struct SessionStatus {
    /// When its last Logon completed.
    pub(super) last_logon: Option<Nanos>,
    /// Why it is in its state: `logged out by operator alice (127.0.0.1:5000): maintenance`,
    /// `disconnected: heartbeat timeout`; cleared by a Logon.
    pub(super) note: Option<String>,
}

/// Who asked for a command, for event lines: `operator` or `operator NAME`.
pub(super) fn operator(by: Option<&str>) -> String {
    match by {
        Some(who) => format!("operator {who}"),
        None => "operator".to_string(),
    }
}

/// `acceptor` or `initiator`.
pub(super) fn role(s: &SessionSettings) -> &'static str {
    match s.connection_type {
        ConnectionType::Initiator => "initiator",
        _ => "acceptor",
    }
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

fn hms(secs: u32) -> String {
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

fn day(d: u8) -> &'static str {
    DAYS.get(usize::from(d)).copied().unwrap_or("?")
}

/// The schedule in words (`Sun 17:00:00 - Fri 17:00:00 America/New_York`,
/// `08:00:00 - 17:00:00 Mon,Tue UTC`), `None` when always on.
pub(super) fn schedule_text(s: &SessionSettings) -> Option<String> {
    let (start, end) = (s.start_time?, s.end_time?);
    let zone = s.time_zone.iana_name().unwrap_or("UTC");
    let mut text = match (s.start_day, s.end_day, s.weekdays) {
        (Some(a), Some(b), _) => format!("{} {} - {} {}", day(a), hms(start.0), day(b), hms(end.0)),
        (_, _, Some(mask)) => {
            let days: Vec<&str> = (0..7u8).filter(|d| mask & (1 << d) != 0).map(day).collect();
            format!("{} - {} {}", hms(start.0), hms(end.0), days.join(","))
        }
        _ => format!("{} - {} daily", hms(start.0), hms(end.0)),
    };
    text.push(' ');
    text.push_str(zone);
    if let Some((on, off)) = s.logon_time {
        text.push_str(&format!(", logon {} - {}", hms(on.0), hms(off.0)));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn settings(extra: &str) -> SessionSettings {
        let text = format!(
            "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n{extra}\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        );
        Settings::parse(&text, "a.cfg".as_ref()).unwrap().sessions[0].clone()
    }

    #[test]
    fn schedules_in_words() {
        assert_eq!(schedule_text(&settings("")), None);
        assert_eq!(
            schedule_text(&settings("StartTime=08:00:00\nEndTime=17:30:00")).as_deref(),
            Some("08:00:00 - 17:30:00 daily UTC")
        );
        assert_eq!(
            schedule_text(&settings(
                "StartTime=17:00:00\nEndTime=17:00:00\nStartDay=sun\nEndDay=fri\n\
                 TimeZone=America/New_York"
            ))
            .as_deref(),
            Some("Sun 17:00:00 - Fri 17:00:00 America/New_York")
        );
        assert_eq!(role(&settings("")), "acceptor");
        assert_eq!(operator(Some("alice")), "operator alice");
    }
}

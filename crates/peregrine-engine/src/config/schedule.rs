//! The schedule keys: `StartTime`/`EndTime`, `StartDay`/`EndDay`, `Weekdays`,
//! `TimeZone`/`UseLocalTime`, `NonStopSession`, `LogonTime`/`LogoutTime`
//! (`LogonDay`/`LogoutDay`) and `ResetSeqTime`, read and checked together.
//!
//! Where QuickFIX/J, QuickFIX/Go and QuickFIX C++ differ: `TimeZone` takes IANA names
//! (as all three; `Local` is QuickFIX/Go's host zone), `Weekdays` is QuickFIX/J's and
//! QuickFIX/Go's (refused with `StartDay`/`EndDay`, as both do), `LogonTime` and its
//! kin are QuickFIX C++'s (a logon window inside the session window, for acceptors
//! and initiators alike), `UseLocalTime` is QuickFIX C++'s (the host's zone; refused
//! beside `TimeZone`, which would say the opposite), and `ResetSeqTime` is
//! QuickFIX/Go's.

use peregrine_session::TimeZone;

use super::reader::Reader;
use super::{ConfigError, SettingLine, TimeOfDay};

/// The typed schedule keys of one session.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ScheduleKeys {
    pub(super) time_zone: TimeZone,
    pub(super) weekdays: Option<u8>,
    pub(super) logon_time: Option<TimeOfDay>,
    pub(super) logout_time: Option<TimeOfDay>,
    pub(super) logon_day: Option<u8>,
    pub(super) logout_day: Option<u8>,
    pub(super) reset_seq_time: Option<TimeOfDay>,
}

/// The names UTC goes by (QuickFIX/J takes `GMT` too).
const UTC_NAMES: [&str; 7] = ["UTC", "GMT", "Z", "ETC/UTC", "ETC/GMT", "UNIVERSAL", "ZULU"];

impl Reader<'_> {
    fn zone(&self) -> Result<TimeZone, ConfigError> {
        let local = self.bool("UseLocalTime", false)?;
        let Some(e) = self.entry("TimeZone") else {
            return if local {
                self.host_zone(self.entry("UseLocalTime").expect("set"))
            } else {
                Ok(TimeZone::UTC)
            };
        };
        if local {
            let u = self.entry("UseLocalTime").expect("set");
            return Err(self.err(
                u,
                format!(
                    "Y contradicts TimeZone={}{}: the host's zone or that one (leave out one)",
                    e.value,
                    line_note(e)
                ),
            ));
        }
        if UTC_NAMES.contains(&e.value.to_ascii_uppercase().as_str()) {
            return Ok(TimeZone::UTC);
        }
        if e.value.eq_ignore_ascii_case("Local") {
            return self.host_zone(e);
        }
        TimeZone::get(&e.value).map_err(|_| {
            self.err(
                e,
                format!(
                    "{:?} is not a time zone of the IANA database (e.g. America/New_York, \
                     Europe/London, Asia/Tokyo, UTC)",
                    e.value
                ),
            )
        })
    }

    /// The host's zone (`UseLocalTime=Y`, `TimeZone=Local`), read once here.
    fn host_zone(&self, e: &SettingLine) -> Result<TimeZone, ConfigError> {
        TimeZone::try_system().map_err(|why| {
            self.err(
                e,
                format!("the host's time zone cannot be found ({why}); name one with TimeZone"),
            )
        })
    }

    /// `Weekdays=Mon,Tue,…` as a set (bit 0 = Sunday).
    fn weekdays(&self) -> Result<Option<u8>, ConfigError> {
        let Some(e) = self.entry("Weekdays") else {
            return Ok(None);
        };
        let mut mask = 0u8;
        for name in e.value.split(',').map(str::trim) {
            let Some(d) = day_of(name) else {
                return Err(self.err(
                    e,
                    format!(
                        "{name:?} is not a day of the week (Weekdays is a comma-separated list: \
                         Mon,Tue,… or full names)"
                    ),
                ));
            };
            mask |= 1 << d;
        }
        Ok(Some(mask))
    }

    pub(super) fn schedule_keys(&self) -> Result<ScheduleKeys, ConfigError> {
        Ok(ScheduleKeys {
            time_zone: self.zone()?,
            weekdays: self.weekdays()?,
            logon_time: self.time("LogonTime")?,
            logout_time: self.time("LogoutTime")?,
            logon_day: self.day("LogonDay")?,
            logout_day: self.day("LogoutDay")?,
            reset_seq_time: self.time("ResetSeqTime")?,
        })
    }

    /// The checks across keys: what goes together, what excludes what, and the logon
    /// window inside the session window.
    pub(super) fn check_schedule(
        &self,
        start: Option<TimeOfDay>,
        end: Option<TimeOfDay>,
        days: Option<(u8, u8)>,
        k: &ScheduleKeys,
    ) -> Result<(), ConfigError> {
        let entry = |key: &str| self.entry(key).expect("set");
        if let Some(w) = self.entry("Weekdays") {
            if let Some(d) = self.entry("StartDay").or(self.entry("EndDay")) {
                return Err(self.err(
                    w,
                    format!(
                        "cannot go with {}{}: Weekdays is for a daily window, StartDay/EndDay \
                         for a weekly one (as in QuickFIX/J and QuickFIX/Go)",
                        d.key,
                        line_note(d)
                    ),
                ));
            }
            if start.is_none() {
                return Err(self.err(w, "needs StartTime and EndTime".into()));
            }
        }
        for (a, b) in [("LogonTime", "LogoutTime"), ("LogonDay", "LogoutDay")] {
            match (self.entry(a), self.entry(b)) {
                (Some(e), None) => {
                    return Err(self.err(e, format!("set without {b} (they go together)")))
                }
                (None, Some(e)) => {
                    return Err(self.err(e, format!("set without {a} (they go together)")))
                }
                _ => {}
            }
        }
        if let Some(e) = self.entry("LogonTime") {
            if start.is_none() {
                return Err(self.err(
                    e,
                    "needs StartTime and EndTime (the logon window lies inside the session \
                     window)"
                        .into(),
                ));
            }
        }
        if let Some(e) = self.entry("LogonDay") {
            if days.is_none() {
                return Err(self.err(
                    e,
                    "needs StartDay and EndDay (a logon window's days are for a weekly session)"
                        .into(),
                ));
            }
            if self.entry("LogonTime").is_none() {
                return Err(self.err(e, "needs LogonTime and LogoutTime".into()));
            }
        }
        if let (Some(start), Some(end), Some(on), Some(off)) =
            (start, end, k.logon_time, k.logout_time)
        {
            let (on_day, off_day) = match (days, k.logon_day, k.logout_day) {
                (Some(_), Some(a), Some(b)) => (Some(a), Some(b)),
                (Some((a, b)), _, _) => (Some(a), Some(b)),
                _ => (None, None),
            };
            for (key, t, day) in [("LogonTime", on, on_day), ("LogoutTime", off, off_day)] {
                if !within(start, end, days, at(t, day)) {
                    let e = entry(key);
                    return Err(self.err(
                        e,
                        format!(
                            "{} is outside the session window ({} to {}): the logon window \
                             lies inside it, as QuickFIX C++ requires",
                            e.value,
                            entry("StartTime").value,
                            entry("EndTime").value
                        ),
                    ));
                }
            }
        }
        // QuickFIX/J's NonStopSession=Y is what a session without a window is;
        // beside a window it would say the opposite of StartTime/EndTime.
        if self.bool("NonStopSession", false)? {
            let e = entry("NonStopSession");
            if let Some(w) = [
                "StartTime",
                "EndTime",
                "StartDay",
                "EndDay",
                "Weekdays",
                "LogonTime",
                "LogoutTime",
                "LogonDay",
                "LogoutDay",
            ]
            .into_iter()
            .find_map(|k| self.entry(k))
            {
                return Err(self.err(
                    e,
                    format!(
                        "Y contradicts {}{}: a non-stop session has no window (leave out one or the other)",
                        w.key,
                        line_note(w)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// ` (line n)` for an entry from a file, nothing for one set in code.
fn line_note(e: &SettingLine) -> String {
    if e.line == 0 {
        String::new()
    } else {
        format!(" (line {})", e.line)
    }
}

/// A day name, full or a prefix of two letters or more, any case (`Mon`, `monday`,
/// `TU`).
pub(super) fn day_of(name: &str) -> Option<u8> {
    const DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    let v = name.to_ascii_lowercase();
    DAYS.iter()
        .position(|d| v.len() >= 2 && d.starts_with(&v))
        .map(|i| i as u8)
}

/// Seconds into the week (for a weekly window) or the day.
fn at(t: TimeOfDay, day: Option<u8>) -> u32 {
    u32::from(day.unwrap_or(0)) * 86_400 + t.0
}

/// Whether position `p` lies in the window from `start` to `end`, both ends
/// included as in QuickFIX C++ (wrapping; equal: all of it).
fn within(start: TimeOfDay, end: TimeOfDay, days: Option<(u8, u8)>, p: u32) -> bool {
    let (s, e) = (at(start, days.map(|d| d.0)), at(end, days.map(|d| d.1)));
    match s.cmp(&e) {
        std::cmp::Ordering::Equal => true,
        std::cmp::Ordering::Less => s <= p && p <= e,
        std::cmp::Ordering::Greater => p >= s || p <= e,
    }
}

//! The check after a `production` pair: both processes' message logs hold every order and
//! every report of the run, and their event logs are not empty. It fails the run when an
//! engine's logging stayed off (a setting that did not take, a harness that ignored it),
//! so the config can never measure a round trip without its logs.
//!
//! Every engine writes QuickFIX's layout in its log directory: a messages log
//! (`<session>.messages.log`; QuickFIX C++ 1.15.1 `<session>.messages.current.log`), a
//! message a line with its separators kept, and an event log (`….event.log`,
//! `….event.current.log`).

use crate::{Error, Result};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// What one process's log directory holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogCounts {
    /// Lines of its messages logs that hold a NewOrderSingle (`35=D`).
    pub orders: u64,
    /// Lines that hold an ExecutionReport (`35=8`).
    pub reports: u64,
    /// Bytes of its event logs.
    pub event_bytes: u64,
}

/// Counts what the logs in `dir` hold: the lines of every file whose name has
/// `messages` that carry MsgType D or 8, and the size of every file whose name has
/// `event`.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("rt-logs-count-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("FIX.4.4-CLIENT-VENUE.messages.log"),
///     "t : 8=FIX.4.4\x019=5\x0135=D\x0110=000\x01\nt : 8=FIX.4.4\x019=5\x0135=8\x0110=000\x01\n")?;
/// std::fs::write(dir.join("FIX.4.4-CLIENT-VENUE.event.log"), "t : Created session\n")?;
/// let c = peregrine_bench::roundtrip::logs::count(&dir)?;
/// std::fs::remove_dir_all(&dir)?;
/// assert_eq!((c.orders, c.reports, c.event_bytes), (1, 1, 20));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Check`] when `dir` or one of its logs cannot be read.
pub fn count(dir: &Path) -> Result<LogCounts> {
    let unreadable = |what: &Path, e: std::io::Error| {
        Error::check(format!("cannot read the log {}", what.display()), e)
    };
    let mut c = LogCounts::default();
    for entry in std::fs::read_dir(dir).map_err(|e| unreadable(dir, e))? {
        let path = entry.map_err(|e| unreadable(dir, e))?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.contains("event") {
            c.event_bytes += std::fs::metadata(&path)
                .map_err(|e| unreadable(&path, e))?
                .len();
        } else if name.contains("messages") {
            let file = std::fs::File::open(&path).map_err(|e| unreadable(&path, e))?;
            let mut lines = BufReader::with_capacity(1 << 16, file);
            let mut line = Vec::with_capacity(512);
            loop {
                line.clear();
                let n = lines
                    .read_until(b'\n', &mut line)
                    .map_err(|e| unreadable(&path, e))?;
                if n == 0 {
                    break;
                }
                if contains(&line, b"\x0135=D\x01") {
                    c.orders += 1;
                } else if contains(&line, b"\x0135=8\x01") {
                    c.reports += 1;
                }
            }
        }
    }
    Ok(c)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Checks that the logs in `dir` (of `engine`'s `role`) hold at least `round_trips`
/// orders and as many reports, and some events; returns what they hold.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("rt-logs-check-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("FIX.4.4-VENUE-CLIENT.event.log"), "t : Created session\n")?;
/// let e = peregrine_bench::roundtrip::logs::check(&dir, "quickfixj", "acceptor", 1).unwrap_err();
/// std::fs::remove_dir_all(&dir)?;
/// assert!(e.to_string().contains("0 NewOrderSingles and 0 ExecutionReports"), "{e}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Check`] when there are fewer, when the event log is empty or missing, or
/// when the logs cannot be read.
pub fn check(dir: &Path, engine: &str, role: &str, round_trips: u64) -> Result<LogCounts> {
    let c = count(dir)?;
    if c.orders < round_trips || c.reports < round_trips || c.event_bytes == 0 {
        return Err(Error::failed_check(format!(
            "{engine} {role}: its logs in {} hold {} NewOrderSingles and {} ExecutionReports \
             ({round_trips} round trips ran) and {} bytes of events: message or event logging \
             is not on",
            dir.display(),
            c.orders,
            c.reports,
            c.event_bytes
        )));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_message_once_and_only_full_msg_types() {
        let dir = std::env::temp_dir().join(format!("rt-logs-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let m = dir.join("FIX.4.4-CLIENT-VENUE.messages.current.log");
        let mut text = String::new();
        for _ in 0..3 {
            text.push_str(
                "20261128-10:00:00.000 : 8=FIX.4.4\x019=9\x0135=D\x0111=C1\x0110=1\x01\n",
            );
            text.push_str("8=FIX.4.4\x019=9\x0135=8\x0111=C1\x0110=1\x01\n");
        }
        // Not a NewOrderSingle: MsgType DA, and 35=D inside another value.
        text.push_str("8=FIX.4.4\x019=9\x0135=DA\x0110=1\x01\n");
        text.push_str("8=FIX.4.4\x019=9\x0135=0\x0158=x35=D\x0110=1\x01\n");
        std::fs::write(&m, text).unwrap();
        std::fs::write(dir.join("x.event.current.log"), "").unwrap();
        let c = count(&dir).unwrap();
        assert_eq!((c.orders, c.reports, c.event_bytes), (3, 3, 0));
        // Every message is there but no event: logging is not (all) on.
        assert!(check(&dir, "quickfix-cpp", "initiator", 3).is_err());
        std::fs::write(dir.join("x.event.current.log"), "logon\n").unwrap();
        assert_eq!(
            check(&dir, "quickfix-cpp", "initiator", 3).unwrap().orders,
            3
        );
        let e = check(&dir, "quickfix-cpp", "initiator", 4).unwrap_err();
        assert!(e.to_string().contains("4 round trips ran"), "{e}");
        // No directory at all: the engine never opened its logs.
        assert!(check(&dir.join("none"), "peregrine", "acceptor", 1).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

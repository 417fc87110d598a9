//! A session held back by its schedule says so, as QuickFIX/J writes the
//! schedule when a session is created: over real sockets on 127.0.0.1, an
//! engine (built from `.cfg` text, `FileLogPath`, `AdminHttpPort`) whose
//! windows are computed from the current UTC time writes its schedule and
//! "outside the schedule, next window opens at …" once per closed period in
//! each session's event log (after a refused Logon too), its initiator does
//! not connect, a window that closes while the engine runs is written when
//! it does, and `GET /sessions` shows `in_schedule`, `next_window_opens` and
//! `window_closes`.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use peregrine_engine::EngineBuilder;
use peregrine_session::EchoApp;
use peregrine_testkit::net::free_port;

use crate::support;
use support::peer_logon;

const DAY: i64 = 86_400;

fn hms(secs: i64) -> String {
    let s = secs.rem_euclid(DAY);
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `2026-11-30 14:00:00 UTC` / `2026-11-30T14:00:00Z` for seconds since the epoch.
fn utc(secs: i64, pattern: &str) -> String {
    jiff::Timestamp::from_second(secs)
        .unwrap()
        .strftime(pattern)
        .to_string()
}

/// A session's object in the `/sessions` JSON.
fn session<'a>(list: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

#[test]
fn a_session_outside_its_schedule_says_so_and_when_it_opens() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    // CLOSED opens in two hours, for an hour (UTC); OPEN opened an hour ago
    // and closes in an hour. Neither changes while the test runs.
    let (opens, open_closes) = (now + 2 * 3600, now + 3600);
    // SOON closes while the test runs (6 s leaves a slow start time to make
    // its session first): the edge is written when it comes.
    let soon = now + 6;
    // The initiator's window in New York local time: also two hours ahead
    // (unless the clocks change in New York within those two hours).
    let ny = jiff::tz::TimeZone::get("America/New_York").unwrap();
    let ny_now = jiff::Timestamp::from_second(now).unwrap().to_zoned(ny);
    let ny_secs = i64::from(ny_now.hour()) * 3600
        + i64::from(ny_now.minute()) * 60
        + i64::from(ny_now.second());
    let nobody = TcpListener::bind("127.0.0.1:0").unwrap();
    nobody.set_nonblocking(true).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let admin = free_port();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nFileLogPath={log}\nAdminHttpPort={admin}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLOSED\nStartTime={c0}\nEndTime={c1}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=OPEN\nStartTime={o0}\nEndTime={o1}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=ALWAYS\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=SOON\nStartTime={o0}\nEndTime={s1}\n\
         [SESSION]\nConnectionType=initiator\nBeginString=FIX.4.4\nTargetCompID=NY\n\
         SocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n\
         TimeZone=America/New_York\nStartTime={n0}\nEndTime={n1}\n",
        log = dir.path().display(),
        c0 = hms(opens),
        c1 = hms(opens + 3600),
        o0 = hms(now - 3600),
        o1 = hms(open_closes),
        s1 = hms(soon),
        n0 = hms(ny_secs + 2 * 3600),
        n1 = hms(ny_secs + 3 * 3600),
        port = nobody.local_addr().unwrap().port(),
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();

    // The acceptor refuses a Logon outside its hours; the initiator does
    // not connect (ReconnectInterval=1: it would have tried by now).
    let (_peer, answer) = peer_logon(
        venue.listener_addrs()[0],
        "CLOSED",
        "VENUE",
        Duration::from_secs(5),
    );
    assert!(
        answer.as_deref().map_or(true, |a| !a.contains("35=A")),
        "logged on outside the schedule: {answer:?}"
    );
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(2500) {
        assert!(nobody.accept().is_err(), "the initiator connected");
        std::thread::sleep(Duration::from_millis(50));
    }

    // /sessions over HTTP.
    let addr = venue.admin_addr().expect("AdminHttpPort starts it");
    let (status, _, body) = support::get(addr, "/sessions", None);
    assert_eq!(status, 200, "{body}");
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let closed = session(&list, "FIX.4.4:VENUE->CLOSED");
    assert_eq!(closed["in_schedule"], false, "{closed}");
    assert_eq!(closed["logon_allowed"], false, "{closed}");
    assert_eq!(
        closed["next_window_opens"],
        utc(opens, "%Y-%m-%dT%H:%M:%SZ"),
        "{closed}"
    );
    assert!(closed["window_closes"].is_null(), "{closed}");
    let open = session(&list, "FIX.4.4:VENUE->OPEN");
    assert_eq!(open["in_schedule"], true, "{open}");
    assert!(open["next_window_opens"].is_null(), "{open}");
    assert_eq!(
        open["window_closes"],
        utc(open_closes, "%Y-%m-%dT%H:%M:%SZ"),
        "{open}"
    );
    let always = session(&list, "FIX.4.4:VENUE->ALWAYS");
    assert_eq!(always["in_schedule"], true, "{always}");
    assert!(always["schedule"].is_null() && always["window_closes"].is_null());
    let ny = session(&list, "FIX.4.4:VENUE->NY");
    assert_eq!(ny["in_schedule"], false, "{ny}");
    assert_eq!(
        ny["next_window_opens"],
        utc(now + 2 * 3600, "%Y-%m-%dT%H:%M:%SZ"),
        "{ny}"
    );
    // Past SOON's closing (and the log thread's 10 ms).
    while std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        < soon as f64 + 0.5
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    venue.stop().unwrap();

    let event_log = |name: &str| {
        std::fs::read_to_string(dir.path().join(format!("FIX.4.4-VENUE-{name}.event.log"))).unwrap()
    };
    let texts = |log: &str| -> Vec<String> {
        log.lines()
            .map(|l| l.split_once(" : ").expect("time : text").1.to_string())
            .collect()
    };
    let closed_log = event_log("CLOSED");
    let lines = texts(&closed_log);
    assert_eq!(
        lines[..3],
        [
            "session created".to_string(),
            format!("schedule: {} - {} daily UTC", hms(opens), hms(opens + 3600)),
            format!(
                "outside the schedule, next window opens at {}",
                utc(opens, "%Y-%m-%d %H:%M:%S UTC")
            ),
        ],
        "{closed_log}"
    );
    // Once per closed period: the refused Logon wrote its own lines, not a
    // second one of these.
    let outside = lines
        .iter()
        .filter(|l| l.starts_with("outside the schedule"))
        .count();
    assert_eq!(outside, 1, "{closed_log}");
    assert!(
        lines.iter().any(|l| l.starts_with("accepted connection")),
        "{closed_log}"
    );

    let ny_log = event_log("NY");
    let local = jiff::Timestamp::from_second(now + 2 * 3600)
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::get("America/New_York").unwrap())
        .strftime("%H:%M:%S %Z")
        .to_string();
    let ny_lines = texts(&ny_log);
    assert!(
        ny_lines.contains(&format!(
            "outside the schedule, next window opens at {} ({local} America/New_York)",
            utc(now + 2 * 3600, "%Y-%m-%d %H:%M:%S UTC")
        )),
        "{ny_log}"
    );
    assert!(
        !ny_lines.iter().any(|l| l.starts_with("connecting")),
        "{ny_log}"
    );

    let open_log = texts(&event_log("OPEN"));
    assert!(
        open_log.contains(&format!(
            "inside the schedule, window closes at {}",
            utc(open_closes, "%Y-%m-%d %H:%M:%S UTC")
        )),
        "{open_log:?}"
    );
    let soon_log = texts(&event_log("SOON"));
    assert_eq!(
        soon_log[2..4],
        [
            format!(
                "inside the schedule, window closes at {}",
                utc(soon, "%Y-%m-%d %H:%M:%S UTC")
            ),
            format!(
                "outside the schedule, next window opens at {}",
                utc(now - 3600 + DAY, "%Y-%m-%d %H:%M:%S UTC")
            ),
        ],
        "{soon_log:?}"
    );
    let always_log = texts(&event_log("ALWAYS"));
    assert_eq!(
        always_log[..2],
        ["session created", "no schedule (always on)"],
        "{always_log:?}"
    );
}

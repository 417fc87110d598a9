//! The runner against fake acceptors over real TCP (no shared data needed).

mod common;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use peregrine_acceptance::{
    run_script, write_report, FakeAdmin, PlaybackError, RunConfig, Script, ScriptResult,
};

/// Line 1 comment, 2 iCONNECT, 3 I logon, 4 E logon, 5 blank, 6 I logout, 7 E logout, 8 eDISCONNECT.
const LOGON_LOGOUT: &[u8] = b"# When we receive a valid logon, we must respond with one\r\n\
iCONNECT\r\n\
I8=FIX.4.0\x0135=A\x0134=1\x0149=TW\x0152=<TIME>\x0156=ISLD\x0198=0\x01108=30\x01\r\n\
E8=FIX.4.0\x019=57\x0135=A\x0134=1\x0149=ISLD\x0152=00000000-00:00:00\x0156=TW\x0198=0\x01108=30\x0110=0\x01\r\n\
\r\n\
I8=FIX.4.0\x0135=5\x0134=2\x0149=TW\x0152=<TIME>\x0156=ISLD\x01\r\n\
E8=FIX.4.0\x019=45\x0135=5\x0134=2\x0149=ISLD\x0152=00000000-00:00:00\x0156=TW\x0110=0\x01\r\n\
eDISCONNECT\r\n";

const LOGON_E: &str = "8=FIX.4.0|9=57|35=A|34=1|49=ISLD|52=00000000-00:00:00|56=TW|98=0|108=30|10=";

fn script(text: &[u8]) -> Script {
    Script::parse_bytes("test", text).unwrap()
}

/// The logon/logout script with its line `line` replaced.
fn script_with_line(line: usize, replacement: &[u8]) -> Script {
    let mut lines: Vec<&[u8]> = LOGON_LOGOUT.split(|&b| b == b'\n').collect();
    let mut owned = replacement.to_vec();
    owned.extend_from_slice(b"\r");
    lines[line - 1] = &owned;
    script(&lines.join(&b'\n'))
}

fn no_admin() -> SocketAddr {
    // A port nothing listens on (bound then released).
    let l = common::listener();
    l.local_addr().unwrap()
}

fn cfg(addr: SocketAddr) -> RunConfig {
    common::config(addr, no_admin(), common::builtin_patterns())
}

/// Runs the logon/logout script against a fake acceptor playing `fake`, with `set`
/// applied to the run's configuration: the result, how long the run took, and the fake.
fn run_against(
    fake: &Script,
    set: impl FnOnce(&mut RunConfig),
) -> (
    ScriptResult,
    Duration,
    JoinHandle<Result<(), PlaybackError>>,
) {
    let runner_script = script(LOGON_LOGOUT);
    let (addr, fake) = common::playback(fake, |_, m| m);
    let mut c = cfg(addr);
    set(&mut c);
    let start = Instant::now();
    let r = run_script(&runner_script, &c);
    (r, start.elapsed(), fake)
}

#[test]
fn passes_against_playback() {
    let s = script(LOGON_LOGOUT);
    let (addr, fake) = common::playback(&s, |_, m| m);
    let r = run_script(&s, &cfg(addr));
    assert!(r.passed, "{:?}", r.first_difference);
    assert_eq!(r.first_difference, None);
    assert_eq!(r.name, "test");
    fake.join().unwrap().unwrap();
}

#[test]
fn wrong_value_fails_with_the_first_difference_quickly() {
    let s = script(LOGON_LOGOUT);
    let (addr, _fake) = common::playback(&s, |line, m| {
        if line == 4 {
            String::from_utf8(m)
                .unwrap()
                .replace("108=30", "108=31")
                .into_bytes()
        } else {
            m
        }
    });
    let start = Instant::now();
    let r = run_script(&s, &cfg(addr));
    assert!(!r.passed);
    let diff = r.first_difference.unwrap();
    assert!(
        diff.starts_with("line 4: field 8: expected 108=30, got 108=31; expected 8=FIX.4.0|9=57|"),
        "{diff}"
    );
    assert!(diff.contains("|108=31|10="), "{diff}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn missing_reply_fails_within_the_bound() {
    // The fake reads the logon and then says nothing until the runner closes.
    let fake_script = script(
        b"iCONNECT\r\nI8=FIX.4.0\x0135=A\x0134=1\x0149=TW\x0152=<TIME>\x0156=ISLD\x0198=0\x01108=30\x01\r\niDISCONNECT\r\n",
    );
    let (r, took, fake) = run_against(&fake_script, |c| {
        c.timeout_expect = Duration::from_millis(400)
    });
    assert!(!r.passed);
    let diff = r.first_difference.unwrap();
    assert!(
        diff.starts_with(&format!("line 4: timed out waiting for {LOGON_E}")),
        "{diff}"
    );
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    fake.join().unwrap().unwrap();
}

#[test]
fn partial_message_then_silence_times_out_and_shows_the_data() {
    let s = script(LOGON_LOGOUT);
    let (addr, _fake) =
        common::playback(&s, |line, m| if line == 4 { m[..20].to_vec() } else { m });
    let mut c = cfg(addr);
    c.timeout_expect = Duration::from_millis(300);
    let r = run_script(&s, &c);
    let diff = r.first_difference.unwrap();
    assert!(diff.starts_with("line 4: timed out waiting for"), "{diff}");
    assert!(
        diff.ends_with("partial data: 8=FIX.4.0|9=57|35=A|"),
        "{diff}"
    );
}

#[test]
fn two_messages_in_one_segment_are_both_used() {
    // The runner sends logon and logout, then expects both replies; the fake
    // reads both and answers with the two replies in a single write, so the
    // runner must frame the first and keep the second buffered.
    let lines: Vec<&[u8]> = LOGON_LOGOUT.split(|&b| b == b'\n').collect();
    let reordered = [lines[1], lines[2], lines[5], lines[3], lines[6], lines[7]].join(&b'\n');
    let s = script(&reordered); // E lines are now on lines 4 and 5
    let mut held = Vec::new();
    let (addr, fake) = common::playback(&s, move |line, m| {
        if line == 4 {
            held = m;
            Vec::new()
        } else {
            let mut both = std::mem::take(&mut held);
            both.extend_from_slice(&m);
            both
        }
    });
    let r = run_script(&s, &cfg(addr));
    assert!(r.passed, "{:?}", r.first_difference);
    fake.join().unwrap().unwrap();
}

#[test]
fn data_instead_of_disconnect_fails() {
    let fake_script = script_with_line(
        8,
        b"E8=FIX.4.0\x0135=0\x0134=3\x0149=ISLD\x0152=00000000-00:00:00\x0156=TW\x01\r\niDISCONNECT",
    );
    let (r, _, _fake) = run_against(&fake_script, |_| {});
    let diff = r.first_difference.unwrap();
    assert!(
        diff.starts_with(
            "line 8: expected connection 1 to be closed, received 8=FIX.4.0|9=45|35=0|34=3|"
        ),
        "{diff}"
    );
}

#[test]
fn disconnect_that_never_comes_times_out() {
    let (r, took, fake) = run_against(&script_with_line(8, b"iDISCONNECT"), |c| {
        c.timeout_disconnect = Duration::from_millis(300)
    });
    assert_eq!(
        r.first_difference.as_deref(),
        Some("line 8: timed out waiting for disconnect of connection 1 (after 300ms)")
    );
    assert!(took < Duration::from_secs(3));
    fake.join().unwrap().unwrap();
}

#[test]
fn acceptor_closing_early_is_reported() {
    let (r, _, _fake) = run_against(&script_with_line(4, b"eDISCONNECT"), |_| {});
    let diff = r.first_difference.unwrap();
    assert!(
        diff.starts_with("line 4: connection 1 closed by the acceptor"),
        "{diff}"
    );
    assert!(
        diff.contains(&format!("while waiting for {LOGON_E}")),
        "{diff}"
    );
}

#[test]
fn nothing_listening_fails_at_the_probe() {
    let r = run_script(&script(LOGON_LOGOUT), &cfg(no_admin()));
    assert!(!r.passed);
    assert!(
        r.first_difference
            .as_deref()
            .unwrap()
            .starts_with("probe connection to 127.0.0.1:"),
        "{:?}",
        r.first_difference
    );
}

#[test]
fn probe_connection_comes_first_and_is_empty() {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = std::thread::spawn(move || {
        let mut received = Vec::new();
        for _ in 0..2 {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut data = Vec::new();
            s.read_to_end(&mut data).unwrap();
            received.push(data);
        }
        received
    });
    let r = run_script(
        &script(b"iCONNECT\r\nI8=FIX.4.4\x0135=0\x01\r\niDISCONNECT\r\n"),
        &cfg(addr),
    );
    assert!(r.passed, "{:?}", r.first_difference);
    let received = fake.join().unwrap();
    assert_eq!(received[0], b"");
    assert_eq!(received[1], b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01");
}

const SET_SESSION: &[u8] = b"iCONNECT\r\n\
iSET_SESSION FIX.4.4:ISLD->TW NEXTSENDERSEQNUM=2000\r\n\
iSET_SESSION FIX.4.4:ISLD->TW NEXTTARGETSEQNUM=7\r\n\
I8=FIX.4.4\x0135=A\x0134=7\x0149=TW\x0152=<TIME>\x0156=ISLD\x0198=0\x01108=30\x01\r\n\
E8=FIX.4.4\x0135=A\x0134=2000\x0149=ISLD\x0152=00000000-00:00:00.000\x0156=TW\x0198=0\x01108=30\x01\r\n\
iDISCONNECT\r\n";

/// Runs the SET_SESSION script against a playback fake, with an admin endpoint
/// answering `status`: the result, the admin (what it was asked) and the fake.
fn run_set_session(
    status: &str,
) -> (
    ScriptResult,
    FakeAdmin,
    JoinHandle<Result<(), PlaybackError>>,
) {
    let s = script(SET_SESSION);
    let admin = common::admin(status);
    let (addr, fake) = common::playback(&s, |_, m| m);
    let c = common::config(addr, admin.addr, common::builtin_patterns());
    (run_script(&s, &c), admin, fake)
}

#[test]
fn set_session_sends_the_admin_request() {
    let (r, admin, fake) = run_set_session("200 OK");
    assert!(r.passed, "{:?}", r.first_difference);
    fake.join().unwrap().unwrap();
    assert_eq!(
        *admin.requests.lock().unwrap(),
        [
            "GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000 HTTP/1.1",
            "GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTTARGETSEQNUM=7 HTTP/1.1",
        ]
    );
}

#[test]
fn set_session_requires_200() {
    let (r, admin, _fake) = run_set_session("500 Internal Server Error");
    let diff = r.first_difference.unwrap();
    assert!(
        diff.starts_with(
            "line 2: admin request GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000"
        ),
        "{diff}"
    );
    assert!(
        diff.ends_with("got \"HTTP/1.1 500 Internal Server Error\", expected 200"),
        "{diff}"
    );
    assert_eq!(admin.requests.lock().unwrap().len(), 1);
}

#[test]
fn set_session_with_no_admin_endpoint_fails() {
    let s = script(SET_SESSION);
    let (addr, _fake) = common::playback(&s, |_, m| m);
    let r = run_script(&s, &cfg(addr));
    let diff = r.first_difference.unwrap();
    assert!(diff.starts_with("line 2: admin request"), "{diff}");
    assert!(diff.contains("cannot connect"), "{diff}");
}

#[test]
fn admin_without_content_length_is_accepted() {
    let listener = common::listener();
    let admin_addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = s.read(&mut buf);
        // HTTP/1.0 style: no length, the body ends when the connection closes.
        s.write_all(b"HTTP/1.0 200 OK\r\n\r\ndone").unwrap();
    });
    let start = Instant::now();
    peregrine_acceptance::set_session(
        admin_addr,
        "FIX.4.4:ISLD->TW",
        Some(1),
        None,
        Duration::from_secs(5),
    )
    .unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn report_lines() {
    let results = vec![
        ScriptResult {
            name: "server/fix44/a".into(),
            passed: true,
            first_difference: None,
            duration: Duration::from_millis(5),
        },
        ScriptResult::failed(
            "server/fix44/b",
            "line 4: field 8: expected 108=30, got 108=31",
        ),
    ];
    let mut out = Vec::new();
    write_report(&results, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "FAIL server/fix44/b: line 4: field 8: expected 108=30, got 108=31\n1 passed, 1 failed\n"
    );
}

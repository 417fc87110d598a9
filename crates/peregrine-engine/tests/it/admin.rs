//! The admin HTTP interface against a running engine, over real sockets on
//! 127.0.0.1: `/seqnum` sets a session's numbers (with the token) and they are
//! in force when `200` comes back; `/sessions` lists sessions as JSON; errors
//! are 400/401/403/404/405/413/431; hostile clients (dripping, idle, too many)
//! delay no one for long. Also the `AdminHttp*` settings.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use peregrine_engine::admin::AdminOptions;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::{
    now_nanos, spawn_admin_server, Command, CommandError, EngineHandle, EngineOptions, Outcome,
};
use peregrine_testkit::{frame, read_message};

use crate::support;
use support::{acceptor_cfg, echo, engine_with, loopback, serve_admin};

const TOKEN: &str = "t0k3n-for-tests";

fn with_token() -> AdminOptions {
    AdminOptions {
        token: Some(TOKEN.into()),
        ..AdminOptions::default()
    }
}

/// The status and body of the answer to `request` (see [`support::http`]).
fn http(addr: SocketAddr, request: &str) -> (u16, String) {
    without_head(support::http(addr, request))
}

fn get(addr: SocketAddr, target: &str) -> (u16, String) {
    without_head(support::get(addr, target, None))
}

/// `GET` with `Authorization: Bearer <token>`.
fn get_with(addr: SocketAddr, target: &str, token: &str) -> (u16, String) {
    without_head(support::get(addr, target, Some(token)))
}

fn without_head((status, _head, body): (u16, String, String)) -> (u16, String) {
    (status, body)
}

/// An engine with the sessions of `text` (echo, memory stores), running on its
/// own thread; the address of its FIX listener.
fn run_engine(text: &str, dir: &Path) -> (SocketAddr, EngineHandle, Reactor) {
    let mut engine = engine_with(
        text,
        &dir.join("a.cfg"),
        EngineOptions::default(),
        StoreKind::Memory,
        &mut echo,
    );
    let fix = engine.listener_addrs()[0];
    let handle = engine.handle();
    (fix, handle, std::thread::spawn(move || engine.run()))
}

type Reactor = JoinHandle<std::io::Result<()>>;

/// An engine with one FIX.4.4 acceptor session (ISLD->TW), running on its own
/// thread.
fn start_engine() -> (EngineHandle, Reactor) {
    let dir = tempfile::tempdir().unwrap();
    let (_, handle, reactor) = run_engine(&acceptor_cfg(""), dir.path());
    (handle, reactor)
}

fn stop(handle: EngineHandle, reactor: Reactor) {
    handle.stop();
    reactor.join().unwrap().unwrap();
}

/// Waits until the server closes `s` (EOF or reset); how long that took, or
/// `None` if it was still open after `limit`. Bytes the server sends (an error
/// answer) are read and ignored.
fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None
            }
            Err(_) => return Some(start.elapsed()),
        }
        if start.elapsed() > limit {
            return None;
        }
    }
}

#[test]
fn seqnum_and_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                FileLogPath=log\n[SESSION]\nBeginString=FIX.4.4\n\
                [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\nSessionQualifier=Q\n";
    let (fix, handle, reactor) = run_engine(text, dir.path());
    let admin = serve_admin(&handle, with_token());
    let set = |target: &str| get_with(admin, target, TOKEN);

    let (status, body) = set("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000");
    assert_eq!(status, 200, "{body}");
    // In force before the 200: the Logon answer carries 34=2000.
    let mut c = TcpStream::connect(fix).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let now = peregrine_engine::log::timestamp(now_nanos());
    c.write_all(&frame(&format!(
        "35=A|34=1|49=TW|52={}|56=ISLD|98=0|108=30|",
        &now[..21]
    )))
    .unwrap();
    let answer = read_message(&mut c);
    assert!(answer.contains("|35=A|34=2000|"), "{answer}");

    let (status, body) = set("/seqnum?SESSION=FIX.4.4%3AISLD-%3ETW&NEXTTARGETSEQNUM=7");
    assert_eq!(status, 200, "{body}");
    let (status, json) = get(admin, "/sessions");
    assert_eq!(status, 200);
    assert!(json.starts_with("[{\"session\":\"FIX.4.4:ISLD->TW\",\"state\":\"LoggedOn\",\"connected\":true,\"logged_on\":true,\"next_sender_seq\":2001,\"next_target_seq\":7,"), "{json}");
    assert!(
        json.contains(
            "{\"session\":\"FIXT.1.1:ISLD->TW:Q\",\"state\":\"Disconnected\",\"connected\":false"
        ),
        "{json}"
    );

    // The qualifier may be left out when it names one session.
    let (status, body) =
        set("/seqnum?SESSION=FIXT.1.1:ISLD-%3ETW&NEXTSENDERSEQNUM=5&NEXTTARGETSEQNUM=6");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("next_sender_seq=5 next_target_seq=6"),
        "{body}"
    );

    for (target, want) in [
        ("/seqnum?SESSION=FIX.4.2:A-%3EB&NEXTSENDERSEQNUM=1", 404),
        (
            "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=abc",
            400,
        ),
        ("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=0", 400),
        ("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW", 400),
        ("/seqnum?NEXTSENDERSEQNUM=3", 400),
        ("/nothing", 404),
    ] {
        assert_eq!(set(target).0, want, "{target}");
    }
    assert_eq!(http(admin, "POST /sessions HTTP/1.1\r\n\r\n").0, 405);

    // Direct calls through the handle, then a graceful stop.
    let reply = handle
        .call(Command::ListSessions, Duration::from_secs(5))
        .unwrap();
    match reply {
        Ok(Outcome::Sessions(sessions)) => {
            assert_eq!(sessions.len(), 2);
            assert!(sessions[0].logged_on, "{sessions:?}");
            assert_eq!(sessions[1].name, "FIXT.1.1:ISLD->TW:Q");
            assert_eq!(
                (sessions[1].next_sender_seq, sessions[1].next_target_seq),
                (5, 6)
            );
        }
        other => panic!("{other:?}"),
    }
    let reply = handle.call(
        Command::SetSeqNum {
            session: "FIX.4.4:NOPE->TW".into(),
            next_sender: Some(3),
            next_target: None,
        },
        Duration::from_secs(5),
    );
    assert!(
        matches!(&reply, Ok(Err(CommandError::NoSuchSession { name })) if name == "FIX.4.4:NOPE->TW"),
        "{reply:?}"
    );
    handle.stop();
    reactor.join().unwrap().unwrap();
    // The stop logged the session out.
    let answer = read_message(&mut c);
    assert!(answer.contains("|35=5|"), "{answer}");
}

/// (a) Regression: the old server answered one connection after another, so a
/// client sending its request a byte every 200 ms kept everyone else waiting
/// (this test failed against it: "no answer in 3.2s").
#[test]
fn a_dripping_client_does_not_delay_others() {
    let (handle, reactor) = start_engine();
    let admin = serve_admin(&handle, AdminOptions::default());
    let done = Arc::new(AtomicBool::new(false));
    let dripper = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut s = TcpStream::connect(admin).unwrap();
            let head = b"GET /sessions HTTP/1.1\r\nX-Drip: ";
            // Bounded: at most 40 bytes (8 s), and it stops when the test is done.
            for &b in head.iter().chain(std::iter::repeat(&b'a')).take(40) {
                if done.load(Ordering::Relaxed) || s.write_all(&[b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    // Let the dripper's connection be accepted and half-read first.
    std::thread::sleep(Duration::from_millis(500));
    let start = Instant::now();
    let mut s = TcpStream::connect(admin).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    s.write_all(b"GET /sessions HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let elapsed = start.elapsed();
    done.store(true, Ordering::Relaxed);
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.starts_with("HTTP/1.1 200"),
        "no answer in {elapsed:?}: {out:?}"
    );
    assert!(
        elapsed < Duration::from_secs(2),
        "answered after {elapsed:?}"
    );
    dripper.join().unwrap();
    stop(handle, reactor);
}

/// (b) A client that never finishes its request head (slowloris) is cut at
/// the header read timeout, however steadily it drips.
#[test]
fn a_slowloris_connection_is_closed_at_the_header_timeout() {
    let (handle, reactor) = start_engine();
    let options = AdminOptions {
        header_read_timeout: Duration::from_millis(300),
        ..AdminOptions::default()
    };
    let admin = serve_admin(&handle, options);
    let start = Instant::now();
    let mut s = TcpStream::connect(admin).unwrap();
    s.set_nodelay(true).unwrap();
    let mut writer = s.try_clone().unwrap();
    let dripper = std::thread::spawn(move || {
        // A byte every 50 ms, for at most 3 s; stops when the server closes.
        for &b in b"GET /sessions HTTP/1.1\r\nX-Drip: "
            .iter()
            .chain(std::iter::repeat(&b'a'))
            .take(60)
        {
            if writer.write_all(&[b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let closed = closed_within(&mut s, Duration::from_secs(3));
    let after = start.elapsed();
    dripper.join().unwrap();
    assert!(closed.is_some(), "still open after {after:?}");
    assert!(
        after >= Duration::from_millis(250) && after < Duration::from_millis(1500),
        "closed after {after:?}"
    );
    // An idle connection (nothing sent) is cut the same way.
    let mut idle = TcpStream::connect(admin).unwrap();
    let closed = closed_within(&mut idle, Duration::from_secs(3));
    assert!(
        closed.is_some_and(|d| d < Duration::from_millis(1500)),
        "{closed:?}"
    );
    // And the server still answers.
    assert_eq!(get(admin, "/sessions").0, 200);
    stop(handle, reactor);
}

/// The whole-connection limit cuts a connection even when the header timeout
/// is longer.
#[test]
fn the_connection_time_limit_cuts_any_connection() {
    let (handle, reactor) = start_engine();
    let options = AdminOptions {
        header_read_timeout: Duration::from_secs(30),
        connection_timeout: Duration::from_millis(400),
        ..AdminOptions::default()
    };
    let admin = serve_admin(&handle, options);
    let start = Instant::now();
    let mut s = TcpStream::connect(admin).unwrap();
    s.write_all(b"GET /sessions HTTP/1.1\r\n").unwrap();
    let closed = closed_within(&mut s, Duration::from_secs(5));
    assert!(
        closed.is_some() && start.elapsed() < Duration::from_millis(2000),
        "closed: {closed:?}, after {:?}",
        start.elapsed()
    );
    assert_eq!(get(admin, "/sessions").0, 200);
    stop(handle, reactor);
}

/// (c) Past the cap of connections served at once, a new connection is
/// answered 503 at once; once the idle ones are cut (header timeout), a fresh
/// `GET /sessions` succeeds again.
#[test]
fn connections_past_the_cap_get_503_until_the_idle_ones_are_cut() {
    let (handle, reactor) = start_engine();
    let cap = 4;
    let options = AdminOptions {
        header_read_timeout: Duration::from_millis(800),
        max_connections: cap,
        ..AdminOptions::default()
    };
    let admin = serve_admin(&handle, options);
    let start = Instant::now();
    let mut idle: Vec<TcpStream> = (0..cap)
        .map(|_| TcpStream::connect(admin).unwrap())
        .collect();
    // Let the server accept them all (they hold every slot, sending nothing).
    std::thread::sleep(Duration::from_millis(150));
    let (status, body) = get(admin, "/sessions");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("too many admin connections"), "{body}");
    assert!(
        start.elapsed() < Duration::from_millis(700),
        "the 503 took {:?}",
        start.elapsed()
    );
    // The idle ones are cut at the header timeout...
    for s in &mut idle {
        let closed = closed_within(s, Duration::from_secs(3));
        assert!(closed.is_some(), "an idle connection was never cut");
    }
    // ...and then a fresh request is served.
    let deadline = Instant::now() + Duration::from_secs(3);
    let (status, body) = loop {
        let (status, body) = get(admin, "/sessions");
        if status == 200 || Instant::now() > deadline {
            break (status, body);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status, 200, "{body}");
    assert!(
        body.starts_with("[{\"session\":\"FIX.4.4:ISLD->TW\""),
        "{body}"
    );
    stop(handle, reactor);
}

/// (d) `/seqnum` needs the token: missing or wrong → 401, right → 200 and in
/// force; with no token configured → 403 naming `AdminHttpToken`. `/sessions`
/// needs none.
#[test]
fn seqnum_needs_the_token() {
    let (handle, reactor) = start_engine();
    let admin = serve_admin(&handle, with_token());
    let target = "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=42";
    let next_sender = || {
        let (status, json) = get(admin, "/sessions");
        assert_eq!(status, 200, "{json}");
        json.split("\"next_sender_seq\":").nth(1).unwrap()[..2].to_string()
    };
    assert_eq!(next_sender(), "1,");

    let (status, body) = get(admin, target);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("Authorization: Bearer"), "{body}");
    let (status, body) = get_with(admin, target, "t0k3n-for-test");
    assert_eq!(status, 401, "{body}");
    let (status, body) = get_with(admin, target, "t0k3n-for-tests-and-more");
    assert_eq!(status, 401, "{body}");
    let (status, body) = http(
        admin,
        &format!("GET {target} HTTP/1.1\r\nAuthorization: Basic {TOKEN}\r\n\r\n"),
    );
    assert_eq!(status, 401, "{body}");
    // Unauthenticated requests learn nothing about parameters either.
    assert_eq!(get(admin, "/seqnum?NEXTSENDERSEQNUM=x").0, 401);
    assert_eq!(next_sender(), "1,", "a refused request changed nothing");

    let (status, body) = get_with(admin, target, TOKEN);
    assert_eq!(status, 200, "{body}");
    assert_eq!(next_sender(), "42", "in force when the 200 came");
    // The scheme is case-insensitive.
    let (status, body) = http(
        admin,
        &format!("GET {target} HTTP/1.1\r\nauthorization: bearer {TOKEN}\r\n\r\n"),
    );
    assert_eq!(status, 200, "{body}");

    // No token configured: changes are refused, reading is not.
    let open = serve_admin(&handle, AdminOptions::default());
    let (status, body) = get_with(open, target, TOKEN);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("set AdminHttpToken"), "{body}");
    assert_eq!(get(open, target).0, 403);
    assert_eq!(get(open, "/sessions").0, 200);

    // Unusable tokens are refused up front.
    for bad in ["", "two words", "tab\there"] {
        let options = AdminOptions {
            token: Some(bad.into()),
            ..AdminOptions::default()
        };
        let e = spawn_admin_server(loopback(), handle.clone(), options).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{bad:?}");
        assert!(!e.to_string().contains(bad) || bad.is_empty(), "{e}");
    }
    stop(handle, reactor);
}

/// Request heads over 16 KiB get 431, request bodies 413, other methods 405.
#[test]
fn oversized_heads_bodies_and_other_methods_are_refused() {
    let (handle, reactor) = start_engine();
    let admin = serve_admin(&handle, with_token());
    let big = "a".repeat(20 * 1024);
    let (status, _) = http(
        admin,
        &format!("GET /sessions HTTP/1.1\r\nX-Big: {big}\r\n\r\n"),
    );
    assert_eq!(status, 431);
    let (status, body) = http(
        admin,
        "GET /sessions HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert_eq!(status, 413, "{body}");
    let (status, _) = http(admin, "DELETE /sessions HTTP/1.1\r\n\r\n");
    assert_eq!(status, 405);
    assert_eq!(get(admin, "/sessions").0, 200);
    stop(handle, reactor);
}

/// A session name typed as is (`FIX.4.4:A->B`, as curl sends it) is a byte a
/// URL may not hold: the 400 says which and how to write it (hyper alone
/// answered an empty 400); written `%3E`, the same request is served.
#[test]
fn an_unencoded_session_name_gets_a_400_that_says_how_to_write_it() {
    let (handle, reactor) = start_engine();
    let admin = serve_admin(&handle, with_token());
    let (status, body) = http(
        admin,
        &format!(
            "GET /seqnum?SESSION=FIX.4.4:ISLD->TW&NEXTSENDERSEQNUM=5 HTTP/1.1\r\n\
             Authorization: Bearer {TOKEN}\r\n\r\n"
        ),
    );
    assert_eq!(status, 400);
    assert!(
        body.starts_with("SESSION: the value holds '>' (byte 0x3E)")
            && body.contains("write it %3E"),
        "{body}"
    );
    let (status, body) = get_with(
        admin,
        "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=5",
        TOKEN,
    );
    assert_eq!(status, 200, "{body}");
    stop(handle, reactor);
}

/// Every 400 of the admin interface (its commands, the console's `api/…`,
/// and request targets hyper would refuse) names the parameter and the form
/// it expects, over a real socket: `SESSION: missing; expected a session id
/// like FIX.4.4:SENDER->TARGET …`.
#[test]
fn every_400_names_the_parameter_and_the_expected_form() {
    let dir = tempfile::tempdir().unwrap();
    // Two initiators that differ only by qualifier make FIX.4.4:TW->ISLD
    // ambiguous (they connect to a port nobody listens on).
    let text = format!(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         FileLogPath={log}\n[SESSION]\nBeginString=FIX.4.4\n\
         [SESSION]\nConnectionType=initiator\nBeginString=FIX.4.4\nSenderCompID=TW\n\
         TargetCompID=ISLD\nSessionQualifier=Q\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\n\
         [SESSION]\nConnectionType=initiator\nBeginString=FIX.4.4\nSenderCompID=TW\n\
         TargetCompID=ISLD\nSessionQualifier=R\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\n",
        log = dir.path().join("log").display()
    );
    let (_, handle, reactor) = run_engine(&text, dir.path());
    let admin = serve_admin(&handle, with_token());
    let isld = "SESSION=FIX.4.4:ISLD-%3ETW";
    let many = (0..20)
        .map(|i| format!("M{i}"))
        .collect::<Vec<_>>()
        .join(",");
    let long = "9".repeat(300);
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "/logout".into(),
            "SESSION: missing",
            "a session id like FIX.4.4:SENDER->TARGET",
        ),
        (
            "/logon?SESSION=ISLD".into(),
            "SESSION: \"ISLD\" is not a session id",
            "-%3E",
        ),
        (
            format!("/seqnum?{isld}&NEXTSENDERSEQNUM=abc"),
            "NEXTSENDERSEQNUM: \"abc\" is not a sequence number",
            "a whole number from 1",
        ),
        (
            format!("/seqnum?{isld}&NEXTTARGETSEQNUM=0"),
            "NEXTTARGETSEQNUM: \"0\"",
            "a whole number from 1",
        ),
        (
            format!("/seqnum?{isld}"),
            "NEXTSENDERSEQNUM, NEXTTARGETSEQNUM: neither given",
            "NEXTSENDERSEQNUM=2000",
        ),
        (
            "/addsession?SESSION=FIX.4.4:ISLD-%3ENEW".into(),
            "LIKE: missing",
            "a session id like",
        ),
        (
            "/addsession?SESSION=FIX.4.4:ISLD-%3ENEW&LIKE=TW".into(),
            "LIKE: \"TW\" is not a session id",
            "a session id like",
        ),
        (
            "/addsession?SESSION=FIX.4.4:ISLD-%3ENEW&LIKE=FIX.4.4:TW-%3EISLD".into(),
            "LIKE: FIX.4.4:TW->ISLD names several sessions",
            "FIX.4.4:TW->ISLD:QUALIFIER",
        ),
        (
            "/testrequest?SESSION=FIX.4.4:TW-%3EISLD".into(),
            "SESSION: FIX.4.4:TW->ISLD names several sessions",
            "with its qualifier",
        ),
        (
            "/api/messages".into(),
            "SESSION: missing",
            "a session id like",
        ),
        (
            "/api/events".into(),
            "SESSION: missing",
            "a session id like",
        ),
        ("/api/follow".into(), "CLORDID: missing", "a ClOrdID(11)"),
        (
            format!("/api/messages?{isld}&ADMIN=no"),
            "ADMIN: \"no\"",
            "show, hide or only",
        ),
        (
            format!("/api/messages?{isld}&OFFSET=x"),
            "OFFSET: \"x\" is not a number",
            "a whole number",
        ),
        (
            format!("/api/messages?{isld}&TO=%3Cb%3E"),
            "TO: \"<b>\" is not a time",
            "20261124-10:00:00",
        ),
        (
            format!("/api/messages?{isld}&MSGTYPE={many}"),
            "MSGTYPE, WHERE: too many",
            "at most",
        ),
        (
            format!("/api/messages?{isld}&WHERE={long}"),
            "MSGTYPE, WHERE: a value too long",
            "at most",
        ),
        (
            format!("/api/messages?{isld}&ORDER={long}"),
            "ORDER: too long",
            "a ClOrdID of at most",
        ),
        (
            format!("/api/messages?{isld}&WHERE=NoSuchField%3D1"),
            "MSGTYPE, WHERE: ",
            "fields the dictionary knows",
        ),
    ];
    for (target, names, expected) in &cases {
        let (status, body) = get_with(admin, target, TOKEN);
        assert_eq!(status, 400, "{target}: {body}");
        assert!(
            body.starts_with(names) && body.contains("; expected ") && body.contains(expected),
            "{target}: {body}"
        );
    }
    // Targets hyper refuses (a byte a URL may not hold): the parameter, or the path.
    for (line, names, expected) in [
        (
            "/logout?SESSION=FIX.4.4:ISLD->TW",
            "SESSION: the value holds '>' (byte 0x3E)",
            "-%3E",
        ),
        (
            "/logout?SESSION=FIX.4.4:ISLD-%3ETW&TEXT=end of day",
            "TEXT: the value holds a space (byte 0x20)",
            "--data-urlencode 'TEXT=",
        ),
        (
            "/lo<gout?SESSION=FIX.4.4:ISLD-%3ETW",
            "path: holds '<' (byte 0x3C)",
            "a path like /sessions",
        ),
    ] {
        let (status, body) = http(
            admin,
            &format!("GET {line} HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"),
        );
        assert_eq!(status, 400, "{line}: {body}");
        assert!(
            body.starts_with(names) && body.contains("; expected ") && body.contains(expected),
            "{line}: {body}"
        );
    }
    stop(handle, reactor);
}

/// The engine gone: 503, promptly.
#[test]
fn a_stopped_engine_is_a_503() {
    let (handle, reactor) = start_engine();
    let admin = serve_admin(&handle, with_token());
    stop(handle, reactor);
    let start = Instant::now();
    let (status, body) = get(admin, "/sessions");
    assert_eq!(status, 503, "{body}");
    assert!(start.elapsed() < Duration::from_secs(2));
}

fn parse(text: &str) -> Result<Settings, peregrine_engine::ConfigError> {
    Settings::parse(text, std::path::Path::new("dir/a.cfg"))
}

const BASE: &str = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n";

/// (e) Off unless `AdminHttpPort` is set; loopback unless `AdminHttpAddress`
/// says otherwise; `AdminHttpToken` as given.
#[test]
fn admin_settings_are_off_and_loopback_by_default() {
    let s = parse(&format!("{BASE}[SESSION]\nBeginString=FIX.4.4\n")).unwrap();
    let s = &s.sessions[0];
    assert_eq!(s.admin_http_port, None);
    assert_eq!(s.admin_http_address, IpAddr::V4(Ipv4Addr::LOCALHOST));
    assert_eq!(s.admin_http_token, None);

    let s = parse(&format!(
        "{BASE}AdminHttpPort=0\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap();
    assert_eq!(s.sessions[0].admin_http_port, None, "0 is off");

    let s = parse(&format!(
        "{BASE}AdminHttpPort=8095\nAdminHttpAddress=::1\nAdminHttpToken=s3cret!\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let s = &s.sessions[0];
    assert_eq!(s.admin_http_port, Some(8095));
    assert_eq!(s.admin_http_address, "::1".parse::<IpAddr>().unwrap());
    assert_eq!(s.admin_http_token.as_deref(), Some("s3cret!"));
}

/// (e) A bad `AdminHttpAddress` or `AdminHttpToken` is an error naming file,
/// line and key (and never quoting the token).
#[test]
fn bad_admin_settings_are_errors_with_file_line_and_key() {
    let e = parse(&format!(
        "{BASE}AdminHttpAddress=not-an-ip\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "dir/a.cfg:5: AdminHttpAddress: \"not-an-ip\" is not an IP address (e.g. 127.0.0.1 or ::1)"
    );
    let e = parse(&format!(
        "{BASE}AdminHttpPort=80000\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "dir/a.cfg:5: AdminHttpPort: \"80000\" is out of range (it must be 0 to 65535)"
    );
    let e = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nAdminHttpToken=my secret\n"
    ))
    .unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (7, Some("AdminHttpToken")));
    assert!(!e.to_string().contains("secret"), "{e}");
    let e = parse(&format!(
        "{BASE}AdminHttpToken=\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (5, Some("AdminHttpToken")));
}

/// Logs on to `fix` as TW; the answer.
fn fix_logon(fix: SocketAddr) -> (TcpStream, Option<String>) {
    let mut c = TcpStream::connect(fix).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let now = peregrine_engine::log::timestamp(now_nanos());
    c.write_all(&frame(&format!(
        "35=A|34=1|49=TW|52={}|56=ISLD|98=0|108=30|141=Y|",
        &now[..21]
    )))
    .unwrap();
    let mut buf = [0u8; 4096];
    let answer = match c.read(&mut buf) {
        Ok(n) if n > 0 => Some(String::from_utf8_lossy(&buf[..n]).replace('\x01', "|")),
        _ => None,
    };
    (c, answer)
}

/// The `/sessions` JSON once `done` says so (or after 10 s).
fn sessions_until(admin: SocketAddr, done: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let (_, json) = get(admin, "/sessions");
        if done(&json) || start.elapsed() > Duration::from_secs(10) {
            return json;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn logout_logon_and_reset_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let (fix, handle, reactor) = run_engine(&acceptor_cfg(""), dir.path());
    let admin = serve_admin(&handle, with_token());
    const S: &str = "SESSION=FIX.4.4:ISLD-%3ETW";

    let (mut c, answer) = fix_logon(fix);
    assert!(answer.is_some_and(|a| a.contains("|35=A|")), "logged on");
    // Without the token: refused, nothing happens.
    assert_eq!(get(admin, &format!("/logout?{S}")).0, 401);
    // /logout: the peer gets a Logout with the text, and the session stays down.
    let (status, body) = get_with(admin, &format!("/logout?{S}&TEXT=maintenance"), TOKEN);
    assert_eq!(status, 200, "{body}");
    let logout = read_message(&mut c);
    assert!(
        logout.contains("|35=5|") && logout.contains("|58=maintenance|"),
        "{logout}"
    );
    drop(c);
    let json = sessions_until(admin, |j| j.contains("\"connected\":false"));
    assert!(json.contains("\"enabled\":false"), "{json}");
    let (_c, answer) = fix_logon(fix);
    assert!(
        !answer.is_some_and(|a| a.contains("|35=A|")),
        "a disabled session refuses the Logon"
    );
    // /logon: it may log on again.
    let (status, body) = get_with(admin, &format!("/logon?{S}"), TOKEN);
    assert_eq!(status, 200, "{body}");
    sessions_until(admin, |j| j.contains("\"connected\":false"));
    let (mut c, answer) = fix_logon(fix);
    assert!(
        answer.is_some_and(|a| a.contains("|35=A|")),
        "logged on again"
    );
    // /reset: logs out first, then both numbers are 1 once disconnected.
    let (status, body) = get_with(admin, &format!("/reset?{S}"), TOKEN);
    assert_eq!(status, 200, "{body}");
    let logout = read_message(&mut c);
    assert!(logout.contains("|35=5|"), "{logout}");
    drop(c);
    let json = sessions_until(admin, |j| {
        j.contains("\"next_sender_seq\":1,\"next_target_seq\":1,")
    });
    assert!(
        json.contains("\"connected\":false")
            && json.contains("\"next_sender_seq\":1,\"next_target_seq\":1,"),
        "{json}"
    );
    stop(handle, reactor);
}

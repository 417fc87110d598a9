//! The console's endpoints without a browser, over 127.0.0.1: the page and
//! its headers, `api/sessions` rows joined with the counters, `testrequest`
//! (sent, or 409 when not logged on) with who asked in the event log,
//! `api/messages` for a ClOrdID, `api/follow`, `api/events`, and bad
//! queries answered 400. (tests/it/console.rs drives the page in Chromium.)

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::{EngineBuilder, RunningEngine};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};

use crate::support;

const TOKEN: &str = "api-test-token";
const ONE: &str = "FIX.4.4:VENUE->CLIENT1";

struct Quiet;

impl Application for Quiet {
    fn from_app(
        &mut self,
        _: &MessageView<'_>,
        _: &SessionId,
        _: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        Ok(())
    }
}

fn get(addr: SocketAddr, target: &str) -> (u16, String, String) {
    support::get(addr, target, None)
}

fn json(addr: SocketAddr, target: &str) -> serde_json::Value {
    let (status, _, body) = get(addr, target);
    assert_eq!(status, 200, "{target}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {e}: {body}"))
}

/// CLIENT1 logged on to `venue`, having sent one NewOrderSingle with
/// ClOrdID `id` and the `extra` fields.
fn client_sending_an_order(
    venue: &RunningEngine<EchoApp>,
    dir: &std::path::Path,
    id: &[u8],
    extra: &[(u32, &[u8])],
) -> RunningEngine<Quiet> {
    let port = venue.listener_addrs()[0].port();
    let clients_cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT1\n"
    );
    let clients = EngineBuilder::parse(&clients_cfg, dir.join("clients.cfg"))
        .unwrap()
        .start(|_| Quiet)
        .unwrap();
    assert!(clients.wait_logged_on(Duration::from_secs(10)));
    let one = clients.session_ref("FIX.4.4:CLIENT1->VENUE").unwrap();
    clients
        .sender()
        .send(one, b"D", |m| {
            m.str(11, id)
                .str(21, b"1")
                .str(38, b"100")
                .str(40, b"1")
                .str(54, b"1")
                .str(55, b"X")
                .str(60, b"20260101-00:00:00.000");
            for (tag, value) in extra {
                m.str(*tag, value);
            }
        })
        .unwrap();
    clients
}

#[test]
fn console_endpoints() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("log");
    let venue_cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\nFileLogPath={}\n\
         StartTime=00:00:00\nEndTime=23:59:59\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT2\n",
        logs.display()
    );
    let venue = EngineBuilder::parse(&venue_cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue =
        RunningEngine::start(venue, Some((support::loopback(), Some(TOKEN.into())))).unwrap();
    let admin = venue.admin_addr().unwrap();
    let clients = client_sending_an_order(&venue, dir.path(), b"API-1", &[]);

    // The page, with headers that allow only its own script and style.
    let (status, head, body) = get(admin, "/");
    assert_eq!(status, 200);
    assert!(body.contains("<script src=\"console.js\""), "{body}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("content-security-policy: default-src 'none'; script-src 'self'"));
    assert!(head.contains("x-content-type-options: nosniff"));
    assert_eq!(get(admin, "/console.js").0, 200);
    // Every URL the page asks for is relative, so that it works under any
    // path a reverse proxy or an SSH tunnel puts it at.
    let mut urls = 0;
    for asset in ["/", "/console.js"] {
        let text = get(admin, asset).2;
        for call in ["fetch(", "getJson(", "src=\"", "href=\"", "EventSource("] {
            for (i, _) in text.match_indices(call) {
                let url = text[i + call.len()..].trim_start_matches(['\'', '"', '`']);
                if url.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '/') {
                    urls += 1;
                    assert!(
                        !url.starts_with('/') && !url.starts_with("http"),
                        "{asset}: an absolute URL: {}",
                        &url[..url.len().min(40)]
                    );
                }
            }
        }
    }
    assert!(urls >= 4, "the check found the page's URLs ({urls})");

    // Rows: role, schedule, counters; CLIENT2 never connected.
    let started = Instant::now();
    let rows = loop {
        let rows = json(admin, "/api/sessions");
        let echoed = rows[0]["messages_out"].as_u64().unwrap() >= 2;
        if echoed || started.elapsed() > Duration::from_secs(10) {
            break rows;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(rows.as_array().unwrap().len(), 2);
    let r = &rows[0];
    assert_eq!(r["name"], ONE);
    assert_eq!(r["role"], "acceptor");
    assert_eq!(r["state"], "LoggedOn");
    assert_eq!(r["schedule"], "00:00:00 - 23:59:59 daily UTC");
    assert!(r["last_logon"].as_i64().unwrap() > 1_700_000_000_000);
    assert_eq!(r["next_target_seq"], 3); // Logon and the order
    assert!(r["bytes_in"].as_u64().unwrap() > 100);
    assert!(r["bytes_out"].as_u64().unwrap() > 100);
    // In: the Logon and the order; out: the Logon and the echo.
    assert!(r["messages_in"].as_u64().unwrap() >= 2, "{r}");
    assert!(r["messages_out"].as_u64().unwrap() >= 2, "{r}");
    for quiet in [
        "resends_asked",
        "resends_answered",
        "rejects_sent",
        "rejects_received",
    ] {
        assert_eq!(r[quiet], 0, "{quiet}: {r}");
    }
    assert_eq!(r["has_log"], true);
    assert_eq!(rows[1]["logged_on"], false);
    assert_eq!(rows[1]["last_logon"], serde_json::Value::Null);

    // A TestRequest: who asked is in the event log; none on a session not logged on.
    let ask = |target: &str| {
        support::http(
            admin,
            &format!(
                "GET {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\
                 X-Peregrine-Operator: alice\r\n\r\n"
            ),
        )
    };
    let (status, _, body) = ask("/testrequest?SESSION=FIX.4.4:VENUE-%3ECLIENT1");
    assert_eq!(
        (status, body.as_str()),
        (200, "OK FIX.4.4:VENUE->CLIENT1 TestRequest sent\n")
    );
    let (status, _, body) = ask("/testrequest?SESSION=FIX.4.4:VENUE-%3ECLIENT2");
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        get(admin, "/testrequest?SESSION=FIX.4.4:VENUE-%3ECLIENT1").0,
        401
    );
    let started = Instant::now();
    while json(admin, "/api/sessions")[0]["heartbeat_rtt"]["count"] != 1 {
        assert!(started.elapsed() < Duration::from_secs(10), "no round-trip");
        std::thread::sleep(Duration::from_millis(20));
    }
    let events = json(admin, "/api/events?SESSION=FIX.4.4:VENUE-%3ECLIENT1");
    let lines: Vec<&str> = events["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" : operator alice (127.0.0.1:")
                && l.ends_with(") sent a TestRequest")),
        "{lines:?}"
    );

    // The order and its echo, by ClOrdID, decoded; then followed.
    let page = json(
        admin,
        "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&WHERE=ClOrdID%3DAPI-1&ADMIN=hide",
    );
    let messages = page["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{page}");
    for m in messages {
        assert_eq!(m["message"]["msg_type_name"], "NewOrderSingle");
    }
    assert_eq!(page["next_offset"], serde_json::Value::Null);
    // Admin messages alone: no order among them.
    let admin_only = json(
        admin,
        "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&ADMIN=only",
    );
    let admin_only = admin_only["messages"].as_array().unwrap();
    assert!(!admin_only.is_empty());
    assert!(admin_only
        .iter()
        .all(|m| m["message"]["msg_type"] != "D" && m["message"]["msg_type"] != "8"));
    let heartbeats = json(
        admin,
        "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&MSGTYPE=TestRequest,0",
    );
    assert!(
        heartbeats["messages"].as_array().unwrap().len() >= 2,
        "{heartbeats}"
    );
    let followed = json(admin, "/api/follow?CLORDID=API-1");
    assert_eq!(
        followed["messages"].as_array().unwrap().len(),
        2,
        "{followed}"
    );

    for bad in [
        "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&MSGTYPE=NewOrderSingel",
        "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&FROM=yesterday",
        "/api/messages",
        "/api/follow",
    ] {
        assert_eq!(get(admin, bad).0, 400, "{bad}");
    }
    assert_eq!(get(admin, "/api/messages?SESSION=NOPE").0, 404);

    // A reset of a logged-on session waits for its Logout; the reset, done then,
    // is written with who asked, as every other action is.
    let (status, _, body) = ask("/reset?SESSION=FIX.4.4:VENUE-%3ECLIENT1");
    assert_eq!(status, 200, "{body}");
    let started = Instant::now();
    let done = loop {
        let events = json(admin, "/api/events?SESSION=FIX.4.4:VENUE-%3ECLIENT1");
        let lines: Vec<String> = events["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        if let Some(l) = lines
            .iter()
            .find(|l| l.contains("reset sequence numbers to 1"))
        {
            break l.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{lines:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(done.contains(" : operator alice (127.0.0.1:"), "{done}");
    // What changed: the numbers it had (the Logon and the order in, their
    // answers out, and more since).
    assert!(done.contains("(were: next sender "), "{done}");

    // Logon on a session that may log on already: said, and written.
    let (status, _, body) = ask("/logon?SESSION=FIX.4.4:VENUE-%3ECLIENT2");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("nothing changed"), "{body}");
    let events = json(admin, "/api/events?SESSION=FIX.4.4:VENUE-%3ECLIENT2");
    assert!(
        events["lines"].as_array().unwrap().iter().any(|l| l
            .as_str()
            .unwrap()
            .ends_with(") asked for Logon: it may log on already")),
        "{events}"
    );
    clients.stop().unwrap();
    venue.stop().unwrap();
}

/// `api/follow` finds one ClOrdID in every session's log: a router's client
/// order and its venue copy are one search (here the same ClOrdID on two
/// client sessions, each echoed).
#[test]
fn follow_finds_a_clordid_across_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let venue_cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\nFileLogPath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT2\n",
        dir.path().join("log").display()
    );
    let venue = EngineBuilder::parse(&venue_cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue = RunningEngine::start(venue, Some((support::loopback(), None))).unwrap();
    let admin = venue.admin_addr().unwrap();
    let port = venue.listener_addrs()[0].port();
    let clients_cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT1\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT2\n"
    );
    let clients = EngineBuilder::parse(&clients_cfg, dir.path().join("clients.cfg"))
        .unwrap()
        .start(|_| Quiet)
        .unwrap();
    assert!(clients.wait_logged_on(Duration::from_secs(10)));
    for name in ["FIX.4.4:CLIENT1->VENUE", "FIX.4.4:CLIENT2->VENUE"] {
        let session = clients.session_ref(name).unwrap();
        clients
            .sender()
            .send(session, b"D", |m| {
                m.str(11, b"SHARED-1").str(54, b"1").str(55, b"X");
            })
            .unwrap();
    }
    let started = Instant::now();
    let followed = loop {
        let f = json(admin, "/api/follow?CLORDID=SHARED-1");
        if f["messages"].as_array().unwrap().len() >= 4 || started.elapsed() > WAIT_LONG {
            break f;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut sessions: Vec<&str> = followed["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["session"].as_str().unwrap())
        .collect();
    sessions.sort_unstable();
    assert_eq!(
        sessions,
        [ONE, ONE, "FIX.4.4:VENUE->CLIENT2", "FIX.4.4:VENUE->CLIENT2"],
        "{followed}"
    );
    clients.stop().unwrap();
    venue.stop().unwrap();
}

const WAIT_LONG: Duration = Duration::from_secs(10);

/// A session outside its logon window says until when: the next time a
/// Logon may come (the logon window's start), not the session window's end,
/// which comes first. The page writes "outside its schedule until" that.
#[test]
fn a_session_outside_its_logon_window_says_when_it_may_log_on() {
    const H: i64 = 3_600;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let at = |secs: i64| {
        let t = secs.rem_euclid(24 * H);
        format!("{:02}:{:02}:{:02}", t / H, t % H / 60, t % 60)
    };
    // The session window from 3 h ago to 2 h on; logons were allowed from 2 h
    // ago to 1 h ago: the next is tomorrow's, 22 h on, past the session's end.
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nStartTime={}\nEndTime={}\n\
         LogonTime={}\nLogoutTime={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n",
        at(now - 3 * H),
        at(now + 2 * H),
        at(now - 2 * H),
        at(now - H),
    );
    let venue = EngineBuilder::parse(&cfg, "venue.cfg")
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue =
        RunningEngine::start(venue, Some((support::loopback(), Some(TOKEN.into())))).unwrap();
    let rows = json(venue.admin_addr().unwrap(), "/api/sessions");
    let r = &rows[0];
    assert_eq!(r["logon_allowed"], false, "{r}");
    let until = r["schedule_changes_at"].as_i64().expect("a time") / 1000;
    // The logon window's next start, to the second the settings name (not
    // the session window's end, 2 h on).
    let next = now + 22 * H;
    assert!((until - next).abs() <= 1, "{until} vs {next}");
    venue.stop().unwrap();
}

/// The admin token never reaches a log: not the `tracing` output (at every
/// level), not the sessions' event or message logs, whether a request
/// carries it right, wrong, or an operator's name beside it.
#[test]
fn the_token_never_reaches_a_log() {
    let traced = support::captured_log(tracing::Level::TRACE);
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("log");
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nFileLogPath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n",
        logs.display()
    );
    let venue = EngineBuilder::parse(&cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue =
        RunningEngine::start(venue, Some((support::loopback(), Some(TOKEN.into())))).unwrap();
    let admin = venue.admin_addr().unwrap();
    for (token, want) in [(TOKEN, 200), ("api-test-token-WRONG", 401)] {
        let (status, _, body) = support::http(
            admin,
            &format!(
                "GET /seqnum?SESSION=FIX.4.4:VENUE-%3ECLIENT1&NEXTSENDERSEQNUM=9 HTTP/1.1\r\n\
                 Host: x\r\nAuthorization: Bearer {token}\r\nX-Peregrine-Operator: bob\r\n\r\n"
            ),
        );
        assert_eq!(status, want, "{body}");
    }
    assert_eq!(json(admin, "/api/sessions")[0]["next_sender_seq"], 9);
    venue.stop().unwrap();
    let traced = String::from_utf8_lossy(&traced.0.lock().unwrap()).into_owned();
    assert!(traced.contains("seqnum"), "the capture works: {traced}");
    assert!(!traced.contains(TOKEN), "{traced}");
    let mut files = 0;
    for f in std::fs::read_dir(&logs).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!text.contains(TOKEN), "{text}");
        files += 1;
    }
    assert!(files >= 2, "the event and messages logs were read");
}

/// The console decodes a session's log with the session's own dictionary
/// (`DataDictionary`): a field only that dictionary names shows by its name,
/// as `peregrine decode --dict` shows it.
#[test]
fn messages_are_decoded_with_the_sessions_own_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("log");
    let stock = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    ))
    .unwrap();
    let custom = stock.replacen(
        "<fields>",
        "<fields>\n  <field number=\"5001\" name=\"DeskNote\" type=\"STRING\"/>",
        1,
    );
    assert_ne!(custom, stock);
    let dict = dir.path().join("FIX44-desk.xml");
    std::fs::write(&dict, custom).unwrap();
    let venue_cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nFileLogPath={}\nUseDataDictionary=Y\nDataDictionary={}\n\
         ValidateUserDefinedFields=N\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n",
        logs.display(),
        dict.display()
    );
    let venue = EngineBuilder::parse(&venue_cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue =
        RunningEngine::start(venue, Some((support::loopback(), Some(TOKEN.into())))).unwrap();
    let admin = venue.admin_addr().unwrap();
    let clients =
        client_sending_an_order(&venue, dir.path(), b"DESK-1", &[(5001, b"call the desk")]);
    let started = Instant::now();
    let page = loop {
        let page = json(
            admin,
            "/api/messages?SESSION=FIX.4.4:VENUE-%3ECLIENT1&WHERE=ClOrdID%3DDESK-1&ADMIN=hide",
        );
        if !page["messages"].as_array().unwrap().is_empty() {
            break page;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{page}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = page.to_string();
    assert!(text.contains("DeskNote"), "{text}");
    clients.stop().unwrap();
    venue.stop().unwrap();
}

//! The operations console in a real browser: Debian's headless Chromium,
//! driven over WebDriver by `chromedriver` (both from `make deps`), through
//! the `fantoccini` client. WebDriver rather than the DevTools protocol:
//! it is a W3C standard, Debian ships the driver built from the same source
//! as the browser (so they always match), and the client needs no
//! per-Chrome-version protocol definitions.
//!
//! A venue (acceptor, two sessions, message logs, the admin interface with a
//! token) and its clients (an initiator engine) run over 127.0.0.1; the test
//! starts chromedriver on a free port, opens the console and checks that the
//! table shows both sessions with their sequence numbers, logs one out from
//! the page and sees its state change without a reload, sets its sequence
//! number, sends a TestRequest on the other and sees its heartbeat
//! round-trip, searches the messages for a ClOrdID (a wire value with HTML in it
//! is shown as text), follows it across sessions, and finds the actions in
//! the session's event log with who asked. Screenshots go to
//! `target/console/*.png`.
//!
//! Without Chromium the test fails when `CI=true` (with how to install it),
//! and is skipped with a message otherwise. It takes about 3 s.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use peregrine_codec::MessageView;
use peregrine_engine::{EngineBuilder, RunningEngine};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};

const TOKEN: &str = "console-test-token";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Takes what it is sent and answers nothing.
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

/// Chromium and chromedriver, or why the test cannot run.
fn browser() -> Option<()> {
    let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    if missing.is_empty() {
        return Some(());
    }
    let why = format!(
        "{} missing: install Debian's chromium and chromium-driver (make deps)",
        missing.join(" and ")
    );
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("console browser test cannot run: {why}");
    }
    eprintln!("skipped: {why}");
    None
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port in a process group of its own, which is
/// killed when this is dropped (the browser it started too, even when the
/// test fails before closing its session).
struct Driver(Child, u16);

impl Driver {
    fn start() -> Driver {
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "chromedriver does not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Driver(child, port)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn screenshots_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target")),
        PathBuf::from,
    );
    let dir = target.join("console");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct World {
    venue: RunningEngine<EchoApp>,
    clients: RunningEngine<Quiet>,
    admin: SocketAddr,
    logs: PathBuf,
    _dir: tempfile::TempDir,
}

fn start_world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("log");
    let venue_cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\nFileLogPath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT2\n",
        logs.display()
    );
    // The admin interface on a port the system picks (AdminHttpPort=0 is off).
    let venue = EngineBuilder::parse(&venue_cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .build(|_| EchoApp::new(None))
        .unwrap();
    let venue = RunningEngine::start(
        venue,
        Some(("127.0.0.1:0".parse().unwrap(), Some(TOKEN.into()))),
    )
    .unwrap();
    let port = venue.listener_addrs()[0].port();
    let admin = venue.admin_addr().expect("the admin interface runs");
    let clients_cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=VENUE\nUseDataDictionary=N\nHeartBtInt=30\nReconnectInterval=1\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT1\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT2\nResetOnLogon=Y\n"
    );
    let clients = EngineBuilder::parse(&clients_cfg, dir.path().join("clients.cfg"))
        .unwrap()
        .start(|_| Quiet)
        .unwrap();
    let started = Instant::now();
    while !venue
        .sessions(Duration::from_secs(2))
        .is_some_and(|s| s.iter().all(|s| s.logged_on))
    {
        assert!(started.elapsed() < Duration::from_secs(10), "no logon");
        std::thread::sleep(Duration::from_millis(20));
    }
    World {
        venue,
        clients,
        admin,
        logs,
        _dir: dir,
    }
}

/// Waits (up to 10 s) until `f` says yes, polling the page.
async fn until<F, Fut>(what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !f().await {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn text(c: &Client, css: &str) -> String {
    match c.find(Locator::Css(css)).await {
        Ok(e) => e.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

fn row(session: &str, cell: &str) -> String {
    format!("tr[data-session=\"{session}\"] td.{cell}")
}

/// Whether a session's action button is enabled (asked in the page, as
/// [`press`] clicks).
async fn enabled(c: &Client, session: &str, action: &str) -> bool {
    c.execute(
        "const b = document.querySelector(\
         `tr[data-session=\"${arguments[0]}\"] button[data-action=\"${arguments[1]}\"]`);\
         return b !== null && !b.disabled;",
        vec![session.into(), action.into()],
    )
    .await
    .unwrap()
        == serde_json::json!(true)
}

/// Clicks a session's action button in the page itself: the table is drawn
/// again every second, so an element found first and clicked after may be
/// gone (a stale element).
async fn press(c: &Client, session: &str, action: &str) {
    let clicked = c
        .execute(
            "const b = document.querySelector(\
             `tr[data-session=\"${arguments[0]}\"] button[data-action=\"${arguments[1]}\"]`);\
             if (b) b.click(); return b !== null;",
            vec![session.into(), action.into()],
        )
        .await
        .unwrap();
    assert_eq!(clicked, serde_json::json!(true), "{session} {action}");
}

async fn fill(c: &Client, id: &str, value: &str) {
    let e = c.find(Locator::Id(id)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(value).await.unwrap();
}

async fn screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshots_dir().join(name), png).unwrap();
}

async fn drive(c: &Client, w: &World) {
    const ONE: &str = "FIX.4.4:VENUE->CLIENT1";
    const TWO: &str = "FIX.4.4:VENUE->CLIENT2";
    let url = format!("http://{}/", w.admin);
    c.goto(&url).await.unwrap();
    // The table shows both sessions logged on, with the engine's numbers.
    until("both sessions logged on in the table", || async {
        text(c, &row(ONE, "state")).await == "LoggedOn"
            && text(c, &row(TWO, "state")).await == "LoggedOn"
    })
    .await;
    let infos = w.venue.sessions(Duration::from_secs(2)).unwrap();
    for s in &infos {
        until("the table's sequence numbers", || async {
            text(c, &row(&s.name, "next_sender_seq")).await == s.next_sender_seq.to_string()
                && text(c, &row(&s.name, "next_target_seq")).await == s.next_target_seq.to_string()
        })
        .await;
    }
    // Read-only until the token is given.
    assert!(!enabled(c, TWO, "logout").await);
    // A reload would forget this.
    c.execute("window.__same_page = 42;", vec![]).await.unwrap();
    fill(c, "operator", "browser-test").await;
    fill(c, "token", TOKEN).await;
    until("actions enabled", || async {
        enabled(c, TWO, "logout").await
    })
    .await;

    // Log CLIENT2 out, with a text, after confirming.
    press(c, TWO, "logout").await;
    fill(c, "confirm-text", "maintenance").await;
    c.find(Locator::Id("confirm-ok"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("CLIENT2 down in the table", || async {
        let state = text(c, &row(TWO, "state")).await;
        !state.is_empty() && !state.starts_with("LoggedOn")
    })
    .await;
    until("why it is down", || async {
        text(c, &row(TWO, "why"))
            .await
            .contains("logged out by operator browser-test (127.0.0.1:")
    })
    .await;
    assert!(text(c, "#result").await.contains("stays down until /logon"));
    assert_eq!(text(c, &row(ONE, "state")).await, "LoggedOn");
    let same = c
        .execute("return window.__same_page;", vec![])
        .await
        .unwrap();
    assert_eq!(same, serde_json::json!(42), "the page was reloaded");
    screenshot(c, "sessions.png").await;

    // The other reasons the Why column gives, from rows the test makes up
    // (a slow consumer and a session outside its schedule are slow to stage
    // here): the page's own text for them.
    let said = c
        .execute(
            "return [why({ slow_consumer: true, pending_outbound: 70000 }), \
             why({ schedule: '09:00:00 - 17:00:00 daily UTC', logon_allowed: false, \
                   schedule_changes_at: Date.UTC(2026, 10, 29, 9, 0, 0) }), \
             why({ schedule: '09:00:00 - 17:00:00 daily UTC', logon_allowed: true, \
                   schedule_changes_at: Date.UTC(2026, 10, 29, 17, 0, 0) })];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        said,
        serde_json::json!([
            "slow consumer: 70000 bytes pending",
            "outside its schedule until 2026-11-29 09:00:00Z",
            ""
        ])
    );

    // Set its next sender sequence number.
    press(c, TWO, "seqnum").await;
    fill(c, "confirm-sender", "500").await;
    c.find(Locator::Id("confirm-ok"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("the new sequence number", || async {
        text(c, &row(TWO, "next_sender_seq")).await == "500"
    })
    .await;
    let result = text(c, "#result").await;
    assert!(result.contains("next_sender_seq=500"), "{result}");
    assert!(result.contains("→ 500"), "{result}");

    // Sort by the sender sequence number (CLIENT2's is 500 now), then the
    // other way; filter by name.
    let first_row = || async {
        c.execute(
            "return document.querySelector('#sessions tbody tr').dataset.session;",
            vec![],
        )
        .await
        .unwrap()
    };
    let rows_shown = || async {
        c.execute(
            "return document.querySelectorAll('#sessions tbody tr').length;",
            vec![],
        )
        .await
        .unwrap()
    };
    // The table is drawn again every second: find the header at each click.
    let sort_by_sender_seq = || async {
        c.execute(
            "document.querySelector('th[data-key=next_sender_seq]').click();",
            vec![],
        )
        .await
        .unwrap();
    };
    sort_by_sender_seq().await;
    until("sorted up by sender seq", || async {
        first_row().await == ONE
    })
    .await;
    sort_by_sender_seq().await;
    until("sorted down by sender seq", || async {
        first_row().await == TWO
    })
    .await;
    fill(c, "filter", "client1").await;
    until("filtered to CLIENT1", || async {
        rows_shown().await == serde_json::json!(1) && first_row().await == ONE
    })
    .await;
    fill(c, "filter", "").await;
    until("the filter cleared", || async {
        rows_shown().await == serde_json::json!(2)
    })
    .await;

    // CLIENT2's target number too; then a reset of both to 1 (it is down:
    // at once); then Logon lets it back (ResetOnLogon=Y on its side: both
    // start at 1 again).
    let confirm = || async {
        c.find(Locator::Id("confirm-ok"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    };
    press(c, TWO, "seqnum").await;
    fill(c, "confirm-target", "77").await;
    confirm().await;
    until("the new target number", || async {
        text(c, &row(TWO, "next_target_seq")).await == "77"
            && text(c, &row(TWO, "next_sender_seq")).await == "500"
    })
    .await;
    press(c, TWO, "reset").await;
    confirm().await;
    until("both numbers reset to 1", || async {
        text(c, &row(TWO, "next_sender_seq")).await == "1"
            && text(c, &row(TWO, "next_target_seq")).await == "1"
    })
    .await;
    let result = text(c, "#result").await;
    assert!(result.contains("sequence numbers reset to 1"), "{result}");
    assert!(text(c, &row(TWO, "state")).await != "LoggedOn");
    press(c, TWO, "logon").await;
    confirm().await;
    until("CLIENT2 logged on again", || async {
        text(c, &row(TWO, "state")).await == "LoggedOn"
    })
    .await;
    assert!(text(c, "#result").await.contains("may log on"));

    // A TestRequest on CLIENT1: its Heartbeat is a round-trip in the table.
    press(c, ONE, "testrequest").await;
    c.find(Locator::Id("confirm-ok"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("the TestRequest's answer and round-trip", || async {
        text(c, "#result").await.contains("TestRequest sent")
            && text(c, &row(ONE, "rtt")).await.ends_with("s")
    })
    .await;

    // Search CLIENT1's messages for the order's ClOrdID.
    c.find(Locator::Css("button.tab[data-view=messages]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Css(&format!(
        "#msg-session option[value=\"{ONE}\"]"
    )))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    fill(c, "msg-where", "ClOrdID=ORD-CONSOLE-1").await;
    c.find(Locator::Id("msg-search"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("the order and its echo", || async {
        c.find_all(Locator::Css("#messages tr.msg"))
            .await
            .map_or(0, |r| r.len())
            == 2
    })
    .await;
    let rows = c.find_all(Locator::Css("#messages tr.msg")).await.unwrap();
    for r in &rows {
        let t = r.text().await.unwrap();
        assert!(t.contains("ClOrdID=ORD-CONSOLE-1"), "{t}");
        assert!(t.contains("NewOrderSingle (D)"), "{t}");
        // The wire's HTML is text on the page, never markup.
        assert!(t.contains("<b id=\"pwned\">x</b>"), "{t}");
    }
    let pwned = c
        .execute("return document.getElementById('pwned') === null;", vec![])
        .await
        .unwrap();
    assert_eq!(pwned, serde_json::json!(true));
    // Its decoded fields, by name, open on a click.
    rows[0].click().await.unwrap();
    until("the decoded fields", || async {
        text(c, "#messages tr.detail:not([hidden])")
            .await
            .contains("Symbol")
    })
    .await;
    screenshot(c, "messages.png").await;

    // Follow it across sessions.
    fill(c, "follow-id", "ORD-CONSOLE-1").await;
    c.find(Locator::Id("follow-go"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("followed", || async {
        text(c, "#msg-status")
            .await
            .starts_with("2 messages with ClOrdID")
    })
    .await;

    c.find(Locator::Css("button.tab[data-view=engine]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("charts", || async {
        c.find_all(Locator::Css("#charts figure"))
            .await
            .map_or(0, |f| f.len())
            > 5
    })
    .await;
    screenshot(c, "engine.png").await;
}

#[test]
fn console_in_headless_chromium() {
    if browser().is_none() {
        return;
    }
    let started = Instant::now();
    let w = start_world();
    let one = w.clients.session_ref("FIX.4.4:CLIENT1->VENUE").unwrap();
    w.clients
        .sender()
        .send(one, b"D", |m| {
            m.str(11, b"ORD-CONSOLE-1")
                .str(21, b"1")
                .str(38, b"100")
                .str(40, b"1")
                .str(54, b"1")
                .str(55, b"PEREGRINE")
                .str(58, b"<b id=\"pwned\">x</b>")
                .str(60, b"20260101-00:00:00.000");
        })
        .unwrap();
    let driver = Driver::start();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1600,700"],
            }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let c = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", driver.1))
            .await
            .expect("chromedriver opens a session");
        drive(&c, &w).await;
        c.close().await.unwrap();
    });
    drop(driver);
    // ListSessions writes the logs up to now.
    let _ = w.venue.handle().call(
        peregrine_engine::Command::ListSessions,
        Duration::from_secs(5),
    );
    // The actions are in CLIENT2's event log, with who asked.
    let events = std::fs::read_to_string(w.logs.join("FIX.4.4-VENUE-CLIENT2.event.log")).unwrap();
    assert!(
        events.contains("logged out by operator browser-test (127.0.0.1:")
            && events.contains(": maintenance"),
        "{events}"
    );
    assert!(
        events.contains("operator browser-test (127.0.0.1:")
            && events.contains("set next sender seq to 500"),
        "{events}"
    );
    let events = std::fs::read_to_string(w.logs.join("FIX.4.4-VENUE-CLIENT1.event.log")).unwrap();
    assert!(events.contains("sent a TestRequest"), "{events}");
    w.clients.stop().unwrap();
    w.venue.stop().unwrap();
    eprintln!("console test: {:?}", started.elapsed());
}

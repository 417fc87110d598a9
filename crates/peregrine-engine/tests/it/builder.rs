//! [`EngineBuilder`] applies what the settings say: stores, dictionaries
//! (one copy per file), idle strategy, logs, the admin interface; and a
//! setting that would silently turn validation off stops start-up.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use peregrine_dict::Dictionaries;
use peregrine_engine::config::ConnectionType;
use peregrine_engine::{BuildError, EngineBuilder, Idle};
use peregrine_session::EchoApp;
use peregrine_testkit::net::free_port;

fn dictionary() -> String {
    format!(
        "{}/../peregrine-dict/dictionaries/FIX44.xml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_settings_are_applied_and_dictionaries_shared() {
    let dir = tempfile::tempdir().unwrap();
    let admin = free_port();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=VENUE\nDataDictionary={}\nFileStorePath=store\nFileLogPath=log\n\
         IdleStrategy=busy-spin\nAdminHttpPort={admin}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\n\
         [SESSION]\nConnectionType=initiator\nBeginString=FIX.4.4\nTargetCompID=C\n\
         SocketConnectHost=127.0.0.1\nSocketConnectPort=1\n",
        dictionary()
    );
    let path = dir.path().join("venue.cfg");
    std::fs::write(&path, &cfg).unwrap();
    let seen: Arc<Mutex<Vec<Arc<Dictionaries>>>> = Arc::default();
    let noted = seen.clone();
    let running = EngineBuilder::load(&path)
        .unwrap()
        .only(ConnectionType::Acceptor)
        .start(move |s| {
            noted.lock().unwrap().push(s.dictionaries.clone().unwrap());
            EchoApp::new(s.dictionaries.clone())
        })
        .unwrap();
    // One parsed dictionary for both sessions that name the file.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "the initiator session was left out");
    assert!(Arc::ptr_eq(&seen[0], &seen[1]));
    // The file store and the logs, where the settings put them.
    let stored: Vec<_> = std::fs::read_dir(dir.path().join("store"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // One engine journal for both sessions (EngineJournal=Y, the default).
    assert_eq!(stored, ["engine.journal"], "one journal for the engine");
    for name in ["FIX.4.4-VENUE-A", "FIX.4.4-VENUE-B"] {
        assert!(dir.path().join(format!("log/{name}.event.log")).exists());
    }
    // The admin interface, on the port the settings name.
    let addr = running.admin_addr().expect("AdminHttpPort starts it");
    assert_eq!(addr.port(), admin);
    let mut http = TcpStream::connect(addr).unwrap();
    http.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    http.write_all(b"GET /sessions HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    let _ = http.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("FIX.4.4:VENUE->A") && answer.contains("FIX.4.4:VENUE->B"));
    let engine = running.stop().unwrap();
    assert_eq!(engine.options().idle, Idle::busy_spin());
    assert_eq!(engine.applications().count(), 2);
}

#[test]
fn validation_on_without_a_dictionary_stops_start_up_naming_the_key() {
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
               TargetCompID=A\n[SESSION]\nBeginString=FIX.4.4\n";
    let err = EngineBuilder::parse(cfg, "dir/venue.cfg")
        .unwrap()
        .build(|s| EchoApp::new(s.dictionaries.clone()))
        .unwrap_err();
    let BuildError::Config(e) = &err else {
        panic!("{err}")
    };
    assert_eq!(e.key.as_deref(), Some("DataDictionary"));
    let text = err.to_string();
    assert!(text.starts_with("dir/venue.cfg"), "{text}");
    assert!(text.contains("UseDataDictionary=N"), "{text}");
    // Said explicitly: the same.
    let explicit = cfg.replace("[SESSION]", "UseDataDictionary=Y\n[SESSION]");
    assert!(EngineBuilder::parse(&explicit, "venue.cfg")
        .unwrap()
        .build(|s| EchoApp::new(s.dictionaries.clone()))
        .is_err());
}

#[test]
fn the_store_can_be_chosen_in_code() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
               TargetCompID=A\nUseDataDictionary=N\nFileStorePath=store\n\
               [SESSION]\nBeginString=FIX.4.4\n";
    let _engine = EngineBuilder::parse(cfg, dir.path().join("venue.cfg"))
        .unwrap()
        .store(peregrine_engine::fix::StoreKind::Memory)
        .build(|_| EchoApp::new(None))
        .unwrap();
    assert!(!dir.path().join("store").exists(), "memory, as asked");
}

#[test]
fn a_session_scheduled_in_new_york_starts_and_logs_on() {
    // Open around the clock in New York time, on every day, with a daily reset: the
    // zone comes from the database built in (no system files), and the schedule lets
    // an initiator log on now.
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let zone = "TimeZone=America/New_York\nStartTime=00:00:00\nEndTime=00:00:00\n\
                Weekdays=Sun,Mon,Tue,Wed,Thu,Fri,Sat\nResetSeqTime=17:00:00\nUseDataDictionary=N\n";
    let venue = dir.path().join("venue.cfg");
    std::fs::write(
        &venue,
        format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\n\
             SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nTargetCompID=CLIENT\n{zone}\
             [SESSION]\nBeginString=FIX.4.4\n"
        ),
    )
    .unwrap();
    let client = dir.path().join("client.cfg");
    std::fs::write(
        &client,
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
             SocketConnectPort={port}\nSenderCompID=CLIENT\nTargetCompID=VENUE\n\
             ReconnectInterval=1\nHeartBtInt=30\n{zone}[SESSION]\nBeginString=FIX.4.4\n"
        ),
    )
    .unwrap();
    let venue = EngineBuilder::load(&venue)
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let client = EngineBuilder::load(&client)
        .unwrap()
        .start(|_| EchoApp::new(None))
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let logged_on = loop {
        let on = client
            .sessions(Duration::from_secs(5))
            .is_some_and(|s| s.iter().any(|s| s.logged_on));
        if on || std::time::Instant::now() > deadline {
            break on;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    client.stop().unwrap();
    venue.stop().unwrap();
    assert!(
        logged_on,
        "the initiator logged on inside the New York window"
    );
}

#[test]
fn wait_returns_once_the_stop_flag_is_set_and_not_before() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
               SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
               [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";
    let stop = Arc::new(AtomicBool::new(false));
    let venue = EngineBuilder::parse(cfg, "venue.cfg")
        .unwrap()
        .stop_flag(stop.clone())
        .start(|_| EchoApp::new(None))
        .unwrap();
    let setter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        })
    };
    let started = std::time::Instant::now();
    let engine = venue.wait().unwrap();
    let waited = started.elapsed();
    assert!(
        stop.load(Ordering::Relaxed),
        "returned before the flag was set"
    );
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(engine.application("FIX.4.4:VENUE->CLIENT").is_some());
    setter.join().unwrap();
}

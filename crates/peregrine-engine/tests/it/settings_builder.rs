//! Settings made in code ([`Settings::builder`]): the sessions equal those of
//! the same keys in a `.cfg`, a code-built acceptor and initiator log on to
//! each other over 127.0.0.1, and bad values are the parser's errors, naming
//! the key and saying "set in code".

use std::path::PathBuf;
use std::time::Duration;

use peregrine_engine::config::{ConnectionType, Origin, SessionSettings, SettingLine, Settings};
use peregrine_engine::{EngineBuilder, Idle};
use peregrine_session::EchoApp;

fn dictionary() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../peregrine-dict/dictionaries/FIX44.xml")
}

/// The typed settings without where they came from (file, lines, origin),
/// and the entries as (key, value) in key order.
fn typed(s: &SessionSettings) -> SessionSettings {
    let mut s = s.clone();
    s.file = PathBuf::new();
    s.line = 0;
    s.origin = Origin::File;
    for e in &mut s.entries {
        e.line = 0;
    }
    s.entries
        .sort_by_key(|e: &SettingLine| (e.key.to_ascii_lowercase(), e.value.clone()));
    s
}

fn acceptor_in_code(port: u16, dir: &std::path::Path) -> Settings {
    Settings::builder()
        .default(|d| {
            d.connection_type(ConnectionType::Acceptor)
                .socket_accept_port(port)
                .socket_accept_address("127.0.0.1")
                .data_dictionary(dictionary())
                .file_store_path(dir.join("venue-store"))
                .heart_bt_int(5)
        })
        .session("FIX.4.4", "VENUE", "CLIENT", |s| s.reset_on_logon(true))
        .build()
        .unwrap()
}

fn initiator_in_code(port: u16) -> Settings {
    Settings::builder()
        .session("FIX.4.4", "CLIENT", "VENUE", |s| {
            s.connection_type(ConnectionType::Initiator)
                .socket_connect("127.0.0.1", port)
                .heart_bt_int(5)
                .reconnect_interval(1)
                .data_dictionary(dictionary())
                .reset_on_logon(true)
                .idle_strategy(Idle::block())
        })
        .build()
        .unwrap()
}

#[test]
fn code_built_sessions_equal_the_cfg_ones_and_log_on_to_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let acceptor = acceptor_in_code(0, dir.path());
    assert!(acceptor.warnings.is_empty(), "{:?}", acceptor.warnings);
    assert_eq!(acceptor.origin, Origin::Code);

    // The same keys in a file: the same session.
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         DataDictionary={}\nFileStorePath={}\nHeartBtInt=5\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\nResetOnLogon=Y\n",
        dictionary().display(),
        dir.path().join("venue-store").display()
    );
    let from_file = Settings::parse(&cfg, "/etc/fix/venue.cfg".as_ref()).unwrap();
    assert_eq!(typed(&acceptor.sessions[0]), typed(&from_file.sessions[0]));
    // Not only equal to each other: equal to what the keys say, defaults included.
    let s = &acceptor.sessions[0];
    assert_eq!(s.heart_bt_int, 5);
    assert!(s.reset_on_logon && s.use_data_dictionary && s.persist_messages);
    assert_eq!((s.logon_timeout, s.logout_timeout), (10, 2));

    // A different value is a different session (the comparison can fail).
    let other = from_file.sessions[0].clone();
    let mut changed = typed(&other);
    changed.heart_bt_int = 6;
    assert_ne!(typed(&acceptor.sessions[0]), changed);

    // Both sides from code, over 127.0.0.1.
    let venue = EngineBuilder::new(acceptor)
        .start(|s| EchoApp::new(s.dictionaries.clone()))
        .unwrap();
    let port = venue.listener_addrs()[0].port();
    let initiator = initiator_in_code(port);
    let cfg = format!(
        "[DEFAULT]\n[SESSION]\nConnectionType=initiator\nBeginString=FIX.4.4\nSenderCompID=CLIENT\n\
         TargetCompID=VENUE\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nHeartBtInt=5\n\
         ReconnectInterval=1\nDataDictionary={}\nResetOnLogon=Y\nIdleStrategy=block\n",
        dictionary().display()
    );
    let from_file = Settings::parse(&cfg, "client.cfg".as_ref()).unwrap();
    assert_eq!(typed(&initiator.sessions[0]), typed(&from_file.sessions[0]));

    let client = EngineBuilder::new(initiator)
        .start(|s| EchoApp::new(s.dictionaries.clone()))
        .unwrap();
    assert!(client.wait_logged_on(Duration::from_secs(20)), "client");
    assert!(venue.wait_logged_on(Duration::from_secs(20)), "venue");
    let sessions = venue.sessions(Duration::from_secs(5)).unwrap();
    assert_eq!(sessions[0].name, "FIX.4.4:VENUE->CLIENT");
    assert!(sessions[0].logged_on);
    // The venue's file store is where the code put it.
    assert!(dir.path().join("venue-store").is_dir());
    client.stop().unwrap();
    venue.stop().unwrap();
}

fn code_error(key: &str, value: &str) -> String {
    let e = Settings::builder()
        .default(|d| d.socket_accept_port(5001).use_data_dictionary(false))
        .session("FIX.4.4", "VENUE", "CLIENT", |s| s.set(key, value))
        .build()
        .unwrap_err();
    assert_eq!(e.origin, Origin::Code);
    assert_eq!((e.file.as_os_str().is_empty(), e.line), (true, 0));
    e.to_string()
}

#[test]
fn bad_values_are_the_parsers_errors_naming_the_key() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "HeartBtInt",
            "abc",
            r#"set in code: HeartBtInt: "abc" is not a number"#,
        ),
        (
            "SocketAcceptPort",
            "70000",
            r#"set in code: SocketAcceptPort: "70000" is out of range (it must be 0 to 65535)"#,
        ),
        (
            "ConnectionType",
            "both",
            r#"set in code: ConnectionType: "both" is not acceptor or initiator"#,
        ),
        (
            "ResetOnLogon",
            "true",
            r#"set in code: ResetOnLogon: "true" is not Y or N"#,
        ),
        (
            "StartTime",
            "25:00:00",
            r#"set in code: StartTime: "25:00:00" is not a time HH:MM:SS"#,
        ),
        (
            "BeginString",
            "FIX.9.9",
            r#"set in code: BeginString: "FIX.9.9" is not a FIX BeginString (FIX.4.0 … FIX.4.4, FIXT.1.1)"#,
        ),
        (
            "Heart=BtInt",
            "1",
            "set in code: Heart=BtInt: not a key a settings file can hold",
        ),
        (
            "Username",
            "a\nb",
            "set in code: Username: a value with a line break",
        ),
    ];
    for (key, value, expected) in cases {
        assert_eq!(&code_error(key, value), expected, "{key}={value}");
    }
    // The same values in a file: the same messages, with file and line.
    let e = Settings::parse(
        "[DEFAULT]\nSocketAcceptPort=5001\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=A\n\
         TargetCompID=B\nHeartBtInt=abc\n",
        "v.cfg".as_ref(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"v.cfg:7: HeartBtInt: "abc" is not a number"#
    );
    // Typed setters go through the parser too: a window that cannot be one.
    let e = Settings::builder()
        .session("FIX.4.4", "A", "B", |s| {
            s.socket_accept_port(1).use_data_dictionary(false).window(
                peregrine_engine::config::TimeOfDay(24 * 3600),
                peregrine_engine::config::TimeOfDay(0),
            )
        })
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"set in code: StartTime: "24:00:00" is not a time HH:MM:SS"#
    );
}

#[test]
fn required_keys_and_sessions_are_named() {
    let e = Settings::builder()
        .session("FIX.4.4", "A", "B", |s| s.use_data_dictionary(false))
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "set in code: SocketAcceptPort: missing (required for an acceptor)"
    );
    let e = Settings::builder()
        .default(|d| d.socket_accept_port(1))
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "set in code: no session (add one with SettingsBuilder::session)"
    );
    let e = Settings::builder()
        .default(|d| d.socket_accept_port(1))
        .session("FIX.4.4", "A", "B", |s| s)
        .session("FIX.4.4", "A", "B", |s| s)
        .build()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "set in code: session FIX.4.4:A->B is made twice"
    );
}

#[test]
fn quickfix_keys_peregrine_lacks_are_errors_or_warnings_in_code_too() {
    // Security or delivery: an error naming the key.
    let e = code_error("AllowedRemoteAddresses", "10.0.0.1");
    assert!(
        e.starts_with("set in code: AllowedRemoteAddresses: QuickFIX/J and QuickFIX C++ key not implemented by Peregrine (security or delivery)"),
        "{e}"
    );
    // What Peregrine does anyway: accepted, without a word.
    let s = Settings::builder()
        .default(|d| d.socket_accept_port(1).set("UseSNI", true))
        .session("FIX.4.4", "A", "B", |s| s)
        .build()
        .unwrap();
    assert!(s.warnings.is_empty());
    // Cosmetic: a warning naming the key, "set in code".
    let s = Settings::builder()
        .default(|d| d.socket_accept_port(1).set("ScreenLogShowHeartBeats", true))
        .session("FIX.4.4", "A", "B", |s| s.set("Colour", "blue"))
        .build()
        .unwrap();
    let warnings: Vec<String> = s.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("set in code: ScreenLogShowHeartBeats: QuickFIX/J key not implemented by Peregrine (cosmetic or performance)"), "{warnings:?}");
    assert_eq!(warnings[1], "set in code: Colour: unknown key, ignored");
}

#[test]
fn a_dictionary_missing_from_code_settings_names_the_key_at_build() {
    // UseDataDictionary defaults to Y, as in QuickFIX: without a dictionary
    // the engine refuses to start rather than not validating.
    let settings = Settings::builder()
        .default(|d| d.socket_accept_port(0))
        .session("FIX.4.4", "A", "B", |s| s)
        .build()
        .unwrap();
    let e = EngineBuilder::new(settings)
        .build(|_| EchoApp::new(None))
        .unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("set in code: DataDictionary: "), "{text}");
}

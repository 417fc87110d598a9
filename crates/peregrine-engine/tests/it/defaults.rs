//! One default per key: a session made in code (`SessionConfig::new`) and one
//! read from a `.cfg` that sets only what it must (through the engine's parser
//! and `fix::session_config`) are configured the same, field for field.

use std::path::Path;

use peregrine_engine::config::Settings;
use peregrine_engine::fix::session_config;
use peregrine_session::{defaults, Role, SessionConfig, SessionId};

/// The session configuration of a `.cfg` with these lines after `[SESSION]`.
fn from_cfg(session_lines: &str) -> SessionConfig {
    let text = format!("[DEFAULT]\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\n{session_lines}");
    let settings =
        Settings::parse(&text, Path::new("defaults.cfg")).unwrap_or_else(|e| panic!("{e}"));
    session_config(&settings.sessions[0], None)
}

/// The fields (one per line of `{:#?}`) that differ: every field of
/// `SessionConfig` is compared, those added later too.
fn differences(code: &SessionConfig, cfg: &SessionConfig) -> Vec<String> {
    let (a, b) = (format!("{code:#?}"), format!("{cfg:#?}"));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(
        a.len(),
        b.len(),
        "code:\n{}\n.cfg:\n{}",
        a.join("\n"),
        b.join("\n")
    );
    a.iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| format!("code {} / .cfg {}", x.trim(), y.trim()))
        .collect()
}

#[test]
fn a_session_from_an_empty_cfg_section_is_configured_as_one_made_in_code() {
    for begin_string in ["FIX.4.0", "FIX.4.2", "FIX.4.4"] {
        for (role, lines) in [
            (Role::Acceptor, "SocketAcceptPort=5001\n"),
            (
                Role::Initiator,
                "ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=5001\n",
            ),
        ] {
            let cfg = from_cfg(&format!("BeginString={begin_string}\n{lines}"));
            let code = SessionConfig::new(SessionId::new(begin_string, "ISLD", "TW"), role);
            let diff = differences(&code, &cfg);
            assert!(diff.is_empty(), "{begin_string} {role:?}: {diff:#?}");
        }
    }
    // FIXT.1.1 needs its DefaultApplVerID, in code as in a .cfg.
    let cfg =
        from_cfg("BeginString=FIXT.1.1\nSocketAcceptPort=5001\nDefaultApplVerID=FIX.5.0SP2\n");
    let mut code = SessionConfig::new(SessionId::new("FIXT.1.1", "ISLD", "TW"), Role::Acceptor);
    code.default_appl_ver_id = Some("FIX.5.0SP2".into());
    let diff = differences(&code, &cfg);
    assert!(diff.is_empty(), "FIXT.1.1: {diff:#?}");
}

/// The defaults that follow another key follow it the same way in code and in a
/// `.cfg`: ResendRequestTimeout is twice the configured HeartBtInt.
#[test]
fn the_resend_request_timeout_follows_the_heartbeat_interval_both_ways() {
    for heart_bt_int in [1u32, 10, 30, 45, 50_000] {
        let cfg = from_cfg(&format!(
            "BeginString=FIX.4.4\nSocketAcceptPort=5001\nHeartBtInt={heart_bt_int}\n"
        ));
        let mut code = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
        code.heartbeat_interval_secs = heart_bt_int;
        code.resend_request_timeout_secs = defaults::resend_request_timeout(heart_bt_int);
        let diff = differences(&code, &cfg);
        assert!(diff.is_empty(), "HeartBtInt={heart_bt_int}: {diff:#?}");
    }
}

/// The documented figures (docs/settings.md, docs/reliability.md, the engine
/// README) are the constants'.
#[test]
fn the_defaults_are_the_documented_ones() {
    let cfg = from_cfg("BeginString=FIX.4.4\nSocketAcceptPort=5001\n");
    assert_eq!(cfg.max_outbound_bytes, 256 << 20, "SlowConsumerHardLimit");
    assert_eq!(cfg.resend_request_timeout_secs, 60, "ResendRequestTimeout");
    assert_eq!(
        cfg.max_inbound_queue_bytes,
        16 << 20,
        "MaxInboundQueueBytes"
    );
    assert_eq!(cfg.max_logon_size, 8192, "MaxLogonMessageSize");
    assert_eq!(cfg.max_message_size, 1 << 20, "MaxMessageSize");
    assert_eq!(cfg.heartbeat_interval_secs, 30, "HeartBtInt");
}

/// Every default the key catalog states (the README's settings table, `check-config
/// --keys`) is what the reader takes for the key left out: a section with the key set
/// to that default is configured as one without it. Keys that need others (the template
/// keys, the `Ha` keys) are tried in a section that has them.
#[test]
fn every_catalogued_default_is_what_the_reader_takes() {
    use peregrine_engine::config::{DefaultValue, SessionSettings, CATALOG};
    const BASES: [&str; 3] = [
        "",
        "AcceptorTemplate=Y\n",
        "HaNodeName=a\nHaEtcdEndpoints=127.0.0.1:2379\n",
    ];
    let session = |base: &str, line: &str| -> Option<SessionSettings> {
        let text = format!(
            "[DEFAULT]\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\nBeginString=FIX.4.4\n\
             SocketAcceptPort=5001\n{base}{line}"
        );
        let mut s = Settings::parse(&text, Path::new("defaults.cfg"))
            .ok()?
            .sessions
            .remove(0);
        s.entries.clear();
        Some(s)
    };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for key in CATALOG {
        let value = match key.default {
            DefaultValue::Flag(b) => if b { "Y" } else { "N" }.to_string(),
            DefaultValue::Number(n) => n.to_string(),
            DefaultValue::Text(_) => continue,
        };
        let line = format!("{}={value}\n", key.name);
        let agrees = BASES.iter().find_map(|base| {
            let with = session(base, &line)?;
            let without = session(base, "").expect("the base parses");
            Some(with == without)
        });
        match agrees {
            Some(true) => checked += 1,
            Some(false) => wrong.push(format!(
                "{}: {value} is not what leaving it out gives",
                key.name
            )),
            None => wrong.push(format!(
                "{}={value} does not parse in any base section",
                key.name
            )),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(checked > 30, "{checked} keys checked");
}

/// The keys whose value is one of some words (or an address) take the
/// catalog's default text when left out, and that is the default an engine
/// made in code has too (`EngineOptions::default().idle` for `IdleStrategy`).
#[test]
fn word_keys_left_out_take_the_catalog_default() {
    use peregrine_engine::config::{catalog_key, ConnectionType, DefaultValue, SlowConsumerAction};
    use peregrine_engine::EngineOptions;
    let text = "[DEFAULT]\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\nBeginString=FIX.4.4\n\
                SocketAcceptPort=5001\n";
    let s = &Settings::parse(text, Path::new("defaults.cfg"))
        .unwrap()
        .sessions[0];
    let default_of = |key: &str| match catalog_key(key).unwrap().default {
        DefaultValue::Text(t) => t,
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(default_of("ConnectionType"), "acceptor");
    assert_eq!(s.connection_type, ConnectionType::Acceptor);
    assert_eq!(default_of("IdleStrategy"), "block");
    assert_eq!(s.idle_strategy, EngineOptions::default().idle);
    assert_eq!(s.idle_strategy, "block".parse().unwrap());
    assert_eq!(default_of("SlowConsumerAction"), "disconnect");
    assert_eq!(s.slow_consumer_action, SlowConsumerAction::Disconnect);
    assert_eq!(default_of("FileStoreDamage"), "refuse");
    assert_eq!(
        s.file_store_damage,
        peregrine_engine::config::StoreDamage::Refuse
    );
    assert_eq!(default_of("AdminHttpAddress"), "127.0.0.1");
    assert_eq!(s.admin_http_address.to_string(), "127.0.0.1");
}

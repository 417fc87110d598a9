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

/// Every key of `peregrine_session::defaults::KEYS` has a row in the engine
/// README's settings table (the one docs/settings.md points to) whose default
/// is the constant's; in a row of several keys with as many defaults
/// (`CheckCompID`, `CheckLatency` | Y, Y), the key's own.
#[test]
fn the_readme_settings_table_gives_each_key_its_default() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let rows: Vec<Vec<&str>> = readme
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.split(" | ")
                .map(|c| c.trim_matches(|c| c == '|' || c == ' '))
                .collect()
        })
        .collect();
    let mut missing = Vec::new();
    for key in defaults::KEYS {
        let quoted = format!("`{}`", key.name);
        let row = rows.iter().find(|r| {
            r[0].split([',', '/'])
                .any(|k| k.trim().split(' ').next() == Some(quoted.as_str()))
        });
        let Some(row) = row else {
            missing.push(format!("{}: no row", key.name));
            continue;
        };
        let names: Vec<&str> = row[0].split(", ").collect();
        let values: Vec<&str> = row[1].split(", ").collect();
        let documented = match names.iter().position(|n| n.starts_with(&quoted)) {
            Some(i) if names.len() > 1 && values.len() == names.len() => values[i],
            _ => row[1],
        };
        let default = key.default.to_string();
        if !documented.starts_with(&default) {
            missing.push(format!(
                "{}: README {documented:?}, constant {default:?}",
                key.name
            ));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

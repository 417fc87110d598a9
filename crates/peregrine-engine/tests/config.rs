//! Settings-file parsing: inheritance, typed values, every error with file,
//! line and key, unknown-key warnings, relative paths.

use std::path::Path;

use peregrine_engine::config::{resolve_path, ConnectionType, Settings, SlowConsumerAction};
use peregrine_engine::Idle;

mod support;
use support::child_test;

fn parse(text: &str) -> Result<Settings, String> {
    Settings::parse(text, Path::new("dir/fix44.cfg")).map_err(|e| e.to_string())
}

const BASE: &str = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n";

#[test]
fn session_inherits_default_and_overrides() {
    let s = parse(
        "# comment\n[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\nHeartBtInt=20\n\
         ResetOnLogon=Y\n\n[SESSION]\nBeginString=FIX.4.4\n\n[SESSION]\nBeginString=FIX.4.2\n\
         HeartBtInt=45\nTargetCompID=OTHER\n",
    )
    .unwrap();
    assert_eq!(s.sessions.len(), 2);
    let a = &s.sessions[0];
    assert_eq!(a.session_name(), "FIX.4.4:ISLD->TW");
    assert_eq!(a.heart_bt_int, 20);
    assert!(a.reset_on_logon);
    assert_eq!(a.connection_type, ConnectionType::Acceptor);
    let b = &s.sessions[1];
    assert_eq!(b.session_name(), "FIX.4.2:ISLD->OTHER");
    assert_eq!(b.heart_bt_int, 45);
    assert_eq!(b.line_of("HeartBtInt"), 14);
    assert_eq!(b.line_of("SenderCompID"), 4);
    assert!(s.warnings.is_empty());
}

#[test]
fn defaults_match_quickfix() {
    let s = parse(&format!("{BASE}[SESSION]\nBeginString=FIX.4.4\n")).unwrap();
    let s = &s.sessions[0];
    assert_eq!(s.heart_bt_int, 30);
    assert_eq!(s.logon_timeout, 10);
    assert_eq!(s.logout_timeout, 2);
    assert_eq!(s.reconnect_interval, 30);
    assert!(s.use_data_dictionary && s.persist_messages && s.socket_nodelay && s.check_comp_id);
    assert!(!s.reset_on_logon && !s.reset_on_logout && !s.reset_on_disconnect);
    assert!(s.validation.check_latency);
    assert_eq!(s.validation.max_latency_secs, 120);
    assert_eq!(s.admin_http_port, None);
    assert_eq!(s.idle_strategy, Idle::block());
    assert_eq!(s.slow_consumer_action, SlowConsumerAction::Disconnect);
}

#[test]
fn every_key_of_the_shared_acceptance_cfgs_is_known() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../acceptance/quickfix/cfg");
    let Ok(suites) = std::fs::read_dir(&root) else {
        eprintln!("skipping: {} not found", root.display());
        return;
    };
    let mut n = 0;
    for suite in suites {
        for cfg in std::fs::read_dir(suite.unwrap().path()).unwrap() {
            let path = cfg.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let s = Settings::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
            assert!(s.warnings.is_empty(), "{:?}", s.warnings);
            assert_eq!(s.sessions.len(), 1);
            n += 1;
        }
    }
    assert_eq!(n, 26);
}

#[test]
fn fixt_and_all_typed_keys() {
    let text = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=9000\n\
        SocketConnectHost1=10.0.0.1\nSocketConnectPort1=9001\nSocketConnectHost2=h2\nSocketConnectPort2=9002\n\
        SenderCompID=A\nTargetCompID=B\nReconnectInterval=5\nStartTime=08:00:00\nEndTime=17:30:00\n\
        StartDay=mon\nEndDay=Friday\nSocketSendBufferSize=65536\nSocketReceiveBufferSize=131072\nSocketNodelay=N\n\
        IdleStrategy=spin-then-yield:50\nMaxOutboundQueueBytes=100000\nSlowConsumerAction=flag\n\
        ValidateFieldsOutOfOrder=N\nValidateFieldsHaveValues=N\nValidateUserDefinedFields=N\nAllowUnknownMsgFields=Y\n\
        ValidateUnorderedGroupFields=N\nCheckLatency=N\nMaxLatency=5\nResendRequestChunkSize=5\n\
        EnableLastMsgSeqNumProcessed=Y\nEnableNextExpectedMsgSeqNum=Y\nPersistMessages=N\nLogonTimeout=3\nLogoutTimeout=4\n\
        ResetOnLogout=Y\nResetOnDisconnect=Y\nAdminHttpPort=0\nUseDataDictionary=N\n\
        [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\nSessionQualifier=Q\n\
        TransportDataDictionary=/abs/FIXT11.xml\nAppDataDictionary=spec/FIX50SP2.xml\nFileStorePath=store\n";
    let s = parse(text).unwrap();
    let s = &s.sessions[0];
    assert_eq!(s.session_name(), "FIXT.1.1:A->B:Q");
    assert_eq!(s.connection_type, ConnectionType::Initiator);
    assert_eq!(
        s.connect_addresses,
        vec![
            ("127.0.0.1".to_string(), 9000),
            ("10.0.0.1".to_string(), 9001),
            ("h2".to_string(), 9002)
        ]
    );
    assert_eq!(s.reconnect_interval, 5);
    assert_eq!(s.start_time.unwrap().0, 8 * 3600);
    assert_eq!(s.end_time.unwrap().0, 17 * 3600 + 30 * 60);
    assert_eq!((s.start_day, s.end_day), (Some(1), Some(5)));
    assert_eq!(s.socket_send_buffer_size, Some(65536));
    assert_eq!(s.socket_receive_buffer_size, Some(131072));
    assert!(!s.socket_nodelay);
    assert_eq!(s.idle_strategy, Idle::spin_then_yield(50));
    assert_eq!(s.max_outbound_queue_bytes, 100_000);
    assert_eq!(
        s.slow_consumer_hard_limit, 400_000,
        "4 × MaxOutboundQueueBytes"
    );
    assert_eq!(s.resend_request_timeout, 60, "2 × HeartBtInt (30)");
    assert_eq!(s.slow_consumer_action, SlowConsumerAction::Flag);
    let v = s.validation;
    assert!(!v.validate_fields_out_of_order && !v.validate_fields_have_values);
    assert!(!v.validate_user_defined_fields && v.allow_unknown_msg_fields);
    assert!(!v.validate_unordered_group_fields && !v.check_latency);
    assert_eq!(v.max_latency_secs, 5);
    assert_eq!(s.resend_request_chunk_size, 5);
    assert!(s.enable_last_msg_seq_num_processed && s.enable_next_expected_msg_seq_num);
    assert!(!s.persist_messages && !s.use_data_dictionary);
    assert_eq!((s.logon_timeout, s.logout_timeout), (3, 4));
    assert!(s.reset_on_logout && s.reset_on_disconnect);
    assert_eq!(s.admin_http_port, None);
    assert_eq!(s.default_appl_ver_id.as_deref(), Some("FIX.5.0SP2"));
    assert_eq!(
        s.transport_data_dictionary.as_deref(),
        Some(Path::new("/abs/FIXT11.xml"))
    );
    // Relative to the cfg's directory (nothing exists here, so no fallback).
    assert_eq!(
        s.app_data_dictionary.as_deref(),
        Some(Path::new("dir/spec/FIX50SP2.xml"))
    );
    assert_eq!(s.file_store_path.as_deref(), Some(Path::new("dir/store")));
}

#[test]
fn unknown_key_warns_with_file_and_line() {
    let s = parse(&format!(
        "{BASE}Colour=blue\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap();
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(
        s.warnings[0].to_string(),
        "dir/fix44.cfg:5: Colour: unknown key, ignored"
    );
}

fn err(text: &str) -> String {
    parse(text).unwrap_err()
}

#[test]
fn bad_values_name_file_line_and_key() {
    let cases: &[(&str, &str)] = &[
        ("HeartBtInt=abc", "dir/fix44.cfg:7: HeartBtInt: \"abc\" is not a number"),
        ("HeartBtInt=-5", "dir/fix44.cfg:7: HeartBtInt: \"-5\" is not a number"),
        ("HeartBtInt=99999999999", "dir/fix44.cfg:7: HeartBtInt: \"99999999999\" is out of range (it must be 0 to 2147483647)"),
        ("HeartBtInt=2147483648", "dir/fix44.cfg:7: HeartBtInt: \"2147483648\" is out of range (it must be 0 to 2147483647)"),
        // The reliability issue: 0 was accepted, then every Logon was refused.
        ("MaxMessageSize=0", "dir/fix44.cfg:7: MaxMessageSize: \"0\" is out of range (it must be 256 to 67108864)"),
        ("MaxLogonMessageSize=100", "dir/fix44.cfg:7: MaxLogonMessageSize: \"100\" is out of range (it must be 256 to 67108864)"),
        ("MaxMessageSize=4096\nMaxLogonMessageSize=8192", "dir/fix44.cfg:8: MaxLogonMessageSize: 8192 is more than MaxMessageSize (4096)"),
        ("MaxInboundQueueBytes=65536", "dir/fix44.cfg:7: MaxInboundQueueBytes: 65536 is less than MaxMessageSize (1048576), which it must hold"),
        ("MaxOutboundQueueBytes=1048576\nSlowConsumerHardLimit=65536", "dir/fix44.cfg:8: SlowConsumerHardLimit: 65536 is less than MaxOutboundQueueBytes (1048576), which it must hold"),
        ("LogonTimeout=0", "dir/fix44.cfg:7: LogonTimeout: \"0\" is out of range (it must be 1 to 3600)"),
        ("ReconnectInterval=0", "dir/fix44.cfg:7: ReconnectInterval: \"0\" is out of range (it must be 1 to 86400)"),
        ("SocketSendBufferSize=10", "dir/fix44.cfg:7: SocketSendBufferSize: \"10\" is out of range (it must be 1024 to 1073741824)"),
        ("FileStoreSync=0", "dir/fix44.cfg:7: FileStoreSync: \"0\" is out of range (it must be 1 to 3600000)"),
        ("FileStoreDamage=ignore", "dir/fix44.cfg:7: FileStoreDamage: \"ignore\" is not refuse or report"),
        ("SocketAcceptAddress=127.0.0.1\nSocketAcceptHost=0.0.0.0", "dir/fix44.cfg:8: SocketAcceptHost: \"0.0.0.0\" differs from SocketAcceptAddress \"127.0.0.1\" (line 7); they name the same thing"),
        ("ResetOnLogon=yes", "dir/fix44.cfg:7: ResetOnLogon: \"yes\" is not Y or N"),
        ("SocketAcceptPort=70000", "dir/fix44.cfg:7: SocketAcceptPort: \"70000\" is out of range (it must be 0 to 65535)"),
        ("StartTime=8:00\nEndTime=09:00:00", "dir/fix44.cfg:7: StartTime: \"8:00\" is not a time HH:MM:SS"),
        ("StartTime=25:00:00\nEndTime=09:00:00", "dir/fix44.cfg:7: StartTime: \"25:00:00\" is not a time HH:MM:SS"),
        ("StartTime=08:00:00", "dir/fix44.cfg:6: EndTime: missing (StartTime and EndTime go together)"),
        ("StartDay=Funday", "dir/fix44.cfg:7: StartDay: \"Funday\" is not a day of the week"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nStartDay=mon", "dir/fix44.cfg:6: EndDay: missing (StartDay and EndDay go together)"),
        ("StartDay=mon\nEndDay=fri", "dir/fix44.cfg:7: StartDay: a weekly window needs StartTime and EndTime too"),
        ("TimeZone=Mars/Olympus", "dir/fix44.cfg:7: TimeZone: \"Mars/Olympus\" is not a time zone of the IANA database (e.g. America/New_York, Europe/London, Asia/Tokyo, UTC)"),
        ("UseLocalTime=Y\nTimeZone=Europe/London", "dir/fix44.cfg:7: UseLocalTime: Y contradicts TimeZone=Europe/London (line 8): the host's zone or that one (leave out one)"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nWeekdays=Mon,Funday", "dir/fix44.cfg:9: Weekdays: \"Funday\" is not a day of the week (Weekdays is a comma-separated list: Mon,Tue,… or full names)"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nWeekdays=", "dir/fix44.cfg:9: Weekdays: \"\" is not a day of the week (Weekdays is a comma-separated list: Mon,Tue,… or full names)"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nStartDay=mon\nEndDay=fri\nWeekdays=Mon,Tue", "dir/fix44.cfg:11: Weekdays: cannot go with StartDay (line 9): Weekdays is for a daily window, StartDay/EndDay for a weekly one (as in QuickFIX/J and QuickFIX/Go)"),
        ("Weekdays=Mon", "dir/fix44.cfg:7: Weekdays: needs StartTime and EndTime"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nLogonTime=07:00:00\nLogoutTime=16:00:00", "dir/fix44.cfg:9: LogonTime: 07:00:00 is outside the session window (08:00:00 to 17:00:00): the logon window lies inside it, as QuickFIX C++ requires"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nLogonTime=09:00:00\nLogoutTime=18:00:00", "dir/fix44.cfg:10: LogoutTime: 18:00:00 is outside the session window (08:00:00 to 17:00:00): the logon window lies inside it, as QuickFIX C++ requires"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nLogonTime=09:00:00", "dir/fix44.cfg:9: LogonTime: set without LogoutTime (they go together)"),
        ("LogonTime=09:00:00\nLogoutTime=10:00:00", "dir/fix44.cfg:7: LogonTime: needs StartTime and EndTime (the logon window lies inside the session window)"),
        ("StartTime=08:00:00\nEndTime=17:00:00\nLogonTime=09:00:00\nLogoutTime=10:00:00\nLogonDay=mon\nLogoutDay=fri", "dir/fix44.cfg:11: LogonDay: needs StartDay and EndDay (a logon window's days are for a weekly session)"),
        ("ResetSeqTime=5pm", "dir/fix44.cfg:7: ResetSeqTime: \"5pm\" is not a time HH:MM:SS"),
        ("ConnectionType=both", "dir/fix44.cfg:7: ConnectionType: \"both\" is not acceptor or initiator"),
        ("IdleStrategy=nap", "dir/fix44.cfg:7: IdleStrategy: \"nap\" is not an idle strategy (busy-spin, spin-then-yield[:SPINS], backoff[:MAX_MICROS], block)"),
        ("SlowConsumerAction=panic", "dir/fix44.cfg:7: SlowConsumerAction: \"panic\" is not disconnect or flag"),
        ("FileStoreSync=sometimes", "dir/fix44.cfg:7: FileStoreSync: \"sometimes\" is not Y, N, always, never or a number of milliseconds"),
        ("BeginString=FIX.9.9", "dir/fix44.cfg:7: BeginString: \"FIX.9.9\" is not a FIX BeginString (FIX.4.0 … FIX.4.4, FIXT.1.1)"),
        ("BeginString=FIXT.1.1", "dir/fix44.cfg:6: DefaultApplVerID: missing (required with BeginString=FIXT.1.1)"),
        ("SenderCompID=", "dir/fix44.cfg:7: SenderCompID: must not be empty"),
        ("DataDictionary=", "dir/fix44.cfg:7: DataDictionary: must not be empty"),
        ("SocketConnectHost=h", "dir/fix44.cfg:7: SocketConnectHost: set without SocketConnectPort"),
        ("ConnectionType=initiator", "dir/fix44.cfg:6: SocketConnectHost: missing SocketConnectHost/SocketConnectPort (required for an initiator)"),
        ("HeartBtInt=1\nHeartBtInt=2", "dir/fix44.cfg:8: HeartBtInt: set twice in the same section"),
        ("just words", "dir/fix44.cfg:7: \"just words\" is not Key=Value"),
        ("[SESSIONS]", "dir/fix44.cfg:7: unknown section [SESSIONS] (expected [DEFAULT] or [SESSION])"),
        ("[SESSION", "dir/fix44.cfg:7: \"[SESSION\" is not a section header"),
    ];
    for (extra, want) in cases {
        let text = format!("{BASE}\n[SESSION]\n{extra}\nBeginString=FIX.4.4\n");
        // BeginString given twice in the BeginString cases: put the extra one last instead.
        let text = if extra.starts_with("BeginString") {
            format!("{BASE}\n[SESSION]\n{extra}\n")
        } else {
            text
        };
        assert_eq!(&err(&text), want, "for {extra:?}");
    }
}

#[test]
fn structural_errors() {
    assert_eq!(
        err("HeartBtInt=1\n"),
        "dir/fix44.cfg:1: HeartBtInt: setting outside a [DEFAULT] or [SESSION] section"
    );
    assert_eq!(err(BASE), "dir/fix44.cfg: no [SESSION] section");
    assert_eq!(
        err("[DEFAULT]\nSenderCompID=A\nTargetCompID=B\n[SESSION]\nBeginString=FIX.4.4\n"),
        "dir/fix44.cfg:4: SocketAcceptPort: missing (required for an acceptor)"
    );
    assert_eq!(
        err("[DEFAULT]\nSocketAcceptPort=1\nTargetCompID=B\n[SESSION]\nBeginString=FIX.4.4\n"),
        "dir/fix44.cfg:4: SenderCompID: missing (required for every session)"
    );
    assert_eq!(
        err(&format!(
            "{BASE}[SESSION]\nBeginString=FIX.4.4\n[SESSION]\nBeginString=FIX.4.4\n"
        )),
        "dir/fix44.cfg:7: session FIX.4.4:ISLD->TW is already defined at line 5"
    );
    assert_eq!(
        err("[DEFAULT]\n[DEFAULT]\n"),
        "dir/fix44.cfg:2: a second [DEFAULT] section"
    );
}

#[test]
fn crlf_comments_and_missing_final_newline() {
    let s = parse("[DEFAULT]\r\nSocketAcceptPort=5001\r\n; semicolon comment\r\nSenderCompID=ISLD\r\nTargetCompID=TW\r\n\r\n[SESSION]\r\nBeginString=FIX.4.2\r\nResendRequestChunkSize=5").unwrap();
    assert_eq!(s.sessions[0].resend_request_chunk_size, 5);
}

#[test]
fn relative_paths_prefer_the_cfg_directory_then_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("a.cfg");
    std::fs::write(dir.path().join("here.xml"), "x").unwrap();
    assert_eq!(resolve_path(&cfg, "here.xml"), dir.path().join("here.xml"));
    // Not beside the cfg, but relative to the working directory (the crate dir in tests).
    assert_eq!(resolve_path(&cfg, "Cargo.toml"), Path::new("Cargo.toml"));
    // Neither: beside the cfg (so that stores and logs are created there).
    assert_eq!(resolve_path(&cfg, "store"), dir.path().join("store"));
}

#[test]
fn load_reports_unreadable_file() {
    let e = Settings::load("/nonexistent/x.cfg")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/x.cfg: cannot read:"), "{e}");
}

#[test]
fn weekly_windows_utc_and_credentials_reach_the_session_config() {
    let s = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nStartTime=22:00:00\nEndTime=21:00:00\n\
         StartDay=Sunday\nEndDay=fri\nTimeZone=UTC\nUseLocalTime=N\nUsername=trader\nPassword=secret\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let s = &s.sessions[0];
    assert_eq!(
        (s.username.as_deref(), s.password.as_deref()),
        (Some("trader"), Some("secret"))
    );
    let cfg = peregrine_engine::fix::session_config(s, None);
    assert_eq!(
        cfg.schedule,
        Some(peregrine_session::Schedule::weekly(
            0,
            22 * 3600,
            5,
            21 * 3600
        ))
    );
    assert_eq!(cfg.username.as_deref(), Some("trader"));
    assert_eq!(cfg.password.as_deref(), Some("secret"));
    // Without days: daily.
    let s = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nStartTime=08:00:00\nEndTime=17:00:00\n"
    ))
    .unwrap();
    assert_eq!(
        peregrine_engine::fix::schedule(&s.sessions[0]),
        Some(peregrine_session::Schedule::daily(8 * 3600, 17 * 3600))
    );
}

#[test]
fn quickfix_forms_of_file_store_sync_and_accept_host() {
    // FileStoreSync=Y/N is QuickFIX/J's form; SocketAcceptHost QuickFIX/Go's name.
    for (v, want) in [
        ("Y", None),
        ("y", None),
        ("always", None),
        ("N", Some(u64::MAX)),
        ("never", Some(u64::MAX)),
        ("250", Some(250)),
    ] {
        let s = parse(&format!(
            "{BASE}FileStoreSync={v}\n[SESSION]\nBeginString=FIX.4.4\n"
        ))
        .unwrap();
        assert_eq!(s.sessions[0].file_store_sync, want, "{v}");
        assert!(s.warnings.is_empty());
    }
    let s = parse(&format!(
        "{BASE}SocketAcceptHost=127.0.0.1\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap();
    assert_eq!(
        s.sessions[0].socket_accept_address.as_deref(),
        Some("127.0.0.1")
    );
    assert!(s.warnings.is_empty());
}

#[test]
fn every_numeric_key_has_a_range_and_is_documented() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for (key, min, max) in peregrine_engine::config::NUMERIC_RANGES {
        assert!(min <= max, "{key}");
        assert!(
            peregrine_engine::config::KNOWN_KEYS.contains(key),
            "{key} is not a known key"
        );
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{key}`")))
            .unwrap_or_else(|| panic!("{key}: no row in the engine README's settings table"));
        assert!(
            row.contains(&format!("range {min} to {max}")),
            "{key}: the README row does not state \"range {min} to {max}\": {row}"
        );
    }
}

#[test]
fn an_unimplemented_security_or_delivery_key_stops_start_up_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (line, expected_key) in [
        ("SocketKeyStore=keys.jks", "SocketKeyStore"),
        ("SSLProtocol=TLSv1.2", "SSLProtocol"),
        ("AllowedRemoteAddresses=10.0.0.1", "AllowedRemoteAddresses"),
        ("ResetOnError=Y", "ResetOnError"),
        ("RequiresOrigSendingTime=N", "RequiresOrigSendingTime"),
        ("logontag1=553=me", "logontag1"),
        (
            "JdbcDataSourceName=java:comp/env/jdbc/fix",
            "JdbcDataSourceName",
        ),
        ("HeartBeatTimeoutMultiplier=3", "HeartBeatTimeoutMultiplier"),
    ] {
        let path = dir.path().join("venue.cfg");
        std::fs::write(
            &path,
            format!("{BASE}UseDataDictionary=N\n{line}\n[SESSION]\nBeginString=FIX.4.4\n"),
        )
        .unwrap();
        let e = peregrine_engine::EngineBuilder::load(&path).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (6, Some(expected_key)), "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("{}:6: {expected_key}: ", path.display())),
            "{text}"
        );
        assert!(
            text.contains("not implemented by Peregrine (security or delivery)"),
            "{text}"
        );
    }
}

#[test]
fn an_unimplemented_key_that_says_what_peregrine_does_is_accepted() {
    for line in [
        "UseSNI=Y",
        "ResetOnError=n",
        "RequiresOrigSendingTime=Y",
        "HeartBeatTimeoutMultiplier=1.40",
        "SocketConnectProtocol=tcp",
    ] {
        let s = parse(&format!("{BASE}{line}\n[SESSION]\nBeginString=FIX.4.4\n")).unwrap();
        assert!(s.warnings.is_empty(), "{line}: {:?}", s.warnings);
    }
}

#[test]
fn an_unimplemented_cosmetic_key_starts_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("venue.cfg");
    std::fs::write(
        &path,
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         ScreenLogShowHeartBeats=Y\n[SESSION]\nBeginString=FIX.4.4\nFileStoreMaxCachedMsgs=100\n",
    )
    .unwrap();
    let builder = peregrine_engine::EngineBuilder::load(&path).unwrap();
    let warnings: Vec<String> = builder
        .settings()
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:6: ScreenLogShowHeartBeats: QuickFIX/J key not implemented by Peregrine (cosmetic or performance): ",
            path.display()
        )),
        "{warnings:?}"
    );
    assert!(warnings[0].ends_with("; ignored"), "{warnings:?}");
    assert!(
        warnings[1].starts_with(&format!("{}:9: FileStoreMaxCachedMsgs: ", path.display())),
        "{warnings:?}"
    );
    let running = builder
        .start(|_| peregrine_session::EchoApp::new(None))
        .unwrap();
    assert_eq!(running.listener_addrs().len(), 1);
    running.stop().unwrap();
}

/// Warnings reach stderr when no `tracing` subscriber is installed: this test
/// runs itself as a child process, which reports them, and reads its stderr.
#[test]
fn warnings_are_printed_without_a_tracing_subscriber() {
    let text =
        format!("{BASE}ScreenLogShowHeartBeats=Y\nColour=blue\n[SESSION]\nBeginString=FIX.4.4\n");
    if std::env::var_os("PEREGRINE_TEST_WARNINGS_CHILD").is_some() {
        parse(&text).unwrap().report_warnings();
        return;
    }
    let out = child_test(
        "warnings_are_printed_without_a_tracing_subscriber",
        "PEREGRINE_TEST_WARNINGS_CHILD",
        "1",
    )
    .output()
    .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("peregrine: warning: dir/fix44.cfg:5: ScreenLogShowHeartBeats: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("peregrine: warning: dir/fix44.cfg:6: Colour: unknown key, ignored"),
        "{stderr}"
    );
}

#[test]
fn time_zone_weekdays_logon_window_and_reset_time_reach_the_session_config() {
    use peregrine_session::{DailyTime, Days, Schedule, TimeZone, Window};
    let s = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nTimeZone=America/New_York\nStartTime=06:00:00\n\
         EndTime=20:00:00\nWeekdays=Mon, tue,Wednesday,Th,fri\nLogonTime=08:00:00\n\
         LogoutTime=17:00:00\nResetSeqTime=07:00:00\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let ny = TimeZone::get("America/New_York").unwrap();
    let cfg = peregrine_engine::fix::session_config(&s.sessions[0], None);
    let weekdays = Days::Weekdays(0b011_1110);
    assert_eq!(
        cfg.schedule,
        Some(
            Schedule::new(Window {
                start_secs: 6 * 3600,
                end_secs: 20 * 3600,
                days: weekdays
            })
            .in_zone(ny.clone())
            .with_logon_window(Window {
                start_secs: 8 * 3600,
                end_secs: 17 * 3600,
                days: weekdays
            })
        )
    );
    assert_eq!(
        cfg.reset_seq_time,
        Some(DailyTime {
            secs: 7 * 3600,
            zone: ny.clone()
        })
    );
    // ResetSeqTime without a window (non-stop, as QuickFIX/Go allows); UTC aliases;
    // a weekly logon window's days.
    let s = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nNonStopSession=Y\nResetSeqTime=17:00:00\n\
         TimeZone=Europe/London\n[SESSION]\nBeginString=FIX.4.2\nTimeZone=Etc/UTC\n\
         StartTime=17:00:00\nEndTime=17:00:00\nStartDay=sun\nEndDay=fri\nLogonTime=18:00:00\n\
         LogoutTime=16:00:00\nLogonDay=mon\nLogoutDay=fri\n"
    ))
    .unwrap();
    let london = peregrine_engine::fix::session_config(&s.sessions[0], None);
    assert_eq!(london.schedule, None);
    assert_eq!(
        london
            .reset_seq_time
            .map(|t| (t.secs, t.zone.iana_name().map(String::from))),
        Some((17 * 3600, Some("Europe/London".into())))
    );
    let weekly = peregrine_engine::fix::schedule(&s.sessions[1]).unwrap();
    assert_eq!(weekly.zone, TimeZone::UTC);
    assert_eq!(
        weekly.logon.map(|w| w.days),
        Some(Days::Weekly { start: 1, end: 5 })
    );
}

#[test]
fn non_stop_session_and_validate_length_and_checksum() {
    // NonStopSession=Y is a session without a window: fine alone.
    let s = parse(&format!(
        "{BASE}NonStopSession=Y\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty() && s.sessions[0].start_time.is_none());
    assert_eq!(
        err(&format!(
            "{BASE}NonStopSession=Y\nStartTime=08:00:00\nEndTime=17:00:00\n[SESSION]\nBeginString=FIX.4.4\n"
        )),
        "dir/fix44.cfg:5: NonStopSession: Y contradicts StartTime (line 6): a non-stop session has no window (leave out one or the other)"
    );
    assert_eq!(
        err(&format!("{BASE}ValidateLengthAndChecksum=N\n[SESSION]\nBeginString=FIX.4.4\n")),
        "dir/fix44.cfg:5: ValidateLengthAndChecksum: N is not supported: the session always checks BodyLength and CheckSum"
    );
}

#[test]
fn validate_checksum_and_reject_garbled_message_reach_the_session_config() {
    use peregrine_engine::fix::session_config;
    // QuickFIX/J's defaults: checked, dropped.
    let s = parse(&format!("{BASE}[SESSION]\nBeginString=FIX.4.4\n")).unwrap();
    let c = session_config(&s.sessions[0], None);
    assert!(c.validate_checksum && !c.reject_garbled_message);
    let s = parse(&format!(
        "{BASE}ValidateChecksum=N\n[SESSION]\nBeginString=FIX.4.4\n\
         [SESSION]\nBeginString=FIX.4.2\nValidateChecksum=Y\nRejectGarbledMessage=Y\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let (a, b) = (
        session_config(&s.sessions[0], None),
        session_config(&s.sessions[1], None),
    );
    assert!(!a.validate_checksum && !a.reject_garbled_message);
    assert!(b.validate_checksum && b.reject_garbled_message);
    // The pair QuickFIX/J refuses, named where RejectGarbledMessage is set.
    assert_eq!(
        err(&format!(
            "{BASE}ValidateChecksum=N\n[SESSION]\nBeginString=FIX.4.4\nRejectGarbledMessage=Y\n"
        )),
        "dir/fix44.cfg:8: RejectGarbledMessage: Y with ValidateChecksum=N is not possible: a message \
         with a wrong CheckSum cannot be both rejected and processed (QuickFIX/J refuses the pair too)"
    );
    assert!(err(&format!(
        "{BASE}RejectGarbledMessage=maybe\n[SESSION]\nBeginString=FIX.4.4\n"
    ))
    .starts_with("dir/fix44.cfg:5: RejectGarbledMessage: "));
}

#[test]
fn the_unsupported_table_holds_the_quickfix_keys_and_none_peregrine_implements() {
    use peregrine_engine::config::{unsupported, Effect, KNOWN_KEYS, UNSUPPORTED_KEYS};
    assert!(UNSUPPORTED_KEYS.len() > 100);
    for k in UNSUPPORTED_KEYS {
        assert!(
            !KNOWN_KEYS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(k.key)),
            "{}",
            k.key
        );
        // Every key the README's table lists is there.
        assert_eq!(unsupported(k.key), Some(k));
    }
    // The ones the issue names as changing security or delivery.
    for key in [
        "SocketKeyStore",
        "ResetOnError",
        "RequiresOrigSendingTime",
        "ForceResendWhenCorruptedStore",
        "AllowedRemoteAddresses",
    ] {
        assert_eq!(
            unsupported(key).map(|k| k.effect),
            Some(Effect::SecurityOrDelivery),
            "{key}"
        );
    }
}

#[test]
fn the_readme_lists_every_unimplemented_key_with_its_effect() {
    use peregrine_engine::config::{Effect, UNSUPPORTED_KEYS};
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/settings.md"
    ))
    .unwrap();
    let section = readme
        .split("## QuickFIX keys Peregrine does not implement")
        .nth(1)
        .expect("the section of docs/settings.md")
        .split("\n## ")
        .next()
        .unwrap();
    for k in UNSUPPORTED_KEYS {
        let name = if k.numbered {
            format!("`{}<n>`", k.key)
        } else {
            format!("`{}`", k.key)
        };
        let row = section
            .lines()
            .find(|l| l.starts_with("| ") && l.contains(&name))
            .unwrap_or_else(|| panic!("{name}: no row in docs/settings.md's table"));
        let effect = match k.effect {
            Effect::SecurityOrDelivery => "| **error** |",
            Effect::CosmeticOrPerformance => "| warning |",
        };
        assert!(
            row.contains(effect),
            "{name}: the row does not say {effect}: {row}"
        );
        for v in k.same_as_peregrine {
            assert!(
                row.contains(&format!("`{}={v}`", k.key)),
                "{name}: the row does not say {}={v} is accepted",
                k.key
            );
        }
    }
}

#[test]
fn engine_wide_keys_must_agree_across_sessions() {
    let two = |first: &str, second: &str| {
        format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=9876\nBeginString=FIX.4.4\nSenderCompID=V\n\
             [SESSION]\nTargetCompID=A\n{first}\n[SESSION]\nTargetCompID=B\n{second}\n"
        )
    };
    // The same everywhere (or from [DEFAULT]) is fine.
    assert!(parse(&two("IdleStrategy=spin", "IdleStrategy=spin")).is_ok());
    // Different: the second session's line is named.
    let e = err(&two("IdleStrategy=spin", "IdleStrategy=block"));
    assert!(
        e.starts_with("dir/fix44.cfg:11: IdleStrategy: session FIX.4.4:V->B sets it differently from session FIX.4.4:V->A"),
        "{e}"
    );
    // Set in one session only: the other session's section is named.
    let e = err(&two("AdminHttpPort=9001", ""));
    assert!(
        e.starts_with("dir/fix44.cfg:9: AdminHttpPort: session FIX.4.4:V->B"),
        "{e}"
    );
}

#[test]
fn the_readmes_say_the_schedule_and_tls_keys() {
    let engine =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let top = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/settings.md"
    ))
    .unwrap();
    for key in [
        "StartTime",
        "EndTime",
        "StartDay",
        "EndDay",
        "Weekdays",
        "TimeZone",
        "UseLocalTime",
        "NonStopSession",
        "LogonTime",
        "LogoutTime",
        "LogonDay",
        "LogoutDay",
        "ResetSeqTime",
        "SocketUseSSL",
        "SocketCertificateFile",
        "SocketPrivateKeyFile",
        "SocketCAFile",
        "NeedClientAuth",
        "SocketServerName",
        "SocketMinimumTLSVersion",
    ] {
        assert!(
            peregrine_engine::config::KNOWN_KEYS.contains(&key),
            "{key} is not a known key"
        );
        let name = format!("`{key}`");
        assert!(
            engine
                .lines()
                .any(|l| l.starts_with("| `") && l.split(" | ").next().unwrap().contains(&name)),
            "{key}: no row in the engine README's settings table"
        );
        assert!(
            top.contains(&name),
            "{key}: not in docs/settings.md's list of keys"
        );
    }
}

/// DefaultApplVerID takes what QuickFIX and QuickFIX/J take: an ApplVerID (0 … 9,
/// and FIX Latest's 10) or the version's name (`FIX.5.0SP2`, `FIX.4.4`); anything
/// else stops at its file, line and key, in a FIXT session or not.
#[test]
fn default_appl_ver_id_is_an_appl_ver_id_or_a_version_name() {
    let fixt = |value: &str| {
        parse(&format!(
            "{BASE}[SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID={value}\n"
        ))
    };
    for value in [
        "0",
        "7",
        "9",
        "10",
        "FIX.2.7",
        "FIX.4.0",
        "FIX.4.4",
        "FIX.5.0",
        "FIX.5.0SP1",
        "FIX.5.0SP2",
        "FIX.Latest",
    ] {
        let s = fixt(value).unwrap_or_else(|e| panic!("{value}: {e}"));
        assert_eq!(s.sessions[0].default_appl_ver_id.as_deref(), Some(value));
    }
    let refusal = |value: &str, line: usize| {
        format!(
            "dir/fix44.cfg:{line}: DefaultApplVerID: {value:?} is not an ApplVerID (0 … 10) or a \
             version QuickFIX names one by (FIX.2.7, FIX.3.0, FIX.4.0 … FIX.4.4, FIX.5.0, \
             FIX.5.0SP1, FIX.5.0SP2, FIX.Latest)"
        )
    };
    for value in [
        "33",
        "11",
        "FIX.5.0SP3",
        "fix.5.0sp2",
        "FIXT.1.1",
        "9.0",
        "-1",
    ] {
        assert_eq!(fixt(value).unwrap_err(), refusal(value, 7), "{value:?}");
    }
    // Set in [DEFAULT] for FIX.4.x sessions too: a wrong value is wrong there as well.
    assert_eq!(
        parse(&format!(
            "{BASE}DefaultApplVerID=33\n[SESSION]\nBeginString=FIX.4.4\n"
        ))
        .unwrap_err(),
        refusal("33", 5)
    );
}

#[test]
fn every_key_of_quickfixjs_acceptance_cfgs_is_known() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../acceptance/quickfixj/cfg");
    let mut n = 0;
    for suite in std::fs::read_dir(&root).unwrap() {
        for cfg in std::fs::read_dir(suite.unwrap().path()).unwrap() {
            let path = cfg.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let s = Settings::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
            assert!(s.warnings.is_empty(), "{:?}", s.warnings);
            assert_eq!(s.sessions.len(), 1);
            n += 1;
        }
    }
    assert!(n >= 6, "{n} cfgs");
}

/// TimeStampPrecision: QuickFIX/J's SECONDS, MILLIS, MICROS and NANOS, and PICOS
/// (Peregrine's: twelve digits), in any case, typed once when the file is read
/// and taken as it is by the session; anything else stops at its line, naming
/// the file and the key (no fallback to milliseconds).
#[test]
fn time_stamp_precision_takes_picos_too() {
    use peregrine_codec::value::TimePrecision;
    for (value, precision) in [
        ("SECONDS", TimePrecision::Seconds),
        ("MILLIS", TimePrecision::Millis),
        ("MICROS", TimePrecision::Micros),
        ("NANOS", TimePrecision::Nanos),
        ("PICOS", TimePrecision::Picos),
        ("picos", TimePrecision::Picos),
        ("Millis", TimePrecision::Millis),
    ] {
        // FIX.4.0 writes whole seconds unless told otherwise: each value is taken.
        for begin_string in ["FIX.4.0", "FIX.4.4"] {
            let s = parse(&format!(
                "{BASE}[SESSION]\nBeginString={begin_string}\nTimeStampPrecision={value}\n"
            ))
            .unwrap();
            assert_eq!(
                s.sessions[0].timestamp_precision,
                Some(precision),
                "{value}"
            );
            let cfg = peregrine_engine::fix::session_config(&s.sessions[0], None);
            assert_eq!(cfg.timestamp_precision, precision, "{value} {begin_string}");
        }
    }
    // Left out: the BeginString's (seconds before FIX.4.2, milliseconds from it).
    for (begin_string, precision) in [
        ("FIX.4.0", TimePrecision::Seconds),
        ("FIX.4.1", TimePrecision::Seconds),
        ("FIX.4.2", TimePrecision::Millis),
    ] {
        let s = parse(&format!("{BASE}[SESSION]\nBeginString={begin_string}\n")).unwrap();
        assert_eq!(s.sessions[0].timestamp_precision, None);
        let cfg = peregrine_engine::fix::session_config(&s.sessions[0], None);
        assert_eq!(cfg.timestamp_precision, precision, "{begin_string}");
    }
    for (value, line, error) in [
        (
            "FEMTOS",
            7,
            "\"FEMTOS\" is not SECONDS, MILLIS, MICROS, NANOS or PICOS",
        ),
        ("", 7, "\"\" is not SECONDS, MILLIS, MICROS, NANOS or PICOS"),
        (
            "MILLISECONDS",
            7,
            "\"MILLISECONDS\" is not SECONDS, MILLIS, MICROS, NANOS or PICOS",
        ),
    ] {
        assert_eq!(
            parse(&format!(
                "{BASE}[SESSION]\nBeginString=FIX.4.4\nTimeStampPrecision={value}\n"
            ))
            .unwrap_err(),
            format!("dir/fix44.cfg:{line}: TimeStampPrecision: {error}")
        );
    }
    // In [DEFAULT], the error names that line.
    assert_eq!(
        parse(&format!(
            "{BASE}TimeStampPrecision=3\n[SESSION]\nBeginString=FIX.4.4\n"
        ))
        .unwrap_err(),
        "dir/fix44.cfg:5: TimeStampPrecision: \"3\" is not SECONDS, MILLIS, MICROS, NANOS or PICOS"
    );
}

/// `DataDictionary=FIX44.xml` with no such file is QuickFIX's FIX 4.4, built
/// in (QuickFIX/J finds it in its jar; a QuickFIX/J .cfg works as it is); a
/// file of that name beside the settings wins; an unknown name is an error
/// naming the key.
#[test]
fn a_quickfix_dictionary_name_without_a_file_is_the_built_in_one() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("a.cfg");
    let load = |value: &str| {
        let text = format!(
            "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
             DataDictionary={value}\n[SESSION]\nBeginString=FIX.4.4\n"
        );
        let s = Settings::parse(&text, &cfg).unwrap();
        peregrine_engine::fix::load_dictionaries(&s.sessions[0])
    };
    let d = load("FIX44.xml").unwrap().expect("validating");
    assert!(d.application().message("D").is_some());
    let e = load("FIX99.xml").unwrap_err().to_string();
    assert!(
        e.contains("DataDictionary") && e.contains("FIX99.xml"),
        "{e}"
    );
    // A path with a directory means that file: missing, an error.
    let e = load("spec/FIX44.xml").unwrap_err().to_string();
    assert!(
        e.contains("DataDictionary") && e.contains("spec/FIX44.xml"),
        "{e}"
    );
    // A file of that name beside the settings is the one used.
    let stock = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    ))
    .unwrap();
    std::fs::write(
        dir.path().join("FIX44.xml"),
        stock.replacen("name='NewOrderSingle'", "name='Order'", 1),
    )
    .unwrap();
    let d = load("FIX44.xml").unwrap().expect("validating");
    assert_eq!(d.application().message("D").unwrap().name, "Order");
}

//! One session's entries typed into [`SessionSettings`]: each key, then keys that go together.

use std::net::IpAddr;
use std::path::Path;

use peregrine_agent::Idle;
use peregrine_codec::value::TimePrecision;
use peregrine_dict::ValidationSettings;
use peregrine_session::defaults as d;

use super::reader::{one_of, Reader};
use super::{
    ConfigError, ConnectionType, Origin, SessionSettings, SettingLine, SlowConsumerAction,
    StoreDamage, VersionDictionary,
};

pub(super) fn typed(
    origin: Origin,
    file: &Path,
    line: usize,
    entries: Vec<SettingLine>,
) -> Result<SessionSettings, ConfigError> {
    let r = Reader {
        origin,
        file,
        section_line: line,
        entries: &entries,
    };
    let connection_type = r.parsed("ConnectionType", |v| {
        one_of(
            v,
            &[
                ("acceptor", ConnectionType::Acceptor),
                ("initiator", ConnectionType::Initiator),
            ],
        )
    })?;
    let begin_string = r.required("BeginString")?;
    const BEGIN_STRINGS: [&str; 7] = [
        "FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIXT.1.1", "FIX.5.0",
    ];
    if !BEGIN_STRINGS.contains(&begin_string.as_str()) {
        let e = r.entry("BeginString").expect("present");
        return Err(r.err(
            e,
            format!("{begin_string:?} is not a FIX BeginString (FIX.4.0 … FIX.4.4, FIXT.1.1)"),
        ));
    }
    let sender_comp_id = r.required("SenderCompID")?;
    let target_comp_id = r.required("TargetCompID")?;

    let mut connect_addresses = Vec::new();
    let host_port = |h: &str, p: &str| -> Result<Option<(String, u16)>, ConfigError> {
        match (r.entry(h), r.port(p)?) {
            (Some(host), Some(port)) => Ok(Some((host.value.clone(), port))),
            (None, None) => Ok(None),
            (Some(e), None) => Err(r.err(e, format!("set without {p}"))),
            (None, Some(_)) => Err(r.err(r.entry(p).expect("present"), format!("set without {h}"))),
        }
    };
    if let Some(a) = host_port("SocketConnectHost", "SocketConnectPort")? {
        connect_addresses.push(a);
    }
    for i in 1.. {
        match host_port(
            &format!("SocketConnectHost{i}"),
            &format!("SocketConnectPort{i}"),
        )? {
            Some(a) => connect_addresses.push(a),
            None => break,
        }
    }
    let socket_accept_port = r.port("SocketAcceptPort")?;
    match connection_type {
        ConnectionType::Acceptor if socket_accept_port.is_none() => {
            return Err(r.missing("SocketAcceptPort", "missing (required for an acceptor)"))
        }
        ConnectionType::Initiator if connect_addresses.is_empty() => {
            return Err(r.missing(
                "SocketConnectHost",
                "missing SocketConnectHost/SocketConnectPort (required for an initiator)",
            ))
        }
        _ => {}
    }

    let idle_strategy = r.parsed("IdleStrategy", |v| {
        v.parse::<Idle>().map_err(|m| m.to_string())
    })?;
    let slow_consumer_action = r.parsed("SlowConsumerAction", |v| {
        one_of(
            v,
            &[
                ("disconnect", SlowConsumerAction::Disconnect),
                ("flag", SlowConsumerAction::Flag),
            ],
        )
    })?;
    // QuickFIX/J's Y/N, or ours: always, never, or an interval in milliseconds.
    let file_store_sync = match r.entry("FileStoreSync") {
        None => None,
        Some(e) => match e.value.to_ascii_lowercase().as_str() {
            "always" | "y" => None,
            "never" | "n" => Some(u64::MAX),
            v if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                Some(r.number::<u64>("FileStoreSync")?.expect("present"))
            }
            v => {
                return Err(r.err(
                    e,
                    format!("{v:?} is not Y, N, always, never or a number of milliseconds"),
                ))
            }
        },
    };
    let file_store_damage = r.parsed("FileStoreDamage", |v| {
        one_of(
            v,
            &[
                ("refuse", StoreDamage::Refuse),
                ("report", StoreDamage::Report),
            ],
        )
    })?;
    // SocketAcceptHost is QuickFIX/Go's name for SocketAcceptAddress.
    let socket_accept_address = match (r.entry("SocketAcceptAddress"), r.entry("SocketAcceptHost"))
    {
        (Some(a), Some(h)) if a.value != h.value => {
            return Err(r.err(
                h,
                format!(
                "{:?} differs from SocketAcceptAddress {:?} (line {}); they name the same thing",
                h.value, a.value, a.line
            ),
            ))
        }
        (Some(a), _) => Some(a.value.clone()),
        (None, Some(h)) => Some(h.value.clone()),
        (None, None) => None,
    }
    .filter(|v| !v.is_empty());
    // Parsed once here: the session takes this value as it is.
    let timestamp_precision = match r.entry("TimeStampPrecision") {
        None => None,
        Some(e) => Some(time_stamp_precision(&e.value).ok_or_else(|| {
            r.err(
                e,
                format!(
                    "{:?} is not SECONDS, MILLIS, MICROS, NANOS or PICOS",
                    e.value
                ),
            )
        })?),
    };
    let heart_bt_int = r.num("HeartBtInt")?;
    let validation = ValidationSettings {
        validate_fields_out_of_order: r.flag("ValidateFieldsOutOfOrder")?,
        validate_fields_have_values: r.flag("ValidateFieldsHaveValues")?,
        validate_user_defined_fields: r.flag("ValidateUserDefinedFields")?,
        allow_unknown_msg_fields: r.flag("AllowUnknownMsgFields")?,
        validate_unordered_group_fields: r.flag("ValidateUnorderedGroupFields")?,
        check_latency: r.flag("CheckLatency")?,
        max_latency_secs: r.num("MaxLatency")?,
    };
    let max_message_size = r.num("MaxMessageSize")?;
    let max_logon_message_size = r.num_or(
        "MaxLogonMessageSize",
        d::MAX_LOGON_MESSAGE_SIZE.min(max_message_size),
    )?;
    let max_outbound_queue_bytes: usize = r.num("MaxOutboundQueueBytes")?;
    let slow_consumer_hard_limit = r.num_or(
        "SlowConsumerHardLimit",
        // 4 × MaxOutboundQueueBytes, SLOW_CONSUMER_HARD_LIMIT when that is left out.
        max_outbound_queue_bytes
            .saturating_mul(d::SLOW_CONSUMER_HARD_LIMIT / d::MAX_OUTBOUND_QUEUE_BYTES),
    )?;
    let resend_request_timeout = r.num_or(
        "ResendRequestTimeout",
        d::resend_request_timeout(heart_bt_int),
    )?;
    let admin_http_address = r.parsed("AdminHttpAddress", |v| {
        v.parse::<IpAddr>()
            .map_err(|_| format!("{v:?} is not an IP address (e.g. 127.0.0.1 or ::1)"))
    })?;
    // The token's value is never put in a message.
    let admin_http_token = match r.entry("AdminHttpToken") {
        None => None,
        Some(e) if e.value.is_empty() => {
            return Err(r.err(
                e,
                "must not be empty (leave the key out to refuse admin changes)".into(),
            ))
        }
        Some(e) if !e.value.bytes().all(|b| b.is_ascii_graphic()) => {
            return Err(r.err(
                e,
                "must be printable ASCII without spaces (it is sent in an HTTP header)".into(),
            ))
        }
        Some(e) => Some(e.value.clone()),
    };
    let schedule = r.schedule_keys()?;
    let s = SessionSettings {
        file: file.to_path_buf(),
        line,
        origin,
        begin_string,
        sender_comp_id,
        target_comp_id,
        session_qualifier: r.string("SessionQualifier").filter(|q| !q.is_empty()),
        connection_type,
        socket_accept_port,
        socket_accept_address,
        connect_addresses,
        heart_bt_int,
        reconnect_interval: r.num("ReconnectInterval")?,
        use_data_dictionary: r.flag("UseDataDictionary")?,
        data_dictionary: r.path("DataDictionary")?,
        transport_data_dictionary: r.path("TransportDataDictionary")?,
        app_data_dictionary: r.path("AppDataDictionary")?,
        app_data_dictionaries: version_dictionaries(&r)?,
        file_store_path: r.path("FileStorePath")?,
        file_log_path: r.path("FileLogPath")?,
        screen_log: screen_log(&r)?,
        timestamp_precision,
        persist_messages: r.flag("PersistMessages")?,
        start_time: r.time("StartTime")?,
        end_time: r.time("EndTime")?,
        start_day: r.day("StartDay")?,
        end_day: r.day("EndDay")?,
        weekdays: schedule.weekdays,
        time_zone: schedule.time_zone.clone(),
        logon_time: schedule.logon_time.zip(schedule.logout_time),
        logon_days: schedule.logon_day.zip(schedule.logout_day),
        reset_seq_time: schedule.reset_seq_time,
        logon_timeout: r.num("LogonTimeout")?,
        logout_timeout: r.num("LogoutTimeout")?,
        socket_nodelay: r.flag("SocketNodelay")?,
        socket_send_buffer_size: r.number("SocketSendBufferSize")?,
        socket_receive_buffer_size: r.number("SocketReceiveBufferSize")?,
        tls: r.tls_keys(connection_type)?,
        reset_on_logon: r.flag("ResetOnLogon")?,
        reset_on_logout: r.flag("ResetOnLogout")?,
        reset_on_disconnect: r.flag("ResetOnDisconnect")?,
        refresh_on_logon: r.flag("RefreshOnLogon")?,
        resend_request_chunk_size: r.num("ResendRequestChunkSize")?,
        enable_last_msg_seq_num_processed: r.flag("EnableLastMsgSeqNumProcessed")?,
        enable_next_expected_msg_seq_num: r.flag("EnableNextExpectedMsgSeqNum")?,
        default_appl_ver_id: r.string("DefaultApplVerID").filter(|v| !v.is_empty()),
        check_comp_id: r.flag("CheckCompID")?,
        validation,
        validate_length_and_checksum: r.flag("ValidateLengthAndChecksum")?,
        max_message_size,
        admin_http_port: r.port("AdminHttpPort")?.filter(|&p| p != 0),
        admin_http_address,
        admin_http_token,
        idle_strategy,
        max_outbound_queue_bytes,
        slow_consumer_hard_limit,
        slow_consumer_action,
        max_logon_message_size,
        max_inbound_queue_bytes: r.num("MaxInboundQueueBytes")?,
        resend_request_timeout,
        send_redundant_resend_requests: r.flag("SendRedundantResendRequests")?,
        validate_checksum: r.flag("ValidateChecksum")?,
        reject_garbled_message: r.flag("RejectGarbledMessage")?,
        queue_while_logged_out: r.flag("QueueWhileLoggedOut")?,
        engine_journal: r.flag("EngineJournal")?,
        file_store_sync,
        file_store_damage,
        username: r.string("Username").filter(|v| !v.is_empty()),
        password: r.string("Password").filter(|v| !v.is_empty()),
        acceptor_template: r.flag("AcceptorTemplate")?,
        allowed_target_comp_ids: r
            .string("AllowedTargetCompIDs")
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|id| !id.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        max_template_sessions: r.num("MaxTemplateSessions")?,
        ha: super::ha::ha_settings(&r)?,
        sql_store: super::sql_store::sql_store_settings(&r)?,
        entries: Vec::new(),
    };
    if s.acceptor_template {
        if s.connection_type != ConnectionType::Acceptor {
            let e = r.entry("AcceptorTemplate").expect("set");
            return Err(r.err(e, "only an acceptor session can be a template".into()));
        }
    } else {
        for (key, value) in [
            ("SenderCompID", &s.sender_comp_id),
            ("TargetCompID", &s.target_comp_id),
        ] {
            if value == "*" {
                let e = r.entry(key).expect("set");
                return Err(r.err(e, "* (any) needs AcceptorTemplate=Y".into()));
            }
        }
        for key in ["AllowedTargetCompIDs", "MaxTemplateSessions"] {
            if let Some(e) = r.entry(key) {
                return Err(r.err(e, "applies to a template only (AcceptorTemplate=Y)".into()));
            }
        }
    }
    // Cross-key checks.
    let at_least = |key: &str, value: usize, other: &str, min: usize| -> Result<(), ConfigError> {
        match r.entry(key) {
            Some(e) if value < min => Err(r.err(
                e,
                format!("{value} is less than {other} ({min}), which it must hold"),
            )),
            _ => Ok(()),
        }
    };
    if max_logon_message_size > max_message_size {
        let e = r.entry("MaxLogonMessageSize").expect("only when set");
        return Err(r.err(
            e,
            format!("{max_logon_message_size} is more than MaxMessageSize ({max_message_size})"),
        ));
    }
    at_least(
        "MaxInboundQueueBytes",
        s.max_inbound_queue_bytes,
        "MaxMessageSize",
        max_message_size,
    )?;
    at_least(
        "SlowConsumerHardLimit",
        s.slow_consumer_hard_limit,
        "MaxOutboundQueueBytes",
        s.max_outbound_queue_bytes,
    )?;
    if s.begin_string == "FIXT.1.1" && s.default_appl_ver_id.is_none() {
        return Err(r.missing(
            "DefaultApplVerID",
            "missing (required with BeginString=FIXT.1.1)",
        ));
    }
    if let Some(e) = r
        .entry("DefaultApplVerID")
        .filter(|e| !e.value.is_empty() && peregrine_session::known_appl_ver_id(&e.value).is_none())
    {
        return Err(r.err(
            e,
            format!(
                "{:?} is not an ApplVerID (0 … 10) or a version QuickFIX names one by \
                 (FIX.2.7, FIX.3.0, FIX.4.0 … FIX.4.4, FIX.5.0, FIX.5.0SP1, FIX.5.0SP2, FIX.Latest)",
                e.value
            ),
        ));
    }
    // Keys that go together: one without the other names the one missing.
    for ((start, has_start), (end, has_end)) in [
        (
            ("StartTime", s.start_time.is_some()),
            ("EndTime", s.end_time.is_some()),
        ),
        (
            ("StartDay", s.start_day.is_some()),
            ("EndDay", s.end_day.is_some()),
        ),
    ] {
        if has_start != has_end {
            let key = if has_start { end } else { start };
            return Err(r.missing(key, &format!("missing ({start} and {end} go together)")));
        }
    }
    if s.start_day.is_some() && s.start_time.is_none() {
        let e = r.entry("StartDay").expect("set");
        return Err(r.err(e, "a weekly window needs StartTime and EndTime too".into()));
    }
    r.check_schedule(
        s.start_time,
        s.end_time,
        s.start_day.zip(s.end_day),
        &schedule,
    )?;
    // Always checked: N would be a setting silently ignored.
    if !s.validate_length_and_checksum {
        let e = r
            .entry("ValidateLengthAndChecksum")
            .expect("N only when set");
        return Err(r.err(
            e,
            "N is not supported: the session always checks BodyLength and CheckSum".into(),
        ));
    }
    if s.reject_garbled_message && !s.validate_checksum {
        let e = r.entry("RejectGarbledMessage").expect("Y only when set");
        return Err(r.err(
            e,
            "Y with ValidateChecksum=N is not possible: a message with a wrong CheckSum \
             cannot be both rejected and processed (QuickFIX/J refuses the pair too)"
                .into(),
        ));
    }
    if s.heart_bt_int == 0 && s.connection_type == ConnectionType::Initiator {
        let e = r.entry("HeartBtInt").expect("0 only when set");
        return Err(r.err(e, "must be at least 1 for an initiator".into()));
    }
    Ok(SessionSettings { entries, ..s })
}

/// A `TimeStampPrecision` value, in any case: QuickFIX/J's SECONDS, MILLIS,
/// MICROS and NANOS, and PICOS (Peregrine's: twelve digits, the finest FIX
/// Latest allows).
fn time_stamp_precision(value: &str) -> Option<TimePrecision> {
    Some(match value.to_ascii_uppercase().as_str() {
        "SECONDS" => TimePrecision::Seconds,
        "MILLIS" => TimePrecision::Millis,
        "MICROS" => TimePrecision::Micros,
        "NANOS" => TimePrecision::Nanos,
        "PICOS" => TimePrecision::Picos,
        _ => return None,
    })
}

/// `AppDataDictionary.<version>` keys (QuickFIX/J's): the version is a name
/// QuickFIX/J converts to an ApplVerID (`FIX.4.0` … `FIX.4.4`, `FIX.5.0`,
/// `FIX.5.0SP1`, `FIX.5.0SP2`; `FIX.2.7`, `FIX.3.0` and `FIX.Latest` too), never
/// a code; anything else stops start-up naming the key.
fn version_dictionaries(r: &Reader<'_>) -> Result<Vec<VersionDictionary>, ConfigError> {
    const PREFIX: &str = "AppDataDictionary.";
    let mut out: Vec<VersionDictionary> = Vec::new();
    for e in r.entries {
        let Some(version) = e
            .key
            .get(..PREFIX.len())
            .filter(|p| p.eq_ignore_ascii_case(PREFIX))
            .map(|_| &e.key[PREFIX.len()..])
        else {
            continue;
        };
        let Some(&(code, _)) = peregrine_session::APPL_VER_IDS
            .iter()
            .find(|(_, name)| *name == version)
        else {
            return Err(r.err(
                e,
                format!(
                    "{version:?} is not a FIX version QuickFIX/J names an ApplVerID by (FIX.4.0 \
                     … FIX.4.4, FIX.5.0, FIX.5.0SP1, FIX.5.0SP2; FIX.2.7, FIX.3.0, FIX.Latest): \
                     write AppDataDictionary.FIX.4.4=…"
                ),
            ));
        };
        let Some(path) = r.path(&e.key)? else {
            continue;
        };
        out.retain(|d| d.appl_ver_id != code);
        out.push(VersionDictionary {
            appl_ver_id: code,
            path,
            key: e.key.clone(),
        });
    }
    Ok(out)
}

/// The `ScreenLogShow*` keys: none set, no screen log; any set, the others Y
/// (QuickFIX's `ScreenLogFactory` defaults).
fn screen_log(r: &Reader<'_>) -> Result<Option<crate::log::ScreenLogSettings>, ConfigError> {
    const KEYS: [&str; 3] = [
        "ScreenLogShowEvents",
        "ScreenLogShowIncoming",
        "ScreenLogShowOutgoing",
    ];
    if KEYS.iter().all(|k| r.entry(k).is_none()) {
        return Ok(None);
    }
    Ok(Some(crate::log::ScreenLogSettings {
        events: r.bool(KEYS[0], true)?,
        incoming: r.bool(KEYS[1], true)?,
        outgoing: r.bool(KEYS[2], true)?,
    }))
}

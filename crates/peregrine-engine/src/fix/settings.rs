//! Settings → the session crate's configuration: a session's identity, its
//! [`SessionConfig`] and its schedule, from its [`SessionSettings`].

use std::sync::Arc;

use peregrine_dict::Dictionaries;
use peregrine_session::{
    DailyTime, Days, Role, Schedule, SessionConfig, SessionId, ValidationOptions, Window,
};

use crate::config::{ConnectionType, SessionSettings};

/// The session's identity from its settings.
pub fn session_id(s: &SessionSettings) -> SessionId {
    let mut id = SessionId::new(&s.begin_string, &s.sender_comp_id, &s.target_comp_id);
    id.qualifier = s.session_qualifier.clone();
    id
}

/// The session crate's configuration for these settings (dictionaries given
/// separately, see [`load_dictionaries`](super::load_dictionaries)).
///
/// ```
/// use peregrine_engine::{config::Settings, fix::session_config};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
///             [SESSION]\nBeginString=FIX.4.0\nResetOnLogon=Y\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let cfg = session_config(s, None);
/// assert!(cfg.reset_on_logon);
/// assert_eq!(cfg.timestamp_precision, peregrine_codec::value::TimePrecision::Seconds); // FIX.4.0's
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn session_config(
    s: &SessionSettings,
    dictionaries: Option<Arc<Dictionaries>>,
) -> SessionConfig {
    let role = match s.connection_type {
        ConnectionType::Acceptor => Role::Acceptor,
        ConnectionType::Initiator => Role::Initiator,
    };
    let mut c = SessionConfig::new(session_id(s), role);
    c.heartbeat_interval_secs = s.heart_bt_int;
    c.reset_on_logon = s.reset_on_logon;
    c.reset_on_logout = s.reset_on_logout;
    c.reset_on_disconnect = s.reset_on_disconnect;
    c.refresh_on_logon = s.refresh_on_logon;
    c.logon_timeout_secs = s.logon_timeout;
    c.logout_timeout_secs = s.logout_timeout;
    c.check_latency = s.validation.check_latency;
    c.max_latency_secs = s.validation.max_latency_secs;
    c.check_comp_id = s.check_comp_id;
    c.resend_request_chunk_size = s.resend_request_chunk_size;
    c.enable_last_msg_seq_num_processed = s.enable_last_msg_seq_num_processed;
    c.enable_next_expected_msg_seq_num = s.enable_next_expected_msg_seq_num;
    c.default_appl_ver_id = s.default_appl_ver_id.clone();
    c.persist_messages = s.persist_messages;
    if let Some(p) = s.timestamp_precision {
        c.timestamp_precision = p;
    }
    c.validation = ValidationOptions {
        use_data_dictionary: s.use_data_dictionary,
        settings: s.validation,
    };
    c.dictionaries = dictionaries;
    c.schedule = schedule(s);
    c.reset_seq_time = s.reset_seq_time.map(|t| DailyTime {
        secs: t.0,
        zone: s.time_zone.clone(),
    });
    c.max_message_size = s.max_message_size;
    c.username = s.username.clone();
    c.password = s.password.clone();
    c.max_logon_size = s.max_logon_message_size;
    c.max_inbound_queue_bytes = s.max_inbound_queue_bytes;
    c.max_outbound_bytes = s.slow_consumer_hard_limit;
    c.resend_request_timeout_secs = s.resend_request_timeout;
    c.send_redundant_resend_requests = s.send_redundant_resend_requests;
    c.validate_checksum = s.validate_checksum;
    c.reject_garbled_message = s.reject_garbled_message;
    c.queue_while_logged_out = s.queue_while_logged_out;
    c
}

/// The session window of these settings in their `TimeZone`: daily from `StartTime`
/// to `EndTime` (on `Weekdays` only, if set), or weekly from `StartDay` `StartTime`
/// to `EndDay` `EndTime`, with the logon window of `LogonTime`/`LogoutTime`; `None`
/// when always on.
///
/// ```
/// use peregrine_engine::{config::Settings, fix::schedule};
/// use peregrine_session::{Schedule, TimeZone};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
///             StartTime=17:00:00\nEndTime=17:00:00\nStartDay=sun\nEndDay=fri\n\
///             TimeZone=America/New_York\n[SESSION]\nBeginString=FIX.4.4\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let ny = TimeZone::get("America/New_York").unwrap();
/// assert_eq!(schedule(s), Some(Schedule::weekly(0, 17 * 3600, 5, 17 * 3600).in_zone(ny)));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn schedule(s: &SessionSettings) -> Option<Schedule> {
    let (start, end) = (s.start_time?, s.end_time?);
    let days = match (s.start_day, s.end_day, s.weekdays) {
        (Some(start), Some(end), _) => Days::Weekly { start, end },
        (_, _, Some(mask)) => Days::Weekdays(mask),
        _ => Days::Daily,
    };
    let mut schedule = Schedule::new(Window {
        start_secs: start.0,
        end_secs: end.0,
        days,
    })
    .in_zone(s.time_zone.clone());
    if let Some((on, off)) = s.logon_time {
        let days = match (days, s.logon_days) {
            (Days::Weekly { .. }, Some((start, end))) => Days::Weekly { start, end },
            (days, _) => days,
        };
        schedule = schedule.with_logon_window(Window {
            start_secs: on.0,
            end_secs: off.0,
            days,
        });
    }
    Some(schedule)
}

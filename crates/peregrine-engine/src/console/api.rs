//! The console's JSON: every session's row (the reactor's snapshot joined
//! with its counters), the engine's counters, and pages of messages.

use serde::Serialize;
use serde_json::Value;

use peregrine_session::RejectKind;

use crate::metrics::{HistogramSnapshot, Metrics, SessionMetrics};
use crate::session_info::SessionInfo;

use super::messages::Page;

/// Nanoseconds since the epoch to milliseconds (what a browser's `Date` takes).
fn ms(nanos: i64) -> i64 {
    nanos / 1_000_000
}

/// A histogram as its count and sum (the page charts the mean of the
/// deltas between polls).
#[derive(Serialize, Default, Clone, Copy)]
pub struct Latency {
    count: u64,
    sum_ns: u64,
}

impl Latency {
    fn of(s: &HistogramSnapshot) -> Latency {
        Latency {
            count: s.count(),
            sum_ns: s.sum_nanos,
        }
    }

    fn add(&mut self, other: Latency) {
        self.count += other.count;
        self.sum_ns = self.sum_ns.wrapping_add(other.sum_ns);
    }
}

/// One row of the Sessions table.
#[derive(Serialize)]
struct Row<'a> {
    name: &'a str,
    role: &'a str,
    state: &'a str,
    connected: bool,
    logged_on: bool,
    enabled: bool,
    slow_consumer: bool,
    /// Why it is in its state.
    note: Option<&'a str>,
    schedule: Option<&'a str>,
    logon_allowed: bool,
    /// When `logon_allowed` next changes (ms since the epoch).
    schedule_changes_at: Option<i64>,
    last_logon: Option<i64>,
    next_sender_seq: u64,
    next_target_seq: u64,
    pending_outbound: usize,
    messages_in: u64,
    messages_out: u64,
    bytes_in: u64,
    bytes_out: u64,
    /// ResendRequests received (the counterparty asked) and answered.
    resends_asked: u64,
    resends_answered: u64,
    /// ResendRequests we sent.
    resend_requests_sent: u64,
    messages_resent: u64,
    rejects_sent: u64,
    rejects_received: u64,
    test_requests_sent: u64,
    heartbeat_rtt: Latency,
    store_fsync: Latency,
    has_log: bool,
}

fn rejects(m: &SessionMetrics, sent: bool) -> u64 {
    let c = m.counters();
    [RejectKind::Session, RejectKind::Business]
        .into_iter()
        .map(|k| {
            if sent {
                c.rejects_sent_by_reason(k).map(|(_, n)| n).sum::<u64>()
            } else {
                c.rejects_received_by_reason(k).map(|(_, n)| n).sum()
            }
        })
        .sum()
}

/// `GET api/sessions`: a JSON array of rows.
pub fn sessions(infos: &[SessionInfo], metrics: &Metrics) -> String {
    let all = metrics.sessions();
    let rows: Vec<Row<'_>> = infos
        .iter()
        .map(|i| {
            let m = all.iter().find(|m| m.name() == i.name);
            let c = m.map(|m| m.counters());
            let count = |f: fn(&peregrine_session::metrics::SessionCounters) -> u64| c.map_or(0, f);
            Row {
                name: &i.name,
                role: i.role,
                state: &i.state,
                connected: i.connected,
                logged_on: i.logged_on,
                enabled: i.enabled,
                slow_consumer: i.slow_consumer,
                note: i.note.as_deref(),
                schedule: i.schedule.as_deref(),
                logon_allowed: i.logon_allowed,
                schedule_changes_at: i.schedule_changes_at.map(ms),
                last_logon: i.last_logon.map(ms),
                next_sender_seq: i.next_sender_seq,
                next_target_seq: i.next_target_seq,
                pending_outbound: i.pending_outbound,
                messages_in: count(|c| c.messages_received()),
                messages_out: count(|c| c.messages_sent()),
                bytes_in: m.map_or(0, |m| m.bytes_received()),
                bytes_out: m.map_or(0, |m| m.bytes_sent()),
                resends_asked: count(|c| c.resend_requests_received()),
                resends_answered: count(|c| c.resends_answered()),
                resend_requests_sent: count(|c| c.resend_requests_sent()),
                messages_resent: count(|c| c.messages_resent()),
                rejects_sent: m.map_or(0, |m| rejects(m, true)),
                rejects_received: m.map_or(0, |m| rejects(m, false)),
                test_requests_sent: count(|c| c.test_requests_sent()),
                heartbeat_rtt: c.map_or_else(Latency::default, |c| {
                    Latency::of(&c.heartbeat_rtt().snapshot())
                }),
                store_fsync: m.map_or_else(Latency::default, |m| {
                    Latency::of(&m.store_fsync().snapshot())
                }),
                has_log: i.messages_log.is_some(),
            }
        })
        .collect();
    serde_json::to_string(&rows).unwrap_or_else(|_| "[]".into())
}

/// `GET api/engine`: the reactor's counters and every session's store
/// fsyncs together, cumulative (the page charts the differences).
pub fn engine(metrics: &Metrics, now_nanos: i64) -> String {
    let e = metrics.engine();
    let mut fsync = Latency::default();
    let mut write = Latency::default();
    for s in metrics.sessions().iter() {
        fsync.add(Latency::of(&s.store_fsync().snapshot()));
        write.add(Latency::of(&s.store_write().snapshot()));
    }
    serde_json::json!({
        "time": ms(now_nanos),
        "sessions": metrics.sessions().len(),
        "turns": e.turns(),
        "idle_turns": e.idle_turns(),
        "readiness_events": e.readiness_events(),
        "polls": e.polls(),
        "housekeeping": e.housekeeping(),
        "commands": e.commands(),
        "sender_messages": e.sender_messages(),
        "connections_accepted": e.connections_accepted(),
        "store_fsync": fsync,
        "store_write": write,
    })
    .to_string()
}

/// A page of messages as JSON: `{"messages":[{"offset":…,"message":{…}}],
/// "next_offset":…,"scanned":…,"file_len":…}`, each message as
/// `peregrine decode --json` writes it.
pub fn page(session: &str, page: &Page) -> String {
    let mut out = String::with_capacity(page.messages.iter().map(|(_, m)| m.len() + 40).sum());
    out.push_str("{\"messages\":[");
    for (i, (offset, message)) in page.messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"session\":{},\"offset\":{offset},\"message\":{message}}}",
            Value::from(session)
        ));
    }
    out.push_str(&format!(
        "],\"next_offset\":{},\"scanned\":{},\"file_len\":{}}}",
        page.next_offset.map_or("null".into(), |o| o.to_string()),
        page.scanned,
        page.file_len
    ));
    out
}

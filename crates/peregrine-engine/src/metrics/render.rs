//! The OpenMetrics text of an engine's metrics, encoded by `prometheus-client`
//! from a collector that reads the atomics at scrape time.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelValue, LabelValueEncoder, NoLabelSet,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

use peregrine_session::{RejectKind, SessionState};

use super::{LatencyHistogram, Metrics, SessionMetrics, SESSION_STATES};

/// The `Content-Type` of [`Metrics::render`]'s text: OpenMetrics 1.0, the
/// format `prometheus-client` writes (Prometheus asks for it and reads it).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub(super) fn render(metrics: &Metrics) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(EngineCollector(metrics.clone())));
    let mut text = String::new();
    // Writing into a String does not fail, and the collector fails only when
    // the writer does.
    let encoded = prometheus_client::encoding::text::encode(&mut text, &registry);
    debug_assert!(encoded.is_ok());
    text
}

/// A label value as the text format wants it: `\`, `"` and line feeds
/// escaped (`prometheus-client` writes label values as given).
#[derive(Clone, Copy, Debug)]
struct Escaped<'a>(&'a str);

impl EncodeLabelValue for Escaped<'_> {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(['\\', '"', '\n']) {
            encoder.write_str(&rest[..i])?;
            encoder.write_str(match rest.as_bytes()[i] {
                b'\\' => "\\\\",
                b'"' => "\\\"",
                _ => "\\n",
            })?;
            rest = &rest[i + 1..];
        }
        encoder.write_str(rest)
    }
}

fn state_name(state: SessionState) -> &'static str {
    match state {
        SessionState::Disconnected => "Disconnected",
        SessionState::AwaitingLogon => "AwaitingLogon",
        SessionState::LogonSent => "LogonSent",
        SessionState::LoggedOn => "LoggedOn",
        SessionState::LogoutSent => "LogoutSent",
        SessionState::Closing => "Closing",
    }
}

/// Reads the metrics when the registry is encoded (every scrape).
#[derive(Debug)]
struct EngineCollector(Metrics);

type Sessions = [Arc<SessionMetrics>];

/// A per-session counter family: name (without `_total`), help, unit, value.
/// A per-session gauge family: name, help, value.
type GaugeFamily = (&'static str, &'static str, fn(&SessionMetrics) -> u64);

type CounterFamily = (
    &'static str,
    &'static str,
    Option<Unit>,
    fn(&SessionMetrics) -> u64,
);

impl Collector for EngineCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        let sessions = self.0.sessions();
        let counters: [CounterFamily; 19] = [
            (
                "peregrine_session_messages_received",
                "Messages received whole and decoded",
                None,
                |s| s.counters().messages_received(),
            ),
            (
                "peregrine_session_messages_sent",
                "Messages queued for the connection, resends and gap fills included",
                None,
                |s| s.counters().messages_sent(),
            ),
            (
                "peregrine_session_received",
                "FIX bytes read from the session's connections (plaintext under TLS)",
                Some(Unit::Bytes),
                SessionMetrics::bytes_received,
            ),
            (
                "peregrine_session_sent",
                "FIX bytes written to the session's connections (plaintext under TLS)",
                Some(Unit::Bytes),
                SessionMetrics::bytes_sent,
            ),
            (
                "peregrine_session_messages_resent",
                "Application messages re-sent with PossDupFlag=Y to answer a ResendRequest",
                None,
                |s| s.counters().messages_resent(),
            ),
            (
                "peregrine_session_gap_fills_sent",
                "SequenceReset-GapFill messages sent answering a ResendRequest",
                None,
                |s| s.counters().gap_fills_sent(),
            ),
            (
                "peregrine_session_gap_fills_received",
                "SequenceReset-GapFill messages received",
                None,
                |s| s.counters().gap_fills_received(),
            ),
            (
                "peregrine_session_sequence_resets_received",
                "SequenceReset messages in reset mode received",
                None,
                |s| s.counters().sequence_resets_received(),
            ),
            (
                "peregrine_session_sequence_number_resets",
                "Times the sequence numbers were reset to 1",
                None,
                |s| s.counters().sequence_number_resets(),
            ),
            (
                "peregrine_session_gaps_detected",
                "Gaps in the sequence numbers received",
                None,
                |s| s.counters().gaps_detected(),
            ),
            (
                "peregrine_session_resend_requests_sent",
                "ResendRequests sent",
                None,
                |s| s.counters().resend_requests_sent(),
            ),
            (
                "peregrine_session_resend_requests_received",
                "ResendRequests received",
                None,
                |s| s.counters().resend_requests_received(),
            ),
            (
                "peregrine_session_resends_answered",
                "ResendRequests answered to the end",
                None,
                |s| s.counters().resends_answered(),
            ),
            (
                "peregrine_session_garbled",
                "Runs of garbled bytes dropped",
                None,
                |s| s.counters().garbled(),
            ),
            ("peregrine_session_logons", "Logons completed", None, |s| {
                s.counters().logons()
            }),
            (
                "peregrine_session_logouts_sent",
                "Logouts sent",
                None,
                |s| s.counters().logouts_sent(),
            ),
            (
                "peregrine_session_logouts_received",
                "Logouts received",
                None,
                |s| s.counters().logouts_received(),
            ),
            (
                "peregrine_session_test_requests_sent",
                "TestRequests sent after 1.2 heartbeat intervals without input",
                None,
                |s| s.counters().test_requests_sent(),
            ),
            (
                "peregrine_session_slow_consumer_flags",
                "Times the session was flagged as a slow consumer (SlowConsumerAction=flag)",
                None,
                SessionMetrics::slow_consumer_flags,
            ),
        ];
        for (name, help, unit, value) in &counters {
            let mut family =
                encoder.encode_descriptor(name, help, unit.as_ref(), MetricType::Counter)?;
            for s in sessions.iter() {
                let labels = [("session", Escaped(s.name()))];
                family
                    .encode_family(&labels)?
                    .encode_counter::<NoLabelSet, _, u64>(&value(s), None)?;
            }
        }
        let gauges: [GaugeFamily; 6] = [
            (
                "peregrine_session_next_sender_seq_num",
                "The next outgoing MsgSeqNum",
                |s| s.counters().next_sender_seq(),
            ),
            (
                "peregrine_session_next_target_seq_num",
                "The next MsgSeqNum expected from the counterparty",
                |s| s.counters().next_target_seq(),
            ),
            (
                "peregrine_session_outbound_pending_bytes",
                "Bytes queued for the connection and not yet written",
                SessionMetrics::outbound_pending,
            ),
            (
                "peregrine_session_slow_consumer",
                "1 while the session is flagged as a slow consumer",
                |s| u64::from(s.slow_consumer()),
            ),
            (
                "peregrine_session_enabled",
                "1 unless an operator logged the session out (/logout; /logon enables it)",
                |s| u64::from(s.enabled()),
            ),
            (
                "peregrine_session_in_schedule",
                "1 while the session's schedule lets it log on (always, without one)",
                |s| u64::from(s.in_schedule(crate::driver::now_nanos())),
            ),
        ];
        for (name, help, value) in gauges {
            let mut family = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
            for s in sessions.iter() {
                let labels = [("session", Escaped(s.name()))];
                family.encode_family(&labels)?.encode_gauge(&value(s))?;
            }
        }
        rejects(&mut encoder, &sessions)?;
        disconnects(&mut encoder, &sessions)?;
        states(&mut encoder, &sessions)?;
        histogram(
            &mut encoder,
            &sessions,
            "peregrine_session_store_write",
            "Time of a file store's writes per commit (not its fsync)",
            SessionMetrics::store_write,
        )?;
        histogram(
            &mut encoder,
            &sessions,
            "peregrine_session_store_fsync",
            "Time of one fsync of a file store",
            SessionMetrics::store_fsync,
        )?;
        histogram(
            &mut encoder,
            &sessions,
            "peregrine_session_heartbeat_rtt",
            "From our TestRequest to the Heartbeat carrying its TestReqID",
            |s| s.counters().heartbeat_rtt(),
        )?;
        engine(&mut encoder, &self.0, sessions.len())
    }
}

fn rejects(encoder: &mut DescriptorEncoder, sessions: &Sessions) -> fmt::Result {
    for (name, help, received) in [
        (
            "peregrine_session_rejects_sent",
            "Rejects sent, by type (session 35=3, business 35=j) and reason (373 or 380)",
            false,
        ),
        (
            "peregrine_session_rejects_received",
            "Rejects received, by type (session 35=3, business 35=j) and reason (373 or 380)",
            true,
        ),
    ] {
        let mut family = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
        for s in sessions {
            for (kind, kind_label) in [
                (RejectKind::Session, "session"),
                (RejectKind::Business, "business"),
            ] {
                let c = s.counters();
                let by_reason: Vec<(&str, u64)> = if received {
                    c.rejects_received_by_reason(kind).collect()
                } else {
                    c.rejects_sent_by_reason(kind).collect()
                };
                for (reason, n) in by_reason.into_iter().filter(|&(_, n)| n > 0) {
                    let labels = [
                        ("session", Escaped(s.name())),
                        ("type", Escaped(kind_label)),
                        ("reason", Escaped(reason)),
                    ];
                    family
                        .encode_family(&labels)?
                        .encode_counter::<NoLabelSet, _, u64>(&n, None)?;
                }
            }
        }
    }
    Ok(())
}

fn disconnects(encoder: &mut DescriptorEncoder, sessions: &Sessions) -> fmt::Result {
    let mut family = encoder.encode_descriptor(
        "peregrine_session_disconnects",
        "Connections ended, by reason",
        None,
        MetricType::Counter,
    )?;
    for s in sessions {
        for (reason, n) in s.counters().disconnects_by_reason().filter(|&(_, n)| n > 0) {
            let labels = [("session", Escaped(s.name())), ("reason", Escaped(reason))];
            family
                .encode_family(&labels)?
                .encode_counter::<NoLabelSet, _, u64>(&n, None)?;
        }
    }
    Ok(())
}

fn states(encoder: &mut DescriptorEncoder, sessions: &Sessions) -> fmt::Result {
    let mut family = encoder.encode_descriptor(
        "peregrine_session_state",
        "1 for the state the session is in, 0 for the others",
        None,
        MetricType::Gauge,
    )?;
    for s in sessions {
        let now = s.counters().state();
        for state in SESSION_STATES {
            let labels = [
                ("session", Escaped(s.name())),
                ("state", Escaped(state_name(state))),
            ];
            family
                .encode_family(&labels)?
                .encode_gauge(&u64::from(state == now))?;
        }
    }
    Ok(())
}

/// A histogram family in seconds; a session without an observation is left out.
fn histogram(
    encoder: &mut DescriptorEncoder,
    sessions: &Sessions,
    name: &str,
    help: &str,
    of: fn(&SessionMetrics) -> &LatencyHistogram,
) -> fmt::Result {
    let seconds = Unit::Seconds;
    let mut family =
        encoder.encode_descriptor(name, help, Some(&seconds), MetricType::Histogram)?;
    for s in sessions {
        let snapshot = of(s).snapshot();
        let count = snapshot.count();
        if count == 0 {
            continue;
        }
        // prometheus-client writes f64::MAX as `+Inf`, and sums the buckets.
        let buckets: [(f64, u64); super::LATENCY_BUCKETS + 1] = std::array::from_fn(|k| {
            let bound = LatencyHistogram::upper_bound_nanos(k).map_or(f64::MAX, |n| n as f64 / 1e9);
            (bound, snapshot.buckets[k])
        });
        let labels = [("session", Escaped(s.name()))];
        family
            .encode_family(&labels)?
            .encode_histogram::<NoLabelSet>(
                snapshot.sum_nanos as f64 / 1e9,
                count,
                &buckets,
                None,
            )?;
    }
    Ok(())
}

fn engine(encoder: &mut DescriptorEncoder, metrics: &Metrics, sessions: usize) -> fmt::Result {
    let e = metrics.engine();
    for (name, help, value) in [
        (
            "peregrine_engine_turns",
            "Duty cycles of the reactor",
            e.turns(),
        ),
        (
            "peregrine_engine_idle_turns",
            "Duty cycles that found nothing to do",
            e.idle_turns(),
        ),
        (
            "peregrine_engine_readiness_events",
            "Readiness events epoll reported",
            e.readiness_events(),
        ),
        (
            "peregrine_engine_polls",
            "Times the reactor asked epoll what is ready",
            e.polls(),
        ),
        (
            "peregrine_engine_housekeeping",
            "Housekeeping passes (timers, reconnects, commands, log flushes)",
            e.housekeeping(),
        ),
        (
            "peregrine_engine_commands",
            "Commands carried out",
            e.commands(),
        ),
        (
            "peregrine_engine_sender_messages",
            "Messages taken from Sender queues",
            e.sender_messages(),
        ),
        (
            "peregrine_engine_connections_accepted",
            "Connections accepted",
            e.connections_accepted(),
        ),
    ] {
        encoder
            .encode_descriptor(name, help, None, MetricType::Counter)?
            .encode_counter::<NoLabelSet, _, u64>(&value, None)?;
    }
    encoder
        .encode_descriptor(
            "peregrine_engine_sessions",
            "Sessions the engine hosts",
            None,
            MetricType::Gauge,
        )?
        .encode_gauge(&(sessions as u64))
}

#[cfg(test)]
mod tests {
    use super::super::LATENCY_BUCKETS;
    use super::*;

    #[test]
    fn label_values_are_escaped_as_the_format_says() {
        let metrics = Metrics::default();
        let counters = Arc::new(peregrine_session::metrics::SessionCounters::new());
        let odd = "FIX.4.4:A\"B\\C->D\nE";
        metrics.publish(vec![Arc::new(SessionMetrics::new(odd, counters))]);
        let text = metrics.render();
        assert!(
            text.contains(
                "peregrine_session_messages_received_total{session=\"FIX.4.4:A\\\"B\\\\C->D\\nE\"} 0\n"
            ),
            "{text}"
        );
        // The raw name never reaches the text: no line starts inside it.
        assert!(!text.contains("A\"B"), "{text}");
        assert!(!text.lines().any(|l| l.starts_with("E\"")), "{text}");
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn a_histogram_is_rendered_cumulative_in_seconds_with_its_sum_and_count() {
        let metrics = Metrics::default();
        let s = Arc::new(SessionMetrics::new(
            "FIX.4.4:A->B",
            Arc::new(peregrine_session::metrics::SessionCounters::new()),
        ));
        use peregrine_store::StoreObserver;
        s.on_fsync(std::time::Duration::from_micros(3));
        s.on_fsync(std::time::Duration::from_micros(3));
        s.on_fsync(std::time::Duration::from_millis(100));
        metrics.publish(vec![s]);
        let text = metrics.render();
        let line = |needle: &str| -> String {
            text.lines()
                .find(|l| l.starts_with(needle))
                .unwrap_or_else(|| panic!("no {needle} in {text}"))
                .to_string()
        };
        let fsync = "peregrine_session_store_fsync_seconds";
        assert_eq!(
            line(&format!("{fsync}_count")),
            format!("{fsync}_count{{session=\"FIX.4.4:A->B\"}} 3")
        );
        assert_eq!(
            line(&format!("{fsync}_sum")),
            format!("{fsync}_sum{{session=\"FIX.4.4:A->B\"}} 0.100006")
        );
        let bucket = |le: &str| {
            line(&format!(
                "{fsync}_bucket{{le=\"{le}\",session=\"FIX.4.4:A->B\"}}"
            ))
        };
        assert!(bucket("0.000002").ends_with(" 0"), "{text}");
        assert!(bucket("0.000004").ends_with(" 2"), "{text}");
        assert!(bucket("0.065536").ends_with(" 2"), "{text}");
        assert!(bucket("0.131072").ends_with(" 3"), "{text}");
        assert!(bucket("8.388608").ends_with(" 3"), "{text}");
        assert!(bucket("+Inf").ends_with(" 3"), "{text}");
        let buckets = text
            .lines()
            .filter(|l| l.starts_with(&format!("{fsync}_bucket")))
            .count();
        assert_eq!(buckets, LATENCY_BUCKETS + 1);
        // No write was observed: that histogram has no series.
        assert!(
            !text.contains("peregrine_session_store_write_seconds_count"),
            "{text}"
        );
    }
}

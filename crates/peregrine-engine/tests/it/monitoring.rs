//! The Grafana dashboard (`ops/grafana/peregrine.json`) and the Prometheus
//! alert rules (`ops/prometheus/peregrine-rules.yml`) use only metrics a
//! running engine exports: every `peregrine_…` name in either file is found
//! in a real `GET /metrics`, and every `reason`/`state` label value they
//! match on is one the engine writes. So a renamed metric breaks this test,
//! not a dashboard. Also the gauges the alerts need (`in_schedule`,
//! `enabled`) against a real acceptor: one session outside its hours, one
//! logged out and on again by an operator over HTTP.
//!
//! The files' PromQL and the rules' behaviour are checked by promtool
//! (`make monitoring`, scripts/monitoring.sh).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::admin::AdminOptions;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::metrics::{DISCONNECT_REASONS, REJECT_REASONS};
use peregrine_engine::{Engine, EngineOptions, Idle};
use peregrine_session::RejectKind;

use crate::support;
use support::{echo, engine_with, get, initiator_cfg, send_order, serve_admin, Count, TW_ISLD};

const TOKEN: &str = "monitoring-test-token";
const OPEN: &str = "FIX.4.4:ISLD->TW";
const CLOSED: &str = "FIX.4.4:ISLD->CLOSED";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `peregrine_…` metric name in `text`.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("peregrine_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        // A name starts a word (not the tail of `x_peregrine_…`).
        let starts_word = rest[..i]
            .chars()
            .next_back()
            .map_or(true, |c| !(c.is_ascii_alphanumeric() || c == '_'));
        if starts_word {
            names.insert(tail[..end].to_string());
        }
        rest = &tail[end..];
    }
    names
}

/// Every value an exact matcher `label="…"` gives in `text` (JSON escapes
/// the quotes: `label=\"…\"`).
fn matched_values(text: &str, label: &str) -> BTreeSet<String> {
    let mut values = BTreeSet::new();
    for open in [format!("{label}=\\\""), format!("{label}=\"")] {
        let close = if open.ends_with("\\\"") { "\\\"" } else { "\"" };
        let mut rest = text;
        while let Some(i) = rest.find(&open) {
            let before = rest[..i].chars().next_back();
            let tail = &rest[i + open.len()..];
            let end = tail.find(close).expect("an unterminated label value");
            // `reason="` but not `xreason="` or `reason=~"`.
            if before.map_or(true, |c| !(c.is_ascii_alphanumeric() || c == '_')) {
                values.insert(tail[..end].to_string());
            }
            rest = &tail[end..];
        }
    }
    values
}

/// The names of the samples a scrape has, and of the samples its declared
/// families may have (`# TYPE x counter`: `x_total`; histogram: `x_bucket`,
/// `x_count`, `x_sum`), for a family without a sample yet (a reject reason
/// that never happened).
fn exported(scrape: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut samples = BTreeSet::new();
    let mut declared = BTreeSet::new();
    for line in scrape.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (family, kind) = rest.split_once(' ').unwrap();
            let suffixes: &[&str] = match kind {
                "counter" => &["_total"],
                "histogram" => &["_bucket", "_count", "_sum"],
                _ => &[""],
            };
            for s in suffixes {
                declared.insert(format!("{family}{s}"));
            }
        } else if !line.starts_with('#') && !line.is_empty() {
            let end = line.find(['{', ' ']).unwrap();
            samples.insert(line[..end].to_string());
        }
    }
    (samples, declared)
}

/// The value of the sample `name{session="session"}` (no other labels).
fn gauge(scrape: &str, name: &str, session: &str) -> Option<f64> {
    let prefix = format!("{name}{{session=\"{session}\"}} ");
    scrape
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(|v| v.parse().unwrap())
}

/// An acceptor (file store, admin port) for TW, and for CLOSED whose hours
/// are two hours from now (so it is outside them).
fn acceptor(dir: &Path) -> Engine<BoxedFixSession> {
    let hour = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 3600)
        % 24;
    let (start, end) = ((hour + 2) % 24, (hour + 3) % 24);
    let text = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\n\
         UseDataDictionary=N\nFileStorePath={}\nFileLogPath={}\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=TW\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLOSED\n\
         StartTime={start:02}:00:00\nEndTime={end:02}:00:00\n",
        dir.join("store").display(),
        dir.join("log").display()
    );
    engine_with(
        &text,
        &dir.join("acceptor.cfg"),
        EngineOptions::default(),
        StoreKind::File,
        &mut echo,
    )
}

fn initiator(dir: &Path, port: u16, echoes: Arc<AtomicUsize>) -> Engine<BoxedFixSession> {
    engine_with(
        &initiator_cfg(port, "HeartBtInt=30\nReconnectInterval=1"),
        &dir.join("initiator.cfg"),
        EngineOptions {
            idle: Idle::busy_spin(),
            ..EngineOptions::default()
        },
        StoreKind::Memory,
        &mut |_| Box::new(Count(echoes.clone())),
    )
}

fn pump(engine: &mut Engine<BoxedFixSession>, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        engine.turn().unwrap();
        std::thread::sleep(Duration::from_micros(100));
    }
}

fn scrape(admin: SocketAddr) -> String {
    let (status, _, body) = get(admin, "/metrics", None);
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn the_dashboard_and_the_rules_use_only_what_the_engine_exports() {
    let dashboard = std::fs::read_to_string(repo().join("ops/grafana/peregrine.json")).unwrap();
    let rules = std::fs::read_to_string(repo().join("ops/prometheus/peregrine-rules.yml")).unwrap();
    // The dashboard is JSON with queries in its panels.
    let json: serde_json::Value = serde_json::from_str(&dashboard).unwrap();
    let queries = json["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| t["expr"].is_string())
        .count();
    assert!(queries >= 30, "only {queries} queries in the dashboard");

    let dir = tempfile::tempdir().unwrap();
    let mut acc = acceptor(dir.path());
    let fix = acc.listener_addrs()[0];
    let handle = acc.handle();
    let admin = serve_admin(
        &handle,
        AdminOptions {
            token: Some(TOKEN.into()),
            ..AdminOptions::default()
        },
    );
    let reactor = std::thread::spawn(move || acc.run());
    let theirs = handle.metrics().session(OPEN).unwrap();

    // Traffic, a business reject (35=AE is not the echo's), fsyncs.
    let echoes = Arc::new(AtomicUsize::new(0));
    let mut ini = initiator(dir.path(), fix.port(), echoes.clone());
    let ours = ini.metrics().session(TW_ISLD).unwrap();
    pump(&mut ini, "logon", || ours.counters().logons() == 1);
    send_order(&mut ini, TW_ISLD, b"D", "ORDER-1").unwrap();
    send_order(&mut ini, TW_ISLD, b"AE", "UNSUPPORTED").unwrap();
    pump(&mut ini, "the echo and the reject", || {
        // The echo and the reject (35=j is an application message).
        echoes.load(Ordering::Relaxed) == 2
            && ours
                .counters()
                .rejects_received(RejectKind::Business, Some(3))
                == 1
    });

    let text = scrape(admin);
    assert_eq!(
        gauge(&text, "peregrine_session_in_schedule", OPEN),
        Some(1.0)
    );
    assert_eq!(
        gauge(&text, "peregrine_session_in_schedule", CLOSED),
        Some(0.0),
        "{text}"
    );
    assert_eq!(gauge(&text, "peregrine_session_enabled", OPEN), Some(1.0));
    assert_eq!(
        gauge(&text, "peregrine_session_slow_consumer", OPEN),
        Some(0.0)
    );
    assert_eq!(
        gauge(&text, "peregrine_session_outbound_pending_bytes", OPEN),
        Some(0.0)
    );

    // An operator logs TW out: disabled (no down-in-schedule alert), then on again.
    let (status, _, body) = get(admin, "/logout?SESSION=FIX.4.4:ISLD-%3ETW", Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    pump(&mut ini, "the logout", || {
        theirs.counters().state() != peregrine_session::SessionState::LoggedOn
    });
    let down = scrape(admin);
    assert_eq!(
        gauge(&down, "peregrine_session_enabled", OPEN),
        Some(0.0),
        "{down}"
    );
    let (status, _, body) = get(admin, "/logon?SESSION=FIX.4.4:ISLD-%3ETW", Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    let start = Instant::now();
    while !theirs.enabled() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not enabled again"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        gauge(&scrape(admin), "peregrine_session_enabled", OPEN),
        Some(1.0)
    );

    // Every name the files use is exported; most of them with samples already.
    let (samples, declared) = exported(&text);
    let used: BTreeSet<String> = metric_names(&dashboard)
        .into_iter()
        .chain(metric_names(&rules))
        .collect();
    assert!(
        used.len() >= 30,
        "only {} names found: {used:?}",
        used.len()
    );
    let missing: Vec<&String> = used
        .iter()
        .filter(|n| !samples.contains(*n) && !declared.contains(*n))
        .collect();
    assert!(
        missing.is_empty(),
        "the dashboard or the rules use metrics /metrics does not export: {missing:?}"
    );
    let without_samples = used.iter().filter(|n| !samples.contains(*n)).count();
    assert!(
        without_samples * 4 < used.len(),
        "{without_samples} of {} names only declared",
        used.len()
    );

    // And every label value they match on is one the engine writes.
    for (label, known) in [
        ("reason", {
            let mut k: BTreeSet<String> =
                DISCONNECT_REASONS.iter().map(|r| r.to_string()).collect();
            k.extend(REJECT_REASONS.iter().map(|r| r.to_string()));
            k
        }),
        ("state", matched_values(&text, "state")),
    ] {
        assert!(!known.is_empty(), "no {label} values exported");
        let used: BTreeSet<String> = matched_values(&dashboard, label)
            .into_iter()
            .chain(matched_values(&rules, label))
            .collect();
        let unknown: Vec<&String> = used.difference(&known).collect();
        assert!(
            unknown.is_empty(),
            "{label} values never exported: {unknown:?}"
        );
    }
    assert!(matched_values(&rules, "reason").contains("heartbeat_timeout"));

    drop(ini);
    handle.stop();
    reactor.join().unwrap().unwrap();
}

#[test]
fn names_and_label_values_are_read_out_of_the_files() {
    let text = r#"rate(peregrine_session_a_total{reason="x"}[5m]) / x_peregrine_no
        {"expr": "peregrine_engine_turns_total{state=\"LoggedOn\",reason=~\"y\"}"}"#;
    let names: Vec<String> = metric_names(text).into_iter().collect();
    assert_eq!(
        names,
        ["peregrine_engine_turns_total", "peregrine_session_a_total"]
    );
    assert_eq!(
        matched_values(text, "reason")
            .into_iter()
            .collect::<Vec<_>>(),
        ["x"]
    );
    assert_eq!(
        matched_values(text, "state")
            .into_iter()
            .collect::<Vec<_>>(),
        ["LoggedOn"]
    );
}

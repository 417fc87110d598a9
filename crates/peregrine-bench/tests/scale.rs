//! `peregrine-bench scale` (`peregrine bench scale`) end to end, Peregrine only, small: the streaming pair of
//! processes with both stores, a sender that skips a MsgSeqNum (the receiver must fail
//! the run), and 20 sessions on one acceptor with the many-sessions floor beside it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use peregrine_bench::peers::PeerError;
use peregrine_bench::process::Harness;

fn peregrine() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_peregrine-bench"))
}

fn scale(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = dir.join("scale.json");
    let run = Command::new(peregrine())
        .args([
            "scale",
            "--runs",
            "1",
            "--seconds",
            "1",
            "--peers",
            "none",
            "--out",
        ])
        .arg(&out)
        .args(args)
        .output()
        .expect("peregrine-bench runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("Targets"), "{stdout}");
    serde_json::from_str(&std::fs::read_to_string(&out).expect("scale.json")).expect("JSON")
}

fn result<'a>(json: &'a serde_json::Value, case: &str) -> &'a serde_json::Value {
    result_of(json, "peregrine", case)
}

fn result_of<'a>(json: &'a serde_json::Value, engine: &str, case: &str) -> &'a serde_json::Value {
    json["results"]
        .as_array()
        .and_then(|r| {
            r.iter()
                .find(|r| r["case"] == case && r["engine"] == engine)
        })
        .unwrap_or_else(|| panic!("no {engine} {case} in {json}"))
}

#[test]
fn streaming_with_both_stores_checks_every_sequence_number() {
    let dir = tempfile::tempdir().unwrap();
    let json = scale(dir.path(), &["--parts", "stream"]);
    for case in ["stream-memory", "stream-file"] {
        let r = result(&json, case);
        assert_eq!(r["unit"], "msg/s");
        assert!(r["throughput_per_s"].as_f64().unwrap() > 1_000.0, "{r}");
        let run = json["config"]["per_run"]
            .as_array()
            .and_then(|v| v.iter().find(|x| x["case"] == case))
            .unwrap();
        assert_eq!(run["seq_errors"], 0, "{run}");
        assert!(run["messages"].as_u64().unwrap() > 1_000, "{run}");
    }
}

#[test]
fn a_skipped_sequence_number_fails_the_receiver() {
    let dir = tempfile::tempdir().unwrap();
    let port = peregrine_testkit::net::free_port().to_string();
    let dict = peregrine_bench::fix44_dictionary().display().to_string();
    let args = |role: &str, sub: &str, extra: &[&str]| -> Vec<String> {
        let d: PathBuf = dir.path().join(sub);
        [
            "stream-peer",
            "--role",
            role,
            "--port",
            &port,
            "--dict",
            &dict,
            "--seconds",
            "1",
            "--dir",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([d.display().to_string()])
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
    };
    let mut receiver =
        Harness::spawn("peregrine", peregrine(), args("receiver", "r", &[])).unwrap();
    receiver.wait_ready(Duration::from_secs(30)).unwrap();
    let mut sender = Harness::spawn(
        "peregrine",
        peregrine(),
        args("sender", "s", &["--gap-at", "100"]),
    )
    .unwrap();
    // The sender may see its session end (the receiver's gap handling); either way the
    // receiver must fail.
    let _ = sender.wait_lines(Duration::from_secs(60));
    match receiver.wait_lines(Duration::from_secs(60)) {
        Err(PeerError::Failed { stderr_tail, .. }) => {
            assert!(
                stderr_tail.contains("sequence check failed"),
                "{stderr_tail}"
            )
        }
        other => panic!("the receiver did not fail: {other:?}"),
    }
}

#[test]
fn twenty_sessions_on_one_acceptor() {
    let dir = tempfile::tempdir().unwrap();
    let json = scale(dir.path(), &["--parts", "sessions", "--sessions", "20"]);
    let r = result(&json, "sessions-20");
    assert_eq!(r["unit"], "us");
    assert!(r["throughput_per_s"].as_f64().unwrap() > 100.0, "{r}");
    assert!(r["p50"].as_f64().unwrap() > 0.0, "{r}");
    let run = &json["config"]["per_run"][0];
    assert!(run["logon_all_ms"].as_f64().unwrap() > 0.0, "{run}");
    assert!(run["rss_after"].as_u64().unwrap() > 0, "{run}");
    // The floor ran in the same slot: the same 20 connections, no FIX work, its round
    // trips counted and timed (a bounce that broke the canned bytes fails the run).
    let floor = result_of(&json, "floor", "sessions-20");
    assert!(
        floor["throughput_per_s"].as_f64().unwrap() > 100.0,
        "{floor}"
    );
    assert!(floor["p50"].as_f64().unwrap() > 0.0, "{floor}");
}

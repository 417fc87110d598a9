//! `peregrine-bench roundtrip` (`peregrine bench roundtrip`) for real: two processes per engine (Peregrine and the TCP
//! floor) with small counts, every config (production: with Peregrine's logs checked); and the same run failing when the venue
//! answers with the wrong ClOrdID or breaks its sequence numbers
//! (`PEREGRINE_ROUNDTRIP_FAULT`, read by Peregrine's venue only).

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine-bench");

fn roundtrip(out: &std::path::Path, configs: &str, iters: u64, fault: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["roundtrip", "--runs", "1", "--peers", "none"])
        .args(["--iters", &iters.to_string(), "--warmup", "20"])
        .args(["--configs", configs, "--out"])
        .arg(out);
    match fault {
        Some(f) => cmd.env("PEREGRINE_ROUNDTRIP_FAULT", f),
        None => cmd.env_remove("PEREGRINE_ROUNDTRIP_FAULT"),
    };
    cmd.output().unwrap()
}

#[test]
fn peregrine_and_the_floor_in_every_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("roundtrip.json");
    let o = roundtrip(&out, "balanced,optimized,fsync,tls,production", 300, None);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let results = json["results"].as_array().unwrap();
    for config in ["balanced", "optimized", "fsync"] {
        for engine in ["peregrine", "floor"] {
            let r = results
                .iter()
                .find(|r| r["engine"] == engine && r["case"] == config)
                .unwrap_or_else(|| panic!("no {engine} {config} in {results:?}"));
            assert_eq!(r["unit"], "us");
            let p50 = r["p50"].as_f64().unwrap();
            assert!(p50 > 0.0 && p50 <= r["p99"].as_f64().unwrap(), "{r}");
            assert!(r["throughput_per_s"].as_f64().unwrap() > 0.0);
        }
    }
    // TLS: Peregrine only (the floor is plain TCP), with its cost beside balanced.
    let tls = results
        .iter()
        .find(|r| r["engine"] == "peregrine" && r["case"] == "tls")
        .unwrap_or_else(|| panic!("no peregrine tls in {results:?}"));
    assert!(tls["p50"].as_f64().unwrap() > 0.0, "{tls}");
    assert!(!results
        .iter()
        .any(|r| r["engine"] == "floor" && r["case"] == "tls"));
    assert!(stdout.contains("floor tls: not supported"), "{stdout}");
    assert!(stdout.contains("TLS: Peregrine p50 "), "{stdout}");
    // Production: Peregrine with its message and event logs on (the driver failed the run
    // had they not held every order and report); the floor has no FIX session to log.
    let production = results
        .iter()
        .find(|r| r["engine"] == "peregrine" && r["case"] == "production")
        .unwrap_or_else(|| panic!("no peregrine production in {results:?}"));
    assert!(
        production["settings"]
            .as_str()
            .unwrap()
            .contains("FileLogPath"),
        "{production}"
    );
    assert!(
        stdout.contains("floor production: not supported"),
        "{stdout}"
    );
    assert!(stdout.contains("Logs: Peregrine p50 "), "{stdout}");
    assert!(dir.path().join("roundtrip.svg").is_file());
    assert!(stdout.contains("Targets (from the medians of this invocation):"));
    assert!(stdout.contains("balanced p50 ≤ 1.5× optimized p50"));
}

/// Runs `config` with the venue's `fault`, checks that the run failed, and returns its
/// stderr.
fn failed_run(config: &str, iters: u64, fault: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = roundtrip(&dir.path().join("r.json"), config, iters, Some(fault));
    assert!(!o.status.success());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_wrong_reply_fails_the_run() {
    let stderr = failed_run("optimized", 300, "clordid");
    assert!(stderr.contains("ClOrdID is Some(\"WRONG\")"), "{stderr}");
}

#[test]
fn a_report_that_does_not_copy_the_order_fails_the_run() {
    let stderr = failed_run("balanced", 300, "price");
    assert!(stderr.contains("Price(44)"), "{stderr}");
}

#[test]
fn a_sequence_gap_fails_the_run() {
    // Enough round trips for the venue's main thread (which checks every 10 ms) to make
    // the gap while the orders still flow.
    let stderr = failed_run("optimized", 200_000, "seqgap");
    assert!(
        stderr.contains("gap") || stderr.contains("out of sequence"),
        "{stderr}"
    );
}

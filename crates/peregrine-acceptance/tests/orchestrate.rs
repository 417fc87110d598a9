//! Launching acceptor processes: cfg derivation, the playback fake binary, the CLI.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use peregrine_acceptance::{
    derive_cfg, dictionaries_dir, list_scripts, run_parallel, run_with_acceptor, suite_specs,
    AcceptorSpec, Launcher,
};

const FAKE: &str = env!("CARGO_BIN_EXE_peregrine-acceptance-fake");
const CLI: &str = env!("CARGO_BIN_EXE_peregrine-acceptance");

fn launcher(shared: &Path, command: &[&str]) -> Launcher {
    let mut l = Launcher::new(
        command.iter().map(|s| s.to_string()).collect(),
        dictionaries_dir(shared),
        common::patterns(shared),
    );
    l.timeout_expect = Duration::from_secs(10);
    l.startup_timeout = Duration::from_secs(10);
    l
}

fn setting<'a>(cfg: &'a str, key: &str) -> Vec<&'a str> {
    cfg.lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| *k == key)
        .map(|(_, v)| v)
        .collect()
}

#[test]
fn derived_cfgs_point_at_real_dictionaries() {
    let shared = common::shared_or_skip!();
    let dicts = dictionaries_dir(&shared);
    let work = Path::new("/tmp/work");
    for (suite, keys) in [
        ("server/fix44", &["DataDictionary"][..]),
        (
            "server/fix50",
            &["TransportDataDictionary", "AppDataDictionary"][..],
        ),
        ("nextexpectedseqnum/fix44", &["DataDictionary"][..]),
    ] {
        let original = std::fs::read_to_string(shared.join(format!("cfg/{suite}.cfg"))).unwrap();
        let cfg = derive_cfg(&original, 6001, 6002, &dicts, work);
        assert_eq!(setting(&cfg, "SocketAcceptPort"), ["6001"], "{cfg}");
        assert_eq!(setting(&cfg, "AdminHttpPort"), ["6002"], "{cfg}");
        assert_eq!(setting(&cfg, "FileLogPath"), ["/tmp/work/log"], "{cfg}");
        assert_eq!(setting(&cfg, "FileStorePath"), ["/tmp/work/store"], "{cfg}");
        assert!(!cfg.contains('\r'));
        for key in keys {
            let values = setting(&cfg, key);
            assert_eq!(values.len(), 1, "{key} in {cfg}");
            assert!(Path::new(values[0]).is_file(), "{} missing", values[0]);
        }
        // Everything else is kept.
        assert_eq!(setting(&cfg, "SenderCompID"), ["ISLD"]);
        assert_eq!(
            setting(&cfg, "ResetOnLogon").len(),
            setting(&original, "ResetOnLogon").len()
        );
        assert!(cfg.contains("[SESSION]\n"));
    }
}

#[test]
fn suites_run_in_parallel_against_launched_acceptors() {
    let shared = common::shared_or_skip!();
    let specs = suite_specs(
        &shared,
        &["server".to_string(), "nextexpectedseqnum".to_string()],
        &["fix40".to_string(), "fix44".to_string()],
    );
    // nextexpectedseqnum has no fix40
    let labels: Vec<String> = specs.iter().map(AcceptorSpec::label).collect();
    assert_eq!(
        labels,
        ["server/fix40", "server/fix44", "nextexpectedseqnum/fix44"]
    );
    assert!(specs.iter().all(|s| s.port == 0 && s.admin_port == 0));

    let l = launcher(
        &shared,
        &[FAKE, "--scripts", "{suite_dir}", "--config", "{cfg}"],
    );
    let outcomes = run_parallel(&specs, &l, 3, &|_| {});
    let got: Vec<&str> = outcomes.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(got, labels);
    for (outcome, spec) in outcomes.iter().zip(&specs) {
        let scripts = std::fs::read_dir(&spec.suite_dir).unwrap().count();
        assert_eq!(outcome.results.len(), scripts, "{}", outcome.label);
        for r in &outcome.results {
            assert!(r.passed, "{}: {:?}", r.name, r.first_difference);
            assert!(r.name.starts_with(&format!("{}/", outcome.label)));
        }
        assert_eq!(outcome.work_dir, None, "removed when all passed");
    }
    let names: Vec<&str> = outcomes[0]
        .results
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

fn one_spec(shared: &Path) -> AcceptorSpec {
    let mut specs = suite_specs(shared, &["server".into()], &["fix42".into()]);
    specs.remove(0)
}

#[test]
fn acceptor_that_cannot_start_fails_every_script() {
    let shared = common::shared_or_skip!();
    let mut l = launcher(&shared, &["/nonexistent/peregrine", "acceptor", "--config"]);
    l.filter = Some("1a_".into());
    let spec = one_spec(&shared);
    let outcome = run_with_acceptor(&spec, &l);
    let expected = list_scripts(&spec.suite_dir, Some("1a_")).unwrap().len();
    assert!(expected >= 2);
    assert_eq!(outcome.results.len(), expected);
    let first = &outcome.results[0];
    let why = first.first_difference.as_deref().unwrap();
    assert!(
        why.starts_with("cannot start acceptor \"/nonexistent/peregrine acceptor --config /"),
        "{why}"
    );
    for r in &outcome.results[1..] {
        assert!(!r.passed);
        assert_eq!(
            r.first_difference.as_deref(),
            Some(format!("not run, see {}", first.name).as_str())
        );
    }
    let work: PathBuf = outcome.work_dir.unwrap();
    assert!(work.join("acceptor.cfg").is_file());
    std::fs::remove_dir_all(work).unwrap();
}

#[test]
fn acceptor_that_exits_is_reported_with_its_output() {
    let shared = common::shared_or_skip!();
    let mut l = launcher(&shared, &["sh", "-c", "echo bad config: $0; exit 3"]);
    l.filter = Some("1a_ValidLogonWith".into());
    let outcome = run_with_acceptor(&one_spec(&shared), &l);
    assert_eq!(outcome.results.len(), 1);
    let why = outcome.results[0].first_difference.as_deref().unwrap();
    assert!(
        why.starts_with("acceptor exited (exit status: 3) before accepting on 127.0.0.1:"),
        "{why}"
    );
    assert!(
        why.contains("bad config: /") && why.contains("acceptor.cfg"),
        "{why}"
    );
    std::fs::remove_dir_all(outcome.work_dir.unwrap()).unwrap();
}

#[test]
fn cli_reports_and_exits_by_result() {
    let shared = common::shared_or_skip!();
    let run = |scripts: &str| {
        Command::new(CLI)
            .args([
                "--acceptor-cmd",
                &format!("{FAKE} --scripts {scripts} --filter 1a_ValidLogonWith --config {{cfg}}"),
                "--suites",
                "server",
                "--versions",
                "fix40",
                "--filter",
                "1a_ValidLogonWith",
                "--store",
                "file",
                "--expect-timeout",
                "5",
            ])
            .env("PEREGRINE_ACCEPTANCE_DIR", &shared)
            .output()
            .unwrap()
    };
    let defs = shared.join("definitions/server");
    let ok = run(defs.join("fix40").to_str().unwrap());
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(stdout, "1 passed, 0 failed\n");

    // The fake plays the FIX.4.1 script while the runner expects FIX.4.0.
    let bad = run(defs.join("fix41").to_str().unwrap());
    let stdout = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with(
            "FAIL server/fix40/1a_ValidLogonWithCorrectMsgSeqNum: line 5: field 0: expected 8=FIX.4.0, got 8=FIX.4.1"
        ),
        "{stdout}"
    );
    assert_eq!(lines[1], "0 passed, 1 failed");
    // The failing suite's work directory is kept and named on stderr.
    let stderr = String::from_utf8_lossy(&bad.stderr);
    let work = stderr
        .lines()
        .find_map(|l| l.split_once(", work dir ").map(|(_, d)| PathBuf::from(d)))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(work.join("acceptor.cfg").is_file());
    std::fs::remove_dir_all(work).unwrap();
}

#[test]
fn cli_rejects_bad_arguments() {
    let out = Command::new(CLI)
        .args(["--suites", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown suite \"nope\""));
    let out = Command::new(CLI)
        .args(["--store", "disk"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(CLI).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--acceptor-cmd"));
}

#[test]
fn cli_skips_without_data() {
    let out = Command::new(CLI)
        .env(
            "PEREGRINE_ACCEPTANCE_DIR",
            "/nonexistent/quickfix-acceptance",
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout)
        .starts_with("skipping: QuickFIX acceptance data not found"));
}

#[test]
fn free_ports_are_never_handed_out_twice() {
    let mut ports: Vec<u16> = (0..64)
        .map(|_| peregrine_acceptance::free_port().unwrap())
        .collect();
    assert!(ports.iter().all(|&p| p != 0));
    ports.sort();
    ports.dedup();
    assert_eq!(ports.len(), 64);
}

#[test]
fn the_repository_carries_the_scripts_and_their_licence() {
    use peregrine_acceptance::{repo_root, IN_REPO_ACCEPTANCE_DIR};
    let dir = repo_root().join(IN_REPO_ACCEPTANCE_DIR);
    // The QuickFIX licence stays beside the copy.
    assert!(dir.join("LICENSE.quickfix").is_file());
    assert!(dir.join("definitions/fields.fmt").is_file());
    let specs = suite_specs(
        &dir,
        &peregrine_acceptance::SUITES
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        &peregrine_acceptance::VERSIONS
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    );
    let scripts: usize = specs
        .iter()
        .map(|s| list_scripts(&s.suite_dir, None).unwrap().len())
        .sum();
    assert_eq!(scripts, 505);
    // Its cfgs name dictionaries the repository has too.
    let dicts = dictionaries_dir(&dir);
    assert_eq!(
        dicts,
        repo_root().join("crates/peregrine-dict/dictionaries")
    );
    for v in ["FIX40", "FIX44", "FIX50SP2", "FIXT11"] {
        assert!(dicts.join(format!("{v}.xml")).is_file(), "{v}");
    }
    assert!(dicts.join("LICENSE.quickfix").is_file());
}

#[test]
fn the_repository_carries_quickfixjs_scripts_and_their_licence() {
    use peregrine_acceptance::{repo_root, IN_REPO_QUICKFIXJ_DIR, SUITES, VERSIONS};
    let dir = repo_root().join(IN_REPO_QUICKFIXJ_DIR);
    assert!(dir.join("LICENSE.quickfixj").is_file());
    let licence = std::fs::read_to_string(dir.join("LICENSE.quickfixj")).unwrap();
    assert!(licence.starts_with("The QuickFIX Software License, Version 1.0"));
    // Compared by QuickFIX/J's rule: no fields.fmt.
    assert!(!dir.join("definitions/fields.fmt").exists());
    let all = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let specs = suite_specs(&dir, &all(SUITES), &all(VERSIONS));
    let scripts: Vec<String> = specs
        .iter()
        .flat_map(|s| {
            list_scripts(&s.suite_dir, None)
                .unwrap()
                .into_iter()
                .map(|p| format!("{}/{}", s.label(), p.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    for v in ["fix40", "fix41", "fix42", "fix43", "fix44", "fix50"] {
        let name = format!("server/{v}/QFJ650_MissingMsgSeqNum.def");
        assert!(scripts.contains(&name), "{name} in {scripts:?}");
    }
    for name in [
        "server/fix50/LogonUnknownDefaultApplVerID.def",
        "timestamps/fix44/QFJ921_HigherResolutionTimestamps.def",
        "rejectGarbledMessages/fix50/QFJ950-RejectGarbledMessages.def",
        "validateChecksum/fix50/QFJ973-ProcessMessageWithInvalidChecksum.def",
    ] {
        assert!(scripts.contains(&name.to_string()), "{name} in {scripts:?}");
    }
    // Every cfg names dictionaries the repository has.
    let dicts = dictionaries_dir(&dir);
    for spec in &specs {
        let cfg = std::fs::read_to_string(&spec.cfg_path).unwrap();
        for line in cfg.lines() {
            if let Some((key, value)) = line.split_once('=') {
                if key.ends_with("DataDictionary") {
                    let file = Path::new(value.trim()).file_name().unwrap();
                    assert!(
                        dicts.join(file).is_file(),
                        "{}: {line}",
                        spec.cfg_path.display()
                    );
                }
            }
        }
    }
}

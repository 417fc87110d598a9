//! Tests on the real shared acceptance scripts (skipped when the data is absent).

mod common;

use std::time::Duration;

use peregrine_acceptance::{
    list_scripts, run_script, run_suite, summary_line, RunConfig, Script, Step, SOH,
};

fn parse(shared: &std::path::Path, rel: &str) -> Script {
    Script::parse(shared.join("definitions").join(rel)).expect(rel)
}

fn all_scripts(shared: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    for suite in std::fs::read_dir(shared.join("definitions")).unwrap() {
        let suite = suite.unwrap().path();
        if !suite.is_dir() {
            continue;
        }
        for version in std::fs::read_dir(&suite).unwrap() {
            paths.extend(list_scripts(&version.unwrap().path(), None).unwrap());
        }
    }
    paths.sort();
    paths
}

#[test]
fn duplicate_identity_has_two_connections() {
    let shared = common::shared_or_skip!();
    let s = parse(&shared, "server/fix44/1b_DuplicateIdentity.def");
    assert_eq!(s.name, "1b_DuplicateIdentity");
    let kinds: Vec<String> = s
        .steps()
        .map(|st| match st {
            Step::Connect(n) => format!("i{n}C"),
            Step::Disconnect(n) => format!("i{n}D"),
            Step::ExpectDisconnect(n) => format!("e{n}D"),
            Step::Send(n, _) => format!("I{n}"),
            Step::Expect(n, _) => format!("E{n}"),
            Step::SetSession { .. } => "S".into(),
        })
        .collect();
    assert_eq!(kinds, ["i1C", "I1", "E1", "i2C", "I2", "e2D", "i1D"]);
    let lines: Vec<usize> = s.steps.iter().map(|st| st.line).collect();
    assert_eq!(lines, [5, 6, 7, 10, 11, 14, 16]);
    match &s.steps[1].step {
        Step::Send(1, m) => assert_eq!(
            m.as_slice(),
            &b"8=FIX.4.4\x0135=A\x0134=1\x0149=TW\x0152=<TIME>\x0156=ISLD\x0198=0\x01108=30\x01"[..]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn send_test_request_and_fix40_logon() {
    let shared = common::shared_or_skip!();
    let s = parse(&shared, "server/fix44/6_SendTestRequest.def");
    assert_eq!(s.steps.len(), 13);
    assert_eq!(
        s.steps()
            .filter(|st| matches!(st, Step::Expect(..)))
            .count(),
        7
    );
    assert_eq!(s.steps.last().unwrap().step, Step::ExpectDisconnect(1));

    let s = parse(
        &shared,
        "server/fix40/1a_ValidLogonWithCorrectMsgSeqNum.def",
    );
    assert_eq!(s.steps.len(), 6);
    assert_eq!(
        s.steps[2].step,
        Step::Expect(
            1,
            b"8=FIX.4.0\x019=57\x0135=A\x0134=1\x0149=ISLD\x0152=00000000-00:00:00\x0156=TW\x0198=0\x01108=30\x0110=0\x01"
                .to_vec()
        )
    );
}

#[test]
fn set_session_lines() {
    let shared = common::shared_or_skip!();
    let s = parse(
        &shared,
        "nextexpectedseqnum/fix44/2b_NextExpectedMsgSeqNumTooHigh.def",
    );
    assert_eq!(s.steps.len(), 6);
    assert_eq!(
        s.steps[1].step,
        Step::SetSession {
            session: "FIX.4.4:ISLD->TW".into(),
            next_sender: Some(1),
            next_target: None
        }
    );
    assert_eq!(
        s.steps[2].step,
        Step::SetSession {
            session: "FIX.4.4:ISLD->TW".into(),
            next_sender: None,
            next_target: Some(1)
        }
    );
}

#[test]
fn every_shared_script_parses_with_crlf_stripped() {
    let shared = common::shared_or_skip!();
    let paths = all_scripts(&shared);
    assert_eq!(paths.len(), 505);
    let (mut send, mut expect, mut connect, mut edisc, mut set, mut second) = (0, 0, 0, 0, 0, 0);
    for path in &paths {
        let script = Script::parse(path).unwrap_or_else(|e| panic!("{e}"));
        for step in script.steps() {
            if step.connection() == Some(2) {
                second += 1;
            }
            match step {
                Step::Send(_, m) | Step::Expect(_, m) => {
                    assert!(
                        !m.contains(&b'\r') && !m.contains(&b'\n'),
                        "{}",
                        path.display()
                    );
                    assert_eq!(m.last(), Some(&SOH), "{}", path.display());
                    if matches!(step, Step::Send(..)) {
                        send += 1
                    } else {
                        expect += 1
                    }
                }
                Step::Connect(_) => connect += 1,
                Step::ExpectDisconnect(_) => edisc += 1,
                Step::SetSession { .. } => set += 1,
                Step::Disconnect(_) => {}
            }
        }
    }
    // Counted independently with a separate script over the same files.
    assert_eq!(
        (send, expect, connect, edisc, set, second),
        (2471, 2138, 553, 545, 24, 48)
    );
}

#[test]
fn every_shared_script_passes_against_its_playback() {
    let shared = common::shared_or_skip!();
    let patterns = common::patterns(&shared);
    let admin = common::admin("200 OK");
    let mut failures = Vec::new();
    for path in all_scripts(&shared) {
        let script = Script::parse(&path).unwrap();
        let (addr, fake) = common::playback(&script, |_, m| m);
        let cfg = common::config(addr, admin.addr, patterns.clone());
        let result = run_script(&script, &cfg);
        let played = fake.join().unwrap();
        if !result.passed || played.is_err() {
            failures.push(format!(
                "{}: {:?} / {:?}",
                path.display(),
                result.first_difference,
                played.err()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(admin.requests.lock().unwrap().len(), 24);
}

#[test]
fn run_suite_runs_a_directory_in_sorted_order() {
    let shared = common::shared_or_skip!();
    let dir = shared.join("definitions/server/fix40");
    let paths = list_scripts(&dir, None).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);

    // One fake plays the whole directory in the same order, like one acceptor.
    let listener = common::listener();
    let addr = listener.local_addr().unwrap();
    let fake = std::thread::spawn(move || {
        for p in paths {
            let script = Script::parse(&p).unwrap();
            peregrine_acceptance::play_script(
                &listener,
                &script,
                Duration::from_secs(10),
                &mut |_, m| m,
            )?;
        }
        Ok::<(), peregrine_acceptance::PlaybackError>(())
    });
    let admin = common::admin("200 OK");
    let cfg: RunConfig = common::config(addr, admin.addr, common::patterns(&shared));
    let results = run_suite(&dir, &cfg).unwrap();
    fake.join().unwrap().unwrap();
    let got: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(got, names);
    assert_eq!(
        summary_line(&results),
        format!("{} passed, 0 failed", names.len())
    );
}

//! The command line as a process: `--help` of every command and subcommand,
//! no command at all, and what clap refuses (exit status 2, its message).
//! That the Makefile's and scripts' command lines parse is tested in
//! `src/cli.rs` (clap's `try_parse_from`, without running benchmarks).

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn every_command_has_help() {
    let commands: &[(&[&str], &str)] = &[
        (&[], "Usage: peregrine [COMMAND]"),
        (&["acceptor"], "--config <FILE>"),
        (&["initiator"], "--store <STORE>"),
        (&["bench"], "Usage: peregrine bench <COMMAND>"),
        (&["bench", "codec"], "--iters <N>"),
        (&["bench", "typed"], "--peers <a,b|none>"),
        (&["bench", "e2e"], "--no-floor"),
        (&["bench", "send"], "--pace-us <N>"),
        (&["bench", "roundtrip"], "--fsync-iters <N>"),
        (&["bench", "scale"], "--parts <stream,sessions>"),
        (&["bench", "roundtrip-peer"], "[ARGS]..."),
        (&["bench", "stream-peer"], "[ARGS]..."),
        (&["bench", "scale-peer"], "[ARGS]..."),
        (&["run"], "--count <N>"),
        (&["decode"], "--msg-type <TYPE,...>"),
        (&["check-config"], "--keys"),
    ];
    for (command, expected) in commands {
        for help in ["--help", "-h"] {
            let mut args = command.to_vec();
            args.push(help);
            let out = run(&args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{args:?}: {out:?}");
            assert!(stdout.contains(expected), "{args:?}:\n{stdout}");
            // A one-line description first, then the usage.
            let first = stdout.lines().next().unwrap_or("");
            assert!(
                first.len() > 10 && !first.starts_with("Usage"),
                "{args:?}: {first}"
            );
        }
    }
    // `peregrine help decode` is `peregrine decode --help`.
    let out = run(&["help", "decode"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("--json"));
}

#[test]
fn no_command_prints_the_help_and_succeeds() {
    let out = run(&[]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for command in [
        "acceptor",
        "initiator",
        "bench",
        "run",
        "decode",
        "check-config",
    ] {
        assert!(stdout.contains(&format!("  {command} ")), "{stdout}");
    }
    // The harnesses benchmarks start are not for people.
    let bench = String::from_utf8_lossy(&run(&["bench", "--help"]).stdout).into_owned();
    assert!(!bench.contains("stream-peer"), "{bench}");
}

#[test]
fn clap_refuses_what_it_does_not_know_with_status_2() {
    for args in [
        &["frobnicate"][..],
        &["bench", "codec", "--count", "5"],
        &["bench", "send", "--peers", "none"],
        &["bench", "codec", "--runs", "many"],
        &["acceptor"],
        &["acceptor", "--config", "a.cfg", "--app", "other"],
        &["run", "--iters", "3"],
        &["decode", "--admin", "--app"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A command group without its subcommand: its help, on stderr, status 2.
    let out = run(&["bench"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: peregrine bench <COMMAND>"));
}

#[test]
fn a_failing_command_says_why_with_status_1() {
    let out = run(&["acceptor", "--config", "/nonexistent/a.cfg"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("peregrine: /nonexistent/a.cfg: cannot read"),
        "{stderr}"
    );
}

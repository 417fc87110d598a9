//! The command line as a process: `--help` of every command and subcommand,
//! no command at all, and what clap refuses (exit status 2, its message).
//! That the Makefile's and scripts' command lines parse is tested in
//! `src/cli.rs` (clap's `try_parse_from`). `bench` and `run` are
//! `peregrine-bench`'s (tests/external.rs; its own, crates/peregrine-bench/tests/cli.rs).

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
    // The built-in dictionaries' licence, in full, ends `decode --help`.
    let out = run(&["decode", "--help"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Copyright (c) 2001- quickfixengine.org  All rights"),
        "{stdout}"
    );
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
}

#[test]
fn clap_refuses_what_it_does_not_know_with_status_2() {
    for args in [
        &["frobnicate"][..],
        &["acceptor"],
        &["acceptor", "--config", "a.cfg", "--app", "other"],
        &["decode", "--admin", "--app"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
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

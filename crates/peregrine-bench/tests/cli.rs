//! The `peregrine-bench` binary as a process (what `peregrine bench ARGS` runs):
//! `--help` of every benchmark, and what clap refuses (exit status 2, its
//! message). That the Makefile's, the tests' and the drivers' lines parse is
//! tested in `src/bin/peregrine-bench/cli.rs`.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine-bench");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn every_benchmark_has_help() {
    let commands: &[(&[&str], &str)] = &[
        (&[], "Usage: peregrine-bench <COMMAND>"),
        (&["codec"], "--iters <N>"),
        (&["typed"], "--peers <a,b|none>"),
        (&["e2e"], "--no-floor"),
        (&["send"], "--pace-us <N>"),
        (&["roundtrip"], "--fsync-iters <N>"),
        (&["scale"], "--parts <stream,sessions>"),
        (&["gateway"], "--warmup-seconds <S>"),
        (&["roundtrip-peer"], "[ARGS]..."),
        (&["stream-peer"], "[ARGS]..."),
        (&["scale-peer"], "[ARGS]..."),
        (&["gateway-peer"], "[ARGS]..."),
        (&["run"], "--count <N>"),
    ];
    for (command, expected) in commands {
        for help in ["--help", "-h"] {
            let mut args = command.to_vec();
            args.push(help);
            let out = run(&args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{args:?}: {out:?}");
            assert!(stdout.contains(expected), "{args:?}:\n{stdout}");
            let first = stdout.lines().next().unwrap_or("");
            assert!(
                first.len() > 10 && !first.starts_with("Usage"),
                "{args:?}: {first}"
            );
        }
    }
    // The harnesses the benchmarks start are not for people.
    let help = String::from_utf8_lossy(&run(&["--help"]).stdout).into_owned();
    for name in ["codec", "scale", "gateway", "run"] {
        assert!(help.contains(&format!("  {name} ")), "{help}");
    }
    assert!(!help.contains("stream-peer"), "{help}");
}

#[test]
fn clap_refuses_what_it_does_not_know_with_status_2() {
    for args in [
        &["frobnicate"][..],
        &["codec", "--count", "5"],
        &["send", "--peers", "none"],
        &["codec", "--runs", "many"],
        &["run", "--iters", "3"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // No command: the help, on stderr, status 2.
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: peregrine-bench <COMMAND>"));
}

//! `peregrine bench` and `peregrine run` as processes: they run `peregrine-bench`
//! found next to the binary, then on PATH, with their arguments as they are and its
//! exit status; without one, a clear error saying how to build it. A shell script
//! named `peregrine-bench` stands in for it (the real one is another package's binary,
//! which this package's tests cannot name; `make test`'s smoke runs go through both).
//!
//! One test function in a test binary of its own: the scripts are written and then
//! executed, and a fork by another test thread while one is open for writing would
//! make its exec fail (ETXTBSY).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");

/// A copy of `peregrine` alone in a directory of its own.
fn lone_peregrine(dir: &Path) -> PathBuf {
    let exe = dir.join("peregrine");
    std::fs::copy(BIN, &exe).unwrap();
    exe
}

/// A `peregrine-bench` in `dir` that writes its arguments, one a line, to
/// `dir/args` and exits with `status`.
fn stand_in(dir: &Path, status: u8) {
    let script = dir.join("peregrine-bench");
    let args = dir.join("args");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\necho from-stand-in\nexit {status}\n",
            args.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn run(exe: &Path, path: &str, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .env("PATH", path)
        .output()
        .unwrap()
}

fn args_seen(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("args"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn bench_and_run_go_to_peregrine_bench() {
    // None next to it, none on PATH: status 1, saying how to get it.
    let alone = tempfile::tempdir().unwrap();
    let exe = lone_peregrine(alone.path());
    let empty = tempfile::tempdir().unwrap();
    for args in [
        &["bench", "codec", "--smoke"][..],
        &["run"],
        &["bench", "--help"],
    ] {
        let out = run(&exe, &empty.path().display().to_string(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("peregrine: "), "{stderr}");
        for needed in [
            "peregrine-bench",
            "make build",
            "cargo build --release -p peregrine-bench",
        ] {
            assert!(stderr.contains(needed), "{needed}: {stderr}");
        }
        assert!(
            stderr.contains(&alone.path().display().to_string()),
            "{stderr}"
        );
    }

    // Next to it: its arguments as they are, its output and its exit status.
    stand_in(alone.path(), 7);
    let out = run(
        &exe,
        &empty.path().display().to_string(),
        &["bench", "codec", "--smoke", "--out", "/tmp/x y.json"],
    );
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from-stand-in\n");
    assert_eq!(
        args_seen(alone.path()),
        ["codec", "--smoke", "--out", "/tmp/x y.json"]
    );
    let out = run(&exe, "", &["run", "--count", "5", "--help"]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(args_seen(alone.path()), ["run", "--count", "5", "--help"]);
    let out = run(&exe, "", &["bench", "-h"]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(args_seen(alone.path()), ["-h"]);

    // On PATH only, after a directory without it; status 0 passed on too.
    let elsewhere = tempfile::tempdir().unwrap();
    let exe = lone_peregrine(elsewhere.path());
    let on_path = tempfile::tempdir().unwrap();
    stand_in(on_path.path(), 0);
    let path = format!("{}:{}", empty.path().display(), on_path.path().display());
    let out = run(&exe, &path, &["bench", "scale", "--smoke"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(args_seen(on_path.path()), ["scale", "--smoke"]);
}

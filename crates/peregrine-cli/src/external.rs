//! `peregrine bench ARGS` and `peregrine run ARGS`, as cargo runs its external
//! subcommands: the `peregrine-bench` binary (package peregrine-bench, not
//! published) does the work, so that this binary builds neither the benchmark
//! crate nor Aeron's C driver. It is looked for next to this binary (where
//! `make build` and `cargo build` put both), then on PATH; on Unix this process
//! becomes it (exec), so its output, signals and exit status are its own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;

/// The benchmark binary's file name.
pub const BENCH_BINARY: &str = "peregrine-bench";

/// Runs `peregrine-bench PREFIX ARGS` in place of this process (`prefix` is
/// empty for `bench`, `["run"]` for `run`). Returns only when it could not be
/// run (on Unix), or with its exit status (elsewhere).
pub fn run(prefix: &[&str], args: &[String]) -> Result<std::process::ExitCode, Error> {
    let here = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(program) = find(here.as_deref(), &path) else {
        return Err(Error::NoBenchBinary { next_to: here });
    };
    let mut cmd = Command::new(&program);
    cmd.args(prefix).args(args);
    let cannot = |source| Error::Io {
        what: format!("cannot run {}", program.display()),
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        Err(cannot(cmd.exec()))
    }
    #[cfg(not(unix))]
    {
        let status = cmd.status().map_err(cannot)?;
        let code = status.code().unwrap_or(1);
        Ok(std::process::ExitCode::from(
            u8::try_from(code).unwrap_or(1),
        ))
    }
}

/// `peregrine-bench` in `here` (the running binary's directory), else in the
/// first directory of `path` (PATH's value) that has it.
fn find(here: Option<&Path>, path: &OsString) -> Option<PathBuf> {
    let name = format!("{BENCH_BINARY}{}", std::env::consts::EXE_SUFFIX);
    here.into_iter()
        .map(Path::to_path_buf)
        .chain(std::env::split_paths(path))
        .map(|dir| dir.join(&name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_to_this_binary_first_then_path() {
        let here = tempfile::tempdir().unwrap();
        let on_path = tempfile::tempdir().unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), on_path.path()]).unwrap();
        assert_eq!(find(Some(here.path()), &path), None);
        let in_path = on_path.path().join(BENCH_BINARY);
        std::fs::write(&in_path, "").unwrap();
        assert_eq!(find(Some(here.path()), &path), Some(in_path.clone()));
        assert_eq!(find(None, &path), Some(in_path));
        let next_to = here.path().join(BENCH_BINARY);
        std::fs::write(&next_to, "").unwrap();
        assert_eq!(find(Some(here.path()), &path), Some(next_to));
        // A directory of that name is not the binary.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(BENCH_BINARY)).unwrap();
        assert_eq!(find(Some(dir.path()), &OsString::new()), None);
    }
}

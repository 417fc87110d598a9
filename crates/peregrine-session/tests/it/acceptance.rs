//! The QuickFIX acceptance scripts, in process: every `.def` file against a
//! `Session` + `EchoApp` with a virtual clock, over a MemoryStore and over a FileStore.
//! Set `PEREGRINE_SCRIPT=<substring>` to run a subset (e.g. `fix44/2b`).

use crate::common;

use common::Mode;
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MemoryStore};

fn check(result: Option<(usize, Vec<String>)>) {
    let Some((passed, failed)) = result else {
        return;
    };
    assert!(
        failed.is_empty(),
        "{passed} passed, {} failed: {failed:?}",
        failed.len()
    );
}

#[test]
fn acceptance_scripts_with_memory_store() {
    check(common::run_all(
        &mut |_, _| MemoryStore::new(common::T0),
        "memory",
        Mode::SessionPerScript,
    ));
}

#[test]
fn acceptance_scripts_with_file_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut n = 0;
    check(common::run_all(
        &mut |suite, script| {
            n += 1;
            FileStore::open(
                dir.path().join(format!("{n}-{script}")),
                &format!("{}", suite.config.id),
                FileStoreConfig::with_fsync(FsyncPolicy::Never),
                common::T0,
            )
            .expect("file store")
        },
        "file",
        Mode::SessionPerScript,
    ));
}

#[test]
fn acceptance_scripts_one_session_per_suite_with_probe_connections() {
    check(common::run_all(
        &mut |_, _| MemoryStore::new(common::T0),
        "per-suite",
        Mode::SessionPerSuite,
    ));
}

//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use peregrine_acceptance::{
    acceptance_dir, play_script, repo_root, skip_message, FakeAdmin, FieldPatterns, PlaybackError,
    RunConfig, Script,
};

/// The acceptance data (the repository's copy unless `PEREGRINE_ACCEPTANCE_DIR` names
/// another), or `None` (after printing why) when absent.
pub fn shared() -> Option<PathBuf> {
    let dir = acceptance_dir(&repo_root());
    if dir.is_none() {
        eprintln!("{}", skip_message(&repo_root()));
    }
    dir
}

/// `let shared = common::shared_or_skip!();`: the acceptance data, or the test
/// returns (skipped, with the reason printed) when it is absent.
#[allow(unused_macros)] // not every test file needs the data
macro_rules! shared_or_skip {
    () => {
        match $crate::common::shared() {
            Some(dir) => dir,
            None => return,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use shared_or_skip;

pub fn patterns(shared: &std::path::Path) -> FieldPatterns {
    FieldPatterns::load(shared.join("definitions/fields.fmt")).expect("fields.fmt loads")
}

/// The patterns of fields.fmt, written out so that tests without the acceptance data still run.
pub fn builtin_patterns() -> FieldPatterns {
    FieldPatterns::parse(
        "10=\\d{3}\n42=\\d{8}-\\d{2}:\\d{2}:\\d{2}\n\
         52=\\d{8}-\\d{2}:\\d{2}:\\d{2}|\\d{8}-\\d{2}:\\d{2}:\\d{2}[.]\\d{3}\n\
         60=\\d{8}-\\d{2}:\\d{2}:\\d{2}\n122=\\d{8}-\\d{2}:\\d{2}:\\d{2}\n",
    )
    .unwrap()
}

pub fn listener() -> TcpListener {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap()
}

/// A playback acceptor for `script` on a fresh port, rewriting what it sends with `mutate`.
pub fn playback(
    script: &Script,
    mut mutate: impl FnMut(usize, Vec<u8>) -> Vec<u8> + Send + 'static,
) -> (SocketAddr, JoinHandle<Result<(), PlaybackError>>) {
    let l = listener();
    let addr = l.local_addr().unwrap();
    let script = script.clone();
    let handle =
        std::thread::spawn(move || play_script(&l, &script, Duration::from_secs(10), &mut mutate));
    (addr, handle)
}

pub fn admin(status: &str) -> FakeAdmin {
    FakeAdmin::start(listener(), status).unwrap()
}

/// A run configuration with short timeouts, suitable for fakes.
pub fn config(addr: SocketAddr, admin: SocketAddr, patterns: FieldPatterns) -> RunConfig {
    let mut cfg = RunConfig::new(addr, admin, patterns);
    cfg.timeout_expect = Duration::from_secs(5);
    cfg.timeout_disconnect = Duration::from_secs(5);
    cfg
}

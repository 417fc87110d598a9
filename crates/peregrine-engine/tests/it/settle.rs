//! The engine settles every file store it commits, after writing: a commit
//! writes the journal before its messages leave, and the store's witness of
//! where the journal ends (its second write, which no message waits for) is
//! written once they have left. With the engine still running, each side's
//! witness must describe its last commit, and zeros must be written past the
//! journal's end for the next commits' writes; without the engine's settle
//! the witness lags one commit behind until the next one.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use peregrine_engine::fix::StoreKind;
use peregrine_engine::Idle;

use crate::support;
use support::{
    acceptor_cfg, echo, engine_with, initiator_cfg, log_on, options, pump, send_order, Count,
    TW_ISLD,
};

/// `(journal_end, next_sender, next_target)` of the newest witness slot in
/// the one session directory under `store` (format 2: generation at 8, the
/// numbers at 24 and 32, journal_end at 48), and the journal file's bytes.
fn witness_and_journal(store: &Path) -> ((u64, u64, u64), Vec<u8>) {
    let dirs: Vec<_> = std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let seqnums = std::fs::read(dirs[0].join("seqnums")).unwrap();
    let journal = std::fs::read(dirs[0].join("messages.journal")).unwrap();
    let u64_at = |at: usize| u64::from_le_bytes(seqnums[at..at + 8].try_into().unwrap());
    let slot = if u64_at(64 + 8) > u64_at(8) { 64 } else { 0 };
    (
        (u64_at(slot + 48), u64_at(slot + 24), u64_at(slot + 32)),
        journal,
    )
}

#[test]
fn the_engine_settles_the_store_after_writing() {
    let dir = tempfile::tempdir().unwrap();
    let store = |side: &str| dir.path().join(format!("store-{side}"));
    let extra = |side: &str| format!("FileStorePath={}\nFileStoreSync=N", store(side).display());
    let mut acc = engine_with(
        &acceptor_cfg(&extra("acc")),
        &dir.path().join("a.cfg"),
        options(Idle::busy_spin(), false),
        StoreKind::File,
        &mut echo,
    );
    let port = acc.listener_addrs()[0].port();
    let received = Arc::new(AtomicUsize::new(0));
    let mut ini = engine_with(
        &initiator_cfg(port, &extra("ini")),
        &dir.path().join("i.cfg"),
        options(Idle::busy_spin(), false),
        StoreKind::File,
        &mut |_| Box::new(Count(received.clone())),
    );
    log_on(&mut acc, &mut ini);
    for n in 1..=3 {
        send_order(&mut ini, TW_ISLD, b"D", &format!("ORDER-{n}")).unwrap();
        pump(
            &mut [&mut acc, &mut ini],
            Duration::from_secs(10),
            "the echo",
            |_| received.load(Ordering::Relaxed) == n,
        );
        // A last turn each, so that both sides have handled all they read.
        acc.turn().unwrap();
        ini.turn().unwrap();
        for side in ["acc", "ini"] {
            let ((end, sender, target), journal) = witness_and_journal(&store(side));
            // The witness ends at the last commit record (b"PGEC", next
            // sender, next target, CRC): after it only the zeros written ahead.
            let end = end as usize;
            assert_eq!(&journal[end - 24..end - 20], b"PGEC", "{side}, order {n}");
            assert!(
                journal[end..].iter().all(|&b| b == 0),
                "{side}, order {n}: the witness lags the journal"
            );
            assert!(
                journal.len() > end + 60 * 1024,
                "{side}: space written ahead"
            );
            // Logon and n orders (or echoes) each way.
            assert_eq!(
                (sender, target),
                (n as u64 + 2, n as u64 + 2),
                "{side}, order {n}"
            );
        }
    }
}

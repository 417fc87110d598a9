//! One generic test suite, run against every store and configuration: the
//! `MessageStore` contract as a FIX session relies on it (the cases are in
//! `peregrine_store::contract`, shared with the database stores).

mod common;

use peregrine_store::contract::T0;

fn file_store(
    policy: peregrine_store::FsyncPolicy,
    read_chunk: usize,
) -> (tempfile::TempDir, peregrine_store::FileStore) {
    let dir = tempfile::tempdir().unwrap();
    let config = peregrine_store::FileStoreConfig {
        read_chunk,
        ..common::file_config(policy)
    };
    let s = peregrine_store::FileStore::open(dir.path(), "S", config, T0).unwrap();
    (dir, s)
}

peregrine_store::contract_suite!(memory, ((), peregrine_store::MemoryStore::new(T0)));
peregrine_store::contract_suite!(
    memory_preallocated,
    (
        (),
        peregrine_store::MemoryStore::with_capacity(T0, 100, 10_000)
    )
);
peregrine_store::contract_suite!(
    file_fsync_never,
    file_store(peregrine_store::FsyncPolicy::Never, 64 * 1024)
);
peregrine_store::contract_suite!(
    file_fsync_every_message,
    file_store(peregrine_store::FsyncPolicy::EveryCommit, 64 * 1024)
);
peregrine_store::contract_suite!(
    file_fsync_every_5ms,
    file_store(peregrine_store::FsyncPolicy::EveryMillis(5), 64 * 1024)
);
peregrine_store::contract_suite!(
    file_tiny_read_chunk,
    file_store(peregrine_store::FsyncPolicy::Never, 1)
);

//! What `FileStoreSync` costs: the time of one file-store commit (store a
//! 256-byte message, advance the sender sequence number, commit) under each
//! fsync policy, on the disk that holds `--dir` (default: the system's
//! temporary directory).
//!
//! ```sh
//! cargo run --release -p peregrine-store --example commit_cost -- [--dir DIR] [--commits N] [--batch M]
//! ```
//!
//! `--batch M` stores M messages per commit (what a session does with the
//! replies to one batch of input). Prints the median, p99 and mean per
//! commit (what a message waits for) and the messages per second (the
//! `settle` after each commit, as the engine calls it, included), per policy.

use std::time::Instant;

use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut dir = std::env::temp_dir();
    let mut commits = 5_000usize;
    let mut batch = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--dir" => dir = value()?.into(),
            "--commits" => commits = value()?.parse()?,
            "--batch" => batch = value()?.parse()?,
            _ => return Err(format!("unknown argument {arg}").into()),
        }
    }
    let work = tempfile::tempdir_in(&dir)?;
    let message = [b'x'; 256];
    println!(
        "{commits} commits of {batch} x 256-byte message(s), in {}",
        dir.display()
    );
    println!(
        "{:<22} {:>12} {:>12} {:>12} {:>14}",
        "FileStoreSync", "median", "p99", "mean", "messages/s"
    );
    for (name, policy) in [
        ("Y / always (default)", FsyncPolicy::EveryCommit),
        ("5 (ms)", FsyncPolicy::EveryMillis(5)),
        ("N / never", FsyncPolicy::Never),
    ] {
        let config = FileStoreConfig {
            index_capacity: commits * batch + 16,
            ..FileStoreConfig::with_fsync(policy)
        };
        let mut store = FileStore::open(work.path(), name, config, 0)?;
        let mut times = Vec::with_capacity(commits);
        let start = Instant::now();
        for _ in 0..commits {
            let t = Instant::now();
            for _ in 0..batch {
                let seq = store.next_sender_seq();
                store.store(seq, &message)?;
                store.incr_next_sender_seq()?;
            }
            store.commit()?;
            times.push(t.elapsed());
            // As the engine does once the commit's messages are written: the
            // witness and the room for the next commits (in the rate, not in
            // the time per commit a message waits for).
            store.settle()?;
        }
        let total = start.elapsed();
        times.sort();
        let median = times[times.len() / 2];
        let p99 = times[(times.len() * 99 / 100).min(times.len() - 1)];
        let mean = total / commits as u32;
        let rate = (commits * batch) as f64 / total.as_secs_f64();
        println!("{name:<22} {median:>12.1?} {p99:>12.1?} {mean:>12.1?} {rate:>14.0}");
    }
    Ok(())
}

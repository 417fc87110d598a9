//! `peregrine store import` as a process, on stores written by the real QuickFIX/Go
//! (peers/quickfixgo, its `store/file` API), QuickFIX C++ (peers/quickfix-cpp
//! `store_writer`, Debian's libquickfix 1.15.1 `FileStoreFactory`) and QuickFIX/J 2.3.1
//! (peers/quickfixj `StoreWriter`: `FileStoreFactory` and `CachedFileStoreFactory`), all
//! built by `make deps`: the Peregrine store then holds both numbers, the creation time and every
//! message byte for byte; a second import is refused; a settings file naming no stored
//! session says what it looked for. (QuickFIX/J, with a resend to the same peer:
//! tests/store_import_quickfixj.rs.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use peregrine_engine::store::{
    sanitize_session_id, EngineJournal, FileStore, FileStoreConfig, JournalConfig, MessageStore,
};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");
const SESSION: &str = "FIX.4.4:GW->VENUE";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The engine that writes a store, and how.
#[derive(Clone, Copy)]
enum Writer {
    /// peers/quickfixgo's storewriter.
    Go,
    /// peers/quickfix-cpp's store_writer.
    Cpp,
    /// peers/quickfixj's StoreWriter with FileStoreFactory or CachedFileStoreFactory.
    Java(&'static str),
}

/// Runs a peer's store writer: DIR GW VENUE COUNT NEXT_TARGET.
fn write_store(writer: Writer, dir: &Path, count: u32, next_target: u32) {
    write_session_store(writer, dir, "VENUE", count, next_target);
}

/// Runs a peer's store writer: DIR GW TARGET COUNT NEXT_TARGET.
fn write_session_store(writer: Writer, dir: &Path, target: &str, count: u32, next_target: u32) {
    let (program, built) = match writer {
        Writer::Go => {
            let p = repo().join("peers/quickfixgo/target/storewriter");
            (p.clone(), p)
        }
        Writer::Cpp => {
            let p = repo().join("peers/quickfix-cpp/build/store_writer");
            (p.clone(), p)
        }
        Writer::Java(_) => (
            repo().join("peers/quickfixj/run.sh"),
            repo().join("peers/quickfixj/target/classes/peregrine/peers/StoreWriter.class"),
        ),
    };
    assert!(
        built.is_file(),
        "{} is not built: run `make deps`",
        built.display()
    );
    let mut c = Command::new(program);
    if let Writer::Java(_) = writer {
        c.arg("StoreWriter")
            .env("PEREGRINE_JVM_OPTS", "-Xms64m -Xmx64m");
    }
    c.arg(dir)
        .args(["GW", target, &count.to_string(), &next_target.to_string()]);
    if let Writer::Java(kind) = writer {
        c.arg(kind);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A Peregrine settings file: the GW->VENUE session (and a second one no QuickFIX
/// store has), FileStorePath `store`.
fn settings(dir: &Path, store: &Path, engine_journal: bool) -> PathBuf {
    let cfg = dir.join("gw.cfg");
    std::fs::write(
        &cfg,
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\n\
             SenderCompID=GW\nFileStorePath={}\nEngineJournal={}\nStartTime=00:00:00\nEndTime=00:00:00\n\
             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=VENUE\n\
             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=OTHER\n",
            store.display(),
            if engine_journal { "Y" } else { "N" }
        ),
    )
    .unwrap();
    cfg
}

fn import(from: &str, qf: &Path, cfg: &Path) -> Output {
    Command::new(BIN)
        .args(["store", "import", "--from", from, "--config"])
        .arg(cfg)
        .arg(qf)
        .output()
        .unwrap()
}

/// The QuickFIX store's messages, read from its body file at the offsets its header
/// gives (QuickFIX/J: 16-byte big-endian records; QuickFIX/Go: lines; QuickFIX C++:
/// space-separated).
fn quickfix_messages(qf: &Path, prefix: &str, binary: bool) -> Vec<(u64, Vec<u8>)> {
    let body = std::fs::read(qf.join(format!("{prefix}.body"))).unwrap();
    let header = std::fs::read(qf.join(format!("{prefix}.header"))).unwrap();
    let records: Vec<[usize; 3]> = if binary {
        header
            .chunks_exact(16)
            .map(|r| {
                let int = |b: &[u8]| b.iter().fold(0usize, |n, &x| n << 8 | usize::from(x));
                [int(&r[..4]), int(&r[4..12]), int(&r[12..])]
            })
            .collect()
    } else {
        String::from_utf8(header)
            .unwrap()
            .split_whitespace()
            .map(|r| {
                let n: Vec<usize> = r.split(',').map(|x| x.parse().unwrap()).collect();
                [n[0], n[1], n[2]]
            })
            .collect()
    };
    records
        .into_iter()
        .map(|[seq, offset, size]| (seq as u64, body[offset..offset + size].to_vec()))
        .collect()
}

/// Numbers, creation time and messages of the imported session.
fn peregrine_state(store: &mut dyn MessageStore) -> (u64, u64, i64, Vec<(u64, Vec<u8>)>) {
    let mut messages = Vec::new();
    store
        .for_each_in_range(1, u64::MAX, &mut |seq, m| messages.push((seq, m.to_vec())))
        .unwrap();
    (
        store.next_sender_seq(),
        store.next_target_seq(),
        store.creation_time(),
        messages,
    )
}

fn journal_state(pg: &Path) -> (u64, u64, i64, Vec<(u64, Vec<u8>)>) {
    let journal = EngineJournal::open(pg, JournalConfig::default(), 0).unwrap();
    assert!(journal.knows(SESSION), "{:?}", journal.session_names());
    let mut view = journal.session(SESSION, 0).unwrap();
    peregrine_state(&mut view)
}

/// Imports `from`'s store of 12 messages, next target 34, and checks the result.
fn imports_whole(from: &str, writer: Writer, engine_journal: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let (qf, pg) = (tmp.path().join("quickfix"), tmp.path().join("peregrine"));
    write_store(writer, &qf, 12, 34);
    let cfg = settings(tmp.path(), &pg, engine_journal);
    let before = peregrine_engine::now_nanos();
    let out = import(from, &qf, &cfg);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("FIX.4.4:GW->VENUE: imported ".to_string().as_str())
            && stdout.contains("next sender 13, next target 34, 12 messages (1..12)"),
        "{stdout}"
    );
    let binary = matches!(writer, Writer::Java(_));
    let expected = quickfix_messages(&qf, "FIX.4.4-GW-VENUE", binary);
    assert_eq!(expected.len(), 12);
    assert!(expected[0].1.starts_with(b"8=FIX.4.4\x019="));
    let (sender, target, created, messages) = if engine_journal {
        journal_state(&pg)
    } else {
        let mut store = FileStore::open(&pg, SESSION, FileStoreConfig::default(), 0).unwrap();
        assert!(pg.join(sanitize_session_id(SESSION)).is_dir());
        peregrine_state(&mut store)
    };
    assert_eq!((sender, target), (13, 34));
    assert_eq!(messages, expected);
    // The store was written just before: its creation time (to the second for
    // QuickFIX C++, which writes whole seconds), not the import's.
    assert!(
        created <= before && created > before - 60_000_000_000,
        "created {created}, import at {before}"
    );
    // Again: refused, the store unchanged.
    let again = import(from, &qf, &cfg);
    let stderr = text(&again.stderr);
    assert!(!again.status.success());
    assert!(
        stderr.contains("session FIX.4.4:GW->VENUE already has a Peregrine store in"),
        "{stderr}"
    );
}

#[test]
fn a_quickfixgo_store_is_imported_into_the_engine_journal() {
    imports_whole("quickfixgo", Writer::Go, true);
}

#[test]
fn a_quickfixgo_store_is_imported_into_a_file_store_without_the_engine_journal() {
    imports_whole("quickfixgo", Writer::Go, false);
}

#[test]
fn a_quickfix_cpp_store_is_imported_into_the_engine_journal() {
    imports_whole("quickfix", Writer::Cpp, true);
}

#[test]
fn a_quickfixj_file_store_is_imported_into_the_engine_journal() {
    imports_whole("quickfixj", Writer::Java("file"), true);
}

#[test]
fn a_quickfixj_cached_file_store_is_imported_into_a_file_store() {
    imports_whole("quickfixj", Writer::Java("cached"), false);
}

#[test]
fn no_stored_session_says_what_was_looked_for() {
    let tmp = tempfile::tempdir().unwrap();
    let qf = tmp.path().join("quickfix");
    // A store of another session: reported, not imported.
    write_store(Writer::Cpp, &qf, 1, 1);
    std::fs::rename(
        qf.join("FIX.4.4-GW-VENUE.seqnums"),
        qf.join("FIX.4.4-GW-ELSE.seqnums"),
    )
    .unwrap();
    for kind in ["body", "header", "session"] {
        std::fs::remove_file(qf.join(format!("FIX.4.4-GW-VENUE.{kind}"))).unwrap();
    }
    let cfg = settings(tmp.path(), &tmp.path().join("peregrine"), true);
    let out = import("quickfix", &qf, &cfg);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success());
    assert!(
        stdout.contains("not imported: ") && stdout.contains("FIX.4.4-GW-ELSE.* (no session of"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "no QuickFIX store of any session of the settings file (looked for FIX.4.4-GW-VENUE.*, FIX.4.4-GW-OTHER.*)"
        ),
        "{stderr}"
    );
    assert!(!tmp.path().join("peregrine").exists(), "nothing written");
}

#[test]
fn two_sessions_go_into_one_engine_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let (qf, pg) = (tmp.path().join("quickfix"), tmp.path().join("peregrine"));
    write_session_store(Writer::Go, &qf, "VENUE", 3, 5);
    write_session_store(Writer::Go, &qf, "OTHER", 7, 9);
    let cfg = settings(tmp.path(), &pg, true);
    let out = import("quickfixgo", &qf, &cfg);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    let journal = EngineJournal::open(&pg, JournalConfig::default(), 0).unwrap();
    for (name, prefix, numbers, count) in [
        (SESSION, "FIX.4.4-GW-VENUE", (4, 5), 3),
        ("FIX.4.4:GW->OTHER", "FIX.4.4-GW-OTHER", (8, 9), 7),
    ] {
        let mut view = journal.session(name, 0).unwrap();
        let (sender, target, _, messages) = peregrine_state(&mut view);
        assert_eq!((sender, target), numbers, "{name}");
        assert_eq!(messages.len(), count, "{name}");
        assert_eq!(messages, quickfix_messages(&qf, prefix, false), "{name}");
    }
}

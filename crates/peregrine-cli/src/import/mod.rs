//! `peregrine store import --from quickfixj|quickfixgo|quickfix DIR --config FILE`:
//! a QuickFIX user's file stores become Peregrine's, so the next Logon
//! continues the same sequence numbers and a ResendRequest for an old range is
//! answered from the imported messages.
//!
//! Each session of the settings file is looked for in DIR under the file name
//! its QuickFIX engine gives it (from BeginString, SenderCompID,
//! TargetCompID and SessionQualifier: [`quickfixj::prefix`],
//! [`quickfixgo::prefix`], [`quickfix_cpp::prefix`]), and written where
//! `peregrine acceptor`/`initiator` with the same file will look: the engine
//! journal of its `FileStorePath` (`EngineJournal=Y`, the default), or its
//! own file store directory there (`EngineJournal=N`). A session Peregrine
//! already stores is refused, never overwritten. Each session is one
//! transaction: all of it or none of it.

mod error;
mod files;
mod quickfix_cpp;
mod quickfixgo;
mod quickfixj;

use std::path::{Path, PathBuf};

use peregrine_engine::codec::value::{TimePrecision, UtcTimestamp};
use peregrine_engine::config::Settings;
use peregrine_engine::fix::file_store_dir;
use peregrine_engine::journals::Journals;
use peregrine_engine::store::{
    sanitize_session_id, FileStore, FileStoreConfig, FsyncPolicy, MessageStore, StoreError,
    JOURNAL_FILE,
};
use peregrine_engine::{now_nanos, SessionSettings};

pub use error::ImportError;
use files::QuickfixStore;

use crate::cli::{ImportArgs, QuickfixFormat};

/// `peregrine store import`: imports every session of the settings file that
/// has a QuickFIX store in the directory; prints one line per session.
///
/// # Errors
///
/// The first [`ImportError`]: settings, a store file that does not read or
/// parse, a session Peregrine already stores, a failed write; or
/// [`ImportError::NothingFound`]. Sessions imported before it stay imported
/// (each said so on stdout).
pub fn run(args: &ImportArgs) -> Result<(), ImportError> {
    let settings = Settings::load(&args.config).map_err(ImportError::Settings)?;
    let mut journals = Journals::default();
    let mut looked_for = Vec::new();
    let mut matched = Vec::new();
    let mut imported = 0usize;
    for s in &settings.sessions {
        let name = s.session_name();
        let prefix = prefix(args.from, s);
        let found = read(args.from, &args.dir, &prefix)?;
        matched.push(prefix.clone());
        let Some(found) = found else {
            looked_for.push(format!("{prefix}.*"));
            continue;
        };
        if s.file_store_path.is_none() {
            println!(
                "{name}: skipped: no FileStorePath in {} (Peregrine would keep it in memory)",
                args.config.display()
            );
            continue;
        }
        let summary = import(s, &found, &mut journals)?;
        println!(
            "{name}: imported {}: next sender {}, next target {}, {} messages{}, created {}{}, into {}",
            args.dir.join(format!("{prefix}.*")).display(),
            found.next_sender,
            found.next_target,
            found.index.len(),
            match (found.index.keys().next(), found.index.keys().next_back()) {
                (Some(a), Some(b)) => format!(" ({a}..{b})"),
                _ => String::new(),
            },
            UtcTimestamp::from_unix_nanos(summary.creation_time, TimePrecision::Millis),
            if found.creation_time.is_none() {
                " (no creation time in the QuickFIX store: now)"
            } else {
                ""
            },
            summary.place.display()
        );
        imported += 1;
    }
    for other in unmatched(args.from, &args.dir, &matched) {
        println!(
            "not imported: {} (no session of {} has this file name)",
            args.dir.join(format!("{other}.*")).display(),
            args.config.display()
        );
    }
    if imported == 0 && !looked_for.is_empty() {
        return Err(ImportError::NothingFound {
            dir: args.dir.clone(),
            looked_for,
        });
    }
    Ok(())
}

/// The file-name prefix the format gives the session.
fn prefix(from: QuickfixFormat, s: &SessionSettings) -> String {
    let ids = (
        s.begin_string.as_str(),
        s.sender_comp_id.as_str(),
        s.target_comp_id.as_str(),
        s.session_qualifier.as_deref(),
    );
    match from {
        QuickfixFormat::Quickfixj => quickfixj::prefix(ids.0, ids.1, ids.2, ids.3),
        QuickfixFormat::Quickfixgo => quickfixgo::prefix(ids.0, ids.1, ids.2, ids.3),
        QuickfixFormat::Quickfix => quickfix_cpp::prefix(ids.0, ids.1, ids.2, ids.3),
    }
}

fn read(
    from: QuickfixFormat,
    dir: &Path,
    prefix: &str,
) -> Result<Option<QuickfixStore>, ImportError> {
    match from {
        QuickfixFormat::Quickfixj => quickfixj::read(dir, prefix),
        QuickfixFormat::Quickfixgo => quickfixgo::read(dir, prefix),
        QuickfixFormat::Quickfix => quickfix_cpp::read(dir, prefix),
    }
}

/// The prefixes of QuickFIX stores in `dir` that no session matched (by
/// their sequence-number file, which every store has).
fn unmatched(from: QuickfixFormat, dir: &Path, matched: &[String]) -> Vec<String> {
    // QuickFIX/J's CachedFileStore has `.seqnums`, as QuickFIX C++.
    let suffixes: &[&str] = match from {
        QuickfixFormat::Quickfix => &[".seqnums"],
        QuickfixFormat::Quickfixj => &[".senderseqnums", ".seqnums"],
        QuickfixFormat::Quickfixgo => &[".senderseqnums"],
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| {
            suffixes
                .iter()
                .find_map(|s| n.strip_suffix(s).map(str::to_string))
        })
        .filter(|p| !matched.contains(p))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What was written for one session.
struct Written {
    creation_time: i64,
    place: PathBuf,
}

/// Writes one session's QuickFIX store into its Peregrine store, as one
/// transaction (the messages are read whole first: a body that fails to read
/// leaves nothing behind).
fn import(
    s: &SessionSettings,
    found: &QuickfixStore,
    journals: &mut Journals,
) -> Result<Written, ImportError> {
    let name = s.session_name();
    let mut messages = Vec::with_capacity(found.index.len());
    found.for_each_message(&mut |seq, m| {
        messages.push((seq, m.to_vec()));
    })?;
    let creation_time = found.creation_time.unwrap_or_else(now_nanos);
    let dir = file_store_dir(s).map_err(ImportError::Settings)?;
    let own = dir.join(sanitize_session_id(&name));
    if own.join(JOURNAL_FILE).exists() {
        return Err(ImportError::AlreadyThere {
            session: name,
            place: own,
        });
    }
    let failed = |source: StoreError| ImportError::Store {
        session: name.clone(),
        source,
    };
    if s.engine_journal {
        let i = journals
            .open_dir(s, creation_time)
            .map_err(ImportError::Settings)?;
        let Some(journal) = journals.journals().nth(i) else {
            return Err(failed(StoreError::JournalFailed { path: dir.into() }));
        };
        if journal.knows(&name) {
            return Err(ImportError::AlreadyThere {
                session: name,
                place: journal.path(),
            });
        }
        let mut view = journal.session(&name, creation_time).map_err(failed)?;
        fill(&mut view, found, &messages).map_err(failed)?;
        journal.sync().map_err(failed)?;
        Ok(Written {
            creation_time,
            place: journal.path(),
        })
    } else {
        let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit);
        let mut store = FileStore::open(dir, &name, config, creation_time).map_err(failed)?;
        fill(&mut store, found, &messages).map_err(failed)?;
        Ok(Written {
            creation_time,
            place: own,
        })
    }
}

/// The messages and both numbers, committed once.
fn fill(
    store: &mut dyn MessageStore,
    found: &QuickfixStore,
    messages: &[(u64, Vec<u8>)],
) -> Result<(), StoreError> {
    for (seq, m) in messages {
        store.store(*seq, m)?;
    }
    store.set_next_sender_seq(found.next_sender)?;
    store.set_next_target_seq(found.next_target)?;
    store.commit()
}

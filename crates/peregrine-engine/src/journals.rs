//! The engine journals of an engine's sessions (`EngineJournal=Y`): one
//! [`EngineJournal`] per `FileStorePath` directory, shared by every session
//! that names it.

use std::path::PathBuf;

use peregrine_store::{
    sanitize_session_id, EngineJournal, FileStore, FileStoreConfig, FsyncPolicy, JournalConfig,
    JournalStore, MessageStore, StoreError, JOURNAL_FILE,
};

use crate::config::{ConfigError, SessionSettings};
use crate::driver::Nanos;
use crate::fix::{file_store_dir, fsync_policy, on_damage};

/// One journal and the session whose settings opened it.
#[derive(Debug)]
struct Opened {
    dir: PathBuf,
    journal: EngineJournal,
    config: JournalConfig,
    first: String,
}

/// The engine journals opened for an engine's sessions, by directory.
///
/// ```
/// use peregrine_engine::config::Settings;
/// use peregrine_engine::journals::Journals;
/// use peregrine_engine::store::MessageStore;
///
/// let dir = tempfile::tempdir()?;
/// let text = format!(
///     "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nSenderCompID=GW\n\
///      FileStorePath={}\nEngineJournal=Y\n\
///      [SESSION]\nBeginString=FIX.4.4\nTargetCompID=C1\n\
///      [SESSION]\nBeginString=FIX.4.4\nTargetCompID=VENUE\n",
///     dir.path().display()
/// );
/// let settings = Settings::parse(&text, "gw.cfg".as_ref())?;
/// let mut journals = Journals::default();
/// let c1 = journals.open(&settings.sessions[0], 0)?;
/// let venue = journals.open(&settings.sessions[1], 0)?;
/// assert_eq!(journals.journals().count(), 1, "one journal for both");
/// assert_eq!((c1.next_sender_seq(), venue.next_sender_seq()), (1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct Journals {
    opened: Vec<Opened>,
}

impl Journals {
    /// The store of the session `s` in the journal of its `FileStorePath`
    /// (opened the first time a session names the directory).
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] on `FileStorePath`: not set, or the journal cannot
    /// be opened (I/O, not a journal, damage with `FileStoreDamage=refuse`),
    /// or the session's store is open already; on `FileStoreSync` or
    /// `FileStoreDamage` when they differ from those of the session that
    /// opened the journal.
    pub fn open(&mut self, s: &SessionSettings, now: Nanos) -> Result<JournalStore, ConfigError> {
        let i = self.open_dir(s, now)?;
        let o = &self.opened[i];
        let name = s.session_name();
        let error = |e: StoreError| s.error("FileStorePath", format!("{}: {e}", o.dir.display()));
        // A session new to the journal that has its own file store there
        // (before EngineJournal=Y) is carried over, numbers and messages, so
        // that its counterparty sees no reset. The old directory is left as
        // it was (it is not read again: the journal knows the session now).
        let own = o.dir.join(sanitize_session_id(&name));
        if !o.journal.knows(&name) && own.join(JOURNAL_FILE).exists() {
            let config = FileStoreConfig {
                on_damage: on_damage(s),
                ..FileStoreConfig::with_fsync(FsyncPolicy::Never)
            };
            let mut old = FileStore::open_dir(&own, config, now).map_err(error)?;
            let store = o.journal.import(&name, &mut old).map_err(error)?;
            tracing::info!(
                session = %name,
                "carried over from the file store in {} into the engine journal: next sender {}, next target {}, {} messages",
                own.display(),
                store.next_sender_seq(),
                store.next_target_seq(),
                store.message_count()
            );
            return Ok(store);
        }
        o.journal.session(&name, now).map_err(error)
    }

    /// Opens the journal of the session's `FileStorePath` if no session
    /// opened it yet (an acceptor template's, before its sessions come);
    /// its place in the list.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_dir(&mut self, s: &SessionSettings, now: Nanos) -> Result<usize, ConfigError> {
        let dir = file_store_dir(s)?.to_path_buf();
        let config = JournalConfig {
            fsync: fsync_policy(s),
            on_damage: on_damage(s),
            ..JournalConfig::default()
        };
        let i = match self.opened.iter().position(|o| o.dir == dir) {
            Some(i) => i,
            // One journal per engine: a turn is one transaction only in one file.
            None if !self.opened.is_empty() => {
                let o = &self.opened[0];
                return Err(s.error(
                    "FileStorePath",
                    format!(
                        "{} is not {}, where session {} keeps the engine journal: with EngineJournal=Y every session of an engine names one FileStorePath",
                        dir.display(),
                        o.dir.display(),
                        o.first
                    ),
                ));
            }
            None => {
                let journal = EngineJournal::open(&dir, config, now).map_err(|e| match e {
                    StoreError::Damaged { .. } => s.error(
                        "FileStorePath",
                        format!("{e}; to start anyway with the loss reported, set FileStoreDamage=report"),
                    ),
                    e => s.error("FileStorePath", format!("{}: {e}", dir.display())),
                })?;
                report_recovery(&journal);
                self.opened.push(Opened {
                    dir: dir.clone(),
                    journal,
                    config,
                    first: s.session_name(),
                });
                self.opened.len() - 1
            }
        };
        let o = &self.opened[i];
        if o.config.fsync != config.fsync {
            return Err(s.error(
                "FileStoreSync",
                format!(
                    "differs from that of session {}, which shares the engine journal in {}",
                    o.first,
                    dir.display()
                ),
            ));
        }
        if o.config.on_damage != config.on_damage {
            return Err(s.error(
                "FileStoreDamage",
                format!(
                    "differs from that of session {}, which shares the engine journal in {}",
                    o.first,
                    dir.display()
                ),
            ));
        }
        Ok(i)
    }

    /// Every journal opened so far.
    pub fn journals(&self) -> impl Iterator<Item = &EngineJournal> {
        self.opened.iter().map(|o| &o.journal)
    }
}

/// Says what opening the journal found.
fn report_recovery(journal: &EngineJournal) {
    let recovery = journal.recovery();
    for loss in &recovery.losses {
        tracing::error!("engine journal {}: {loss}", journal.path().display());
    }
    if recovery.uncommitted_bytes > 0 {
        tracing::info!(
            "engine journal {}: cut off {} bytes of a turn that was never committed (a crash mid-write; nothing of it was sent)",
            journal.path().display(),
            recovery.uncommitted_bytes
        );
    }
}

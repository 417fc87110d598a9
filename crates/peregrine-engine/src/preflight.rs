//! What start-up would find wrong in settings, found without starting
//! anything: [`check`] (what `peregrine check-config` runs).
//!
//! [`Settings::load`](crate::config::Settings::load) already refuses every
//! value it cannot use (stopping at the first). What only start-up met is
//! checked here with the functions start-up itself calls, without their side
//! effects, for every session (acceptor templates included, whose sessions
//! start-up makes later, at a Logon):
//!
//! * the dictionaries are read and parsed as start-up reads them
//!   ([`DictionaryCache`], each file once), `UseDataDictionary=Y` without one
//!   included ([`fix::dictionary_files`]);
//! * the file store, where the session uses it ([`fix::store_kind`]):
//!   `FileStorePath` is set ([`fix::file_store_dir`]) and its directory is
//!   writable, or can be created (its nearest existing ancestor is a writable
//!   directory) — asked of the system with `access(2)`: no directory or file
//!   is made and no store is opened;
//! * `FileLogPath`: the same;
//! * TLS (`SocketUseSSL=Y`): the PEM files read, the key goes with its
//!   certificate, the CA file holds certificates ([`crate::tls`], as start-up
//!   builds them);
//! * acceptors: `SocketAcceptAddress` resolves
//!   ([`SessionSettings::accept_address`]); sessions that share a
//!   `SocketAcceptPort` name the same address and the same TLS keys
//!   ([`check_listeners`], which start-up runs too); `AdminHttpPort` is not
//!   also a `SocketAcceptPort`.
//!
//! Not checked, because only doing it would tell: whether a port is free
//! (binding opens a socket), whether an initiator's hosts resolve and answer
//! (an initiator retries them while it runs), and whether an existing file
//! store is damaged (reading it is recovery, which may cut off an unfinished
//! write).
//!
//! ```
//! use peregrine_engine::{config::Settings, preflight};
//! let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
//!             DataDictionary=nowhere/FIX44.xml\n[SESSION]\nBeginString=FIX.4.4\n";
//! let settings = Settings::parse(text, "venue.cfg".as_ref())?;
//! let errors = preflight::check(&settings, None);
//! assert_eq!(errors.len(), 1);
//! assert!(errors[0].to_string().starts_with("venue.cfg:5: DataDictionary: "));
//! # Ok::<(), peregrine_engine::ConfigError>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::config::{ConfigError, ConnectionType, SessionSettings, Settings};
use crate::fix::{self, DictionaryCache, StoreKind};

/// Every problem start-up would meet in `settings` that can be found without
/// starting (see the [module documentation](self)), in session order, each
/// once. `store` is the store every session is made to use (`--store`), or
/// `None` for each session's own choice.
pub fn check(settings: &Settings, store: Option<StoreKind>) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    let mut dictionaries = DictionaryCache::default();
    for s in &settings.sessions {
        if let Err(e) = dictionaries.load(s) {
            errors.push(e);
        }
        if fix::store_kind(s, store) == StoreKind::File {
            match fix::file_store_dir(s) {
                Ok(dir) => {
                    if let Err(why) = writable_dir(dir) {
                        errors.push(s.error("FileStorePath", why.to_string()));
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        if let Some(dir) = &s.file_log_path {
            if let Err(why) = writable_dir(dir) {
                errors.push(s.error("FileLogPath", why.to_string()));
            }
        }
        if s.connection_type == ConnectionType::Acceptor {
            if let Err(e) = s.accept_address() {
                errors.push(address_error(s, format!("cannot be listened on: {e}")));
            }
        }
        // TLS: the configuration start-up builds, from the same files.
        if s.tls.is_some() {
            let built = match s.connection_type {
                ConnectionType::Acceptor => crate::tls::server_config(s).map(drop),
                ConnectionType::Initiator => crate::tls::client_config(s).map(drop),
            };
            if let Err(e) = built {
                errors.push(e);
            }
        }
    }
    if let Err(e) = check_listeners(&settings.sessions) {
        errors.push(e);
    }
    if let Some(e) = admin_port_taken(&settings.sessions) {
        errors.push(e);
    }
    // Forty sessions naming one broken dictionary in [DEFAULT] are one problem.
    let mut seen = HashSet::new();
    errors.retain(|e| seen.insert(e.to_string()));
    errors
}

/// Acceptor sessions that share a `SocketAcceptPort` share one listener: on
/// the address of the first of them, with its TLS settings. A later one that
/// names another `SocketAcceptAddress`, or other TLS keys, would have them
/// ignored, so it is refused ([`listener_conflict`]).
/// [`EngineBuilder`](crate::EngineBuilder) runs this before it opens a
/// listener.
///
/// ```
/// use peregrine_engine::{config::Settings, preflight::check_listeners};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nUseDataDictionary=N\n\
///             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\nSocketAcceptAddress=127.0.0.1\n\
///             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\nSocketAcceptAddress=127.0.0.2\n";
/// let settings = Settings::parse(text, "venue.cfg".as_ref())?;
/// let e = check_listeners(&settings.sessions).unwrap_err();
/// assert!(e.to_string().starts_with("venue.cfg:12: SocketAcceptAddress: "), "{e}");
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
///
/// # Errors
///
/// The first session that cannot share its port's listener.
pub fn check_listeners<'a>(
    sessions: impl IntoIterator<Item = &'a SessionSettings>,
) -> Result<(), ConfigError> {
    let mut ports: HashMap<u16, &SessionSettings> = HashMap::new();
    for s in sessions {
        if s.connection_type != ConnectionType::Acceptor {
            continue;
        }
        let port = s.socket_accept_port.unwrap_or(0);
        match ports.get(&port) {
            None => {
                ports.insert(port, s);
            }
            Some(first) => {
                if let Some(e) = listener_conflict(first, s) {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// Why acceptor session `s` cannot share the listener of `first`, which
/// listens on the same `SocketAcceptPort`: one port is one listener, on one
/// address, with one TLS handshake. Checked before start-up
/// ([`check_listeners`]) and for a session added while the engine runs.
///
/// ```
/// use peregrine_engine::{config::Settings, preflight::listener_conflict};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nUseDataDictionary=N\n\
///             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n\
///             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\n";
/// let settings = Settings::parse(text, "venue.cfg".as_ref())?;
/// assert!(listener_conflict(&settings.sessions[0], &settings.sessions[1]).is_none());
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn listener_conflict(first: &SessionSettings, s: &SessionSettings) -> Option<ConfigError> {
    fn address(s: &SessionSettings) -> &str {
        s.socket_accept_address.as_deref().unwrap_or("0.0.0.0")
    }
    let port = s.socket_accept_port.unwrap_or(0);
    let (a, first_a) = (address(s), address(first));
    if a != first_a {
        return Some(address_error(
            s,
            format!(
                "{a} differs from {first_a}, where session {} listens on the same \
                 SocketAcceptPort {port}: one port is one listener, on one address (give them \
                 the same address, or different ports)",
                first.session_name()
            ),
        ));
    }
    if first.tls != s.tls {
        // One port, one handshake: a session cannot speak TLS where another
        // does not, or with other certificates.
        let key = if first.tls.is_some() != s.tls.is_some() {
            "SocketUseSSL"
        } else {
            "SocketCertificateFile"
        };
        let mut e = s.error(
            key,
            format!(
                "TLS keys differ from those of {} on the same SocketAcceptPort {port}: \
                 sessions on one port share its TLS",
                first.session_name()
            ),
        );
        if e.line == 0 {
            e.line = s.line;
        }
        return Some(e);
    }
    None
}

/// `AdminHttpPort` (one for the engine, from the first session) is also an
/// acceptor's `SocketAcceptPort`: one of the two could not listen.
fn admin_port_taken(sessions: &[SessionSettings]) -> Option<ConfigError> {
    let admin = sessions.first()?.admin_http_port?;
    let acceptor = sessions.iter().find(|s| {
        s.connection_type == ConnectionType::Acceptor && s.socket_accept_port == Some(admin)
    })?;
    Some(sessions[0].error(
        "AdminHttpPort",
        format!(
            "{admin} is also the SocketAcceptPort of session {}",
            acceptor.session_name()
        ),
    ))
}

/// An error about the acceptor's address: on the key that set it, else on the
/// session (the default address was used).
fn address_error(s: &SessionSettings, message: String) -> ConfigError {
    let key = ["SocketAcceptAddress", "SocketAcceptHost"]
        .into_iter()
        .find(|k| s.get(k).is_some())
        .unwrap_or("SocketAcceptAddress");
    let mut e = s.error(key, message);
    if e.line == 0 {
        e.line = s.line;
    }
    e
}

/// Why [`writable_dir`] finds that the engine could not write files in a
/// directory. Its [`Display`](std::fmt::Display) names the directory asked
/// about and, when that does not exist, the ancestor that stands in the way.
#[derive(Debug)]
pub enum UnwritableDir {
    /// `existing` (the directory itself, or the nearest existing ancestor of a
    /// directory that does not exist) is not a directory.
    NotADirectory {
        /// The directory asked about.
        dir: PathBuf,
        /// The path that exists and is not a directory.
        existing: PathBuf,
    },
    /// What `existing` is could not be read.
    Unreadable {
        /// The directory asked about.
        dir: PathBuf,
        /// The directory itself, or its nearest existing ancestor.
        existing: PathBuf,
        /// The system's answer.
        source: std::io::Error,
    },
    /// `existing` is a directory this process may not write in (`access(2)`
    /// with `W_OK | X_OK` for the effective user).
    NotWritable {
        /// The directory asked about.
        dir: PathBuf,
        /// The directory itself, or its nearest existing ancestor.
        existing: PathBuf,
        /// The system's answer.
        source: std::io::Error,
    },
}

impl UnwritableDir {
    /// The directory asked about.
    pub fn dir(&self) -> &Path {
        match self {
            UnwritableDir::NotADirectory { dir, .. }
            | UnwritableDir::Unreadable { dir, .. }
            | UnwritableDir::NotWritable { dir, .. } => dir,
        }
    }

    /// The path found in the way: the directory itself, or the nearest
    /// existing ancestor of one that does not exist.
    pub fn existing(&self) -> &Path {
        match self {
            UnwritableDir::NotADirectory { existing, .. }
            | UnwritableDir::Unreadable { existing, .. }
            | UnwritableDir::NotWritable { existing, .. } => existing,
        }
    }
}

impl std::fmt::Display for UnwritableDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (dir, existing) = (self.dir(), self.existing());
        if existing != dir {
            write!(f, "{} cannot be made: ", dir.display())?;
        }
        match self {
            UnwritableDir::NotADirectory { .. } => {
                write!(f, "{} is not a directory", existing.display())
            }
            UnwritableDir::Unreadable { source, .. } => {
                write!(f, "{}: {source}", existing.display())
            }
            UnwritableDir::NotWritable { source, .. } => {
                write!(f, "{} is not writable: {source}", existing.display())
            }
        }
    }
}

impl std::error::Error for UnwritableDir {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UnwritableDir::NotADirectory { .. } => None,
            UnwritableDir::Unreadable { source, .. }
            | UnwritableDir::NotWritable { source, .. } => Some(source),
        }
    }
}

/// Whether the engine could write files in `dir`: an existing directory
/// writable by this process, or, when `dir` does not exist, one that could be
/// made (its nearest existing ancestor is a directory this process may write
/// in). Asked with `access(2)` for the effective user: nothing is written.
///
/// ```
/// use peregrine_engine::preflight::{writable_dir, UnwritableDir};
/// let dir = tempfile::tempdir()?;
/// assert!(writable_dir(dir.path()).is_ok());
/// assert!(writable_dir(&dir.path().join("a/b")).is_ok());
/// std::fs::write(dir.path().join("file"), "")?;
/// let e = writable_dir(&dir.path().join("file/store")).unwrap_err();
/// assert!(matches!(e, UnwritableDir::NotADirectory { .. }));
/// assert_eq!(e.existing(), dir.path().join("file"));
/// assert!(e.to_string().ends_with("file is not a directory"), "{e}");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// What stands in the way ([`UnwritableDir`]): a path that is not a
/// directory, one whose metadata cannot be read, or a directory this process
/// may not write in.
pub fn writable_dir(dir: &Path) -> Result<(), UnwritableDir> {
    let mut existing = dir;
    // `dir` itself, or the ancestor `create_dir_all` would start from.
    while !existing.as_os_str().is_empty() && std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(p) => existing = p,
            None => break,
        }
    }
    if existing.as_os_str().is_empty() {
        existing = Path::new(".");
    }
    let paths = || (dir.to_path_buf(), existing.to_path_buf());
    match std::fs::metadata(existing) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            let (dir, existing) = paths();
            return Err(UnwritableDir::NotADirectory { dir, existing });
        }
        Err(source) => {
            let (dir, existing) = paths();
            return Err(UnwritableDir::Unreadable {
                dir,
                existing,
                source,
            });
        }
    }
    use rustix::fs::{accessat, Access, AtFlags, CWD};
    accessat(
        CWD,
        existing,
        Access::WRITE_OK | Access::EXEC_OK,
        AtFlags::EACCESS,
    )
    .map_err(|e| {
        let (dir, existing) = paths();
        UnwritableDir::NotWritable {
            dir,
            existing,
            source: std::io::Error::from(e),
        }
    })
}

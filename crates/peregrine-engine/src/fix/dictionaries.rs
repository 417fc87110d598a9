//! The QuickFIX XML dictionaries a session's settings name, and loading
//! them: once per file, shared by every session that names it
//! ([`DictionaryCache`]), the built-in ones for a bare `FIX44.xml`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use peregrine_dict::{Dictionaries, Dictionary};

use crate::config::{ConfigError, SessionSettings};

/// The dictionary files a session's settings name (see [`dictionary_files`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictionaryFiles {
    /// FIXT.1.1: `TransportDataDictionary` (else `DataDictionary`), with the key
    /// that named it.
    pub transport: Option<(PathBuf, &'static str)>,
    /// `DataDictionary`, or for FIXT.1.1 `AppDataDictionary`, with the key; `None`
    /// for a FIXT.1.1 session that names only `AppDataDictionary.<version>` ones.
    pub app: Option<(PathBuf, &'static str)>,
    /// FIXT.1.1: `AppDataDictionary.<version>` (QuickFIX/J's), which a message of
    /// that ApplVerID is validated with instead of `app`.
    pub versions: Vec<crate::config::VersionDictionary>,
}

/// The dictionary files a session's settings name: `DataDictionary`, or for
/// FIXT.1.1 `TransportDataDictionary` (else `DataDictionary`),
/// `AppDataDictionary` and `AppDataDictionary.<version>`; `None` with
/// `UseDataDictionary=N`.
///
/// ```
/// use peregrine_engine::{config::Settings, fix::dictionary_files};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///             [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\n\
///             TransportDataDictionary=/d/FIXT11.xml\nAppDataDictionary=/d/FIX50SP2.xml\n\
///             AppDataDictionary.FIX.4.4=/d/FIX44.xml\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let files = dictionary_files(s)?.unwrap();
/// assert_eq!(files.versions[0].appl_ver_id, "6");
/// assert_eq!(files.versions[0].path, std::path::Path::new("/d/FIX44.xml"));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
///
/// # Errors
///
/// `UseDataDictionary=Y` (the default, as in QuickFIX) without a dictionary
/// named: validation would silently be off, so this stops start-up, naming
/// the key; likewise a FIXT.1.1 session without `AppDataDictionary` or an
/// `AppDataDictionary.<version>`.
pub fn dictionary_files(s: &SessionSettings) -> Result<Option<DictionaryFiles>, ConfigError> {
    if !s.use_data_dictionary {
        return Ok(None);
    }
    let missing = |key: &str| {
        s.error(
            key,
            "missing: UseDataDictionary=Y (the default) validates with a dictionary; name one \
             (QuickFIX's are built in: DataDictionary=FIX44.xml, as QuickFIX/J finds it in its \
             jar) or set UseDataDictionary=N",
        )
    };
    if s.begin_string == "FIXT.1.1" {
        let transport = match (&s.transport_data_dictionary, &s.data_dictionary) {
            (Some(p), _) => (p.clone(), "TransportDataDictionary"),
            (None, Some(p)) => (p.clone(), "DataDictionary"),
            (None, None) => return Err(missing("TransportDataDictionary")),
        };
        let app = s
            .app_data_dictionary
            .as_ref()
            .map(|p| (p.clone(), "AppDataDictionary"));
        if app.is_none() && s.app_data_dictionaries.is_empty() {
            let mut e = s.error(
                "AppDataDictionary",
                "missing (a FIXT.1.1 session with a TransportDataDictionary needs one, or \
                 AppDataDictionary.<version> ones)",
            );
            // Not set anywhere: the session's own line says which session.
            e.line = s.line;
            return Err(e);
        }
        return Ok(Some(DictionaryFiles {
            transport: Some(transport),
            app,
            versions: s.app_data_dictionaries.clone(),
        }));
    }
    match &s.data_dictionary {
        Some(p) => Ok(Some(DictionaryFiles {
            transport: None,
            app: Some((p.clone(), "DataDictionary")),
            versions: Vec::new(),
        })),
        None => Err(missing("DataDictionary")),
    }
}

/// Loads the dictionaries a session's settings name (see
/// [`dictionary_files`]); `None` when `UseDataDictionary=N`. Engines built
/// with [`EngineBuilder`](crate::EngineBuilder) share one copy per file
/// through a [`DictionaryCache`].
///
/// # Errors
///
/// As [`dictionary_files`], and when a file cannot be read or parsed.
pub fn load_dictionaries(s: &SessionSettings) -> Result<Option<Arc<Dictionaries>>, ConfigError> {
    DictionaryCache::default().load(s)
}

/// Dictionaries loaded once per file (a FIX 4.4 dictionary is ~4.7 MB
/// parsed: forty sessions naming it share one copy).
#[derive(Debug, Default)]
pub struct DictionaryCache {
    files: HashMap<PathBuf, Arc<Dictionary>>,
    sets: HashMap<DictionarySet, Arc<Dictionaries>>,
}

/// The files of one set: transport, application, and by ApplVerID code.
type DictionarySet = (
    Option<PathBuf>,
    Option<PathBuf>,
    Vec<(&'static str, PathBuf)>,
);

impl DictionaryCache {
    /// The dictionaries a session's settings name, from the cache when an
    /// earlier session named the same files (see
    /// [`load_dictionaries`] for the rules).
    ///
    /// # Errors
    ///
    /// A dictionary cannot be read or parsed (the error names the key).
    pub fn load(&mut self, s: &SessionSettings) -> Result<Option<Arc<Dictionaries>>, ConfigError> {
        let Some(files) = dictionary_files(s)? else {
            return Ok(None);
        };
        let key: DictionarySet = (
            files.transport.as_ref().map(|(p, _)| p.clone()),
            files.app.as_ref().map(|(p, _)| p.clone()),
            files
                .versions
                .iter()
                .map(|v| (v.appl_ver_id, v.path.clone()))
                .collect(),
        );
        if let Some(d) = self.sets.get(&key) {
            return Ok(Some(d.clone()));
        }
        let mut file = |path: &PathBuf, setting: &str| -> Result<Arc<Dictionary>, ConfigError> {
            if let Some(d) = self.files.get(path) {
                return Ok(d.clone());
            }
            // A bare `FIX44.xml` and no such file: the built-in one, as
            // QuickFIX/J finds it in its jar (`peregrine_dict::builtin`). A
            // value naming a directory (`../spec/FIX44.xml`) means that file.
            let bare = s
                .entries
                .iter()
                .find(|e| e.key.eq_ignore_ascii_case(setting))
                .is_some_and(|e| !e.value.contains(['/', '\\']));
            let builtin = match path.file_name().and_then(|n| n.to_str()) {
                Some(name) if bare && !path.exists() => {
                    peregrine_dict::builtin::by_file_name(name).map(|xml| (name, xml))
                }
                _ => None,
            };
            let loaded = match builtin {
                Some((name, xml)) => Dictionary::from_xml_str(name, xml),
                None => Dictionary::from_file(path),
            };
            let d = Arc::new(loaded.map_err(|e| {
                // A read error names the path already; a parse error the file's base name.
                let e = e.to_string();
                let shown = path.display().to_string();
                s.error(
                    setting,
                    if e.starts_with(&shown) {
                        e
                    } else {
                        format!("{shown}: {e}")
                    },
                )
            })?);
            self.files.insert(path.clone(), d.clone());
            Ok(d)
        };
        let mut set = match (&files.transport, &files.app) {
            (Some((t, tk)), Some((a, ak))) => Dictionaries::fixt_shared(file(t, tk)?, file(a, ak)?),
            (Some((t, tk)), None) => Dictionaries::fixt_versions_only(file(t, tk)?),
            (None, Some((a, ak))) => Dictionaries::single_shared(file(a, ak)?),
            (None, None) => return Ok(None),
        };
        for v in &files.versions {
            set = set.with_version(v.appl_ver_id, file(&v.path, &v.key)?);
        }
        let set = Arc::new(set);
        self.sets.insert(key, set.clone());
        Ok(Some(set))
    }
}

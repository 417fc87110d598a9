//! [`Reader`]: a section's entries as typed values, an error naming line and key.

use std::path::{Path, PathBuf};

use super::catalog::{catalog_key, range_of, DefaultValue, Key};
use super::schedule;
use super::{ConfigError, Origin, SettingLine, TimeOfDay};

/// One section's effective entries, and where they come from.
pub(super) struct Reader<'a> {
    pub(super) origin: Origin,
    pub(super) file: &'a Path,
    pub(super) section_line: usize,
    pub(super) entries: &'a [SettingLine],
}

impl Reader<'_> {
    /// The entry of `key`, which must be in the catalog (checked in debug
    /// builds, so in every test: a key cannot be read without its description).
    pub(super) fn entry(&self, key: &str) -> Option<&SettingLine> {
        debug_assert!(
            catalog_key(key).is_some(),
            "{key} is read but not in config::catalog"
        );
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }
    pub(super) fn err(&self, e: &SettingLine, message: String) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line: e.line,
            key: Some(e.key.clone()),
            message,
            origin: self.origin,
        }
    }
    /// An error about `key`, which is not there: at the section's line.
    pub(super) fn missing(&self, key: &str, message: &str) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line: self.section_line,
            key: Some(key.to_string()),
            message: message.into(),
            origin: self.origin,
        }
    }
    pub(super) fn string(&self, key: &str) -> Option<String> {
        self.entry(key).map(|e| e.value.clone())
    }
    pub(super) fn required(&self, key: &str) -> Result<String, ConfigError> {
        match self.entry(key) {
            Some(e) if !e.value.is_empty() => Ok(e.value.clone()),
            Some(e) => Err(self.err(e, "must not be empty".into())),
            None => Err(self.missing(key, "missing (required for every session)")),
        }
    }
    pub(super) fn bool(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(default);
        };
        match e.value.as_str() {
            "Y" | "y" => Ok(true),
            "N" | "n" => Ok(false),
            v => Err(self.err(e, format!("{v:?} is not Y or N"))),
        }
    }
    /// A numeric key's value, checked against its range in
    /// the catalog ([`NUMERIC_RANGES`](super::NUMERIC_RANGES)).
    pub(super) fn number<T: TryFrom<u64>>(&self, key: &str) -> Result<Option<T>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        let (min, max) = range_of(key).expect("every numeric key has a range");
        let v = e.value.as_str();
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.err(e, format!("{v:?} is not a number")));
        }
        match v.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(T::try_from(n).ok()),
            _ => Err(self.err(
                e,
                format!("{v:?} is out of range (it must be {min} to {max})"),
            )),
        }
    }
    /// A flag, with the catalog's default when it is left out.
    pub(super) fn flag(&self, key: &str) -> Result<bool, ConfigError> {
        match described(key).default {
            DefaultValue::Flag(default) => self.bool(key, default),
            other => unreachable!("{key}: the catalog's default {other:?} is not Y or N"),
        }
    }
    /// A numeric key, with the catalog's default when it is left out.
    pub(super) fn num<T: TryFrom<u64>>(&self, key: &str) -> Result<T, ConfigError> {
        let default = match described(key).default {
            DefaultValue::Number(n) => T::try_from(n).ok(),
            _ => None,
        };
        let default =
            default.unwrap_or_else(|| unreachable!("{key}: the catalog's default is not a number"));
        self.num_or(key, default)
    }
    /// The catalog's default of a text key (a table name, a group).
    pub(super) fn text_default(&self, key: &str) -> &'static str {
        match described(key).default {
            DefaultValue::Text(default) => default,
            other => unreachable!("{key}: the catalog's default {other:?} is not text"),
        }
    }
    /// A key whose value is one of some words (or an address): `parse` turns
    /// the value, or the catalog's default when the key is left out, into `T`;
    /// its error message is said of the entry's line. So the default a
    /// session gets is the one the settings table writes.
    pub(super) fn parsed<T>(
        &self,
        key: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, ConfigError> {
        match self.entry(key) {
            Some(e) => parse(&e.value).map_err(|m| self.err(e, m)),
            None => {
                let default = self.text_default(key);
                Ok(parse(default)
                    .unwrap_or_else(|m| unreachable!("{key}: the catalog's default: {m}")))
            }
        }
    }
    pub(super) fn num_or<T: TryFrom<u64>>(&self, key: &str, default: T) -> Result<T, ConfigError> {
        Ok(self.number(key)?.unwrap_or(default))
    }
    pub(super) fn port(&self, key: &str) -> Result<Option<u16>, ConfigError> {
        self.number::<u16>(key)
    }
    pub(super) fn time(&self, key: &str) -> Result<Option<TimeOfDay>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        let bad = || self.err(e, format!("{:?} is not a time HH:MM:SS", e.value));
        let parts: Vec<&str> = e.value.split(':').collect();
        if parts.len() != 3 || parts.iter().any(|p| p.len() != 2) {
            return Err(bad());
        }
        let n: Vec<u32> = parts
            .iter()
            .map(|p| p.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        if n[0] > 23 || n[1] > 59 || n[2] > 59 {
            return Err(bad());
        }
        Ok(Some(TimeOfDay(n[0] * 3600 + n[1] * 60 + n[2])))
    }
    pub(super) fn day(&self, key: &str) -> Result<Option<u8>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        schedule::day_of(&e.value)
            .map(Some)
            .ok_or_else(|| self.err(e, format!("{:?} is not a day of the week", e.value)))
    }
    pub(super) fn path(&self, key: &str) -> Result<Option<PathBuf>, ConfigError> {
        let Some(e) = self.entry(key) else {
            return Ok(None);
        };
        if e.value.is_empty() {
            return Err(self.err(e, "must not be empty".into()));
        }
        Ok(Some(resolve_path(self.file, &e.value)))
    }
}

fn described(key: &str) -> &'static Key {
    catalog_key(key).unwrap_or_else(|| unreachable!("{key} is not in config::catalog"))
}

/// Resolves a path from a settings file: absolute paths stay; a relative one
/// is taken against the settings file's directory, unless nothing exists there
/// and something exists relative to the working directory.
///
/// ```
/// use std::path::Path;
/// use peregrine_engine::config::resolve_path;
/// assert_eq!(resolve_path(Path::new("/etc/fix/a.cfg"), "/x/FIX44.xml"), Path::new("/x/FIX44.xml"));
/// assert_eq!(resolve_path(Path::new("/nonexistent/a.cfg"), "spec/nope.xml"),
///            Path::new("/nonexistent/spec/nope.xml"));
/// ```
pub fn resolve_path(cfg_file: &Path, value: &str) -> PathBuf {
    let p = Path::new(value);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let base = cfg_file.parent().unwrap_or(Path::new(""));
    let beside = base.join(p);
    if beside.exists() || !p.exists() {
        beside
    } else {
        p.to_path_buf()
    }
}

/// The value of a key that is one of some words (any case): the one `v` names,
/// or an error listing them (`"x" is not acceptor or initiator`).
pub(super) fn one_of<T: Copy>(v: &str, words: &[(&str, T)]) -> Result<T, String> {
    let v = v.to_ascii_lowercase();
    match words.iter().find(|(w, _)| *w == v) {
        Some(&(_, t)) => Ok(t),
        None => {
            let names: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
            Err(format!("{v:?} is not {}", names.join(" or ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key read without a catalog entry is caught in every test run.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "NoSuchKey is read but not in config::catalog")]
    fn reading_an_uncatalogued_key_panics_in_debug_builds() {
        let r = Reader {
            origin: Origin::File,
            file: Path::new("a.cfg"),
            section_line: 1,
            entries: &[],
        };
        let _ = r.entry("NoSuchKey");
    }

    #[test]
    fn catalogued_keys_and_their_suffixed_forms_are_read() {
        let r = Reader {
            origin: Origin::File,
            file: Path::new("a.cfg"),
            section_line: 1,
            entries: &[],
        };
        assert!(r.entry("SocketConnectHost2").is_none());
        assert!(r.entry("AppDataDictionary.FIX.4.4").is_none());
        assert_eq!(
            r.flag("ResetOnLogon").unwrap(),
            peregrine_session::defaults::RESET_ON_LOGON
        );
        assert_eq!(r.num::<u32>("ReconnectInterval").unwrap(), 30);
    }
}

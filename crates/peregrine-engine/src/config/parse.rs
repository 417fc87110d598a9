//! Reading a `.cfg` file into `[DEFAULT]` and `[SESSION]` entries: [`Settings::parse`].

use std::path::Path;

use super::keys::check_key;
use super::{ConfigError, Origin, SettingLine, Settings};

#[derive(Debug, PartialEq)]
enum SectionKind {
    Default,
    Session,
}
impl Settings {
    /// Reads and parses `path`; the warnings are also reported
    /// ([`report_warnings`](Self::report_warnings)).
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let e = Settings::load("/nonexistent/venue.cfg").unwrap_err();
    /// assert!(e.to_string().starts_with("/nonexistent/venue.cfg: cannot read"));
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the file (line 0, no key) when it cannot be
    /// read (missing, unreadable, not UTF-8); else as [`parse`](Self::parse).
    pub fn load(path: impl AsRef<Path>) -> Result<Settings, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            key: None,
            message: format!("cannot read: {e}"),
            origin: Origin::File,
        })?;
        let settings = Settings::parse(&text, path)?;
        settings.report_warnings();
        Ok(settings)
    }

    /// Parses settings text; `path` names the file in messages and is the base
    /// for relative paths.
    ///
    /// # Errors
    ///
    /// The text is not a settings file, a value cannot be used, a required
    /// key is missing, or a QuickFIX key Peregrine does not implement would
    /// change security or delivery ([`UNSUPPORTED_KEYS`](super::UNSUPPORTED_KEYS)): the error names
    /// file, line and key.
    pub fn parse(text: &str, path: &Path) -> Result<Settings, ConfigError> {
        let err = |line: usize, key: Option<&str>, message: String| ConfigError {
            file: path.to_path_buf(),
            line,
            key: key.map(str::to_string),
            message,
            origin: Origin::File,
        };
        let mut defaults: Vec<SettingLine> = Vec::new();
        let mut raw_sessions: Vec<(usize, Vec<SettingLine>)> = Vec::new();
        let mut current: Option<SectionKind> = None;
        let mut warnings = Vec::new();
        let mut saw_default = false;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if line.starts_with('[') {
                let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
                    return Err(err(n, None, format!("{line:?} is not a section header")));
                };
                let name = name.trim();
                if name.eq_ignore_ascii_case("DEFAULT") {
                    if saw_default {
                        return Err(err(n, None, "a second [DEFAULT] section".into()));
                    }
                    saw_default = true;
                    current = Some(SectionKind::Default);
                } else if name.eq_ignore_ascii_case("SESSION") {
                    current = Some(SectionKind::Session);
                    raw_sessions.push((n, Vec::new()));
                } else {
                    return Err(err(
                        n,
                        None,
                        format!("unknown section [{name}] (expected [DEFAULT] or [SESSION])"),
                    ));
                }
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(err(n, None, format!("{line:?} is not Key=Value")));
            };
            let key = key.trim();
            let value = value.trim();
            if key.is_empty() {
                return Err(err(n, None, format!("{line:?} has no key")));
            }
            let entries = match current {
                None => {
                    return Err(err(
                        n,
                        Some(key),
                        "setting outside a [DEFAULT] or [SESSION] section".into(),
                    ))
                }
                Some(SectionKind::Default) => &mut defaults,
                Some(SectionKind::Session) => &mut raw_sessions.last_mut().expect("session").1,
            };
            if entries.iter().any(|e| e.key.eq_ignore_ascii_case(key)) {
                return Err(err(n, Some(key), "set twice in the same section".into()));
            }
            let entry = SettingLine {
                key: key.to_string(),
                value: value.to_string(),
                line: n,
            };
            check_key(Origin::File, path, &entry, &mut warnings)?;
            entries.push(entry);
        }
        if raw_sessions.is_empty() {
            return Err(err(0, None, "no [SESSION] section".into()));
        }
        Settings::assemble(Origin::File, path, defaults, raw_sessions, warnings)
    }
}

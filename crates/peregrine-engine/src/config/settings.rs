//! [`Settings`]: all the sessions of a file (or of code), typed and checked together.

use std::path::{Path, PathBuf};

use super::typed::typed;
use super::{
    ConfigError, ConfigWarning, Origin, Section, SessionSettings, SettingLine, SettingsBuilder,
};

/// A whole settings file, parsed and typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The file (empty for settings made in code).
    pub file: PathBuf,
    /// A file or code.
    pub origin: Origin,
    /// The `[DEFAULT]` entries.
    pub defaults: Vec<SettingLine>,
    /// One per `[SESSION]`, in file order.
    pub sessions: Vec<SessionSettings>,
    /// Unknown keys and similar.
    pub warnings: Vec<ConfigWarning>,
}

impl Settings {
    /// Settings made in code, with QuickFIX's defaults for every key left
    /// out (see [`SettingsBuilder`]).
    ///
    /// ```
    /// use peregrine_engine::config::{ConnectionType, Settings};
    /// let settings = Settings::builder()
    ///     .default(|d| d.connection_type(ConnectionType::Acceptor).use_data_dictionary(false))
    ///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.socket_accept_port(9878))
    ///     .build()?;
    /// assert_eq!(settings.sessions[0].heart_bt_int, 30); // QuickFIX's default
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn builder() -> SettingsBuilder {
        SettingsBuilder {
            defaults: Section::default(),
            sessions: Vec::new(),
        }
    }

    /// Says each warning: through `tracing` when a subscriber is installed,
    /// else on stderr (a typo in a key is seen either way).
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
    ///             ScreenLogShowHeartBeats=Y\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let settings = Settings::parse(text, "a.cfg".as_ref())?;
    /// assert_eq!(settings.warnings[0].key, "ScreenLogShowHeartBeats");
    /// settings.report_warnings(); // peregrine: warning: a.cfg:5: ScreenLogShowHeartBeats: …
    /// # Ok::<(), peregrine_engine::ConfigError>(())
    /// ```
    pub fn report_warnings(&self) {
        let subscriber = tracing::dispatcher::has_been_set();
        for w in &self.warnings {
            if subscriber {
                tracing::warn!("{w}");
            } else {
                eprintln!("peregrine: warning: {w}");
            }
        }
    }

    /// Types every session (its `[DEFAULT]` entries overridden by its own)
    /// and checks that no two sessions are the same: the part of reading
    /// settings that a file and code share.
    pub(super) fn assemble(
        origin: Origin,
        path: &Path,
        defaults: Vec<SettingLine>,
        raw_sessions: Vec<(usize, Vec<SettingLine>)>,
        warnings: Vec<ConfigWarning>,
    ) -> Result<Settings, ConfigError> {
        let mut sessions = Vec::with_capacity(raw_sessions.len());
        for (line, entries) in raw_sessions {
            let mut effective = defaults.clone();
            for e in entries {
                effective.retain(|d| !d.key.eq_ignore_ascii_case(&e.key));
                effective.push(e);
            }
            sessions.push(typed(origin, path, line, effective)?);
        }
        // Two sessions with the same identity cannot both exist (one pass with a map:
        // a venue may configure ten thousand sessions).
        let mut seen: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(sessions.len());
        for (i, a) in sessions.iter().enumerate() {
            let earlier = seen.insert(a.session_name(), i);
            if let Some(b) = earlier.map(|j| &sessions[j]) {
                let message = match origin {
                    Origin::File => format!(
                        "session {} is already defined at line {}",
                        a.session_name(),
                        b.line
                    ),
                    Origin::Code => format!("session {} is made twice", a.session_name()),
                };
                return Err(ConfigError {
                    file: path.to_path_buf(),
                    line: a.line,
                    key: None,
                    message,
                    origin,
                });
            }
        }
        check_engine_wide(origin, path, &sessions)?;
        Ok(Settings {
            file: path.to_path_buf(),
            origin,
            defaults,
            sessions,
            warnings,
        })
    }
}

/// Keys the engine reads once for all its sessions (one reactor thread, one admin
/// interface): a session that sets one differently from the first would be silently
/// ignored, so it is refused, naming where.
const ENGINE_WIDE_KEYS: [&str; 8] = [
    "IdleStrategy",
    "AdminHttpPort",
    "AdminHttpAddress",
    "AdminHttpToken",
    "HaNodeName",
    "HaPeers",
    "HaEtcdEndpoints",
    "HaLeaseTTL",
];

/// One part of a session's high-availability settings (the node's: one per engine).
fn ha_part<T>(s: &SessionSettings, part: impl Fn(&super::HaSettings) -> &T) -> Option<&T> {
    s.ha.as_ref().map(part)
}

fn check_engine_wide(
    origin: Origin,
    path: &Path,
    sessions: &[SessionSettings],
) -> Result<(), ConfigError> {
    let Some(first) = sessions.first() else {
        return Ok(());
    };
    for s in &sessions[1..] {
        let differs = [
            s.idle_strategy != first.idle_strategy,
            s.admin_http_port != first.admin_http_port,
            s.admin_http_address != first.admin_http_address,
            s.admin_http_token != first.admin_http_token,
            ha_part(s, |h| &h.node_name) != ha_part(first, |h| &h.node_name),
            ha_part(s, |h| &h.peers) != ha_part(first, |h| &h.peers),
            ha_part(s, |h| &h.etcd_endpoints) != ha_part(first, |h| &h.etcd_endpoints),
            ha_part(s, |h| &h.lease_ttl_secs) != ha_part(first, |h| &h.lease_ttl_secs),
        ];
        let Some(key) = ENGINE_WIDE_KEYS
            .iter()
            .zip(differs)
            .find_map(|(k, d)| d.then_some(*k))
        else {
            continue;
        };
        let line = s
            .entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
            .map_or(s.line, |e| e.line);
        return Err(ConfigError {
            file: path.to_path_buf(),
            line,
            key: Some(key.into()),
            message: format!(
                "session {} sets it differently from session {}: it is one for the whole \
                 engine (set it in [DEFAULT], or run the sessions in two engines)",
                s.session_name(),
                first.session_name()
            ),
            origin,
        });
    }
    Ok(())
}

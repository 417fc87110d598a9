//! `peregrine check-config FILE`: a `.cfg` loaded as `acceptor` and
//! `initiator` load it ([`Settings::load`], which stops at the first value it
//! cannot use), then checked for what start-up alone would find
//! ([`preflight::check`], which reports every problem) — without starting a
//! session, opening a socket or a store. On success, a summary of each
//! session on stdout; otherwise every error on stderr, `FILE:LINE: KEY: why`.
//! `peregrine check-config --keys`: every key Peregrine reads, from the
//! engine's key catalog ([`config::CATALOG`]).

use std::fmt::Write as _;
use std::io::Write as _;

use peregrine_engine::config::{
    self, ConnectionType, SessionSettings, Settings, TimeOfDay, TlsVersion, ValueKind,
};
use peregrine_engine::fix::{self, StoreKind};
use peregrine_engine::preflight;

use crate::cli::CheckConfigArgs;
use crate::error::Error;

/// Runs the command.
pub fn run(args: CheckConfigArgs) -> Result<(), Error> {
    let Some(file) = args.file.filter(|_| !args.keys) else {
        return print(&keys());
    };
    // Warnings go to stderr here, as at start-up.
    let settings = Settings::load(&file).map_err(Error::Settings)?;
    let store = args.store.map(StoreKind::from);
    let errors = preflight::check(&settings, store);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("peregrine: {e}");
        }
        return Err(Error::CheckFailed {
            file,
            errors: errors.len(),
        });
    }
    print(&summary(&settings, store))
}

fn print(text: &str) -> Result<(), Error> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|source| Error::Io {
            what: "cannot write to stdout".into(),
            source,
        })
}

/// Every key of the catalog: a line of name, source, kind and default, then
/// what it does, indented.
fn keys() -> String {
    let mut out = String::new();
    for key in config::CATALOG {
        let kind = match key.kind {
            ValueKind::Flag => "Y/N".to_string(),
            ValueKind::Number { unit, min, max } => format!("{unit}, {min} to {max}"),
            ValueKind::Text(form) => form.to_string(),
        };
        let sources: Vec<String> = key.sources.iter().map(ToString::to_string).collect();
        let name = match key.suffix {
            config::KeySuffix::None => key.name.to_string(),
            config::KeySuffix::Number => format!("{0}, {0}<n>", key.name),
            config::KeySuffix::Version => format!("{0}, {0}.<version>", key.name),
        };
        let _ = writeln!(
            out,
            "{name} ({}): {kind}; default {}\n    {}",
            sources.join(", "),
            key.default,
            key.doc_text()
        );
    }
    out
}

/// What the settings make, as a person reads it.
fn summary(settings: &Settings, store: Option<StoreKind>) -> String {
    let mut out = String::new();
    let n = settings.sessions.len();
    let warnings = settings.warnings.len();
    let _ = writeln!(
        out,
        "{}: OK, {n} session{}{}",
        settings.file.display(),
        plural(n),
        match warnings {
            0 => String::new(),
            w => format!(", {w} warning{} (on stderr)", plural(w)),
        }
    );
    if let Some(first) = settings.sessions.first() {
        let admin = match first.admin_http_port {
            None => "off".to_string(),
            Some(port) => format!(
                "http://{}/sessions, changes {}",
                std::net::SocketAddr::new(first.admin_http_address, port),
                if first.admin_http_token.is_some() {
                    "with AdminHttpToken"
                } else {
                    "refused (no AdminHttpToken)"
                }
            ),
        };
        let _ = writeln!(
            out,
            "engine: IdleStrategy {}; admin interface {admin}",
            first.idle_strategy
        );
    }
    for s in &settings.sessions {
        let _ = writeln!(out, "\n{} (line {})", s.session_name(), s.line);
        let _ = writeln!(out, "  connection:  {}", connection(s));
        let _ = writeln!(out, "  store:       {}", store_line(s, store));
        let _ = writeln!(out, "  dictionary:  {}", dictionary(s));
        let _ = writeln!(
            out,
            "  logs:        {}",
            s.file_log_path
                .as_ref()
                .map_or("none (no FileLogPath)".to_string(), |p| p
                    .display()
                    .to_string())
        );
        if let Some(tls) = tls(s) {
            let _ = writeln!(out, "  tls:         {tls}");
        }
        let _ = writeln!(out, "  schedule:    {}", schedule(s));
        let _ = writeln!(
            out,
            "  heartbeat:   {} s; logon timeout {} s, logout timeout {} s",
            s.heart_bt_int, s.logon_timeout, s.logout_timeout
        );
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A session's TLS, when it has it (`SocketUseSSL=Y`): the minimum version, whom
/// it trusts (`SocketCAFile`) and, for an initiator, the name it checks.
fn tls(s: &SessionSettings) -> Option<String> {
    let tls = s.tls.as_ref()?;
    let version = match tls.min_version {
        TlsVersion::Tls12 => "TLS 1.2 or 1.3",
        TlsVersion::Tls13 => "TLS 1.3 only",
    };
    let ca = tls.ca_file.as_ref().map(|p| p.display().to_string());
    let trust = match (s.connection_type, ca) {
        (ConnectionType::Acceptor, None) => "no client certificate asked".to_string(),
        (ConnectionType::Acceptor, Some(ca)) if tls.need_client_auth => {
            format!("client certificate required, CA {ca}")
        }
        (ConnectionType::Acceptor, Some(ca)) => {
            format!("client certificate checked when offered, CA {ca}")
        }
        (ConnectionType::Initiator, ca) => {
            let ca = ca.unwrap_or_else(|| "Mozilla's roots (built in)".to_string());
            let name = match (&tls.server_name, s.connect_addresses.first()) {
                (Some(name), _) => name.clone(),
                (None, Some((host, _))) => format!("{host} (the connect host)"),
                (None, None) => "the connect host".to_string(),
            };
            let client = if tls.certificate_file.is_some() {
                ", with a client certificate"
            } else {
                ""
            };
            format!("CA {ca}, server name {name}{client}")
        }
    };
    Some(format!("on, {version}; {trust}"))
}

fn connection(s: &SessionSettings) -> String {
    match s.connection_type {
        ConnectionType::Acceptor => {
            let at = format!(
                "{}:{}",
                s.socket_accept_address.as_deref().unwrap_or("0.0.0.0"),
                s.socket_accept_port.unwrap_or(0)
            );
            if !s.acceptor_template {
                return format!("acceptor on {at}");
            }
            let allowed = if s.allowed_target_comp_ids.is_empty() {
                "any counterparty".to_string()
            } else {
                s.allowed_target_comp_ids.join(", ")
            };
            format!(
                "acceptor template on {at} (a fitting Logon makes a session; {allowed}; at most {})",
                s.max_template_sessions
            )
        }
        ConnectionType::Initiator => {
            let hosts: Vec<String> = s
                .connect_addresses
                .iter()
                .map(|(h, p)| format!("{h}:{p}"))
                .collect();
            format!(
                "initiator to {} (ReconnectInterval {} s)",
                hosts.join(", then "),
                s.reconnect_interval
            )
        }
    }
}

fn store_line(s: &SessionSettings, store: Option<StoreKind>) -> String {
    match fix::store_kind(s, store) {
        StoreKind::Memory => "memory".into(),
        // Not the URL: it may hold a password.
        StoreKind::Sql => match &s.sql_store {
            Some(sql) => format!(
                "database ({}), tables {} and {}",
                sql.key, sql.sessions_table, sql.messages_table
            ),
            None => "database".into(),
        },
        StoreKind::File => {
            let sync = match s.file_store_sync {
                None => "always".to_string(),
                Some(u64::MAX) => "never".to_string(),
                Some(ms) => format!("every {ms} ms"),
            };
            let dir = s
                .file_store_path
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            if s.engine_journal {
                format!("the engine journal {dir}/engine.journal, shared by the engine's sessions (FileStoreSync {sync})")
            } else {
                format!("file in {dir} (FileStoreSync {sync})")
            }
        }
    }
}

fn dictionary(s: &SessionSettings) -> String {
    match fix::dictionary_files(s) {
        Ok(None) => "none (UseDataDictionary=N)".into(),
        Ok(Some(files)) => {
            let app = files
                .app
                .as_ref()
                .map(|(p, _)| p.display().to_string())
                .unwrap_or_default();
            let Some((transport, _)) = &files.transport else {
                return app;
            };
            let mut text = format!("transport {}", transport.display());
            if !app.is_empty() {
                text += &format!(
                    ", application {app} (DefaultApplVerID {})",
                    s.default_appl_ver_id.as_deref().unwrap_or("?")
                );
            }
            for v in &files.versions {
                text += &format!(", {} {}", v.key, v.path.display());
            }
            text
        }
        // preflight reported it; a summary is only printed without errors.
        Err(e) => e.to_string(),
    }
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

fn day(d: u8) -> &'static str {
    DAYS.get(usize::from(d)).copied().unwrap_or("?")
}

fn time(t: TimeOfDay) -> String {
    format!("{:02}:{:02}:{:02}", t.0 / 3600, t.0 / 60 % 60, t.0 % 60)
}

fn schedule(s: &SessionSettings) -> String {
    let zone = s.time_zone.iana_name().unwrap_or("local time");
    let (Some(start), Some(end)) = (s.start_time, s.end_time) else {
        return "always (no StartTime/EndTime)".into();
    };
    let mut text = match (s.start_day, s.end_day, s.weekdays) {
        (Some(a), Some(b), _) => format!(
            "weekly, {} {} to {} {} {zone}",
            day(a),
            time(start),
            day(b),
            time(end)
        ),
        (_, _, Some(mask)) => {
            let days: Vec<&str> = (0..7u8).filter(|d| mask & (1 << d) != 0).map(day).collect();
            format!(
                "daily {} to {} {zone}, on {}",
                time(start),
                time(end),
                days.join(",")
            )
        }
        _ => format!("daily {} to {} {zone}", time(start), time(end)),
    };
    if let Some((on, off)) = s.logon_time {
        let _ = write!(text, "; logons {} to {}", time(on), time(off));
        if let Some((a, b)) = s.logon_days {
            let _ = write!(text, " ({} to {})", day(a), day(b));
        }
    }
    if let Some(t) = s.reset_seq_time {
        let _ = write!(text, "; sequence numbers reset daily at {}", time(t));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_the_engine_journal() {
        let text = "[DEFAULT]\nSenderCompID=ISLD\nUseDataDictionary=N\nFileStorePath=store\n\
                    EngineJournal=Y\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=TW\n\
                    SocketAcceptPort=9876\n";
        let settings = Settings::parse(text, "/etc/fix/gw.cfg".as_ref()).unwrap();
        let out = summary(&settings, None);
        assert!(
            out.contains("  store:       the engine journal /etc/fix/store/engine.journal, shared by the engine's sessions (FileStoreSync always)\n"),
            "{out}"
        );
    }

    #[test]
    fn summary_says_what_each_session_is() {
        let text = "[DEFAULT]\nSenderCompID=ISLD\nUseDataDictionary=N\n\
                    [SESSION]\nBeginString=FIX.4.4\nTargetCompID=TW\nSocketAcceptPort=9876\n\
                    FileStorePath=store\nStartTime=08:00:00\nEndTime=17:00:00\nStartDay=Mon\n\
                    EndDay=Fri\nTimeZone=Europe/London\n\
                    [SESSION]\nBeginString=FIX.4.2\nTargetCompID=B\nConnectionType=initiator\n\
                    SocketConnectHost=a\nSocketConnectPort=1\nSocketConnectHost1=b\n\
                    SocketConnectPort1=2\nStartTime=00:00:00\nEndTime=00:00:00\n";
        let settings = Settings::parse(text, "/etc/fix/v.cfg".as_ref()).unwrap();
        let out = summary(&settings, None);
        assert!(out.starts_with("/etc/fix/v.cfg: OK, 2 sessions\n"), "{out}");
        assert!(out.contains("\nFIX.4.4:ISLD->TW (line 4)\n"), "{out}");
        assert!(
            out.contains("  connection:  acceptor on 0.0.0.0:9876\n"),
            "{out}"
        );
        // The default file store: the engine journal (EngineJournal=Y).
        assert!(
            out.contains("  store:       the engine journal /etc/fix/store/engine.journal, shared by the engine's sessions (FileStoreSync always)\n"),
            "{out}"
        );
        assert!(
            out.contains("  schedule:    weekly, Mon 08:00:00 to Fri 17:00:00 Europe/London\n"),
            "{out}"
        );
        assert!(
            out.contains("  connection:  initiator to a:1, then b:2 (ReconnectInterval 30 s)\n"),
            "{out}"
        );
        assert!(
            out.contains("  schedule:    daily 00:00:00 to 00:00:00 UTC\n"),
            "{out}"
        );
        assert!(
            out.contains("  dictionary:  none (UseDataDictionary=N)\n"),
            "{out}"
        );
        // --store memory changes what the summary says.
        assert!(!summary(&settings, Some(StoreKind::Memory)).contains("file in"));
    }
}

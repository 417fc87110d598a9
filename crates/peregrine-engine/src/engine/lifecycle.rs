//! Sessions come and go: added at start-up or while the engine runs,
//! created from acceptor templates by a Logon, removed on request.

use std::io;
use std::sync::Arc;

use mio::Interest;

use crate::command::{AddSessionError, CommandError};
use crate::config::{ConnectionType, SessionSettings};
use crate::driver::{now_nanos, Nanos, SessionDriver};
use crate::log::{Escaped, LogWriter, RateLimit};
use crate::metrics::SessionMetrics;
use crate::sender::SessionRef;

use super::ids::{ListenerKey, SessionKey};
use super::listener::{listen, Listener};
use super::session::HostedSession;
use super::{Engine, SessionFactory, SEC};

impl<D: SessionDriver> Engine<D> {
    /// Adds a session. An acceptor session shares the listener of any earlier
    /// session with the same `SocketAcceptPort` (port 0: one ephemeral port
    /// for all such sessions, see [`listener_addrs`](Self::listener_addrs));
    /// an initiator session connects on the next turn. A template
    /// (`AcceptorTemplate=Y`) is kept, not added: a Logon that fits it creates
    /// a session through the [session factory](Self::set_session_factory).
    ///
    /// # Errors
    ///
    /// The session's log cannot be written (`FileLogPath`), or its listener
    /// cannot be opened.
    pub fn add_session(&mut self, settings: &SessionSettings, driver: D) -> io::Result<()> {
        if settings.acceptor_template {
            return self.add_template(settings);
        }
        let reference = self.sessions.reserve();
        self.add(settings, driver, reference).map(|_| ())
    }

    /// The [`SessionRef`] the next session added will have (for the builder,
    /// which tells an application its session's reference as it makes it);
    /// [`add_reserved`](Self::add_reserved) adds that session.
    pub(crate) fn reserve_session_ref(&mut self) -> SessionRef {
        self.sessions.reserve()
    }

    /// The table of sessions the callbacks see (for the builder, which
    /// registers each session's store in it as it makes the session).
    pub(crate) fn peers(&self) -> Arc<super::EnginePeers> {
        self.peers.clone()
    }

    /// [`add_session`](Self::add_session) for a session whose reference was
    /// [reserved](Self::reserve_session_ref) just before (no session was
    /// added since), not a template.
    pub(crate) fn add_reserved(
        &mut self,
        settings: &SessionSettings,
        driver: D,
        reference: SessionRef,
    ) -> io::Result<()> {
        debug_assert!(!settings.acceptor_template);
        self.add(settings, driver, reference).map(|_| ())
    }

    /// Keeps an acceptor template (`AcceptorTemplate=Y`): a Logon that fits
    /// it creates a session through the [session
    /// factory](Self::set_session_factory).
    ///
    /// # Errors
    ///
    /// Its listener cannot be opened.
    pub fn add_template(&mut self, settings: &SessionSettings) -> io::Result<()> {
        let listener = self.listener_for(settings)?;
        self.templates.push((settings.clone(), listener));
        tracing::info!("acceptor template {}", settings.session_name());
        Ok(())
    }

    /// Makes the drivers of sessions added while the engine runs: from a
    /// template, or by [`Command::AddSession`](crate::Command::AddSession).
    /// It is given the session's settings and the [`SessionRef`] the session
    /// will have. [`EngineBuilder`](crate::EngineBuilder) sets one.
    pub fn set_session_factory(&mut self, factory: SessionFactory<D>) {
        self.factory = Some(factory);
    }

    /// Adds the session as `reference`, which the sessions' `reserve` gave
    /// just before.
    pub(super) fn add(
        &mut self,
        settings: &SessionSettings,
        driver: D,
        reference: SessionRef,
    ) -> io::Result<SessionKey> {
        let added = self.add_session_parts(settings, driver, reference);
        if added.is_err() {
            // The builder registered its store for the callbacks to read:
            // unregistered, the store closes with the driver (a journal view
            // goes back to its journal, so the session can be added again).
            self.peers.remove_store(reference);
        }
        added
    }

    /// [`add`](Self::add), which unregisters the store when this fails.
    fn add_session_parts(
        &mut self,
        settings: &SessionSettings,
        driver: D,
        reference: SessionRef,
    ) -> io::Result<SessionKey> {
        let name = settings.session_name();
        let dir = settings
            .file_log_path
            .as_deref()
            .filter(|_| self.options.message_logs);
        let log = match (dir, settings.screen_log) {
            (None, None) => None,
            (dir, screen) => {
                let writer = match &self.log_writer {
                    Some(w) => w.clone(),
                    None => self.log_writer.insert(LogWriter::start()?).clone(),
                };
                let mut log = writer.open(dir, &name, screen).map_err(|e| {
                    let dir = dir.map_or_else(String::new, |d| d.display().to_string());
                    let why = settings.error(
                        "FileLogPath",
                        format!("cannot write the logs in {dir}: {e}"),
                    );
                    io::Error::new(e.kind(), why.to_string())
                })?;
                log.set_max_message_size(settings.max_message_size);
                Some(log)
            }
        };
        let listener = match settings.connection_type {
            ConnectionType::Acceptor => Some(self.listener_for(settings)?),
            ConnectionType::Initiator => None,
        };
        let tls = match (&settings.tls, settings.connection_type) {
            (Some(_), ConnectionType::Initiator) => {
                Some(crate::tls::client_config(settings).map_err(config_error)?)
            }
            _ => None,
        };
        let next_store_sync = driver.store_sync_interval().map(|i| now_nanos() + i);
        let mut driver = driver;
        let counters = driver.counters().cloned().unwrap_or_default();
        // Its callbacks see the engine's sessions, and they see it (forward.rs).
        self.peers.add(
            reference,
            &name,
            driver.counters().cloned(),
            // What it is sent while logged out is kept for its next Logon
            // only when it queues, stores, and does not reset at that Logon.
            settings.queue_while_logged_out
                && settings.persist_messages
                && !settings.reset_on_logon
                && !settings.reset_on_disconnect,
        );
        driver.set_peers(self.peers.clone());
        let metrics = Arc::new(
            SessionMetrics::new(name.clone(), counters)
                .with_schedule(crate::fix::schedule(settings)),
        );
        driver.set_store_observer(metrics.clone());
        self.metrics_stale = true;
        let mut session = HostedSession {
            name,
            unqualified_name: format!(
                "{}:{}->{}",
                settings.begin_string, settings.sender_comp_id, settings.target_comp_id
            ),
            has_qualifier: settings.session_qualifier.is_some(),
            settings: settings.clone(),
            driver,
            connection: None,
            log,
            slow: false,
            next_connect: 0,
            next_address: 0,
            logged_on_here: false,
            listener,
            next_store_sync,
            generation: 0,
            send_failures: 0,
            send_pending: false,
            held_sends: 0,
            hold_pass: 0,
            removing: false,
            template: None,
            enabled: true,
            reset_pending: None,
            lines: RateLimit::new(now_nanos()),
            tls,
            metrics,
            status: Default::default(),
            schedule: crate::fix::schedule(settings),
            schedule_check: None,
        };
        let now = now_nanos();
        session.event("session created", now);
        session.log_schedule(now);
        let key = self.sessions.push(session, reference);
        if listener.is_some() {
            self.routes.entry(route_of(settings)).or_default().push(key);
        }
        Ok(key)
    }

    /// The listener for an acceptor's `SocketAcceptPort`: an earlier
    /// session's, or a new one.
    fn listener_for(&mut self, settings: &SessionSettings) -> io::Result<ListenerKey> {
        let port = settings.socket_accept_port.unwrap_or(0);
        if let Some(i) = self
            .listeners
            .iter()
            .position(|l| l.configured_port == port)
        {
            let first = &self.listeners[i].settings;
            if let Some(e) = crate::preflight::listener_conflict(first, settings) {
                return Err(config_error(e));
            }
            return Ok(ListenerKey(i));
        }
        let tls = match settings.tls {
            Some(_) => Some(crate::tls::server_config(settings).map_err(config_error)?),
            None => None,
        };
        let addr = settings.accept_address()?;
        let mut socket = listen(addr)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}")))?;
        let key = ListenerKey(self.listeners.len());
        self.poll
            .registry()
            .register(&mut socket, key.token(), Interest::READABLE)?;
        let local = socket.local_addr()?;
        tracing::info!("listening on {local}");
        self.listeners.push(Listener {
            socket,
            configured_port: port,
            local,
            logon_timeout: Nanos::from(settings.logon_timeout.max(1)) * SEC,
            max_logon: settings.max_logon_message_size,
            settings: settings.clone(),
            tls,
            retry_at: None,
            shed: 0,
            shed_logged_at: 0,
        });
        Ok(key)
    }

    /// A session for a Logon no configured session takes, from a template on
    /// `listener` that fits its CompIDs (ours first), if there is one
    /// (`Ok(None)`: none fits). `Err`: the template that fits holds its
    /// `MaxTemplateSessions` already, and why the Logon is refused.
    pub(super) fn session_from_template(
        &mut self,
        listener: ListenerKey,
        begin_string: &str,
        sender: &str,
        target: &str,
    ) -> Result<Option<SessionKey>, String> {
        let Some((index, template)) = self
            .templates
            .iter()
            .enumerate()
            .find(|(_, (t, l))| *l == listener && t.template_fits(begin_string, sender, target))
            .map(|(i, (t, _))| (i, t))
        else {
            return Ok(None);
        };
        let made = self
            .sessions
            .iter()
            .filter(|s| s.template == Some(index))
            .count();
        if made >= template.max_template_sessions {
            // The CompIDs come from the wire: escaped.
            return Err(format!(
                "acceptor template {} holds its MaxTemplateSessions={} sessions: no session \
                 made for {}->{}",
                template.session_name(),
                template.max_template_sessions,
                Escaped(sender.as_bytes()),
                Escaped(target.as_bytes()),
            ));
        }
        let settings = template.for_comp_ids(sender, target);
        match self.create(&settings) {
            Ok(key) => {
                self.sessions[key].template = Some(index);
                self.sessions[key].event("created from an acceptor template", now_nanos());
                Ok(Some(key))
            }
            Err(e) => {
                tracing::warn!(
                    "cannot create {} from its template: {e}",
                    settings.session_name()
                );
                Ok(None)
            }
        }
    }

    /// Makes the sessions named in `names` (`FIX.4.4:GW->C1`) that no
    /// configured session is and an acceptor template fits (sessions a
    /// template made before a restart, which their store holds), so that
    /// forwards to them are kept while their counterparty is away. Names no
    /// template fits are left alone.
    pub fn restore_template_sessions(&mut self, names: &[String]) {
        for name in names {
            if self.find_session(name).is_ok() {
                continue;
            }
            let Some((begin, rest)) = name.split_once(':') else {
                continue;
            };
            let Some((sender, target)) = rest.split_once("->") else {
                continue;
            };
            if target.contains(':') {
                continue; // a qualifier: templates make none
            }
            // Made again whatever the bound: they exist in the store; they
            // count against it for new ones.
            let found = self
                .templates
                .iter()
                .enumerate()
                .find(|(_, (t, _))| t.template_fits(begin, sender, target))
                .map(|(i, (t, _))| (i, t.for_comp_ids(sender, target)));
            if let Some((index, settings)) = found {
                match self.create(&settings) {
                    Ok(key) => {
                        self.sessions[key].template = Some(index);
                        self.sessions[key].event(
                            "made again from its acceptor template (its store holds it)",
                            now_nanos(),
                        )
                    }
                    Err(e) => tracing::warn!("cannot make {name} from its template again: {e}"),
                }
            }
        }
    }

    /// A session made by the factory, added.
    pub(super) fn create(
        &mut self,
        settings: &SessionSettings,
    ) -> Result<SessionKey, AddSessionError> {
        let Some(factory) = self.factory.as_mut() else {
            return Err(AddSessionError::NoFactory);
        };
        let reference = self.sessions.reserve();
        let driver = factory(settings, reference).map_err(AddSessionError::Settings)?;
        self.add(settings, driver, reference)
            .map_err(AddSessionError::Io)
    }

    /// Adds a session while the engine runs (through the factory).
    pub(super) fn add_at_run_time(
        &mut self,
        settings: &SessionSettings,
    ) -> Result<SessionKey, CommandError> {
        let name = settings.session_name();
        if self.find_session(&name).is_ok() {
            return Err(CommandError::SessionExists { name });
        }
        if settings.acceptor_template {
            return Err(CommandError::CannotAdd {
                name,
                why: AddSessionError::Template,
            });
        }
        self.create(settings)
            .map_err(|why| CommandError::CannotAdd { name, why })
    }

    /// Removes a session: a logged-on one first logs out (the removal ends
    /// once it is disconnected, or its LogoutTimeout passed); an initiator
    /// stops connecting. Whether it is gone already.
    pub(super) fn remove_session(&mut self, key: SessionKey) -> bool {
        let now = now_nanos();
        let s = &mut self.sessions[key];
        s.removing = true;
        if s.connection.is_some() && s.driver.is_logged_on() {
            s.event("removed: logging out", now);
            s.driver.logout(now, Some("session removed"));
            self.service(key, now);
            if self.sessions.contains(key) && self.sessions[key].connection.is_some() {
                return false;
            }
        }
        self.finish_removal(key, now);
        true
    }

    /// Removes the sessions whose removal waited for their logout.
    pub(super) fn finish_removals(&mut self, now: Nanos) {
        for key in self.sessions.key_space() {
            if self.sessions.contains(key)
                && self.sessions[key].removing
                && self.sessions[key].connection.is_none()
            {
                self.finish_removal(key, now);
            }
        }
    }

    fn finish_removal(&mut self, key: SessionKey, now: Nanos) {
        if let Some(connection) = self.sessions[key].connection {
            self.close_connection(connection, "session removed", now);
        }
        let reference = self.sessions.reference(key);
        let Some(mut s) = self.sessions.remove(key) else {
            return;
        };
        self.peers.remove(reference, &s.name);
        self.metrics_stale = true;
        s.event("session removed", now);
        self.flush_logs();
        if let Some(keys) = self.routes.get_mut(&route_of(&s.settings)) {
            keys.retain(|&k| k != key);
        }
    }
}

/// Where a Logon for an acceptor session is routed: (BeginString, our
/// SenderCompID, our TargetCompID).
fn route_of(s: &SessionSettings) -> (String, String, String) {
    (
        s.begin_string.clone(),
        s.sender_comp_id.clone(),
        s.target_comp_id.clone(),
    )
}

/// A settings error found while adding a session (a TLS file that does not read):
/// `add_session`'s `io::Error`, saying file, line and key.
fn config_error(e: crate::config::ConfigError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e.to_string())
}

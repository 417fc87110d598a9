//! Applications the engine provides: [`LogApp`], which logs what it is told,
//! and [`DynApp`], any application boxed.

use peregrine_codec::MessageView;
use peregrine_session::{
    AdminMessage, AppEvent, AppReject, Application, DoNotSend, LogoutReason, Outbox,
    OutgoingMessage, SessionId,
};

/// An application that logs what it receives and what happens to the session
/// (with `tracing`: logon, logout with why, connection and session events) and
/// sends nothing: the default for `peregrine initiator`.
///
/// ```
/// use peregrine_engine::fix::{FixSession, LogApp};
/// use peregrine_session::{Role, Session, SessionConfig, SessionId};
/// use peregrine_store::MemoryStore;
///
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "TW", "ISLD"), Role::Initiator);
/// let session = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
/// # let _ = session;
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct LogApp;

impl Application for LogApp {
    fn on_logon(&mut self, id: &SessionId, _out: &mut Outbox<'_>) {
        tracing::info!(session = %id, "logon");
    }
    fn on_logout(&mut self, id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        tracing::info!(session = %id, "logout: {reason}");
    }
    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        // Display escapes the peer's text.
        tracing::info!(session = %id, "{event}");
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        tracing::info!(
            session = %id,
            "received {}",
            crate::log::Escaped(msg.as_bytes())
        );
        Ok(())
    }
}

/// A boxed application, usable as an [`Application`].
pub struct DynApp(pub Box<dyn Application + Send>);

impl std::fmt::Debug for DynApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DynApp")
    }
}

impl Application for DynApp {
    fn on_create(&mut self, id: &SessionId) {
        self.0.on_create(id)
    }
    fn on_logon(&mut self, id: &SessionId, out: &mut Outbox<'_>) {
        self.0.on_logon(id, out)
    }
    fn on_logout(&mut self, id: &SessionId, reason: &LogoutReason<'_>, out: &mut Outbox<'_>) {
        self.0.on_logout(id, reason, out)
    }
    fn to_admin(&mut self, msg: &mut AdminMessage<'_>, id: &SessionId) {
        self.0.to_admin(msg, id)
    }
    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, id: &SessionId) -> Result<(), DoNotSend> {
        self.0.to_app(msg, id)
    }
    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, out: &mut Outbox<'_>) {
        self.0.on_event(id, event, out)
    }
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), peregrine_session::RejectLogon> {
        self.0.from_admin(msg, id, out)
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.from_app(msg, id, out)
    }
}

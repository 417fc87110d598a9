//! One application value for every session of an engine.

use std::sync::{Arc, Mutex, MutexGuard};

use peregrine_codec::MessageView;

use super::{
    AdminMessage, AppReject, Application, DoNotSend, Outbox, OutgoingMessage, RejectLogon,
};
use crate::config::SessionId;
use crate::session::{AppEvent, LogoutReason};

/// One application serving every session of an engine: each session's
/// callbacks reach the same value, as `&mut A`, with the [`SessionId`] (and
/// [`Outbox::session_id`]) telling the sessions apart. A router keeps one map
/// of orders for all its clients and venues, template-made sessions
/// included, and writes no locking of its own.
///
/// The engine runs every callback on its thread, one at a time, so the lock
/// inside is never contended there: one uncontended lock and unlock per
/// callback (tens of nanoseconds). Another thread may [`lock`](Self::lock) it
/// to read the application's state; the engine then waits for it, so hold it
/// briefly.
///
/// Two ways to deadlock, both the same mutex taken twice:
/// - Inside a callback, calling [`lock`](Self::lock) on a clone: the engine
///   holds the lock for that callback already (a `std::sync::Mutex` is not
///   reentrant). The callback has `&mut A`; use that.
/// - On another thread, waiting for the engine while holding the guard
///   (`RunningEngine::sessions`, `stop`, a `Sender` send that blocks on a full
///   queue): the engine may be waiting for the same lock to run a callback,
///   and never answers. Take what you need, drop the guard, then wait.
///
/// ```
/// use std::collections::HashMap;
/// use peregrine_codec::MessageView;
/// use peregrine_session::{AppReject, Application, Outbox, SessionId, SharedApp};
///
/// /// Counts orders per client, for every client session of the engine.
/// #[derive(Default)]
/// struct Desk { orders: HashMap<String, u64> }
/// impl Application for Desk {
///     fn from_app(&mut self, _m: &MessageView<'_>, id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         *self.orders.entry(id.target_comp_id.clone()).or_default() += 1;
///         Ok(())
///     }
/// }
///
/// let desk = SharedApp::new(Desk::default());
/// // Each session's application is a clone: one Desk behind them all
/// // (with an engine: `let app = desk.clone(); builder.start(move |_| app.clone())`).
/// let (a, b) = (desk.clone(), desk.clone());
/// assert!(desk.lock().orders.is_empty());
/// # drop((a, b));
/// ```
pub struct SharedApp<A>(Arc<Mutex<A>>);

impl<A> SharedApp<A> {
    /// Shares `app`.
    pub fn new(app: A) -> Self {
        SharedApp(Arc::new(Mutex::new(app)))
    }

    /// The application, for as long as the guard lives. A callback that
    /// panicked while holding it leaves it as it was (the panic is not the
    /// state's).
    pub fn lock(&self) -> MutexGuard<'_, A> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<A> Clone for SharedApp<A> {
    fn clone(&self) -> Self {
        SharedApp(self.0.clone())
    }
}

impl<A> std::fmt::Debug for SharedApp<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedApp")
    }
}

// QuickFIX's callback names are part of the contract.
#[allow(clippy::wrong_self_convention)]
impl<A: Application> Application for SharedApp<A> {
    fn on_create(&mut self, id: &SessionId) {
        self.lock().on_create(id)
    }
    fn on_logon(&mut self, id: &SessionId, out: &mut Outbox<'_>) {
        self.lock().on_logon(id, out)
    }
    fn on_logout(&mut self, id: &SessionId, reason: &LogoutReason<'_>, out: &mut Outbox<'_>) {
        self.lock().on_logout(id, reason, out)
    }
    fn to_admin(&mut self, msg: &mut AdminMessage<'_>, id: &SessionId) {
        self.lock().to_admin(msg, id)
    }
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), RejectLogon> {
        self.lock().from_admin(msg, id, out)
    }
    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, id: &SessionId) -> Result<(), DoNotSend> {
        self.lock().to_app(msg, id)
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.lock().from_app(msg, id, out)
    }
    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, out: &mut Outbox<'_>) {
        self.lock().on_event(id, event, out)
    }
}

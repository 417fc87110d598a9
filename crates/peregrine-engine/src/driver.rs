//! What the engine needs from a session: the sans-IO state machine of
//! `peregrine-session` together with its application, seen through one trait
//! so the engine can own many of them and tests can drive it with stand-ins.

use std::sync::Arc;

use peregrine_session::metrics::SessionCounters;
use peregrine_session::{DisconnectReason, Forward, Peers, SendError, SendRefusal, SessionRef};
use peregrine_store::{StoreError, StoreObserver};

/// Nanoseconds since the Unix epoch, UTC (the session crate's `Nanos`).
pub type Nanos = i64;

/// What a session tells the engine after it handled input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverEvent {
    /// The session is logged on.
    LoggedOn,
    /// The session logged out.
    LoggedOut,
    /// The engine must flush what is pending, close the connection and call
    /// [`SessionDriver::on_disconnected`], for this reason.
    Disconnect(DisconnectReason),
    /// Something the operator must see (store failure, lost data): always
    /// logged, at warning level.
    Warning(String),
    /// Anything else worth a line in the event log (within the session's line
    /// limit: a peer can cause these at will).
    Info(String),
}

/// What the operator sees of a session and may set: its state, sequence
/// numbers and counters (`/sessions`, the metrics, the console) and the
/// operator's commands on them ([`Command`](crate::Command)s: sequence
/// numbers, reset, TestRequest). Every [`SessionDriver`] is one; of these a
/// second implementation must write [`state_name`](Self::state_name) and the
/// sequence numbers, the rest have defaults.
pub trait SessionView {
    /// Sends a TestRequest now (an operator's,
    /// [`Command::TestRequest`](crate::Command::TestRequest)) when logged on;
    /// whether it was sent. By default none is.
    fn send_test_request(&mut self, now: Nanos) -> bool {
        let _ = now;
        false
    }
    /// A short name of the state, for `/sessions` (e.g. `LoggedOn`).
    fn state_name(&self) -> String;
    /// The next outgoing sequence number.
    fn next_sender_seq(&self) -> u64;
    /// The next expected incoming sequence number.
    fn next_target_seq(&self) -> u64;
    /// Operator override of the next outgoing sequence number.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when `seq` is 0 or `u64::MAX` (the number
    /// stays as it was), or the store's error when it cannot commit the new
    /// number ([`StoreError::Io`] from a file store).
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError>;
    /// Operator override of the next expected incoming sequence number.
    ///
    /// # Errors
    ///
    /// As [`set_next_sender_seq`](Self::set_next_sender_seq).
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError>;
    /// Resets sequence numbers to 1 and forgets stored messages (an operator's
    /// [`Command::ResetSeqNums`](crate::Command::ResetSeqNums)); the engine
    /// calls it while disconnected. By default both numbers are set to 1.
    ///
    /// # Errors
    ///
    /// The store could not reset.
    fn reset_seq_nums(&mut self, now: Nanos) -> Result<(), StoreError> {
        let _ = now;
        self.set_next_sender_seq(1)?;
        self.set_next_target_seq(1)
    }
    /// Messages the store found lost when it opened (see
    /// `peregrine_store::Recovery`), for `/sessions`.
    fn store_lost_messages(&self) -> u64 {
        0
    }
    /// The session's counters, for [`metrics`](crate::metrics) (`None`, the
    /// default: a driver without them shows zeros there).
    fn counters(&self) -> Option<&Arc<SessionCounters>> {
        None
    }
}

/// One FIX session as the engine drives it (a session state machine plus the
/// application behind it). Every method is non-blocking; time is passed in.
///
/// The engine calls [`on_connected`](Self::on_connected) when a connection is
/// bound to the session, [`on_bytes`](Self::on_bytes) with what it reads (all of
/// one turn's reads, then once [`commit`](Self::commit)),
/// [`on_timer`](Self::on_timer) when [`next_deadline`](Self::next_deadline)
/// has passed, commits, writes [`outbound`](Self::outbound) and reports what
/// was written with [`consume_outbound`](Self::consume_outbound), and drains
/// [`poll_event`](Self::poll_event) after each of these.
///
/// A second implementation writes the methods here without a default (the
/// connection, bytes, timers, commit, outbound bytes, sends, events, logout,
/// whether logged on) and those of [`SessionView`] without one (its state
/// name and sequence numbers). The rest are optional hooks whose defaults do
/// nothing: the store's durability ([`on_shutdown`](Self::on_shutdown),
/// [`store_sync_interval`](Self::store_sync_interval),
/// [`sync_store_if_due`](Self::sync_store_if_due),
/// [`set_store_observer`](Self::set_store_observer)) and messages the
/// session's callbacks send on other sessions ([`set_peers`](Self::set_peers),
/// [`has_forwards`](Self::has_forwards), [`take_forwards`](Self::take_forwards),
/// [`send_forward`](Self::send_forward), [`forward_refused`](Self::forward_refused)).
pub trait SessionDriver: SessionView {
    /// A transport connection is up (an initiator queues its Logon).
    fn on_connected(&mut self, now: Nanos);
    /// Bytes from the peer.
    fn on_bytes(&mut self, data: &[u8], now: Nanos);
    /// Timers (heartbeats, test requests, logon/logout timeouts).
    fn on_timer(&mut self, now: Nanos);
    /// When `on_timer` must next be called.
    fn next_deadline(&self) -> Option<Nanos>;
    /// The connection is gone.
    fn on_disconnected(&mut self, now: Nanos);
    /// The connection is gone and the engine knows why (the counterparty closed
    /// it, a read or write failed, a slow consumer was cut, the engine closed
    /// it). By default, [`on_disconnected`](Self::on_disconnected).
    fn on_connection_lost(&mut self, now: Nanos, reason: DisconnectReason) {
        let _ = reason;
        self.on_disconnected(now);
    }
    /// Makes durable what the session stored while handling input (its store's
    /// commit) and releases what it queued to [`outbound`](Self::outbound). The
    /// engine calls it once per batch of input, before writing.
    fn commit(&mut self);
    /// What the last [`commit`](Self::commit) left for later because no
    /// message waits for it (the file store's witness). The engine calls it
    /// once per batch of input, after writing what the commit released; the
    /// default does nothing.
    fn settle(&mut self) {}
    /// Bytes that may be written (everything queued up to the last commit).
    fn outbound(&self) -> &[u8];
    /// `n` bytes of [`outbound`](Self::outbound) were written.
    fn consume_outbound(&mut self, n: usize);
    /// Bytes queued since the last [`commit`](Self::commit) (not yet in
    /// [`outbound`](Self::outbound)). The engine holds messages from
    /// [`Sender`](crate::Sender)s once `outbound` and these together reach
    /// [`SEND_HOLD_BYTES`](crate::sender::SEND_HOLD_BYTES); a driver that
    /// says 0 (the default) is held only once they are committed.
    fn uncommitted_len(&self) -> usize {
        0
    }
    /// Sends an application message whose body (the fields after MsgType)
    /// is already encoded: what a [`Sender`](crate::Sender) queued. Returns
    /// its MsgSeqNum.
    ///
    /// # Errors
    ///
    /// The session refused it (not logged on, and configured to refuse) or
    /// its store failed.
    fn send_body(&mut self, now: Nanos, msg_type: &[u8], body: &[u8]) -> Result<u64, SendError>;
    /// The next event, if any.
    fn poll_event(&mut self) -> Option<DriverEvent>;
    /// Starts a logout (graceful shutdown).
    fn logout(&mut self, now: Nanos, text: Option<&str>);
    /// Whether the session is logged on.
    fn is_logged_on(&self) -> bool;
    /// The engine is stopping: make state durable (e.g. fsync the store).
    ///
    /// # Errors
    ///
    /// The store could not commit or fsync ([`StoreError::Io`] from a file
    /// store); the engine reports it in the session's event log and carries
    /// on shutting down. The default never fails.
    fn on_shutdown(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
    /// How often the engine should call [`sync_store_if_due`](Self::sync_store_if_due)
    /// (`None`: never), for a store that fsyncs every N milliseconds.
    fn store_sync_interval(&self) -> Option<Nanos> {
        None
    }
    /// Fsyncs the store if its time-based policy says it is due; whether it did.
    ///
    /// # Errors
    ///
    /// The fsync failed ([`StoreError::Io`] from a file store). The default
    /// never fails.
    fn sync_store_if_due(&mut self) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// Has the session's store tell `observer` how long its writes and fsyncs
    /// take (the engine's metrics call it once, when the session is added).
    /// By default nothing is told.
    fn set_store_observer(&mut self, observer: Arc<dyn StoreObserver>) {
        let _ = observer;
    }
    /// Gives the session its engine's other sessions, for its callbacks'
    /// [`Outbox::send_to`](peregrine_session::Outbox::send_to) (the engine
    /// calls it once, when the session is added). By default nothing.
    fn set_peers(&mut self, peers: Arc<dyn Peers>) {
        let _ = peers;
    }
    /// Whether messages its callbacks sent on other sessions wait for
    /// [`take_forwards`](Self::take_forwards) (default: never).
    fn has_forwards(&self) -> bool {
        false
    }
    /// Hands each message its callbacks sent on other sessions to `f`, in the
    /// order sent, and forgets them. The engine calls it after each call that
    /// may have run a callback, and gives each to its destination
    /// ([`send_forward`](Self::send_forward)) in the same turn.
    fn take_forwards(&mut self, f: &mut dyn FnMut(Forward<'_>)) {
        let _ = f;
    }
    /// Sends what another session's callback sent this one: an application
    /// message whose body is encoded, with extra header fields, through the
    /// application's `to_app`. Returns its MsgSeqNum. By default as
    /// [`send_body`](Self::send_body), refusing extra header fields.
    ///
    /// # Errors
    ///
    /// As [`send_body`](Self::send_body); with extra header fields and no
    /// implementation, [`SendError::TooManyHeaderFields`].
    fn send_forward(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &[u8],
    ) -> Result<u64, SendError> {
        if !header.is_empty() {
            return Err(SendError::TooManyHeaderFields {
                given: header.len(),
                max: 0,
            });
        }
        self.send_body(now, msg_type, body)
    }
    /// A message this session's callback sent on session `to` was refused
    /// there, when it was handed over: the application hears it
    /// (`AppEvent::CallbackSendRefused`). By default nothing.
    fn forward_refused(&mut self, to: SessionRef, msg_type: &[u8], reason: SendRefusal) {
        let _ = (to, msg_type, reason);
    }
}

impl<T: SessionView + ?Sized> SessionView for Box<T> {
    fn send_test_request(&mut self, now: Nanos) -> bool {
        (**self).send_test_request(now)
    }
    fn state_name(&self) -> String {
        (**self).state_name()
    }
    fn next_sender_seq(&self) -> u64 {
        (**self).next_sender_seq()
    }
    fn next_target_seq(&self) -> u64 {
        (**self).next_target_seq()
    }
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        (**self).set_next_sender_seq(seq)
    }
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        (**self).set_next_target_seq(seq)
    }
    fn reset_seq_nums(&mut self, now: Nanos) -> Result<(), StoreError> {
        (**self).reset_seq_nums(now)
    }
    fn store_lost_messages(&self) -> u64 {
        (**self).store_lost_messages()
    }
    fn counters(&self) -> Option<&Arc<SessionCounters>> {
        (**self).counters()
    }
}

impl<T: SessionDriver + ?Sized> SessionDriver for Box<T> {
    fn on_connected(&mut self, now: Nanos) {
        (**self).on_connected(now)
    }
    fn on_bytes(&mut self, data: &[u8], now: Nanos) {
        (**self).on_bytes(data, now)
    }
    fn on_timer(&mut self, now: Nanos) {
        (**self).on_timer(now)
    }
    fn next_deadline(&self) -> Option<Nanos> {
        (**self).next_deadline()
    }
    fn on_disconnected(&mut self, now: Nanos) {
        (**self).on_disconnected(now)
    }
    fn on_connection_lost(&mut self, now: Nanos, reason: DisconnectReason) {
        (**self).on_connection_lost(now, reason)
    }
    fn commit(&mut self) {
        (**self).commit()
    }
    fn settle(&mut self) {
        (**self).settle()
    }
    fn outbound(&self) -> &[u8] {
        (**self).outbound()
    }
    fn consume_outbound(&mut self, n: usize) {
        (**self).consume_outbound(n)
    }
    fn uncommitted_len(&self) -> usize {
        (**self).uncommitted_len()
    }
    fn send_body(&mut self, now: Nanos, msg_type: &[u8], body: &[u8]) -> Result<u64, SendError> {
        (**self).send_body(now, msg_type, body)
    }
    fn poll_event(&mut self) -> Option<DriverEvent> {
        (**self).poll_event()
    }
    fn logout(&mut self, now: Nanos, text: Option<&str>) {
        (**self).logout(now, text)
    }
    fn is_logged_on(&self) -> bool {
        (**self).is_logged_on()
    }
    fn on_shutdown(&mut self) -> Result<(), StoreError> {
        (**self).on_shutdown()
    }
    fn store_sync_interval(&self) -> Option<Nanos> {
        (**self).store_sync_interval()
    }
    fn sync_store_if_due(&mut self) -> Result<bool, StoreError> {
        (**self).sync_store_if_due()
    }
    fn set_peers(&mut self, peers: Arc<dyn Peers>) {
        (**self).set_peers(peers)
    }
    fn has_forwards(&self) -> bool {
        (**self).has_forwards()
    }
    fn take_forwards(&mut self, f: &mut dyn FnMut(Forward<'_>)) {
        (**self).take_forwards(f)
    }
    fn send_forward(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &[u8],
    ) -> Result<u64, SendError> {
        (**self).send_forward(now, msg_type, header, body)
    }
    fn forward_refused(&mut self, to: SessionRef, msg_type: &[u8], reason: SendRefusal) {
        (**self).forward_refused(to, msg_type, reason)
    }
    fn set_store_observer(&mut self, observer: Arc<dyn StoreObserver>) {
        (**self).set_store_observer(observer)
    }
}

/// The current time in [`Nanos`].
pub fn now_nanos() -> Nanos {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as Nanos)
}

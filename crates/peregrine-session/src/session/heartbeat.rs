//! Heartbeats and TestRequests.

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::Nanos;

use super::core::{Core, State};
use super::verify::SeqCheck;
use super::Session;

/// TestReqID(112) of our TestRequests.
pub(super) const TEST_REQ_ID: &[u8] = b"TEST";

impl<S: MessageStore> Core<S> {
    /// A Heartbeat from the peer (the answer to our TestRequest, or its own).
    pub(super) fn on_heartbeat(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if self.verify(msg, SeqCheck::TooHighAndTooLow, app) {
            if msg.get(tag::TEST_REQ_ID) == Some(TEST_REQ_ID) {
                // The answer to our latest TestRequest: its round-trip.
                let now = self.now();
                if let Some(sent) = self.live_mut().and_then(|l| l.test_request_sent.take()) {
                    let rtt = u64::try_from(now.saturating_sub(sent)).unwrap_or(0);
                    self.outgoing.counters.heartbeat_round_trip(rtt);
                }
            }
            let _ = self.app_from_admin(msg, app);
            self.incr_target();
        }
    }

    /// A TestRequest: answered with a Heartbeat carrying its TestReqID(112).
    pub(super) fn on_test_request(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if self.verify(msg, SeqCheck::TooHighAndTooLow, app) {
            let _ = self.app_from_admin(msg, app);
            self.send_heartbeat(msg.get(tag::TEST_REQ_ID), app);
            self.incr_target();
        }
    }

    /// Sends a TestRequest with our TestReqID(112): the peer's Heartbeat
    /// with it is the heartbeat round-trip (the timer's and an operator's;
    /// only the timer's count toward the heartbeat timeout's schedule).
    pub(super) fn send_test_request(&mut self, app: &mut dyn Application) {
        self.send_admin(
            msg_type::TEST_REQUEST,
            &[],
            &mut |m| {
                m.str(tag::TEST_REQ_ID, TEST_REQ_ID);
            },
            app,
        );
        self.outgoing.counters.test_request_sent();
        let now = self.now();
        if let Some(live) = self.live_mut() {
            live.test_request_sent = Some(now);
        }
    }

    pub(super) fn send_heartbeat(&mut self, test_req_id: Option<&[u8]>, app: &mut dyn Application) {
        self.send_admin(
            msg_type::HEARTBEAT,
            &[],
            &mut |m| {
                if let Some(id) = test_req_id {
                    m.str(tag::TEST_REQ_ID, id);
                }
            },
            app,
        );
    }
}

impl<S: MessageStore> Session<S> {
    /// Sends a TestRequest now (an operator's, e.g. from the admin
    /// interface), when logged on; whether it was sent. The peer's Heartbeat
    /// answering it is counted as a heartbeat round-trip, as for the timer's.
    ///
    /// ```
    /// # use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut session = Session::new(cfg, MemoryStore::new(0), 0);
    /// assert!(!session.send_test_request(0, &mut EchoApp::new(None))); // not logged on
    /// assert_eq!(session.counters().test_requests_sent(), 0);
    /// ```
    pub fn send_test_request(&mut self, now: Nanos, app: &mut dyn Application) -> bool {
        self.tick(now);
        if !matches!(self.core.state, State::LoggedOn(_)) {
            return false;
        }
        self.core.send_test_request(app);
        self.core.finish(app);
        self.publish();
        true
    }
}

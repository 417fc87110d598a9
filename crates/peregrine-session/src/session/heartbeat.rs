//! Heartbeats and TestRequests.

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_store::MessageStore;

use crate::app::Application;

use super::core::Core;
use super::verify::SeqCheck;

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

//! Heartbeats and TestRequests.

use peregrine_store::MessageStore;

use super::core::Core;

impl<S: MessageStore> Core<S> {
    pub(super) fn send_heartbeat(&mut self, test_req_id: Option<&[u8]>) {
        self.tx.admin(b"0", &[], &mut |m| {
            if let Some(id) = test_req_id {
                m.str(112, id);
            }
        });
    }
}

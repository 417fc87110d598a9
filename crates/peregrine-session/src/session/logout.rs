//! The Logout handshake.

use peregrine_codec::MessageView;
use peregrine_store::MessageStore;

use super::core::Core;
use super::events::{DisconnectReason, SessionState};

impl<S: MessageStore> Core<S> {
    pub(super) fn send_logout(&mut self, text: Option<&[u8]>) {
        self.tx.admin(b"5", &[], &mut |m| {
            if let Some(t) = text {
                m.str(58, t);
            }
        });
    }

    pub(super) fn initiate_logout(&mut self, text: Option<&[u8]>) {
        self.send_logout(text);
        self.set_state(SessionState::LogoutSent);
    }

    pub(super) fn on_logout(&mut self, msg: &MessageView<'_>) {
        if !self.verify(msg, false, false) {
            return;
        }
        if self.state != SessionState::LogoutSent {
            self.send_logout(None);
        }
        self.incr_target();
        if self.cfg.reset_on_logout {
            self.reset_store();
        }
        self.disconnect(DisconnectReason::Logout);
    }
}

//! The Logout handshake.

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_store::MessageStore;

use super::core::{Core, Live, State};
use super::events::DisconnectReason;
use super::verify::SeqCheck;

impl<S: MessageStore> Core<S> {
    /// A Logout with an optional Text(58).
    pub(super) fn send_logout(&mut self, text: Option<&[u8]>) {
        self.outgoing.admin(msg_type::LOGOUT, &[], &mut |m| {
            if let Some(t) = text {
                m.str(tag::TEXT, t);
            }
        });
    }

    /// Our Logout, from a logged-on session: we wait for the peer's
    /// (LogoutTimeout).
    pub(super) fn initiate_logout(&mut self, text: Option<&[u8]>) {
        self.send_logout(text);
        let now = self.now();
        let live = match std::mem::replace(&mut self.state, State::Disconnected) {
            State::LoggedOn(live) | State::LogoutSent { live, .. } => live,
            // Not reached: only a logged-on session logs out this way.
            _ => Live::new(self.config.heartbeat_interval_secs, now),
        };
        self.state = State::LogoutSent { since: now, live };
    }

    /// The peer's Logout: answered (unless it answers ours), then the end of the
    /// connection.
    pub(super) fn on_logout(&mut self, msg: &MessageView<'_>) {
        if !self.verify(msg, SeqCheck::Neither) {
            return;
        }
        if !matches!(self.state, State::LogoutSent { .. }) {
            self.send_logout(None);
        }
        self.incr_target();
        if self.config.reset_on_logout {
            self.reset_store();
        }
        self.disconnect(DisconnectReason::Logout);
    }
}

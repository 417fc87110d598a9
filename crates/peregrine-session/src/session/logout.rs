//! The Logout handshake.

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_store::MessageStore;

use crate::app::Application;

use super::core::{Core, Live, LogoutSide, State};
use super::events::{AppEvent, DisconnectReason};
use super::outgoing::StackText;
use super::verify::{parse_seq, SeqCheck};

impl<S: MessageStore> Core<S> {
    /// A Logout with an optional Text(58).
    pub(super) fn send_logout(&mut self, text: Option<&[u8]>, app: &mut dyn Application) {
        self.send_admin(
            msg_type::LOGOUT,
            &[],
            &mut |m| {
                if let Some(t) = text {
                    m.str(tag::TEXT, t);
                }
            },
            app,
        );
        self.note_logout(LogoutSide::Local, text);
        self.notify(app, &AppEvent::LogoutSent { text });
    }

    /// A Logout whose Text(58) is `text`, formatted on the stack (no allocation),
    /// then the end of the connection for `reason`.
    pub(super) fn logout_and_disconnect(
        &mut self,
        text: std::fmt::Arguments<'_>,
        reason: DisconnectReason,
        app: &mut dyn Application,
    ) {
        let mut buf = StackText::new();
        let _ = std::fmt::Write::write_fmt(&mut buf, text);
        self.send_logout(Some(buf.as_bytes()), app);
        self.disconnect(reason);
    }

    /// Remembers the first Logout of a logged-on connection, for `on_logout`.
    fn note_logout(&mut self, side: LogoutSide, text: Option<&[u8]>) {
        if self.logout.is_none() && self.logged_on() {
            self.logout_text.clear();
            if let Some(t) = text {
                self.logout_text.extend_from_slice(t);
            }
            self.logout = Some((side, text.is_some()));
        }
    }

    /// Our Logout, from a logged-on session: we wait for the peer's
    /// (LogoutTimeout).
    pub(super) fn initiate_logout(&mut self, text: Option<&[u8]>, app: &mut dyn Application) {
        self.send_logout(text, app);
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
    pub(super) fn on_logout(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if !self.verify(msg, SeqCheck::Neither, app) {
            return;
        }
        let text = msg.get(tag::TEXT);
        self.note_logout(LogoutSide::Remote, text);
        self.notify(app, &AppEvent::LogoutReceived { text });
        let _ = self.app_from_admin(msg, app);
        if !matches!(self.state, State::LogoutSent { .. }) {
            self.send_logout(None, app);
        }
        // Only the expected number is taken: a Logout above it leaves the gap
        // for the next Logon to ask for (QuickFIX/J's nextLogout, QFJ-750).
        if parse_seq(msg.get(tag::MSG_SEQ_NUM)) == Some(self.expected()) {
            self.incr_target();
        }
        if self.config.reset_on_logout {
            self.reset_store();
        }
        self.disconnect(DisconnectReason::Logout);
    }
}

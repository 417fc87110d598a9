//! The Logon handshake: an acceptor's answer, an initiator's Logon and the
//! terms either refuses.

use peregrine_codec::value::{self};
use peregrine_codec::MessageView;
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::{appl_ver_id_code, Role, MAX_HEARTBEAT_SECS};

use super::core::Core;
use super::events::{DisconnectReason, SessionEvent, SessionState};
use super::outgoing::*;
use super::verify::*;

/// Terms of a Logon we cannot accept, as the Text(58) of the Logout that refuses it:
/// encryption (we support EncryptMethod(98)=0 only) or a HeartBtInt(108) outside
/// `0..=MAX_HEARTBEAT_SECS` (QuickFIX's range: an `int`, not negative).
pub(super) fn logon_terms_problem(msg: &MessageView<'_>) -> Option<&'static [u8]> {
    if msg.get(98).is_some_and(|v| v != b"0") {
        return Some(b"Unsupported EncryptMethod(98): only 0 (none) is supported");
    }
    if msg.get(108).is_some_and(|v| heartbeat_secs(v).is_none()) {
        return Some(b"HeartBtInt(108) must be an integer from 0 to 2147483647");
    }
    None
}

/// HeartBtInt(108) in seconds, if it is in `0..=MAX_HEARTBEAT_SECS`.
pub(super) fn heartbeat_secs(v: &[u8]) -> Option<u32> {
    value::parse_u64(v)
        .ok()
        .filter(|&n| n <= u64::from(MAX_HEARTBEAT_SECS))
        .map(|n| n as u32)
}

impl<S: MessageStore> Core<S> {
    pub(super) fn on_logon(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        let seq = parse_seq(msg.get(34)).unwrap_or(0);
        let reset_flag = msg.get(141) == Some(b"Y");
        if self.logged_on && !reset_flag {
            self.disconnect(DisconnectReason::InvalidState);
            return;
        }
        if self.cfg.refresh_on_logon && self.tx.store.refresh().is_err() {
            self.store_failed();
        }
        if let Some(s) = self.cfg.schedule {
            if !s.contains(self.now()) {
                self.disconnect(DisconnectReason::OutsideSchedule);
                return;
            }
        }
        if reset_flag && !self.sent_reset {
            self.reset_store();
        }
        if self.cfg.role == Role::Acceptor && self.cfg.reset_on_logon && !reset_flag {
            self.reset_store();
        }
        self.tx.w.last_processed = seq;
        if !self.verify(msg, false, true) {
            return;
        }
        if let Some(text) = logon_terms_problem(msg) {
            self.send_logout(Some(text));
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if let Err(r) = app.from_admin(msg, &self.cfg.id) {
            self.send_logout(Some(r.text.as_bytes()));
            self.disconnect(DisconnectReason::LogonRejected);
            return;
        }
        let next_expected = if self.cfg.enable_next_expected_msg_seq_num {
            parse_seq(msg.get(789))
        } else {
            None
        };
        if let Some(n) = next_expected {
            let next_sender = self.tx.store.next_sender_seq();
            if n > next_sender {
                let mut text = StackText::new();
                {
                    use std::fmt::Write;
                    let _ = write!(
                        text,
                        "Tag 789 (NextExpectedMsgSeqNum) is higher than expected. Expected {next_sender}, Received {n}"
                    );
                }
                self.send_logout(Some(text.as_bytes()));
                self.disconnect(DisconnectReason::NextExpectedTooHigh);
                return;
            }
        }
        let expected = self.expected();
        let next_sender_before = self.tx.store.next_sender_seq();
        if self.cfg.role == Role::Acceptor || (reset_flag && !self.sent_reset) {
            self.hb_secs = msg
                .get(108)
                .and_then(heartbeat_secs)
                .unwrap_or(self.cfg.heartbeat_interval_secs);
            let hb = self.hb_secs as u64;
            let our_789 =
                (self.cfg.enable_next_expected_msg_seq_num).then_some(if seq == expected {
                    expected + 1
                } else {
                    expected
                });
            let appl = self
                .cfg
                .default_appl_ver_id
                .as_deref()
                .filter(|_| self.cfg.id.is_fixt())
                .map(appl_ver_id_code);
            self.tx.admin(b"A", &[], &mut |m| {
                m.uint(98, 0).uint(108, hb);
                if reset_flag {
                    m.char(141, b'Y');
                }
                if let Some(n) = our_789 {
                    m.uint(789, n);
                }
                if let Some(a) = appl {
                    m.str(1137, a.as_bytes());
                }
            });
        }
        self.sent_reset = false;
        self.logged_on = true;
        self.set_state(SessionState::LoggedOn);
        self.events.push_back(SessionEvent::LoggedOn);
        if let Some(n) = next_expected {
            let next_sender = self.tx.store.next_sender_seq();
            if n < next_sender_before {
                self.resend(n, next_sender - 1);
            }
        }
        if seq > expected && !reset_flag {
            self.too_high(msg, seq);
        } else {
            self.incr_target();
        }
        app.on_logon(&self.cfg.id);
    }
}

//! `ResetSeqTime` (QuickFIX/Go): sequence numbers back to 1 at a time of day,
//! without a disconnect.

use peregrine_codec::{msg_type, tag};
use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::appl_ver_id_code;

use super::core::Core;

impl<S: MessageStore> Core<S> {
    /// Resets the store and sends a Logon with ResetSeqNumFlag(141)=Y and MsgSeqNum 1
    /// while logged on, as QuickFIX/Go does at `ResetSeqTime`: the FIX way to reset
    /// in session. The counterparty resets too and answers with its own such Logon,
    /// which is not answered again; both sides go on from 2.
    pub(super) fn send_reset_logon(&mut self, app: &mut dyn Application) {
        let Some(heartbeat) = self.live().map(|l| u64::from(l.heartbeat_secs)) else {
            return;
        };
        self.reset_store();
        let next_expected = self
            .config
            .enable_next_expected_msg_seq_num
            .then(|| self.outgoing.store.next_target_seq());
        let appl = self
            .config
            .default_appl_ver_id
            .clone()
            .filter(|_| self.config.id.is_fixt());
        self.send_admin(
            msg_type::LOGON,
            &[],
            &mut |m| {
                m.uint(tag::ENCRYPT_METHOD, 0)
                    .uint(tag::HEART_BT_INT, heartbeat)
                    .char(tag::RESET_SEQ_NUM_FLAG, b'Y');
                if let Some(n) = next_expected {
                    m.uint(tag::NEXT_EXPECTED_MSG_SEQ_NUM, n);
                }
                if let Some(a) = &appl {
                    m.str(tag::DEFAULT_APPL_VER_ID, appl_ver_id_code(a).as_bytes());
                }
            },
            app,
        );
        if let Some(live) = self.live_mut() {
            live.reset_sent = true;
        }
    }
}

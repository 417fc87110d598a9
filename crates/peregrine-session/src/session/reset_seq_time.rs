//! `ResetSeqTime` (QuickFIX/Go): sequence numbers back to 1 at a time of day,
//! without a disconnect.

use peregrine_store::MessageStore;

use crate::app::Application;

use super::core::Core;
use super::logon::LogonTerms;

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
        let terms = LogonTerms {
            heartbeat_secs: heartbeat,
            reset: true,
            credentials: false,
            next_expected: self.next_expected_to_send(),
        };
        self.write_logon(terms, app);
        if let Some(live) = self.live_mut() {
            live.reset_sent = true;
        }
    }
}

//! The fixed label sets of the counts by reason: a reason from the wire maps
//! to one of a bounded number of slots, so a peer cannot grow them.

use crate::session::DisconnectReason;

/// The reason slots of reject counts, as labels: SessionRejectReason(373) and
/// BusinessRejectReason(380) values 0 to 23 each have their own (every value
/// FIX 5.0 SP2 defines, with room), 99 (Other) its own, `none` is a reject
/// without a reason (before FIX.4.2), `other` any other value.
pub const REJECT_REASONS: [&str; 27] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19", "20", "21", "22", "23", "99", "none", "other",
];

/// Reasons below this have a slot of their own.
const DIRECT: u32 = 24;

pub(super) fn reject_slot(reason: Option<u32>) -> usize {
    match reason {
        Some(r) if r < DIRECT => r as usize,
        Some(99) => DIRECT as usize,
        None => DIRECT as usize + 1,
        Some(_) => DIRECT as usize + 2,
    }
}

/// The labels of disconnects by reason: one per [`DisconnectReason`] (every
/// `Transport` error is `transport`), and `unknown` when neither the session
/// nor its driver said why.
pub const DISCONNECT_REASONS: [&str; 22] = [
    "logout",
    "logout_timeout",
    "logon_timeout",
    "heartbeat_timeout",
    "invalid_logon",
    "invalid_state",
    "seq_num_too_low",
    "logon_rejected",
    "next_expected_too_high",
    "outside_schedule",
    "requested",
    "logon_too_large",
    "inbound_queue_full",
    "outbound_queue_full",
    "store_failure",
    "peer_closed",
    "transport",
    "slow_consumer",
    "closed",
    "tls",
    "missing_msg_seq_num",
    "unknown",
];

pub(super) fn disconnect_slot(reason: Option<DisconnectReason>) -> usize {
    use DisconnectReason::*;
    let Some(reason) = reason else {
        return DISCONNECT_REASONS.len() - 1;
    };
    match reason {
        Logout => 0,
        LogoutTimeout => 1,
        LogonTimeout => 2,
        HeartbeatTimeout => 3,
        InvalidLogon => 4,
        InvalidState => 5,
        SeqNumTooLow => 6,
        LogonRejected => 7,
        NextExpectedTooHigh => 8,
        OutsideSchedule => 9,
        Requested => 10,
        LogonTooLarge => 11,
        InboundQueueFull => 12,
        OutboundQueueFull => 13,
        StoreFailure => 14,
        PeerClosed => 15,
        Transport(_) => 16,
        SlowConsumer => 17,
        Closed => 18,
        Tls => 19,
        MissingMsgSeqNum => 20,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reject_reasons_map_to_their_labels_and_strangers_to_other() {
        for r in 0..DIRECT {
            assert_eq!(REJECT_REASONS[reject_slot(Some(r))], r.to_string());
        }
        assert_eq!(REJECT_REASONS[reject_slot(Some(99))], "99");
        assert_eq!(REJECT_REASONS[reject_slot(None)], "none");
        for stranger in [24, 98, 100, 4_000, u32::MAX] {
            assert_eq!(REJECT_REASONS[reject_slot(Some(stranger))], "other");
        }
    }

    #[test]
    fn disconnect_labels_are_distinct_and_read_like_the_reasons() {
        let reasons = [
            DisconnectReason::Logout,
            DisconnectReason::HeartbeatTimeout,
            DisconnectReason::PeerClosed,
            DisconnectReason::Transport(std::io::ErrorKind::ConnectionReset),
            DisconnectReason::Closed,
            DisconnectReason::Tls,
        ];
        let labels: Vec<_> = reasons
            .iter()
            .map(|&r| DISCONNECT_REASONS[disconnect_slot(Some(r))])
            .collect();
        assert_eq!(
            labels,
            [
                "logout",
                "heartbeat_timeout",
                "peer_closed",
                "transport",
                "closed",
                "tls"
            ]
        );
        assert_eq!(DISCONNECT_REASONS[disconnect_slot(None)], "unknown");
        let mut sorted = DISCONNECT_REASONS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), DISCONNECT_REASONS.len());
    }
}

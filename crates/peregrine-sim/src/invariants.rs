//! The invariants, checked after every step, and the ledger they are checked
//! against: every application message each side sent (its id, MsgSeqNum,
//! store epoch and fate), what reached the other side's application, and
//! which MsgSeqNum carried which message on the wire.
//!
//! | invariant | what it says |
//! | --- | --- |
//! | [`Invariant::ExactlyOnce`] | an application message is handed to the peer's application once without PossDupFlag, never twice; a message never sent (refused, or lost uncommitted in a crash) never arrives |
//! | [`Invariant::InOrder`] | first deliveries come in the order the messages were sent |
//! | [`Invariant::Delivered`] | once faults stop, every acknowledged message has arrived (unless a sequence reset discarded it first) |
//! | [`Invariant::AckedLost`] | a restarted store has every message and sequence number it acknowledged |
//! | [`Invariant::SeqReused`] | one MsgSeqNum of one store epoch never carries two different messages |
//! | [`Invariant::NoPanic`] | nothing panics |
//! | [`Invariant::MemoryBound`] | the outbound buffer stays within `max_outbound_bytes` plus one message and the GapFill before it (the bound of docs/reliability.md's table of bounds, "unsent bytes, hard ceiling") |
//! | [`Invariant::Protocol`] | every Reject and every disconnect a session asks for is one the FIX rules allow given the faults since the last calm point; a SendingTime Reject (reason 10) only of a message some copy of which really was more than MaxLatency from the clock when it was rejected ([`SendingTimes`]) |
//! | [`Invariant::Converge`] | once faults stop, both sides are logged on and in step |

use std::collections::HashMap;
use std::fmt;

use peregrine_session::{DisconnectReason, Nanos, SessionState};

use crate::faults::Side;
use crate::world::app::Delivery;

/// Which invariant a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Invariant {
    /// Exactly once (without PossDup), and never a message that was not sent.
    ExactlyOnce,
    /// In the order sent.
    InOrder,
    /// Every acknowledged message delivered once faults stop.
    Delivered,
    /// A synced store lost nothing it acknowledged.
    AckedLost,
    /// A MsgSeqNum reused for different content.
    SeqReused,
    /// A panic.
    NoPanic,
    /// A buffer beyond its stated bound.
    MemoryBound,
    /// A Reject or disconnect the FIX rules do not allow in that state.
    Protocol,
    /// Not logged on and in step once faults stop.
    Converge,
    /// Routing between sessions (`--route`): a forward stored on its
    /// destination exactly once if its source's incoming number was
    /// committed, and not at all otherwise (`route::oracle`).
    Routed,
}

/// An invariant broken at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which.
    pub invariant: Invariant,
    /// The index of the action after which it was seen (the number of
    /// actions for the checks once faults stop).
    pub step: usize,
    /// What was seen.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} violated at step {}: {}",
            self.invariant, self.step, self.detail
        )
    }
}

/// The fate of a message an application sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// The session refused it (not logged on): never sent.
    Refused,
    /// Stored, not yet committed.
    Pending,
    /// Committed: it must arrive.
    Acked,
    /// Its sender died before the commit: it must never arrive.
    Uncommitted,
    /// A sequence reset discarded it (it may or may not arrive).
    Reset,
    /// An unsynced store lost it in a crash after acknowledging it (it may
    /// have arrived before; it will not be resent: a gap fill replaces it).
    StoreLost,
    /// The receiving session rejected it (a session Reject, e.g. SendingTime
    /// accuracy): its sender was told; it may arrive later, resent.
    Rejected,
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    epoch: u64,
    /// The sender's session clock when it was sent.
    at: Nanos,
    fate: Fate,
    delivered: bool,
}

/// One direction's ledger: what one side sent.
#[derive(Debug, Default)]
struct Direction {
    sent: Vec<Sent>,
    pending: Vec<u64>,
    /// The largest id delivered so far.
    max_first: Option<u64>,
    /// (epoch, MsgSeqNum) → id, of application messages written.
    wire: HashMap<(u64, u64), u64>,
}

/// The oracle's ledger, both directions.
#[derive(Debug, Default)]
pub struct Ledger {
    from: [Direction; 2],
}

/// Result of a check.
pub type Check = Result<(), (Invariant, String)>;

impl Ledger {
    /// The id the next message `side` sends gets.
    pub fn next_id(&self, side: Side) -> u64 {
        self.from[side.index()].sent.len() as u64
    }

    /// `side` sent message `next_id` at `at` (its session's clock): stored
    /// under `seq` in `epoch`, or refused.
    pub fn sent(&mut self, side: Side, seq: Option<u64>, epoch: u64, at: Nanos) {
        let d = &mut self.from[side.index()];
        let id = d.sent.len() as u64;
        d.sent.push(Sent {
            seq: seq.unwrap_or(0),
            epoch,
            at,
            fate: if seq.is_some() {
                Fate::Pending
            } else {
                Fate::Refused
            },
            delivered: false,
        });
        if seq.is_some() {
            d.pending.push(id);
        }
    }

    /// `side`'s store committed: its pending messages it acknowledged are
    /// acknowledged; with `crashed`, the others are lost.
    pub fn committed(&mut self, side: Side, acked: impl Fn(u64, u64) -> bool, crashed: bool) {
        let d = &mut self.from[side.index()];
        let sent = &mut d.sent;
        d.pending.retain(|&id| {
            let s = &mut sent[id as usize];
            if s.fate != Fate::Pending {
                false
            } else if acked(s.epoch, s.seq) {
                s.fate = Fate::Acked;
                false
            } else if crashed {
                s.fate = Fate::Uncommitted;
                false
            } else {
                true
            }
        });
    }

    /// `side`'s store was reset into `epoch`: what it had not delivered is gone.
    /// Returns how many messages that discarded.
    ///
    /// `may_discard` says whether a message sent at a time (the sender's
    /// session clock) may be discarded by this reset: always for the resets
    /// a configuration asks for (ResetOnLogon…); under a session schedule,
    /// whose only resets are new periods, only a message whose period ended
    /// (QuickFIX/J discards it too).
    ///
    /// # Errors
    ///
    /// [`Invariant::Delivered`]: an acknowledged message not delivered yet
    /// was discarded although `may_discard` says its period had not ended.
    pub fn reset(
        &mut self,
        side: Side,
        epoch: u64,
        may_discard: impl Fn(Nanos) -> bool,
    ) -> Result<u64, (Invariant, String)> {
        let d = &mut self.from[side.index()];
        let mut n = 0;
        let mut wrong = None;
        for (id, s) in d.sent.iter_mut().enumerate().rev() {
            if s.epoch >= epoch {
                continue;
            }
            if matches!(
                s.fate,
                Fate::Reset | Fate::Refused | Fate::Uncommitted | Fate::StoreLost
            ) {
                // Everything older was settled by an earlier reset.
                if s.fate == Fate::Reset {
                    break;
                }
                continue;
            }
            if !s.delivered {
                if s.fate == Fate::Acked && !may_discard(s.at) {
                    wrong = Some((id, s.seq, s.epoch, s.at));
                }
                s.fate = Fate::Reset;
                n += 1;
            }
        }
        match wrong {
            Some((id, seq, e, at)) => Err((
                Invariant::Delivered,
                format!(
                    "{side:?} reset its sequence numbers (into store epoch {epoch}) and discarded message {id} (MsgSeqNum {seq}, epoch {e}, sent at {at}) before its session period ended"
                ),
            )),
            None => Ok(n),
        }
    }

    /// `side`'s unsynced store lost, in a crash, the acknowledged messages
    /// of `epoch` whose MsgSeqNums `lost` names: their delivery is no longer
    /// owed (FIX fills the gap). Returns how many were not delivered yet.
    pub fn store_lost(&mut self, side: Side, epoch: u64, lost: impl Fn(u64) -> bool) -> u64 {
        let mut n = 0;
        for s in &mut self.from[side.index()].sent {
            if s.epoch == epoch && s.fate == Fate::Acked && lost(s.seq) {
                s.fate = Fate::StoreLost;
                n += u64::from(!s.delivered);
            }
        }
        n
    }

    /// `receiver`'s session rejected MsgSeqNum `seq` of its peer's store
    /// epoch `epoch`: if it was an application message, it is excused.
    pub fn rejected(&mut self, receiver: Side, epoch: u64, seq: u64) {
        let d = &mut self.from[receiver.peer().index()];
        if let Some(&id) = d.wire.get(&(epoch, seq)) {
            if let Some(s) = d.sent.get_mut(id as usize) {
                if !s.delivered && s.fate == Fate::Acked {
                    s.fate = Fate::Rejected;
                }
            }
        }
    }

    /// `side` wrote application message `id` as MsgSeqNum `seq` of `epoch`.
    ///
    /// # Errors
    ///
    /// [`Invariant::SeqReused`]: that number already carried another message.
    pub fn wire(&mut self, side: Side, epoch: u64, seq: u64, id: u64) -> Check {
        let d = &mut self.from[side.index()];
        match d.wire.insert((epoch, seq), id) {
            Some(old) if old != id => Err((
                Invariant::SeqReused,
                format!(
                    "{side:?} wrote MsgSeqNum {seq} (store epoch {epoch}) for message {old}, then for message {id}"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `receiver`'s application was handed `d`.
    ///
    /// # Errors
    ///
    /// [`Invariant::ExactlyOnce`] or [`Invariant::InOrder`].
    pub fn delivered(&mut self, receiver: Side, d: Delivery) -> Check {
        let sender = receiver.peer();
        let dir = &mut self.from[sender.index()];
        let Some(s) = dir.sent.get_mut(d.id as usize) else {
            return Err((
                Invariant::ExactlyOnce,
                format!(
                    "{receiver:?} was handed message id {} (MsgSeqNum {}) that {sender:?} never sent",
                    d.id, d.seq
                ),
            ));
        };
        match s.fate {
            Fate::Refused | Fate::Uncommitted => {
                return Err((
                    Invariant::ExactlyOnce,
                    format!(
                        "{receiver:?} was handed message {} (MsgSeqNum {}) that {sender:?} {}",
                        d.id,
                        d.seq,
                        if s.fate == Fate::Refused {
                            "was refused to send"
                        } else {
                            "never committed before it crashed"
                        }
                    ),
                ))
            }
            Fate::Pending => {
                return Err((
                    Invariant::ExactlyOnce,
                    format!(
                        "{receiver:?} was handed message {} before {sender:?} committed it",
                        d.id
                    ),
                ))
            }
            Fate::Acked | Fate::Reset | Fate::Rejected | Fate::StoreLost => {}
        }
        let rejected = s.fate == Fate::Rejected;
        if s.delivered {
            if !d.poss_dup {
                return Err((
                    Invariant::ExactlyOnce,
                    format!(
                        "{receiver:?} was handed message {} a second time (MsgSeqNum {}) without PossDupFlag",
                        d.id, d.seq
                    ),
                ));
            }
            return Ok(());
        }
        s.delivered = true;
        if rejected {
            return Ok(());
        }
        if let Some(max) = dir.max_first {
            if d.id < max {
                return Err((
                    Invariant::InOrder,
                    format!(
                        "{receiver:?} got message {} (MsgSeqNum {}) for the first time after message {max}",
                        d.id, d.seq
                    ),
                ));
            }
        }
        dir.max_first = Some(d.id);
        Ok(())
    }

    /// Once faults stopped and the sessions settled: every acknowledged
    /// message arrived, unless `ended(sender, sent_at)`: under a session
    /// schedule, its period ended (the next one starts afresh).
    ///
    /// # Errors
    ///
    /// [`Invariant::Delivered`], naming the first missing message.
    pub fn all_delivered(&self, ended: impl Fn(Side, Nanos) -> bool) -> Check {
        for side in [Side::Initiator, Side::Acceptor] {
            let d = &self.from[side.index()];
            let missing: Vec<(usize, &Sent)> = d
                .sent
                .iter()
                .enumerate()
                .filter(|(_, s)| s.fate == Fate::Acked && !s.delivered && !ended(side, s.at))
                .collect();
            if let Some((id, s)) = missing.first() {
                return Err((
                    Invariant::Delivered,
                    format!(
                        "{} acknowledged message(s) from {side:?} never delivered, first id {id} (MsgSeqNum {}, store epoch {})",
                        missing.len(),
                        s.seq,
                        s.epoch
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Faults since the last calm point (both sides logged on, nothing in
/// flight): what explains an unusual Reject or disconnect.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Excuses {
    /// Bytes were corrupted.
    pub garble: bool,
    /// The clock was stepped.
    pub clock: bool,
    /// Bytes waited in flight longer than MaxLatency.
    pub delay: bool,
}

/// What the oracle knows of a side that asks to disconnect.
#[derive(Clone, Copy, Debug)]
pub struct DisconnectContext {
    /// Its state before the session call that raised the Disconnect.
    pub state_before: SessionState,
    /// The peer's last Logon deserved a SendingTime refusal by this side's
    /// clock ([`SendingTimes::stale`]).
    pub stale_logon: bool,
    /// It may refuse a Logon as outside its schedule.
    pub outside: bool,
    /// Its connection is a stale peer's, logging on with a MsgSeqNum too low.
    pub low_logon: bool,
    /// The peer's last Logon was sent in an earlier session period than this
    /// side's (the sides' clocks on either side of a period's start): its
    /// numbers are the ended period's.
    pub peer_period_behind: bool,
    /// The peer's last Logon was sent in a later session period than this
    /// side's clock is in: the peer has reset for the new period, this side
    /// not yet.
    pub peer_period_ahead: bool,
    /// A session schedule, and the wall clock stepped since the last calm
    /// point: a side whose clock never goes back may have run ahead of the
    /// other into the next period, reset, and taken the other's Logon on the
    /// ended period's numbers; the two disagree on the period until the
    /// clocks agree again.
    pub period_skew: bool,
    /// Faults since the last calm point.
    pub excuses: Excuses,
}

/// Whether a session may ask to disconnect for `reason`: in the state it was
/// in (a LogonTimeout or a refused Logon only before the logon, a
/// HeartbeatTimeout only once logged on, a LogoutTimeout only after our
/// Logout), and given the faults that explain the unusual ones.
///
/// # Errors
///
/// [`Invariant::Protocol`] naming the reason.
pub fn allowed_disconnect(side: Side, reason: DisconnectReason, cx: DisconnectContext) -> Check {
    use DisconnectReason as R;
    use SessionState as S;
    let ex = cx.excuses;
    let before = cx.state_before;
    let logging_on = matches!(before, S::AwaitingLogon | S::LogonSent);
    let in_state = match reason {
        R::LogonTimeout | R::InvalidLogon | R::LogonTooLarge | R::LogonRejected => logging_on,
        R::HeartbeatTimeout | R::InboundQueueFull => {
            matches!(before, S::LoggedOn | S::LogoutSent)
        }
        R::LogoutTimeout => before == S::LogoutSent,
        // Refused as the connection comes up (`on_connected`), or later.
        R::OutsideSchedule => true,
        _ => before != S::Disconnected,
    };
    let ok = in_state
        && match reason {
            // Timeouts and logouts follow from delays, drops and logouts; the
            // bounds are the session's stated behaviour.
            R::Logout
            | R::LogoutTimeout
            | R::LogonTimeout
            | R::HeartbeatTimeout
            | R::Requested
            | R::OutboundQueueFull
            | R::InboundQueueFull => true,
            // A Logon that is not one: only bytes corrupted or time stepped
            // explain it, or a Logon whose SendingTime is beyond MaxLatency of
            // the receiver's clock (QuickFIX/J's verify of a Logon: isGoodTime
            // fails, logoutWithErrorMessage). Sessions' clocks never go back,
            // so after the wall clock was stepped back, a restarted acceptor
            // runs behind its peer until the wall clock catches up: long after
            // the step.
            R::InvalidLogon => ex.garble || ex.clock || ex.delay || cx.stale_logon,
            R::InvalidState | R::LogonTooLarge => ex.garble || ex.clock || ex.delay,
            // A session writes MsgSeqNum in every message: only corrupted bytes
            // (that still frame and sum right) take it away.
            R::MissingMsgSeqNum => ex.garble,
            // Stores that lose nothing acknowledged, and configurations under
            // which both sides reset together, never see a MsgSeqNum too low;
            // a stale peer's Logon is (FIX: Logout, then disconnect).
            // So is a Logon of a peer that began a new session period (and
            // reset) before this side's clock reached it: the next Logon, once
            // both are in it, starts afresh on both sides.
            R::SeqNumTooLow => cx.low_logon || cx.peer_period_ahead || cx.period_skew,
            // A Logon on the ended period's numbers, received after this side
            // began the new one: its NextExpectedMsgSeqNum is above what this
            // side has sent since (QuickFIX/J's nextLogon logs out the same
            // way); the peer starts the period at its next Logon.
            R::NextExpectedTooHigh => cx.peer_period_behind || cx.period_skew,
            // Outside the session schedule (by the session's own clock), or the
            // peer is: QuickFIX's behaviour (the peer logs out at its end).
            R::OutsideSchedule => cx.outside,
            R::LogonRejected | R::StoreFailure => false,
            R::PeerClosed | R::Transport(_) | R::Tls | R::SlowConsumer | R::Closed => false,
        };
    if ok {
        Ok(())
    } else {
        Err((
            Invariant::Protocol,
            format!(
                "{side:?} asked to disconnect: {reason} ({reason:?}) in state {before:?}; faults since calm: {ex:?}"
            ),
        ))
    }
}

/// The SendingTime(52) of every copy of every message one side wrote (the
/// first send and each resend), by MsgSeqNum: what tells whether a SendingTime
/// Reject (reason 10) was deserved.
///
/// A receiver checks SendingTime against its clock when it *processes* a
/// message, not when the bytes arrive: QuickFIX/J's `verify` runs `isGoodTime`
/// for a message taken from its queue of too-high messages too
/// (`nextQueued` → `next(msg, true)` → `verify`), so a message that waited
/// there (for a gap to be filled), in the sender's outbound buffer, or on the
/// network longer than MaxLatency is rejected, whatever delayed it; with one
/// clock shared by both sides, a clock step shows here the same way. What the
/// oracle refuses is a reason-10 Reject of a message no copy of which was
/// more than MaxLatency from the clock.
///
/// Copies are kept by MsgSeqNum across store epochs (the Reject names only
/// the number): a number reused after a reset counts the copies of both.
///
/// The other reason-10 Reject the FIX rules ask for: a resend (PossDupFlag=Y)
/// whose OrigSendingTime(122) is later than its SendingTime (FIX 4.4 Vol. 2
/// test case 2g; QuickFIX/J's `validatePossDup`), which a sender writes when
/// its clock went back since the first send (a stepped clock, a restart).
#[derive(Debug, Default)]
pub struct SendingTimes {
    /// MsgSeqNum → the oldest and the newest SendingTime written for it, and
    /// whether a copy had an OrigSendingTime later than its SendingTime.
    copies: HashMap<u64, (Nanos, Nanos, bool)>,
}

impl SendingTimes {
    /// A copy of MsgSeqNum `seq` was written with SendingTime `t` (and
    /// OrigSendingTime `orig`, for a resend).
    pub fn wrote(&mut self, seq: u64, t: Nanos, orig: Option<Nanos>) {
        let c = self.copies.entry(seq).or_insert((t, t, false));
        c.0 = c.0.min(t);
        c.1 = c.1.max(t);
        c.2 |= orig.is_some_and(|o| o > t);
    }

    /// The newest SendingTime written for MsgSeqNum `seq`, if any.
    pub fn newest(&self, seq: u64) -> Option<Nanos> {
        self.copies.get(&seq).map(|&(_, newest, _)| newest)
    }

    /// Whether a copy of MsgSeqNum `seq` deserved a SendingTime Reject at
    /// `now`: its SendingTime more than `max_latency` from `now` (the
    /// session's rule: `|now - SendingTime| > MaxLatency`), or a resend's
    /// OrigSendingTime later than its SendingTime.
    pub fn stale(&self, seq: u64, now: Nanos, max_latency: Nanos) -> bool {
        self.copies
            .get(&seq)
            .is_some_and(|&(oldest, newest, orig_later)| {
                orig_later
                    || now.saturating_sub(oldest) > max_latency
                    || newest.saturating_sub(now) > max_latency
            })
    }
}

/// Whether a session may reject a message with `reason` (SessionRejectReason
/// or BusinessRejectReason); `stale` says whether a copy of the rejected
/// message was beyond MaxLatency when it was rejected
/// ([`SendingTimes::stale`]); `logged_on` whether the session was logged on
/// when it handled the message (a message before the Logon is no Reject's
/// business: the Logon is refused with a Logout, or the connection closed).
///
/// # Errors
///
/// [`Invariant::Protocol`] naming the reason.
pub fn allowed_reject(
    side: Side,
    ref_seq: u64,
    reason: u32,
    stale: bool,
    logged_on: bool,
    ex: Excuses,
) -> Check {
    // 10: SendingTime accuracy problem, for a message that was stale when it
    // was processed (delayed on the network, in the sender's buffer, in the
    // receiver's queue, or the clock stepped).
    if logged_on && reason == 10 && stale {
        return Ok(());
    }
    Err((
        Invariant::Protocol,
        format!(
            "{side:?} rejected MsgSeqNum {ref_seq} with reason {reason} (a copy of it stale: {stale}, logged on: {logged_on}); faults since calm: {ex:?}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(id: u64, poss_dup: bool) -> Delivery {
        Delivery {
            id,
            poss_dup,
            seq: id + 2,
        }
    }

    #[test]
    fn the_ledger_catches_duplicates_disorder_loss_and_reuse() {
        let mut l = Ledger::default();
        for seq in [2, 3, 4] {
            l.sent(Side::Initiator, Some(seq), 0, 0);
        }
        l.committed(Side::Initiator, |_, _| true, false);
        let to = Side::Acceptor;
        assert!(l.delivered(to, d(0, false)).is_ok());
        assert!(
            l.delivered(to, d(0, true)).is_ok(),
            "a PossDup again is fine"
        );
        assert_eq!(
            l.delivered(to, d(0, false)).unwrap_err().0,
            Invariant::ExactlyOnce
        );
        assert!(l.delivered(to, d(2, false)).is_ok());
        assert_eq!(
            l.delivered(to, d(1, true)).unwrap_err().0,
            Invariant::InOrder
        );
        let mut l2 = Ledger::default();
        l2.sent(Side::Initiator, Some(2), 0, 0);
        l2.sent(Side::Initiator, Some(3), 0, 0);
        l2.committed(Side::Initiator, |_, _| true, false);
        assert!(l2.delivered(to, d(0, false)).is_ok());
        assert_eq!(
            l2.all_delivered(|_, _| false).unwrap_err().0,
            Invariant::Delivered
        );
        assert_eq!(l2.reset(Side::Initiator, 1, |_| true), Ok(1));
        assert!(
            l2.all_delivered(|_, _| false).is_ok(),
            "discarded by a reset"
        );
        assert!(l.wire(Side::Initiator, 0, 2, 0).is_ok());
        assert!(l.wire(Side::Initiator, 0, 2, 0).is_ok(), "a resend");
        assert_eq!(
            l.wire(Side::Initiator, 0, 2, 1).unwrap_err().0,
            Invariant::SeqReused
        );
        assert!(l.wire(Side::Initiator, 1, 2, 1).is_ok(), "another epoch");
    }

    #[test]
    fn a_period_reset_discards_only_messages_whose_period_ended() {
        // Sent at 10 and 20; a new period began at 15.
        let period_ended = |at: Nanos| at < 15;
        let mut l = Ledger::default();
        l.sent(Side::Initiator, Some(2), 0, 10);
        l.committed(Side::Initiator, |_, _| true, false);
        assert_eq!(l.reset(Side::Initiator, 1, period_ended), Ok(1));
        l.sent(Side::Initiator, Some(1), 1, 20);
        l.committed(Side::Initiator, |_, _| true, false);
        assert_eq!(
            l.all_delivered(|_, at| period_ended(at)).unwrap_err().0,
            Invariant::Delivered,
            "sent in the current period: it must arrive"
        );
        assert!(l.all_delivered(|_, _| true).is_ok(), "its period ended");
        assert_eq!(
            l.reset(Side::Initiator, 2, period_ended).unwrap_err().0,
            Invariant::Delivered,
            "discarded within its own period"
        );
    }

    #[test]
    fn an_unsynced_store_may_lose_what_it_acknowledged_but_not_deliver_twice() {
        let mut l = Ledger::default();
        for seq in [2, 3] {
            l.sent(Side::Acceptor, Some(seq), 0, 0);
        }
        l.committed(Side::Acceptor, |_, _| true, false);
        let to = Side::Initiator;
        assert!(l.delivered(to, d(0, false)).is_ok());
        assert_eq!(l.store_lost(Side::Acceptor, 0, |seq| seq >= 2), 1);
        assert!(l.all_delivered(|_, _| false).is_ok(), "no longer owed");
        assert_eq!(
            l.delivered(to, d(0, false)).unwrap_err().0,
            Invariant::ExactlyOnce,
            "delivered before the loss: again only as a PossDup"
        );
    }

    #[test]
    fn uncommitted_and_refused_messages_must_not_arrive() {
        let mut l = Ledger::default();
        l.sent(Side::Acceptor, None, 0, 0);
        l.sent(Side::Acceptor, Some(5), 0, 0);
        l.committed(Side::Acceptor, |_, _| false, true);
        let to = Side::Initiator;
        assert_eq!(
            l.delivered(to, d(0, false)).unwrap_err().0,
            Invariant::ExactlyOnce
        );
        assert_eq!(
            l.delivered(to, d(1, true)).unwrap_err().0,
            Invariant::ExactlyOnce
        );
        assert!(l.all_delivered(|_, _| false).is_ok());
    }

    #[test]
    fn a_sending_time_is_stale_only_beyond_max_latency_either_way() {
        let l = 120 * peregrine_session::SECOND;
        let mut t = SendingTimes::default();
        assert!(!t.stale(5, 0, l), "never written");
        t.wrote(5, 1_000, None);
        assert!(!t.stale(5, 1_000 + l, l), "exactly MaxLatency is on time");
        assert!(t.stale(5, 1_001 + l, l));
        assert!(
            t.stale(5, 999 - l, l),
            "from the future (a clock stepped back)"
        );
        // A resend with a fresh SendingTime: the old copy still explains a
        // Reject of the number (the receiver may have queued the original).
        t.wrote(5, 1_000 + 2 * l, Some(1_000));
        assert!(t.stale(5, 1_000 + 2 * l, l));
        assert!(!t.stale(6, 1_000 + 2 * l, l));
        // A resend whose OrigSendingTime is after its SendingTime (the
        // sender's clock went back) deserves reason 10 at any time.
        t.wrote(6, 1_000, Some(1_000));
        assert!(!t.stale(6, 1_000, l), "OrigSendingTime equal is fine");
        t.wrote(6, 1_000, Some(1_001));
        assert!(t.stale(6, 1_000, l));
    }

    #[test]
    fn rejects_and_disconnects_need_an_excuse() {
        let none = Excuses::default();
        let clock = Excuses {
            clock: true,
            ..none
        };
        assert!(allowed_reject(Side::Initiator, 3, 10, false, true, none).is_err());
        assert!(
            allowed_reject(Side::Initiator, 3, 10, false, true, clock).is_err(),
            "a clock step excuses only a message it made stale"
        );
        assert!(allowed_reject(Side::Initiator, 3, 10, true, true, none).is_ok());
        assert!(
            allowed_reject(Side::Initiator, 3, 10, true, false, none).is_err(),
            "no Reject before the logon"
        );
        assert!(allowed_reject(Side::Initiator, 3, 5, true, true, clock).is_err());
        let s = Side::Acceptor;
        let cx = |state_before, stale_logon, outside, low_logon, excuses| DisconnectContext {
            state_before,
            stale_logon,
            outside,
            low_logon,
            peer_period_behind: false,
            peer_period_ahead: false,
            period_skew: false,
            excuses,
        };
        use DisconnectReason as R;
        use SessionState as S;
        let on = S::LoggedOn;
        let waiting = S::AwaitingLogon;
        let too_high = R::NextExpectedTooHigh;
        let behind = DisconnectContext {
            peer_period_behind: true,
            ..cx(waiting, false, false, false, none)
        };
        let ahead = DisconnectContext {
            peer_period_ahead: true,
            ..cx(waiting, false, false, false, none)
        };
        // (reason, context, allowed)
        let cases = [
            (R::HeartbeatTimeout, cx(on, false, false, false, none), true),
            (
                R::InvalidLogon,
                cx(waiting, false, false, false, none),
                false,
            ),
            (
                R::InvalidLogon,
                cx(waiting, false, false, false, clock),
                true,
            ),
            (R::InvalidLogon, cx(waiting, true, false, false, none), true),
            (R::InvalidState, cx(on, true, false, false, none), false),
            (R::SeqNumTooLow, cx(on, true, false, false, clock), false),
            (R::SeqNumTooLow, cx(waiting, false, false, true, none), true),
            (R::OutsideSchedule, cx(on, false, false, false, none), false),
            (R::OutsideSchedule, cx(on, false, true, false, none), true),
            // The state matters: no LogonTimeout once logged on, no
            // HeartbeatTimeout before the logon, no LogoutTimeout without our
            // Logout, nothing at all while disconnected.
            (
                R::LogonTimeout,
                cx(waiting, false, false, false, none),
                true,
            ),
            (R::LogonTimeout, cx(on, false, false, false, none), false),
            (
                R::HeartbeatTimeout,
                cx(waiting, false, false, false, none),
                false,
            ),
            (R::LogoutTimeout, cx(on, false, false, false, none), false),
            (
                R::LogoutTimeout,
                cx(S::LogoutSent, false, false, false, none),
                true,
            ),
            (R::InvalidLogon, cx(on, true, false, false, clock), false),
            (
                R::Logout,
                cx(S::Disconnected, false, false, false, none),
                false,
            ),
            (too_high, cx(waiting, false, false, false, none), false),
            (too_high, behind, true),
            (R::SeqNumTooLow, ahead, true),
            (too_high, ahead, false),
        ];
        for (i, (reason, context, allowed)) in cases.into_iter().enumerate() {
            assert_eq!(
                allowed_disconnect(s, reason, context).is_ok(),
                allowed,
                "case {i}: {reason:?}"
            );
        }
    }
}

//! The session's timers: one table that `on_timer` fires and `next_deadline`
//! reads.

use peregrine_store::MessageStore;

use crate::app::Application;
use crate::config::{Nanos, SECOND};

use super::core::{Core, State};
use super::events::DisconnectReason;

/// The session's timers, in the order they fire when several are due: one
/// table that both [`Core::on_timer`] and [`Core::next_deadline`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Timer {
    /// No Logon (ours answered, or theirs received) within LogonTimeout.
    Logon,
    /// Our Logout unanswered within LogoutTimeout.
    Logout,
    /// The session window closed, or a new period began.
    Schedule,
    /// `ResetSeqTime`: reset sequence numbers without a disconnect.
    ResetSeqTime,
    /// Nothing received for 2.4 heartbeat intervals: the peer is gone.
    HeartbeatTimeout,
    /// Nothing received for 1.2 heartbeat intervals: ask with a TestRequest.
    TestRequest,
    /// Nothing sent for a heartbeat interval.
    Heartbeat,
    /// Our ResendRequest made no progress within ResendRequestTimeout.
    ResendStalled,
}

pub(super) const TIMERS: [Timer; 8] = [
    Timer::Logon,
    Timer::Logout,
    Timer::Schedule,
    Timer::ResetSeqTime,
    Timer::HeartbeatTimeout,
    Timer::TestRequest,
    Timer::Heartbeat,
    Timer::ResendStalled,
];

/// `secs` seconds in [`Nanos`], saturating (a HeartBtInt of 2^31 - 1 s is
/// 2.1e18 ns, close enough to `i64::MAX` that products and sums must not wrap).
pub(super) fn secs(secs: u32) -> Nanos {
    Nanos::from(secs).saturating_mul(SECOND)
}

/// `interval × num / den`, saturating.
pub(super) fn scaled(interval: Nanos, num: i64, den: i64) -> Nanos {
    (interval / den)
        .saturating_mul(num)
        .saturating_add((interval % den) * num / den)
}

impl<S: MessageStore> Core<S> {
    /// Whether the store predates the current schedule period.
    pub(super) fn new_period(&self) -> bool {
        self.calendar
            .new_period(self.outgoing.store.creation_time())
    }

    /// Brings the schedule's answers up to now (zone rules only at a boundary); a
    /// `ResetSeqTime` that comes while the session is not logged on passes (as in
    /// QuickFIX/Go: the next Logon starts where the numbers are).
    #[inline]
    pub(super) fn tick_calendar(&mut self) {
        let now = self.now();
        self.calendar.refresh(&self.config, now);
        if now >= self.calendar.next_reset && !matches!(self.state, State::LoggedOn(_)) {
            self.calendar.reset_passed(&self.config, now);
        }
    }

    /// When `timer` is due (`None`: not armed in this state).
    pub(super) fn deadline(&self, timer: Timer) -> Option<Nanos> {
        // Heartbeats, TestRequests and the schedule run while logged on (not
        // while our Logout waits for the peer's: LogoutTimeout rules then).
        let live = match &self.state {
            State::LoggedOn(live) => Some(live),
            _ => None,
        };
        let heartbeats = live.filter(|l| l.heartbeat_secs > 0);
        match timer {
            Timer::Logon => match self.state {
                State::AwaitingLogon { since } | State::LogonSent { since, .. } => {
                    Some(since.saturating_add(secs(self.config.logon_timeout_secs)))
                }
                _ => None,
            },
            Timer::Logout => match self.state {
                State::LogoutSent { since, .. } => {
                    Some(since.saturating_add(secs(self.config.logout_timeout_secs)))
                }
                _ => None,
            },
            Timer::Schedule => {
                live?;
                let next = self.calendar.next_change()?;
                // The window closed, or a new period began while connected (a window
                // open around the clock still starts afresh each period): due now.
                Some(if !self.calendar.open() || self.new_period() {
                    self.now()
                } else {
                    next
                })
            }
            // Not held back by a reset still unanswered: a QuickFIX/Go initiator
            // resets on ours without answering it.
            Timer::ResetSeqTime => live
                .map(|_| self.calendar.next_reset)
                .filter(|&t| t < Nanos::MAX),
            Timer::HeartbeatTimeout => heartbeats.map(|l| {
                l.last_received
                    .saturating_add(scaled(secs(l.heartbeat_secs), 12, 5))
            }),
            Timer::TestRequest => heartbeats.map(|l| {
                let n = i64::from(l.test_requests) + 1;
                l.last_received
                    .saturating_add(scaled(secs(l.heartbeat_secs), 6 * n, 5))
            }),
            Timer::Heartbeat => heartbeats.filter(|l| l.test_requests == 0).map(|l| {
                self.outgoing
                    .writer
                    .last_sent
                    .saturating_add(secs(l.heartbeat_secs))
            }),
            Timer::ResendStalled => {
                let gap = live?.gap?;
                let timeout = self.config.resend_request_timeout_secs;
                (timeout > 0).then(|| gap.last_progress.saturating_add(secs(timeout)))
            }
        }
    }

    /// What a due timer does.
    pub(super) fn fire(&mut self, timer: Timer, app: &mut dyn Application) {
        match timer {
            Timer::Logon => self.disconnect(DisconnectReason::LogonTimeout),
            Timer::Logout => self.disconnect(DisconnectReason::LogoutTimeout),
            Timer::Schedule => self.initiate_logout(None, app),
            Timer::ResetSeqTime => {
                let now = self.now();
                self.calendar.reset_passed(&self.config, now);
                self.send_reset_logon(app);
            }
            Timer::HeartbeatTimeout => self.disconnect(DisconnectReason::HeartbeatTimeout),
            Timer::TestRequest => {
                self.send_test_request(app);
                if let Some(live) = self.live_mut() {
                    live.test_requests += 1;
                }
            }
            Timer::Heartbeat => self.send_heartbeat(None, app),
            Timer::ResendStalled => {
                // The gap made no progress (a resend lost a message, or was never
                // answered): ask again for what is still missing.
                if let Some(gap) = self.live().and_then(|live| live.gap) {
                    let expected = self.expected();
                    if expected <= gap.end {
                        self.send_resend_request(expected, gap.end, app);
                    } else if let Some(live) = self.live_mut() {
                        live.gap = None;
                    }
                }
            }
        }
    }

    /// Fires every timer that is due, in [`TIMERS`] order (each re-read after the
    /// one before, which may have changed the state).
    pub(super) fn on_timer(&mut self, app: &mut dyn Application) {
        let now = self.now();
        for timer in TIMERS {
            if self.deadline(timer).is_some_and(|d| d <= now) {
                self.fire(timer, app);
            }
        }
    }

    pub(super) fn next_deadline(&self) -> Option<Nanos> {
        TIMERS.iter().filter_map(|&t| self.deadline(t)).min()
    }
}

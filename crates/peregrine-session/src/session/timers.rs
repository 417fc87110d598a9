//! The session's timers: one table that `on_timer` fires and `next_deadline`
//! reads.

use peregrine_store::MessageStore;

use crate::config::{Nanos, SECOND};

use super::core::Core;
use super::events::{DisconnectReason, SessionState};

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
    /// Nothing received for 2.4 heartbeat intervals: the peer is gone.
    HeartbeatTimeout,
    /// Nothing received for 1.2 heartbeat intervals: ask with a TestRequest.
    TestRequest,
    /// Nothing sent for a heartbeat interval.
    Heartbeat,
    /// Our ResendRequest made no progress within ResendRequestTimeout.
    ResendStalled,
}

pub(super) const TIMERS: [Timer; 7] = [
    Timer::Logon,
    Timer::Logout,
    Timer::Schedule,
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
    pub(super) fn new_period(&self, now: Nanos) -> bool {
        self.cfg
            .schedule
            .is_some_and(|s| self.tx.store.creation_time() < s.period_start(now))
    }

    /// When `timer` is due (`None`: not armed in this state).
    pub(super) fn deadline(&self, timer: Timer) -> Option<Nanos> {
        let logged_on = self.state == SessionState::LoggedOn;
        let hb = secs(self.hb_secs);
        match timer {
            Timer::Logon => matches!(
                self.state,
                SessionState::AwaitingLogon | SessionState::LogonSent
            )
            .then(|| self.since.saturating_add(secs(self.cfg.logon_timeout_secs))),
            Timer::Logout => (self.state == SessionState::LogoutSent).then(|| {
                self.since
                    .saturating_add(secs(self.cfg.logout_timeout_secs))
            }),
            Timer::Schedule => {
                let s = self.cfg.schedule.filter(|_| logged_on)?;
                let now = self.now();
                // The window closed, or a new period began while connected (a window
                // open around the clock still starts afresh each period): due now.
                Some(if !s.contains(now) || self.new_period(now) {
                    now
                } else {
                    s.next_boundary(now)
                })
            }
            Timer::HeartbeatTimeout => (logged_on && self.hb_secs > 0)
                .then(|| self.last_received.saturating_add(scaled(hb, 12, 5))),
            Timer::TestRequest => (logged_on && self.hb_secs > 0).then(|| {
                let n = i64::from(self.test_requests) + 1;
                self.last_received.saturating_add(scaled(hb, 6 * n, 5))
            }),
            Timer::Heartbeat => (logged_on && self.hb_secs > 0 && self.test_requests == 0)
                .then(|| self.tx.w.last_sent.saturating_add(hb)),
            Timer::ResendStalled => {
                let r = self.resend.filter(|_| logged_on)?;
                let timeout = self.cfg.resend_request_timeout_secs;
                (timeout > 0).then(|| r.last_progress.saturating_add(secs(timeout)))
            }
        }
    }

    pub(super) fn fire(&mut self, timer: Timer) {
        match timer {
            Timer::Logon => self.disconnect(DisconnectReason::LogonTimeout),
            Timer::Logout => self.disconnect(DisconnectReason::LogoutTimeout),
            Timer::Schedule => self.initiate_logout(None),
            Timer::HeartbeatTimeout => self.disconnect(DisconnectReason::HeartbeatTimeout),
            Timer::TestRequest => {
                self.tx.admin(b"1", &[], &mut |m| {
                    m.str(112, b"TEST");
                });
                self.test_requests += 1;
            }
            Timer::Heartbeat => self.send_heartbeat(None),
            Timer::ResendStalled => {
                // The gap made no progress (a resend lost a message, or was never
                // answered): ask again for what is still missing.
                if let Some(r) = self.resend {
                    let expected = self.expected();
                    if expected <= r.end {
                        self.send_resend_request(expected, r.end);
                    } else {
                        self.resend = None;
                    }
                }
            }
        }
    }

    /// Fires every timer that is due, in [`TIMERS`] order (each re-read after the
    /// one before, which may have changed the state).
    pub(super) fn on_timer(&mut self) {
        let now = self.now();
        for timer in TIMERS {
            if self.deadline(timer).is_some_and(|d| d <= now) {
                self.fire(timer);
            }
        }
    }

    pub(super) fn next_deadline(&self) -> Option<Nanos> {
        TIMERS.iter().filter_map(|&t| self.deadline(t)).min()
    }
}

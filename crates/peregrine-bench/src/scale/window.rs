//! What the streaming receiver measures: the message rate over a window that starts one
//! second after the first application message (the first second is warm-up), in 100 ms
//! intervals; and the sequence check (every MsgSeqNum exactly the previous + 1).

use std::time::{Duration, Instant};

/// The warm-up skipped after the first message.
pub const WARMUP: Duration = Duration::from_secs(1);

/// The interval the per-interval rates are taken over.
pub const INTERVAL: Duration = Duration::from_millis(100);

/// Counts messages into 100 ms intervals from the first one; the intervals of the
/// window `[1 s, 1 s + seconds)` are the measurement. Bounded: one counter per interval
/// of the warm-up and the window, allocated up front; later messages are counted in
/// [`after`](Self::after) only.
///
/// ```
/// use std::time::{Duration, Instant};
/// use peregrine_bench::scale::window::RateWindow;
///
/// let mut w = RateWindow::new(2);
/// let t0 = Instant::now();
/// // 1,000 messages every 100 ms for 3.5 s
/// for i in 0..35u32 {
///     for _ in 0..1_000 {
///         w.count_at(t0 + Duration::from_millis(100) * i);
///     }
/// }
/// let r = w.result().unwrap();
/// assert_eq!(r.messages, 20_000); // the intervals 1.0 s … 2.9 s
/// assert_eq!(r.per_second, 10_000.0);
/// assert_eq!((r.intervals.len(), r.intervals[0]), (20, 10_000.0));
/// ```
#[derive(Clone, Debug)]
pub struct RateWindow {
    first: Option<Instant>,
    last: Option<Instant>,
    /// The interval the last message fell in (counted from the first).
    last_interval: Option<usize>,
    buckets: Vec<u64>,
    warmup_buckets: usize,
    after: u64,
}

/// The window's figures ([`RateWindow::result`]).
///
/// ```
/// use std::time::{Duration, Instant};
/// use peregrine_bench::scale::window::RateWindow;
/// let mut w = RateWindow::new(1);
/// let t0 = Instant::now();
/// for ms in (0..1_500).step_by(10) {
///     w.count_at(t0 + Duration::from_millis(ms));
/// }
/// let r = w.result().unwrap(); // the stream ended half-way through the window
/// assert!(r.short && r.intervals.len() == 4);
/// assert_eq!((r.messages, r.per_second), (40, 100.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WindowResult {
    /// Messages counted in the window.
    pub messages: u64,
    /// The window's length used for the rate (shorter than asked when the stream
    /// ended inside it: then only the intervals it covered count).
    pub seconds: f64,
    /// `messages / seconds`.
    pub per_second: f64,
    /// The rate of each 100 ms interval of the window (msg/s).
    pub intervals: Vec<f64>,
    /// The stream ended before the window did.
    pub short: bool,
}

impl RateWindow {
    /// A window of `seconds` after the warm-up.
    ///
    /// ```
    /// let w = peregrine_bench::scale::window::RateWindow::new(5);
    /// assert!(w.result().is_none() && !w.complete());
    /// ```
    pub fn new(seconds: u64) -> RateWindow {
        let per_second = (Duration::from_secs(1).as_nanos() / INTERVAL.as_nanos()) as usize;
        let warmup_buckets = (WARMUP.as_nanos() / INTERVAL.as_nanos()) as usize;
        RateWindow {
            first: None,
            last: None,
            last_interval: None,
            buckets: vec![0; warmup_buckets + per_second * seconds.max(1) as usize],
            warmup_buckets,
            after: 0,
        }
    }

    /// Counts one message received now.
    ///
    /// ```
    /// let mut w = peregrine_bench::scale::window::RateWindow::new(1);
    /// w.count(); // the first message: the warm-up starts
    /// assert!(!w.in_window());
    /// ```
    #[inline]
    pub fn count(&mut self) {
        self.count_at(Instant::now());
    }

    /// Counts one message received at `at`.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// let mut w = peregrine_bench::scale::window::RateWindow::new(1);
    /// let t0 = Instant::now();
    /// w.count_at(t0);
    /// w.count_at(t0 + Duration::from_millis(1_200));
    /// assert!(w.in_window());
    /// ```
    #[inline]
    pub fn count_at(&mut self, at: Instant) {
        let first = *self.first.get_or_insert(at);
        self.last = Some(at);
        let i = (at.saturating_duration_since(first).as_nanos() / INTERVAL.as_nanos()) as usize;
        self.last_interval = Some(i);
        match self.buckets.get_mut(i) {
            Some(b) => *b += 1,
            None => self.after += 1,
        }
    }

    /// Whether the last message counted fell in the window (after the warm-up,
    /// before the window's end).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use peregrine_bench::scale::window::RateWindow;
    /// let mut w = RateWindow::new(1);
    /// let t0 = Instant::now();
    /// w.count_at(t0);
    /// assert!(!w.in_window(), "warm-up");
    /// w.count_at(t0 + Duration::from_millis(1_500));
    /// assert!(w.in_window());
    /// w.count_at(t0 + Duration::from_millis(2_500));
    /// assert!(!w.in_window() && w.complete(), "after it");
    /// ```
    pub fn in_window(&self) -> bool {
        self.last_interval
            .is_some_and(|i| i >= self.warmup_buckets && i < self.buckets.len())
    }

    /// Whether the window is over (a message came after its end).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// let mut w = peregrine_bench::scale::window::RateWindow::new(1);
    /// let t0 = Instant::now();
    /// w.count_at(t0);
    /// assert!(!w.complete());
    /// w.count_at(t0 + Duration::from_secs(2)); // warm-up 1 s + window 1 s
    /// assert!(w.complete());
    /// ```
    pub fn complete(&self) -> bool {
        self.after > 0
    }

    /// Messages counted after the window.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// let mut w = peregrine_bench::scale::window::RateWindow::new(1);
    /// let t0 = Instant::now();
    /// for s in 0..4 {
    ///     w.count_at(t0 + Duration::from_secs(s));
    /// }
    /// assert_eq!(w.after(), 2); // at 2 s and 3 s
    /// ```
    pub fn after(&self) -> u64 {
        self.after
    }

    /// The figures; `None` when no message reached the window.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// let mut w = peregrine_bench::scale::window::RateWindow::new(1);
    /// let t0 = Instant::now();
    /// w.count_at(t0);
    /// w.count_at(t0 + Duration::from_millis(500));
    /// assert!(w.result().is_none(), "all in the warm-up");
    /// ```
    pub fn result(&self) -> Option<WindowResult> {
        let (first, last) = (self.first?, self.last?);
        let window = &self.buckets[self.warmup_buckets..];
        // Intervals the stream covered: all when it went on past the window; else up to
        // the last complete interval before its last message.
        let covered = if self.complete() {
            window.len()
        } else {
            let since = last.saturating_duration_since(first);
            let whole = (since.as_nanos() / INTERVAL.as_nanos()) as usize;
            whole.saturating_sub(self.warmup_buckets).min(window.len())
        };
        if covered == 0 {
            return None;
        }
        let per_interval = 1.0 / INTERVAL.as_secs_f64();
        let window = &window[..covered];
        let messages: u64 = window.iter().sum();
        let seconds = covered as f64 * INTERVAL.as_secs_f64();
        Some(WindowResult {
            messages,
            seconds,
            per_second: messages as f64 / seconds,
            intervals: window.iter().map(|&n| n as f64 * per_interval).collect(),
            short: covered < self.buckets.len() - self.warmup_buckets,
        })
    }
}

/// Checks that MsgSeqNum(34) is exactly the previous + 1, from 1 (every message the
/// session hands the application, admin and application alike); remembers the first
/// error.
///
/// ```
/// use peregrine_bench::scale::window::SeqCheck;
/// let mut c = SeqCheck::default();
/// for seq in [1, 2, 3, 5, 6] {
///     c.check(Some(seq));
/// }
/// assert_eq!(c.errors(), 1);
/// assert_eq!(c.first_error(), Some("MsgSeqNum 5 after 3 (expected 4)"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct SeqCheck {
    last: u64,
    errors: u64,
    first_error: Option<String>,
}

impl SeqCheck {
    /// Checks the next message's MsgSeqNum (`None`: missing or not a number).
    ///
    /// ```
    /// let mut c = peregrine_bench::scale::window::SeqCheck::default();
    /// c.check(Some(1));
    /// c.check(None);
    /// assert_eq!(c.first_error(), Some("MsgSeqNum missing or not a number after 1"));
    /// ```
    #[inline]
    pub fn check(&mut self, seq: Option<u64>) {
        let expected = self.last + 1;
        match seq {
            Some(s) if s == expected => self.last = s,
            other => {
                self.errors += 1;
                if self.first_error.is_none() {
                    self.first_error = Some(match other {
                        Some(s) => {
                            format!("MsgSeqNum {s} after {} (expected {expected})", self.last)
                        }
                        None => format!("MsgSeqNum missing or not a number after {}", self.last),
                    });
                }
                if let Some(s) = other {
                    self.last = s;
                }
            }
        }
    }

    /// Counts an error that is not a number out of order: a SequenceReset or a
    /// message sent again (PossDupFlag=Y), which mean the stream had a gap the
    /// session layer filled.
    ///
    /// ```
    /// use peregrine_bench::scale::window::SeqCheck;
    /// let mut c = SeqCheck::default();
    /// c.check(Some(1));
    /// c.fail("SequenceReset 2 → 9 (a gap filled)");
    /// assert_eq!((c.errors(), c.first_error()), (1, Some("SequenceReset 2 → 9 (a gap filled)")));
    /// ```
    pub fn fail(&mut self, why: impl Into<String>) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(why.into());
        }
    }

    /// Errors so far.
    ///
    /// ```
    /// let mut c = peregrine_bench::scale::window::SeqCheck::default();
    /// c.check(Some(2)); // 1 expected
    /// c.check(Some(2)); // a duplicate
    /// assert_eq!(c.errors(), 2);
    /// ```
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// The first error, in words.
    ///
    /// ```
    /// let mut c = peregrine_bench::scale::window::SeqCheck::default();
    /// c.check(Some(1));
    /// assert_eq!(c.first_error(), None);
    /// ```
    pub fn first_error(&self) -> Option<&str> {
        self.first_error.as_deref()
    }

    /// The last MsgSeqNum seen.
    ///
    /// ```
    /// let mut c = peregrine_bench::scale::window::SeqCheck::default();
    /// c.check(Some(1));
    /// c.check(Some(7)); // an error, and where the count goes on from
    /// assert_eq!(c.last(), 7);
    /// ```
    pub fn last(&self) -> u64 {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_that_ends_inside_the_window_is_rated_over_what_it_covered() {
        let mut w = RateWindow::new(5);
        let t0 = Instant::now();
        // 2.55 s of 100 messages per 10 ms
        for i in 0..255u32 {
            for _ in 0..100 {
                w.count_at(t0 + Duration::from_millis(10) * i);
            }
        }
        let r = w.result().unwrap();
        assert!(r.short);
        assert_eq!(r.intervals.len(), 15); // 1.0 … 2.5 s
        assert_eq!(r.messages, 150 * 100);
        assert!((r.per_second - 10_000.0).abs() < 1e-6);
    }

    #[test]
    fn nothing_in_the_window_is_no_result() {
        let mut w = RateWindow::new(1);
        w.count();
        assert!(w.result().is_none());
        assert!(!w.complete());
    }

    #[test]
    fn duplicates_and_a_missing_number_are_errors() {
        let mut c = SeqCheck::default();
        for s in [Some(1), Some(2), Some(2), None, Some(3)] {
            c.check(s);
        }
        assert_eq!(c.errors(), 2);
        assert_eq!(c.first_error(), Some("MsgSeqNum 2 after 2 (expected 3)"));
        assert_eq!(c.last(), 3);
        let mut fine = SeqCheck::default();
        (1..=1000).for_each(|s| fine.check(Some(s)));
        assert_eq!(fine.errors(), 0);
    }
}

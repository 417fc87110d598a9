//! Step timing: each part stamps the points a round trip passes with [`crate::clock::now`]
//! into a shared [`Stamps`]; the venue, once the round trip is back, turns the eleven
//! points into ten step durations and records each into its own HDR histogram.
//!
//! One order is in flight at a time (ping-pong), so one slot per point is enough.

use hdrhistogram::Histogram;
use peregrine_report::us;
use std::sync::atomic::{AtomicU64, Ordering};

/// The points a round trip passes, in order: one slot of [`Stamps`] each.
///
/// ```
/// use peregrine_topology::steps::{point, STEPS};
///
/// let all = [
///     point::VENUE_SEND, point::GW_READ, point::GW_PARSED, point::GW_EXTRACTED,
///     point::GW_ENCODED, point::GW_PUBLISHED, point::EX_DECODED, point::EX_PUBLISHED,
///     point::GW_ER_DECODED, point::GW_WRITTEN, point::VENUE_RECEIVED,
/// ];
/// assert!(all.iter().enumerate().all(|(i, p)| *p == i), "in order, from 0");
/// assert_eq!(all.len(), point::COUNT);
/// assert_eq!(STEPS.len(), point::COUNT - 1); // a step between each two points
/// ```
pub mod point {
    /// Venue: about to build and send the NewOrderSingle.
    pub const VENUE_SEND: usize = 0;
    /// Gateway: the engine handed the session the bytes read from TCP.
    pub const GW_READ: usize = 1;
    /// Gateway: the session has framed, validated and sequenced the message and calls the
    /// application.
    pub const GW_PARSED: usize = 2;
    /// Gateway: the fields are extracted into a typed, fixed-point order.
    pub const GW_EXTRACTED: usize = 3;
    /// Gateway: the SBE `NewOrder` is encoded.
    pub const GW_ENCODED: usize = 4;
    /// Gateway: the `NewOrder` is published (try_claim, copy, commit).
    pub const GW_PUBLISHED: usize = 5;
    /// Executor: the `NewOrder` is received and decoded.
    pub const EX_DECODED: usize = 6;
    /// Executor: the filled SBE `ExecutionReport` is encoded and published.
    pub const EX_PUBLISHED: usize = 7;
    /// Gateway: the SBE `ExecutionReport` is received and decoded.
    pub const GW_ER_DECODED: usize = 8;
    /// Gateway: the FIX ExecutionReport is built, stored and written to TCP.
    pub const GW_WRITTEN: usize = 9;
    /// Venue: the FIX ExecutionReport is read, validated and handed to the application.
    pub const VENUE_RECEIVED: usize = 10;
    /// Number of points.
    pub const COUNT: usize = 11;
}

/// The steps between consecutive points (the nine steps of BENCHMARKS.md §3, with the
/// TCP hops folded into the step that starts them, and the return leg to the venue as
/// the tenth), so that the steps add up to the round trip.
///
/// ```
/// use peregrine_topology::steps::STEPS;
/// assert!(STEPS[0].starts_with("1 venue") && STEPS[9].starts_with("10 TCP"));
/// ```
pub const STEPS: [&str; point::COUNT - 1] = [
    "1 venue builds NOS, writes TCP → gateway reads it",
    "2 gateway session parses + validates NOS",
    "3 gateway extracts fields (fixed point)",
    "4 gateway encodes SBE NewOrder",
    "5 gateway publishes (Aeron try_claim)",
    "6 Aeron → executor decodes NewOrder",
    "7 executor encodes + publishes filled ER",
    "8 Aeron → gateway decodes SBE ER",
    "9 gateway builds FIX ER, writes TCP",
    "10 TCP → venue parses ER, records",
];

/// The shared stamp slots of the one order in flight.
///
/// ```
/// use std::sync::Arc;
/// use peregrine_topology::steps::{point, Stamps};
///
/// let stamps = Arc::new(Stamps::new());
/// let gateway = stamps.clone(); // each part holds one
/// std::thread::spawn(move || {
///     gateway.stamp(point::GW_READ);
///     gateway.gateway_finished();
/// })
/// .join()
/// .unwrap();
/// assert_eq!(stamps.gateway_done(), 1);
/// assert!(stamps.get(point::GW_READ) > 0);
/// ```
#[derive(Debug, Default)]
pub struct Stamps {
    points: [AtomicU64; point::COUNT],
    /// Orders whose gateway stamps are all written (the gateway's last stamp,
    /// [`point::GW_WRITTEN`], is taken after the write, so it can land after the venue
    /// already has the reply).
    gateway_done: AtomicU64,
}

impl Stamps {
    /// Empty slots.
    ///
    /// ```
    /// let s = peregrine_topology::steps::Stamps::new();
    /// assert_eq!((s.get(0), s.gateway_done()), (0, 0));
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Stamps `point` with the current time.
    ///
    /// ```
    /// use peregrine_topology::{clock, steps::{point, Stamps}};
    /// let s = Stamps::new();
    /// let before = clock::now();
    /// s.stamp(point::EX_DECODED);
    /// assert!(s.get(point::EX_DECODED) >= before);
    /// ```
    #[inline]
    pub fn stamp(&self, point: usize) {
        self.set(point, crate::clock::now());
    }

    /// Stamps `point` with `t`.
    ///
    /// ```
    /// use peregrine_topology::steps::{point, Stamps};
    /// let s = Stamps::new();
    /// s.set(point::VENUE_SEND, 1_000);
    /// assert_eq!(s.get(point::VENUE_SEND), 1_000);
    /// ```
    #[inline]
    pub fn set(&self, point: usize, t: u64) {
        self.points[point].store(t, Ordering::Release);
    }

    /// The time at `point`.
    ///
    /// ```
    /// use peregrine_topology::steps::{point, Stamps};
    /// let s = Stamps::new();
    /// assert_eq!(s.get(point::VENUE_RECEIVED), 0, "not stamped yet");
    /// ```
    #[inline]
    pub fn get(&self, point: usize) -> u64 {
        self.points[point].load(Ordering::Acquire)
    }

    /// The gateway finished stamping one more order.
    ///
    /// ```
    /// let s = peregrine_topology::steps::Stamps::new();
    /// s.gateway_finished();
    /// s.gateway_finished();
    /// assert_eq!(s.gateway_done(), 2);
    /// ```
    #[inline]
    pub fn gateway_finished(&self) {
        self.gateway_done.fetch_add(1, Ordering::Release);
    }

    /// How many orders the gateway finished stamping.
    ///
    /// ```
    /// let s = peregrine_topology::steps::Stamps::new();
    /// assert_eq!(s.gateway_done(), 0);
    /// ```
    #[inline]
    pub fn gateway_done(&self) -> u64 {
        self.gateway_done.load(Ordering::Acquire)
    }
}

/// One HDR histogram per step, in nanoseconds.
///
/// ```
/// use peregrine_topology::steps::{StepHistograms, STEPS};
/// let h = StepHistograms::default();
/// assert_eq!(h.steps.len(), STEPS.len());
/// assert!(h.steps.iter().all(|s| s.is_empty()));
/// ```
#[derive(Debug, Clone)]
pub struct StepHistograms {
    /// `STEPS[i]`'s durations.
    pub steps: Vec<Histogram<u64>>,
}

pub use peregrine_report::new_histogram;

impl Default for StepHistograms {
    fn default() -> Self {
        StepHistograms {
            steps: (0..STEPS.len()).map(|_| new_histogram()).collect(),
        }
    }
}

impl StepHistograms {
    /// Records the steps of the round trip now in `stamps` (no allocation).
    ///
    /// ```
    /// use peregrine_topology::steps::{point, Stamps, StepHistograms};
    ///
    /// let stamps = Stamps::new();
    /// for p in 0..point::COUNT {
    ///     stamps.set(p, 1_000 * p as u64); // 1 µs a step
    /// }
    /// let mut h = StepHistograms::default();
    /// h.record(&stamps);
    /// assert!(h.steps.iter().all(|s| s.len() == 1 && s.max() == s.highest_equivalent(1_000)));
    /// ```
    #[inline]
    pub fn record(&mut self, stamps: &Stamps) {
        let mut prev = stamps.get(0);
        for (i, h) in self.steps.iter_mut().enumerate() {
            let t = stamps.get(i + 1);
            h.saturating_record(t.saturating_sub(prev).max(1));
            prev = t;
        }
    }

    /// Adds another run's histograms.
    ///
    /// ```
    /// use peregrine_topology::steps::{Stamps, StepHistograms};
    ///
    /// let mut one = StepHistograms::default();
    /// one.record(&Stamps::new());
    /// let mut all = StepHistograms::default();
    /// all.add(&one);
    /// all.add(&one);
    /// assert_eq!(all.steps[0].len(), 2);
    /// ```
    pub fn add(&mut self, other: &StepHistograms) {
        for (a, b) in self.steps.iter_mut().zip(&other.steps) {
            let _ = a.add(b);
        }
    }
}

/// The step breakdown as a Markdown table (µs), with the round trip's p50 beside the sum
/// of the steps' p50s; with the floor's steps (same points; its FIX and SBE steps take no
/// time), the floor's p50 of each step and the difference.
///
/// ```
/// use peregrine_topology::steps::{new_histogram, steps_table, Stamps, StepHistograms};
///
/// let mut steps = StepHistograms::default();
/// steps.record(&Stamps::new());
/// let mut rtt = new_histogram();
/// rtt.record(10_000).unwrap();
/// let table = steps_table(&steps, &rtt, None);
/// assert!(table.starts_with("| step | p50 |") && table.contains("(round trip p50: 10.0"));
/// ```
pub fn steps_table(
    steps: &StepHistograms,
    rtt: &Histogram<u64>,
    floor: Option<(&StepHistograms, &Histogram<u64>)>,
) -> String {
    let mut s = String::from("| step | p50 | mean | p99 | p99.9 |");
    if floor.is_some() {
        s.push_str(" floor p50 | p50 − floor p50 |\n|---|---:|---:|---:|---:|---:|---:|\n");
    } else {
        s.push_str("\n|---|---:|---:|---:|---:|\n");
    }
    let (mut sum, mut floor_sum) = (0.0, 0.0);
    for (i, (name, h)) in STEPS.iter().zip(&steps.steps).enumerate() {
        if h.is_empty() {
            continue;
        }
        sum += us(h, 0.5);
        s.push_str(&format!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2} |",
            us(h, 0.5),
            h.mean() / 1000.0,
            us(h, 0.99),
            us(h, 0.999)
        ));
        if let Some((f, _)) = floor {
            let fp = f
                .steps
                .get(i)
                .filter(|h| !h.is_empty())
                .map_or(0.0, |h| us(h, 0.5));
            floor_sum += fp;
            s.push_str(&format!(" {fp:.2} | {:+.2} |", us(h, 0.5) - fp));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "| sum of the step p50s (round trip p50: {:.2}) | {sum:.2} | | | |",
        us(rtt, 0.5)
    ));
    if let Some((_, frtt)) = floor {
        s.push_str(&format!(
            " {floor_sum:.2} (round trip {:.2}) | {:+.2} |",
            us(frtt, 0.5),
            sum - floor_sum
        ));
    }
    s.push('\n');
    s
}

/// The steps as JSON, one object per step: its name and p50, mean, p99, p99.9 in µs.
///
/// ```
/// use peregrine_topology::steps::{steps_json, StepHistograms, STEPS};
/// let json = steps_json(&StepHistograms::default());
/// assert_eq!(json.len(), STEPS.len());
/// assert_eq!(json[0]["step"], STEPS[0]);
/// ```
pub fn steps_json(steps: &StepHistograms) -> Vec<serde_json::Value> {
    STEPS
        .iter()
        .zip(&steps.steps)
        .map(|(n, h)| {
            serde_json::json!({"step": n, "p50": us(h, 0.5), "mean": h.mean() / 1000.0, "p99": us(h, 0.99), "p999": us(h, 0.999)})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_beside_the_floor() {
        let mut ours = StepHistograms::default();
        let mut floor = StepHistograms::default();
        let mut rtt = new_histogram();
        for (i, (o, f)) in ours.steps.iter_mut().zip(&mut floor.steps).enumerate() {
            o.record(1_000 * (i as u64 + 1)).unwrap();
            f.record(1_000).unwrap();
        }
        rtt.record(55_000).unwrap();
        let t = steps_table(&ours, &rtt, Some((&floor, &rtt)));
        // Step 10 takes 10 µs here, 1 µs in the floor (HDR: 3 significant digits).
        assert!(
            t.contains("| 10 TCP → venue parses ER, records | 10.01 | 10.00 | 10.01 | 10.01 | 1.00 | +9.01 |"),
            "{t}"
        );
        assert!(
            t.contains("| 55.03 |") && t.contains("| 10.00 (round trip 55.01) | +45.03 |"),
            "{t}"
        );
        let plain = steps_table(&ours, &rtt, None);
        assert!(!plain.contains("floor"));
        assert_eq!(plain.lines().count(), 2 + STEPS.len() + 1);
    }
}

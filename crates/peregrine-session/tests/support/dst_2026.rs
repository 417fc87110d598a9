//! The daylight-saving changes of 2026 in New York and London, as UTC instants:
//! shared by the schedule's unit tests (`src/schedule/tests.rs`) and
//! `tests/schedule_zones.rs`, each of which includes this file with `#[path]`.
//! `Nanos` and `SECOND` are the including module's.

use super::{Nanos, SECOND};

pub const M: Nanos = 60 * SECOND;
pub const H: Nanos = 60 * M;
/// 2026-03-08 00:00 UTC, a Sunday: New York springs forward at 07:00 UTC (02:00 EST → 03:00 EDT).
pub const NY_SPRING: Nanos = 1_772_928_000 * SECOND;
/// 2026-11-01 00:00 UTC, a Sunday: New York falls back at 06:00 UTC (02:00 EDT → 01:00 EST).
pub const NY_AUTUMN: Nanos = 1_793_491_200 * SECOND;
/// 2026-03-29 00:00 UTC, a Sunday: London springs forward at 01:00 UTC (01:00 GMT → 02:00 BST).
pub const LONDON_SPRING: Nanos = 1_774_742_400 * SECOND;
/// 2026-10-25 00:00 UTC, a Sunday: London falls back at 01:00 UTC (02:00 BST → 01:00 GMT).
pub const LONDON_AUTUMN: Nanos = 1_792_886_400 * SECOND;

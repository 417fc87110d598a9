//! Allocation counting for "allocations per operation" figures: the
//! workspace's one counting allocator, [`peregrine_alloc`], re-exported.
//!
//! The benchmark binary installs it with `#[global_allocator]` (a library
//! cannot), and the benchmarks read the counter around their measured loops.
//!
//! ```
//! let before = peregrine_bench::alloc::allocations();
//! let after = peregrine_bench::alloc::allocations();
//! assert!(after >= before);
//! ```

pub use peregrine_alloc::{
    allocations, is_counting, live_bytes, peak_bytes, reset_peak, CountingAllocator,
};

//! Allocation counting for "allocations per operation" figures.
//!
//! The allocator type lives here; the benchmark binary installs it with
//! `#[global_allocator]` (a library cannot), and the benchmarks read the
//! counter around their measured loops.
//!
//! ```
//! let before = peregrine_bench::alloc::allocations();
//! let after = peregrine_bench::alloc::allocations();
//! assert!(after >= before);
//! ```
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Counts every allocation and reallocation, forwarding to the system allocator.
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged;
// the only addition is a relaxed atomic increment.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

/// Allocations counted so far in this process (0 forever if the binary did not
/// install [`CountingAllocator`]; see [`is_counting`]).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Whether the running binary counts allocations (checked by allocating once).
pub fn is_counting() -> bool {
    let before = allocations();
    let v = std::hint::black_box(Box::new(7u64));
    drop(v);
    allocations() > before
}

//! A counting global allocator, for the tests and benchmarks that prove what
//! Peregrine allocates: the number of allocations (the hot paths make none),
//! and the bytes live and at their peak (every buffer has a stated bound).
//!
//! A library cannot install a global allocator; a test or benchmark binary
//! does:
//!
//! ```
//! use peregrine_alloc::{allocations, live_bytes, CountingAllocator};
//!
//! #[global_allocator]
//! static ALLOCATOR: CountingAllocator = CountingAllocator;
//!
//! let before = allocations();
//! let v = vec![0u8; 1000];
//! assert_eq!(allocations(), before + 1);
//! assert!(live_bytes() >= 1000);
//! drop(v);
//! ```
//!
//! Counting costs relaxed atomic operations per allocation and nothing on
//! paths that do not allocate. The counters are process-wide: a test that
//! reads them should not run other work on other threads at the same time.
//!
//! This is the one module of the workspace's tooling with `unsafe` code: the
//! allocator forwards every call to [`System`] unchanged.
#![allow(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Const-initialised and without a destructor: touching it neither
    // allocates nor re-enters the allocator.
    static THREAD_ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Counts one allocation, process-wide and for the calling thread.
fn counted() {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    // `try_with`: during thread teardown the slot may be gone; that
    // allocation is then counted process-wide only.
    let _ = THREAD_ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

/// Counts every allocation and reallocation and the bytes held, forwarding to
/// the system allocator.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

fn shrank(by: usize) {
    LIVE.fetch_sub(by, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; the only additions are relaxed atomic updates of counters and a
// const-initialised thread-local without a destructor, which neither allocate
// nor touch the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted();
        // SAFETY: the caller's contract for `alloc` (a layout of non-zero
        // size) is `System.alloc`'s, and `layout` is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        counted();
        // SAFETY: the caller's contract for `alloc_zeroed` (a layout of
        // non-zero size) is `System.alloc_zeroed`'s, and `layout` is passed on
        // unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        counted();
        // SAFETY: `ptr` and `layout` come from this allocator (`System`); the
        // caller guarantees `new_size`'s validity.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Allocations (and reallocations) counted so far in this process (0 forever
/// if the binary did not install [`CountingAllocator`]; see [`is_counting`]).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Allocations the calling thread made while `f` ran, and `f`'s result: for a
/// test that measures one path while the test harness's other threads run
/// other tests.
///
/// ```
/// use peregrine_alloc::{allocations_in, CountingAllocator};
///
/// #[global_allocator]
/// static ALLOCATOR: CountingAllocator = CountingAllocator;
///
/// let (sum, n) = allocations_in(|| (1..=10u64).sum::<u64>());
/// assert_eq!((sum, n), (55, 0));
/// let (_, n) = allocations_in(|| vec![1u8; 10]);
/// assert_eq!(n, 1);
/// ```
pub fn allocations_in<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = THREAD_ALLOCATIONS.with(Cell::get);
    let r = f();
    let after = THREAD_ALLOCATIONS.with(Cell::get);
    (r, after - before)
}

/// Bytes allocated and not freed, process-wide.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The most bytes live at once since the last [`reset_peak`].
pub fn peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak at the bytes live now.
pub fn reset_peak() {
    PEAK.store(live_bytes(), Ordering::Relaxed);
}

/// Whether the running binary counts allocations (checked by allocating once).
pub fn is_counting() -> bool {
    let before = allocations();
    let v = std::hint::black_box(Box::new(7u64));
    drop(v);
    allocations() > before
}

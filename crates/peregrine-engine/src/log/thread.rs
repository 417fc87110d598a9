//! The logging thread: it runs the ring's [`Reader`](super::reader::Reader)
//! and hands the files' buffers to the operating system whenever the ring is
//! empty, then parks: [`POLL_BUSY`] while lines came recently, [`POLL_IDLE`]
//! after that, and [`POLL_IDLE`] too while a spinning reactor reads the ring
//! in its idle turns (so that on a machine whose cores all spin, it does not
//! preempt that reactor a thousand times a second). The reactor wakes it when
//! the ring is half full or someone waits for a flush. A line therefore
//! reaches the file within [`POLL_IDLE`] of the reactor handing it over
//! (within 1 ms while a spinning reactor helps and has idle turns), at once on
//! [`SessionLog::flush`](super::SessionLog::flush).

use std::sync::atomic::Ordering;
use std::sync::{Arc, TryLockError};
use std::time::Duration;

use super::ring::Shared;
use crate::driver::now_nanos;

/// How long the logging thread parks while lines keep coming…
pub const POLL_BUSY: Duration = Duration::from_millis(1);
/// …and once none came for 50 polls (`IDLE_AFTER`), or while a reactor helps.
pub const POLL_IDLE: Duration = Duration::from_millis(10);
const IDLE_AFTER: u32 = 50;

/// Starts the logging thread of `shared`; it ends once every handle on
/// `shared` is gone and the ring is empty.
pub(super) fn spawn(shared: Arc<Shared>) -> std::io::Result<()> {
    let thread_shared = shared.clone();
    let handle = std::thread::Builder::new()
        .name("peregrine-log".into())
        .spawn(move || run(&thread_shared))?;
    *shared.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle.thread().clone());
    Ok(())
}

fn run(shared: &Arc<Shared>) {
    let mut empty_polls = 0u32;
    loop {
        let empty = {
            let mut reader = shared.reader();
            if reader.drain(shared, usize::MAX) {
                empty_polls = 0;
                continue;
            }
            reader.flush(usize::MAX);
            reader.is_empty()
        };
        if Arc::strong_count(shared) == 1 && empty {
            return;
        }
        shared.sleeping.store(true, Ordering::SeqCst);
        // A record pushed before the flag was up would not wake us: look once
        // more (unless the reactor is reading the ring right now).
        let pending = match shared.reader.try_lock() {
            Ok(r) => !r.is_empty(),
            Err(TryLockError::Poisoned(p)) => !p.into_inner().is_empty(),
            Err(TryLockError::WouldBlock) => false,
        };
        if pending {
            shared.sleeping.store(false, Ordering::SeqCst);
            continue;
        }
        empty_polls = empty_polls.saturating_add(1);
        let helped = shared.helped_recently(now_nanos(), POLL_IDLE);
        std::thread::park_timeout(if empty_polls < IDLE_AFTER && !helped {
            POLL_BUSY
        } else {
            POLL_IDLE
        });
        shared.sleeping.store(false, Ordering::SeqCst);
    }
}

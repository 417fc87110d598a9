//! What the topology and the floor share in starting, watching and joining their parts:
//! the Aeron ends of the gateway and the executor, a part's thread, the watch over the
//! venue, and joining a thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use peregrine_aeron::{AeronClient, ClientConfig, Publisher, SpinThenYield, Subscriber};

use crate::{Error, Result, Transport, ORDERS_STREAM, REPORTS_STREAM};

/// Which end of the Aeron hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// Publishes orders, subscribes to reports.
    Gateway,
    /// Subscribes to orders, publishes reports.
    Executor,
}

/// One end of the Aeron hop: a client of the media driver in `dir`, its publication and
/// its subscription (orders out and reports in for the [`End::Gateway`], the other way
/// round for the [`End::Executor`]). With `wait`, waits up to that long until the other
/// end has subscribed to the publication and published to the subscription.
///
/// Drop the publication and the subscription before the client.
///
/// # Errors
///
/// [`Error::Setup`] of `part`: no client, publication or subscription, or the other end
/// did not come within `wait`.
pub(crate) fn aeron_end(
    dir: &str,
    transport: &Transport,
    end: End,
    part: &'static str,
    wait: Option<Duration>,
) -> Result<(AeronClient, Publisher, Subscriber)> {
    let client = AeronClient::connect(&ClientConfig::with_dir(dir.to_string()))
        .map_err(|e| Error::setup(part, "aeron client", e))?;
    let (orders, reports) = transport.channels();
    let (publisher, subscriber) = match end {
        End::Gateway => (
            client
                .publisher(&orders, ORDERS_STREAM)
                .map_err(|e| Error::setup(part, "orders publication", e))?,
            client
                .subscriber(&reports, REPORTS_STREAM)
                .map_err(|e| Error::setup(part, "reports subscription", e))?,
        ),
        End::Executor => {
            let orders = client
                .subscriber(&orders, ORDERS_STREAM)
                .map_err(|e| Error::setup(part, "orders subscription", e))?;
            let reports = client
                .publisher(&reports, REPORTS_STREAM)
                .map_err(|e| Error::setup(part, "reports publication", e))?;
            (reports, orders)
        }
    };
    if let Some(timeout) = wait {
        let mut idle = SpinThenYield::default();
        publisher
            .wait_connected(&mut idle, timeout)
            .map_err(|e| Error::setup(part, "waiting for the other end's subscription", e))?;
        subscriber
            .wait_connected(&mut idle, timeout)
            .map_err(|e| Error::setup(part, "waiting for the other end's publication", e))?;
    }
    Ok((client, publisher, subscriber))
}

/// Runs `f` on a new thread named `name` (the part).
///
/// # Errors
///
/// [`Error::Setup`]: the thread could not be spawned.
pub(crate) fn spawn<T, F>(name: &'static str, f: F) -> Result<JoinHandle<Result<T>>>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| Error::setup(name, "thread", e))
}

/// Joins a part's thread.
///
/// # Errors
///
/// The part's own error, or [`Error::Panicked`].
pub(crate) fn join<T>(h: JoinHandle<Result<T>>, part: &'static str) -> Result<T> {
    h.join().map_err(|_| Error::Panicked { part })?
}

/// Watches the venue's thread until it ends or `give_up()` says the run cannot go on:
/// calls `progress(done, total)` about every 100 ms, and once more at the end.
pub(crate) fn watch<T>(
    venue: &JoinHandle<T>,
    done: &AtomicU64,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
    mut give_up: impl FnMut() -> bool,
) {
    while !venue.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        progress(done.load(Ordering::Relaxed), total);
        if give_up() {
            break;
        }
    }
    progress(done.load(Ordering::Relaxed), total);
}

//! Aeron publications and subscriptions over `rusteron-client`, with the media driver
//! embedded in-process (`rusteron-media-driver`) or running outside (`aeron.dir`).
//!
//! * [`MediaDriver`] runs Aeron's C media driver on a thread of this process, in its own
//!   directory, until dropped. [`AeronClient::embedded`] starts one and connects to it;
//!   [`AeronClient::connect`] connects to a driver that is already running (embedded by
//!   another part of the process, or a standalone `aeronmd` / Java driver).
//! * [`Channel`] names where messages go: [`Channel::ipc`] between processes or threads
//!   of one host (shared memory, no driver thread on the data path), [`Channel::udp`]
//!   across hosts.
//! * [`Publisher`] sends: a message that fits one frame is encoded straight into the
//!   term buffer with `try_claim` (no copy); a larger one is encoded into a reusable
//!   scratch buffer and sent with `offer`, which fragments it. Back pressure is never
//!   hidden: [`Publisher::publish`] makes one attempt and returns a typed
//!   [`PublishError`]; [`Publisher::publish_retry`] retries under an
//!   [`IdleStrategy`](crate::IdleStrategy) up to a deadline and then gives up with
//!   [`PublishError::GaveUp`]. Every refusal is counted in [`PublicationStats`].
//! * [`Subscriber`] receives through Aeron's fragment assembler, so a handler always
//!   sees whole messages.
//!
//! Handles are single-threaded (`!Send`): each thread makes its own [`AeronClient`] (they
//! share the one driver) and its publishers and subscribers.
//!
//! # Example
//!
//! Two threads of one process, each with its own client of one embedded driver:
//!
//! ```
//! use peregrine_aeron::{AeronClient, BusySpin, Channel, ClientConfig, DriverConfig};
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Sparse terms: this example maps its buffers quickly; a trading process pre-allocates.
//! let gateway = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
//! let mut orders = gateway.publisher(&Channel::ipc(), 1001)?;
//!
//! let dir = gateway.dir().to_string();
//! let executor = std::thread::spawn(move || -> Result<Vec<u8>, String> {
//!     let client = AeronClient::connect(&ClientConfig::with_dir(dir)).map_err(|e| e.to_string())?;
//!     let mut orders = client.subscriber(&Channel::ipc(), 1001).map_err(|e| e.to_string())?;
//!     let mut got = Vec::new();
//!     while got.is_empty() {
//!         orders.poll(|msg| got.extend_from_slice(msg), 10).map_err(|e| e.to_string())?;
//!     }
//!     Ok(got)
//! });
//!
//! orders.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
//! orders.publish_retry(&b"an already encoded message"[..], &mut BusySpin, Duration::from_secs(1))?;
//! assert_eq!(executor.join().unwrap()?, b"an already encoded message");
//! # Ok(()) }
//! ```

mod channel;
mod client;
mod driver;
mod error;
mod publish_error;
mod publisher;
mod subscriber;
mod wait;

pub use channel::Channel;
pub use client::{AeronClient, ClientConfig};
pub use driver::{DriverConfig, DriverIdle, MediaDriver, Threading};
pub use error::TransportError;
pub use publish_error::{PublicationStats, PublishError, Refusal};
pub use publisher::Publisher;
pub use subscriber::{Subscriber, SubscriptionStats};

//! [`Subscriber`]: one subscription, reassembling fragments into whole messages.

use std::rc::Rc;
use std::time::Duration;

use rusteron_client::{AeronFragmentClosureAssembler, AeronHeader, AeronSubscription};

use super::error::aeron_err;
use super::wait::wait_connected;
use super::{MediaDriver, TransportError};
use crate::idle::IdleStrategy;

/// What a [`Subscriber`] has received.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, SubscriptionStats};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(10))?;
/// while subscriber.poll(|_| {}, 10)? == 0 {}
/// assert_eq!(subscriber.stats(), SubscriptionStats { messages: 1, bytes: 5, fragments: 1 });
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionStats {
    /// Whole messages handed to handlers.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Fragments read (a message larger than one frame is several).
    pub fragments: u64,
}

/// Receives whole messages from one subscription.
///
/// A message larger than one frame arrives in fragments; the subscriber reassembles them,
/// so the handler of [`poll`](Subscriber::poll) sees it whole.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, IdleStrategy};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
///
/// let big = vec![7u8; 5000];
/// publisher.publish_retry(&big[..], &mut BusySpin, Duration::from_secs(1))?;
///
/// let mut idle = BusySpin;
/// let mut got = Vec::new();
/// while got.is_empty() {
///     let fragments = subscriber.poll(|msg| got.extend_from_slice(msg), 10)?;
///     idle.idle(fragments); // spins, yields or parks only when there was no work
/// }
/// assert_eq!(got, big);
/// let stats = subscriber.stats();
/// assert_eq!(stats.messages, 1);
/// assert!(stats.fragments > 1);
/// # Ok(()) }
/// ```
pub struct Subscriber {
    pub(super) subscription: AeronSubscription,
    pub(super) assembler: AeronFragmentClosureAssembler,
    pub(super) stats: SubscriptionStats,
    pub(super) _driver: Option<Rc<MediaDriver>>,
}

struct PollContext<'h, F> {
    handler: &'h mut F,
    messages: u64,
    bytes: u64,
}

fn deliver<F: FnMut(&[u8])>(ctx: &mut PollContext<'_, F>, message: &[u8], _header: AeronHeader) {
    ctx.messages += 1;
    ctx.bytes += message.len() as u64;
    (ctx.handler)(message);
}

impl Subscriber {
    /// Read up to `fragment_limit` fragments, handing each complete message to `handler`.
    /// Returns the number of fragments read (0: nothing was waiting).
    ///
    /// # Errors
    ///
    /// [`TransportError::Aeron`] when Aeron's poll fails, which happens only when the
    /// subscription is no longer usable (the client or driver has closed it).
    ///
    /// # Panics
    ///
    /// When `handler` panics: `rusteron` carries the panic across Aeron's C code to the
    /// caller of `poll`. The next poll starts from Aeron's last committed position, so
    /// messages this poll had handed over may be handed over again.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// assert_eq!(subscriber.poll(|_| unreachable!(), 10)?, 0); // nothing waiting
    ///
    /// for body in [&b"one"[..], b"two", b"six"] {
    ///     publisher.publish_retry(body, &mut BusySpin, Duration::from_secs(10))?;
    /// }
    /// // At most `fragment_limit` fragments a call: a limit keeps one busy stream from
    /// // starving the others a loop polls.
    /// let mut got = Vec::new();
    /// while got.len() < 3 {
    ///     assert!(subscriber.poll(|msg| got.push(msg.to_vec()), 1)? <= 1);
    /// }
    /// assert_eq!(got, [b"one", b"two", b"six"]);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn poll<F: FnMut(&[u8])>(
        &mut self,
        mut handler: F,
        fragment_limit: usize,
    ) -> Result<usize, TransportError> {
        let mut ctx = PollContext {
            handler: &mut handler,
            messages: 0,
            bytes: 0,
        };
        let fragments = self
            .assembler
            .poll(&self.subscription, &mut ctx, deliver::<F>, fragment_limit)
            .map_err(aeron_err("poll"))?;
        let fragments = usize::try_from(fragments).unwrap_or(0);
        self.stats.messages += ctx.messages;
        self.stats.bytes += ctx.bytes;
        self.stats.fragments += fragments as u64;
        Ok(fragments)
    }

    /// Whether at least one publisher's image is connected.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// assert!(!subscriber.is_connected());
    /// let _publisher = client.publisher(&Channel::ipc(), 7)?;
    /// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// assert!(subscriber.is_connected());
    /// # Ok(()) }
    /// ```
    pub fn is_connected(&self) -> bool {
        self.subscription.is_connected()
    }

    /// Wait (with `idle`) until a publisher is connected, at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Timeout`] when no publisher has connected within `timeout`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, TransportError};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let alone = subscriber.wait_connected(&mut BusySpin, Duration::from_millis(10));
    /// assert!(matches!(alone, Err(TransportError::Timeout("a publisher to connect"))));
    ///
    /// let _publisher = client.publisher(&Channel::ipc(), 7)?;
    /// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn wait_connected(
        &self,
        idle: &mut impl IdleStrategy,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        wait_connected(
            || self.is_connected(),
            idle,
            timeout,
            "a publisher to connect",
        )
    }

    /// Counters so far.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// let two_frames = vec![0u8; publisher.max_claim_length() + 1];
    /// publisher.publish_retry(&two_frames[..], &mut BusySpin, Duration::from_secs(10))?;
    /// while subscriber.stats().messages == 0 {
    ///     subscriber.poll(|msg| assert_eq!(msg.len(), two_frames.len()), 10)?;
    /// }
    /// assert_eq!(subscriber.stats().fragments, 2); // reassembled into one message
    /// # Ok(()) }
    /// ```
    pub fn stats(&self) -> SubscriptionStats {
        self.stats
    }
}

impl std::fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriber")
            .field("stats", &self.stats)
            .finish()
    }
}

//! [`Publisher`]: one exclusive publication, written in place with `try_claim` or offered.

use std::rc::Rc;
use std::time::{Duration, Instant};

use rusteron_client::{AeronExclusivePublication, AeronOfferError};

use super::wait::wait_connected;
use super::{MediaDriver, PublicationStats, PublishError, Refusal, TransportError};
use crate::idle::IdleStrategy;
use crate::messages::Encode;

/// Sends messages on one exclusive publication.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublishError, Refusal};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
///
/// // No subscriber yet: refused, counted, and safe to offer again.
/// let refused = publisher.publish_bytes(b"hello").unwrap_err();
/// assert_eq!(refused, PublishError::Refused(Refusal::NotConnected));
/// assert_eq!(publisher.stats().not_connected, 1);
///
/// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
/// publisher.publish_retry(&b"hello"[..], &mut BusySpin, Duration::from_secs(1))?;
/// // Larger than a frame: copied and sent in fragments.
/// let big = vec![7u8; 3 * publisher.max_claim_length()];
/// publisher.publish_retry(&big[..], &mut BusySpin, Duration::from_secs(1))?;
///
/// let stats = publisher.stats();
/// assert_eq!((stats.messages, stats.claimed, stats.offered), (2, 1, 1));
/// # Ok(()) }
/// ```
pub struct Publisher {
    pub(super) publication: AeronExclusivePublication,
    pub(super) max_payload: usize,
    pub(super) max_message: usize,
    pub(super) scratch: Vec<u8>,
    pub(super) stats: PublicationStats,
    pub(super) _driver: Option<Rc<MediaDriver>>,
}

impl Publisher {
    /// The largest message sent in place with `try_claim` (MTU minus the frame header);
    /// anything longer is copied and fragmented by `offer`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// let fits = vec![1u8; publisher.max_claim_length()];
    /// let one_more = vec![1u8; publisher.max_claim_length() + 1];
    /// publisher.publish_retry(&fits[..], &mut BusySpin, Duration::from_secs(1))?;
    /// publisher.publish_retry(&one_more[..], &mut BusySpin, Duration::from_secs(1))?;
    /// assert_eq!((publisher.stats().claimed, publisher.stats().offered), (1, 1));
    /// # Ok(()) }
    /// ```
    pub fn max_claim_length(&self) -> usize {
        self.max_payload
    }

    /// The largest message this publication accepts at all (an eighth of the term length,
    /// at most 16 MiB).
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig, PublishError};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc().term_length(64 * 1024), 7)?;
    /// let max = publisher.max_message_length();
    /// let too_big = vec![0u8; max + 1];
    /// assert_eq!(
    ///     publisher.publish_bytes(&too_big),
    ///     Err(PublishError::TooLarge { len: max + 1, max })
    /// );
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn max_message_length(&self) -> usize {
        self.max_message
    }

    /// Whether at least one subscriber is connected.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let publisher = client.publisher(&Channel::ipc(), 7)?;
    /// assert!(!publisher.is_connected());
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// assert!(publisher.is_connected());
    /// drop(subscriber);
    /// # Ok(()) }
    /// ```
    pub fn is_connected(&self) -> bool {
        self.publication.is_connected()
    }

    /// Wait (with `idle`) until a subscriber is connected, at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Timeout`] when no subscriber has connected within `timeout`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, TransportError};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let publisher = client.publisher(&Channel::ipc(), 7)?;
    /// let alone = publisher.wait_connected(&mut BusySpin, Duration::from_millis(10));
    /// assert!(matches!(alone, Err(TransportError::Timeout(_))));
    ///
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
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
            "a subscriber to connect",
        )
    }

    /// Counters so far.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// // Nobody listens: every attempt is refused and counted, one give-up.
    /// let _ = publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_millis(5));
    /// let stats = publisher.stats();
    /// assert_eq!((stats.messages, stats.gave_up), (0, 1));
    /// assert!(stats.not_connected >= 1);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn stats(&self) -> PublicationStats {
        self.stats
    }

    #[inline]
    fn refused(&mut self, e: AeronOfferError) -> PublishError {
        match e {
            AeronOfferError::BackPressured => {
                self.stats.back_pressured += 1;
                PublishError::Refused(Refusal::BackPressured)
            }
            AeronOfferError::NotConnected => {
                self.stats.not_connected += 1;
                PublishError::Refused(Refusal::NotConnected)
            }
            AeronOfferError::AdminAction => {
                self.stats.admin_action += 1;
                PublishError::Refused(Refusal::AdminAction)
            }
            AeronOfferError::Closed => PublishError::Closed,
            AeronOfferError::MaxPositionExceeded => PublishError::MaxPositionExceeded,
            AeronOfferError::TooManyParts => PublishError::Aeron(-1),
            AeronOfferError::Error(e) => PublishError::Aeron(e.code),
        }
    }

    #[inline]
    fn sent(&mut self, len: usize, claimed: bool) {
        self.stats.messages += 1;
        self.stats.bytes += len as u64;
        if claimed {
            self.stats.claimed += 1;
        } else {
            self.stats.offered += 1;
        }
    }

    /// One attempt to publish `msg`: encoded in place if it fits a frame, else encoded into
    /// the scratch buffer and offered. Returns the new stream position.
    ///
    /// # Errors
    ///
    /// [`PublishError::Refused`] when Aeron refuses the message for now (no subscriber,
    /// back pressure, term rotation): nothing was sent and it may be offered again. Also
    /// [`PublishError::TooLarge`], [`PublishError::Encode`], [`PublishError::Closed`],
    /// [`PublishError::MaxPositionExceeded`] and [`PublishError::Aeron`], which retrying
    /// does not cure.
    ///
    /// # Panics
    ///
    /// Only if `msg`'s [`Encode::encode`] breaks its contract and reports more bytes
    /// written than its `encoded_len()`.
    ///
    /// ```
    /// use peregrine_aeron::messages::{pack, Decimal64, OrderCancelRequest, Side};
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, Encode};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// let cancel = OrderCancelRequest {
    ///     session_id: 7,
    ///     order_id: 42,
    ///     transact_time: 1_700_000_000_000_000_000,
    ///     order_qty: Decimal64::new(100, 0),
    ///     cl_ord_id: pack(b"ORD-2").unwrap(),
    ///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
    ///     symbol: pack(b"MSFT").unwrap(),
    ///     side: Side::Buy,
    /// };
    /// // Encoded straight into the term buffer; the position is where the stream now ends.
    /// let position = publisher.publish(&cancel)?;
    /// assert!(position >= cancel.encoded_len() as i64);
    /// assert!(publisher.publish(&cancel)? > position);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish<M: Encode + ?Sized>(&mut self, msg: &M) -> Result<i64, PublishError> {
        let len = msg.encoded_len();
        if len <= self.max_payload {
            match self.publication.try_claim_owned(len) {
                Ok(mut claim) => {
                    // On an encode error the claim is dropped, which aborts it (the slot
                    // becomes padding that subscribers skip).
                    msg.encode(claim.data())?;
                    let position = claim.commit().map_err(|e| PublishError::Aeron(e.code))?;
                    self.sent(len, true);
                    Ok(position)
                }
                Err(e) => Err(self.refused(e)),
            }
        } else {
            if len > self.max_message {
                return Err(PublishError::TooLarge {
                    len,
                    max: self.max_message,
                });
            }
            if self.scratch.len() < len {
                self.scratch.resize(len, 0);
            }
            let n = msg.encode(&mut self.scratch[..len])?;
            match self.publication.offer(&self.scratch[..n]) {
                Ok(position) => {
                    self.sent(n, false);
                    Ok(position)
                }
                Err(e) => Err(self.refused(e)),
            }
        }
    }

    /// One attempt to publish raw bytes (claim-and-copy if they fit a frame, else offer).
    ///
    /// # Errors
    ///
    /// As [`publish`](Self::publish): [`PublishError::Refused`] when it may be tried
    /// again, another [`PublishError`] when it may not.
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
    /// // The caller's own retry loop (what publish_retry does, without its deadline).
    /// let mut idle = BusySpin;
    /// loop {
    ///     match publisher.publish_bytes(b"8=FIX.4.4|9=5|35=0|10=000|") {
    ///         Ok(_) => break,
    ///         Err(e) if e.is_retryable() => idle.idle(0),
    ///         Err(e) => return Err(e.into()),
    ///     }
    /// }
    /// let mut got = Vec::new();
    /// while got.is_empty() {
    ///     subscriber.poll(|msg| got.extend_from_slice(msg), 10)?;
    /// }
    /// assert_eq!(got, b"8=FIX.4.4|9=5|35=0|10=000|");
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish_bytes(&mut self, bytes: &[u8]) -> Result<i64, PublishError> {
        self.publish(bytes)
    }

    /// Publish `msg`, retrying refusals with `idle` until `timeout` has passed since the
    /// first refusal; then [`PublishError::GaveUp`]. Each refusal is counted.
    ///
    /// # Errors
    ///
    /// [`PublishError::GaveUp`] when every attempt until `timeout` was refused; any error
    /// of [`publish`](Self::publish) that retrying cannot cure, at once.
    ///
    /// # Panics
    ///
    /// As [`publish`](Self::publish).
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublishError, Refusal};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// // Nobody subscribes: refused until the deadline, then given up.
    /// let result = publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_millis(5));
    /// let Err(PublishError::GaveUp { last, attempts }) = result else { panic!("{result:?}") };
    /// assert_eq!(last, Refusal::NotConnected);
    /// assert_eq!(publisher.stats().not_connected, attempts);
    ///
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// // Retried while the subscription connects: no wait_connected needed.
    /// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(10))?;
    /// assert_eq!(publisher.stats().messages, 1);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish_retry<M: Encode + ?Sized>(
        &mut self,
        msg: &M,
        idle: &mut impl IdleStrategy,
        timeout: Duration,
    ) -> Result<i64, PublishError> {
        let mut first_refusal: Option<Instant> = None;
        let mut attempts = 0u64;
        loop {
            attempts += 1;
            match self.publish(msg) {
                Ok(position) => {
                    if first_refusal.is_some() {
                        idle.reset();
                    }
                    return Ok(position);
                }
                Err(PublishError::Refused(last)) => {
                    let since = *first_refusal.get_or_insert_with(Instant::now);
                    if since.elapsed() >= timeout {
                        self.stats.gave_up += 1;
                        return Err(PublishError::GaveUp { last, attempts });
                    }
                    if last != Refusal::AdminAction {
                        idle.idle(0);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("max_claim_length", &self.max_payload)
            .field("max_message_length", &self.max_message)
            .field("stats", &self.stats)
            .finish()
    }
}

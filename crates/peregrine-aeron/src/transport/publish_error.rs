//! Back pressure, typed and counted: [`Refusal`], [`PublishError`], [`PublicationStats`].

use crate::messages::EncodeError;

/// Why an offer was refused for now; trying again later can succeed.
///
/// ```
/// use peregrine_aeron::{AeronClient, Channel, DriverConfig, PublishError, Refusal};
///
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// // The caller chooses what a refusal means: here, wait for a subscriber, retry a
/// // rotation at once, and count back pressure as a slow consumer.
/// match publisher.publish_bytes(b"order") {
///     Err(PublishError::Refused(Refusal::NotConnected)) => {} // nobody is listening yet
///     Err(PublishError::Refused(Refusal::AdminAction)) => unreachable!("no term rotated"),
///     Err(PublishError::Refused(Refusal::BackPressured)) => unreachable!("nobody to lag"),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No subscriber is connected.
    NotConnected,
    /// The subscribers are behind by a whole term window: back pressure.
    BackPressured,
    /// Aeron was rotating terms; retry at once.
    AdminAction,
}

/// Why a message was not published.
///
/// ```
/// use peregrine_aeron::{PublishError, Refusal};
///
/// // Back pressure: the caller decides to wait, drop or fail; nothing is hidden.
/// let e = PublishError::Refused(Refusal::BackPressured);
/// assert!(e.is_retryable());
/// assert!(!PublishError::Closed.is_retryable());
/// assert_eq!(e.to_string(), "publication refused the message: BackPressured");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublishError {
    /// Refused for now (back pressure, no subscriber, term rotation); the message was
    /// not sent and may be offered again.
    Refused(Refusal),
    /// [`Publisher::publish_retry`](crate::Publisher::publish_retry) kept being refused until its deadline.
    GaveUp {
        /// The last refusal.
        last: Refusal,
        /// How many attempts were made.
        attempts: u64,
    },
    /// The message is longer than the publication's maximum message length.
    TooLarge {
        /// The message length.
        len: usize,
        /// The publication's maximum.
        max: usize,
    },
    /// The message could not be encoded.
    Encode(EncodeError),
    /// The publication is closed.
    Closed,
    /// The publication reached its maximum position; a new one is needed.
    MaxPositionExceeded,
    /// Any other Aeron failure, by Aeron error code.
    Aeron(i32),
}

impl PublishError {
    /// Whether offering the same message again can succeed: only a
    /// [`Refused`](PublishError::Refused) one.
    ///
    /// ```
    /// use peregrine_aeron::{PublishError, Refusal};
    ///
    /// assert!(PublishError::Refused(Refusal::AdminAction).is_retryable());
    /// // Already retried until its deadline:
    /// assert!(!PublishError::GaveUp { last: Refusal::BackPressured, attempts: 9 }.is_retryable());
    /// // Never fits:
    /// assert!(!PublishError::TooLarge { len: 9000, max: 8192 }.is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        matches!(self, PublishError::Refused(_))
    }
}

impl std::fmt::Display for PublishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PublishError::Refused(r) => write!(f, "publication refused the message: {r:?}"),
            PublishError::GaveUp { last, attempts } => {
                write!(
                    f,
                    "gave up after {attempts} attempts, last refused: {last:?}"
                )
            }
            PublishError::TooLarge { len, max } => {
                write!(f, "message of {len} bytes exceeds the maximum {max}")
            }
            PublishError::Encode(e) => write!(f, "{e}"),
            PublishError::Closed => f.write_str("publication closed"),
            PublishError::MaxPositionExceeded => {
                f.write_str("publication reached its maximum position")
            }
            PublishError::Aeron(code) => write!(f, "aeron error {code}"),
        }
    }
}

impl std::error::Error for PublishError {}

impl From<EncodeError> for PublishError {
    fn from(e: EncodeError) -> Self {
        PublishError::Encode(e)
    }
}

/// What a [`Publisher`](crate::Publisher) has done, for operators and tests.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublicationStats};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// let _ = publisher.publish_bytes(b"early"); // refused: no subscriber
/// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
/// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(1))?;
/// assert_eq!(
///     publisher.stats(),
///     PublicationStats { messages: 1, bytes: 5, claimed: 1, not_connected: 1, ..Default::default() }
/// );
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PublicationStats {
    /// Messages published.
    pub messages: u64,
    /// Bytes published (message lengths, without Aeron frame headers).
    pub bytes: u64,
    /// Messages written in place through `try_claim`.
    pub claimed: u64,
    /// Messages copied in through `offer` (larger than one frame).
    pub offered: u64,
    /// Attempts refused by back pressure.
    pub back_pressured: u64,
    /// Attempts refused because no subscriber was connected.
    pub not_connected: u64,
    /// Attempts refused by an admin action (term rotation).
    pub admin_action: u64,
    /// [`Publisher::publish_retry`](crate::Publisher::publish_retry) calls that gave up.
    pub gave_up: u64,
}

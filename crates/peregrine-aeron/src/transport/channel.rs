//! [`Channel`]: where a stream goes (IPC or UDP), as an Aeron channel URI.

use std::net::SocketAddr;

/// An Aeron channel URI, built from typed parts.
///
/// The URI is not checked here; the driver checks it when a publication or subscription
/// is added.
///
/// ```
/// use peregrine_aeron::Channel;
///
/// assert_eq!(Channel::ipc().uri(), "aeron:ipc");
/// let udp = Channel::udp("127.0.0.1:40123".parse().unwrap())
///     .term_length(16 << 20)
///     .mtu(8192);
/// assert_eq!(udp.uri(), "aeron:udp?endpoint=127.0.0.1:40123|term-length=16777216|mtu=8192");
/// let mdc = Channel::from_uri("aeron:udp?control=10.0.0.1:40456").param("control-mode", "dynamic");
/// assert_eq!(mdc.uri(), "aeron:udp?control=10.0.0.1:40456|control-mode=dynamic");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    uri: String,
}

impl Channel {
    /// Shared memory between processes and threads of one host (`aeron:ipc`).
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// assert_eq!(Channel::ipc().uri(), "aeron:ipc");
    /// assert_eq!(Channel::ipc().term_length(64 * 1024).uri(), "aeron:ipc?term-length=65536");
    /// ```
    pub fn ipc() -> Self {
        Channel {
            uri: "aeron:ipc".into(),
        }
    }

    /// Unicast UDP to `endpoint` (`aeron:udp?endpoint=host:port`): the subscriber binds it,
    /// the publisher sends to it.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let v4 = Channel::udp("10.0.0.2:40123".parse().unwrap());
    /// assert_eq!(v4.uri(), "aeron:udp?endpoint=10.0.0.2:40123");
    /// let v6 = Channel::udp("[::1]:40123".parse().unwrap());
    /// assert_eq!(v6.uri(), "aeron:udp?endpoint=[::1]:40123");
    /// ```
    pub fn udp(endpoint: SocketAddr) -> Self {
        Channel {
            uri: format!("aeron:udp?endpoint={endpoint}"),
        }
    }

    /// Any Aeron channel URI, as written: multicast, multi-destination, or anything the
    /// typed constructors do not cover.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let multicast = Channel::from_uri("aeron:udp?endpoint=224.0.1.1:40456|interface=10.0.0.0/24");
    /// assert_eq!(multicast.uri(), "aeron:udp?endpoint=224.0.1.1:40456|interface=10.0.0.0/24");
    /// assert_eq!(Channel::from_uri("aeron:ipc"), Channel::ipc());
    /// ```
    pub fn from_uri(uri: impl Into<String>) -> Self {
        Channel { uri: uri.into() }
    }

    /// Add a `key=value` parameter.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let orders = Channel::ipc().param("alias", "orders").param("sparse", true);
    /// assert_eq!(orders.uri(), "aeron:ipc?alias=orders|sparse=true");
    /// ```
    pub fn param(mut self, key: &str, value: impl std::fmt::Display) -> Self {
        let sep = if self.uri.contains('?') { '|' } else { '?' };
        self.uri = format!("{}{sep}{key}={value}", self.uri);
        self
    }

    /// This channel's term buffer length (power of two, 64 KiB .. 1 GiB). A message may
    /// be at most an eighth of it.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let small = client.publisher(&Channel::ipc().term_length(64 * 1024), 1)?;
    /// assert_eq!(small.max_message_length(), 64 * 1024 / 8);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn term_length(self, bytes: usize) -> Self {
        self.param("term-length", bytes)
    }

    /// This channel's MTU: the largest frame, and so the `try_claim` limit plus 32.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let jumbo = client.publisher(&Channel::ipc().mtu(8192), 1)?;
    /// assert_eq!(jumbo.max_claim_length(), 8192 - 32);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn mtu(self, bytes: usize) -> Self {
        self.param("mtu", bytes)
    }

    /// The URI.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let channel = Channel::udp("10.0.0.2:40123".parse().unwrap()).mtu(1408);
    /// assert_eq!(channel.uri(), "aeron:udp?endpoint=10.0.0.2:40123|mtu=1408");
    /// assert_eq!(Channel::from_uri(channel.uri()), channel);
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

//! [`TransportError`]: what can fail while setting the transport up or down.

use std::ffi::CString;

/// Failures while setting up or tearing down the transport (never on the data path, except
/// for [`Subscriber::poll`](crate::Subscriber::poll), whose only failure is Aeron's own).
///
/// ```
/// use peregrine_aeron::{AeronClient, Channel, DriverConfig, TransportError};
///
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let err = client.publisher(&Channel::from_uri("aeron:ipc\0"), 1).unwrap_err();
/// assert!(matches!(err, TransportError::InvalidString(_)));
/// # Ok::<(), TransportError>(())
/// ```
#[derive(Debug)]
pub enum TransportError {
    /// The media driver did not start.
    DriverStart(String),
    /// An Aeron call failed; `op` names it.
    Aeron {
        /// What was being done.
        op: &'static str,
        /// Aeron's error code.
        code: i32,
        /// Aeron's message, when it gave one.
        message: String,
    },
    /// A channel URI or directory contained a NUL byte.
    InvalidString(String),
    /// A publication or subscription was not ready within the configured timeout.
    Timeout(&'static str),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::DriverStart(m) => write!(f, "aeron media driver failed to start: {m}"),
            TransportError::Aeron { op, code, message } => {
                write!(f, "aeron {op} failed ({code}): {message}")
            }
            TransportError::InvalidString(s) => write!(f, "string with a NUL byte: {s:?}"),
            TransportError::Timeout(what) => write!(f, "timed out waiting for {what}"),
        }
    }
}

impl std::error::Error for TransportError {}

/// [`TransportError::Aeron`] for `op` from the code and text of an Aeron error.
fn aeron_failure(op: &'static str, code: i32, message: String) -> TransportError {
    TransportError::Aeron { op, code, message }
}

/// An Aeron client error as [`TransportError::Aeron`], naming `op`.
pub(super) fn aeron_err(
    op: &'static str,
) -> impl FnOnce(rusteron_client::AeronCError) -> TransportError {
    move |e| aeron_failure(op, e.code, e.to_string())
}

/// A media driver error as [`TransportError::Aeron`], naming `op`.
pub(super) fn driver_err(
    op: &'static str,
) -> impl FnOnce(rusteron_media_driver::AeronCError) -> TransportError {
    move |e| aeron_failure(op, e.code, e.to_string())
}

/// `s` as a C string; [`TransportError::InvalidString`] when it holds a NUL byte.
pub(super) fn c_string(s: &str) -> Result<CString, TransportError> {
    CString::new(s).map_err(|_| TransportError::InvalidString(s.to_string()))
}

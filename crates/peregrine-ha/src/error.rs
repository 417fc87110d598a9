//! [`HaError`]: why leadership could not start, or why a campaign call failed.

use std::fmt;

use crate::config::HaConfigError;

/// Why leadership could not start, or what an etcd call answered.
#[derive(Debug)]
pub enum HaError {
    /// The settings are wrong.
    Config(HaConfigError),
    /// The leadership thread could not be started.
    Thread(std::io::Error),
    /// etcd refused or did not answer (the campaign retries; reported as
    /// [`LeadershipEvent::EtcdError`](crate::LeadershipEvent::EtcdError)).
    Etcd(String),
}

impl fmt::Display for HaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HaError::Config(e) => write!(f, "high-availability settings: {e}"),
            HaError::Thread(e) => write!(f, "the leadership thread could not start: {e}"),
            HaError::Etcd(e) => write!(f, "etcd: {e}"),
        }
    }
}

impl std::error::Error for HaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HaError::Config(e) => Some(e),
            HaError::Thread(e) => Some(e),
            HaError::Etcd(_) => None,
        }
    }
}

impl From<HaConfigError> for HaError {
    fn from(e: HaConfigError) -> Self {
        HaError::Config(e)
    }
}

//! TLS configurations built from a session's [`TlsSettings`]: rustls with the ring
//! provider, TLS 1.2 and 1.3 (or 1.3 only), the PEM files the settings name.
//!
//! The engine builds one [`ServerConfig`] per listener (its first session's keys; the
//! other sessions on that port must say the same) and one [`ClientConfig`] per
//! initiator session, when the session is added: a file that does not read, a key
//! that does not match its certificate or a CA file without certificates stops
//! start-up with the file, line and key ([`ConfigError`]). What can only fail on the
//! wire (a peer's certificate that does not verify, a version or cipher the peer
//! lacks) closes the connection with the handshake's error in the log and in the
//! session's events ([`DisconnectReason::Tls`](peregrine_session::DisconnectReason)).
//!
//! ```
//! use peregrine_engine::config::Settings;
//! let text = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=fix.example.com\n\
//!             SocketConnectPort=443\nSenderCompID=A\nTargetCompID=B\nSocketUseSSL=Y\n\
//!             [SESSION]\nBeginString=FIX.4.4\n";
//! let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
//! // No SocketCAFile: Mozilla's roots; no certificate: no client authentication.
//! let config = peregrine_engine::tls::client_config(s)?;
//! assert!(!config.client_auth_cert_resolver.has_certs());
//! # Ok::<(), peregrine_engine::ConfigError>(())
//! ```

use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig, SupportedProtocolVersion};

use crate::config::{ConfigError, SessionSettings, TlsSettings, TlsVersion};

/// Plaintext and ciphertext rustls may hold for one connection, each way: what a
/// session hands over while the socket is full waits in it, and no more is taken
/// until it drains (the session's own queue, with its slow-consumer limits, holds the
/// rest).
pub const TLS_BUFFER_LIMIT: usize = 64 * 1024;

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// TLS 1.3 and 1.2, or 1.3 alone.
static TLS12_UP: [&SupportedProtocolVersion; 2] =
    [&rustls::version::TLS13, &rustls::version::TLS12];
static TLS13_ONLY: [&SupportedProtocolVersion; 1] = [&rustls::version::TLS13];

fn versions(v: TlsVersion) -> &'static [&'static SupportedProtocolVersion] {
    match v {
        TlsVersion::Tls12 => &TLS12_UP,
        TlsVersion::Tls13 => &TLS13_ONLY,
    }
}

fn tls_of(s: &SessionSettings) -> Result<&TlsSettings, ConfigError> {
    s.tls.as_ref().ok_or_else(|| {
        s.error(
            "SocketUseSSL",
            "TLS asked of a session without SocketUseSSL=Y",
        )
    })
}

/// The certificates of a PEM file (at least one).
fn certificates(
    s: &SessionSettings,
    key: &str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, ConfigError> {
    let unreadable = |e: rustls::pki_types::pem::Error| {
        s.error(
            key,
            format!("cannot read certificates from {}: {e}", path.display()),
        )
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(unreadable)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    if certs.is_empty() {
        return Err(s.error(
            key,
            format!(
                "{} holds no PEM certificate (BEGIN CERTIFICATE)",
                path.display()
            ),
        ));
    }
    Ok(certs)
}

/// Our chain and its key (`SocketCertificateFile`, `SocketPrivateKeyFile`), if set.
#[allow(clippy::type_complexity)]
fn identity(
    s: &SessionSettings,
    tls: &TlsSettings,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, ConfigError> {
    let (Some(cert), Some(key)) = (&tls.certificate_file, &tls.private_key_file) else {
        return Ok(None);
    };
    let chain = certificates(s, "SocketCertificateFile", cert)?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        s.error(
            "SocketPrivateKeyFile",
            format!("cannot read a PEM private key from {}: {e}", key.display()),
        )
    })?;
    Ok(Some((chain, key)))
}

/// The roots a peer's chain must lead to: `SocketCAFile`'s certificates.
fn roots(s: &SessionSettings, path: &Path) -> Result<RootCertStore, ConfigError> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(s, "SocketCAFile", path)? {
        roots.add(cert).map_err(|e| {
            s.error(
                "SocketCAFile",
                format!(
                    "{}: a certificate is not a usable trust anchor: {e}",
                    path.display()
                ),
            )
        })?;
    }
    Ok(roots)
}

fn version_error(s: &SessionSettings, e: rustls::Error) -> ConfigError {
    s.error(
        "SocketMinimumTLSVersion",
        format!("no cipher suite for these versions: {e}"),
    )
}

/// An acceptor's configuration: its certificate and key, and with `SocketCAFile` a
/// client verifier (required with `NeedClientAuth=Y`, else checked when offered).
///
/// # Errors
///
/// A file that does not read or holds nothing usable, or a key that does not match
/// the certificate: the error names the key and the session's line.
pub fn server_config(s: &SessionSettings) -> Result<Arc<ServerConfig>, ConfigError> {
    let tls = tls_of(s)?;
    let builder = ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(versions(tls.min_version))
        .map_err(|e| version_error(s, e))?;
    let builder = match &tls.ca_file {
        Some(ca) => {
            let verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots(s, ca)?), provider());
            let verifier = if tls.need_client_auth {
                verifier
            } else {
                verifier.allow_unauthenticated()
            };
            let verifier = verifier
                .build()
                .map_err(|e| s.error("SocketCAFile", format!("cannot verify clients: {e}")))?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let (chain, key) = identity(s, tls)?.ok_or_else(|| {
        s.error(
            "SocketUseSSL",
            "an acceptor needs SocketCertificateFile and SocketPrivateKeyFile",
        )
    })?;
    let config = builder.with_single_cert(chain, key).map_err(|e| {
        s.error(
            "SocketPrivateKeyFile",
            format!("does not go with the certificate of SocketCertificateFile: {e}"),
        )
    })?;
    Ok(Arc::new(config))
}

/// An initiator's configuration: the roots of `SocketCAFile` (Mozilla's without it),
/// and its certificate and key for mutual TLS when set.
///
/// # Errors
///
/// As [`server_config`].
pub fn client_config(s: &SessionSettings) -> Result<Arc<ClientConfig>, ConfigError> {
    let tls = tls_of(s)?;
    let roots = match &tls.ca_file {
        Some(ca) => roots(s, ca)?,
        None => RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        },
    };
    let builder = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(versions(tls.min_version))
        .map_err(|e| version_error(s, e))?
        .with_root_certificates(roots);
    let config = match identity(s, tls)? {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key).map_err(|e| {
            s.error(
                "SocketPrivateKeyFile",
                format!("does not go with the certificate of SocketCertificateFile: {e}"),
            )
        })?,
        None => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// The name an initiator sends (SNI) and checks the acceptor's certificate against:
/// `SocketServerName`, else the host it connects to (a DNS name or an IP address).
///
/// ```
/// use peregrine_engine::config::TlsSettings;
/// use peregrine_engine::tls::server_name;
/// let tls = TlsSettings::default();
/// assert_eq!(server_name(&tls, "127.0.0.1").unwrap().to_str(), "127.0.0.1");
/// let named = TlsSettings { server_name: Some("fix.example.com".into()), ..tls };
/// assert_eq!(server_name(&named, "10.0.0.7").unwrap().to_str(), "fix.example.com");
/// assert!(server_name(&TlsSettings::default(), "not a name").is_none());
/// ```
pub fn server_name(tls: &TlsSettings, host: &str) -> Option<ServerName<'static>> {
    let name = tls.server_name.as_deref().unwrap_or(host);
    ServerName::try_from(name.to_string()).ok()
}

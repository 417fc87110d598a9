//! The TLS keys: `SocketUseSSL` and `NeedClientAuth` (QuickFIX/J's names) and the PEM
//! files of QuickFIX/Go (`SocketCertificateFile`, `SocketPrivateKeyFile`,
//! `SocketCAFile`), with `SocketServerName` and `SocketMinimumTLSVersion`, read and
//! checked together. The files themselves are read when the engine builds its TLS
//! configurations ([`crate::tls`]); here only what the keys say must hold.
//!
//! QuickFIX/J's Java key stores (`SocketKeyStore`, `SocketTrustStore`) and QuickFIX
//! C++'s OpenSSL keys stay refused ([`UNSUPPORTED_KEYS`](super::UNSUPPORTED_KEYS)), with a
//! note naming the PEM keys to use instead; a TLS key without `SocketUseSSL=Y` is an
//! error, never ignored.

use std::fmt;
use std::path::PathBuf;

use super::reader::Reader;
use super::{ConfigError, ConnectionType};

/// The lowest TLS version a session accepts (`SocketMinimumTLSVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TlsVersion {
    /// TLS 1.2 (the default; TLS 1.3 is offered too).
    #[default]
    Tls12,
    /// TLS 1.3 only.
    Tls13,
}

impl fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TlsVersion::Tls12 => "TLS12",
            TlsVersion::Tls13 => "TLS13",
        })
    }
}

/// What a session's TLS keys say (present when `SocketUseSSL=Y`).
///
/// ```
/// use peregrine_engine::config::{Settings, TlsVersion};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///             SocketUseSSL=Y\nSocketCertificateFile=/etc/fix/venue.pem\n\
///             SocketPrivateKeyFile=/etc/fix/venue.key\nSocketCAFile=/etc/fix/clients.pem\n\
///             NeedClientAuth=Y\nSocketMinimumTLSVersion=TLS13\n[SESSION]\nBeginString=FIX.4.4\n";
/// let tls = Settings::parse(text, "venue.cfg".as_ref())?.sessions[0].tls.clone().unwrap();
/// assert!(tls.need_client_auth);
/// assert_eq!(tls.min_version, TlsVersion::Tls13);
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TlsSettings {
    /// `SocketCertificateFile`: our certificate chain (PEM, ours first). Required for
    /// an acceptor; for an initiator, the client certificate of mutual TLS.
    pub certificate_file: Option<PathBuf>,
    /// `SocketPrivateKeyFile`: the key of that certificate (PEM: PKCS#8, PKCS#1 or SEC1).
    pub private_key_file: Option<PathBuf>,
    /// `SocketCAFile`: the certificates (PEM) that a peer's chain must lead to. An
    /// initiator without it trusts Mozilla's root set (the `webpki-roots` crate); an
    /// acceptor needs it for `NeedClientAuth=Y`.
    pub ca_file: Option<PathBuf>,
    /// `NeedClientAuth` (acceptor): the initiator must present a certificate that
    /// leads to `SocketCAFile` (mutual TLS).
    pub need_client_auth: bool,
    /// `SocketServerName` (initiator): the name sent as SNI and checked against the
    /// acceptor's certificate; default the host connected to.
    pub server_name: Option<String>,
    /// `SocketMinimumTLSVersion`: `TLS12` (default) or `TLS13`.
    pub min_version: TlsVersion,
}

/// The keys that configure TLS besides `SocketUseSSL` (each an error without it).
pub(super) const TLS_KEYS: [&str; 6] = [
    "SocketCertificateFile",
    "SocketPrivateKeyFile",
    "SocketCAFile",
    "NeedClientAuth",
    "SocketServerName",
    "SocketMinimumTLSVersion",
];

impl Reader<'_> {
    /// The TLS keys of a session of `connection` type.
    pub(super) fn tls_keys(
        &self,
        connection: ConnectionType,
    ) -> Result<Option<TlsSettings>, ConfigError> {
        if !self.flag("SocketUseSSL")? {
            // A TLS key without TLS would leave the connection in clear text while
            // the file says otherwise: refused, never ignored.
            for key in TLS_KEYS {
                if let Some(e) = self.entry(key) {
                    if key == "NeedClientAuth" && e.value.eq_ignore_ascii_case("N") {
                        continue;
                    }
                    return Err(self.err(e, "has no effect without SocketUseSSL=Y".into()));
                }
            }
            return Ok(None);
        }
        let min_version = match self.entry("SocketMinimumTLSVersion") {
            None => TlsVersion::default(),
            Some(e) => match e.value.to_ascii_uppercase().as_str() {
                "TLS12" | "TLSV1.2" | "TLS1.2" => TlsVersion::Tls12,
                "TLS13" | "TLSV1.3" | "TLS1.3" => TlsVersion::Tls13,
                "SSL30" | "TLS10" | "TLS11" | "TLSV1" | "TLSV1.1" | "TLS1.0" | "TLS1.1" => {
                    return Err(self.err(
                        e,
                        format!(
                            "{} is refused: Peregrine speaks TLS 1.2 and 1.3 only (TLS12 or TLS13)",
                            e.value
                        ),
                    ))
                }
                _ => {
                    return Err(self.err(
                        e,
                        format!("{:?} is not a TLS version (TLS12 or TLS13)", e.value),
                    ))
                }
            },
        };
        let tls = TlsSettings {
            certificate_file: self.path("SocketCertificateFile")?,
            private_key_file: self.path("SocketPrivateKeyFile")?,
            ca_file: self.path("SocketCAFile")?,
            need_client_auth: self.flag("NeedClientAuth")?,
            server_name: self.string("SocketServerName"),
            min_version,
        };
        let use_ssl = self.entry("SocketUseSSL").expect("set");
        match (&tls.certificate_file, &tls.private_key_file) {
            (Some(_), None) => {
                let e = self.entry("SocketCertificateFile").expect("set");
                return Err(self.err(
                    e,
                    "needs SocketPrivateKeyFile, the key of that certificate".into(),
                ));
            }
            (None, Some(_)) => {
                let e = self.entry("SocketPrivateKeyFile").expect("set");
                return Err(self.err(
                    e,
                    "needs SocketCertificateFile, the certificate it is the key of".into(),
                ));
            }
            (None, None) if connection == ConnectionType::Acceptor => {
                return Err(self.err(
                    use_ssl,
                    "an acceptor needs SocketCertificateFile and SocketPrivateKeyFile (PEM)".into(),
                ));
            }
            _ => {}
        }
        if let Some(e) = self
            .entry("NeedClientAuth")
            .filter(|_| tls.need_client_auth)
        {
            if connection != ConnectionType::Acceptor {
                return Err(self.err(e, "applies to an acceptor only".into()));
            }
            if tls.ca_file.is_none() {
                return Err(self.err(
                    e,
                    "needs SocketCAFile, the certificates a client's chain must lead to".into(),
                ));
            }
        }
        if let Some(e) = self.entry("SocketServerName") {
            if connection != ConnectionType::Initiator {
                return Err(self.err(e, "applies to an initiator only".into()));
            }
            if rustls::pki_types::ServerName::try_from(e.value.as_str()).is_err() {
                return Err(self.err(
                    e,
                    format!("{:?} is not a DNS name or an IP address", e.value),
                ));
            }
        }
        Ok(Some(tls))
    }
}

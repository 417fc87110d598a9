//! TLS to PostgreSQL: when the URL says `sslmode=require` (or libpq's
//! `verify-ca`/`verify-full`, taken as `require`), rustls (ring provider)
//! verifies the server's certificate and name against Mozilla's roots plus
//! the PEM certificates of `PGSSLROOTCERT`, as libpq names that file.

use std::sync::Arc;

use peregrine_store::StoreError;
use postgres::config::SslMode;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The environment variable naming extra root certificates (libpq's name).
pub const ROOT_CERT_ENV: &str = "PGSSLROOTCERT";

fn tls_error(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> StoreError {
    StoreError::Database {
        context: "set up TLS to PostgreSQL",
        source: source.into(),
    }
}

/// The connector for `mode`: `None` (no TLS) unless it is `Require`.
pub(crate) fn connector(mode: SslMode) -> Result<Option<MakeRustlsConnect>, StoreError> {
    if mode != SslMode::Require {
        return Ok(None);
    }
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = std::env::var_os(ROOT_CERT_ENV) {
        let certs = CertificateDer::pem_file_iter(&path)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| tls_error(format!("{ROOT_CERT_ENV}={}: {e}", path.to_string_lossy())))?;
        if certs.is_empty() {
            return Err(tls_error(format!(
                "{ROOT_CERT_ENV}={}: no certificate in it",
                path.to_string_lossy()
            )));
        }
        for cert in certs {
            roots.add(cert).map_err(tls_error)?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Some(MakeRustlsConnect::new(config)))
}

/// libpq's `sslmode=verify-ca` and `verify-full`, which the client does not
/// take by name, as `require` (whose verification here is full).
pub(crate) fn normalize_sslmode(text: &str) -> String {
    text.replace("sslmode=verify-full", "sslmode=require")
        .replace("sslmode=verify-ca", "sslmode=require")
}

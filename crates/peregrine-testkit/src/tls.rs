//! Certificates for TLS tests (feature `tls`): a CA, a server certificate for
//! `localhost` and 127.0.0.1, a client certificate, and a second CA that signed
//! neither, written as PEM files into a directory.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("pki-doc-{}", std::process::id()));
//! let pki = peregrine_testkit::tls::TestPki::write(&dir);
//! assert!(std::fs::read_to_string(&pki.server_cert).unwrap().contains("BEGIN CERTIFICATE"));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

/// The PEM files [`TestPki::write`] made.
#[derive(Debug, Clone)]
pub struct TestPki {
    /// The CA that signed the server and client certificates.
    pub ca: PathBuf,
    /// Another CA, which signed neither (a peer that trusts it refuses them).
    pub other_ca: PathBuf,
    /// The server's certificate (`localhost`, 127.0.0.1), signed by `ca`.
    pub server_cert: PathBuf,
    /// Its key (PKCS#8).
    pub server_key: PathBuf,
    /// A client certificate (`client`), signed by `ca`.
    pub client_cert: PathBuf,
    /// Its key (PKCS#8).
    pub client_key: PathBuf,
}

fn ca(name: &str) -> (rcgen::Certificate, KeyPair) {
    let key = KeyPair::generate().expect("key");
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    (params.self_signed(&key).expect("self-signed"), key)
}

fn leaf(
    names: &[&str],
    cn: &str,
    issuer: &rcgen::Certificate,
    issuer_key: &KeyPair,
) -> (rcgen::Certificate, KeyPair) {
    let key = KeyPair::generate().expect("key");
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut params = CertificateParams::new(names).expect("params");
    params.distinguished_name.push(DnType::CommonName, cn);
    (
        params.signed_by(&key, issuer, issuer_key).expect("signed"),
        key,
    )
}

impl TestPki {
    /// Makes the certificates and writes them into `dir` (created if need be).
    ///
    /// # Panics
    ///
    /// When a certificate cannot be made or a file written (a test's set-up).
    pub fn write(dir: &Path) -> TestPki {
        std::fs::create_dir_all(dir).expect("pki dir");
        let (ca_cert, ca_key) = ca("Peregrine test CA");
        let (other, _) = ca("Another CA");
        let (server, server_key) =
            leaf(&["localhost", "127.0.0.1"], "localhost", &ca_cert, &ca_key);
        let (client, client_key) = leaf(&["client"], "client", &ca_cert, &ca_key);
        let put = |name: &str, text: String| {
            let p = dir.join(name);
            std::fs::write(&p, text).expect("write pem");
            p
        };
        TestPki {
            ca: put("ca.pem", ca_cert.pem()),
            other_ca: put("other-ca.pem", other.pem()),
            server_cert: put("server.pem", server.pem()),
            server_key: put("server.key", server_key.serialize_pem()),
            client_cert: put("client.pem", client.pem()),
            client_key: put("client.key", client_key.serialize_pem()),
        }
    }
}

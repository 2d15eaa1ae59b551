//! The edge's directory of hostnames: which certificate each name presents and what it serves
//! (a project's files, or a 301 to another name).
//!
//! The TLS handshake looks the SNI name up in the directory, so a name that leaves it stops
//! being served at the very next handshake; unknown names get no certificate at all.
//! [`EdgeRoutes`] is an in-memory directory; the service's own reads its database.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use rustls::crypto::ring::sign::any_supported_type;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::ca::IssuedCertificate;
use crate::{Error, Result};

/// What a hostname serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The project's deployed files.
    Project { project_id: String },
    /// `301` to `https://{to}{path and query}`.
    Redirect { to: String },
}

#[derive(Clone)]
pub struct EdgeHost {
    pub certificate: Arc<CertifiedKey>,
    pub route: Route,
}

impl std::fmt::Debug for EdgeHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeHost")
            .field("route", &self.route)
            .finish_non_exhaustive()
    }
}

/// The shared table; cloning shares it.
#[derive(Clone, Default)]
pub struct EdgeRoutes {
    hosts: Arc<RwLock<HashMap<String, EdgeHost>>>,
}

impl std::fmt::Debug for EdgeRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeRoutes")
            .field("hosts", &self.hostnames())
            .finish()
    }
}

impl EdgeRoutes {
    pub fn new() -> Self {
        Self::default()
    }

    fn key(hostname: &str) -> String {
        hostname.trim_end_matches('.').to_ascii_lowercase()
    }

    /// Serves `hostname` from now on (replacing what it served before).
    pub fn insert(&self, hostname: &str, host: EdgeHost) {
        self.hosts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(Self::key(hostname), host);
    }

    /// Stops serving `hostname`: its next handshake fails.
    pub fn remove(&self, hostname: &str) -> bool {
        self.hosts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&Self::key(hostname))
            .is_some()
    }

    /// Keeps only the names `keep` says yes to.
    pub fn retain(&self, mut keep: impl FnMut(&str, &EdgeHost) -> bool) {
        self.hosts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|name, host| keep(name, host));
    }

    pub fn get(&self, hostname: &str) -> Option<EdgeHost> {
        self.hosts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&Self::key(hostname))
            .cloned()
    }

    pub fn hostnames(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .hosts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        names.sort();
        names
    }
}

/// Where the edge looks a name up, at every handshake and every request: what it serves and
/// with which certificate, or `None` for a name it must not serve.
pub trait EdgeDirectory: Send + Sync + 'static {
    fn host(&self, hostname: &str) -> Option<EdgeHost>;
}

impl EdgeDirectory for EdgeRoutes {
    fn host(&self, hostname: &str) -> Option<EdgeHost> {
        self.get(hostname)
    }
}

/// rustls' certificate choice by SNI, from a directory.
#[derive(Clone)]
pub struct CertificateBySni(pub Arc<dyn EdgeDirectory>);

impl std::fmt::Debug for CertificateBySni {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CertificateBySni")
    }
}

impl ResolvesServerCert for CertificateBySni {
    fn resolve(&self, client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let name = client_hello.server_name()?;
        self.0.host(name).map(|host| host.certificate)
    }
}

/// The rustls form of an issued certificate: the leaf (and the root after it) with its key.
pub fn certified_key(issued: &IssuedCertificate, root_pem: &str) -> Result<Arc<CertifiedKey>> {
    let mut chain: Vec<CertificateDer<'static>> = Vec::new();
    for pem in [issued.certificate_pem.as_str(), root_pem] {
        for certificate in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            chain.push(certificate.map_err(|error| {
                Error::Certificate(format!("a certificate PEM does not read: {error}"))
            })?);
        }
    }
    let key =
        PrivateKeyDer::from_pem_slice(issued.key_pem.as_bytes()).map_err(|error| match error {
            pem::Error::NoItemsFound => {
                Error::Certificate("the issued key PEM holds no private key".to_owned())
            }
            other => Error::Certificate(format!("the issued key PEM does not read: {other}")),
        })?;
    let signing_key = any_supported_type(&key)?;
    Ok(Arc::new(CertifiedKey::new(chain, signing_key)))
}

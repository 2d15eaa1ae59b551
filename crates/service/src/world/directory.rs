//! What the edge asks at every handshake and request: is this name a project's default address
//! or a live domain (itself, or a live wildcard over it that no other domain's name beats), and
//! with which certificate. Answered from the database (through the
//! reader pool; the edge calls it on the blocking pool) each time, so a new project is served
//! at once and a removed domain's next handshake fails, with nothing to keep in sync.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use domain_desk_api::{Domain, DomainRole, DomainStatus};
use rustls::sign::CertifiedKey;

use super::RENEW_BEFORE;
use crate::Result;
use crate::ca::{CertificateAuthority, IssuedCertificate};
use crate::clock::Clock;
use crate::edge::{EdgeDirectory, EdgeHost, Route, certified_key};
use crate::store::{Store, certificates, domains, projects};

/// A certificate in use, with its rustls form.
#[derive(Clone)]
pub struct LoadedCertificate {
    pub issued: IssuedCertificate,
    pub key: Arc<CertifiedKey>,
}

/// The certificates in use by hostname, as kept in the database.
#[derive(Default)]
pub struct CertificateCache {
    by_hostname: Mutex<HashMap<String, LoadedCertificate>>,
}

impl CertificateCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, LoadedCertificate>> {
        // whole values are inserted and removed; a panic elsewhere cannot leave one half-made
        self.by_hostname
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Loads the stored certificates.
    pub fn load(
        ca: &CertificateAuthority,
        stored: HashMap<String, IssuedCertificate>,
    ) -> Result<Self> {
        let mut by_hostname = HashMap::with_capacity(stored.len());
        for (hostname, issued) in stored {
            let key = certified_key(&issued, ca.certificate_pem())?;
            by_hostname.insert(hostname, LoadedCertificate { issued, key });
        }
        Ok(Self {
            by_hostname: Mutex::new(by_hostname),
        })
    }

    pub fn get(&self, hostname: &str) -> Option<LoadedCertificate> {
        self.lock().get(hostname).cloned()
    }

    pub fn retain(&self, keep: impl Fn(&str) -> bool) {
        self.lock().retain(|hostname, _| keep(hostname));
    }

    /// Issues a certificate for `hostname`, stores it durably, and uses it from now on.
    /// Blocking (database write): call it from blocking code.
    pub fn issue(
        &self,
        ca: &CertificateAuthority,
        store: &Store,
        hostname: &str,
        now: DateTime<Utc>,
    ) -> Result<LoadedCertificate> {
        let issued = ca.issue(&[hostname.to_owned()], now)?;
        let key = certified_key(&issued, ca.certificate_pem())?;
        store.write_blocking(|tx| certificates::write_certificate(tx, hostname, &issued))?;
        let loaded = LoadedCertificate { issued, key };
        self.lock().insert(hostname.to_owned(), loaded.clone());
        Ok(loaded)
    }
}

/// The edge's directory over the database.
pub struct WorldDirectory {
    pub store: Store,
    pub clock: Clock,
    pub ca: Arc<CertificateAuthority>,
    pub certificates: Arc<CertificateCache>,
}

fn route_of(domain: &Domain) -> Route {
    match (domain.role, &domain.redirect) {
        (DomainRole::Redirect, Some(redirect)) => Route::Redirect {
            to: redirect.to.clone(),
        },
        _ => Route::Project {
            project_id: domain.project_id.clone(),
        },
    }
}

/// What a name is served as: its route, whether it is a default address, and the name its
/// certificate is kept under (a wildcard's own, `*.shop.example.com`, for a name under it).
type Found = (Route, bool, String);

impl WorldDirectory {
    /// The route of `name`, or `None`. A domain of that exact name decides, live or not (an
    /// explicit domain always wins, whichever project holds it); only a name no domain holds
    /// is served by a live wildcard one label above it.
    fn lookup(&self, name: &str) -> Result<Option<Found>> {
        if name.contains('*') {
            return Ok(None);
        }
        self.store.read_blocking(|conn| {
            if let Some(project) = projects::row_by_default_address(conn, name)? {
                return Ok(Some((
                    Route::Project {
                        project_id: project.id,
                    },
                    true,
                    name.to_owned(),
                )));
            }
            let live = |domain: &Domain| domain.status == DomainStatus::Live;
            let found = match domains::get(conn, name)? {
                Some(domain) => Some(domain).filter(live),
                None => domains::wildcard_covering(conn, name)?.filter(live),
            };
            Ok(found.map(|domain| (route_of(&domain), false, domain.hostname)))
        })
    }
}

impl EdgeDirectory for WorldDirectory {
    fn host(&self, hostname: &str) -> Option<EdgeHost> {
        let name = hostname.trim_end_matches('.').to_ascii_lowercase();
        let (route, default_address, certificate_name) = match self.lookup(&name) {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(error) => {
                tracing::error!(%error, "the edge could not look a name up");
                return None;
            }
        };
        let now = self.clock.now();
        let loaded = match self.certificates.get(&certificate_name) {
            Some(loaded) if !default_address || now < loaded.issued.expires_at - RENEW_BEFORE => {
                loaded
            }
            // The platform's own names get a certificate on first use and a new one before the
            // old expires; they pass no checks, the platform owns them.
            _ if default_address => {
                match self.certificates.issue(&self.ca, &self.store, &name, now) {
                    Ok(loaded) => loaded,
                    Err(error) => {
                        tracing::error!(%error, hostname = %name, "no certificate for a default address");
                        return None;
                    }
                }
            }
            _ => {
                tracing::warn!(hostname = %name, "a live domain has no certificate; not served");
                return None;
            }
        };
        Some(EdgeHost {
            certificate: loaded.key,
            route,
        })
    }
}

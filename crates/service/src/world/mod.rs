//! The world behind the API, plugged into the service: the DNS server (public view and the
//! platform resolver's delayed view), the verifier, the local CA with the certificate lifecycle,
//! and the TLS edge, all over the service's store and clock.
//!
//! Lifecycle deadlines are reconciled whenever they matter: before every API request (cheaply:
//! only when the clock was changed, a verification passed, or a deadline is due) and in a
//! background task while the clock runs, so a domain read right after a clock jump already
//! shows the state the jump led to. The edge and the platform zone ask the database at every
//! handshake and query ([`directory`]), so a removed domain's next handshake fails and a new
//! project resolves at once.

pub mod directory;
pub mod files;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::http::idempotency::{Answer, PendingAnswer};
use axum::extract::{Request, State};
use axum::http::Method;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::caa::evaluate;
use domain_desk_api::{
    Account, Certificate, CertificateError, CertificateErrorCode, CertificateStatus, Domain,
    DomainStatus, Hostname, Verification, VerificationErrorCode,
};
use futures::future::BoxFuture;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::ca::{CertificateAuthority, IssuedCertificate};
use crate::clock::Clock;
use crate::dns::{
    PlatformZone, ZoneHandler, ZoneSigning, ZoneStore, ZoneView, bind_dns, demo_zones, serve_dns,
};
use crate::edge::{EdgeDirectory, serve_http_with_limits, serve_https_with_limits};
use crate::state::{AppState, World, WorldInfo};
use crate::store::{Store, certificates, domains, projects, zones};
use crate::verify::Verifier;
use crate::{Error, Result};
use directory::{CertificateCache, WorldDirectory};

/// Renew a certificate this long before it expires (as ACME clients do at a third of 90 days).
pub const RENEW_BEFORE: TimeDelta = TimeDelta::days(30);

/// How often a failing issuance attempt is retried (virtual time) before its deadline.
const RETRY_EVERY: TimeDelta = TimeDelta::minutes(1);

/// How often the background task looks for due work while nothing else wakes it (real time).
const BACKGROUND_TICK: Duration = Duration::from_secs(1);

/// Where the world's servers listen.
#[derive(Debug, Clone, Copy)]
pub struct WorldAddresses {
    pub dns: SocketAddr,
    pub edge_https: SocketAddr,
    pub edge_http: SocketAddr,
}

/// The running world. Create it with [`LocalWorld::start`] and plug it in with
/// `AppState::set_world`.
pub struct LocalWorld {
    clock: Clock,
    /// With `sign_zones`: the key the DNS server signs every zone with.
    signing: Option<Arc<ZoneSigning>>,
    store: Store,
    zones: ZoneStore,
    ca: Arc<CertificateAuthority>,
    directory: Arc<WorldDirectory>,
    verifier: Verifier,
    addresses: WorldAddresses,
    propagation_delay: TimeDelta,
    issuance_time: TimeDelta,
    deadline: TimeDelta,
    /// Certificates by hostname (domains and default addresses), as in the database.
    certificates: Arc<CertificateCache>,
    /// The last cause an issuance attempt failed with, per hostname.
    last_failure: Mutex<HashMap<String, CertificateError>>,
    /// One reconciliation at a time.
    reconciling: tokio::sync::Mutex<()>,
    /// Set when a verification changed a certificate; the next request reconciles.
    dirty: AtomicBool,
    /// The clock's change counter at the last reconciliation.
    clock_generation: AtomicU64,
    /// When the next deadline or retry is due (Unix microseconds; `i64::MAX` for none).
    next_due_micros: std::sync::atomic::AtomicI64,
    stop: watch::Sender<bool>,
    /// Counts the reconciliations that ran, so a waiter can see the background task's work.
    reconciled: watch::Sender<u64>,
    /// The local DNS provider's Domain Connect templates.
    domain_connect: Arc<crate::dconnect::Provider>,
}

impl std::fmt::Debug for LocalWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWorld")
            .field("addresses", &self.addresses)
            .finish_non_exhaustive()
    }
}

impl LocalWorld {
    /// Binds the DNS server (public and resolver views) and the edge, loads or creates the
    /// zones and the CA from the store, and starts serving. Port 0 picks free ports.
    pub async fn start(state: &AppState, wanted: WorldAddresses) -> Result<Arc<Self>> {
        let settings = state.settings().clone();
        let store = state.store().clone();
        let clock = state.clock().clone();

        let (dns_udp, dns_tcp) = bind_dns(wanted.dns).await?;
        // The platform resolver view is internal: loopback on a port of its own.
        let resolver_ip = if wanted.dns.ip().is_ipv6() {
            std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)
        } else {
            std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
        };
        let resolver_bind = SocketAddr::new(resolver_ip, 0);
        let (resolver_udp, resolver_tcp) = bind_dns(resolver_bind).await?;
        let https = TcpListener::bind(wanted.edge_https).await?;
        let http = TcpListener::bind(wanted.edge_http).await?;
        let addresses = WorldAddresses {
            dns: dns_udp.local_addr()?,
            edge_https: https.local_addr()?,
            edge_http: http.local_addr()?,
        };
        let resolver_address = resolver_udp.local_addr()?;

        let platform = PlatformZone {
            domain: settings.platform_domain.clone(),
            dns_target: settings.platform_dns_target.clone(),
            // an edge on every interface is reached locally through loopback
            edge_address: match addresses.edge_https.ip() {
                ip if ip.is_unspecified() && ip.is_ipv6() => {
                    std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)
                }
                ip if ip.is_unspecified() => std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
                ip => ip,
            },
        };
        let identity = settings.ca_identity.clone();
        let target = settings.platform_dns_target.clone();
        let (snapshot, ca, certificates) = {
            let store = store.clone();
            tokio::task::spawn_blocking(move || -> Result<_> {
                store.write_blocking(|tx| {
                    if !zones::zones_seeded(tx)? {
                        zones::write_zones(tx, &demo_zones(&target, &identity)?)?;
                    }
                    let ca = match certificates::read_ca(tx)? {
                        Some(material) => CertificateAuthority::load(&identity, material)?,
                        None => {
                            let ca = CertificateAuthority::generate(&identity)?;
                            certificates::write_ca(tx, ca.material())?;
                            ca
                        }
                    };
                    Ok((
                        zones::read_zones(tx)?,
                        ca,
                        certificates::read_certificates(tx)?,
                    ))
                })
            })
            .await??
        };
        let ca = Arc::new(ca);
        let certificates = Arc::new(CertificateCache::load(&ca, certificates)?);
        let directory = Arc::new(WorldDirectory {
            store: store.clone(),
            clock: clock.clone(),
            ca: ca.clone(),
            certificates: certificates.clone(),
        });
        // The platform zone answers projects' default addresses from memory: loaded here,
        // told of each new project (`World::project_created`), reloaded by a reset.
        let zones = ZoneStore::new(platform)
            .with_removed_limit(settings.history.removed_dns_records)
            .with_journal(Arc::new(zones::StoreJournal(store.clone())));
        zones.restore(snapshot);
        {
            // past the bound (lowered since the history was written): the journal writes
            let zones = zones.clone();
            tokio::task::spawn_blocking(move || zones.trim_history()).await??;
        }
        zones.set_platform_hosts(store.read(projects::default_addresses).await?);
        zones.set_domain_connect_host(Some(state.api_addr().to_string()));
        let domain_connect = Arc::new(crate::dconnect::Provider::new(
            &settings.platform_dns_target,
            &settings.domain_connect_templates,
        )?);

        let signing = if settings.sign_zones {
            Some(Arc::new(ZoneSigning::generate(clock.clone())?))
        } else {
            None
        };
        let (stop, _) = watch::channel(false);
        let world = Arc::new(Self {
            clock: clock.clone(),
            signing: signing.clone(),
            store: store.clone(),
            zones: zones.clone(),
            ca,
            directory: directory.clone(),
            verifier: Verifier::new(resolver_address, &settings.platform_dns_target),
            addresses,
            propagation_delay: settings.dns_propagation_delay,
            issuance_time: settings.certificate_issuance_time,
            deadline: settings.certificate_deadline,
            certificates,
            last_failure: Mutex::new(HashMap::new()),
            reconciling: tokio::sync::Mutex::new(()),
            dirty: AtomicBool::new(true),
            clock_generation: AtomicU64::new(u64::MAX),
            next_due_micros: std::sync::atomic::AtomicI64::new(i64::MIN),
            stop,
            reconciled: watch::channel(0).0,
            domain_connect,
        });

        let stopped = |world: &Arc<Self>| {
            let mut receiver = world.stop.subscribe();
            async move {
                let _ = receiver.wait_for(|stop| *stop).await;
            }
        };
        let delay = settings.dns_propagation_delay;
        let resolver_view = ZoneView::Delayed {
            clock: clock.clone(),
            delay: Arc::new(move || delay),
        };
        spawn_logged(
            "dns",
            serve_dns(
                ZoneHandler::new(zones.clone(), ZoneView::Live).with_signing(signing),
                dns_udp,
                dns_tcp,
                stopped(&world),
            ),
        );
        spawn_logged(
            "platform resolver view",
            serve_dns(
                ZoneHandler::new(zones, resolver_view),
                resolver_udp,
                resolver_tcp,
                stopped(&world),
            ),
        );
        let files = Arc::new(files::StoreFiles(store));
        let edge_directory: Arc<dyn EdgeDirectory> = directory;
        let limits = settings.connections;
        let (https_directory, https_stopped) = (edge_directory.clone(), stopped(&world));
        spawn_logged("edge https", async move {
            serve_https_with_limits(https, https_directory, files, &limits, https_stopped).await
        });
        let (https_port, http_stopped) = (addresses.edge_https.port(), stopped(&world));
        spawn_logged("edge http", async move {
            serve_http_with_limits(http, edge_directory, https_port, &limits, http_stopped).await
        });
        world.reconcile(true).await?;
        tokio::spawn(background(Arc::downgrade(&world), stopped(&world)));
        tracing::info!(
            dns = %addresses.dns,
            resolver_view = %resolver_address,
            edge_https = %addresses.edge_https,
            edge_http = %addresses.edge_http,
            "DNS server and edge listening"
        );
        Ok(world)
    }

    /// Stops the DNS server, the edge and the background task.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    pub fn addresses(&self) -> WorldAddresses {
        self.addresses
    }

    /// The zone-signing key, when the service signs its zones.
    pub fn signing(&self) -> Option<&Arc<ZoneSigning>> {
        self.signing.as_ref()
    }

    pub fn zones(&self) -> &ZoneStore {
        &self.zones
    }

    /// The local DNS provider's Domain Connect templates.
    pub fn domain_connect(&self) -> &crate::dconnect::Provider {
        &self.domain_connect
    }

    pub fn domain_connect_arc(&self) -> Arc<crate::dconnect::Provider> {
        self.domain_connect.clone()
    }

    pub fn ca(&self) -> &CertificateAuthority {
        &self.ca
    }

    /// What the edge serves: default addresses and live domains, from the database.
    pub fn directory(&self) -> &WorldDirectory {
        &self.directory
    }

    /// The propagation delay the platform resolver view applies.
    pub fn propagation_delay(&self) -> TimeDelta {
        self.propagation_delay
    }

    /// Changes every time a reconciliation has run (by a request or in the background).
    pub fn reconciliations(&self) -> watch::Receiver<u64> {
        self.reconciled.subscribe()
    }

    /// Marks the lifecycles out of date: the next request reconciles.
    pub fn mark_changed(&self) {
        self.dirty.store(true, Ordering::SeqCst);
    }

    fn is_due(&self) -> bool {
        let generation = *self.clock.subscribe().borrow();
        self.dirty.load(Ordering::SeqCst)
            || generation != self.clock_generation.load(Ordering::SeqCst)
            || self.clock.now().timestamp_micros() >= self.next_due_micros.load(Ordering::SeqCst)
    }

    /// Brings certificate lifecycles up to date with the store and the clock: issuance when
    /// its time is up, failure at the deadline, renewal before expiry. Without `force`, does
    /// nothing unless the clock was changed, a verification started issuance, or something is
    /// due.
    pub async fn reconcile(&self, force: bool) -> Result<()> {
        if !force && !self.is_due() {
            return Ok(());
        }
        let _one_at_a_time = self.reconciling.lock().await;
        if !force && !self.is_due() {
            return Ok(());
        }
        self.dirty.store(false, Ordering::SeqCst);
        self.clock_generation
            .store(*self.clock.subscribe().borrow(), Ordering::SeqCst);
        let now = self.clock.now();
        let mut next_due: Option<DateTime<Utc>> = None;
        let mut due_at = |at: DateTime<Utc>| {
            next_due = Some(next_due.map_or(at, |current| current.min(at)));
        };

        let all_domains = self.store.read(all_domains).await?;
        for domain in &all_domains {
            match domain.certificate.status {
                CertificateStatus::Issuing => {
                    if let Some(at) = self.advance_issuance(domain, now).await? {
                        due_at(at);
                    }
                }
                CertificateStatus::Issued => {
                    if let Some(at) = self.advance_renewal(domain, now).await? {
                        due_at(at);
                    }
                }
                CertificateStatus::None | CertificateStatus::Failed => {}
            }
        }
        self.next_due_micros.store(
            next_due.map_or(i64::MAX, |at| at.timestamp_micros()),
            Ordering::SeqCst,
        );
        self.reconciled.send_modify(|count| *count += 1);
        Ok(())
    }

    /// An issuing certificate: attempt when the issuance time has passed; fail at the deadline.
    /// Returns when to look again.
    async fn advance_issuance(
        &self,
        domain: &Domain,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>> {
        let started = domain.certificate.started_at.unwrap_or(now);
        let ready_at = started + self.issuance_time;
        if now < ready_at {
            return Ok(Some(ready_at));
        }
        let deadline = started + self.deadline;
        match self.check_issuance(&domain.hostname).await {
            Ok(()) => {
                // Passing at the first attempt, the CA finished when the issuance time was up
                // (the clock may have jumped well past it); after failed attempts, now.
                let first_attempt = !self.lock_failures().contains_key(&domain.hostname);
                let issued_at = if first_attempt { ready_at } else { now };
                let issued = self.issue_and_keep(&domain.hostname, issued_at).await?;
                let certificate = Certificate {
                    status: CertificateStatus::Issued,
                    started_at: domain.certificate.started_at,
                    issued_at: Some(issued.issued_at),
                    expires_at: Some(issued.expires_at),
                    error: None,
                };
                self.save_certificate(&domain.hostname, DomainStatus::Live, certificate)
                    .await?;
                self.lock_failures().remove(&domain.hostname);
                tracing::info!(hostname = %domain.hostname, "certificate issued; domain live");
                Ok(Some(issued.expires_at - RENEW_BEFORE))
            }
            Err(cause) if now >= deadline => {
                tracing::info!(hostname = %domain.hostname, code = ?cause.code, "certificate failed at the deadline");
                let certificate = Certificate {
                    status: CertificateStatus::Failed,
                    started_at: domain.certificate.started_at,
                    issued_at: None,
                    expires_at: None,
                    error: Some(cause),
                };
                self.save_certificate(&domain.hostname, DomainStatus::Verified, certificate)
                    .await?;
                Ok(None)
            }
            Err(cause) => {
                self.lock_failures().insert(domain.hostname.clone(), cause);
                Ok(Some((now + RETRY_EVERY).min(deadline)))
            }
        }
    }

    /// An issued certificate: renew from `RENEW_BEFORE` before expiry; at expiry without a
    /// renewal it fails and the domain stops being served.
    async fn advance_renewal(
        &self,
        domain: &Domain,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>> {
        let Some(expires_at) = domain.certificate.expires_at else {
            return Ok(None);
        };
        let renew_at = expires_at - RENEW_BEFORE;
        if now < renew_at {
            return Ok(Some(renew_at));
        }
        match self.check_issuance(&domain.hostname).await {
            Ok(()) => {
                let issued = self.issue_and_keep(&domain.hostname, now).await?;
                let certificate = Certificate {
                    status: CertificateStatus::Issued,
                    started_at: Some(now),
                    issued_at: Some(issued.issued_at),
                    expires_at: Some(issued.expires_at),
                    error: None,
                };
                self.save_certificate(&domain.hostname, domain.status, certificate)
                    .await?;
                tracing::info!(hostname = %domain.hostname, "certificate renewed");
                Ok(Some(issued.expires_at - RENEW_BEFORE))
            }
            Err(cause) if now >= expires_at => {
                let certificate = Certificate {
                    status: CertificateStatus::Failed,
                    started_at: domain.certificate.started_at,
                    issued_at: None,
                    expires_at: None,
                    error: Some(cause),
                };
                self.save_certificate(&domain.hostname, DomainStatus::Verified, certificate)
                    .await?;
                Ok(None)
            }
            Err(_) => Ok(Some((now + RETRY_EVERY).min(expires_at))),
        }
    }

    fn lock_failures(&self) -> std::sync::MutexGuard<'_, HashMap<String, CertificateError>> {
        self.last_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What the CA checks before it issues: the name still points at the platform, and CAA
    /// (RFC 8659, through the platform resolver) allows this CA.
    async fn check_issuance(&self, hostname: &str) -> std::result::Result<(), CertificateError> {
        let name = Hostname::parse(hostname).map_err(|error| CertificateError {
            code: CertificateErrorCode::DnsChanged,
            message: error.to_string(),
        })?;
        if let Err(error) = self.verifier.verify(&name).await {
            return Err(if error.code == VerificationErrorCode::DnsLookupFailed {
                CertificateError {
                    code: CertificateErrorCode::DnsLookupFailed,
                    message: error.message,
                }
            } else {
                CertificateError {
                    code: CertificateErrorCode::DnsChanged,
                    message: format!(
                        "{hostname} no longer points at the platform: {}",
                        error.message
                    ),
                }
            });
        }
        let relevant = self
            .verifier
            .relevant_caa(hostname)
            .await
            .map_err(|failed| CertificateError {
                code: CertificateErrorCode::DnsLookupFailed,
                message: format!(
                    "The CA could not look up CAA records for {hostname}: {}",
                    failed.0
                ),
            })?;
        let decision = evaluate(&relevant.records, self.ca.identity(), false);
        if decision.allowed {
            return Ok(());
        }
        let at = relevant.found_at.unwrap_or_else(|| hostname.to_owned());
        Err(CertificateError {
            code: CertificateErrorCode::CaaForbidsIssuance,
            message: format!(
                "CAA records at {at} forbid the platform's CA ({}): {}. Add `0 issue \"{}\"` there or remove the records.",
                self.ca.identity(),
                decision.reason,
                self.ca.identity()
            ),
        })
    }

    async fn issue_and_keep(
        &self,
        hostname: &str,
        now: DateTime<Utc>,
    ) -> Result<IssuedCertificate> {
        let (ca, store, certificates) = (
            self.ca.clone(),
            self.store.clone(),
            self.certificates.clone(),
        );
        let hostname = hostname.to_owned();
        let loaded =
            tokio::task::spawn_blocking(move || certificates.issue(&ca, &store, &hostname, now))
                .await??;
        Ok(loaded.issued)
    }

    async fn save_certificate(
        &self,
        hostname: &str,
        status: DomainStatus,
        certificate: Certificate,
    ) -> Result<()> {
        let hostname = hostname.to_owned();
        self.store
            .write(move |tx| domains::set_certificate(tx, &hostname, status, &certificate))
            .await
    }

    /// Verify or Re-verify: look the records up through the platform resolver, record the
    /// result, and start a fresh issuance attempt when it passes.
    async fn verify_domain(
        &self,
        state: &AppState,
        project_id: &str,
        hostname: &Hostname,
        pending: Option<PendingAnswer>,
    ) -> Result<Response> {
        let outcome = self.verifier.verify(hostname).await;
        let now = self.clock.now();
        let name = hostname.as_str().to_owned();
        let project = project_id.to_owned();
        let _one_at_a_time = self.reconciling.lock().await;
        let (fresh_attempt, answer) = state
            .store()
            .write(move |tx| {
                if let Some(earlier) = Answer::earlier(tx, pending.as_ref())? {
                    return Ok((false, earlier));
                }
                let domain = domains::require_in_project(tx, &project, &name)?;
                let verification = Verification {
                    checked_at: Some(now),
                    error: outcome.as_ref().err().cloned(),
                };
                let fresh_attempt = match outcome {
                    Ok(()) => {
                        let keep_certificate = matches!(
                            domain.certificate.status,
                            CertificateStatus::Issued | CertificateStatus::Issuing
                        );
                        let status = if domain.status == DomainStatus::Live {
                            DomainStatus::Live
                        } else {
                            DomainStatus::Verified
                        };
                        domains::set_verification(tx, &name, status, &verification)?;
                        if !keep_certificate {
                            let fresh = Certificate {
                                status: CertificateStatus::Issuing,
                                started_at: Some(now),
                                issued_at: None,
                                expires_at: None,
                                error: None,
                            };
                            domains::set_certificate(tx, &name, status, &fresh)?;
                        }
                        !keep_certificate
                    }
                    Err(_) => {
                        domains::set_verification(tx, &name, domain.status, &verification)?;
                        false
                    }
                };
                // The answer is the domain as this change left it, committed with the change.
                let verified = domains::require_in_project(tx, &project, &name)?;
                let answer = Answer::record(tx, pending.as_ref(), StatusCode::OK, &verified)?;
                Ok((fresh_attempt, answer))
            })
            .await?;
        if fresh_attempt {
            self.lock_failures().remove(hostname.as_str());
        }
        drop(_one_at_a_time);
        self.mark_changed();
        self.reconcile(true).await?;
        Ok(answer.into_response())
    }

    /// Back to the seed zones; certificates of names that are gone are forgotten.
    async fn reset_world(&self) -> Result<()> {
        let settings_target = self.zones.platform().dns_target;
        let seed = demo_zones(&settings_target, self.ca.identity())?;
        {
            let seed = seed.clone();
            self.store
                .write(move |tx| {
                    zones::write_zones(tx, &seed)?;
                    certificates::prune_certificates(tx)
                })
                .await?;
        }
        self.zones.restore(seed);
        self.zones
            .set_platform_hosts(self.store.read(projects::default_addresses).await?);
        let kept = self.store.read(certificates::read_certificates).await?;
        self.certificates
            .retain(|hostname| kept.contains_key(hostname));
        self.lock_failures().clear();
        self.mark_changed();
        self.reconcile(true).await
    }
}

fn all_domains(conn: &rusqlite::Connection) -> Result<Vec<Domain>> {
    let mut all = Vec::new();
    for status in [CertificateStatus::Issuing, CertificateStatus::Issued] {
        all.extend(domains::with_certificate_status(conn, status)?);
    }
    Ok(all)
}

fn spawn_logged(
    what: &'static str,
    server: impl std::future::Future<Output = Result<()>> + Send + 'static,
) {
    tokio::spawn(async move {
        if let Err(error) = server.await {
            tracing::error!(%error, server = what, "server stopped with an error");
        }
    });
}

/// Reconciles when the clock changes or a deadline comes due, until stopped.
async fn background(
    world: std::sync::Weak<LocalWorld>,
    stopped: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(stopped);
    let Some(mut changes) = world.upgrade().map(|world| world.clock.subscribe()) else {
        return;
    };
    loop {
        tokio::select! {
            () = &mut stopped => return,
            _ = changes.changed() => {}
            () = tokio::time::sleep(BACKGROUND_TICK) => {}
        }
        let Some(world) = world.upgrade() else {
            return;
        };
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificates and the edge failed");
        }
    }
}

impl World for LocalWorld {
    fn info(&self) -> WorldInfo {
        WorldInfo {
            dns: Some(self.addresses.dns),
            edge_https: Some(self.addresses.edge_https),
            edge_http: Some(self.addresses.edge_http),
            ca_certificate_pem: Some(self.ca.certificate_pem().to_owned()),
            dnssec_trust_anchor: self.signing.as_ref().map(|signing| {
                let mut zones = vec![self.zones.platform().domain];
                zones.extend(self.zones.zone_names());
                signing.trust_anchor(&zones)
            }),
        }
    }

    fn verify<'a>(
        &'a self,
        state: &'a AppState,
        _account: &'a Account,
        project_id: &'a str,
        hostname: &'a Hostname,
        pending: Option<PendingAnswer>,
    ) -> BoxFuture<'a, Result<Response>> {
        Box::pin(self.verify_domain(state, project_id, hostname, pending))
    }

    fn txt_values<'a>(
        &'a self,
        name: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<String>, crate::verify::LookupFailed>> {
        Box::pin(self.verifier.txt_values(name))
    }

    fn points_here<'a>(&'a self, hostname: &'a Hostname) -> BoxFuture<'a, bool> {
        Box::pin(async move { self.verifier.verify(hostname).await.is_ok() })
    }

    fn project_created(&self, default_address: &str) {
        self.zones.add_platform_host(default_address);
    }

    fn reset<'a>(&'a self, _state: &'a AppState) -> BoxFuture<'a, Result<()>> {
        Box::pin(self.reset_world())
    }

    fn as_any_arc(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// The plugged-in world as a `LocalWorld`, if it is one.
fn local_world(state: &AppState) -> Option<Arc<LocalWorld>> {
    state.world()?.as_any_arc().downcast::<LocalWorld>().ok()
}

/// Middleware for the API router: before each request and after each change, bring
/// certificate lifecycles up to date when the clock was changed or a deadline is due, so a
/// read right after a clock jump shows the state the jump led to. (The edge and the platform zone read the database at
/// every handshake and query, so they need no such step.)
pub async fn keep_world_current(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let world = local_world(&state);
    if let Some(world) = &world {
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificate lifecycles failed");
        }
    }
    let may_change = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let response = next.run(request).await;
    // After a change (a clock jump above all), again: the edge must serve what the jump made
    // live before the next handshake. Cheap when nothing is due.
    if let (Some(world), true) = (&world, may_change) {
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificate lifecycles failed");
        }
    }
    response
}

/// The world as `/_local/dns` sees it, or `501` when none is running.
pub fn require_local_world(state: &AppState) -> Result<Arc<LocalWorld>> {
    local_world(state).ok_or_else(|| {
        Error::NotAvailable(
            "The demo DNS provider is not available: this service runs without its DNS world."
                .into(),
        )
    })
}

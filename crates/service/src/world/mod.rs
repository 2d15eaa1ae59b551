//! The world behind the API, plugged into the service: the DNS server (public view and the
//! platform resolver's delayed view), the verifier, the local CA with the certificate lifecycle,
//! and the TLS edge, all over the service's store and clock.
//!
//! This module starts and stops those servers and carries out what the lifecycle decides: it
//! asks DNS and the CA's checks, issues certificates and writes the results. The decisions
//! themselves (what a verification or a check leads to, when the next attempt is due) are
//! pure functions in [`lifecycle`]. The HTTP layer reaches the world through
//! `AppState::world()` as the concrete [`LocalWorld`], and keeps it current before requests
//! (`http/world_gate.rs`); this module knows nothing of HTTP or of `AppState`.
//!
//! Lifecycle deadlines are reconciled whenever they matter: before every API request (cheaply:
//! only when the clock was changed, a verification passed, or a deadline is due) and in a
//! background task while the clock runs, so a domain read right after a clock jump already
//! shows the state the jump led to. The edge and the platform zone ask the database at every
//! handshake and query ([`directory`]), so a removed domain's next handshake fails and a new
//! project resolves at once.

pub mod directory;
pub mod files;
pub mod lifecycle;
mod reconcile;
pub mod renewal_demo;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use chrono::TimeDelta;
use domain_desk_api::{CertificateError, Hostname};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::Result;
use crate::ca::CertificateAuthority;
use crate::clock::Clock;
use crate::dns::negative_cache::DEFAULT_CAPACITY;
use crate::dns::{
    NegativeCache, PlatformZone, ZoneHandler, ZoneSigning, ZoneStore, ZoneView, bind_dns,
    demo_zones, serve_dns,
};
use crate::edge::{EdgeDirectory, serve_http_with_limits, serve_https_with_limits};
use crate::settings::ServiceSettings;
use crate::store::{Store, certificates, domains, projects, zones};
use crate::verify::{LookupFailed, Verifier};
use directory::{CertificateCache, WorldDirectory};
use lifecycle::Timings;
pub use lifecycle::{RENEW_BEFORE, VerifyOutcome};
use reconcile::background;
pub use reconcile::record_verification;

/// Where the world's servers listen.
#[derive(Debug, Clone, Copy)]
pub struct WorldAddresses {
    pub dns: SocketAddr,
    pub edge_https: SocketAddr,
    pub edge_http: SocketAddr,
}

/// Where the world's servers listen, and the CA's certificate, for `/_local/info`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldInfo {
    pub dns: Option<SocketAddr>,
    /// The platform's resolver view: the zones as the verifier and the CA see them.
    pub platform_resolver: Option<SocketAddr>,
    pub edge_https: Option<SocketAddr>,
    pub edge_http: Option<SocketAddr>,
    pub ca_certificate_pem: Option<String>,
    /// With `sign_zones`: the zone-signing key as DNSKEY records, one per zone.
    pub dnssec_trust_anchor: Option<String>,
}

/// The running world. Create it with [`LocalWorld::start`] and plug it in with
/// `AppState::set_world` (or both at once with `AppState::start_world`).
pub struct LocalWorld {
    clock: Clock,
    /// With `sign_zones`: the key the DNS server signs every zone with.
    signing: Option<Arc<ZoneSigning>>,
    store: Store,
    zones: ZoneStore,
    /// The platform resolver's negative answers, when it keeps them.
    negative_cache: Option<Arc<NegativeCache>>,
    /// Where the platform resolver view listens (loopback).
    resolver_address: SocketAddr,
    ca: Arc<CertificateAuthority>,
    directory: Arc<WorldDirectory>,
    verifier: Verifier,
    addresses: WorldAddresses,
    propagation_delay: TimeDelta,
    /// The zone DNS validation is delegated to (`acme.<platform domain>`), served by the
    /// platform's DNS server with the CA's DNS-01 tokens.
    validation_zone: String,
    timings: Timings,
    /// Certificates by hostname (domains and default addresses), as in the database.
    certificates: Arc<CertificateCache>,
    /// The last cause an issuance attempt failed with, per hostname.
    last_failure: Mutex<HashMap<String, CertificateError>>,
    /// When a failing renewal is tried next, per hostname: a clock jump does not bring the
    /// attempt forward (memory only; after a restart the first pass tries at once).
    renewal_retry: Mutex<HashMap<String, chrono::DateTime<chrono::Utc>>>,
    /// When the demo's seeded CAA event is due ([`renewal_demo`]); `None` once it happened.
    demo_event: Mutex<Option<chrono::DateTime<chrono::Utc>>>,
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
    domain_connect: Arc<crate::domain_connect::Provider>,
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
    /// `api_addr` is the API's address, which the zones name as the Domain Connect provider.
    pub async fn start(
        settings: &ServiceSettings,
        store: &Store,
        clock: &Clock,
        api_addr: SocketAddr,
        wanted: WorldAddresses,
    ) -> Result<Arc<Self>> {
        let (store, clock) = (store.clone(), clock.clone());

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
        let validation_zone = settings.validation_zone();
        let (issuance_time, now) = (settings.certificate_issuance_time, clock.now());
        let (snapshot, ca, certificates, demo_event) = {
            let store = store.clone();
            let validation_zone = validation_zone.clone();
            tokio::task::spawn_blocking(move || -> Result<_> {
                store.write_blocking(|tx| {
                    domains::set_validation_zone(tx, &validation_zone)?;
                    if !zones::zones_seeded(tx)? {
                        zones::write_zones(tx, &demo_zones(&target, &identity)?)?;
                        renewal_demo::seed(tx, &target, &validation_zone, issuance_time, now)?;
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
                        renewal_demo::event_at(tx)?,
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
        let soa_minimum =
            u32::try_from(settings.dns_soa_minimum.num_seconds().max(0)).unwrap_or(u32::MAX);
        let zones = ZoneStore::new(platform)
            .with_soa_minimum(soa_minimum)
            .with_removed_limit(settings.history.removed_dns_records)
            .with_journal(Arc::new(zones::StoreJournal(store.clone())));
        zones.restore(snapshot);
        zones.set_validation_zone(&validation_zone);
        {
            // past the bound (lowered since the history was written): the journal writes
            let zones = zones.clone();
            tokio::task::spawn_blocking(move || zones.trim_history()).await??;
        }
        zones.set_platform_hosts(store.read(projects::default_addresses).await?);
        zones.set_domain_connect_host(Some(api_addr.to_string()));
        let domain_connect = Arc::new(crate::domain_connect::Provider::new(
            &settings.platform_dns_target,
            &settings.domain_connect_templates,
        )?);

        let signing = if settings.sign_zones {
            Some(Arc::new(ZoneSigning::generate(clock.clone())?))
        } else {
            None
        };
        let negative_cache = settings
            .dns_negative_cache
            .then(|| Arc::new(NegativeCache::new(DEFAULT_CAPACITY)));
        let mut verifier = Verifier::new(resolver_address, &settings.platform_dns_target);
        if negative_cache.is_some() {
            verifier = verifier.with_negative_cache(clock.clone());
        }
        let (stop, _) = watch::channel(false);
        let world = Arc::new(Self {
            clock: clock.clone(),
            signing: signing.clone(),
            store: store.clone(),
            zones: zones.clone(),
            negative_cache: negative_cache.clone(),
            resolver_address,
            ca,
            directory: directory.clone(),
            verifier,
            addresses,
            propagation_delay: settings.dns_propagation_delay,
            validation_zone,
            timings: Timings {
                issuance_time: settings.certificate_issuance_time,
                deadline: settings.certificate_deadline,
            },
            certificates,
            last_failure: Mutex::new(HashMap::new()),
            renewal_retry: Mutex::new(HashMap::new()),
            demo_event: Mutex::new(demo_event),
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
            negative_cache,
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
    pub fn domain_connect(&self) -> &crate::domain_connect::Provider {
        &self.domain_connect
    }

    pub fn domain_connect_arc(&self) -> Arc<crate::domain_connect::Provider> {
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

    /// Back to the seed zones; certificates of names that are gone are forgotten, and so are
    /// the platform resolver's negative answers. Called by `POST /_local/reset` after the API
    /// data went back to the seed.
    pub async fn reset(&self) -> Result<()> {
        let settings_target = self.zones.platform().dns_target;
        let seed = demo_zones(&settings_target, self.ca.identity())?;
        let demo_event = {
            let seed = seed.clone();
            let validation_zone = self.validation_zone.clone();
            let (issuance_time, now) = (self.timings.issuance_time, self.clock.now());
            self.store
                .write(move |tx| {
                    zones::write_zones(tx, &seed)?;
                    renewal_demo::seed(tx, &settings_target, &validation_zone, issuance_time, now)?;
                    certificates::prune_certificates(tx)?;
                    renewal_demo::event_at(tx)
                })
                .await?
        };
        *self
            .demo_event
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = demo_event;
        self.zones.restore(seed);
        if let Some(cache) = &self.negative_cache {
            cache.clear();
        }
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

impl LocalWorld {
    /// Where the servers listen, the CA's certificate and the trust anchor, for
    /// `/_local/info`.
    pub fn info(&self) -> WorldInfo {
        WorldInfo {
            dns: Some(self.addresses.dns),
            platform_resolver: Some(self.resolver_address),
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

    /// The TXT values at `name` as the platform's resolver sees them (after the propagation
    /// delay): where ownership challenges are looked for.
    pub async fn txt_values(&self, name: &str) -> std::result::Result<Vec<String>, LookupFailed> {
        self.verifier.txt_values(name).await
    }

    /// Whether `hostname` points at the platform now, as the platform's resolver sees it:
    /// a removed domain that still does leaves a record someone else could claim.
    pub async fn points_here(&self, hostname: &Hostname) -> bool {
        self.verifier.verify(hostname).await.is_ok()
    }

    /// Called once a new project is committed: its default address resolves from now on.
    pub fn project_created(&self, default_address: &str) {
        self.zones.add_platform_host(default_address);
    }
}

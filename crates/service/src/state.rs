//! What every handler shares: the settings, the clock, the database, the limiter, the fault
//! settings, and the slot where the world behind the API (DNS server, verifier, CA, edge)
//! plugs in.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};

use axum::response::Response;
use chrono::{DateTime, Utc};
use domain_desk_api::local::Faults;
use domain_desk_api::{Account, Hostname};
use futures::future::BoxFuture;

use crate::clock::Clock;
use crate::http::idempotency::{InFlight, PendingAnswer};
use crate::http::read_cache::ReadCache;
use crate::limiter::{BanPolicy, RateLimiter};
use crate::settings::{ServiceSettings, Storage};
use crate::store::page::CursorKey;
use crate::store::{self, Store};
use crate::{Error, Result};

/// Where the world's servers listen, and the CA's certificate, for `/_local/info`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorldInfo {
    pub dns: Option<SocketAddr>,
    pub edge_https: Option<SocketAddr>,
    pub edge_http: Option<SocketAddr>,
    pub ca_certificate_pem: Option<String>,
    /// With `sign_zones`: the zone-signing key as DNSKEY records, one per zone.
    pub dnssec_trust_anchor: Option<String>,
}

/// The part of the platform behind the API: DNS, verification, certificates, the edge.
/// Until one is plugged in, `verify` answers `501`.
pub trait World: Send + Sync + 'static {
    fn info(&self) -> WorldInfo;

    /// Verify or Re-verify a domain of `account`'s project: check DNS, record the result, start
    /// issuance on success, and answer with the domain as that change left it — the answer
    /// committed with the change when `pending` carries the request's `Idempotency-Key`.
    fn verify<'a>(
        &'a self,
        state: &'a AppState,
        account: &'a Account,
        project_id: &'a str,
        hostname: &'a Hostname,
        pending: Option<PendingAnswer>,
    ) -> BoxFuture<'a, Result<Response>>;

    /// The TXT values at `name` as the platform's resolver sees them (after the propagation
    /// delay): where ownership challenges are looked for.
    fn txt_values<'a>(
        &'a self,
        name: &'a str,
    ) -> BoxFuture<'a, std::result::Result<Vec<String>, crate::verify::LookupFailed>>;

    /// Whether `hostname` points at the platform now, as the platform's resolver sees it:
    /// a removed domain that still does leaves a record someone else could claim.
    fn points_here<'a>(&'a self, hostname: &'a Hostname) -> BoxFuture<'a, bool>;

    /// Called once a new project is committed: its default address resolves from now on.
    fn project_created(&self, default_address: &str);

    /// Called by `POST /_local/reset` after the API data went back to the seed.
    fn reset<'a>(&'a self, state: &'a AppState) -> BoxFuture<'a, Result<()>>;

    /// The world as `Any`, so its own routes can reach the concrete type.
    fn as_any_arc(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;
}

#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    settings: ServiceSettings,
    clock: Clock,
    store: Store,
    limiter: RateLimiter,
    faults: RwLock<Faults>,
    world: RwLock<Option<Arc<dyn World>>>,
    /// API key → account, filled on first use; emptied by a reset.
    accounts_by_key: RwLock<HashMap<String, Account>>,
    /// The `Idempotency-Key`s whose first request is still running: a second copy sent
    /// meanwhile is refused instead of acting too.
    idempotency_in_flight: Arc<InFlight>,
    /// Signs list cursors.
    cursor_key: CursorKey,
    /// Answers to repeated `GET`s while the data is unchanged.
    read_cache: ReadCache,
    /// The API's bound address, once known.
    api_addr: RwLock<Option<SocketAddr>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("clock", &self.inner.clock)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Opens the database named by the settings, seeds it if new, and restores saved bans.
    pub fn open(settings: ServiceSettings, clock: Clock) -> Result<Self> {
        let store = match &settings.storage {
            Storage::File(path) => Store::open(path)?,
            Storage::Memory => Store::open_in_memory()?,
        };
        Self::with_store(settings, clock, store)
    }

    pub fn with_store(settings: ServiceSettings, clock: Clock, store: Store) -> Result<Self> {
        let now = clock.now();
        let platform_domain = settings.platform_domain.clone();
        store.write_blocking(|tx| {
            store::seed::demo_keys(tx)?;
            if !store::seed::is_seeded(tx)? {
                store::seed::seed(tx, &platform_domain, now)?;
            }
            Ok(())
        })?;
        let limiter = RateLimiter::new(BanPolicy {
            threshold: settings.ban_threshold,
            duration: settings.ban_duration,
        });
        let bans = store.read_blocking(|conn| store::bans::active(conn, now))?;
        let cursor_key = store.read_blocking(CursorKey::load)?;
        for (key, until) in bans {
            limiter.restore_ban(&key, until);
        }
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                clock,
                store,
                limiter,
                faults: RwLock::new(Faults::default()),
                world: RwLock::new(None),
                accounts_by_key: RwLock::new(HashMap::new()),
                idempotency_in_flight: Arc::new(InFlight::default()),
                cursor_key,
                read_cache: ReadCache::default(),
                api_addr: RwLock::new(None),
            }),
        })
    }

    pub fn settings(&self) -> &ServiceSettings {
        &self.inner.settings
    }

    pub fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn limiter(&self) -> &RateLimiter {
        &self.inner.limiter
    }

    pub fn faults(&self) -> Faults {
        *self
            .inner
            .faults
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set_faults(&self, faults: Faults) {
        *self
            .inner
            .faults
            .write()
            .unwrap_or_else(PoisonError::into_inner) = faults;
    }

    /// Plugs in the world behind the API (DNS, verifier, CA, edge).
    pub fn set_world(&self, world: Arc<dyn World>) {
        *self
            .inner
            .world
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(world);
    }

    pub fn world(&self) -> Option<Arc<dyn World>> {
        self.inner
            .world
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn set_api_addr(&self, addr: SocketAddr) {
        *self
            .inner
            .api_addr
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(addr);
    }

    /// The API's bound address, or the configured one before it is bound.
    pub fn api_addr(&self) -> SocketAddr {
        self.inner
            .api_addr
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or(self.inner.settings.api_addr)
    }

    pub fn idempotency_in_flight(&self) -> &Arc<InFlight> {
        &self.inner.idempotency_in_flight
    }

    pub fn read_cache(&self) -> &ReadCache {
        &self.inner.read_cache
    }

    pub fn cursor_key(&self) -> &CursorKey {
        &self.inner.cursor_key
    }

    /// The account an API key belongs to, or `None` for an unknown key.
    pub async fn account_for_key(&self, key: &str) -> Result<Option<Account>> {
        if let Some(account) = self
            .inner
            .accounts_by_key
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
        {
            return Ok(Some(account.clone()));
        }
        let lookup = key.to_owned();
        let account = self
            .store()
            .read(move |conn| store::accounts::by_key(conn, &lookup))
            .await?;
        if let Some(account) = &account {
            self.inner
                .accounts_by_key
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.to_owned(), account.clone());
        }
        Ok(account)
    }

    /// The demo API key of each plan.
    pub async fn demo_keys(&self) -> Result<Vec<(domain_desk_api::Plan, String)>> {
        // Creates a plan's key the first time it is asked for: a write.
        self.store().write(|tx| store::seed::demo_keys(tx)).await
    }

    /// Back to the seed data: API tables, limiter, faults, then the world's own reset.
    pub async fn reset(&self) -> Result<()> {
        let now = self.now();
        let platform_domain = self.settings().platform_domain.clone();
        self.store()
            .write(move |tx| store::seed::reset(tx, &platform_domain, now))
            .await?;
        self.inner
            .accounts_by_key
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.limiter().clear();
        self.read_cache().clear();
        self.set_faults(Faults::default());
        if let Some(world) = self.world() {
            world.reset(self).await?;
        }
        Ok(())
    }

    /// The world, or the `501` the contract allows until one is plugged in.
    pub fn require_world(&self) -> Result<Arc<dyn World>> {
        self.world().ok_or_else(|| {
            Error::NotAvailable(
                "Verification is not available: this service runs without its DNS world.".into(),
            )
        })
    }
}

//! What every handler shares: the settings, the clock, the database, the limiter, the fault
//! settings, and the slot where the world behind the API (DNS server, verifier, CA, edge)
//! plugs in. The slot holds the concrete [`LocalWorld`], so handlers call it directly; the
//! world itself knows nothing of this state (it is started from the settings, store and
//! clock), so the two modules do not import each other. It lives in `http/` because it is the
//! HTTP layer's state (axum's `State`) and holds the layer's own parts (the in-flight
//! idempotency keys, the read cache): nothing outside `http` needs it.
//!
//! Those parts live in files of their own (`idempotency/in_flight.rs`,
//! `fast/read_cache/answers.rs`) that import neither this state nor the middleware that reads
//! it, so the middleware can read the state for what stands beside its part (the settings, the
//! clock, the store) without a ring.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};

use chrono::{DateTime, Utc};
use domain_desk_api::Account;
use domain_desk_api::local::Faults;

use super::fast::read_cache::answers::ReadCache;
use super::idempotency::in_flight::InFlight;
use crate::clock::Clock;
use crate::limiter::{BanPolicy, RateLimiter};
use crate::settings::{ServiceSettings, Storage};
use crate::store::page::CursorKey;
use crate::store::{self, Store};
use crate::world::{LocalWorld, WorldAddresses};
use crate::{Error, Result};

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
    /// The world behind the API, once started; `None` answers `501` where it is needed.
    world: RwLock<Option<Arc<LocalWorld>>>,
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

    /// Starts the world behind the API (DNS, verifier, CA, edge) on this state's settings,
    /// store and clock, and plugs it in. Port 0 in `wanted` picks free ports.
    pub async fn start_world(&self, wanted: WorldAddresses) -> Result<Arc<LocalWorld>> {
        let world = LocalWorld::start(
            self.settings(),
            self.store(),
            self.clock(),
            self.api_addr(),
            wanted,
        )
        .await?;
        self.set_world(world.clone());
        Ok(world)
    }

    /// Plugs in the world behind the API (DNS, verifier, CA, edge).
    pub fn set_world(&self, world: Arc<LocalWorld>) {
        *self
            .inner
            .world
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(world);
    }

    pub fn world(&self) -> Option<Arc<LocalWorld>> {
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
            world.reset().await?;
        }
        Ok(())
    }

    /// The world for verification, or the `501` the contract allows until one is plugged in.
    pub fn require_world(&self) -> Result<Arc<LocalWorld>> {
        self.world().ok_or_else(|| {
            Error::NotAvailable(
                "Verification is not available: this service runs without its DNS world.".into(),
            )
        })
    }

    /// The world for the demo DNS provider (`/_local/dns`, Domain Connect's `/v2`), or `501`.
    pub fn require_demo_dns(&self) -> Result<Arc<LocalWorld>> {
        self.world().ok_or_else(|| {
            Error::NotAvailable(
                "The demo DNS provider is not available: this service runs without its DNS world."
                    .into(),
            )
        })
    }
}

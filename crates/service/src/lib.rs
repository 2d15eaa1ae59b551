//! The platform on one machine, offline: the HTTP API of `api-v1.md` with plans, rate limits
//! and bans, persisted in SQLite, on a virtual clock. The desktop app embeds it in-process for
//! its offline demo; `domain-desk serve` runs it headless.
//!
//! Start it with [`Service::spawn`], which serves on a task and hands back a [`Running`]
//! (addresses, demo keys, the handle that stops it); or from a bound listener and a shutdown
//! future ([`run`]); or take the router alone ([`app`]) and drive it with
//! `tower::ServiceExt::oneshot`.

pub mod ca;
pub mod clock;
pub mod dns;
pub mod domain_connect;
pub mod edge;
pub mod error;
pub mod http;
pub mod limiter;
pub mod running;
pub mod server;
pub mod settings;
pub mod store;
pub mod verify;
pub mod world;

use std::future::Future;

use tokio::net::TcpListener;

pub use clock::Clock;
pub use error::{Error, Result};
pub use http::state::AppState;
pub use http::{app, openapi_document};
pub use running::Running;
pub use settings::{ConnectionLimits, HistoryLimits, ServiceSettings, Storage};
pub use world::WorldInfo;

/// Opens the state the settings name (seeding a new database) on a clock running at the
/// settings' speed from the wall clock's time.
pub fn open(settings: ServiceSettings) -> Result<AppState> {
    let clock = Clock::starting_at(chrono::Utc::now(), settings.clock_speed);
    AppState::open(settings, clock)
}

/// Serves the API on `api_listener` until `shutdown` resolves. Every acknowledged change is
/// already durable when its answer is sent, so stopping loses nothing.
pub async fn run(
    state: AppState,
    api_listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<()> {
    let addr = api_listener.local_addr()?;
    state.set_api_addr(addr);
    tracing::info!(%addr, "platform API listening");
    let limits = state.settings().connections;
    server::serve_with_limits(api_listener, app(state), &limits, shutdown).await
}

/// The service bound to its addresses and ready to run: what `domain-desk serve` and the
/// desktop app's offline demo start.
#[derive(Debug)]
pub struct Service {
    state: AppState,
    api_listener: TcpListener,
    world: std::sync::Arc<world::LocalWorld>,
}

impl Service {
    /// Opens the state and binds the API's address (port 0 picks a free one).
    pub async fn bind(settings: ServiceSettings) -> Result<Self> {
        let api_addr = settings.api_addr;
        let world_addresses = world::WorldAddresses {
            dns: settings.dns_addr,
            edge_https: settings.edge_https_addr,
            edge_http: settings.edge_http_addr,
        };
        let state = tokio::task::spawn_blocking(move || open(settings)).await??;
        let api_listener = TcpListener::bind(api_addr).await?;
        state.set_api_addr(api_listener.local_addr()?);
        let world = state.start_world(world_addresses).await?;
        Ok(Self {
            state,
            api_listener,
            world,
        })
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Addresses, platform names and demo keys, as `GET /_local/info` answers them.
    pub async fn info(&self) -> Result<domain_desk_api::local::LocalInfo> {
        http::local::info::local_info(&self.state).await
    }

    /// Binds as [`Service::bind`] does, then serves on a task of the current runtime until the
    /// returned [`Running`] is shut down or dropped.
    pub async fn spawn(settings: ServiceSettings) -> Result<Running> {
        let service = Self::bind(settings).await?;
        let info = service.info().await?;
        let api = service.api_listener.local_addr()?;
        let state = service.state.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(service.run(async {
            // Resolves when the sender is dropped as well as when it sends.
            let _ = stopped.await;
        }));
        Ok(Running::new(info, api, state, stop, task))
    }

    /// Serves until `shutdown` resolves.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<()> {
        let served = run(self.state, self.api_listener, shutdown).await;
        self.world.stop();
        served
    }
}

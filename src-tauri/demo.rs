//! The offline demo: the local service embedded in the app's process, on loopback ports the
//! OS picks, signed in with its Pro key.
//!
//! The service keeps its state in the app's data folder, so the demo continues where it was
//! left. It runs as long as the app; its control plane (`/_local`) drives the Demo DNS panel,
//! the clock and reset through [`LocalControl`].

use std::net::SocketAddr;

use domain_desk_api::Plan;
use domain_desk_api::local::{ClockState, LocalInfo};
use domain_desk_client::ClientConfig;
use domain_desk_service::{Service, ServiceSettings, Storage};
use tauri::{Manager, Runtime};
use tokio::sync::{Mutex, oneshot};

use crate::local_control::LocalControl;
use crate::paths::AppPaths;
use crate::settings::{self, AccountEntry, AccountMode, DEMO_ACCOUNT_ID};
use crate::state::{AppState, Session, SessionDto};
use crate::{Error, Result, signin};

/// The running embedded service, if the demo has been started.
#[derive(Debug, Default)]
pub struct DemoSlot(Mutex<Option<RunningDemo>>);

#[derive(Debug)]
struct RunningDemo {
    base_url: String,
    /// Dropping it (when the app exits) stops the service if this process started it.
    _service: EmbeddedService,
}

fn loopback_any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// Starts the embedded service once, returning its API base URL.
async fn ensure_running<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<String> {
    let slot = app.state::<DemoSlot>();
    let mut running = slot.0.lock().await;
    if let Some(demo) = running.as_ref() {
        return Ok(demo.base_url.clone());
    }
    let service = start_embedded(&app.state::<AppPaths>()).await?;
    let base_url = service.base_url().to_owned();
    tracing::info!(%base_url, "offline demo service started");
    *running = Some(RunningDemo {
        base_url: base_url.clone(),
        _service: service,
    });
    Ok(base_url)
}

/// The demo's service as [`start_embedded`] found it.
#[derive(Debug)]
pub enum EmbeddedService {
    /// Started here; it runs until `stop` is dropped.
    Started {
        base_url: String,
        stop: oneshot::Sender<()>,
    },
    /// Another process (the window, or the command line) runs it at `base_url`.
    Elsewhere { base_url: String },
}

impl EmbeddedService {
    pub fn base_url(&self) -> &str {
        match self {
            EmbeddedService::Started { base_url, .. } | EmbeddedService::Elsewhere { base_url } => {
                base_url
            }
        }
    }
}

/// Starts the local service on the demo's database, on loopback ports the OS picks, unless
/// another process on this computer already runs it: one service per database, or their
/// in-memory views (DNS zones, cached answers) would drift apart.
///
/// The running process holds an OS lock on `demo-service.lock` in the data folder, which
/// names its address; the lock goes with the process, so a crashed holder blocks nobody.
pub async fn start_embedded(paths: &AppPaths) -> Result<EmbeddedService> {
    use std::io::{Read, Seek, Write};
    std::fs::create_dir_all(&paths.data_dir)?;
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(paths.data_dir.join("demo-service.lock"))?;
    if let Err(std::fs::TryLockError::WouldBlock) = lock.try_lock() {
        let mut base_url = String::new();
        lock.read_to_string(&mut base_url)?;
        let base_url = base_url.trim().to_owned();
        if base_url.starts_with("http://127.0.0.1:") || base_url.starts_with("http://[::1]:") {
            return Ok(EmbeddedService::Elsewhere { base_url });
        }
        return Err(Error::DemoStart(
            "another process is starting the offline demo; try again in a moment".into(),
        ));
    }
    let settings = ServiceSettings {
        storage: Storage::File(paths.demo_database()),
        api_addr: loopback_any_port(),
        dns_addr: loopback_any_port(),
        edge_https_addr: loopback_any_port(),
        edge_http_addr: loopback_any_port(),
        // Signed zones, so the demo can show a DNSSEC problem (Demo DNS → signatures) and
        // Diagnose validates from the service's key.
        sign_zones: true,
        ..ServiceSettings::default()
    };
    let service = Service::spawn(settings)
        .await
        .map_err(|err| Error::DemoStart(err.to_string()))?;
    let base_url = service.base_url();
    lock.set_len(0)?;
    lock.rewind()?;
    lock.write_all(base_url.as_bytes())?;
    lock.flush()?;
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        // Resolves when the sender is dropped as well as when it sends.
        let shutdown = async {
            let _ = stopped.await;
        };
        if let Err(err) = service.run_until(shutdown).await {
            tracing::error!(%err, "the offline demo's service stopped");
        }
        // Held while the service runs.
        drop(lock);
    });
    Ok(EmbeddedService::Started { base_url, stop })
}

/// The account entry id of a demo plan's account: `offline-demo:pro`.
pub fn account_id(plan: Plan) -> String {
    format!("{DEMO_ACCOUNT_ID}:{}", plan.as_str())
}

/// The plan named by a demo account entry id, if it is one.
pub fn plan_of(account_id: &str) -> Option<Plan> {
    let plan = account_id.strip_prefix(DEMO_ACCOUNT_ID)?;
    if plan.is_empty() {
        return Some(Plan::Pro);
    }
    let plan = plan.strip_prefix(':')?;
    Plan::ALL.into_iter().find(|p| p.as_str() == plan)
}

/// A session on one of the demo's accounts, its request queue pacing itself by the demo's
/// clock.
async fn demo_session<R: Runtime>(
    app: &tauri::AppHandle<R>,
    local: LocalControl,
    info: &LocalInfo,
    plan: Plan,
    clock_speed: f64,
) -> Result<Session> {
    let key = info.demo_keys.get(plan.as_str()).ok_or_else(|| {
        Error::DemoStart(format!("the service has no {} demo key", plan.as_str()))
    })?;
    let mut config = ClientConfig::new(local.base_url(), key.as_str()).plan(plan);
    config.queue.platform_clock_speed = pacing_speed(clock_speed);
    // The key's queue may already run (an earlier visit to this account): it keeps its
    // budget and learns the current speed.
    let client = app.state::<AppState>().clients().client(config)?;
    client
        .set_platform_clock_speed(pacing_speed(clock_speed))
        .await?;
    let account = client.account().await?;
    let mut session = Session::new(
        account_id(plan),
        AccountMode::Demo,
        local.base_url().to_owned(),
        client,
        account,
    );
    session.platform_domain = Some(info.platform_domain.clone());
    session.ca_identity = Some(info.ca_identity.clone());
    session.local = Some(local);
    Ok(session)
}

/// Starts (or reuses) the embedded service and signs in to its account on `plan` (the Pro
/// one when the user picks "Offline demo"). Every demo account is listed for switching.
pub async fn start<R: Runtime>(app: &tauri::AppHandle<R>, plan: Plan) -> Result<SessionDto> {
    let base_url = ensure_running(app).await?;
    let local = LocalControl::new(&base_url)?;
    let info = local.info().await?;
    let speed = local.clock().await?.speed;
    let session = demo_session(app, local, &info, plan, speed).await?;
    for listed in Plan::ALL {
        let title = match listed {
            Plan::Free => "Free",
            Plan::Pro => "Pro",
            Plan::Business => "Business",
            Plan::Enterprise => "Enterprise",
        };
        settings::remember_account(
            app,
            AccountEntry {
                id: account_id(listed),
                label: format!("Offline demo · {title}"),
                mode: AccountMode::Demo,
                base_url: String::new(),
                extra: Default::default(),
            },
        )?;
    }
    signin::activate(app, session).await
}

/// A stopped clock never resets a window; the queue paces as if it ran in real time.
fn pacing_speed(clock_speed: f64) -> f64 {
    if clock_speed > 0.0 { clock_speed } else { 1.0 }
}

/// Sets the demo clock's speed and tells the running request queue, so that its windows
/// follow the new speed without a second queue on the same key.
pub async fn set_clock_speed<R: Runtime>(
    app: &tauri::AppHandle<R>,
    speed: f64,
) -> Result<ClockState> {
    let current = app.state::<AppState>().session().await?;
    let clock = current.local()?.set_clock_speed(speed).await?;
    current
        .client
        .set_platform_clock_speed(pacing_speed(clock.speed))
        .await?;
    Ok(clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_account_ids_name_their_plan() {
        assert_eq!(account_id(Plan::Free), "offline-demo:free");
        assert_eq!(plan_of("offline-demo:free"), Some(Plan::Free));
        assert_eq!(plan_of("offline-demo"), Some(Plan::Pro));
        assert_eq!(plan_of("offline-demo:gold"), None);
        assert_eq!(plan_of("offline-demonstration"), None);
        assert_eq!(plan_of("acc_1@api.example.com"), None);
    }
}

//! The window's accounts controller: signing in to a platform with a base URL and an API key
//! (the key goes to the keyring), switching between the accounts kept on this computer,
//! forgetting one, and the offline demo (the local service embedded in the app's process,
//! signed in with a demo key). [`Accounts`] is held as Tauri state; the commands in
//! [`crate::commands::session`] are one call into it each.
//!
//! One controller because the demo and the kept accounts are the same list: switching to a
//! demo account starts the demo, and starting the demo makes its account the session like any
//! other. What needs no Tauri is the application layer's, shared with the command line:
//! [`domain_desk_app::accounts`] (a key proved and kept, a kept key opened, a demo client, an
//! account forgotten), [`domain_desk_app::account_rules`] (entry names, where a key may go,
//! demo account ids), [`domain_desk_app::secrets`] (the keyring) and [`domain_desk_app::demo_service`] (starting
//! the embedded service once per database). Its control plane is
//! `domain_desk_client::LocalControl`.

use domain_desk_api::Plan;
use domain_desk_api::local::{ClockState, LocalInfo};
use domain_desk_app::account_rules::{account_id, pacing_speed, plan_of};
use domain_desk_app::accounts::{self, AccountList};
use domain_desk_app::demo_service::{EmbeddedService, start_embedded};
use domain_desk_app::paths::AppPaths;
use domain_desk_app::secrets::Keyring;
use domain_desk_client::{ApiKey, Client, LocalControl};
use tauri::{Manager, Runtime};
use tokio::sync::Mutex;

use crate::error::AppError;
use crate::settings::{self, AccountEntry, AccountMode};
use crate::state::{AppState, Session, SessionDto};
use crate::{Error, Result};

/// Signs in and out; holds the embedded demo service once it has been started.
#[derive(Debug, Default)]
pub struct Accounts {
    demo: Mutex<Option<RunningDemo>>,
}

#[derive(Debug)]
struct RunningDemo {
    base_url: String,
    /// Dropping it (when the app exits) stops the service if this process started it.
    _service: EmbeddedService,
}

impl Accounts {
    /// On start: signs in again to the last account, if there was one and it still works.
    pub async fn resume<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
    ) -> Result<Option<SessionDto>> {
        if let Some(session) = app.state::<AppState>().current().await {
            return Ok(Some(session.dto()));
        }
        let settings = settings::load(app)?;
        let Some(last) = settings.last_account else {
            return Ok(None);
        };
        match self
            .switch_checked(app, &last, settings.base_url.as_deref())
            .await
        {
            Ok(dto) => Ok(Some(dto)),
            // The person should hear why they are not signed in: the window shows it on the
            // first-run screen.
            Err(err @ Error::App(AppError::KeyDestination { .. })) => {
                tracing::warn!(%err, "refused to send the last account's key");
                Err(err)
            }
            Err(err) => {
                tracing::warn!(%err, "could not sign in to the last account again");
                Ok(None)
            }
        }
    }

    /// Connects with a key, keeps the key in the keyring and the account in the list, and
    /// makes it the current session.
    pub async fn connect<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        base_url: &str,
        api_key: &str,
    ) -> Result<SessionDto> {
        let clients = app.state::<AppState>();
        let signed_in = accounts::sign_in(
            clients.clients(),
            &mut StoreAccounts(app),
            &Keyring,
            base_url,
            ApiKey::new(api_key),
        )
        .await?;
        let session = Session::new(
            signed_in.entry.id,
            AccountMode::Connected,
            signed_in.entry.base_url,
            signed_in.client,
            signed_in.account,
        );
        activate(app, session).await
    }

    /// Switches to an account kept on this computer (the demo starts if it is not running).
    pub async fn switch<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        id: &str,
    ) -> Result<SessionDto> {
        self.switch_checked(app, id, None).await
    }

    /// [`Accounts::switch`], also requiring a connected account's URL to be `last_base_url`
    /// when given.
    async fn switch_checked<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        id: &str,
        last_base_url: Option<&str>,
    ) -> Result<SessionDto> {
        if let Some(plan) = plan_of(id) {
            return self.start_demo(app, plan).await;
        }
        let entry = settings::accounts(app)?
            .into_iter()
            .find(|e| e.id == id)
            .ok_or_else(|| {
                AppError::InvalidInput("This account is no longer kept here; connect again.".into())
            })?;
        let client = accounts::kept_client(
            app.state::<AppState>().clients(),
            &Keyring,
            &entry,
            last_base_url,
        )?;
        let account = client.account().await?;
        let session = Session::new(
            entry.id,
            AccountMode::Connected,
            entry.base_url,
            client,
            account,
        );
        activate(app, session).await
    }

    /// Forgets an account: its key leaves the keyring, its entry the list.
    pub async fn forget<R: Runtime>(&self, app: &tauri::AppHandle<R>, id: &str) -> Result<()> {
        accounts::forget(&mut StoreAccounts(app), &Keyring, id)?;
        let state = app.state::<AppState>();
        if state.current().await.is_some_and(|s| s.account_id == id) {
            state.clear().await;
        }
        Ok(())
    }

    /// Starts (or reuses) the embedded service and signs in to its account on `plan` (the Pro
    /// one when the user picks "Offline demo"). Every demo account is listed for switching.
    pub async fn start_demo<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        plan: Plan,
    ) -> Result<SessionDto> {
        let base_url = self.demo_running(app).await?;
        let local =
            LocalControl::new(&base_url).map_err(|err| AppError::DemoStart(err.to_string()))?;
        let info = local.info().await?;
        let clock = local.clock().await?;
        let session = demo_session(app, local, &info, plan, clock).await?;
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
        activate(app, session).await
    }

    /// Starts the embedded service once, returning its API base URL.
    async fn demo_running<R: Runtime>(&self, app: &tauri::AppHandle<R>) -> Result<String> {
        let mut running = self.demo.lock().await;
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

    /// Sets the demo clock's speed and tells the running request queue, so that its windows
    /// follow the new speed without a second queue on the same key.
    pub async fn set_clock_speed<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        speed: f64,
    ) -> Result<ClockState> {
        let current = app.state::<AppState>().session().await?;
        let clock = current.local()?.set_clock_speed(speed).await?;
        follow_demo_clock(&current.client, &clock).await?;
        Ok(clock)
    }

    /// Moves the demo clock forward, as if that much time had passed, and tells the running
    /// request queue: a minute the clock moved past has refilled on the platform.
    pub async fn advance_clock<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        seconds: f64,
    ) -> Result<ClockState> {
        let current = app.state::<AppState>().session().await?;
        let clock = current.local()?.advance_clock(seconds).await?;
        follow_demo_clock(&current.client, &clock).await?;
        Ok(clock)
    }
}

/// Tells `client`'s queue what the demo clock read (after a change, or at any reading: the
/// command line or the control plane may have changed it), so the budget the window shows
/// refills when the platform's does.
pub(crate) async fn follow_demo_clock(client: &Client, clock: &ClockState) -> Result<()> {
    Ok(client
        .follow_platform_clock(clock.now, pacing_speed(clock.speed))
        .await?)
}

/// A session on one of the demo's accounts, its request queue pacing itself by the demo's
/// clock.
async fn demo_session<R: Runtime>(
    app: &tauri::AppHandle<R>,
    local: LocalControl,
    info: &LocalInfo,
    plan: Plan,
    clock: ClockState,
) -> Result<Session> {
    // The key's queue may already run (an earlier visit to this account): it keeps its
    // budget and learns the clock as it is now.
    let client = accounts::demo_client(
        app.state::<AppState>().clients(),
        local.base_url(),
        info,
        plan,
        clock.speed,
    )?;
    follow_demo_clock(&client, &clock).await?;
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
    session.propagation_delay_seconds = info.propagation_delay_seconds;
    session.local = Some(local);
    Ok(session)
}

/// Makes `session` the current one, forwards its queue to the window and remembers it.
async fn activate<R: Runtime>(
    app: &tauri::AppHandle<R>,
    mut session: Session,
) -> Result<SessionDto> {
    session.forward_queue_events(app.clone());
    let dto = session.dto();
    let id = session.account_id.clone();
    let base_url = (session.mode == AccountMode::Connected).then(|| session.base_url.clone());
    let same_account = app
        .state::<AppState>()
        .current()
        .await
        .is_some_and(|s| s.account_id == id);
    app.state::<AppState>().replace(session).await;
    settings::update(app, |s| {
        if !same_account && s.last_account.as_deref() != Some(id.as_str()) {
            s.last_project = None;
        }
        s.last_account = Some(id);
        if let Some(url) = base_url {
            s.base_url = Some(url);
        }
    })?;
    tracing::info!(account = %dto.account.id, mode = ?dto.mode, "signed in");
    Ok(dto)
}

/// The window's list of accounts: the plugin's store, which the window's other plugins share.
struct StoreAccounts<'a, R: Runtime>(&'a tauri::AppHandle<R>);

impl<R: Runtime> AccountList for StoreAccounts<'_, R> {
    fn accounts(&self) -> domain_desk_app::Result<Vec<AccountEntry>> {
        settings::accounts(self.0).map_err(into_app)
    }

    fn remember(&mut self, entry: AccountEntry) -> domain_desk_app::Result<()> {
        settings::remember_account(self.0, entry).map_err(into_app)
    }

    fn forget(&mut self, id: &str) -> domain_desk_app::Result<bool> {
        let kept = settings::accounts(self.0).map_err(into_app)?;
        settings::forget_account(self.0, id).map_err(into_app)?;
        Ok(kept.iter().any(|e| e.id == id))
    }
}

/// The store's errors are the application layer's (settings); anything else is said as a
/// settings error too.
fn into_app(err: Error) -> AppError {
    match err {
        Error::App(err) => err,
        other => AppError::Settings(other.to_string()),
    }
}

//! The renewal watch in the window: a background task that, every tick, runs
//! [`domain_desk_app::renewal_watch::Watcher`] over every account kept on this computer (the
//! signed-in one, the other demo accounts while the demo runs, and each connected account
//! whose key is in the keyring), shows one desktop notification per new problem and one when it is fixed
//! (naming the account), sends `renewal://changed` to the window when the results changed, and
//! answers `renewal_state`, what the domains table, the detail panel and the account switcher
//! show.
//!
//! Each account goes through its own key's request queue (the app's client pool). The
//! decisions live in `renewal_watch` (Tauri-free, tested on the demo's clock); this file only
//! gathers the accounts, carries the notices out and hands in what the window's commands
//! report ([`RenewalWatchState::changed`], [`RenewalWatchState::listed`]).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain_desk_api::Domain;
use domain_desk_client::LocalControl;
use domain_desk_doctor::renewal::Readiness;
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::Mutex;

use crate::Result;
use crate::settings::{self, AccountEntry, AccountMode};
use crate::state::{AppState, Session};
use domain_desk_app::account_rules::plan_of;
use domain_desk_app::accounts;
use domain_desk_app::paths::AppPaths;
use domain_desk_app::renewal_watch::{Inbox, WatchedAccount, Watcher};
use domain_desk_app::secrets::Keyring;

/// The event that carries a check's results to the window.
pub const RENEWAL_CHANGED: &str = "renewal://changed";

/// How often the task looks whether a check is due (real time; the daily check itself is
/// due by the platform's clock, which in the demo runs 600 times faster).
const TICK: Duration = Duration::from_secs(2);

/// What the window shows: the signed-in account's latest readiness of every live domain and
/// when the watch checked and checks next (platform time), and for every other account kept
/// here the domains whose renewal will fail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RenewalView {
    pub account_id: Option<String>,
    pub checked_at: Option<DateTime<Utc>>,
    pub next_check: Option<DateTime<Utc>>,
    pub domains: Vec<Readiness>,
    pub accounts: Vec<AccountSummary>,
}

/// One account's renewal problems, for the account switcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AccountSummary {
    pub account_id: String,
    pub account_label: String,
    pub checked_at: Option<DateTime<Utc>>,
    /// The hostnames whose renewal will fail.
    pub at_risk: Vec<String>,
}

/// The watch, held as Tauri state.
#[derive(Default)]
pub struct RenewalWatchState {
    inbox: Inbox,
    /// Made at the first tick, with the data folder's memory.
    watcher: Mutex<Option<Watcher>>,
    /// The accounts other than the signed-in one, by entry id; `None` for one that cannot be
    /// watched (no key in the keyring), so it is not asked again every tick.
    others: Mutex<BTreeMap<String, Option<WatchedAccount>>>,
    /// The demo's control plane, once a demo session was seen (the demo runs until exit).
    demo: Mutex<Option<LocalControl>>,
    view: Mutex<RenewalView>,
}

impl RenewalWatchState {
    /// The user changed the domains of `project_id` (or with `None`, a DNS record) in
    /// `account_id`: the watch checks again, and takes the window's next list of the project.
    pub fn changed(&self, account_id: &str, project_id: Option<&str>) {
        self.inbox.changed(account_id, project_id);
    }

    /// The change count before the window asks for a list (pass it to [`Self::listed`]).
    pub fn list_asked(&self) -> u64 {
        self.inbox.count()
    }

    /// The window listed a project's domains: the watch uses the list instead of asking again.
    pub fn listed(&self, account_id: &str, project_id: &str, asked_at: u64, domains: &[Domain]) {
        self.inbox.listed(account_id, project_id, asked_at, domains);
    }
}

/// The latest results, for the window's first paint (later ones arrive as events).
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn renewal_state(state: State<'_, RenewalWatchState>) -> Result<RenewalView> {
    Ok(state.view.lock().await.clone())
}

/// Starts the watch's task; it runs as long as the app.
pub fn start<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            if let Err(err) = tick(&app).await {
                tracing::warn!(%err, "the renewal check could not run");
            }
            tokio::time::sleep(TICK).await;
        }
    });
}

async fn tick<R: Runtime>(app: &AppHandle<R>) -> Result<()> {
    let Some(session) = app.state::<AppState>().current().await else {
        return Ok(());
    };
    let state = app.state::<RenewalWatchState>();
    let entries = settings::accounts(app);
    let accounts = accounts(app, &state, &session, entries.as_deref().unwrap_or(&[])).await;
    let mut guard = state.watcher.lock().await;
    let watcher =
        guard.get_or_insert_with(|| Watcher::with_memory_in(&app.state::<AppPaths>().data_dir));
    if let Ok(entries) = &entries {
        let mut kept: BTreeSet<String> = entries.iter().map(|entry| entry.id.clone()).collect();
        kept.insert(session.account_id.clone());
        watcher.keep_only(&kept);
    }
    watcher.take_inbox(&state.inbox);
    let mut notices = Vec::new();
    for account in &accounts {
        match watcher.tick(account).await {
            Ok(news) => notices.extend(news),
            Err(err) => {
                tracing::warn!(account = %account.id, %err, "the renewal check of an account could not run");
            }
        }
    }
    let current = watcher
        .view(&session.account_id)
        .cloned()
        .unwrap_or_default();
    let view = RenewalView {
        account_id: Some(session.account_id.clone()),
        checked_at: current.checked_at,
        next_check: current.next_check,
        domains: current.domains,
        accounts: watcher
            .views()
            .map(|account| AccountSummary {
                account_id: account.account_id.clone(),
                account_label: account.account_label.clone(),
                checked_at: account.checked_at,
                at_risk: account.at_risk().into_iter().map(str::to_owned).collect(),
            })
            .collect(),
    };
    drop(guard);
    for notice in &notices {
        let (title, body) = notice.text();
        tracing::info!(%title, "renewal notice");
        if let Err(err) = app
            .notification()
            .builder()
            .title(&title)
            .body(&body)
            .show()
        {
            tracing::warn!(%err, "could not show the renewal notice");
        }
    }
    let mut shown = state.view.lock().await;
    if *shown != view {
        shown.clone_from(&view);
        drop(shown);
        if let Err(err) = app.emit(RENEWAL_CHANGED, &view) {
            tracing::warn!(%err, "could not tell the window about the renewal check");
        }
    }
    Ok(())
}

/// The accounts to watch: the session's first, then every other kept account that can be
/// reached (the other demo accounts while the demo runs; connected ones with their key).
async fn accounts<R: Runtime>(
    app: &AppHandle<R>,
    state: &RenewalWatchState,
    session: &Session,
    entries: &[AccountEntry],
) -> Vec<WatchedAccount> {
    if let Some(local) = &session.local {
        *state.demo.lock().await = Some(local.clone());
    }
    let label = |id: &str, fallback: &str| {
        entries
            .iter()
            .find(|entry| entry.id == id)
            .map_or_else(|| fallback.to_owned(), |entry| entry.label.clone())
    };
    let mut accounts = vec![WatchedAccount {
        id: session.account_id.clone(),
        label: label(&session.account_id, &session.account.name),
        client: session.client.clone(),
        local: session.local.clone(),
    }];
    let demo = state.demo.lock().await.clone();
    let mut others = state.others.lock().await;
    for entry in entries {
        if entry.id == session.account_id {
            continue;
        }
        if !others.contains_key(&entry.id) {
            let made = match other_account(app, entry, demo.as_ref()).await {
                Ok(Some(account)) => Some(account),
                // the demo is not running: ask again later
                Ok(None) => continue,
                Err(err) => {
                    tracing::warn!(account = %entry.id, %err, "the renewal watch cannot watch this account");
                    None
                }
            };
            others.insert(entry.id.clone(), made);
        }
        if let Some(Some(account)) = others.get(&entry.id) {
            accounts.push(WatchedAccount {
                label: entry.label.clone(),
                ..account.clone()
            });
        }
    }
    accounts
}

/// A kept account other than the session's, with its key's own client; `None` for a demo
/// account while the demo is not running.
async fn other_account<R: Runtime>(
    app: &AppHandle<R>,
    entry: &AccountEntry,
    demo: Option<&LocalControl>,
) -> Result<Option<WatchedAccount>> {
    let pool = app.state::<AppState>();
    let (client, local) = match (entry.mode, plan_of(&entry.id)) {
        (AccountMode::Demo, Some(plan)) => {
            let Some(local) = demo else {
                return Ok(None);
            };
            let info = local.info().await?;
            let speed = local.clock().await?.speed;
            let client =
                accounts::demo_client(pool.clients(), local.base_url(), &info, plan, speed)?;
            (client, Some(local.clone()))
        }
        _ => (
            accounts::kept_client(pool.clients(), &Keyring, entry, None)?,
            None,
        ),
    };
    Ok(Some(WatchedAccount {
        id: entry.id.clone(),
        label: entry.label.clone(),
        client,
        local,
    }))
}

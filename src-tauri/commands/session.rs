//! Signing in and accounts: the offline demo, connecting with a key, switching and forgetting.

use tauri::{AppHandle, Runtime, State};

use crate::Result;
use crate::accounts::Accounts;
use crate::settings::{self, AccountEntry};
use crate::state::{AppState, SessionDto};

/// The current session, signing in again to the last account on first call.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn session_get<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
) -> Result<Option<SessionDto>> {
    accounts.resume(&app).await
}

/// Starts the embedded local service and signs in with its Pro key.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn demo_start<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
) -> Result<SessionDto> {
    accounts.start_demo(&app, domain_desk_api::Plan::Pro).await
}

/// Connects to a platform; the key goes to the OS keyring only.
#[tauri::command]
#[tracing::instrument(skip(app, accounts, api_key), err(Debug))]
pub async fn connect<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
    base_url: String,
    api_key: String,
) -> Result<SessionDto> {
    accounts.connect(&app, &base_url, &api_key).await
}

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn accounts_list<R: Runtime>(app: AppHandle<R>) -> Result<Vec<AccountEntry>> {
    settings::accounts(&app)
}

#[tauri::command]
#[tracing::instrument(skip(app, accounts), err(Debug))]
pub async fn account_switch<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
    id: String,
) -> Result<SessionDto> {
    accounts.switch(&app, &id).await
}

#[tauri::command]
#[tracing::instrument(skip(app, accounts), err(Debug))]
pub async fn account_forget<R: Runtime>(
    app: AppHandle<R>,
    accounts: State<'_, Accounts>,
    id: String,
) -> Result<()> {
    accounts.forget(&app, &id).await
}

/// The request queue's state, for the meter before the first `queue://changed` event.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn rate_limit_state(
    state: State<'_, AppState>,
) -> Result<domain_desk_client::QueueState> {
    Ok(state.session().await?.client.state().borrow().clone())
}

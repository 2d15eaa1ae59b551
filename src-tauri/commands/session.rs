//! Signing in and accounts: the offline demo, connecting with a key, switching and forgetting.

use tauri::{AppHandle, Runtime, State};

use crate::settings::{self, AccountEntry};
use crate::state::{AppState, SessionDto};
use crate::{Result, signin};

/// The current session, signing in again to the last account on first call.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn session_get<R: Runtime>(app: AppHandle<R>) -> Result<Option<SessionDto>> {
    signin::resume(&app).await
}

/// Starts the embedded local service and signs in with its Pro key.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn demo_start<R: Runtime>(app: AppHandle<R>) -> Result<SessionDto> {
    crate::demo::start(&app, domain_desk_api::Plan::Pro).await
}

/// Connects to a platform; the key goes to the OS keyring only.
#[tauri::command]
#[tracing::instrument(skip(app, api_key), err(Debug))]
pub async fn connect<R: Runtime>(
    app: AppHandle<R>,
    base_url: String,
    api_key: String,
) -> Result<SessionDto> {
    signin::connect(&app, &base_url, &api_key).await
}

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn accounts_list<R: Runtime>(app: AppHandle<R>) -> Result<Vec<AccountEntry>> {
    settings::accounts(&app)
}

#[tauri::command]
#[tracing::instrument(skip(app), err(Debug))]
pub async fn account_switch<R: Runtime>(app: AppHandle<R>, id: String) -> Result<SessionDto> {
    signin::switch(&app, &id).await
}

#[tauri::command]
#[tracing::instrument(skip(app), err(Debug))]
pub async fn account_forget<R: Runtime>(app: AppHandle<R>, id: String) -> Result<()> {
    signin::forget(&app, &id).await
}

/// The request queue's state, for the meter before the first `queue://changed` event.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn rate_limit_state(
    state: State<'_, AppState>,
) -> Result<domain_desk_client::QueueState> {
    Ok(state.session().await?.client.state().borrow().clone())
}

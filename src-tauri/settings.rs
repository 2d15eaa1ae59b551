//! The window's settings and accounts in tauri-plugin-store's JSON file (`settings.json` in
//! the data folder). Their shapes, the secret-field filter and the check that sets an
//! unreadable file aside are the application layer's ([`domain_desk_app::settings`], shared
//! with the command line's [`domain_desk_app::accounts_file`]); this module only reads and
//! writes them through the plugin's store, which the window's other plugins share.

use std::path::PathBuf;
use std::sync::Arc;

pub use domain_desk_app::settings::{
    ACCOUNTS_KEY, AccountEntry, AccountMode, DEMO_ACCOUNT_ID, SETTINGS_KEY, Settings,
    SettingsCheck, SettingsNotice, SettingsView, Theme, remember_in,
};
use tauri::{Manager, Runtime};
use tauri_plugin_store::{Store, StoreExt};

use crate::Result;
use crate::error::AppError;
use domain_desk_app::paths::AppPaths;

fn store<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Arc<Store<R>>> {
    let file: PathBuf = app.state::<AppPaths>().data_dir.join("settings.json");
    if app.try_state::<SettingsCheck>().is_none() {
        app.manage(SettingsCheck::default());
    }
    app.state::<SettingsCheck>().run_once(&file)?;
    let store = app
        .store(&file)
        .map_err(|err| AppError::Settings(err.to_string()))?;
    // The command line writes the same file (`domain-desk login`): read what is there now.
    // Every change here is saved at once, so nothing unsaved is lost by reading again.
    if file.exists() {
        if let Err(err) = store.reload_ignore_defaults() {
            tracing::warn!(%err, "the settings file could not be read again; using what was read before");
        }
    }
    Ok(store)
}

/// A stored value as `T`; absent is the default. A value that does not decode is an error
/// rather than the default, so that saving never writes over what could not be read.
fn decode<T: serde::de::DeserializeOwned + Default>(value: Option<serde_json::Value>) -> Result<T> {
    match value {
        None => Ok(T::default()),
        Some(value) => serde_json::from_value(value).map_err(|err| {
            AppError::Settings(format!("the stored settings could not be read: {err}")).into()
        }),
    }
}

pub fn load<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Settings> {
    decode(store(app)?.get(SETTINGS_KEY))
}

/// The settings with the notice of this run, if the file could not be read.
pub fn view<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<SettingsView> {
    let settings = load(app)?;
    Ok(SettingsView {
        settings,
        notice: app.state::<SettingsCheck>().notice(),
    })
}

pub fn save<R: Runtime>(app: &tauri::AppHandle<R>, settings: &Settings) -> Result<()> {
    let store = store(app)?;
    let value =
        serde_json::to_value(settings).map_err(|err| AppError::Settings(err.to_string()))?;
    store.set(SETTINGS_KEY, value);
    store
        .save()
        .map_err(|err| AppError::Settings(err.to_string()).into())
}

/// Changes the settings with `edit` and saves them.
pub fn update<R: Runtime>(
    app: &tauri::AppHandle<R>,
    edit: impl FnOnce(&mut Settings),
) -> Result<Settings> {
    let mut settings = load(app)?;
    edit(&mut settings);
    save(app, &settings)?;
    Ok(settings)
}

pub fn accounts<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Vec<AccountEntry>> {
    decode(store(app)?.get(ACCOUNTS_KEY))
}

/// Adds the entry, or replaces the one with the same id (keeping the fields this version
/// does not know).
pub fn remember_account<R: Runtime>(app: &tauri::AppHandle<R>, entry: AccountEntry) -> Result<()> {
    let mut list = accounts(app)?;
    remember_in(&mut list, entry);
    save_accounts(app, &list)
}

pub fn forget_account<R: Runtime>(app: &tauri::AppHandle<R>, id: &str) -> Result<()> {
    let mut list = accounts(app)?;
    list.retain(|e| e.id != id);
    save_accounts(app, &list)
}

fn save_accounts<R: Runtime>(app: &tauri::AppHandle<R>, list: &[AccountEntry]) -> Result<()> {
    let store = store(app)?;
    let value = serde_json::to_value(list).map_err(|err| AppError::Settings(err.to_string()))?;
    store.set(ACCOUNTS_KEY, value);
    store
        .save()
        .map_err(|err| AppError::Settings(err.to_string()).into())
}

//! The window's settings (base URL, last project and account, polling, theme) and the list of
//! accounts kept on this computer, in tauri-plugin-store's JSON file.
//!
//! Nothing secret goes here: API keys live in the OS keyring ([`crate::secrets`]). The types
//! have no field for a key, so a key sent by mistake with the settings is dropped on the way in.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tauri::{Manager, Runtime};
use tauri_plugin_store::{Store, StoreExt};

use crate::paths::AppPaths;
use crate::{Error, Result};

const SETTINGS_KEY: &str = "settings";
const ACCOUNTS_KEY: &str = "accounts";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The API base URL last connected to (the offline demo's changes every start).
    pub base_url: Option<String>,
    /// The account entry signed in last, so the next start signs in again.
    pub last_account: Option<String>,
    pub last_project: Option<String>,
    /// Watch domains that are not live in the background.
    pub polling: bool,
    pub theme: Theme,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            base_url: None,
            last_account: None,
            last_project: None,
            polling: true,
            theme: Theme::System,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountMode {
    /// The embedded local service of the offline demo.
    Demo,
    /// A platform reached over the network with a key from the keyring.
    Connected,
}

/// An account kept on this computer. Its key, if any, is in the keyring under `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountEntry {
    pub id: String,
    pub label: String,
    pub mode: AccountMode,
    /// Empty for the demo, whose address changes every start.
    pub base_url: String,
}

/// The prefix of the demo's account entries (`offline-demo:pro`, …): listed once the demo has
/// run, never with a stored key (the embedded service hands out its demo keys).
pub const DEMO_ACCOUNT_ID: &str = "offline-demo";

fn store<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Arc<Store<R>>> {
    let file: PathBuf = app.state::<AppPaths>().data_dir.join("settings.json");
    app.store(file)
        .map_err(|err| Error::Settings(err.to_string()))
}

pub fn load<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<Settings> {
    Ok(store(app)?
        .get(SETTINGS_KEY)
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default())
}

pub fn save<R: Runtime>(app: &tauri::AppHandle<R>, settings: &Settings) -> Result<()> {
    let store = store(app)?;
    let value = serde_json::to_value(settings).map_err(|err| Error::Settings(err.to_string()))?;
    store.set(SETTINGS_KEY, value);
    store.save().map_err(|err| Error::Settings(err.to_string()))
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
    Ok(store(app)?
        .get(ACCOUNTS_KEY)
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default())
}

/// Adds the entry, or replaces the one with the same id.
pub fn remember_account<R: Runtime>(app: &tauri::AppHandle<R>, entry: AccountEntry) -> Result<()> {
    let mut list = accounts(app)?;
    match list.iter_mut().find(|e| e.id == entry.id) {
        Some(existing) => *existing = entry,
        None => list.push(entry),
    }
    save_accounts(app, &list)
}

pub fn forget_account<R: Runtime>(app: &tauri::AppHandle<R>, id: &str) -> Result<()> {
    let mut list = accounts(app)?;
    list.retain(|e| e.id != id);
    save_accounts(app, &list)
}

fn save_accounts<R: Runtime>(app: &tauri::AppHandle<R>, list: &[AccountEntry]) -> Result<()> {
    let store = store(app)?;
    let value = serde_json::to_value(list).map_err(|err| Error::Settings(err.to_string()))?;
    store.set(ACCOUNTS_KEY, value);
    store.save().map_err(|err| Error::Settings(err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_key_sent_with_the_settings_is_dropped() {
        let settings: Settings = serde_json::from_value(serde_json::json!({
            "theme": "dark", "polling": false, "api_key": "ddk_secret"
        }))
        .unwrap();
        assert_eq!(settings.theme, Theme::Dark);
        assert!(!settings.polling);
        let stored = serde_json::to_string(&settings).unwrap();
        assert!(!stored.contains("ddk_secret"), "{stored}");
    }

    #[test]
    fn missing_fields_take_their_defaults() {
        let settings: Settings = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(settings, Settings::default());
        assert!(settings.polling);
    }
}

//! The window's settings (base URL, last project and account, polling, theme) and the list of
//! accounts kept on this computer: the shapes of `settings.json` in the data folder, which the
//! window keeps through tauri-plugin-store (`src-tauri/settings.rs`) and the command line
//! through [`crate::accounts_file`].
//!
//! Nothing secret goes here: API keys live in the OS keyring ([`crate::secrets`]). The types
//! have no field for a key, and an unknown field whose name says it holds a secret is dropped
//! on the way in, so a key sent by mistake with the settings never reaches the file.
//!
//! The file is the user's: the accounts they connected, the last project. Two promises keep it:
//! - A file this version cannot read is never overwritten. It is moved aside as
//!   `settings.json.bad-<time>`, the app starts with defaults, and the window is told
//!   ([`SettingsView::notice`]). The plugin would otherwise start empty and save over it.
//! - Fields this version does not know (a newer version's) are kept on write (`extra`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::Result;

/// Where the file keeps the settings and the list of accounts.
pub const SETTINGS_KEY: &str = "settings";
pub const ACCOUNTS_KEY: &str = "accounts";

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
    /// Closing the window while a domain waits for DNS or a certificate keeps watching it
    /// from the tray; off, closing the window quits.
    pub watch_after_close: bool,
    /// Look for a newer version at start.
    pub check_updates: bool,
    /// The newer version already announced, so each is announced once.
    pub update_announced: Option<String>,
    /// Diagnose without an account: the platform DNS target names must point at; unset, the
    /// platform's published one.
    pub diagnose_target: Option<String>,
    /// Diagnose without an account: ask only these DNS servers (as `doctor --resolver`);
    /// empty, the system's and public resolvers and each zone's own servers.
    pub diagnose_resolvers: Vec<std::net::SocketAddr>,
    /// Fields this version does not know, written back as they were read.
    #[serde(flatten, deserialize_with = "unknown_fields")]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            base_url: None,
            last_account: None,
            last_project: None,
            polling: true,
            theme: Theme::System,
            watch_after_close: true,
            check_updates: true,
            update_announced: None,
            diagnose_target: None,
            diagnose_resolvers: Vec::new(),
            extra: serde_json::Map::new(),
        }
    }
}

/// Unknown fields, less any whose name says it holds a secret (`api_key`, `token`, …): a key
/// belongs in the keyring, so one that turns up here is dropped rather than kept on disk.
fn unknown_fields<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<serde_json::Map<String, serde_json::Value>, D::Error> {
    let mut fields = serde_json::Map::deserialize(deserializer)?;
    fields.retain(|name, _| !names_a_secret(name));
    Ok(fields)
}

fn names_a_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["key", "secret", "token", "password", "credential", "auth"]
        .iter()
        .any(|word| name.contains(word))
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
    /// Fields this version does not know, written back as they were read.
    #[serde(flatten, deserialize_with = "unknown_fields")]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The prefix of the demo's account entries (`offline-demo:pro`, …): listed once the demo has
/// run, never with a stored key (the embedded service hands out its demo keys).
pub const DEMO_ACCOUNT_ID: &str = "offline-demo";

/// Why the settings on screen are the defaults: the file could not be read and was kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsNotice {
    pub message: String,
    /// Where the unreadable file is now.
    pub kept_at: String,
}

/// The settings as `settings_get` answers them: the settings, and a notice when the file could
/// not be read this run.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsView {
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<SettingsNotice>,
}

/// Managed state: whether the settings file was checked this run, and what the check found.
/// The check runs before the store plugin first reads the file.
#[derive(Debug, Default)]
pub struct SettingsCheck(Mutex<Option<Option<SettingsNotice>>>);

impl SettingsCheck {
    /// Checks `file` once per run (again after a failed attempt).
    pub fn run_once(&self, file: &Path) -> Result<()> {
        let mut checked = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if checked.is_some() {
            return Ok(());
        }
        let notice = set_aside_if_unreadable(file, Utc::now())?.map(|kept| {
            tracing::warn!(kept_at = %kept.display(), "the settings file could not be read; starting with defaults");
            SettingsNotice {
                message: format!(
                    "Your settings could not be read, so Domain Desk started with default settings and without the list of accounts (their keys are still in the system keyring: connect again to see them). The unreadable file was kept as {}.",
                    kept.display()
                ),
                kept_at: kept.display().to_string(),
            }
        });
        *checked = Some(notice);
        Ok(())
    }

    pub fn notice(&self) -> Option<SettingsNotice> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .flatten()
    }
}

/// Whether the store file holds what this version can read: a JSON object whose settings
/// and accounts decode.
fn readable(bytes: &[u8]) -> bool {
    let Ok(mut map) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes)
    else {
        return false;
    };
    let settings_ok = map
        .remove(SETTINGS_KEY)
        .is_none_or(|v| serde_json::from_value::<Settings>(v).is_ok());
    let accounts_ok = map
        .remove(ACCOUNTS_KEY)
        .is_none_or(|v| serde_json::from_value::<Vec<AccountEntry>>(v).is_ok());
    settings_ok && accounts_ok
}

/// Moves `file` to `<name>.bad-<time>` beside it when it exists and cannot be read, and says
/// where. A second unreadable file in the same second gets `-2`, `-3`, … so none is lost.
pub fn set_aside_if_unreadable(file: &Path, now: DateTime<Utc>) -> Result<Option<PathBuf>> {
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    if readable(&bytes) {
        return Ok(None);
    }
    let name = file.file_name().map_or_else(
        || "settings.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let mut kept = file.with_file_name(format!("{name}.bad-{stamp}"));
    let mut n = 1;
    while kept.exists() {
        n += 1;
        kept = file.with_file_name(format!("{name}.bad-{stamp}-{n}"));
    }
    std::fs::rename(file, &kept)?;
    Ok(Some(kept))
}

/// Adds `entry` to `list`, or replaces the one with the same id (keeping the fields this
/// version does not know).
pub fn remember_in(list: &mut Vec<AccountEntry>, mut entry: AccountEntry) {
    match list.iter_mut().find(|e| e.id == entry.id) {
        Some(existing) => {
            for (name, value) in std::mem::take(&mut existing.extra) {
                entry.extra.entry(name).or_insert(value);
            }
            *existing = entry;
        }
        None => list.push(entry),
    }
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

    #[test]
    fn fields_a_newer_version_wrote_survive_a_round_trip() {
        let stored = serde_json::json!({
            "theme": "dark", "polling": true, "sidebar_width": 320,
            "layout": {"panes": ["domains", "dns"]}, "session_token": "tok_x"
        });
        let settings: Settings = serde_json::from_value(stored).unwrap();
        let written = serde_json::to_value(&settings).unwrap();
        assert_eq!(written["sidebar_width"], 320);
        assert_eq!(written["layout"]["panes"][1], "dns");
        assert!(written.get("session_token").is_none(), "{written}");

        let entry: AccountEntry = serde_json::from_value(serde_json::json!({
            "id": "acc_1@api.example.com", "label": "Shop", "mode": "connected",
            "base_url": "https://api.example.com", "team": "tm_9"
        }))
        .unwrap();
        assert_eq!(serde_json::to_value(&entry).unwrap()["team"], "tm_9");

        // Signing in again replaces the entry but keeps what this version does not know.
        let mut list = vec![entry.clone()];
        let again = AccountEntry {
            label: "Shop · pro".into(),
            extra: serde_json::Map::new(),
            ..entry
        };
        remember_in(&mut list, again);
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].label, "Shop · pro");
        assert_eq!(list[0].extra["team"], "tm_9");
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn an_unreadable_file_is_moved_aside_with_its_time_and_never_lost() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        let now = at("2030-01-02T03:04:05Z");
        assert_eq!(set_aside_if_unreadable(&file, now).unwrap(), None);

        let good = r#"{"settings":{"theme":"dark"},"accounts":[],"unknown":1}"#;
        std::fs::write(&file, good).unwrap();
        assert_eq!(set_aside_if_unreadable(&file, now).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), good);

        std::fs::write(&file, "{\"settings\": {\"theme\": ").unwrap();
        let kept = set_aside_if_unreadable(&file, now).unwrap().unwrap();
        assert_eq!(kept, dir.path().join("settings.json.bad-20300102T030405Z"));
        assert!(!file.exists());
        assert_eq!(
            std::fs::read_to_string(&kept).unwrap(),
            "{\"settings\": {\"theme\": "
        );

        // Valid JSON, but accounts this version cannot read: also kept, not overwritten.
        let newer = r#"{"accounts":[{"id":"a","label":"A","mode":"team","base_url":""}]}"#;
        std::fs::write(&file, newer).unwrap();
        let second = set_aside_if_unreadable(&file, now).unwrap().unwrap();
        assert_eq!(
            second,
            dir.path().join("settings.json.bad-20300102T030405Z-2")
        );
        assert_eq!(std::fs::read_to_string(&second).unwrap(), newer);
        assert_eq!(
            std::fs::read_to_string(&kept).unwrap(),
            "{\"settings\": {\"theme\": "
        );
    }
}

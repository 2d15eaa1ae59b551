//! The app's own services to the window: settings, opening a domain in the browser, saving a
//! report, and desktop notifications.

use std::path::PathBuf;

use domain_desk_api::Hostname;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_notification::NotificationExt;

use crate::settings::{self, AccountMode, Settings, SettingsView};
use crate::state::AppState;
use crate::{Error, Result};
use domain_desk_app::paths::AppPaths;

/// The settings, with a `notice` when the file could not be read this run (it was kept beside
/// as `settings.json.bad-<time>` and the defaults are in use).
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn settings_get<R: Runtime>(app: AppHandle<R>) -> Result<SettingsView> {
    settings::view(&app)
}

/// Saves what the window may change (theme, polling, last project, watching after close,
/// looking for updates); the account and base URL
/// change only by signing in.
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn settings_set<R: Runtime>(app: AppHandle<R>, settings: Settings) -> Result<Settings> {
    settings::update(&app, |s| {
        s.theme = settings.theme;
        s.polling = settings.polling;
        s.last_project = settings.last_project;
        s.watch_after_close = settings.watch_after_close;
        s.check_updates = settings.check_updates;
    })
}

/// Opens `https://<hostname>/` in the default browser.
#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn open_in_browser(state: State<'_, AppState>, hostname: String) -> Result<()> {
    let name = Hostname::parse(&hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
    if state.session().await?.mode == AccountMode::Demo {
        return Err(Error::InvalidInput(format!(
            "{} exists only inside the offline demo, so a browser cannot reach it. Diagnose shows the certificate the demo's edge serves for it.",
            name.unicode()
        )));
    }
    crate::browser::open_url(&format!("https://{name}/")).map_err(Error::Open)
}

/// Saves a Diagnose report as JSON in the Downloads folder (or the app's data folder) and
/// returns where.
#[tauri::command]
#[tracing::instrument(skip(paths, json), err(Debug))]
pub fn report_save(paths: State<'_, AppPaths>, hostname: String, json: String) -> Result<String> {
    let name =
        Hostname::parse_domain(&hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
    // No `*` in a file name (Windows refuses it): `*.shop.example.com` → `wildcard.shop…`.
    let name = name.as_str().replace('*', "wildcard");
    let value: serde_json::Value = serde_json::from_str(&json)
        .map_err(|err| Error::InvalidInput(format!("The report is not JSON: {err}")))?;
    let folder: PathBuf = dirs::download_dir().unwrap_or_else(|| paths.data_dir.join("reports"));
    std::fs::create_dir_all(&folder)?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let path = folder.join(format!("dns-report-{name}-{stamp}.json"));
    let text =
        serde_json::to_string_pretty(&value).map_err(|err| Error::InvalidInput(err.to_string()))?;
    // A customer's DNS: the user's alone, never written through a link planted in Downloads.
    domain_desk_api::private_file::write_atomically(&path, text.as_bytes())?;
    Ok(path.display().to_string())
}

/// A desktop notification (a domain went live, a certificate failed).
#[tauri::command]
#[tracing::instrument(skip(app), err(Debug))]
pub fn notify<R: Runtime>(app: AppHandle<R>, title: String, body: String) -> Result<()> {
    app.notification()
        .builder()
        .title(title)
        .body(body)
        .show()
        .map_err(|err| Error::Notification(err.to_string()))
}

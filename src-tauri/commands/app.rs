//! About the app itself: version and folders.

use serde::Serialize;
use tauri::State;

use domain_desk_app::paths::AppPaths;

#[derive(Debug, Serialize)]
pub struct AppInfo {
    pub version: &'static str,
    pub data_dir: String,
    pub log_dir: String,
    /// Where API keys are kept, in words.
    pub key_store: &'static str,
}

#[tauri::command]
#[tracing::instrument(skip(paths))]
pub fn app_info(paths: State<'_, AppPaths>) -> AppInfo {
    AppInfo {
        version: env!("CARGO_PKG_VERSION"),
        data_dir: paths.data_dir.display().to_string(),
        log_dir: paths.log_dir.display().to_string(),
        key_store: domain_desk_app::secrets::KeyStore::installed().map_or(
            "the system keyring",
            domain_desk_app::secrets::KeyStore::describe,
        ),
    }
}

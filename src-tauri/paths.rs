//! Where Domain Desk keeps its data and logs, from each OS's conventions.
//!
//! The window and the command line must agree on these folders, and the command line has no
//! Tauri path resolver, so both read them from here. The layout matches Tauri's own
//! `app_data_dir` and `app_log_dir` for the app's identifier.

use std::path::PathBuf;

use serde::Serialize;

/// The bundle identifier from `tauri.conf.json`.
pub const IDENTIFIER: &str = "dev.domaindesk.app";

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AppPaths {
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
}

impl AppPaths {
    pub fn from_os() -> Self {
        let fallback = std::env::temp_dir();
        let data_dir = dirs::data_dir()
            .unwrap_or_else(|| fallback.clone())
            .join(IDENTIFIER);
        let log_dir = if cfg!(target_os = "macos") {
            dirs::home_dir()
                .unwrap_or(fallback)
                .join("Library/Logs")
                .join(IDENTIFIER)
        } else {
            dirs::data_local_dir()
                .unwrap_or(fallback)
                .join(IDENTIFIER)
                .join("logs")
        };
        Self { data_dir, log_dir }
    }

    /// Where the request queues of every Domain Desk process share each key's budget.
    pub fn queue_dir(&self) -> PathBuf {
        self.data_dir.join("queue")
    }

    /// The local service's database for the offline demo.
    pub fn demo_database(&self) -> PathBuf {
        self.data_dir.join("local-service.sqlite3")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window's folders are Tauri's, named by the bundle's identifier: this copy of it
    /// must be the one `tauri.conf.json` gives, or the command line and the window would keep
    /// their data in different places.
    #[test]
    fn the_identifier_is_the_bundles() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../tauri.conf.json")).expect("tauri.conf.json");
        assert_eq!(config["identifier"], IDENTIFIER);
    }
}

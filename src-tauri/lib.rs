//! Domain Desk's desktop shell: a thin Tauri front end over the library crates.
//!
//! Commands live in [`commands`] and stay a few lines each; the logic they call is in crates
//! that know nothing of Tauri, so the command line ([`cli`]) drives the same code.

pub mod cli;
pub mod commands;
pub mod error;
pub mod logs;
pub mod paths;

pub use error::{Error, Result};

/// Builds the Tauri application with every plugin, command and piece of state it needs, on
/// any runtime, so tests can drive it with the mock runtime.
pub fn builder<R: tauri::Runtime>() -> tauri::Builder<R> {
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_store::Builder::default().build())
        .invoke_handler(tauri::generate_handler![commands::app::app_info])
}

/// Opens the main window and runs until it closes.
pub fn run_window() -> Result<()> {
    let paths = paths::AppPaths::from_os();
    let log_guard = logs::init(&paths.log_dir)?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "starting Domain Desk");
    builder::<tauri::Wry>()
        .manage(paths)
        .manage(log_guard)
        .run(tauri::generate_context!())
        .map_err(Error::from)
}

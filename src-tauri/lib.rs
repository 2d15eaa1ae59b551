//! Domain Desk's desktop shell: a thin Tauri front end over the library crates.
//!
//! Commands live in [`commands`] and stay a few lines each; the logic they call is in crates
//! that know nothing of Tauri (the application layer, [`domain_desk_app`], and the library
//! crates under it), so the command line ([`cli`]) drives the same code.

pub mod accounts;
pub mod allocator;
pub mod browser;
pub mod cli;
pub mod commands;
pub mod console;
pub mod desktop;
pub mod error;
pub mod logs;
pub mod settings;
pub mod state;
pub mod webview;

pub use error::{Error, Result};

/// Builds the Tauri application with every plugin, command and piece of state it needs, on
/// any runtime, so tests can drive it with the mock runtime.
pub fn builder<R: tauri::Runtime>() -> tauri::Builder<R> {
    configure(tauri::Builder::<R>::new())
}

/// Adds Domain Desk's plugins, state and commands to `builder`; tests pass
/// `tauri::test::mock_builder()` to drive the same app on the mock runtime.
pub fn configure<R: tauri::Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_store::Builder::default().build())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .manage(commands::bulk::RunningImport::default())
        .manage(commands::desktop::ReadyUpdate::default())
        .manage(desktop::PendingLink::default())
        .manage(desktop::Watch::default())
        .manage(state::AppState::default())
        .manage(accounts::Accounts::default())
        .manage(settings::SettingsCheck::default())
        .manage(commands::renewal::RenewalWatchState::default())
        .invoke_handler(tauri::generate_handler![
            commands::app::app_info,
            commands::session::session_get,
            commands::bulk::domains_import,
            commands::bulk::domains_import_cancel,
            commands::bulk::domains_export,
            commands::domain_connect::domain_connect_offer,
            commands::domain_connect::domain_connect_set_up,
            commands::session::demo_start,
            commands::session::connect,
            commands::session::accounts_list,
            commands::session::account_switch,
            commands::session::account_forget,
            commands::session::rate_limit_state,
            commands::projects::projects_list,
            commands::projects::project_get,
            commands::domains::domains_list,
            commands::domains::domain_get,
            commands::domains::domain_add,
            commands::domains::domain_verify,
            commands::domains::domains_reverify,
            commands::domains::domain_remove,
            commands::domains::domain_config_get,
            commands::domains::domain_make_primary,
            commands::domains::domain_redirect,
            commands::domains::domain_move,
            commands::domains::hostname_check,
            commands::demo::demo_dns_zones,
            commands::demo::demo_dns_records,
            commands::demo::demo_dns_add,
            commands::demo::demo_dns_delete,
            commands::demo::demo_dns_add_zone,
            commands::demo::demo_dns_signatures,
            commands::demo::clock_get,
            commands::demo::clock_set_speed,
            commands::demo::clock_advance,
            commands::demo::demo_reset,
            commands::diagnose::diagnose,
            commands::diagnose::diagnostics_save,
            commands::diagnose::dns_look,
            commands::diagnose::preflight,
            commands::system::settings_get,
            commands::system::settings_set,
            commands::system::open_in_browser,
            commands::system::report_save,
            commands::system::notify,
            commands::renewal::renewal_state,
            commands::desktop::link_take,
            commands::desktop::watch_report,
            commands::desktop::update_check,
            commands::desktop::update_install,
        ])
}

/// Opens the main window and runs until it closes.
pub fn run_window() -> Result<()> {
    let paths = domain_desk_app::paths::AppPaths::from_os()?;
    paths.prepare()?;
    let log_guard = logs::init(&paths.log_dir)?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "starting Domain Desk");
    domain_desk_app::secrets::KeyStore::install();
    // Each key's budget is shared with the command line and other windows through the data
    // directory, so that together they never overrun the key's windows.
    let queue_dir = paths.queue_dir();
    desktop::plugins(builder::<tauri::Wry>(), &paths.data_dir)
        .setup(move |app| {
            use tauri::Manager as _;
            desktop::setup(app.handle());
            app.state::<state::AppState>()
                .clients()
                .set_data_dir(queue_dir);
            if let Some(window) = app.get_webview_window("main") {
                webview::configure(&window);
            } else {
                tracing::warn!("no main window at setup; its web view keeps WebKit's defaults");
            }
            commands::renewal::start(app.handle().clone());
            Ok(())
        })
        .manage(paths)
        .manage(log_guard)
        .run(tauri::generate_context!())
        .map_err(Error::from)
}

#[cfg(test)]
mod tests {
    use domain_desk_app::paths::IDENTIFIER;

    /// The window's folders are Tauri's, named by the bundle's identifier: the application
    /// layer's copy of it must be the one `tauri.conf.json` gives, or the command line and the
    /// window would keep their data in different places.
    #[test]
    fn the_identifier_is_the_bundles() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../tauri.conf.json")).expect("tauri.conf.json");
        assert_eq!(config["identifier"], IDENTIFIER);
    }
}

//! The window as a desktop program: one instance per user, `domain-desk://` links handed to it,
//! a window that remembers its place, and a tray icon that keeps watching domains after the
//! window is closed.
//!
//! Only the windowed app uses this (`run_window`); the command line's subcommands never
//! reach it, so `domain-desk doctor …` runs beside an open window. What is decided here is
//! small and pure (`domain_desk_app::background`: the tray, or one notification when no tray
//! host is there); the links are read in [`domain_desk_api::links`].

use std::sync::Mutex;

use serde::Serialize;
use tauri::menu::{MenuBuilder, MenuItemBuilder};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Runtime, Window, WindowEvent, Wry};

use domain_desk_api::links::{self, Link};
use domain_desk_app::background::{Background, CloseAction, TrayHost};

/// The main window's label (tauri.conf.json).
pub const MAIN: &str = "main";
const TRAY: &str = "watch";

/// Adds the plugins that make the window a desktop program. Single-instance comes first, so a
/// second launch hands over its arguments before anything else of it starts.
///
/// One window per data folder (`data_dir`): that is what two windows would race on. On
/// Linux the instance is a D-Bus name in the user's session, named after the folder; on
/// Windows and macOS the plugin keeps one per user, who has one data folder there.
pub fn plugins(builder: tauri::Builder<Wry>, data_dir: &std::path::Path) -> tauri::Builder<Wry> {
    let builder = builder.plugin(
        tauri_plugin_single_instance::Builder::new()
            .dbus_id(instance_id(data_dir))
            .callback(second_launch)
            .build(),
    );
    // The deep-link plugin only on macOS, where links arrive as system events. On Linux and
    // Windows a link is an argument, read here as bytes ([`setup`], [`second_launch`]); the
    // plugin would read the arguments again with `std::env::args()`, which panics on one
    // that is not UTF-8, before the window could say the link was refused.
    #[cfg(target_os = "macos")]
    let builder = builder.plugin(tauri_plugin_deep_link::init());
    builder
        .plugin(
            tauri_plugin_window_state::Builder::new()
                .with_state_flags(
                    tauri_plugin_window_state::StateFlags::SIZE
                        | tauri_plugin_window_state::StateFlags::POSITION
                        | tauri_plugin_window_state::StateFlags::MAXIMIZED,
                )
                .build(),
        )
        .on_window_event(on_window_event)
}

/// A second launch of the window, handed to this one: its link, if any, is shown; in any
/// case this window comes to the front.
fn second_launch<R: Runtime>(app: &AppHandle<R>, args: Vec<String>, _cwd: String) {
    // The second launch's link is read here rather than by the deep-link plugin (its
    // `deep-link` feature): the plugin drops a link it cannot parse without a word, where
    // the window should say it was ignored. The plugin made the arguments text with U+FFFD
    // for bytes that are not UTF-8; such a link is refused as not text.
    tracing::info!(
        arguments = args.len(),
        "a second launch was handed to this window"
    );
    match links::from_args(&args) {
        Some(link) => receive(app, links::parse(link)),
        None => show_main(app),
    }
}

/// The single instance's D-Bus name for a data folder: the app's identifier and a stable
/// hash of the folder (FNV-1a, the same in every build, so versions find each other).
pub fn instance_id(data_dir: &std::path::Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in data_dir.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}.d{hash:016x}", domain_desk_app::paths::IDENTIFIER)
}

/// At start: links that arrive from now on, and the one this launch was opened with.
pub fn setup<R: Runtime>(app: &AppHandle<R>) {
    // On macOS links arrive as system events; on Windows and Linux as the arguments of a
    // launch (this one's below, a second one's in the single-instance callback).
    #[cfg(target_os = "macos")]
    {
        use tauri_plugin_deep_link::DeepLinkExt as _;
        let handle = app.clone();
        app.deep_link().on_open_url(move |event| {
            for url in event.urls() {
                receive(&handle, links::parse(url.as_str()));
            }
        });
    }
    // A link the system opened the app with. On Linux and Windows it is among the arguments,
    // as bytes: one that is not UTF-8 is refused with a notice.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(read) = links::from_args_os(&args) {
        receive(app, read);
    }
}

/// What became of the last link, for the window to show: taken once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum LinkOutcome {
    Open { link: Link },
    Refused { message: String },
}

/// The link the window has not shown yet.
#[derive(Debug, Default)]
pub struct PendingLink(Mutex<Option<LinkOutcome>>);

impl PendingLink {
    pub fn take(&self) -> Option<LinkOutcome> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn put(&self, outcome: LinkOutcome) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
    }
}

/// Keeps what a link read (`links::parse`) asks for, or why it was refused, and tells the
/// window (`link://received`), which takes it with the `link_take` command: a window still
/// starting takes it when it is ready.
pub fn receive<R: Runtime>(app: &AppHandle<R>, read: domain_desk_api::Result<Link>) {
    let outcome = match read {
        Ok(link) => {
            tracing::info!(?link, "opening a link");
            LinkOutcome::Open { link }
        }
        Err(refused) => {
            // The link itself is not logged either: it may be anything.
            tracing::warn!(%refused, "a link was refused");
            LinkOutcome::Refused {
                message: refused.to_string(),
            }
        }
    };
    if let Some(pending) = app.try_state::<PendingLink>() {
        pending.put(outcome);
    }
    show_main(app);
    if let Err(err) = app.emit_to(MAIN, "link://received", ()) {
        tracing::warn!(%err, "the window was not told of a link");
    }
}

/// The domains the window is watching (not live yet), as it last reported them, and whether
/// this run already said how a window hidden without a tray comes back.
#[derive(Debug, Default)]
pub struct Watch {
    hostnames: Mutex<Vec<String>>,
    background: Background,
}

impl Watch {
    pub fn set(&self, hostnames: Vec<String>) {
        *self.hostnames.lock().unwrap_or_else(|p| p.into_inner()) = hostnames;
    }

    pub fn pending(&self) -> usize {
        self.hostnames
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

/// Whether a tray host would show the icon: asked of the session bus on Linux (GNOME without
/// the AppIndicator extension has none); the other systems always show one.
fn tray_host() -> TrayHost {
    #[cfg(target_os = "linux")]
    {
        let bus = domain_desk_app::session_bus::session();
        domain_desk_app::session_bus::tray_host(bus.as_ref())
    }
    #[cfg(not(target_os = "linux"))]
    {
        TrayHost::Shown
    }
}

fn on_window_event<R: Runtime>(window: &Window<R>, event: &WindowEvent) {
    let WindowEvent::CloseRequested { api, .. } = event else {
        return;
    };
    if window.label() != MAIN {
        return;
    }
    let app = window.app_handle();
    let watch = app.state::<Watch>();
    let pending = watch.pending();
    let watch_after_close = crate::settings::load(app)
        .map(|s| s.watch_after_close)
        .unwrap_or(true);
    let tray = if pending > 0 && watch_after_close {
        tray_host()
    } else {
        TrayHost::Missing
    };
    let notice = match watch
        .background
        .close_action(pending, watch_after_close, tray)
    {
        CloseAction::Quit => return,
        CloseAction::KeepWatching => None,
        CloseAction::KeepWatchingAndTell(notice) => Some(notice),
    };
    api.prevent_close();
    // Without a tray host the icon is still offered: an XEmbed tray (which the bus cannot
    // see) may show it. The notification says how to come back in any case.
    let tray_built = show_tray(app, pending);
    if let Some(notice) = &notice {
        tracing::info!(
            pending,
            "window closed with no tray host; told how to come back"
        );
        use tauri_plugin_notification::NotificationExt as _;
        if let Err(err) = app
            .notification()
            .builder()
            .title(&notice.title)
            .body(&notice.body)
            .show()
        {
            tracing::warn!(%err, "the keep-watching notification was not shown");
        }
    }
    match tray_built {
        Ok(()) => {
            tracing::info!(pending, "window closed; watching in the background");
            if let Err(err) = window.hide() {
                tracing::warn!(%err, "the window could not hide");
            }
        }
        Err(reason) if notice.is_some() => {
            tracing::info!(%reason, pending, "no tray icon; watching hidden, as the notice said");
            if let Err(err) = window.hide() {
                tracing::warn!(%err, "the window could not hide");
            }
        }
        Err(reason) => {
            // Without a tray the window could not be found again: it is minimised instead,
            // and the watch goes on in it.
            tracing::warn!(%reason, pending, "no tray icon; the window is minimised instead");
            let _ = window.minimize();
        }
    }
}

/// Brings the main window back (a second launch, a link, the tray's Open) and drops the tray.
pub fn show_main<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
    let _ = app.remove_tray_by_id(TRAY);
}

fn watching_text(pending: usize) -> String {
    match pending {
        0 => "Domain Desk: nothing left to watch".into(),
        1 => "Domain Desk: watching 1 domain".into(),
        n => format!("Domain Desk: watching {n} domains"),
    }
}

/// Tells the tray, when it shows, how many domains are still watched.
pub fn update_tray<R: Runtime>(app: &AppHandle<R>, pending: usize) {
    if let Some(tray) = app.tray_by_id(TRAY) {
        let _ = tray.set_tooltip(Some(watching_text(pending)));
        if let Ok(menu) = tray_menu(app, pending) {
            let _ = tray.set_menu(Some(menu));
        }
    }
}

fn tray_menu<R: Runtime>(
    app: &AppHandle<R>,
    pending: usize,
) -> tauri::Result<tauri::menu::Menu<R>> {
    let status = MenuItemBuilder::with_id("status", watching_text(pending))
        .enabled(false)
        .build(app)?;
    MenuBuilder::new(app)
        .item(&status)
        .separator()
        .text("open", "Open Domain Desk")
        .text("quit", "Quit")
        .build()
}

fn show_tray<R: Runtime>(app: &AppHandle<R>, pending: usize) -> Result<(), String> {
    if app.tray_by_id(TRAY).is_some() {
        update_tray(app, pending);
        return Ok(());
    }
    tray_available()?;
    let menu = tray_menu(app, pending).map_err(|e| e.to_string())?;
    let mut builder = TrayIconBuilder::with_id(TRAY)
        .tooltip(watching_text(pending))
        .menu(&menu)
        .show_menu_on_left_click(true)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => show_main(app),
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    builder.build(app).map(|_| ()).map_err(|e| e.to_string())
}

/// On Linux the tray needs the AppIndicator library, which is loaded at run time (and whose
/// absence would end the app): looked for first.
#[cfg(target_os = "linux")]
fn tray_available() -> Result<(), String> {
    const NAMES: [&str; 2] = ["libayatana-appindicator3.so.1", "libappindicator3.so.1"];
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for dir in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/lib/x86_64-linux-gnu",
        "/lib64",
        "/lib",
    ] {
        dirs.push(dir.into());
    }
    if dirs
        .iter()
        .any(|dir| NAMES.iter().any(|name| dir.join(name).exists()))
    {
        Ok(())
    } else {
        Err("the AppIndicator library (libayatana-appindicator3-1) is not installed".into())
    }
}

#[cfg(not(target_os = "linux"))]
fn tray_available() -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_instance_per_data_folder_with_a_stable_name() {
        let a = instance_id(std::path::Path::new(
            "/home/ana/.local/share/dev.domaindesk.app",
        ));
        let b = instance_id(std::path::Path::new("/tmp/other/dev.domaindesk.app"));
        assert_ne!(a, b);
        assert_eq!(
            a,
            instance_id(std::path::Path::new(
                "/home/ana/.local/share/dev.domaindesk.app"
            ))
        );
        // A valid D-Bus name: elements start with a letter.
        assert!(
            a.starts_with("dev.domaindesk.app.d") && a.len() == "dev.domaindesk.app.d".len() + 16
        );
    }

    #[test]
    fn the_tray_says_how_many_domains_it_watches() {
        assert_eq!(watching_text(1), "Domain Desk: watching 1 domain");
        assert_eq!(watching_text(3), "Domain Desk: watching 3 domains");
        assert!(watching_text(0).contains("nothing left"));
    }
}

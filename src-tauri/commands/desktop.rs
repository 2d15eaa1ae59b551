//! The window's side of the desktop program: the link it was asked to show, the domains it is
//! watching (so that closing it can keep watching from the tray), and updates.

use std::sync::Mutex;
use std::time::Duration;

use tauri::{AppHandle, Runtime, State};
use tauri_plugin_updater::{Update, Updater, UpdaterExt};

use crate::desktop::{LinkOutcome, PendingLink, Watch};
use crate::{Error, Result};
use domain_desk_app::updates::{self, Installed, UpdateNotice};

/// The link received last and not shown yet. Taking it is logged, so that "I opened the link
/// and nothing happened" can be told apart from "the window never heard of it" (the
/// `opening a link` line).
#[tauri::command]
pub fn link_take(pending: State<'_, PendingLink>) -> Option<LinkOutcome> {
    let taken = pending.take();
    if let Some(LinkOutcome::Open { link }) = &taken {
        tracing::info!(?link, "the window took a link to show");
    }
    taken
}

/// The hostnames the window is watching; closing the window while there are some keeps the
/// watch going from the tray.
#[tauri::command]
pub fn watch_report<R: Runtime>(
    app: AppHandle<R>,
    watch: State<'_, Watch>,
    hostnames: Vec<String>,
) {
    let pending = hostnames.len();
    watch.set(hostnames);
    crate::desktop::update_tray(&app, pending);
}

/// A checked package waiting for "Install and restart".
#[derive(Default)]
pub struct ReadyUpdate(Mutex<Option<(Update, Vec<u8>)>>);

/// How long the feed may take to answer before the check gives up for this run.
const FEED_TIMEOUT: Duration = Duration::from_secs(15);

fn installed() -> Installed {
    use tauri::utils::config::BundleType;
    match tauri::utils::platform::bundle_type() {
        Some(BundleType::Deb) => Installed::Deb,
        Some(BundleType::Rpm) => Installed::Rpm,
        Some(BundleType::AppImage) => Installed::AppImage,
        Some(BundleType::Nsis | BundleType::Msi) => Installed::WindowsInstaller,
        Some(BundleType::App | BundleType::Dmg) => Installed::MacApp,
        _ => Installed::Other,
    }
}

/// Looks for a newer version, once per start unless the settings say not to. A feed that does
/// not answer, a version that is not newer and a package whose signature does not match the
/// key in the app are all passed over quietly (logged, nothing shown): the app goes on.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn update_check<R: Runtime>(
    app: AppHandle<R>,
    ready: State<'_, ReadyUpdate>,
) -> Result<Option<UpdateNotice>> {
    let settings = crate::settings::load(&app)?;
    if !settings.check_updates {
        return Ok(None);
    }
    let Some((update, bytes)) = find_update(&app).await else {
        return Ok(None);
    };
    let how = installed();
    let Some(notice) = updates::notice(
        &update.version,
        update.body.as_deref(),
        how,
        settings.update_announced.as_deref(),
    ) else {
        return Ok(None);
    };
    crate::settings::update(&app, |s| s.update_announced = Some(notice.version.clone()))?;
    if updates::installs_itself(how) {
        *ready.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((update, bytes));
    }
    Ok(Some(notice))
}

/// The newer version in the feed with its package, downloaded and checked against the
/// signature, or `None` (and why, in the log).
pub async fn find_update<R: Runtime>(app: &AppHandle<R>) -> Option<(Update, Vec<u8>)> {
    let updater = match updater(app) {
        Ok(updater) => updater,
        Err(err) => {
            tracing::info!(%err, "no update check: the updater is not set up");
            return None;
        }
    };
    let update = match updater.check().await {
        Ok(Some(update)) => update,
        Ok(None) => {
            tracing::info!("no newer version");
            return None;
        }
        Err(err) => {
            tracing::info!(%err, "the update feed could not be read; trying again next start");
            return None;
        }
    };
    match update.download(|_, _| {}, || {}).await {
        Ok(bytes) => Some((update, bytes)),
        Err(err) => {
            tracing::warn!(%err, version = %update.version, "an update was refused: its package did not check out");
            None
        }
    }
}

fn updater<R: Runtime>(app: &AppHandle<R>) -> std::result::Result<Updater, String> {
    #[allow(unused_mut)]
    let mut builder = app.updater_builder().timeout(FEED_TIMEOUT);
    // Debug builds only: the end-to-end tests point the app at a feed on loopback, signed
    // with a key of their own. A release build reads both from its configuration alone.
    #[cfg(debug_assertions)]
    {
        if let Ok(feed) = std::env::var("DOMAIN_DESK_TEST_UPDATE_FEED") {
            let url: tauri::Url = feed.parse().map_err(|err| format!("{feed}: {err}"))?;
            builder = builder.endpoints(vec![url]).map_err(|e| e.to_string())?;
        }
        if let Ok(key) = std::env::var("DOMAIN_DESK_TEST_UPDATE_PUBKEY") {
            builder = builder.pubkey(key);
        }
    }
    builder.build().map_err(|e| e.to_string())
}

/// Installs the checked package and starts the new version (Windows installer, macOS app).
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn update_install<R: Runtime>(
    app: AppHandle<R>,
    ready: State<'_, ReadyUpdate>,
) -> Result<()> {
    let taken = ready.0.lock().unwrap_or_else(|p| p.into_inner()).take();
    let Some((update, bytes)) = taken else {
        return Err(Error::InvalidInput(
            "There is no checked update to install; Domain Desk looks again at its next start."
                .into(),
        ));
    };
    update
        .install(bytes)
        .map_err(|err| Error::Update(err.to_string()))?;
    app.restart()
}

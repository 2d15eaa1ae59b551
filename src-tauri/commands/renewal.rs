//! The renewal watch in the window: a background task that checks, daily by the platform's
//! clock and at once after a change the user made, whether each live domain of the signed-in
//! account would renew with DNS as it is; one desktop notification per new problem and one
//! when it is fixed; `renewal://changed` to the window after every check; and
//! `renewal_state`, what the domains table and the detail panel show.
//!
//! The decisions (when a check is due, which results are news) are the doctor's
//! `renewal::watch::RenewalWatch`, unit-tested with an injected clock; the check is
//! `crate::renewal` over the doctor. This file only carries them out: it lists the account's
//! domains through the client when the account changed, when the user changed something, when
//! a check found news or a certificate entered its renewal window (the platform may have
//! acted), and once a platform minute while a certificate is being issued (it goes live
//! soon); otherwise it asks DNS only.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain_desk_api::{CertificateStatus, Domain};
use domain_desk_doctor::renewal::watch::{Notice, RenewalWatch};
use domain_desk_doctor::renewal::{LiveCertificate, Readiness, check_renewals, live_certificates};
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::Mutex;

use crate::Result;
use crate::state::{AppState, Session};

/// The event that carries a check's results to the window.
pub const RENEWAL_CHANGED: &str = "renewal://changed";

/// How often the task looks whether a check is due (real time; the daily check itself is
/// due by the platform's clock, which in the demo runs 600 times faster).
const TICK: Duration = Duration::from_secs(2);

/// How often (platform time) the domains are listed again while a certificate is issuing.
const ISSUING_RELIST: chrono::TimeDelta = chrono::TimeDelta::minutes(1);

/// What the window shows: the latest readiness of every live domain, and when the watch
/// checked and checks next (platform time).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RenewalView {
    pub checked_at: Option<DateTime<Utc>>,
    pub next_check: Option<DateTime<Utc>>,
    pub domains: Vec<Readiness>,
}

#[derive(Default)]
struct Watched {
    account_id: Option<String>,
    watch: RenewalWatch,
    /// The account's domains as last listed.
    domains: Option<Vec<Domain>>,
    /// The user's change count at the last check.
    changes_seen: u64,
    /// When the domains were last listed (platform time).
    listed_at: Option<DateTime<Utc>>,
    view: RenewalView,
}

/// The watch, held as Tauri state.
#[derive(Default)]
pub struct RenewalWatchState {
    watched: Mutex<Watched>,
}

/// The latest results, for the window's first paint (later ones arrive as events).
#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn renewal_state(state: State<'_, RenewalWatchState>) -> Result<RenewalView> {
    Ok(state.watched.lock().await.view.clone())
}

/// Starts the watch's task; it runs as long as the app.
pub fn start<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            if let Err(err) = tick(&app).await {
                tracing::warn!(%err, "the renewal check could not run");
            }
            tokio::time::sleep(TICK).await;
        }
    });
}

async fn tick<R: Runtime>(app: &AppHandle<R>) -> Result<()> {
    let Some(session) = app.state::<AppState>().current().await else {
        return Ok(());
    };
    let changes = app.state::<AppState>().changes();
    let platform_now = platform_now(&session).await?;
    let watch_state = app.state::<RenewalWatchState>();
    let mut watched = watch_state.watched.lock().await;
    if watched.account_id.as_deref() != Some(session.account_id.as_str()) {
        *watched = Watched {
            account_id: Some(session.account_id.clone()),
            ..Watched::default()
        };
    }
    if changes != watched.changes_seen {
        watched.watch.changed();
        // Something the user did may have changed the account's domains.
        watched.domains = None;
    }
    // A certificate being issued goes live soon: list again (once a platform minute) until
    // it has, so the new live domain is checked without waiting a day.
    let issuing = watched.domains.as_ref().is_some_and(|domains| {
        domains
            .iter()
            .any(|domain| domain.certificate.status == CertificateStatus::Issuing)
    });
    let listed_long_ago = watched
        .listed_at
        .is_none_or(|at| platform_now >= at + ISSUING_RELIST || platform_now < at);
    if issuing && listed_long_ago {
        watched.watch.changed();
        watched.domains = None;
    }
    if !watched.watch.is_due(platform_now) {
        return Ok(());
    }
    watched.changes_seen = changes;
    // A certificate inside its renewal window may have been renewed since the list was read.
    let renewing = |domains: &Vec<Domain>| {
        domains.iter().any(|domain| {
            LiveCertificate::of(domain).is_some_and(|live| live.renews_at() <= platform_now)
        })
    };
    let domains = match watched.domains.take() {
        Some(domains) if !renewing(&domains) => domains,
        _ => {
            watched.listed_at = Some(platform_now);
            list_domains(&session).await?
        }
    };
    let platform = crate::renewal::platform(session.local.as_ref(), &domains).await?;
    let live = live_certificates(&domains);
    let results = check_renewals(&live, &platform.options, platform.now).await?;
    let notices = watched.watch.record(&results, platform.now);
    // News may mean the platform acted (a renewal failed or passed): list again next time.
    watched.domains = notices.is_empty().then_some(domains);
    watched.view = RenewalView {
        checked_at: Some(platform.now),
        next_check: watched.watch.next_check(),
        domains: watched.watch.latest().cloned().collect(),
    };
    let view = watched.view.clone();
    drop(watched);
    for notice in &notices {
        let (title, body) = match notice {
            Notice::Problem { title, body, .. } | Notice::Fixed { title, body, .. } => {
                (title, body)
            }
        };
        tracing::info!(%title, "renewal notice");
        if let Err(err) = app.notification().builder().title(title).body(body).show() {
            tracing::warn!(%err, "could not show the renewal notice");
        }
    }
    if let Err(err) = app.emit(RENEWAL_CHANGED, &view) {
        tracing::warn!(%err, "could not tell the window about the renewal check");
    }
    Ok(())
}

/// The platform's now: the demo's clock, or this computer's.
async fn platform_now(session: &Session) -> Result<DateTime<Utc>> {
    Ok(match &session.local {
        Some(local) => local.clock().await?.now,
        None => Utc::now(),
    })
}

/// Every domain of the session's account, at background priority (the user's own requests
/// go first).
async fn list_domains(session: &Arc<Session>) -> Result<Vec<Domain>> {
    let client = session.client.background();
    let mut domains = Vec::new();
    for project in client.projects().await? {
        domains.extend(client.domains(&project.id).await?);
    }
    Ok(domains)
}

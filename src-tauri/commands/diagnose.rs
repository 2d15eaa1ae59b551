//! The Diagnose panel: the DNS doctor's report for one hostname; and "Save diagnostics…", the
//! same run with every question, answer and certificate kept in a capture file that support
//! replays with `domain-desk doctor --replay FILE`.
//!
//! In the offline demo the doctor runs against the demo's service with the options
//! [`domain_desk_app::doctor_options`] builds from it (the same as `domain-desk doctor
//! --resolver`); connected to a platform it asks the zone's nameservers and public resolvers, against the
//! DNS target the domain names.

use std::path::Path;

use domain_desk_api::Hostname;
use domain_desk_doctor::{DoctorOptions, Report};
use serde::Serialize;
use tauri::{AppHandle, Runtime, State};

use crate::state::{AppState, Session};
use crate::{Error, Result};

/// The report, the same report as Markdown for "Copy report", what of it Add domain's
/// pre-flight would warn about (the window keeps those warnings on the row until a look no
/// longer finds them), and the picture of the name's path.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    pub report: Report,
    pub markdown: String,
    pub preflight: Option<domain_desk_doctor::preflight::Preflight>,
    /// The SVG `domain-desk doctor --svg` writes ([`domain_desk_doctor::picture`]), every
    /// text in it escaped by the doctor; without a `<style>` (the window's CSP allows none):
    /// the panel's stylesheet colours it by its classes for the app's theme.
    pub picture: Option<String>,
}

/// The doctor's options for the window: the session's platform when signed in (the demo's
/// service, or the target the domain names), else [`without_account`].
async fn options_for<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
    target: Option<String>,
) -> Result<DoctorOptions> {
    match state.current().await {
        Some(session) => options(state, &session, target).await,
        None => Ok(without_account(&crate::settings::load(app)?, target)),
    }
}

/// Diagnose with no account: the same defaults as `domain-desk doctor HOST` — the system's
/// and public resolvers and each zone's own servers (or only the servers the settings name,
/// as `--resolver`), against the target given, the settings' target, or the platform's
/// published one.
pub fn without_account(
    settings: &crate::settings::Settings,
    target: Option<String>,
) -> DoctorOptions {
    let target = target
        .filter(|target| !target.trim().is_empty())
        .or_else(|| settings.diagnose_target.clone())
        .unwrap_or_else(|| domain_desk_service::ServiceSettings::default().platform_dns_target);
    let options = DoctorOptions::new(target);
    if settings.diagnose_resolvers.is_empty() {
        options
    } else {
        options.with_resolvers(settings.diagnose_resolvers.iter().copied())
    }
}

async fn options(
    state: &AppState,
    session: &Session,
    target: Option<String>,
) -> Result<DoctorOptions> {
    if let Some(local) = session.local.as_ref() {
        let info = local.info().await?;
        let mut options =
            domain_desk_app::doctor_options::for_local_service(local, &info, state.clients())
                .await?;
        // In the window the local service is the offline demo: its server is named so (the
        // platform's resolver keeps the name it was given).
        for address in options.resolvers.clone() {
            if !options.resolver_labels.contains_key(&address) {
                options = options.with_resolver_label(address, "the demo’s DNS server");
            }
        }
        return Ok(options);
    }
    let target = target.filter(|t| !t.trim().is_empty()).ok_or_else(|| {
        Error::InvalidInput(
            "Diagnose needs the platform DNS target the domain should point to.".into(),
        )
    })?;
    Ok(DoctorOptions::new(target))
}

#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn diagnose<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<Diagnosis> {
    let options = options_for(&app, &state, target).await?;
    let report = domain_desk_doctor::diagnose(&[hostname], &options).await?;
    let markdown = report.to_markdown();
    let preflight = report.hosts.first().map(domain_desk_doctor::preflight::of);
    let picture = report.hosts.first().map(|host| {
        domain_desk_doctor::picture::to_svg(host, domain_desk_doctor::picture::Theme::Light)
    });
    Ok(Diagnosis {
        report,
        markdown,
        preflight,
        picture,
    })
}

/// The window's own look at a name waiting for DNS: its records and DNS provider as the
/// zone's servers answer now, to set beside what the platform's last check found. DNS only:
/// no TLS probe, no DNSSEC walk, and no API request (unlike Diagnose, it does not ask which
/// names the demo's projects attach), so looking costs nothing of the rate limit.
#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn dns_look<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<DnsLook> {
    let options = quick_options(&app, &state, target).await?;
    let report = domain_desk_doctor::diagnose(&[hostname], &options).await?;
    let preflight = report.hosts.first().map(domain_desk_doctor::preflight::of);
    Ok(DnsLook { report, preflight })
}

/// The window's look at a name's DNS, and what of it would stand in the way (the pre-flight's
/// warnings, which the row keeps until a look no longer finds them).
#[derive(Debug, Serialize)]
pub struct DnsLook {
    pub report: Report,
    pub preflight: Option<domain_desk_doctor::preflight::Preflight>,
}

/// Add domain's pre-flight: the doctor's quick look at a name before it is added, and what
/// would stand in the way ([`domain_desk_doctor::preflight`]). No API request.
#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn preflight<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<domain_desk_doctor::preflight::Preflight> {
    let options = quick_options(&app, &state, target).await?;
    Ok(domain_desk_doctor::preflight::check(&hostname, &options).await?)
}

/// DNS only, and no API request: in the demo what `/_local/info` says, connected the target
/// given, with no account the defaults of [`without_account`].
async fn quick_options<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
    target: Option<String>,
) -> Result<DoctorOptions> {
    let options = match state.current().await {
        Some(session) => match session.local.as_ref() {
            Some(local) => {
                let info = local.info().await?;
                let mut options = domain_desk_app::doctor_options::from_info(&info)?;
                options.clock = domain_desk_app::doctor_options::platform_clock(local).await?;
                for address in options.resolvers.clone() {
                    options = options.with_resolver_label(address, "the demo’s DNS server");
                }
                options
            }
            None => {
                let target = target.filter(|t| !t.trim().is_empty()).ok_or_else(|| {
                    Error::InvalidInput("Looking at DNS needs the platform DNS target.".into())
                })?;
                DoctorOptions::new(target)
            }
        },
        None => without_account(&crate::settings::load(app)?, target),
    };
    Ok(domain_desk_doctor::preflight::options(options))
}

/// What "Save diagnostics…" wrote, for the window's notice.
#[derive(Debug, Clone, Serialize)]
pub struct SavedDiagnostics {
    pub path: String,
    pub errors: usize,
    pub warnings: usize,
}

/// A capturing diagnosis of one name, ready to run once the user has chosen where its file
/// goes ([`DiagnosticsRun::save`]).
#[derive(Debug, Clone)]
pub struct DiagnosticsRun {
    name: Hostname,
    options: DoctorOptions,
    /// The file name the save dialog suggests: the name and the run's time.
    pub suggested_name: String,
}

impl DiagnosticsRun {
    /// The run for `hostname` in the session, its options scoped to that name: the capture
    /// goes to support, so it carries only what this name's diagnosis needs
    /// ([`domain_desk_app::doctor_options::scoped_to`]), never the names other accounts attach.
    pub async fn prepare<R: Runtime>(
        app: &AppHandle<R>,
        state: &AppState,
        hostname: &str,
        target: Option<String>,
    ) -> Result<DiagnosticsRun> {
        // A wildcard domain is diagnosed as the doctor checks it (a label under it).
        let name =
            Hostname::parse_domain(hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
        let options = options_for(app, state, target).await?;
        let options = domain_desk_app::doctor_options::scoped_to(options, &[name.as_str()]);
        // The run's time (the platform's, in the demo), as the capture inside says.
        let stamp = options.clock.now().format("%Y%m%dT%H%M%SZ");
        // No `*` in a file name (Windows refuses it): `*.shop.example.com` → `wildcard.shop…`.
        let suggested_name = format!(
            "diagnostics-{}-{stamp}.json",
            name.as_str().replace('*', "wildcard")
        );
        Ok(DiagnosticsRun {
            name,
            options,
            suggested_name,
        })
    }

    /// Diagnoses the name with capture on and writes the capture to `file`.
    pub async fn save(&self, file: &Path) -> Result<SavedDiagnostics> {
        let report =
            domain_desk_doctor::diagnose_into_file(&[self.name.as_str()], &self.options, file)
                .await?;
        Ok(SavedDiagnostics {
            path: file.display().to_string(),
            errors: report.errors,
            warnings: report.warnings,
        })
    }
}

/// Diagnoses `hostname` with capture on and writes the capture where the user chooses in the
/// save dialog (the window never names the file); `None` when the dialog was closed.
#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn diagnostics_save<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<Option<SavedDiagnostics>> {
    let run = DiagnosticsRun::prepare(&app, &state, &hostname, target).await?;
    match super::bulk::pick(&app, Some(run.suggested_name.clone())).await {
        Some(file) => run.save(&file).await.map(Some),
        None => Ok(None),
    }
}

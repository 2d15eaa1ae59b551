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

/// The report, and the same report as Markdown for "Copy report".
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    pub report: Report,
    pub markdown: String,
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
        // In the window the local service is the offline demo: its server is named so.
        for address in options.resolvers.clone() {
            options = options.with_resolver_label(address, "the demo’s DNS server");
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
#[tracing::instrument(skip(state), err(Debug))]
pub async fn diagnose(
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<Diagnosis> {
    let session = state.session().await?;
    let options = options(&state, &session, target).await?;
    let report = domain_desk_doctor::diagnose(&[hostname], &options).await?;
    let markdown = report.to_markdown();
    Ok(Diagnosis { report, markdown })
}

/// The window's own look at a name waiting for DNS: its records and DNS provider as the
/// zone's servers answer now, to set beside what the platform's last check found. DNS only:
/// no TLS probe, no DNSSEC walk, and no API request (unlike Diagnose, it does not ask which
/// names the demo's projects attach), so looking costs nothing of the rate limit.
#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn dns_look(
    state: State<'_, AppState>,
    hostname: String,
    target: Option<String>,
) -> Result<Report> {
    let session = state.session().await?;
    let options = match session.local.as_ref() {
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
    };
    let mut options = options.with_tls_probe(false);
    options.dnssec = false;
    Ok(domain_desk_doctor::diagnose(&[hostname], &options).await?)
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
    pub async fn prepare(
        state: &AppState,
        hostname: &str,
        target: Option<String>,
    ) -> Result<DiagnosticsRun> {
        let name = Hostname::parse(hostname).map_err(|err| Error::InvalidInput(err.to_string()))?;
        let options = options(state, &*state.session().await?, target).await?;
        let options = domain_desk_app::doctor_options::scoped_to(options, &[name.as_str()]);
        // The run's time (the platform's, in the demo), as the capture inside says.
        let stamp = options.clock.now().format("%Y%m%dT%H%M%SZ");
        let suggested_name = format!("diagnostics-{}-{stamp}.json", name.as_str());
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
    let run = DiagnosticsRun::prepare(&state, &hostname, target).await?;
    match super::bulk::pick(&app, Some(run.suggested_name.clone())).await {
        Some(file) => run.save(&file).await.map(Some),
        None => Ok(None),
    }
}

//! Import… and Export… in the Domains view: the bulk crate behind the system's file dialogs,
//! progress on a channel, and Cancel.
//!
//! The file is picked on the Rust side (the window gets no file-system permission); tests and
//! scripts pass `path` instead.

use std::path::PathBuf;

use domain_desk_bulk::rows::{self, Format};
use domain_desk_bulk::{ExportFormat, Progress, RunOptions, Summary};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::{Mutex, oneshot};

use crate::state::AppState;
use crate::{Error, Result};

/// The running import's Cancel, if one runs.
#[derive(Debug, Default)]
pub struct RunningImport(Mutex<Option<oneshot::Sender<()>>>);

/// What an import did, for the summary panel.
#[derive(Debug, Serialize)]
pub struct ImportResult {
    pub file: String,
    pub summary: Summary,
    /// Where the rows to import again were written, when there are any.
    pub retry_file: Option<String>,
}

/// The system's dialog: a file to open, or with `save_as` (the suggested name) one to save.
pub(crate) async fn pick<R: Runtime>(
    app: &AppHandle<R>,
    save_as: Option<String>,
) -> Option<PathBuf> {
    let (tx, rx) = oneshot::channel();
    let dialog = app.dialog().file();
    match save_as {
        None => dialog
            .add_filter(
                "Domains (CSV or JSON lines)",
                &["csv", "jsonl", "ndjson", "json", "txt"],
            )
            .pick_file(move |file| {
                let _ = tx.send(file);
            }),
        Some(name) => dialog.set_file_name(name).save_file(move |file| {
            let _ = tx.send(file);
        }),
    }
    rx.await
        .ok()
        .flatten()
        .and_then(|file| file.into_path().ok())
}

/// Imports a file into the project; `None` when the user closed the file dialog.
///
/// Rows that cannot be imported as written refuse the file ([`Error::ImportRefused`], every
/// problem and the count of valid rows) unless `skip_invalid`: then the valid rows are
/// imported and the others go to the retry file beside it, as `domains import --skip-invalid`
/// does.
#[tauri::command]
#[tracing::instrument(skip(app, state, running, on_progress), err(Debug))]
pub async fn domains_import<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    running: State<'_, RunningImport>,
    project_id: String,
    path: Option<String>,
    skip_invalid: Option<bool>,
    on_progress: Channel<Progress>,
) -> Result<Option<ImportResult>> {
    let session = state.session().await?;
    let file = match path {
        Some(path) => PathBuf::from(path),
        None => match pick(&app, None).await {
            Some(file) => file,
            None => return Ok(None),
        },
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|err| Error::InvalidInput(format!("Cannot read {}: {err}", file.display())))?;
    // Unreadable lines and rows the plan refuses are reported together, in one refusal.
    let (rows, unreadable) = rows::read(&text, Format::detect(Some(&file), &text));
    let (cancel, cancelled) = oneshot::channel();
    {
        let mut slot = running.0.lock().await;
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return Err(Error::InvalidInput("An import is already running.".into()));
        }
        *slot = Some(cancel);
    }
    let clock_speed = match &session.local {
        Some(local) => local.clock().await.map(|c| c.speed).unwrap_or(1.0),
        None => 1.0,
    };
    let outcome = domain_desk_bulk::import_with(
        &session.client,
        &project_id,
        &rows,
        &unreadable,
        if skip_invalid.unwrap_or(false) {
            domain_desk_bulk::Invalid::Skip
        } else {
            domain_desk_bulk::Invalid::Refuse
        },
        RunOptions {
            clock_speed: if clock_speed > 0.0 { clock_speed } else { 1.0 },
            ..RunOptions::default()
        },
        |progress| {
            let _ = on_progress.send(progress.clone());
        },
        async {
            let _ = cancelled.await;
        },
    )
    .await;
    running.0.lock().await.take();
    let summary = outcome.map_err(|err| match err {
        domain_desk_bulk::Error::Client(err) => Error::Api(err),
        domain_desk_bulk::Error::Refused(domain_desk_bulk::plan::Refusal::Rows {
            problems,
            valid,
        }) => Error::ImportRefused {
            file: file.display().to_string(),
            retry_file: rows::retry_path(&file).display().to_string(),
            problems,
            valid,
        },
        other => Error::InvalidInput(other.to_string()),
    })?;
    // No rows left: a retry file an earlier run left beside the file goes too.
    let path = rows::retry_path(&file);
    let retry_file =
        match rows::write_retry_file(&path, None, &summary.rows_to_retry(), &summary.skipped)
            .map_err(|e| Error::InvalidInput(e.to_string()))?
        {
            rows::RetryFile::Written => Some(path.display().to_string()),
            rows::RetryFile::Removed | rows::RetryFile::Absent => None,
        };
    Ok(Some(ImportResult {
        file: file.display().to_string(),
        summary,
        retry_file,
    }))
}

/// Cancel: withdraws the rows not yet sent; rows on the wire finish.
#[tauri::command]
#[tracing::instrument(skip(running), err(Debug))]
pub async fn domains_import_cancel(running: State<'_, RunningImport>) -> Result<bool> {
    Ok(match running.0.lock().await.take() {
        Some(cancel) => cancel.send(()).is_ok(),
        None => false,
    })
}

/// The export's suggested file name: the project's name and the day, never its id
/// (`Pro site` on 26 Nov 2026 → `pro-site-domains-2026-11-26.csv`).
fn export_file_name(project_name: &str, day: chrono::NaiveDate, extension: &str) -> String {
    let mut slug = String::new();
    for c in project_name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let stem = if slug.is_empty() {
        "domains".to_owned()
    } else {
        format!("{slug}-domains")
    };
    format!("{stem}-{}.{extension}", day.format("%Y-%m-%d"))
}

/// Writes every domain of the project in `format` (csv, json, zone); the path written, or
/// `None` when the user closed the save dialog.
#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn domains_export<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    project_id: String,
    format: String,
    path: Option<String>,
) -> Result<Option<String>> {
    let format = ExportFormat::parse(&format)
        .ok_or_else(|| Error::InvalidInput("Export as csv, json or zone.".into()))?;
    let session = state.session().await?;
    let project = session.client.project(&project_id).await?;
    let domains = session.client.domains(&project_id).await?;
    let label = format!("{} ({})", project.name, project.id);
    let text = domain_desk_bulk::export(&domains, format, &label)
        .map_err(|err| Error::InvalidInput(err.to_string()))?;
    let extension = match format {
        ExportFormat::Csv => "csv",
        ExportFormat::Json => "json",
        ExportFormat::Zone => "zone",
    };
    let file = match path {
        Some(path) => PathBuf::from(path),
        None => match pick(
            &app,
            Some(export_file_name(
                &project.name,
                chrono::Local::now().date_naive(),
                extension,
            )),
        )
        .await
        {
            Some(file) => file,
            None => return Ok(None),
        },
    };
    std::fs::write(&file, text)?;
    Ok(Some(file.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_is_named_after_the_project_and_the_day() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        assert_eq!(
            export_file_name("Pro site", day, "csv"),
            "pro-site-domains-2026-11-26.csv"
        );
        assert_eq!(
            export_file_name("  Shop / Café ", day, "zone"),
            "shop-café-domains-2026-11-26.zone"
        );
        assert_eq!(
            export_file_name("///", day, "json"),
            "domains-2026-11-26.json"
        );
    }
}

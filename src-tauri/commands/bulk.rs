//! Import… and Export… in the Domains view: the bulk crate behind the system's file dialogs,
//! progress on a channel, and Cancel.
//!
//! The file is picked on the Rust side, in the system's dialog, and never named by the
//! window: a script that got into the page could otherwise read or overwrite any file the
//! user can. "Import the N valid rows" reads again the file the refusal named, which this
//! side remembers ([`RunningImport`]). Tests call the functions below the commands
//! ([`import_file`], [`export`] and [`save_export`]) with a path of their own.

use std::path::{Path, PathBuf};

use domain_desk_app::import::ImportFile;
use domain_desk_bulk::retry_file::RetryFile;
use domain_desk_bulk::{ExportFormat, Invalid, Progress, Summary};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::{Mutex, oneshot};

use crate::error::AppError;
use crate::state::AppState;
use crate::{Error, Result};

/// The running import's Cancel, if one runs, and the file the last refused import named.
#[derive(Debug, Default)]
pub struct RunningImport {
    cancel: Mutex<Option<oneshot::Sender<()>>>,
    /// Picked in the dialog and refused: what "Import the N valid rows" reads again.
    refused: Mutex<Option<PathBuf>>,
}

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

/// Imports a file picked in the system's dialog into the project, or with `again` the file
/// the last refusal named; `None` when the user closed the dialog.
///
/// Rows that cannot be imported as written refuse the file ([`AppError::ImportRefused`], every
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
    again: Option<bool>,
    skip_invalid: Option<bool>,
    on_progress: Channel<Progress>,
) -> Result<Option<ImportResult>> {
    let file = if again.unwrap_or(false) {
        running.refused.lock().await.clone().ok_or_else(|| {
            Error::InvalidInput(
                "No refused import to read again: choose the file with Import….".into(),
            )
        })?
    } else {
        match pick(&app, None).await {
            Some(file) => file,
            None => return Ok(None),
        }
    };
    import_file(
        &state,
        &running,
        &project_id,
        &file,
        skip_invalid.unwrap_or(false),
        |progress| {
            let _ = on_progress.send(progress.clone());
        },
    )
    .await
    .map(Some)
}

/// What [`domains_import`] does once it has the file: the application layer's import
/// ([`ImportFile::import`]) through the session's queue, progress to `progress`, Cancel
/// withdrawing the rows not yet sent. A refusal is remembered for "Import the N valid rows".
pub async fn import_file(
    state: &AppState,
    running: &RunningImport,
    project_id: &str,
    file: &Path,
    skip_invalid: bool,
    progress: impl FnMut(&Progress),
) -> Result<ImportResult> {
    let session = state.session().await?;
    let text = std::fs::read_to_string(file)
        .map_err(|err| Error::InvalidInput(format!("Cannot read {}: {err}", file.display())))?;
    let import = ImportFile::new(&text, Some(file), None, None);
    import.check_retry_path()?;
    let (cancel, cancelled) = oneshot::channel();
    {
        let mut slot = running.cancel.lock().await;
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return Err(Error::InvalidInput("An import is already running.".into()));
        }
        *slot = Some(cancel);
    }
    let clock_speed = match &session.local {
        Some(local) => local.clock().await.map(|c| c.speed).unwrap_or(1.0),
        None => 1.0,
    };
    let invalid = if skip_invalid {
        Invalid::Skip
    } else {
        Invalid::Refuse
    };
    let outcome = import
        .import(
            &session.client,
            project_id,
            invalid,
            clock_speed,
            progress,
            async {
                let _ = cancelled.await;
            },
        )
        .await;
    running.cancel.lock().await.take();
    let imported = match outcome {
        Ok(imported) => imported,
        Err(err @ AppError::ImportRefused { .. }) => {
            *running.refused.lock().await = Some(file.to_owned());
            return Err(err.into());
        }
        Err(err) => return Err(err.into()),
    };
    // No rows left: a retry file an earlier run left beside the file goes too.
    let retry_file = match imported.retry_file {
        RetryFile::Written => Some(import.retry_path().display().to_string()),
        RetryFile::Removed | RetryFile::Absent => None,
    };
    Ok(ImportResult {
        file: file.display().to_string(),
        summary: imported.summary,
        retry_file,
    })
}

/// Cancel: withdraws the rows not yet sent; rows on the wire finish.
#[tauri::command]
#[tracing::instrument(skip(running), err(Debug))]
pub async fn domains_import_cancel(running: State<'_, RunningImport>) -> Result<bool> {
    Ok(match running.cancel.lock().await.take() {
        Some(cancel) => cancel.send(()).is_ok(),
        None => false,
    })
}

/// A project's domains written out, and the file name the save dialog suggests.
#[derive(Debug, Clone)]
pub struct Export {
    pub text: String,
    pub suggested_name: String,
}

/// Every domain of the project in `format` (csv, json, zone): the application layer's export.
pub async fn export(state: &AppState, project_id: &str, format: &str) -> Result<Export> {
    let format = ExportFormat::parse(format)
        .ok_or_else(|| Error::InvalidInput("Export as csv, json or zone.".into()))?;
    let session = state.session().await?;
    let project = session.client.project(project_id).await?;
    let export = domain_desk_app::export::export(&session.client, &project, format).await?;
    Ok(Export {
        suggested_name: export.suggested_name(chrono::Local::now().date_naive()),
        text: export.text,
    })
}

/// Writes `export` to `file` atomically, readable by the user alone; the path written.
pub fn save_export(file: &Path, export: &Export) -> Result<String> {
    domain_desk_bulk::file::write_atomically(file, export.text.as_bytes())?;
    Ok(file.display().to_string())
}

/// Writes every domain of the project in `format` (csv, json, zone) where the user chooses in
/// the save dialog; the path written, or `None` when the user closed the dialog.
#[tauri::command]
#[tracing::instrument(skip(app, state), err(Debug))]
pub async fn domains_export<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    project_id: String,
    format: String,
) -> Result<Option<String>> {
    let export = export(&state, &project_id, &format).await?;
    match pick(&app, Some(export.suggested_name.clone())).await {
        Some(file) => save_export(&file, &export).map(Some),
        None => Ok(None),
    }
}

//! Importing a file of hostnames into a project, as both front ends run it: the window's
//! Import… (`src-tauri/commands/bulk.rs`) and `domain-desk domains import`
//! (`src-tauri/cli/bulk.rs`). Each front end reads the file its own way (the system's dialog;
//! a path or standard input) and reports progress its own way (a channel; a progress line);
//! the steps between are here, once:
//!
//! 1. [`ImportFile::new`]: the rows, the lines that could not be read, and where the rows to
//!    import again go (beside the file unless the caller names a place);
//! 2. [`ImportFile::check_retry_path`]: nothing is sent when they could not be written there;
//! 3. [`ImportFile::plan`]: the rows checked against the account and the project's domains,
//!    refused whole or with the invalid rows left out ([`Invalid`]);
//! 4. [`send`]: the plan through the key's paced queue, paced by the platform's clock;
//! 5. [`ImportFile::write_retry_file`]: the rows to import again written, or an earlier run's
//!    file removed when none are left.
//!
//! [`ImportFile::import`] runs 3 to 5 for a front end with nothing to do between them (the
//! window); the command line stops after 3 for `--dry-run` and asks about `--no-wait`.

use std::future::Future;
use std::path::{Path, PathBuf};

use domain_desk_api::{Account, Project};
use domain_desk_bulk::retry_file::{self, RetryFile};
use domain_desk_bulk::rows::{self, Format, Row, RowProblem};
use domain_desk_bulk::{ImportPlan, Invalid, Progress, Refusal, RunOptions, Summary};
use domain_desk_client::Client;

use crate::account_rules::pacing_speed;
use crate::{Error, Result};

/// Where the rows of standard input to import again go, unless the caller names a place.
const STDIN_RETRY_FILE: &str = "import.failed.csv";

/// The rows of one file to import, and where those to import again go.
#[derive(Debug, Clone)]
pub struct ImportFile {
    /// The file read; `None` for standard input.
    source: Option<PathBuf>,
    rows: Vec<Row>,
    /// Lines that could not be read as rows, reported with the rows the plan refuses.
    unreadable: Vec<RowProblem>,
    retry_path: PathBuf,
}

/// What an import did: the run's summary and what became of the retry file.
#[derive(Debug)]
pub struct Imported {
    pub summary: Summary,
    pub retry_file: RetryFile,
}

impl ImportFile {
    /// The rows of `text`, read from `source` (`None`: standard input) as `format`, or as its
    /// name and content suggest. The rows to import again go to `retry_path`, else beside the
    /// file (`FILE.failed.csv`).
    pub fn new(
        text: &str,
        source: Option<&Path>,
        format: Option<Format>,
        retry_path: Option<PathBuf>,
    ) -> Self {
        let format = format.unwrap_or_else(|| Format::detect(source, text));
        let (rows, unreadable) = rows::read(text, format);
        let retry_path = retry_path.unwrap_or_else(|| match source {
            Some(file) => retry_file::retry_path(file),
            None => PathBuf::from(STDIN_RETRY_FILE),
        });
        Self {
            source: source.map(Path::to_owned),
            rows,
            unreadable,
            retry_path,
        }
    }

    /// The file read; `None` for standard input.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// Where the rows to import again go.
    pub fn retry_path(&self) -> &Path {
        &self.retry_path
    }

    /// Whether the rows to import again can go to [`Self::retry_path`]: never the file being
    /// imported, nor a file Domain Desk did not write as a retry file. Call it before
    /// anything is sent.
    pub fn check_retry_path(&self) -> Result<()> {
        retry_file::check_retry_path(&self.retry_path, self.source())
            .map_err(|err| Error::InvalidInput(err.to_string()))
    }

    /// Reads the project's domains and checks the rows against them and the account's plan:
    /// the plan, or why the file is refused (nothing is sent then). With [`Invalid::Skip`]
    /// rows that cannot be imported as written are left out instead of refusing the file.
    pub async fn plan(
        &self,
        client: &Client,
        account: &Account,
        project: &Project,
        invalid: Invalid,
    ) -> Result<std::result::Result<ImportPlan, Refusal>> {
        let existing = client.domains(&project.id).await?;
        Ok(domain_desk_bulk::plan::plan_with(
            &self.rows,
            &self.unreadable,
            account,
            project,
            &existing,
            invalid,
        ))
    }

    /// The error the window shows for a refused file: every row problem with the count of
    /// valid rows ([`Error::ImportRefused`], for "Import the N valid rows"), or the refusal's
    /// sentence.
    pub fn refused(&self, refusal: Refusal) -> Error {
        match refusal {
            Refusal::Rows { problems, valid } => Error::ImportRefused {
                file: self.display_name(),
                retry_file: self.retry_path.display().to_string(),
                problems,
                valid,
            },
            other => Error::InvalidInput(domain_desk_bulk::Error::Refused(other).to_string()),
        }
    }

    /// Writes the rows to import again to [`Self::retry_path`], or removes the file an earlier
    /// run left there when none are left; never the imported file, nor a file Domain Desk did
    /// not write.
    pub fn write_retry_file(&self, summary: &Summary) -> Result<RetryFile> {
        retry_file::write_retry_file(
            &self.retry_path,
            self.source(),
            &summary.rows_to_retry(),
            &summary.skipped,
        )
        .map_err(|err| Error::InvalidInput(err.to_string()))
    }

    /// Steps 3 to 5 at once: reads the account and the project, plans ([`Self::plan`]; a
    /// refusal is [`Self::refused`]), sends ([`send`]) and writes the retry file.
    pub async fn import(
        &self,
        client: &Client,
        project_id: &str,
        invalid: Invalid,
        clock_speed: f64,
        progress: impl FnMut(&Progress),
        stop: impl Future<Output = ()>,
    ) -> Result<Imported> {
        let account = client.account().await?;
        let project = client.project(project_id).await?;
        let plan = self
            .plan(client, &account, &project, invalid)
            .await?
            .map_err(|refusal| self.refused(refusal))?;
        let summary = send(client, project_id, plan, clock_speed, progress, stop).await;
        let retry_file = self.write_retry_file(&summary)?;
        Ok(Imported {
            summary,
            retry_file,
        })
    }

    fn display_name(&self) -> String {
        self.source().map_or_else(
            || "standard input".to_owned(),
            |file| file.display().to_string(),
        )
    }
}

/// Sends `plan` through the key's queue at bulk priority ([`domain_desk_bulk::run::run`]),
/// its ETA paced by the platform's clock (`clock_speed` platform seconds per local second; a
/// stopped clock counts as real time). `stop` withdraws the rows not yet sent.
pub async fn send(
    client: &Client,
    project_id: &str,
    plan: ImportPlan,
    clock_speed: f64,
    progress: impl FnMut(&Progress),
    stop: impl Future<Output = ()>,
) -> Summary {
    let options = RunOptions {
        clock_speed: pacing_speed(clock_speed),
        ..RunOptions::default()
    };
    domain_desk_bulk::run::run(client, project_id, plan, options, progress, stop).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_to_import_again_go_beside_the_file_unless_named() {
        let file = ImportFile::new(
            "hostname\nshop.example.com\n",
            Some(Path::new("/data/domains.csv")),
            None,
            None,
        );
        assert_eq!(
            file.retry_path(),
            retry_file::retry_path(Path::new("/data/domains.csv"))
        );
        assert_eq!(file.source(), Some(Path::new("/data/domains.csv")));
        let stdin = ImportFile::new("shop.example.com\n", None, None, None);
        assert_eq!(stdin.retry_path(), Path::new(STDIN_RETRY_FILE));
        let named = ImportFile::new(
            "shop.example.com\n",
            None,
            None,
            Some("/tmp/left.csv".into()),
        );
        assert_eq!(named.retry_path(), Path::new("/tmp/left.csv"));
    }

    #[test]
    fn a_file_refused_for_its_rows_names_every_problem_for_the_window() {
        let file = ImportFile::new("not a hostname\n", Some(Path::new("in.csv")), None, None);
        let problems = file.unreadable.clone();
        let err = file.refused(Refusal::Rows {
            problems: problems.clone(),
            valid: 0,
        });
        assert_eq!(err.kind(), "import_refused");
        let shown = serde_json::to_value(&err).unwrap();
        assert_eq!(shown["refusal"]["file"], "in.csv");
        assert_eq!(
            shown["refusal"]["retry_file"],
            retry_file::retry_path(Path::new("in.csv"))
                .display()
                .to_string()
        );
    }
}

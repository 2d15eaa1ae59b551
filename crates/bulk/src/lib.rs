//! Domains in bulk, for the command line and the window alike: import a file of hostnames
//! into a project through the key's paced queue, and export a project's domains.
//!
//! An import is checked whole before anything is sent ([`plan`]): bad rows are reported with
//! their line numbers, and a file the plan has no room for is refused. Each row's
//! `Idempotency-Key` is derived from what it asks for, so running the same import again after
//! a crash, a kill or a lost network acts on no row twice and reports what was already done
//! ([`run`]). Progress carries an ETA computed from the key's windows
//! ([`Client::wait_for`](domain_desk_client::Client::wait_for)).
//!
//! ```no_run
//! # async fn demo(client: domain_desk_client::Client) -> domain_desk_bulk::Result<()> {
//! use domain_desk_bulk::{import, rows, RunOptions};
//! let rows = rows::parse("shop.example.com\nwww.example.com\n", rows::Format::Csv).unwrap();
//! let summary = import(&client, "prj_1", &rows, RunOptions::default(), |_| {}, std::future::pending()).await?;
//! println!("{} created", summary.created.len());
//! # Ok(()) }
//! ```

mod cells;
mod error;
pub mod export;
/// Writing the user's files: atomically, the owner's alone, never through a planted link.
pub use domain_desk_api::private_file as file;
pub mod plan;
pub mod retry_file;
pub mod rows;
pub mod run;

use std::future::Future;

use domain_desk_client::Client;

pub use error::{Error, Result};
pub use export::{ExportFormat, export};
pub use plan::{ImportPlan, Invalid, Refusal};
pub use run::{Progress, RunOptions, Summary};

/// Reads the account and the project's domains, checks `rows` against them ([`plan::plan`]),
/// then sends what is missing ([`run::run`]). Nothing is sent when the check fails.
pub async fn import(
    client: &Client,
    project_id: &str,
    rows: &[rows::Row],
    options: RunOptions,
    progress: impl FnMut(&Progress),
    stop: impl Future<Output = ()>,
) -> Result<Summary> {
    import_with(
        client,
        project_id,
        rows,
        &[],
        Invalid::Refuse,
        options,
        progress,
        stop,
    )
    .await
}

/// As [`import`], with the file's unreadable lines (`unreadable`, from [`rows::read`]) among
/// the invalid rows, and `invalid` saying whether they refuse the file ([`Error::Refused`]
/// with every problem and how many rows are valid) or are left out and listed in the
/// summary's `skipped`.
#[allow(clippy::too_many_arguments)]
pub async fn import_with(
    client: &Client,
    project_id: &str,
    rows: &[rows::Row],
    unreadable: &[rows::RowProblem],
    invalid: Invalid,
    options: RunOptions,
    progress: impl FnMut(&Progress),
    stop: impl Future<Output = ()>,
) -> Result<Summary> {
    let account = client.account().await?;
    let project = client.project(project_id).await?;
    let existing = client.domains(project_id).await?;
    let plan = plan::plan_with(rows, unreadable, &account, &project, &existing, invalid)
        .map_err(Error::Refused)?;
    Ok(run::run(client, project_id, plan, options, progress, stop).await)
}

//! `domain-desk domains import` and `export`: the bulk crate with a progress line, Ctrl-C and
//! a summary.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use domain_desk_api::Project;
use domain_desk_bulk::rows::{self, Format};
use domain_desk_bulk::{ExportFormat, Progress, RunOptions, Summary, plan};

use super::connect::{Connection, refuse_to_wait};
use super::output::{Failure, Outcome, duration, inert, print_json};

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// CSV (`hostname[,redirect_to]`, header optional) or JSON lines; `-` reads standard input.
    pub file: PathBuf,
    /// Read the file as this format instead of guessing from its name and content.
    #[arg(long, value_parser = ["csv", "jsonl"])]
    pub format: Option<String>,
    /// Where the rows that were refused or not done go, ready to import again
    /// (default: FILE.failed.csv beside the file, when there are any).
    #[arg(long, value_name = "FILE")]
    pub failed: Option<PathBuf>,
    /// Check the file against the project and say what would be sent, without sending.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[arg(long, default_value = "csv", value_parser = ["csv", "json", "zone"])]
    pub format: String,
    /// Write to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

fn read_rows(args: &ImportArgs) -> Result<Vec<rows::Row>, Failure> {
    let stdin = args.file.as_os_str() == "-";
    let text = if stdin {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(&args.file)
    }
    .map_err(|err| Failure::usage(format!("cannot read {}: {err}", args.file.display())))?;
    let format = match args.format.as_deref() {
        Some("jsonl") => Format::JsonLines,
        Some(_) => Format::Csv,
        None => Format::detect((!stdin).then_some(args.file.as_path()), &text),
    };
    rows::parse(&text, format).map_err(|problems| {
        let refusal = plan::Refusal::Rows { problems };
        Failure::usage(refusal.to_string())
    })
}

pub async fn import(
    connection: &Connection,
    project: &Project,
    args: ImportArgs,
    json: bool,
    no_wait: bool,
) -> Outcome {
    let rows = read_rows(&args)?;
    let client = &connection.client;
    let existing = client.domains(&project.id).await?;
    let plan = plan::plan(&rows, &connection.account, project, &existing).map_err(|refusal| {
        let status = match refusal {
            plan::Refusal::Rows { .. } => super::output::USAGE,
            _ => super::output::CHECK_FAILED,
        };
        Failure {
            status,
            message: format!("{refusal}"),
        }
    })?;
    let to_send = plan.to_send.len();
    if args.dry_run {
        if json {
            return print_json(&plan);
        }
        println!(
            "{} row(s) to add, {} already in {}; nothing sent (--dry-run).",
            to_send,
            plan.already_present.len(),
            inert(&project.name)
        );
        return Ok(());
    }
    refuse_to_wait(connection, to_send as u64, no_wait).await?;
    let interactive = std::io::stderr().is_terminal();
    let mut shown_tenth = 0;
    let stop = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        eprintln!("\nStopping: rows not yet sent are withdrawn; rows on the wire finish.");
    };
    let options = RunOptions {
        clock_speed: connection.clock_speed,
    };
    let summary = domain_desk_bulk::run::run(
        client,
        &project.id,
        plan,
        options,
        |progress| {
            if interactive {
                eprint!("\r\x1b[K{}", progress_line(progress));
                let _ = std::io::stderr().flush();
            } else if let Some(tenth) = (progress.answered * 10).checked_div(progress.total) {
                if tenth > shown_tenth {
                    shown_tenth = tenth;
                    eprintln!("{}", progress_line(progress));
                }
            }
        },
        stop,
    )
    .await;
    if interactive {
        eprintln!();
    }
    let failed_file = write_failed_rows(&args, &summary)?;
    if json {
        print_json(&summary)?;
    } else {
        print_summary(&summary, failed_file.as_ref());
    }
    if summary.complete() {
        Ok(())
    } else if summary.unfinished.iter().all(|r| r.rate_limited)
        && !summary.unfinished.is_empty()
        && summary.refused.is_empty()
    {
        Err(Failure::rate_limited(""))
    } else {
        Err(Failure::check(""))
    }
}

/// `[######----] 120/250 · 3.2/s · ETA 1m05s`
fn progress_line(progress: &Progress) -> String {
    const WIDTH: usize = 24;
    let filled = (progress.answered * WIDTH)
        .checked_div(progress.total)
        .unwrap_or(WIDTH);
    let eta = progress.eta.map_or_else(|| "—".to_owned(), duration);
    format!(
        "[{}{}] {}/{} · {:.1}/s · ETA {} · added {} · present {} · refused {} · not done {}",
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        progress.answered,
        progress.total,
        progress.rate,
        eta,
        progress.created,
        progress.already_present,
        progress.refused,
        progress.failed
    )
}

fn write_failed_rows(args: &ImportArgs, summary: &Summary) -> Result<Option<PathBuf>, Failure> {
    let rows = summary.rows_to_retry();
    if rows.is_empty() {
        return Ok(None);
    }
    let path = args.failed.clone().unwrap_or_else(|| {
        if args.file.as_os_str() == "-" {
            PathBuf::from("import.failed.csv")
        } else {
            rows::retry_path(&args.file)
        }
    });
    std::fs::write(&path, rows::to_csv(&rows))
        .map_err(|err| Failure::check(format!("cannot write {}: {err}", path.display())))?;
    Ok(Some(path))
}

fn print_summary(summary: &Summary, failed_file: Option<&PathBuf>) {
    let earlier = summary
        .already_present
        .iter()
        .filter(|r| r.added_by_earlier_run)
        .count();
    println!(
        "added {} · already present {} ({} by an earlier run) · refused {} · not done {}{}",
        summary.created.len(),
        summary.already_present.len(),
        earlier,
        summary.refused.len(),
        summary.unfinished.len(),
        if summary.stopped { " · stopped" } else { "" }
    );
    for row in summary
        .already_present
        .iter()
        .filter(|r| r.differs.is_some())
    {
        println!(
            "  line {}: {} is present, but {}",
            row.line,
            inert(&row.hostname),
            inert(row.differs.as_deref().unwrap_or_default())
        );
    }
    for row in &summary.refused {
        println!(
            "  line {}: {} refused: {}",
            row.line,
            inert(&row.hostname),
            inert(&row.reason)
        );
    }
    for row in &summary.unfinished {
        println!(
            "  line {}: {} not done: {}",
            row.line,
            inert(&row.hostname),
            inert(&row.reason)
        );
    }
    if summary.rate_limited > 0 {
        println!(
            "  the platform answered 429 {} time(s)",
            summary.rate_limited
        );
    }
    if let Some(path) = failed_file {
        println!(
            "The rows to try again are in {}; import that file once the reasons above are fixed.",
            path.display()
        );
    }
}

pub async fn export(connection: &Connection, project: &Project, args: ExportArgs) -> Outcome {
    let format = ExportFormat::parse(&args.format)
        .ok_or_else(|| Failure::usage("--format is csv, json or zone"))?;
    let domains = connection.client.domains(&project.id).await?;
    let label = format!("{} ({})", project.name, project.id);
    let text = domain_desk_bulk::export(&domains, format, &label)?;
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|err| Failure::check(format!("cannot write {}: {err}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

//! `domain-desk domains import` and `export`: the application layer's import
//! ([`domain_desk_app::import`], the window's too) with a progress line, Ctrl-C and a summary,
//! and `--dry-run` and `--no-wait` between its plan and its run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use domain_desk_api::Project;
use domain_desk_app::import::{self, ImportFile};
use domain_desk_bulk::retry_file;
use domain_desk_bulk::rows::Format;
use domain_desk_bulk::{ExportFormat, Progress, Summary, plan};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
    /// (default: FILE.failed.csv beside the file, when there are any). Never the file being
    /// imported, nor a file that Domain Desk did not write as a retry file.
    #[arg(long, value_name = "FILE")]
    pub failed: Option<PathBuf>,
    /// Check the file against the project and say what would be sent, without sending.
    #[arg(long)]
    pub dry_run: bool,
    /// Import the valid rows even when others cannot be imported as written; those are
    /// listed and written to the retry file (FILE.failed.csv) under a comment saying why.
    /// Without it, one invalid row refuses the whole file.
    #[arg(long)]
    pub skip_invalid: bool,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[arg(long, default_value = "csv", value_parser = ["csv", "json", "zone"])]
    pub format: String,
    /// Write to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The file (or standard input) to import, as `--format` and `--failed` say.
fn read_file(args: &ImportArgs) -> Result<ImportFile, Failure> {
    let text = match imported_file(args) {
        None => std::io::read_to_string(std::io::stdin()),
        Some(file) => std::fs::read_to_string(file),
    }
    .map_err(|err| Failure::usage(format!("cannot read {}: {err}", args.file.display())))?;
    let format = match args.format.as_deref() {
        Some("jsonl") => Some(Format::JsonLines),
        Some(_) => Some(Format::Csv),
        None => None,
    };
    Ok(ImportFile::new(
        &text,
        imported_file(args),
        format,
        args.failed.clone(),
    ))
}

pub async fn import(
    connection: &Connection,
    project: &Project,
    args: ImportArgs,
    json: bool,
    no_wait: bool,
) -> Outcome {
    let file = read_file(&args)?;
    // Where the rows to import again go must be fit for it before anything is sent.
    if !args.dry_run {
        file.check_retry_path()?;
    }
    let client = &connection.client;
    let invalid = if args.skip_invalid {
        plan::Invalid::Skip
    } else {
        plan::Invalid::Refuse
    };
    let plan = file
        .plan(client, &connection.account, project, invalid)
        .await?
        .map_err(|refusal| {
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
            "{} row(s) to add, {} already in {}, {} invalid left out; nothing sent (--dry-run).",
            to_send,
            plan.already_present.len(),
            inert(&project.name),
            plan.skipped.len()
        );
        return Ok(());
    }
    refuse_to_wait(connection, to_send as u64, no_wait).await?;
    let interactive = std::io::stderr().is_terminal();
    let mut shown_tenth = 0;
    let mut shown_attempts = 0;
    let stop = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        eprintln!("\nStopping: rows not yet sent are withdrawn; rows on the wire finish.");
    };
    let summary = import::send(
        client,
        &project.id,
        plan,
        connection.clock_speed,
        |progress| {
            if interactive {
                // Redrawn in place, so it must not wrap: a wrapped line leaves its first part
                // behind on every redraw.
                let columns = terminal_size::terminal_size_of(std::io::stderr())
                    .map(|(width, _)| usize::from(width.0));
                eprint!("\r\x1b[K{}", progress_line(progress, columns));
                let _ = std::io::stderr().flush();
                return;
            }
            // Into a file or a pipe: a line at each tenth done, and one at each new try while
            // the platform does not answer.
            let attempts = progress.reconnecting.as_ref().map_or(0, |r| r.attempts);
            let tenth = (progress.answered * 10)
                .checked_div(progress.total)
                .unwrap_or(10);
            if tenth > shown_tenth || attempts > shown_attempts {
                shown_tenth = shown_tenth.max(tenth);
                eprintln!("{}", progress_line(progress, None));
            }
            shown_attempts = attempts;
        },
        stop,
    )
    .await;
    if interactive {
        eprintln!();
    }
    let written = file
        .write_retry_file(&summary)
        .map_err(|err| Failure::check(err.to_string()))?;
    if json {
        print_json(&summary)?;
    } else {
        print_summary(&summary, file.retry_path(), written);
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

/// `[######----] 120/250 · 3.2/s · ETA 1m05s · added 118 · present 2 · refused 0 · not done 0`,
/// or while the platform does not answer `[######----] 120/250 · reconnecting: no answer for
/// 12s, next try in 4s (gives up in 1m48s) · …`. Given the terminal's `columns`, the line
/// stays short of its last column: the counts that are zero go, then the bar shrinks and
/// goes, then the rate, and what still does not fit is cut with `…`.
fn progress_line(progress: &Progress, columns: Option<usize>) -> String {
    let done = format!("{}/{}", progress.answered, progress.total);
    let (rate, pace) = match &progress.reconnecting {
        Some(outage) => (
            None,
            format!(
                "reconnecting: no answer for {}, next try in {} (gives up in {})",
                duration(outage.unreachable_for),
                duration(outage.next_try_in),
                duration(outage.gives_up_in)
            ),
        ),
        None => (
            Some(format!("{:.1}/s", progress.rate)),
            format!(
                "ETA {}",
                progress.eta.map_or_else(|| "—".to_owned(), duration)
            ),
        ),
    };
    let counts = [
        ("added", progress.created),
        ("present", progress.already_present),
        ("refused", progress.refused),
        ("not done", progress.failed),
    ];
    let line = |bar: usize, zeros: bool, with_rate: bool| {
        let mut text = String::new();
        if bar > 0 {
            let filled = (progress.answered * bar)
                .checked_div(progress.total)
                .unwrap_or(bar)
                .min(bar);
            text = format!("[{}{}] ", "#".repeat(filled), "-".repeat(bar - filled));
        }
        let shown = counts
            .iter()
            .filter(|(_, count)| zeros || *count > 0)
            .map(|(label, count)| format!("{label} {count}"));
        let all: Vec<String> = std::iter::once(done.clone())
            .chain(rate.clone().filter(|_| with_rate))
            .chain(std::iter::once(pace.clone()))
            .chain(shown)
            .collect();
        text.push_str(&all.join(" · "));
        text
    };
    const BAR: usize = 24;
    let Some(columns) = columns else {
        return line(BAR, true, true);
    };
    // Writing into the last column makes some terminals wrap at once.
    let room = columns.saturating_sub(1);
    let shorter = [
        (BAR, true, true),
        (BAR, false, true),
        (16, false, true),
        (10, false, true),
        (0, false, true),
        (0, false, false),
    ];
    for (bar, zeros, with_rate) in shorter {
        let text = line(bar, zeros, with_rate);
        if text.width() <= room {
            return text;
        }
    }
    cut_to_width(&line(0, false, false), room)
}

/// `text` cut to at most `room` terminal columns, ending with `…` when cut.
fn cut_to_width(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let width = c.width().unwrap_or(0);
        if used + width + 1 > room {
            break;
        }
        used += width;
        out.push(c);
    }
    if room > 0 {
        out.push('…');
    }
    out
}

/// The file being imported; `None` for standard input.
fn imported_file(args: &ImportArgs) -> Option<&std::path::Path> {
    (args.file.as_os_str() != "-").then_some(args.file.as_path())
}

fn print_summary(summary: &Summary, failed_file: &std::path::Path, written: retry_file::RetryFile) {
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
    if !summary.skipped.is_empty() {
        println!(
            "left out {} invalid row(s) (--skip-invalid):",
            summary.skipped.len()
        );
    }
    for problem in &summary.skipped {
        println!("  {}", inert(&problem.to_string()));
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
    match written {
        retry_file::RetryFile::Written => println!(
            "The rows to try again are in {}; import that file once the reasons above are fixed.",
            failed_file.display()
        ),
        retry_file::RetryFile::Removed => println!(
            "Nothing left to try again: removed {}, which an earlier run left.",
            failed_file.display()
        ),
        retry_file::RetryFile::Absent => {}
    }
}

pub async fn export(connection: &Connection, project: &Project, args: ExportArgs) -> Outcome {
    let format = ExportFormat::parse(&args.format)
        .ok_or_else(|| Failure::usage("--format is csv, json or zone"))?;
    let text = domain_desk_app::export::export(&connection.client, project, format)
        .await?
        .text;
    match &args.output {
        Some(path) => domain_desk_bulk::file::write_atomically(path, text.as_bytes())
            .map_err(|err| Failure::check(format!("cannot write {}: {err}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use domain_desk_bulk::run::Reconnecting;

    use super::*;

    fn progress(reconnecting: Option<Reconnecting>) -> Progress {
        Progress {
            total: 20_000,
            answered: 12_345,
            created: 12_000,
            already_present: 300,
            refused: 40,
            failed: 5,
            elapsed: Duration::from_secs(4_000),
            rate: 3.1,
            eta: Some(Duration::from_secs(2_460)),
            reconnecting,
        }
    }

    fn outage() -> Reconnecting {
        Reconnecting {
            unreachable_for: Duration::from_secs(12),
            attempts: 3,
            next_try_in: Duration::from_secs(4),
            gives_up_in: Duration::from_secs(108),
            error: "could not reach the platform: connection refused".into(),
        }
    }

    /// Every width from a narrow split pane to a wide window: the line never reaches the last
    /// column, and keeps the count of rows done.
    #[test]
    fn the_progress_line_fits_the_terminal() {
        for reconnecting in [None, Some(outage())] {
            let progress = progress(reconnecting);
            let full = progress_line(&progress, None);
            assert!(full.width() > 80, "{full}");
            for columns in 20..=200 {
                let line = progress_line(&progress, Some(columns));
                assert!(line.width() < columns, "{columns}: {line}");
                assert!(
                    line.starts_with("[") || line.starts_with("12345/"),
                    "{line}"
                );
            }
            assert_eq!(progress_line(&progress, Some(200)), full);
        }
        // Every count still shown at 80 columns, the rate gone.
        let line = progress_line(&progress(None), Some(80));
        assert_eq!(
            line,
            "12345/20000 · ETA 41m00s · added 12000 · present 300 · refused 40 · not done 5"
        );
        // A run of 250 rows keeps its bar at 80 columns, without the counts that are zero.
        let small = Progress {
            total: 250,
            answered: 120,
            created: 120,
            already_present: 0,
            refused: 0,
            failed: 0,
            rate: 35.2,
            eta: Some(Duration::from_secs(5)),
            ..progress(None)
        };
        assert_eq!(
            progress_line(&small, Some(80)),
            "[###########-------------] 120/250 · 35.2/s · ETA 5s · added 120"
        );
    }

    #[test]
    fn the_progress_line_says_the_platform_is_awaited() {
        let line = progress_line(&progress(Some(outage())), Some(120));
        assert!(
            line.contains("reconnecting: no answer for 12s, next try in 4s (gives up in 1m48s)"),
            "{line}"
        );
        assert!(!line.contains("ETA"), "{line}");
    }

    #[test]
    fn cutting_counts_columns_not_characters() {
        assert_eq!(cut_to_width("例え.テスト", 6), "例え.…");
        assert_eq!(cut_to_width("例え.テスト", 5), "例え…");
        assert_eq!(cut_to_width("abc", 3), "abc");
        assert_eq!(cut_to_width("abcd", 3), "ab…");
    }
}

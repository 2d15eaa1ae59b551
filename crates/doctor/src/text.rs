//! The report as plain text for a terminal: one block per hostname, worst findings first,
//! each with its fix. The Markdown and JSON forms carry the full evidence.

use std::fmt::Write;

use crate::report::{ChangeAction, Report, Severity};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    for host in &report.hosts {
        let _ = writeln!(out, "{}", host.hostname);
        for finding in &host.findings {
            let mark = match finding.severity {
                Severity::Error => "ERROR  ",
                Severity::Warning => "WARNING",
                Severity::Info => "info   ",
                Severity::Ok => "ok     ",
            };
            let _ = writeln!(out, "  {mark} {}", finding.title);
            if matches!(finding.severity, Severity::Error | Severity::Warning) {
                let _ = writeln!(out, "          {}", finding.detail);
            }
            if let Some(fix) = &finding.fix {
                let _ = writeln!(out, "          fix: {}", fix.summary);
                for change in &fix.changes {
                    let action = match change.action {
                        ChangeAction::Add => "add   ",
                        ChangeAction::Remove => "remove",
                        ChangeAction::Keep => "keep  ",
                    };
                    let _ = writeln!(
                        out,
                        "            {action} {} {} {}   (zone {})",
                        change.name, change.record_type, change.value, change.zone
                    );
                }
            }
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{} hostname(s), {} error(s), {} warning(s) in {} ms; servers: {}",
        report.hosts.len(),
        report.errors,
        report.warnings,
        report.elapsed_ms,
        report
            .sources
            .iter()
            .map(|source| source.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}

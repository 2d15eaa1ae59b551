//! The report as plain text for a terminal: one block per hostname, worst findings first,
//! each with its fix, then the path a lookup takes ([`crate::picture::to_text_diagram`]):
//! each server's answer as the chain it is, with a "no such name" on the link it belongs
//! to. The Markdown and JSON forms carry the full evidence.
//!
//! Names and values come from the network: each goes through [`terminal`], so none can send
//! the terminal an escape sequence or forge a line.

use std::fmt::Write;

use crate::clock::human_time;
use crate::escape::terminal;
use crate::report::{ChangeAction, Report, Severity};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    for host in &report.hosts {
        match &host.provider {
            Some(found) => {
                let _ = writeln!(
                    out,
                    "{}   (DNS provider: {})",
                    terminal(&host.hostname),
                    terminal(&found.provider.name)
                );
            }
            None => {
                let _ = writeln!(out, "{}", terminal(&host.hostname));
            }
        }
        for finding in &host.findings {
            let mark = match finding.severity {
                Severity::Error => "ERROR  ",
                Severity::Warning => "WARNING",
                Severity::Info => "info   ",
                Severity::Ok => "ok     ",
            };
            let _ = writeln!(out, "  {mark} {}", terminal(&finding.title));
            if matches!(finding.severity, Severity::Error | Severity::Warning) {
                let _ = writeln!(out, "          {}", terminal(&finding.detail));
            }
            if let Some(fix) = &finding.fix {
                let _ = writeln!(out, "          fix: {}", terminal(&fix.summary));
                for change in &fix.changes {
                    let action = match change.action {
                        ChangeAction::Add => "add   ",
                        ChangeAction::Remove => "remove",
                        ChangeAction::Keep => "keep  ",
                    };
                    let _ = writeln!(
                        out,
                        "            {action} {} {} {}   (zone {})",
                        terminal(&change.name),
                        terminal(&change.record_type),
                        terminal(&change.value),
                        terminal(&change.zone)
                    );
                }
                for step in &fix.steps {
                    let _ = writeln!(out, "          - {}", terminal(step));
                }
            }
        }
        // The diagram's values went through `terminal` already.
        let diagram = crate::picture::to_text_diagram(host);
        if !diagram.is_empty() {
            let _ = writeln!(out, "  the path a lookup takes:");
            for line in diagram.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{} hostname(s), {} error(s), {} warning(s) in {} ms; servers: {}\nchecked {} by {}",
        report.hosts.len(),
        report.errors,
        report.warnings,
        report.elapsed_ms,
        report
            .sources
            .iter()
            .map(|source| terminal(&source.label))
            .collect::<Vec<_>>()
            .join(", "),
        human_time(report.generated_at),
        report.clock.describe()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picture::fixtures::{misspelt_target, report};

    #[test]
    fn each_server_answers_with_its_chain() {
        let text = render(&report(vec![misspelt_target()]));
        assert!(
            text.contains(
                "  the path a lookup takes:\n    ns1.example.com (authoritative): www.example.com → cname.pages.exmaple.net (another zone's to answer) ✗ not the platform's target\n    Cloudflare 1.1.1.1: www.example.com → cname.pages.exmaple.net: no such name ✗\n"
            ),
            "{text}"
        );
        assert!(!text.contains("www.example.com: no such name"), "{text}");
    }
}

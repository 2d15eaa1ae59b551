//! The report as Markdown that pastes into a support ticket: findings first, each with its
//! evidence and fix, then the path a lookup takes as a text diagram (tickets render no SVG,
//! [`crate::picture::to_text_diagram`]), then the raw views for whoever digs deeper, each
//! server's answer as the chain it is, so that a "no such name" stays on the link it belongs
//! to.
//!
//! Every value from the network or the caller goes through [`crate::escape`]: prose with
//! [`markdown`], values in inline code with [`code`] (or [`code_cell`] in a table), evidence in
//! a fenced block whose fence outlasts its content.

use std::fmt::Write;

use crate::clock::human_time;
use crate::escape::{code, code_cell, code_fence, markdown, terminal};
use crate::report::{ChangeAction, Finding, HostReport, Report, Severity};

/// Renders the whole report.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    let _ = writeln!(out, "# DNS doctor report\n");
    let _ = writeln!(
        out,
        "- Target: {}\n- CA: {}\n- Generated: {} (by {})\n- Servers: {}\n- Result: {} error(s), {} warning(s) in {} ms\n",
        code(&report.target),
        code(&report.ca_identity),
        human_time(report.generated_at),
        report.clock.describe(),
        report
            .sources
            .iter()
            .map(|source| format!("{} ({})", markdown(&source.label), code(&source.address)))
            .collect::<Vec<_>>()
            .join(", "),
        report.errors,
        report.warnings,
        report.elapsed_ms
    );
    for host in &report.hosts {
        render_host(&mut out, host);
    }
    out
}

fn severity_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info => "info",
        Severity::Ok => "ok",
    }
}

fn render_host(out: &mut String, host: &HostReport) {
    let _ = write!(out, "## {}", markdown(&host.hostname));
    if host.unicode_hostname != host.hostname {
        let _ = write!(out, " ({})", markdown(&host.unicode_hostname));
    }
    let verdict = match host.worst_severity() {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info | Severity::Ok => "ok",
    };
    let _ = writeln!(out, " — {verdict}\n");
    if let Some(kind) = &host.name {
        let _ = writeln!(
            out,
            "- Kind: {} (registrable domain {}, zone {}, public suffix {})",
            if kind.apex { "apex" } else { "subdomain" },
            code(&kind.registrable_domain),
            code(&kind.zone),
            code(&kind.public_suffix)
        );
    }
    if let Some(record) = &host.expected_record {
        let _ = writeln!(
            out,
            "- Needs: {} in zone {}",
            code(&format!(
                "{} {} {}",
                record.name, record.record_type, record.value
            )),
            code(&record.zone)
        );
    }
    if !host.nameservers.is_empty() {
        let _ = writeln!(
            out,
            "- Nameservers: {}",
            host.nameservers
                .iter()
                .map(|nameserver| markdown(nameserver))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(found) = &host.provider {
        let _ = writeln!(
            out,
            "- DNS provider: {} (from {}; apex: {})",
            markdown(&found.provider.name),
            found
                .matched_nameservers
                .iter()
                .map(|nameserver| markdown(nameserver))
                .collect::<Vec<_>>()
                .join(", "),
            markdown(&found.provider.apex_alias_note)
        );
    }
    let _ = writeln!(out);
    for finding in &host.findings {
        render_finding(out, finding);
    }
    let diagram = crate::picture::to_text_diagram(host);
    if !diagram.is_empty() {
        // Every value in the diagram went through `terminal`: no line of it can close the
        // fence, which outlasts any run of backticks inside.
        let fence = code_fence(&diagram);
        let _ = writeln!(
            out,
            "<details open><summary>The path a lookup takes</summary>\n\n{fence}\n{diagram}{fence}\n</details>\n"
        );
    }
    if !host.views.is_empty() {
        let _ = writeln!(
            out,
            "### What each server says\n\n| server | answer | cache expires | agrees |\n|---|---|---|---|"
        );
        for view in &host.views {
            let answer = match &view.chain {
                Some(chain) => code_cell(&chain.to_text()),
                // A report from before answers were kept as chains: its status and records.
                None => {
                    let records = view
                        .records
                        .iter()
                        .map(|record| {
                            markdown(&format!(
                                "{} {} {} ({} s)",
                                record.name, record.record_type, record.value, record.ttl
                            ))
                        })
                        .collect::<Vec<_>>()
                        .join("<br>");
                    format!(
                        "{}{}{records}",
                        view.status,
                        if records.is_empty() { "" } else { ": " }
                    )
                }
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                markdown(&view.source.label),
                answer,
                view.cache_expires_in_seconds
                    .map(|seconds| format!("{seconds} s"))
                    .unwrap_or_default(),
                match view.agrees {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "",
                }
            );
        }
        let _ = writeln!(out);
    }
    if let Some(caa) = &host.caa {
        let _ = writeln!(out, "### CAA climb (asked {})\n", markdown(&caa.server));
        for step in &caa.steps {
            let records = step
                .records
                .iter()
                .map(|record| code(&record.value))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                out,
                "- {}: {}{}{}{}",
                code(&step.name),
                step.status,
                if records.is_empty() {
                    String::new()
                } else {
                    format!(" {records}")
                },
                step.via_cname
                    .as_ref()
                    .map(|end| format!(" (via CNAME to {})", code(end)))
                    .unwrap_or_default(),
                step.note
                    .as_ref()
                    .map(|note| format!(" — {}", markdown(note)))
                    .unwrap_or_default()
            );
        }
        let _ = writeln!(out);
    }
    if let Some(tls) = &host.tls {
        let _ = writeln!(out, "### TLS at the edge ({})\n", code(&tls.address));
        match &tls.certificate {
            Some(certificate) => {
                let _ = writeln!(
                    out,
                    "- Certificate: {} issued by {}, names {}, valid until {}",
                    markdown(&certificate.subject),
                    markdown(&certificate.issuer),
                    certificate
                        .names
                        .iter()
                        .map(|name| markdown(name))
                        .collect::<Vec<_>>()
                        .join(", "),
                    certificate
                        .not_after
                        .map(|end| end.to_rfc3339())
                        .unwrap_or_default()
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "- No certificate: {}",
                    markdown(tls.error.as_deref().unwrap_or("no connection"))
                );
            }
        }
        if let Some(status) = tls.http_status {
            let _ = writeln!(
                out,
                "- `GET /`: {status}{}",
                tls.location
                    .as_ref()
                    .map(|location| format!(" → {}", code(location)))
                    .unwrap_or_default()
            );
        }
        let _ = writeln!(out);
    }
}

fn render_finding(out: &mut String, finding: &Finding) {
    let _ = writeln!(
        out,
        "**{}** {}\n\n{}\n",
        severity_label(finding.severity),
        markdown(&finding.title),
        markdown(&finding.detail)
    );
    if let Some(fix) = &finding.fix {
        let _ = writeln!(out, "Fix: {}\n", markdown(&fix.summary));
        if !fix.changes.is_empty() {
            let _ = writeln!(
                out,
                "| action | zone | name | type | value |\n|---|---|---|---|---|"
            );
            for change in &fix.changes {
                let action = match change.action {
                    ChangeAction::Add => "add",
                    ChangeAction::Remove => "remove",
                    ChangeAction::Keep => "keep",
                };
                let _ = writeln!(
                    out,
                    "| {action} | {} | {} | {} | {} |",
                    markdown(&change.zone),
                    markdown(&change.name),
                    markdown(&change.record_type),
                    code_cell(&change.value)
                );
            }
            let _ = writeln!(out);
        }
        for step in &fix.steps {
            let _ = writeln!(out, "- {}", markdown(step));
        }
        if !fix.steps.is_empty() {
            let _ = writeln!(out);
        }
    }
    if !finding.evidence.is_empty() {
        // Each line is escaped on its own, so a value cannot start a line of its own.
        let mut block = String::new();
        for evidence in &finding.evidence {
            let _ = writeln!(
                block,
                "{}",
                terminal(&format!(
                    ";; {} asked {}: {}{}",
                    evidence.server,
                    evidence.question,
                    evidence.status,
                    evidence
                        .note
                        .as_ref()
                        .map(|note| format!(" ({note})"))
                        .unwrap_or_default()
                ))
            );
            for record in &evidence.records {
                let _ = writeln!(block, "{}", terminal(&record.to_string()));
            }
        }
        let fence = code_fence(&block);
        let _ = writeln!(
            out,
            "<details><summary>Evidence</summary>\n\n{fence}\n{block}{fence}\n</details>\n"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picture::fixtures::{half_moved, misspelt_target, report};

    #[test]
    fn each_server_answers_with_its_chain_and_no_such_name_on_the_link_it_belongs_to() {
        let markdown = render(&report(vec![misspelt_target()]));
        assert!(
            markdown.contains(
                "| Cloudflare 1.1.1.1 | `www.example.com → cname.pages.exmaple.net: no such name` | 300 s | yes |"
            ),
            "{markdown}"
        );
        assert!(
            markdown.contains(
                "| ns1.example.com (authoritative) | `www.example.com → cname.pages.exmaple.net (another zone's to answer)` |"
            ),
            "{markdown}"
        );
        // never the name asked marked missing, nor the bare response code beside it
        assert!(
            !markdown.contains("www.example.com: no such name"),
            "{markdown}"
        );
        assert!(!markdown.contains("| NXDOMAIN |"), "{markdown}");
    }

    #[test]
    fn the_path_is_a_text_diagram_in_a_fenced_block() {
        let markdown = render(&report(vec![half_moved()]));
        let block = "<details open><summary>The path a lookup takes</summary>\n\n```\n\
                     com (registry) ┬─ ns1.example.com ✓ serves, serial 7\n";
        assert!(markdown.contains(block), "{markdown}");
        assert!(
            markdown.contains(
                "Google 8.8.8.8: www.example.com: no such name ◷ stale until 12:45 UTC\n\
                 edge.platform.net → 127.0.0.10 ─ TLS ✓ certificate for www.example.com\n\
                 edge.platform.net → 127.0.0.11 ─ TLS ✗ certificate for other.example.org\n\
                 ```\n</details>\n"
            ),
            "{markdown}"
        );
    }

    #[test]
    fn a_backtick_in_a_name_cannot_close_the_diagrams_fence() {
        let mut host = misspelt_target();
        host.views[1].source.label = "```\n# forged".to_owned();
        let markdown = render(&report(vec![host]));
        assert!(markdown.contains("\n````\n"), "{markdown}");
        assert!(markdown.contains("```\\010# forged: "), "{markdown}");
        assert!(!markdown.lines().any(|line| line == "# forged"));
    }
}

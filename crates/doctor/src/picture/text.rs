//! The picture as plain text for a ticket (Markdown renders no SVG): the delegation as a tree
//! from the registry, one line per server with its answer as the chain it is, and one line
//! per address with TLS there.
//!
//! ```text
//! com (registry) ┬─ ns1.example.com ✓ serves, serial 7
//!                └─ ns2.other.net ✗ lame: REFUSED
//! ns1.example.com (authoritative): www.example.com → edge.platform.net (another zone's…) ✓
//! Google 8.8.8.8: www.example.com: no such name ◷ stale until 12:45 UTC
//! edge.platform.net → 127.0.0.10 ─ TLS ✓ certificate for www.example.com
//! ```
//!
//! Every value goes through [`terminal`]: no control character reaches the ticket or the
//! terminal, and none can start a line of its own.

use std::fmt::Write;

use super::graph::{
    Verdict, ip_of, nameserver_verdict, probes, registry_name, stale_servers, tls_verdict,
    view_verdict,
};
use crate::escape::terminal;
use crate::report::{AnswerChain, ChainEnd, HostReport, SourceKind, SourceView};

/// The text diagram of one host's path; empty lines never, one line per fact.
pub fn to_text_diagram(host: &HostReport) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; the results are ignored for that reason.
    if let Some(delegation) = &host.delegation {
        let registry = format!(
            "{} (registry)",
            terminal(&registry_name(&delegation.parent_zone))
        );
        let indent = " ".repeat(registry.chars().count() + 1);
        let mismatch = host
            .findings
            .iter()
            .any(|finding| finding.code == crate::report::FindingCode::DelegationMismatch);
        let mut nameservers: Vec<_> = delegation.nameservers.iter().collect();
        nameservers.sort_by_key(|nameserver| !nameserver.in_registry);
        let registry_words = if delegation.registry_nameservers.is_empty() {
            Some("✗ no delegation found")
        } else if mismatch {
            Some("✗ NS set differs from the zone's")
        } else {
            None
        };
        let mut first_prefix = format!("{registry} ");
        if let Some(words) = registry_words {
            let _ = writeln!(out, "{registry} {words}");
            first_prefix = indent.clone();
        }
        let count = nameservers.len();
        for (index, nameserver) in nameservers.into_iter().enumerate() {
            let (verdict, words) = nameserver_verdict(nameserver);
            let branch = match (index, count, registry_words.is_some()) {
                (_, 1, false) => "──",
                (0, _, false) => "┬─",
                (last, count, _) if last + 1 == count => "└─",
                _ => "├─",
            };
            let prefix = if index == 0 { &first_prefix } else { &indent };
            let _ = writeln!(
                out,
                "{prefix}{branch} {} {} {}",
                terminal(&nameserver.name),
                verdict.symbol(),
                terminal(&words)
            );
        }
    }
    let stale = stale_servers(host);
    let mut views: Vec<&SourceView> = host.views.iter().collect();
    views.sort_by_key(|view| view.source.kind != SourceKind::Authoritative);
    for view in &views {
        let (verdict, words) = view_verdict(host, view, &stale);
        let answer = match &view.chain {
            Some(chain) => chain.to_text(),
            None => format!("{}: {}", host.hostname, view.status.label()),
        };
        // The chain says how it ends; the words add what it does not say.
        let ends_negative = view.chain.as_ref().is_some_and(|chain| {
            matches!(
                chain.end,
                ChainEnd::NoSuchName { .. } | ChainEnd::NoAddress { .. } | ChainEnd::Failed { .. }
            )
        });
        let said = match verdict {
            Verdict::Neutral => String::new(),
            Verdict::Right => " ✓".to_owned(),
            Verdict::Wrong if ends_negative || view.chain.is_none() => " ✗".to_owned(),
            verdict => format!(" {} {}", verdict.symbol(), words),
        };
        let _ = writeln!(
            out,
            "{}: {}{}",
            terminal(&view.source.label),
            terminal(&answer),
            terminal(&said)
        );
    }
    for probe in probes(host) {
        let ip = ip_of(&probe.address);
        let name = views
            .iter()
            .filter_map(|view| view.chain.as_ref())
            .find_map(|chain| holder_of(chain, ip))
            .unwrap_or(&host.hostname);
        let port = probe
            .address
            .rsplit_once(':')
            .map(|(_, port)| port)
            .filter(|port| *port != "443" && port.bytes().all(|byte| byte.is_ascii_digit()));
        let (verdict, words) = tls_verdict(probe, &host.hostname);
        let _ = writeln!(
            out,
            "{} → {} ─ TLS{} {} {}",
            terminal(name),
            terminal(ip),
            port.map(|port| format!(" port {port}")).unwrap_or_default(),
            verdict.symbol(),
            terminal(&words)
        );
    }
    out
}

/// The name whose addresses include `ip` in this chain.
fn holder_of<'a>(chain: &'a AnswerChain, ip: &str) -> Option<&'a str> {
    match &chain.end {
        ChainEnd::Addresses { name, addresses } if addresses.iter().any(|a| a == ip) => {
            Some(name.as_str())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

    #[test]
    fn the_diagram_of_a_half_finished_move() {
        let diagram = to_text_diagram(&half_moved());
        assert_eq!(
            diagram,
            "com (registry) ┬─ ns1.example.com ✓ serves, serial 7\n\
             \x20              └─ ns2.other.net ✗ lame: REFUSED\n\
             ns1.example.com (authoritative): www.example.com → edge.platform.net (another zone's to answer) ✓\n\
             system resolver 127.0.0.6:53: www.example.com → edge.platform.net → 127.0.0.10, 127.0.0.11 ✓\n\
             Google 8.8.8.8: www.example.com: no such name ◷ stale until 12:45 UTC\n\
             edge.platform.net → 127.0.0.10 ─ TLS ✓ certificate for www.example.com\n\
             edge.platform.net → 127.0.0.11 ─ TLS ✗ certificate for other.example.org\n"
        );
    }

    #[test]
    fn no_such_name_stays_on_the_link_it_belongs_to() {
        let diagram = to_text_diagram(&misspelt_target());
        assert!(
            diagram.contains(
                "Cloudflare 1.1.1.1: www.example.com → cname.pages.exmaple.net: no such name ✗\n"
            ),
            "{diagram}"
        );
        assert!(
            !diagram.contains("www.example.com: no such name"),
            "{diagram}"
        );
        assert!(
            diagram.contains(
                "→ cname.pages.exmaple.net (another zone's to answer) ✗ not the platform's target"
            ),
            "{diagram}"
        );
    }

    #[test]
    fn a_registry_that_disagrees_and_a_server_only_the_zone_names() {
        let mut host = half_moved();
        let delegation = host.delegation.as_mut().unwrap();
        delegation.nameservers[0].in_registry = false;
        host.findings.push(crate::report::Finding {
            code: crate::report::FindingCode::DelegationMismatch,
            severity: crate::report::Severity::Warning,
            title: String::new(),
            detail: String::new(),
            evidence: Vec::new(),
            fix: None,
            cached_until: None,
        });
        let diagram = to_text_diagram(&host);
        assert!(
            diagram.starts_with(
                "com (registry) ✗ NS set differs from the zone's\n\
                 \x20              ├─ ns2.other.net ✗ lame: REFUSED\n\
                 \x20              └─ ns1.example.com ✓ serves, serial 7; not at the registry\n"
            ),
            "{diagram}"
        );
    }

    #[test]
    fn hostile_names_are_shown_inert() {
        let mut host = misspelt_target();
        host.views[1].source.label = "evil\r\nERROR forged \u{1b}[2J".to_owned();
        let diagram = to_text_diagram(&host);
        assert!(
            diagram.contains("evil\\013\\010ERROR forged \\027[2J: "),
            "{diagram}"
        );
        assert!(!diagram.lines().any(|line| line.starts_with("ERROR")));
    }
}

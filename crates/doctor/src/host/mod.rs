//! One hostname's diagnosis, as a sequence of phases, each in its own file and each handing a
//! small struct to the next: the zone and its servers ([`zone`]), every server's answers
//! ([`answers`]), the records judged ([`records`]), DNSSEC ([`dnssec`]), caches, the zone's
//! servers against each other and renewal ([`propagation`]), TLS at the edge ([`tls`]), and
//! the report. [`diagnose_host`] reads as their table of contents.

use std::time::Instant;

use domain_desk_api::Hostname;

use crate::checks;
use crate::report::{Finding, FindingCode, HostReport, Severity};

mod answers;
mod dnssec;
mod propagation;
mod records;
mod run;
mod tls;
mod zone;

pub(crate) use run::Run;

pub(crate) async fn diagnose_host(run: &Run, input: &str) -> HostReport {
    let started = Instant::now();
    // The domain as attached; a wildcard's routing is asked at a name under it that no one
    // created (`checks::wildcard_probe`).
    let domain = match Hostname::parse_domain(input) {
        Ok(domain) => domain,
        Err(error) => return invalid(input, &error.to_string(), started),
    };
    let hostname = match checks::wildcard_probe::probe_name(domain.as_str()) {
        Some(probe) => match Hostname::parse(&probe) {
            Ok(probe) => probe,
            Err(error) => return invalid(input, &error.to_string(), started),
        },
        None => domain.clone(),
    };
    let name = hostname.as_str();

    let zone = zone::find(run, &hostname).await;
    let answers = answers::ask(run, name, domain.as_str(), &zone).await;
    let mut findings = records::judge(run, &hostname, &domain, &zone, &answers).await;
    dnssec::judge(run, name, &mut findings).await;
    let views = propagation::judge(run, name, &zone, &answers, &mut findings).await;
    let (tls, tls_addresses) = tls::judge(run, name, &zone, &answers, &mut findings).await;
    live_elsewhere(run, &domain, &views, &mut findings).await;
    provider_steps(run, &zone, &mut findings).await;

    let unicode = domain.unicode();
    if domain.is_wildcard() {
        checks::wildcard_probe::speak_of_the_wildcard(&mut findings, domain.as_str());
        findings.push(checks::wildcard_probe::finding(domain.as_str()));
    }
    let name = domain.as_str();
    name_as_people_write_it(&mut findings, name, &unicode);
    findings.sort_by_key(|finding| finding.severity);
    let zone::Zone {
        kind,
        mut expected,
        delegation,
        nameservers,
        provider,
        ..
    } = zone;
    if domain.is_wildcard() {
        // The record to create is the wildcard's (`*.shop`), not the probe's.
        expected.name = checks::wildcard_probe::wildcard_record_name(&expected.name, name);
    }
    HostReport {
        input: input.to_owned(),
        hostname: name.to_owned(),
        unicode_hostname: unicode,
        expected_record: Some(expected),
        name: Some(kind),
        nameservers,
        provider,
        views,
        caa: Some(answers.caa),
        tls,
        tls_addresses,
        delegation: delegation.map(|found| found.delegation),
        findings,
        elapsed_ms: elapsed_ms(started),
    }
}

/// A name whose records lead to another host today is said to be live there, not a conflict
/// to fix now, once its delegation is in place ([`checks::live_elsewhere`]) — unless the
/// platform already serves it with a certificate, when its record moving away is the
/// renewal's problem.
async fn live_elsewhere(
    run: &Run,
    domain: &Hostname,
    views: &[crate::report::SourceView],
    findings: &mut Vec<Finding>,
) {
    let served_here = run
        .options
        .live_certificates
        .as_ref()
        .is_some_and(|live| live.contains_key(domain.as_str()));
    if served_here {
        return;
    }
    let (target_a, target_aaaa) = run.target_answers().await;
    let platform: Vec<String> = target_a
        .records_of_type("A")
        .chain(target_aaaa.records_of_type("AAAA"))
        .map(|record| record.value.clone())
        .collect();
    let reached = checks::live_elsewhere::addresses_reached(views);
    let elsewhere = checks::live_elsewhere::served_elsewhere(findings, &reached, &platform);
    let delegated = findings
        .iter()
        .any(|finding| finding.code == FindingCode::AcmeDelegationCorrect);
    checks::live_elsewhere::judge(findings, &domain.unicode(), &elsewhere, delegated);
}

/// The fixes as clicks at the zone's DNS provider, when the doctor knows it.
async fn provider_steps(run: &Run, zone: &zone::Zone, findings: &mut [Finding]) {
    let (target_a, target_aaaa) = run.target_answers().await;
    let (provider, kind) = (&zone.provider, &zone.kind);
    if let Some(found) = &provider {
        let target_addresses: Vec<(String, String)> = target_a
            .records_of_type("A")
            .chain(target_aaaa.records_of_type("AAAA"))
            .map(|record| (record.record_type.to_string(), record.value.clone()))
            .collect();
        for fix in findings
            .iter_mut()
            .filter_map(|finding| finding.fix.as_mut())
        {
            crate::providers::apex_without_alias(
                &found.provider,
                kind,
                &run.target,
                &target_addresses,
                fix,
            );
            if fix.steps.is_empty() {
                fix.steps = crate::providers::steps(&found.provider, kind, &fix.changes);
            }
        }
    }
}

/// An internationalised hostname in its findings' words as its owner writes it (`bücher.example`,
/// not `xn--bcher-kva.example`): the title, the detail and the fix's summary are for a person.
/// Evidence, the records to change and the provider's steps keep the A-labels, which are what
/// DNS holds and what a provider's form takes.
fn name_as_people_write_it(findings: &mut [Finding], ascii: &str, unicode: &str) {
    if ascii == unicode {
        return;
    }
    let speak = |text: &mut String| {
        if text.contains(ascii) {
            *text = text.replace(ascii, unicode);
        }
    };
    for finding in findings {
        speak(&mut finding.title);
        speak(&mut finding.detail);
        if let Some(fix) = finding.fix.as_mut() {
            speak(&mut fix.summary);
        }
    }
}

fn invalid(input: &str, message: &str, started: Instant) -> HostReport {
    let trimmed = input.trim().to_owned();
    HostReport {
        input: input.to_owned(),
        hostname: trimmed.clone(),
        unicode_hostname: trimmed,
        name: None,
        expected_record: None,
        nameservers: Vec::new(),
        provider: None,
        views: Vec::new(),
        caa: None,
        tls: None,
        tls_addresses: Vec::new(),
        delegation: None,
        findings: vec![Finding {
            code: FindingCode::InvalidHostname,
            severity: Severity::Error,
            title: format!("{:?} is not a hostname that can be attached", input.trim()),
            detail: message.to_owned(),
            evidence: Vec::new(),
            fix: None,
            cached_until: None,
        }],
        elapsed_ms: elapsed_ms(started),
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Fix;

    fn finding(title: &str, detail: &str, steps: &[&str]) -> Finding {
        Finding {
            code: FindingCode::NameKind,
            severity: Severity::Warning,
            title: title.to_owned(),
            detail: detail.to_owned(),
            evidence: Vec::new(),
            fix: Some(Fix {
                summary: format!("Fix {title}"),
                changes: Vec::new(),
                steps: steps.iter().map(|step| (*step).to_owned()).collect(),
            }),
            cached_until: None,
        }
    }

    #[test]
    fn an_internationalised_name_is_written_as_its_owner_writes_it_except_where_dns_needs_it() {
        let ascii = "xn--bcher-kva.example.com";
        let mut findings = vec![finding(
            "xn--bcher-kva.example.com is a subdomain: it needs a CNAME record",
            "xn--bcher-kva.example.com lies under example.com; create a CNAME named xn--bcher-kva.",
            &["Name: xn--bcher-kva.example.com"],
        )];
        name_as_people_write_it(&mut findings, ascii, "bücher.example.com");
        let found = &findings[0];
        assert_eq!(
            found.title,
            "bücher.example.com is a subdomain: it needs a CNAME record"
        );
        // the record's own name stays as DNS holds it
        assert_eq!(
            found.detail,
            "bücher.example.com lies under example.com; create a CNAME named xn--bcher-kva."
        );
        let fix = found.fix.as_ref().expect("a fix");
        assert_eq!(
            fix.summary,
            "Fix bücher.example.com is a subdomain: it needs a CNAME record"
        );
        // what is typed into a provider's form keeps the A-labels
        assert_eq!(fix.steps, ["Name: xn--bcher-kva.example.com"]);

        // an ASCII name is left alone
        let mut plain = vec![finding("shop.example.com is fine", "", &[])];
        name_as_people_write_it(&mut plain, "shop.example.com", "shop.example.com");
        assert_eq!(plain[0].title, "shop.example.com is fine");
    }
}

//! The fifth phase: what caches and the zone's servers say against each other (propagation,
//! negative caching, the delegation, servers that disagree), the CAA verdict and whether a
//! live certificate will renew.

use super::answers::Answers;
use super::run::Run;
use super::zone::Zone;
use crate::checks::{self, nameservers, propagation};
use crate::delegation;
use crate::report::{Finding, SourceView};

pub(crate) async fn judge(
    run: &Run,
    name: &str,
    zone: &Zone,
    answers: &Answers,
    findings: &mut Vec<Finding>,
) -> Vec<SourceView> {
    let servers = zone.servers(run);
    let address_answers = &answers.address;
    let (target_a, target_aaaa) = run.target_answers().await;
    let (delegation, expected) = (&zone.delegation, &zone.expected);
    let (caa, caa_findings) = (&answers.caa, answers.caa_findings.clone());
    let views: Vec<propagation::ServerView<'_>> = servers
        .iter()
        .zip(address_answers.iter())
        .map(|(server, (a, aaaa))| propagation::ServerView {
            source: &server.source,
            a,
            aaaa,
        })
        .collect();
    let (views, cached) = propagation::check(name, &views, run.now);
    findings.extend(cached);
    if let Some(found) = &delegation {
        findings.extend(delegation::findings(found));
        let zone_servers: Vec<nameservers::ZoneServerAnswer<'_>> = found
            .serving
            .iter()
            .zip(&found.soa)
            .zip(address_answers.iter())
            .zip(
                &found
                    .delegation
                    .nameservers
                    .iter()
                    .filter(|server| server.state == crate::report::NameserverState::Serves)
                    .collect::<Vec<_>>(),
            )
            .map(
                |(((server, _), (a, aaaa)), listed)| nameservers::ZoneServerAnswer {
                    name: &listed.name,
                    label: &server.source.label,
                    a,
                    aaaa,
                    serial: listed.serial,
                    primary: listed.soa_primary.as_deref(),
                },
            )
            .collect();
        let target_addresses = target_a
            .records_of_type("A")
            .chain(target_aaaa.records_of_type("AAAA"))
            .map(|record| record.value.to_ascii_lowercase())
            .collect();
        findings.extend(nameservers::check(
            name,
            &zone_servers,
            &run.target,
            &target_addresses,
            expected,
        ));
    }
    findings.extend(caa_findings);
    if let Some(certificate) = run
        .options
        .live_certificates
        .as_ref()
        .and_then(|live| live.get(name))
    {
        findings.extend(checks::renewal::check(
            name,
            certificate,
            findings,
            Some(caa),
            run.now,
        ));
    }
    views
}

//! The third phase: the records the platform needs, judged on the zone's own answer (or the
//! first server that answered): the health of each server, the target, the record itself, a
//! proxy, a wildcard, a doubled zone name, a dangling CNAME.

use domain_desk_api::Hostname;
use futures::future::join_all;
use hickory_proto::rr::RecordType;

use super::answers::Answers;
use super::run::Run;
use super::zone::Zone;
use crate::checks::{self, apex_or_subdomain, doubled_zone, health, records};
use crate::dns::AnswerStatus;
use crate::report::{Finding, FindingCode, Fix, Severity};

/// The records of `hostname` judged; `domain` is the domain as attached (a wildcard, whose
/// `hostname` is its probe name), which the challenge records belong to.
pub(crate) async fn judge(
    run: &Run,
    hostname: &Hostname,
    domain: &Hostname,
    zone: &Zone,
    answers: &Answers,
) -> Vec<Finding> {
    let name = hostname.as_str();
    let primary = run.primary();
    let engine = &run.engine;
    let offline = run.options.is_offline();
    let (kind, expected, registrable_soa) = (&zone.kind, &zone.expected, &zone.registrable_soa);
    let provider = &zone.provider;
    let nameservers = &zone.nameservers;
    let servers = zone.servers(run);
    let (address_answers, unchecked) = (&answers.address, &answers.unchecked);
    let mut detail_answers = answers.detail.clone();
    let target = run.target_answers().await;
    let mut findings = vec![apex_or_subdomain::finding(hostname, kind, &run.target)];
    if let Some(meant) = doubled_zone::meant_name(hostname) {
        findings.push(doubled_zone::doubled_hostname_finding(hostname, &meant));
    }
    findings.extend(health::check(
        name,
        offline,
        &servers
            .iter()
            .zip(address_answers.iter())
            .zip(unchecked.iter())
            .map(|((server, (a, _)), unchecked)| health::ServerAnswer {
                label: &server.source.label,
                answer: a,
                checking_disabled: unchecked.as_deref(),
            })
            .collect::<Vec<_>>(),
    ));

    let (target_a, target_aaaa) = target;
    let target_resolves = target_a.records_of_type("A").next().is_some()
        || target_aaaa.records_of_type("AAAA").next().is_some();
    // When the server gave no answer at all, the health findings already say so.
    if !target_resolves && target_a.status.is_answer() {
        findings.push(Finding {
            code: FindingCode::TargetUnresolvable,
            severity: Severity::Error,
            title: format!("The platform target {} does not resolve", run.target),
            detail: format!(
                "{} has no address for {} ({}), so nothing can point at it. Check the target \
                 name given to the doctor.",
                primary.source.label, run.target, target_a.status
            ),
            evidence: vec![checks::evidence(&primary.source.label, target_a, None)],
            fix: None,
            cached_until: None,
        });
    }

    // The zone's own answer (or the first server that answered) is the one judged.
    let judged = servers
        .iter()
        .zip(address_answers.iter())
        .position(|(_, (a, _))| a.status.is_answer());
    if let Some(index) = judged.filter(|index| *index != 0) {
        let server = servers[index];
        detail_answers = join_all(
            [RecordType::CNAME, RecordType::TXT, RecordType::MX].map(|record_type| {
                engine.ask(server.address, server.recursive(), name, record_type)
            }),
        )
        .await;
    }
    let registrable_missing = registrable_soa.status == AnswerStatus::NxDomain;
    if registrable_missing {
        findings.push(Finding {
            code: FindingCode::DomainNotRegistered,
            severity: Severity::Error,
            title: format!("{} does not exist", hostname.registrable_domain()),
            detail: format!(
                "{} answers NXDOMAIN for the registrable domain {}: it is not registered, has \
                 expired, or is misspelt. No record under it can work.",
                primary.source.label,
                hostname.registrable_domain()
            ),
            evidence: vec![checks::evidence(
                &primary.source.label,
                registrable_soa,
                None,
            )],
            fix: Some(Fix {
                summary: format!(
                    "Check the spelling, and that {} is registered and has nameservers at its \
                     registrar.",
                    hostname.registrable_domain()
                ),
                changes: Vec::new(),
                steps: Vec::new(),
            }),
            cached_until: None,
        });
    } else if let Some(index) = judged.filter(|_| target_resolves) {
        let server = servers[index];
        let (a, aaaa) = &address_answers[index];
        let mut record_findings = records::check(
            name,
            kind,
            &run.target,
            expected,
            &records::RecordAnswers {
                server_label: &server.source.label,
                a,
                aaaa,
                cname: &detail_answers[0],
                others: &detail_answers[1..],
                target_a,
                target_aaaa,
            },
        );
        let provider_info = provider.as_ref().map(|found| &found.provider);
        if let Some(proxied) = checks::proxy::check(
            name,
            kind,
            &run.target,
            expected,
            provider_info,
            &checks::proxy::ProxyAnswers {
                server_label: &server.source.label,
                a,
                aaaa,
                target_a,
                target_aaaa,
            },
        ) {
            // The proxy's addresses are not records the customer made: the findings that
            // blame them give way.
            record_findings.retain(|finding| {
                !matches!(
                    finding.code,
                    FindingCode::ConflictingRecord
                        | FindingCode::ApexAddressMismatch
                        | FindingCode::AaaaMismatch
                )
            });
            record_findings.push(proxied);
        }
        let blames_a_record = record_findings.iter().any(|finding| {
            matches!(
                finding.code,
                FindingCode::CnameMismatch
                    | FindingCode::CnameTargetDoubled
                    | FindingCode::ConflictingRecord
            )
        });
        if blames_a_record {
            if let Some(shadow) =
                checks::wildcard::check(engine, server, name, kind, a, expected, nameservers).await
            {
                record_findings.retain(|finding| {
                    !matches!(
                        finding.code,
                        FindingCode::CnameMismatch
                            | FindingCode::CnameTargetDoubled
                            | FindingCode::ConflictingRecord
                    )
                });
                record_findings.push(shadow);
            }
        }
        if let Some(missing) = record_findings
            .iter_mut()
            .find(|finding| finding.code == FindingCode::RecordMissing)
        {
            let doubled_name = doubled_zone::doubled(name, &kind.zone);
            let zone_wildcard = format!("*.{}", kind.zone);
            let (doubled, wildcard) = tokio::join!(
                engine.ask(
                    server.address,
                    server.recursive(),
                    &doubled_name,
                    RecordType::A,
                ),
                engine.ask(
                    server.address,
                    server.recursive(),
                    &zone_wildcard,
                    RecordType::A,
                ),
            );
            // A wildcard at the apex answers for the doubled name too: that is no record
            // of the customer's.
            let from_wildcard = !wildcard.answers.is_empty()
                && doubled
                    .answers
                    .iter()
                    .map(|record| (&record.record_type, &record.value))
                    .eq(wildcard
                        .answers
                        .iter()
                        .map(|record| (&record.record_type, &record.value)));
            if doubled.status == AnswerStatus::NoError
                && !doubled.answers.is_empty()
                && !from_wildcard
            {
                *missing = doubled_zone::doubled_record_finding(
                    name,
                    &kind.zone,
                    &kind.relative_name,
                    &server.source.label,
                    &doubled,
                    expected,
                );
            }
        }
        let record_correct = record_findings
            .iter()
            .any(|finding| finding.code == FindingCode::RecordCorrect);
        record_findings.extend(checks::dangling::check(
            name,
            kind,
            &run.target,
            run.options.attached_hostnames.as_ref(),
            record_correct,
            expected,
        ));
        // What else lives at the name: a fix that replaces its records keeps them, and a
        // CNAME that would displace mail is said before it is made.
        let at_name = checks::records_at_name::NameRecords {
            others: &detail_answers[1..],
            caa: Some(&answers.caa),
            server_label: &server.source.label,
        };
        if let Some(displaced) =
            checks::records_at_name::check(name, kind, &run.target, &at_name, &mut record_findings)
        {
            record_findings.push(displaced);
        }
        // Challenge records at the wrong name (the zone appended, or the apex's).
        let misplaced = checks::challenge_labels::check(
            engine,
            server.address,
            server.recursive(),
            &server.source.label,
            domain.as_str(),
            kind,
        )
        .await;
        // The `_acme-challenge` delegation: needed for a wildcard, and for a name whose
        // records lead elsewhere today (its certificate before the switch).
        let needed = domain.is_wildcard()
            || record_findings.iter().any(|finding| {
                matches!(
                    finding.code,
                    FindingCode::ConflictingRecord
                        | FindingCode::ApexAddressMismatch
                        | FindingCode::CnameMismatch
                )
            });
        let context = checks::acme_delegation::Context {
            domain: domain.as_str(),
            kind,
            validation_zone: run.options.validation_zone.as_deref(),
            needed,
            renews_by_dns: run
                .options
                .live_certificates
                .as_ref()
                .and_then(|live| live.get(domain.as_str()))
                .is_some_and(|certificate| certificate.validated_by_dns),
            caa_refuses: answers
                .caa_findings
                .iter()
                .any(|finding| finding.code == FindingCode::CaaForbidsIssuance),
            misplaced: misplaced
                .iter()
                .any(|finding| finding.title.contains(checks::challenge_labels::ACME_LABEL)),
        };
        record_findings.extend(
            checks::acme_delegation::check(
                engine,
                server.address,
                server.recursive(),
                &server.source.label,
                context,
            )
            .await,
        );
        record_findings.extend(misplaced);
        findings.extend(record_findings);
    }
    findings
}

//! One hostname's diagnosis: which questions are asked of which servers, in what order and
//! in parallel, and how the checks' findings come together into its report.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use domain_desk_api::Hostname;
use futures::future::join_all;
use hickory_proto::rr::RecordType;
use tokio::sync::OnceCell;

use crate::checks::dnssec::recording::DnssecSource;
use crate::checks::{
    self, apex_or_subdomain, doubled_zone, health, nameservers, propagation, records,
};
use crate::delegation;
use crate::dns::{Answer, AnswerStatus, QueryEngine};
use crate::options::DoctorOptions;
use crate::report::{Finding, FindingCode, Fix, HostReport, ProviderMatch, Severity};
use crate::servers::{self, Server};
use crate::tls_probe::TlsSource;

/// What every hostname of one run shares.
pub(crate) struct Run {
    pub engine: QueryEngine,
    /// Where the TLS probe's connections come from (the edge, or a capture).
    pub tls: TlsSource,
    /// Where DNSSEC verdicts come from; `None` when the run does not validate.
    pub dnssec: Option<DnssecSource>,
    /// The run's clock: certificate expiry is judged at this instant (a replay's is the
    /// capture's).
    pub now: DateTime<Utc>,
    pub options: DoctorOptions,
    /// Never empty: `diagnose` refuses to start without a server.
    pub servers: Vec<Server>,
    /// The platform target, lowercase, without the final dot.
    pub target: String,
    target_answers: OnceCell<(Arc<Answer>, Arc<Answer>)>,
    /// The provider found for each set of nameservers: the hostnames of a batch share a few
    /// zones, and matching a set against every provider's patterns cost a tenth of the
    /// analysis when it was done for each hostname.
    providers:
        std::sync::Mutex<HashMap<Vec<String>, Option<ProviderMatch>, foldhash::fast::RandomState>>,
}

impl Run {
    pub fn new(
        engine: QueryEngine,
        tls: TlsSource,
        dnssec: Option<DnssecSource>,
        now: DateTime<Utc>,
        options: DoctorOptions,
        servers: Vec<Server>,
    ) -> Self {
        let target = crate::dns::presentation::normalise_name(&options.target);
        Self {
            engine,
            tls,
            dnssec,
            now,
            options,
            servers,
            target,
            target_answers: OnceCell::new(),
            providers: std::sync::Mutex::default(),
        }
    }

    /// The DNS provider of `nameservers` ([`crate::providers::detect`]), found once per set.
    fn provider(&self, nameservers: &[String]) -> Option<ProviderMatch> {
        let mut known = self
            .providers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = known.get(nameservers) {
            return found.clone();
        }
        let found = crate::providers::detect(nameservers);
        known.insert(nameservers.to_vec(), found.clone());
        found
    }

    fn primary(&self) -> &Server {
        // `diagnose` checked that there is at least one server.
        &self.servers[0]
    }

    /// The target's A and AAAA answers, asked once per run.
    async fn target_answers(&self) -> &(Arc<Answer>, Arc<Answer>) {
        self.target_answers
            .get_or_init(|| async {
                let primary = self.primary();
                let (a, aaaa) = tokio::join!(
                    self.engine.ask(
                        primary.address,
                        primary.recursive(),
                        &self.target,
                        RecordType::A
                    ),
                    self.engine.ask(
                        primary.address,
                        primary.recursive(),
                        &self.target,
                        RecordType::AAAA
                    ),
                );
                (a, aaaa)
            })
            .await
    }
}

pub(crate) async fn diagnose_host(run: &Run, input: &str) -> HostReport {
    let started = Instant::now();
    let hostname = match Hostname::parse(input) {
        Ok(hostname) => hostname,
        Err(error) => return invalid(input, &error.to_string(), started),
    };
    let name = hostname.as_str();
    let primary = run.primary();
    let engine = &run.engine;
    let offline = run.options.is_offline();

    let (soa, registrable_soa, target) = tokio::join!(
        engine.ask(primary.address, primary.recursive(), name, RecordType::SOA),
        engine.ask(
            primary.address,
            primary.recursive(),
            hostname.registrable_domain(),
            RecordType::SOA
        ),
        run.target_answers(),
    );
    let soa_zone = soa.soa().map(|record| record.name.clone());
    let kind = apex_or_subdomain::classify(&hostname, soa_zone.as_deref());
    let expected = apex_or_subdomain::expected_record(&kind, &run.target);

    // The delegation from the registry down, in an online run; a run that asks only the
    // servers it was given learns the zone's nameservers' names alone.
    let delegation = if offline {
        None
    } else {
        delegation::examine(engine, primary, &kind.zone, run.options.nameserver_port).await
    };
    let (nameservers, authoritative) = match &delegation {
        Some(found) => {
            let listed = &found.delegation;
            let names = if listed.zone_nameservers.is_empty() {
                listed.registry_nameservers.clone()
            } else {
                listed.zone_nameservers.clone()
            };
            (names, found.serving.clone())
        }
        None => {
            servers::authoritative_servers(
                engine,
                primary,
                &kind.zone,
                !offline,
                run.options.nameserver_port,
            )
            .await
        }
    };
    let provider = run.provider(&nameservers);
    let servers: Vec<&Server> = authoritative.iter().chain(run.servers.iter()).collect();
    // Never empty: it holds the run's servers (see `primary`).
    let reference = servers[0];

    let address_answers = join_all(servers.iter().map(|server| async move {
        tokio::join!(
            engine.ask(server.address, server.recursive(), name, RecordType::A),
            engine.ask(server.address, server.recursive(), name, RecordType::AAAA),
        )
    }));
    let detail_answers = join_all([RecordType::CNAME, RecordType::TXT, RecordType::MX].map(
        |record_type| engine.ask(reference.address, reference.recursive(), name, record_type),
    ));
    let caa_check = checks::caa::check(
        engine,
        primary,
        name,
        &kind,
        &run.options.ca_identity,
        offline,
    );
    let (address_answers, mut detail_answers, (caa, caa_findings)) =
        tokio::join!(address_answers, detail_answers, caa_check);

    // Ask failing servers again with checking disabled, to tell DNSSEC trouble apart.
    let unchecked = join_all(servers.iter().zip(&address_answers).map(
        |(server, (a, _))| async move {
            if a.status == AnswerStatus::ServFail {
                Some(
                    engine
                        .ask_with(
                            server.address,
                            server.recursive(),
                            true,
                            name,
                            RecordType::A,
                        )
                        .await,
                )
            } else {
                None
            }
        },
    ))
    .await;

    let mut findings = vec![apex_or_subdomain::finding(&hostname, &kind, &run.target)];
    if let Some(meant) = doubled_zone::meant_name(&hostname) {
        findings.push(doubled_zone::doubled_hostname_finding(&hostname, &meant));
    }
    findings.extend(health::check(
        name,
        offline,
        &servers
            .iter()
            .zip(&address_answers)
            .zip(&unchecked)
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
        .zip(&address_answers)
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
                &registrable_soa,
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
            &kind,
            &run.target,
            &expected,
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
            &kind,
            &run.target,
            &expected,
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
                checks::wildcard::check(engine, server, name, &kind, a, &expected, &nameservers)
                    .await
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
                    &expected,
                );
            }
        }
        let record_correct = record_findings
            .iter()
            .any(|finding| finding.code == FindingCode::RecordCorrect);
        record_findings.extend(checks::dangling::check(
            name,
            &kind,
            &run.target,
            run.options.attached_hostnames.as_ref(),
            record_correct,
            &expected,
        ));
        findings.extend(record_findings);
    }

    // A resolver's SERVFAIL that checking disabled cures: validated even in a run that does
    // not validate every name, to name the one cause.
    let resolver_failed = findings
        .iter()
        .any(|finding| finding.code == FindingCode::DnssecFailure);
    if let Some(source) = run
        .dnssec
        .as_ref()
        .filter(|_| run.options.dnssec || resolver_failed)
    {
        // Validation climbs from the trust anchor's keys (the root's, or the first owner's in
        // the caller's file): a server that does not hand them out (an authoritative server
        // such as the local service's, asked for the root) cannot be validated through, and
        // hickory would call every answer bogus.
        let anchor_owner =
            checks::dnssec::anchors::anchor_owner(run.options.trust_anchor.as_deref());
        let anchor_keys = engine
            .ask(
                primary.address,
                primary.recursive(),
                &anchor_owner,
                RecordType::DNSKEY,
            )
            .await;
        let verdict = if anchor_keys.records_of_type("DNSKEY").next().is_some() {
            source
                .verdict(primary.address, name, run.options.timeout, run.now)
                .await
        } else {
            checks::dnssec::DnssecVerdict::Unknown(format!(
                "{} does not give the DNSKEY records of {anchor_owner}, where the trust \
                 anchor is",
                primary.source.label
            ))
        };
        // A name with no records yet has only a negative answer to validate, and the record
        // it needs is what the CA will look up: DNSSEC is judged on that answer once it
        // exists. (A zone signed without proofs of non-existence, as the demo's, has every
        // missing name called bogus, with a fix at the registrar that is not the fix.)
        let record_missing = findings
            .iter()
            .any(|finding| finding.code == FindingCode::RecordMissing);
        let verdict = match verdict {
            checks::dnssec::DnssecVerdict::Bogus(_) if record_missing => {
                checks::dnssec::DnssecVerdict::Unknown(format!(
                    "{name} has no records yet; DNSSEC is judged on its answer once it has"
                ))
            }
            verdict => verdict,
        };
        if !run.options.dnssec {
            // Only the cause is wanted: it replaces the failure's list of possible ones.
            if let checks::dnssec::DnssecVerdict::Broken(cause) = &verdict
                && !matches!(cause, checks::dnssec::BrokenChain::UntrustedKeys { .. })
                && let Some(failure) = findings
                    .iter_mut()
                    .find(|finding| finding.code == FindingCode::DnssecFailure)
            {
                let resolver = failure
                    .evidence
                    .first()
                    .map_or("A validating resolver", |shown| shown.server.as_str());
                failure.title = cause.title(name);
                failure.detail = format!(
                    "{} {resolver} answers SERVFAIL, but answers with validation turned off.",
                    cause.detail(name)
                );
                failure.fix = cause.fix();
            }
        } else {
            findings.extend(checks::dnssec::finding(
                name,
                &primary.source.label,
                &verdict,
            ));
        }
        // The doctor's own verdict and a resolver's SERVFAIL that CD cures are one cause:
        // one finding, with the resolver's answers as evidence. Only what the resolver did is
        // added: the doctor's verdict has named the cause, which the resolver's failure alone
        // could not.
        if let Some(failure) = findings
            .iter()
            .position(|finding| finding.code == FindingCode::DnssecFailure)
            .filter(|_| {
                findings
                    .iter()
                    .any(|finding| finding.code == FindingCode::DnssecBogus)
            })
        {
            let failure = findings.remove(failure);
            if let Some(bogus) = findings
                .iter_mut()
                .find(|finding| finding.code == FindingCode::DnssecBogus)
            {
                let resolver = failure
                    .evidence
                    .first()
                    .map_or("A validating resolver", |shown| shown.server.as_str());
                bogus.detail = format!(
                    "{} {resolver} answers SERVFAIL, but answers with validation turned off.",
                    bogus.detail
                );
                bogus.evidence.extend(failure.evidence);
            }
        }
    }

    let views: Vec<propagation::ServerView<'_>> = servers
        .iter()
        .zip(&address_answers)
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
            .zip(&address_answers)
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
            &expected,
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
            &findings,
            Some(&caa),
            run.now,
        ));
    }

    let dns_is_right = !findings
        .iter()
        .any(|finding| finding.severity == Severity::Error);
    let tls = if run.options.tls_probe && dns_is_right {
        let (probe, tls_findings) =
            crate::checks::tls::probe(name, &address_answers, &run.options, &run.tls, run.now)
                .await;
        findings.extend(tls_findings);
        Some(probe)
    } else {
        None
    };

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
                &kind,
                &run.target,
                &target_addresses,
                fix,
            );
            if fix.steps.is_empty() {
                fix.steps = crate::providers::steps(&found.provider, &kind, &fix.changes);
            }
        }
    }

    let unicode = hostname.unicode();
    name_as_people_write_it(&mut findings, name, &unicode);
    findings.sort_by_key(|finding| finding.severity);
    HostReport {
        input: input.to_owned(),
        hostname: name.to_owned(),
        unicode_hostname: unicode,
        expected_record: Some(expected),
        name: Some(kind),
        nameservers,
        provider,
        views,
        caa: Some(caa),
        tls,
        tls_addresses: Vec::new(),
        delegation: delegation.map(|found| found.delegation),
        findings,
        elapsed_ms: elapsed_ms(started),
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

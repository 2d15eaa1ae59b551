//! The records at the name, judged the way the platform's verification judges them: a
//! subdomain needs a CNAME equal to the target and nothing beside it; an apex needs A/AAAA
//! answers exactly equal to the target's (what an ALIAS flattens to).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::checks::evidence;
use crate::dns::{Answer, AnswerStatus, DnsRecord};
use crate::report::{ChangeAction, Finding, FindingCode, Fix, NameKind, RecordChange, Severity};

/// The answers a record check needs, all from one server (the zone's own when known).
pub struct RecordAnswers<'a> {
    pub server_label: &'a str,
    /// The hostname's A, AAAA and CNAME answers.
    pub a: &'a Answer,
    pub aaaa: &'a Answer,
    pub cname: &'a Answer,
    /// Answers for other types at the name (TXT, MX), to find data beside a CNAME.
    pub others: &'a [Arc<Answer>],
    /// The platform target's A and AAAA answers.
    pub target_a: &'a Answer,
    pub target_aaaa: &'a Answer,
}

/// Judges the records at `hostname`. Returns nothing when the server gave no usable answer
/// (the health check reports that).
pub fn check(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    expected: &RecordChange,
    answers: &RecordAnswers<'_>,
) -> Vec<Finding> {
    if !answers.a.status.is_answer() {
        return Vec::new();
    }
    let label = answers.server_label;
    let cname = answers
        .a
        .cname_of(hostname)
        .or_else(|| answers.cname.cname_of(hostname))
        .cloned();
    let own_addresses: Vec<DnsRecord> = answers
        .a
        .records(hostname, "A")
        .chain(answers.aaaa.records(hostname, "AAAA"))
        .cloned()
        .collect();
    let beside: Vec<DnsRecord> = answers
        .others
        .iter()
        .flat_map(|answer| answer.answers.iter())
        .filter(|record| record.name == hostname && record.record_type != "CNAME")
        .cloned()
        .collect();
    let remove = |record: &DnsRecord| change(ChangeAction::Remove, kind, record);
    let mut findings = Vec::new();

    if kind.apex {
        if let Some(cname) = &cname {
            findings.push(Finding {
                code: FindingCode::CnameAtApex,
                severity: Severity::Error,
                title: format!("{hostname} is an apex but has a CNAME record"),
                detail: format!(
                    "A CNAME is not allowed at a zone apex: it cannot live beside the zone's \
                     SOA and NS records, and many resolvers and mail servers then misbehave. \
                     Use an ALIAS or ANAME record pointing at {target} instead."
                ),
                evidence: vec![evidence(label, answers.a, None)],
                fix: Some(Fix {
                    summary: format!("Replace the CNAME at @ with an ALIAS record to {target}."),
                    changes: vec![remove(cname), expected.clone()],
                    steps: Vec::new(),
                }),
                cached_until: None,
            });
        }
        let found_a = values(answers.a, "A");
        let found_aaaa = values(answers.aaaa, "AAAA");
        let wanted_a = values(answers.target_a, "A");
        let wanted_aaaa = values(answers.target_aaaa, "AAAA");
        if wanted_a.is_empty() && wanted_aaaa.is_empty() {
            return findings;
        }
        if found_a.is_empty() && found_aaaa.is_empty() {
            findings.push(missing(hostname, kind, expected, answers));
        } else if found_a == wanted_a && found_aaaa == wanted_aaaa {
            if cname.is_none() {
                findings.push(correct(
                    hostname,
                    format!("{hostname} resolves to exactly the addresses of {target}"),
                    answers,
                ));
            }
        } else if !found_a.is_empty() && found_a == wanted_a {
            findings.push(aaaa_mismatch(
                hostname,
                kind,
                target,
                &found_aaaa,
                &wanted_aaaa,
                answers,
            ));
        } else {
            let mut changes: Vec<RecordChange> = own_addresses
                .iter()
                .filter(|record| {
                    !wanted_a.contains(&record.value) && !wanted_aaaa.contains(&record.value)
                })
                .map(remove)
                .collect();
            changes.push(expected.clone());
            let wanted: Vec<String> = wanted_a.iter().chain(wanted_aaaa.iter()).cloned().collect();
            findings.push(Finding {
                code: FindingCode::ApexAddressMismatch,
                severity: Severity::Error,
                title: format!("{hostname} points at other addresses than {target}"),
                detail: format!(
                    "An apex is verified by its addresses: they must be exactly {target}'s ({}). \
                     It resolves to {} instead, usually a registrar's parking page or the old \
                     host.",
                    wanted.join(", "),
                    found_a
                        .iter()
                        .chain(found_aaaa.iter())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                evidence: vec![
                    evidence(label, answers.a, None),
                    evidence(label, answers.aaaa, None),
                    evidence(
                        label,
                        answers.target_a,
                        Some("the target's addresses".into()),
                    ),
                ],
                fix: Some(Fix {
                    summary: format!(
                        "Remove the old A/AAAA records at @ and add an ALIAS (or ANAME) record to \
                         {target}. If your provider has neither, add A records for {} instead.",
                        wanted.join(", ")
                    ),
                    changes,
                    steps: Vec::new(),
                }),
                cached_until: None,
            });
        }
        return findings;
    }

    match &cname {
        Some(cname) if same_name(&cname.value, target) => {
            if own_addresses.is_empty() && beside.is_empty() {
                findings.push(correct(
                    hostname,
                    format!("{hostname} has the CNAME the platform asks for"),
                    answers,
                ));
            }
        }
        Some(cname) => {
            let doubled = cname
                .value
                .strip_prefix(&format!("{}.", target.trim_end_matches('.')))
                .is_some_and(|rest| rest == kind.zone || rest == kind.registrable_domain);
            let (code, title, detail) = if doubled {
                (
                    FindingCode::CnameTargetDoubled,
                    format!("The CNAME of {hostname} has the zone name appended"),
                    format!(
                        "It points at {}, which is {target} with {} added: the provider \
                         appended the zone because the value had no final dot.",
                        cname.value, kind.zone
                    ),
                )
            } else {
                let via = answers.a.chain_end();
                let reaches = answers.a.answers.iter().any(|record| {
                    record.record_type == "CNAME" && same_name(&record.value, target)
                });
                let note = if reaches {
                    format!(
                        " The chain reaches {target} through {} ({via} in the end), but the \
                         platform checks the CNAME itself.",
                        cname.value
                    )
                } else {
                    String::new()
                };
                (
                    FindingCode::CnameMismatch,
                    format!("The CNAME of {hostname} points elsewhere"),
                    format!(
                        "It points at {} but must point at {target}, exactly.{note}",
                        cname.value
                    ),
                )
            };
            findings.push(Finding {
                code,
                severity: Severity::Error,
                title,
                detail,
                evidence: vec![evidence(label, answers.a, None)],
                fix: Some(Fix {
                    summary: format!(
                        "Change the CNAME {} to point at {target} (with a final dot if your \
                         provider's form wants a full name: {target}.).",
                        kind.relative_name
                    ),
                    changes: vec![remove(cname), expected.clone()],
                    steps: Vec::new(),
                }),
                cached_until: None,
            });
        }
        None if !own_addresses.is_empty() => {
            let mut changes: Vec<RecordChange> = own_addresses.iter().map(remove).collect();
            changes.push(expected.clone());
            findings.push(Finding {
                code: FindingCode::ConflictingRecord,
                severity: Severity::Error,
                title: format!("An address record at {hostname} blocks the CNAME"),
                detail: format!(
                    "{hostname} has A/AAAA records ({}) and no CNAME. A CNAME cannot exist \
                     beside other records, so the old addresses must go before the CNAME to \
                     {target} can be added.",
                    own_addresses
                        .iter()
                        .map(|record| record.value.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                evidence: vec![
                    evidence(label, answers.a, None),
                    evidence(label, answers.aaaa, None),
                ],
                fix: Some(Fix {
                    summary: format!(
                        "Remove the A/AAAA records at {} and add a CNAME to {target}.",
                        kind.relative_name
                    ),
                    changes,
                    steps: Vec::new(),
                }),
                cached_until: None,
            });
        }
        None => findings.push(missing(hostname, kind, expected, answers)),
    }

    if cname.is_some() && (!own_addresses.is_empty() || !beside.is_empty()) {
        let others: Vec<DnsRecord> = own_addresses.iter().chain(beside.iter()).cloned().collect();
        findings.push(Finding {
            code: FindingCode::ConflictingRecord,
            severity: Severity::Error,
            title: format!("{hostname} has other records beside its CNAME"),
            detail: format!(
                "A name with a CNAME must have no other data (RFC 1034); resolvers answer \
                 inconsistently and verification fails. Found beside it: {}.",
                others
                    .iter()
                    .map(|record| format!("{} {}", record.record_type, record.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            evidence: answers
                .others
                .iter()
                .map(|answer| &**answer)
                .chain([answers.a, answers.aaaa])
                .filter(|answer| !answer.answers.is_empty())
                .map(|answer| evidence(label, answer, None))
                .collect(),
            fix: Some(Fix {
                summary: format!(
                    "Remove the other records at {} (move TXT or MX data to another name).",
                    kind.relative_name
                ),
                changes: others.iter().map(remove).collect(),
                steps: Vec::new(),
            }),
            cached_until: None,
        });
    }
    findings
}

fn missing(
    hostname: &str,
    kind: &NameKind,
    expected: &RecordChange,
    answers: &RecordAnswers<'_>,
) -> Finding {
    let why = if answers.a.status == AnswerStatus::NxDomain {
        "the name does not exist (NXDOMAIN)".to_owned()
    } else {
        "the name exists but has no address or CNAME record".to_owned()
    };
    Finding {
        code: FindingCode::RecordMissing,
        severity: Severity::Error,
        title: format!("{hostname} has no {} record yet", expected.record_type),
        detail: format!(
            "The zone's answer: {why}. Until the record exists the platform cannot verify the \
             domain."
        ),
        evidence: vec![evidence(answers.server_label, answers.a, None)],
        fix: Some(Fix {
            summary: format!(
                "Add {} {} record named {} with the value {} in the zone {}.",
                if expected.record_type.starts_with('A') {
                    "an"
                } else {
                    "a"
                },
                expected.record_type,
                expected.name,
                expected.value,
                kind.zone
            ),
            changes: vec![expected.clone()],
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

/// The apex's IPv4 addresses are the target's, its IPv6 ones are not: browsers and the CA
/// that prefer IPv6 reach another host.
fn aaaa_mismatch(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    found: &BTreeSet<String>,
    wanted: &BTreeSet<String>,
    answers: &RecordAnswers<'_>,
) -> Finding {
    let mut changes: Vec<RecordChange> = answers
        .aaaa
        .records(hostname, "AAAA")
        .filter(|record| !wanted.contains(&record.value))
        .map(|record| change(ChangeAction::Remove, kind, record))
        .collect();
    changes.extend(
        wanted
            .iter()
            .filter(|address| !found.contains(*address))
            .map(|address| RecordChange {
                action: ChangeAction::Add,
                zone: kind.zone.clone(),
                name: kind.relative_name.clone(),
                record_type: "AAAA".to_owned(),
                value: address.clone(),
                ttl: Some(3600),
            }),
    );
    let list = |set: &BTreeSet<String>| {
        if set.is_empty() {
            "none".to_owned()
        } else {
            set.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    };
    Finding {
        code: FindingCode::AaaaMismatch,
        severity: Severity::Error,
        title: format!("{hostname} has the right IPv4 addresses but other IPv6 addresses"),
        detail: format!(
            "Its A records match {target}, its AAAA records do not ({} instead of {}):              usually an old host's AAAA left beside a new A. The CA validates over IPv6 when              there is an AAAA record, reaches the old host and does not issue; IPv6 visitors see              the old site.",
            list(found),
            list(wanted)
        ),
        evidence: vec![
            evidence(answers.server_label, answers.a, None),
            evidence(answers.server_label, answers.aaaa, None),
            evidence(
                answers.server_label,
                answers.target_aaaa,
                Some("the target's IPv6 addresses".into()),
            ),
        ],
        fix: Some(Fix {
            summary: if wanted.is_empty() {
                format!("Remove the AAAA records at @: {target} has no IPv6 address.")
            } else {
                format!(
                    "Remove the old AAAA records at @ and use {target}'s IPv6 addresses ({}).",
                    list(wanted)
                )
            },
            changes,
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

fn correct(hostname: &str, title: String, answers: &RecordAnswers<'_>) -> Finding {
    Finding {
        code: FindingCode::RecordCorrect,
        severity: Severity::Ok,
        title,
        detail: format!("The records at {hostname} are what verification looks for."),
        evidence: vec![evidence(answers.server_label, answers.a, None)],
        fix: None,
        cached_until: None,
    }
}

fn change(action: ChangeAction, kind: &NameKind, record: &DnsRecord) -> RecordChange {
    RecordChange {
        action,
        zone: kind.zone.clone(),
        name: crate::checks::apex_or_subdomain::relative_name(&record.name, &kind.zone),
        record_type: record.record_type.to_string(),
        value: record.value.clone(),
        ttl: Some(record.ttl),
    }
}

fn values(answer: &Answer, record_type: &str) -> BTreeSet<String> {
    answer
        .records_of_type(record_type)
        .map(|record| record.value.clone())
        .collect()
}

fn same_name(left: &str, right: &str) -> bool {
    left.trim_end_matches('.')
        .eq_ignore_ascii_case(right.trim_end_matches('.'))
}

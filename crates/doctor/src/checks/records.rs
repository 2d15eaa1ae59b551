//! The records at the name, judged the way the platform's verification judges them: a
//! subdomain needs a CNAME equal to the target and nothing beside it; an apex needs A/AAAA
//! answers exactly equal to the target's (what an ALIAS flattens to).
//!
//! A fix removes what blocks the record (old addresses, a wrong CNAME) and never the name's
//! mail or verification records: MX and TXT records beside a CNAME are listed to keep, and
//! which of the two keeps the name is the customer's choice (`records_at_name.rs` says what
//! else lives at a name a fix changes).
//!
//! It is longer than the house's 500 lines with its tests (about 460 of code, 100 of tests): it
//! is one judgement, the verification's rule for a subdomain and for an apex, and about half
//! of it is the words of each outcome's finding and fix (a CNAME at an apex, other addresses,
//! an AAAA that differs, nothing, data beside a CNAME). What else lives at the name is apart
//! already (`records_at_name.rs`), as are the other checks of a name (`checks/`).

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
            fix: Some(beside_cname_fix(hostname, kind, &own_addresses, &beside)),
            cached_until: None,
        });
    }
    findings
}

/// The fix for records beside a CNAME: address records go, the CNAME replaces them. MX and
/// TXT records are listed to keep, not removed: removing them stops the name's mail or breaks
/// the service that reads them, and whether the site or the mail keeps the name is the
/// customer's choice, not the doctor's.
fn beside_cname_fix(
    hostname: &str,
    kind: &NameKind,
    addresses: &[DnsRecord],
    data: &[DnsRecord],
) -> Fix {
    let relative = &kind.relative_name;
    let mut changes: Vec<RecordChange> = addresses
        .iter()
        .map(|record| change(ChangeAction::Remove, kind, record))
        .collect();
    changes.extend(
        data.iter()
            .map(|record| change(ChangeAction::Keep, kind, record)),
    );
    let mut summary = if addresses.is_empty() {
        String::new()
    } else {
        format!("Remove the A/AAAA records at {relative}: the CNAME replaces them.")
    };
    if !data.is_empty() {
        let mut types: Vec<&str> = data
            .iter()
            .map(|record| record.record_type.as_ref())
            .collect();
        types.dedup();
        let what = if types.contains(&"MX") {
            format!("the mail for @{hostname}")
        } else {
            "what the services that read them check".to_owned()
        };
        if !summary.is_empty() {
            summary.push(' ');
        }
        summary.push_str(&format!(
            "The {} records at {relative} cannot share the name with its CNAME (resolvers that \
             hold the CNAME answer with its target's records instead), and removing them ends \
             {what}. To keep them, point another name at the platform and remove the CNAME \
             here; to keep the site at {hostname}, remove them once nothing needs them.",
            types.join(" and ")
        ));
    }
    Fix {
        summary,
        changes,
        steps: Vec::new(),
    }
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
            "Its A records match {target}, its AAAA records do not ({} instead of {}): \
             usually an old host's AAAA left beside a new A. The CA validates over IPv6 when \
             there is an AAAA record, reaches the old host and does not issue; IPv6 visitors see \
             the old site.",
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

#[cfg(test)]
mod tests {
    use hickory_proto::op::ResponseCode;

    use super::*;

    const TARGET: &str = "edge.platform.example.net";

    fn answer(kind: &'static str, records: &[(&str, &'static str, &str)]) -> Answer {
        Answer::answered(
            "192.0.2.53:53".to_owned(),
            "mixed.example.com".to_owned(),
            kind,
            ResponseCode::NoError,
            true,
            records
                .iter()
                .map(|(name, record_type, value)| DnsRecord {
                    name: (*name).to_owned(),
                    record_type: (*record_type).into(),
                    ttl: 300,
                    value: (*value).to_owned(),
                })
                .collect(),
            Vec::new(),
        )
    }

    /// A CNAME with an A record, mail and SPF beside it: the A record goes, the mail and the
    /// SPF record are kept and the choice is said, never removed behind the customer's back.
    #[test]
    fn records_beside_a_cname_keep_the_mail() {
        let kind = NameKind {
            apex: false,
            registrable_apex: false,
            zone_apex: Some(false),
            public_suffix: "com".to_owned(),
            registrable_domain: "example.com".to_owned(),
            zone: "example.com".to_owned(),
            relative_name: "mixed".to_owned(),
        };
        let cname = ("mixed.example.com", "CNAME", TARGET);
        let a = answer("A", &[cname, ("mixed.example.com", "A", "192.0.2.10")]);
        let aaaa = answer("AAAA", &[cname]);
        let others = [
            Arc::new(answer(
                "TXT",
                &[("mixed.example.com", "TXT", "\"v=spf1 -all\"")],
            )),
            Arc::new(answer(
                "MX",
                &[("mixed.example.com", "MX", "10 mx.example.net")],
            )),
        ];
        let target_a = answer("A", &[(TARGET, "A", "192.0.2.1")]);
        let target_aaaa = answer("AAAA", &[]);
        let expected = crate::checks::apex_or_subdomain::expected_record(&kind, TARGET);
        let findings = check(
            "mixed.example.com",
            &kind,
            TARGET,
            &expected,
            &RecordAnswers {
                server_label: "ns1.example.com",
                a: &a,
                aaaa: &aaaa,
                cname: &answer("CNAME", &[cname]),
                others: &others,
                target_a: &target_a,
                target_aaaa: &target_aaaa,
            },
        );
        let beside = findings
            .iter()
            .find(|finding| finding.title == "mixed.example.com has other records beside its CNAME")
            .expect("the records beside the CNAME");
        let fix = beside.fix.as_ref().unwrap();
        let changes: Vec<(ChangeAction, &str, &str)> = fix
            .changes
            .iter()
            .map(|change| {
                (
                    change.action,
                    change.record_type.as_str(),
                    change.value.as_str(),
                )
            })
            .collect();
        assert_eq!(
            changes,
            [
                (ChangeAction::Remove, "A", "192.0.2.10"),
                (ChangeAction::Keep, "TXT", "\"v=spf1 -all\""),
                (ChangeAction::Keep, "MX", "10 mx.example.net"),
            ]
        );
        assert!(
            fix.summary.starts_with(
                "Remove the A/AAAA records at mixed: the CNAME replaces them. The TXT and MX \
                 records at mixed cannot share the name with its CNAME"
            ) && fix
                .summary
                .contains("removing them ends the mail for @mixed.example.com"),
            "{}",
            fix.summary
        );
    }
}

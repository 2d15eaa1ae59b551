//! Records that must stay: a fix that replaces the records at a name (an apex's A records by
//! an ALIAS, old addresses by the platform's CNAME, a CNAME at an apex by an ALIAS) says what
//! else lives at that name — MX, SPF and verification TXT, CAA — and that it stays.
//!
//! Each such fix gets a `keep` change for every one of those records. An ALIAS, or A records,
//! stand beside them; a CNAME cannot (RFC 1034): a provider refuses to add it beside other
//! records (as the demo DNS does) or drops them, and a customer who follows the fix loses the
//! mail of the name. So where a fix adds a CNAME at a name that has MX, TXT or CAA records, a
//! `records_at_name` finding says what would be lost and the way out, and the fix itself
//! points at it: the doctor never advises a change that silently drops mail.
//!
//! The answers are those `host.rs` already has: the name's TXT and MX answers (asked beside
//! its CNAME) and the CAA climb's first step.
//!
//! It is longer than the house's 500 lines with its tests (about 270 of code, 345 of tests):
//! the code is one rule, and its five tests build a name's records, answers and fixes from the
//! same builders (`record`, `answer`, `kind`, `change`, `with_fix`, `shop_answers`), which
//! rustfmt spreads over many lines, and check each fix change by change. The record the fix
//! itself changes is judged apart already (`records.rs`).

use std::sync::Arc;

use crate::checks::challenge_labels::txt_text;
use crate::checks::evidence;
use crate::dns::{Answer, DnsRecord};
use crate::report::{
    CaaClimb, ChangeAction, Evidence, Finding, FindingCode, Fix, NameKind, RecordChange, Severity,
};

/// The record types a fix replaces at a name: the ones that point it somewhere.
const POINTING: [&str; 5] = ["A", "AAAA", "CNAME", "ALIAS", "ANAME"];

/// What a fix has to keep at the name, from the answers `host.rs` holds.
pub struct NameRecords<'a> {
    /// The name's TXT and MX answers from the server judged (`detail_answers[1..]`).
    pub others: &'a [Arc<Answer>],
    /// The CAA climb: its step at the name holds the name's own CAA records.
    pub caa: Option<&'a CaaClimb>,
    pub server_label: &'a str,
}

/// The MX, TXT and CAA records owned by `hostname` itself (not its CNAME target's), sorted,
/// each once.
pub fn records_at(hostname: &str, records: &NameRecords<'_>) -> Vec<DnsRecord> {
    let mut found: Vec<DnsRecord> = records
        .others
        .iter()
        .flat_map(|answer| answer.answers.iter())
        .filter(|record| {
            matches!(record.record_type.as_ref(), "MX" | "TXT") && record.name == hostname
        })
        .cloned()
        .collect();
    if let Some(step) = records
        .caa
        .and_then(|climb| climb.steps.first())
        .filter(|step| step.name == hostname && step.via_cname.is_none())
    {
        found.extend(
            step.records
                .iter()
                .filter(|record| record.record_type == "CAA" && record.name == hostname)
                .cloned(),
        );
    }
    found.sort_by(|left, right| {
        (order(&left.record_type), &left.value).cmp(&(order(&right.record_type), &right.value))
    });
    found
        .dedup_by(|left, right| left.record_type == right.record_type && left.value == right.value);
    found
}

/// MX first (mail), then TXT, then CAA.
fn order(record_type: &str) -> u8 {
    match record_type {
        "MX" => 0,
        "TXT" => 1,
        _ => 2,
    }
}

/// A record's value in a change, as every fix gives it: its presentation form (a TXT record
/// quoted and escaped as `dig` shows it).
fn form_value(record: &DnsRecord) -> String {
    record.value.clone()
}

/// What a record at the name is for, in a few words.
fn purpose(record: &DnsRecord, hostname: &str) -> String {
    match record.record_type.as_ref() {
        "MX" => format!("mail for @{hostname} is delivered to it"),
        "CAA" => "it says which CAs may issue certificates for the name".to_owned(),
        _ => {
            let text = txt_text(&record.value);
            if text.to_ascii_lowercase().starts_with("v=spf1") {
                format!("SPF: it names the servers allowed to send mail as @{hostname}")
            } else if text.contains("verification") || text.contains("verify") {
                "a verification string a service checks to prove control of the name".to_owned()
            } else {
                "a TXT record a service reads".to_owned()
            }
        }
    }
}

/// `MX 10 mx.example.net`, `TXT "v=spf1 -all"`.
fn shown(record: &DnsRecord) -> String {
    format!("{} {}", record.record_type, record.value)
}

/// Whether `change` replaces what the name points at.
fn points_the_name(change: &RecordChange, kind: &NameKind) -> bool {
    change.zone == kind.zone
        && change.name == kind.relative_name
        && change.action != ChangeAction::Keep
        && POINTING.contains(&change.record_type.as_str())
}

/// Whether `change` is `record` at the name.
fn is_record(change: &RecordChange, kind: &NameKind, record: &DnsRecord) -> bool {
    change.zone == kind.zone
        && change.name == kind.relative_name
        && change.record_type == record.record_type
        && (change.value == record.value || change.value == txt_text(&record.value))
}

/// Adds a `keep` change for each MX, TXT and CAA record at `hostname` to every fix in
/// `findings` that replaces what the name points at; where such a fix adds a CNAME, or would
/// remove one of those records, returns the `records_at_name` finding that says what would
/// be lost, and the fix that adds the CNAME says so too.
pub fn check(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    records: &NameRecords<'_>,
    findings: &mut [Finding],
) -> Option<Finding> {
    let at_name = records_at(hostname, records);
    if at_name.is_empty() {
        return None;
    }
    let mut displaced: Vec<DnsRecord> = Vec::new();
    let mut adds_cname = false;
    for fix in findings
        .iter_mut()
        .filter(|finding| finding.code != FindingCode::RecordsAtName)
        .filter_map(|finding| finding.fix.as_mut())
        .filter(|fix| {
            fix.changes
                .iter()
                .any(|change| points_the_name(change, kind))
        })
    {
        let cname = fix.changes.iter().any(|change| {
            points_the_name(change, kind)
                && change.action == ChangeAction::Add
                && change.record_type == "CNAME"
        });
        let mut kept = Vec::new();
        for record in &at_name {
            let removed = fix.changes.iter().any(|change| {
                change.action == ChangeAction::Remove && is_record(change, kind, record)
            });
            if removed || cname {
                if !displaced.contains(record) {
                    displaced.push(record.clone());
                }
                if removed {
                    continue;
                }
            }
            let listed = fix.changes.iter().any(|change| {
                change.action == ChangeAction::Keep && is_record(change, kind, record)
            });
            if !listed {
                kept.push(RecordChange {
                    action: ChangeAction::Keep,
                    zone: kind.zone.clone(),
                    name: kind.relative_name.clone(),
                    record_type: record.record_type.to_string(),
                    value: form_value(record),
                    ttl: Some(record.ttl),
                });
            }
        }
        let types = types_of(&at_name);
        if cname {
            adds_cname = true;
            fix.summary.push_str(&format!(
                " But {hostname} also has {types} records, which a CNAME cannot stand beside: \
                 read the finding about them before changing anything."
            ));
        } else if !kept.is_empty() {
            fix.summary.push_str(&format!(
                " Leave the {types} records at {} as they are.",
                kind.relative_name
            ));
        }
        fix.changes.extend(kept);
    }
    if displaced.is_empty() {
        return None;
    }
    Some(finding(
        hostname, kind, target, records, &at_name, &displaced, adds_cname,
    ))
}

/// `MX and TXT`, `TXT`, `MX, TXT and CAA`.
fn types_of(records: &[DnsRecord]) -> String {
    let mut types: Vec<&str> = Vec::new();
    for record in records {
        if !types.contains(&record.record_type.as_ref()) {
            types.push(record.record_type.as_ref());
        }
    }
    match types.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn finding(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    records: &NameRecords<'_>,
    at_name: &[DnsRecord],
    displaced: &[DnsRecord],
    adds_cname: bool,
) -> Finding {
    let mail = displaced.iter().any(|record| record.record_type == "MX");
    let data = displaced
        .iter()
        .any(|record| matches!(record.record_type.as_ref(), "MX" | "TXT"));
    let types = types_of(displaced);
    let title = if mail {
        format!("A CNAME at {hostname} would take its mail with it: it has {types} records")
    } else if adds_cname {
        format!("A CNAME at {hostname} cannot stand beside its {types} records")
    } else {
        format!("The fix for {hostname} would remove its {types} records")
    };
    let listed: Vec<String> = displaced
        .iter()
        .map(|record| format!("{} ({})", shown(record), purpose(record, hostname)))
        .collect();
    let consequence = if mail {
        format!(" Without them mail to @{hostname} stops arriving.")
    } else if displaced.iter().any(|record| record.record_type == "TXT") {
        " Without them the services that read them fail.".to_owned()
    } else {
        " Without them the CAA policy of the CNAME's target applies instead.".to_owned()
    };
    let detail = if adds_cname {
        format!(
            "The record the platform asks for at {hostname} is a CNAME to {target}, and a \
             CNAME cannot stand beside other records (RFC 1034): the DNS provider refuses to \
             add it, or drops these: {}.{consequence} The platform verifies a subdomain by its \
             CNAME alone, so the name cannot have both.",
            listed.join("; ")
        )
    } else {
        format!(
            "The fix as given would remove these records at {hostname}: {}.{consequence}",
            listed.join("; ")
        )
    };
    let summary = if adds_cname {
        format!(
            "Keep the {} records at {}, and do not add the CNAME there. Attach another name to \
             the project instead, one that holds no mail records (www.{hostname}, for \
             example), with a CNAME to {target}. An ALIAS record or a flattened CNAME would \
             keep them, but the platform does not verify a subdomain by its addresses.",
            types_of(at_name),
            kind.relative_name
        )
    } else {
        format!(
            "Keep the {} records at {}: remove only the address records the fix names.",
            types_of(at_name),
            kind.relative_name
        )
    };
    let evidence: Vec<Evidence> = records
        .others
        .iter()
        .filter(|answer| answer.answers.iter().any(|record| record.name == hostname))
        .map(|answer| evidence(records.server_label, answer, None))
        .collect();
    Finding {
        code: FindingCode::RecordsAtName,
        severity: if data {
            Severity::Error
        } else {
            Severity::Warning
        },
        title,
        detail,
        evidence,
        fix: Some(Fix {
            summary,
            changes: at_name
                .iter()
                .map(|record| RecordChange {
                    action: ChangeAction::Keep,
                    zone: kind.zone.clone(),
                    name: kind.relative_name.clone(),
                    record_type: record.record_type.to_string(),
                    value: form_value(record),
                    ttl: Some(record.ttl),
                })
                .collect(),
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

#[cfg(test)]
mod tests {
    use hickory_proto::op::ResponseCode;

    use super::*;
    use crate::dns::AnswerStatus;
    use crate::report::CaaStep;

    fn record(name: &str, record_type: &'static str, value: &str) -> DnsRecord {
        DnsRecord {
            name: name.to_owned(),
            record_type: record_type.into(),
            ttl: 300,
            value: value.to_owned(),
        }
    }

    fn answer(name: &str, kind: &'static str, records: Vec<DnsRecord>) -> Arc<Answer> {
        Arc::new(Answer::answered(
            "192.0.2.53:53".to_owned(),
            name.to_owned(),
            kind,
            ResponseCode::NoError,
            true,
            records,
            Vec::new(),
        ))
    }

    fn kind(relative: &str, apex: bool) -> NameKind {
        NameKind {
            apex,
            registrable_apex: apex,
            zone_apex: Some(apex),
            public_suffix: "com".to_owned(),
            registrable_domain: "example.com".to_owned(),
            zone: "example.com".to_owned(),
            relative_name: relative.to_owned(),
        }
    }

    fn change(action: ChangeAction, name: &str, record_type: &str, value: &str) -> RecordChange {
        RecordChange {
            action,
            zone: "example.com".to_owned(),
            name: name.to_owned(),
            record_type: record_type.to_owned(),
            value: value.to_owned(),
            ttl: Some(3600),
        }
    }

    fn with_fix(code: FindingCode, changes: Vec<RecordChange>) -> Finding {
        Finding {
            code,
            severity: Severity::Error,
            title: "t".to_owned(),
            detail: "d".to_owned(),
            evidence: Vec::new(),
            fix: Some(Fix {
                summary: "Do it.".to_owned(),
                changes,
                steps: Vec::new(),
            }),
            cached_until: None,
        }
    }

    const TARGET: &str = "edge.platform.example.net";

    /// `shop.example.com`: an old A record, mail, SPF and a verification string.
    fn shop_answers() -> Vec<Arc<Answer>> {
        vec![
            answer(
                "shop.example.com",
                "TXT",
                vec![
                    record(
                        "shop.example.com",
                        "TXT",
                        "\"v=spf1 include:_spf.mail.example -all\"",
                    ),
                    record(
                        "shop.example.com",
                        "TXT",
                        "\"google-site-verification=abc\"",
                    ),
                ],
            ),
            answer(
                "shop.example.com",
                "MX",
                vec![record("shop.example.com", "MX", "10 mx1.mail.example")],
            ),
        ]
    }

    #[test]
    fn a_cname_where_mail_lives_is_an_error_and_the_fix_keeps_the_mail() {
        let kind = kind("shop", false);
        let others = shop_answers();
        let records = NameRecords {
            others: &others,
            caa: None,
            server_label: "ns1.example.com",
        };
        let mut findings = vec![with_fix(
            FindingCode::ConflictingRecord,
            vec![
                change(ChangeAction::Remove, "shop", "A", "192.0.2.10"),
                change(ChangeAction::Add, "shop", "CNAME", TARGET),
            ],
        )];
        let found = check("shop.example.com", &kind, TARGET, &records, &mut findings)
            .expect("a finding about the mail");
        assert_eq!(found.code, FindingCode::RecordsAtName);
        assert_eq!(found.severity, Severity::Error);
        assert_eq!(
            found.title,
            "A CNAME at shop.example.com would take its mail with it: it has MX and TXT records"
        );
        assert!(
            found
                .detail
                .contains("MX 10 mx1.mail.example (mail for @shop.example.com is delivered to it)"),
            "{}",
            found.detail
        );
        assert!(
            found.detail.contains("SPF: it names the servers"),
            "{}",
            found.detail
        );
        assert!(
            found.detail.contains("a verification string"),
            "{}",
            found.detail
        );
        assert!(
            found
                .detail
                .contains("Without them mail to @shop.example.com stops arriving."),
            "{}",
            found.detail
        );
        let fix = found.fix.as_ref().unwrap();
        assert!(
            fix.summary.starts_with(
                "Keep the MX and TXT records at shop, and do not add the CNAME there."
            ),
            "{}",
            fix.summary
        );
        assert!(
            fix.changes
                .iter()
                .all(|kept| kept.action == ChangeAction::Keep)
        );
        assert_eq!(
            fix.changes
                .iter()
                .map(|kept| (kept.record_type.as_str(), kept.value.as_str()))
                .collect::<Vec<_>>(),
            [
                ("MX", "10 mx1.mail.example"),
                ("TXT", "\"google-site-verification=abc\""),
                ("TXT", "\"v=spf1 include:_spf.mail.example -all\""),
            ]
        );
        assert_eq!(found.evidence.len(), 2);

        // the fix that adds the CNAME lists what must stay, and says why it cannot as it is
        let conflicting = findings[0].fix.as_ref().unwrap();
        let actions: Vec<(ChangeAction, &str)> = conflicting
            .changes
            .iter()
            .map(|change| (change.action, change.record_type.as_str()))
            .collect();
        assert_eq!(
            actions,
            [
                (ChangeAction::Remove, "A"),
                (ChangeAction::Add, "CNAME"),
                (ChangeAction::Keep, "MX"),
                (ChangeAction::Keep, "TXT"),
                (ChangeAction::Keep, "TXT"),
            ]
        );
        assert!(
            conflicting
                .summary
                .contains("But shop.example.com also has MX and TXT records, which a CNAME cannot stand beside"),
            "{}",
            conflicting.summary
        );
    }

    #[test]
    fn an_alias_at_the_apex_keeps_the_mail_and_the_caa_without_a_finding() {
        let kind = kind("@", true);
        let others = vec![answer(
            "example.com",
            "MX",
            vec![record("example.com", "MX", "10 mx1.mail.example")],
        )];
        let climb = CaaClimb {
            server: "ns1.example.com".to_owned(),
            steps: vec![CaaStep {
                name: "example.com".to_owned(),
                status: AnswerStatus::NoError,
                records: vec![record("example.com", "CAA", "0 issue \"letsencrypt.org\"")],
                via_cname: None,
                note: None,
            }],
            deciding_name: Some("example.com".to_owned()),
            decision: None,
        };
        let records = NameRecords {
            others: &others,
            caa: Some(&climb),
            server_label: "ns1.example.com",
        };
        let mut findings = vec![with_fix(
            FindingCode::ApexAddressMismatch,
            vec![
                change(ChangeAction::Remove, "@", "A", "192.0.2.20"),
                change(ChangeAction::Add, "@", "ALIAS", TARGET),
            ],
        )];
        assert_eq!(
            check("example.com", &kind, TARGET, &records, &mut findings),
            None
        );
        let fix = findings[0].fix.as_ref().unwrap();
        assert_eq!(
            fix.changes[2..],
            [
                change(ChangeAction::Keep, "@", "MX", "10 mx1.mail.example"),
                change(
                    ChangeAction::Keep,
                    "@",
                    "CAA",
                    "0 issue \"letsencrypt.org\""
                ),
            ]
            .map(|mut kept| {
                kept.ttl = Some(300);
                kept
            })
        );
        assert!(
            fix.summary
                .ends_with(" Leave the MX and CAA records at @ as they are."),
            "{}",
            fix.summary
        );
        // asked again, nothing is listed twice
        check("example.com", &kind, TARGET, &records, &mut findings);
        assert_eq!(findings[0].fix.as_ref().unwrap().changes.len(), 4);
    }

    #[test]
    fn a_fix_that_removes_mail_is_named() {
        let kind = kind("shop", false);
        let others = shop_answers();
        let records = NameRecords {
            others: &others,
            caa: None,
            server_label: "ns1.example.com",
        };
        let mut findings = vec![with_fix(
            FindingCode::ConflictingRecord,
            vec![
                change(ChangeAction::Remove, "shop", "A", "192.0.2.10"),
                change(ChangeAction::Remove, "shop", "MX", "10 mx1.mail.example"),
            ],
        )];
        let found = check("shop.example.com", &kind, TARGET, &records, &mut findings).unwrap();
        assert_eq!(found.severity, Severity::Error);
        assert!(found.detail.starts_with("The fix as given would remove these records at shop.example.com: MX 10 mx1.mail.example"), "{}", found.detail);
        // the records the fix does not remove are kept, the removed one is not listed to keep
        let kept: Vec<&str> = findings[0]
            .fix
            .as_ref()
            .unwrap()
            .changes
            .iter()
            .filter(|change| change.action == ChangeAction::Keep)
            .map(|change| change.record_type.as_str())
            .collect();
        assert_eq!(kept, ["TXT", "TXT"]);
    }

    #[test]
    fn only_the_names_own_records_count() {
        let kind = kind("www", false);
        // the TXT and MX answers of a name that is a CNAME hold its target's records
        let others = vec![
            answer(
                "www.example.com",
                "TXT",
                vec![
                    record("www.example.com", "CNAME", "old-host.example.net"),
                    record("old-host.example.net", "TXT", "\"v=spf1 -all\""),
                ],
            ),
            answer("www.example.com", "MX", Vec::new()),
        ];
        let records = NameRecords {
            others: &others,
            caa: None,
            server_label: "ns1.example.com",
        };
        let mut findings = vec![with_fix(
            FindingCode::CnameMismatch,
            vec![
                change(ChangeAction::Remove, "www", "CNAME", "old-host.example.net"),
                change(ChangeAction::Add, "www", "CNAME", TARGET),
            ],
        )];
        let before = findings.clone();
        assert_eq!(
            check("www.example.com", &kind, TARGET, &records, &mut findings),
            None
        );
        assert_eq!(findings, before);
    }

    #[test]
    fn caa_alone_beside_a_new_cname_is_a_warning() {
        let kind = kind("shop", false);
        let climb = CaaClimb {
            server: "ns1.example.com".to_owned(),
            steps: vec![CaaStep {
                name: "shop.example.com".to_owned(),
                status: AnswerStatus::NoError,
                records: vec![record(
                    "shop.example.com",
                    "CAA",
                    "0 issue \"letsencrypt.org\"",
                )],
                via_cname: None,
                note: None,
            }],
            deciding_name: Some("shop.example.com".to_owned()),
            decision: None,
        };
        let records = NameRecords {
            others: &[],
            caa: Some(&climb),
            server_label: "ns1.example.com",
        };
        let mut findings = vec![with_fix(
            FindingCode::RecordMissing,
            vec![change(ChangeAction::Add, "shop", "CNAME", TARGET)],
        )];
        let found = check("shop.example.com", &kind, TARGET, &records, &mut findings).unwrap();
        assert_eq!(found.severity, Severity::Warning);
        assert_eq!(
            found.title,
            "A CNAME at shop.example.com cannot stand beside its CAA records"
        );
    }
}

//! Challenge records at the wrong name: the ownership TXT record (`_domain-desk-challenge`
//! under the hostname, which proves control of a name another account holds) and the
//! `_acme-challenge` CNAME (the delegation the CA's DNS validation follows before the switch)
//! each belong at one exact name. Two mistakes put them elsewhere, and the platform and the CA
//! then see nothing:
//!
//! - the full name typed into a provider's Name field that appends the zone:
//!   `_domain-desk-challenge.www.example.com.example.com`;
//! - the subdomain left out, so the record sits at the apex: `_domain-desk-challenge.example.com`
//!   for `www.example.com`.
//!
//! When a challenge record is missing at its name, the doctor asks both wrong names (all the
//! questions go out at once) and, for one that holds the record, says so with the exact fix:
//! remove it there, add it at the right name, both named as the provider's form asks for
//! them (relative to the zone).
//!
//! An `_acme-challenge` CNAME at the apex is often the apex's own delegation (for its
//! certificate or a wildcard's): it counts only when its value names the hostname, as the
//! platform's delegation target does (`www.example.com.<validation zone>`). The ownership
//! token names no hostname, so a TXT record at the apex counts as soon as the hostname has
//! none; the finding says to keep it when it is the apex's own.

use std::net::SocketAddr;

use futures::future::join_all;
use hickory_proto::rr::RecordType;

use crate::checks::apex_or_subdomain::relative_name;
use crate::checks::evidence;
use crate::dns::{Answer, DnsRecord, QueryEngine};
use crate::report::{ChangeAction, Finding, FindingCode, Fix, NameKind, RecordChange, Severity};

/// The label under the hostname where the ownership challenge's TXT record goes (the
/// service's `CHALLENGE_LABEL`).
pub const OWNERSHIP_LABEL: &str = "_domain-desk-challenge";
/// What the ownership TXT value starts with; the token follows.
pub const OWNERSHIP_PREFIX: &str = "domain-desk-challenge=";
/// The label under the hostname where the CA looks for its DNS-01 token, which the platform
/// asks to be a CNAME into its validation zone.
pub const ACME_LABEL: &str = "_acme-challenge";

/// One of the two challenge records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Challenge {
    Ownership,
    Acme,
}

impl Challenge {
    fn label(self) -> &'static str {
        match self {
            Challenge::Ownership => OWNERSHIP_LABEL,
            Challenge::Acme => ACME_LABEL,
        }
    }

    fn record_type(self) -> RecordType {
        match self {
            Challenge::Ownership => RecordType::TXT,
            Challenge::Acme => RecordType::CNAME,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Challenge::Ownership => "ownership TXT record",
            Challenge::Acme => "_acme-challenge CNAME",
        }
    }

    /// The name the record belongs at for `hostname`. A wildcard's delegation is the one of
    /// the name under it (`_acme-challenge.shop.example.com` for `*.shop.example.com`).
    fn right_name(self, hostname: &str) -> String {
        let base = match self {
            Challenge::Acme => hostname.strip_prefix("*.").unwrap_or(hostname),
            Challenge::Ownership => hostname,
        };
        format!("{}.{base}", self.label())
    }
}

/// Where a challenge record was found instead of its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Misplaced {
    /// The zone appended to the full name.
    ZoneAppended,
    /// At the zone's apex, without the subdomain.
    Apex,
}

/// The challenge record `challenge` that `answer` holds at `owner`, if it does: a TXT value
/// starting with the ownership prefix, or a CNAME (at the apex, only one whose value names
/// `hostname`).
fn held<'a>(
    challenge: Challenge,
    answer: &'a Answer,
    owner: &'a str,
    hostname: &str,
    place: Option<Misplaced>,
) -> Option<&'a DnsRecord> {
    match challenge {
        Challenge::Ownership => answer
            .records(owner, "TXT")
            .find(|record| txt_text(&record.value).starts_with(OWNERSHIP_PREFIX)),
        Challenge::Acme => answer.cname_of(owner).filter(|record| {
            place != Some(Misplaced::Apex) || {
                let base = hostname.strip_prefix("*.").unwrap_or(hostname);
                record
                    .value
                    .to_ascii_lowercase()
                    .starts_with(&format!("{base}."))
            }
        }),
    }
}

/// A TXT record's text from its presentation form (`"a" "b"`, quoted and escaped as `dig`
/// shows it): the strings joined, quotes and escapes undone, as a provider's form takes it.
pub fn txt_text(presentation: &str) -> String {
    let mut text = String::with_capacity(presentation.len());
    let mut characters = presentation.chars();
    let mut quoted = false;
    while let Some(character) = characters.next() {
        match character {
            '"' => quoted = !quoted,
            '\\' => {
                let rest = characters.as_str();
                let digits: String = rest.chars().take(3).collect();
                if digits.len() == 3 && digits.chars().all(|digit| digit.is_ascii_digit()) {
                    if let Some(byte) = digits.parse::<u8>().ok().map(char::from) {
                        text.push(byte);
                    }
                    characters.nth(2);
                } else if let Some(escaped) = characters.next() {
                    text.push(escaped);
                }
            }
            ' ' if !quoted => {}
            other => text.push(other),
        }
    }
    text
}

/// The challenge records of `hostname` (in `kind`'s zone) found at a wrong name while its
/// own name has none, each with the fix: asked of `server` (the zone's own nameserver, or
/// the resolver judged), all at once.
pub async fn check(
    engine: &QueryEngine,
    server: SocketAddr,
    recursive: bool,
    server_label: &str,
    hostname: &str,
    kind: &NameKind,
) -> Vec<Finding> {
    let zone = kind.zone.as_str();
    let mut questions: Vec<(Challenge, Option<Misplaced>, String)> = Vec::new();
    for challenge in [Challenge::Ownership, Challenge::Acme] {
        let right = challenge.right_name(hostname);
        questions.push((challenge, None, right.clone()));
        questions.push((
            challenge,
            Some(Misplaced::ZoneAppended),
            format!("{right}.{zone}"),
        ));
        let apex = format!("{}.{zone}", challenge.label());
        if apex != right {
            questions.push((challenge, Some(Misplaced::Apex), apex));
        }
    }
    let answers =
        join_all(questions.iter().map(|(challenge, _, name)| {
            engine.ask(server, recursive, name, challenge.record_type())
        }))
        .await;

    let mut findings = Vec::new();
    for challenge in [Challenge::Ownership, Challenge::Acme] {
        let asked: Vec<(&Option<Misplaced>, &String, &Answer)> = questions
            .iter()
            .zip(&answers)
            .filter(|((of, _, _), _)| *of == challenge)
            .map(|((_, place, name), answer)| (place, name, &**answer))
            .collect();
        let Some((_, right, right_answer)) = asked.iter().find(|(place, _, _)| place.is_none())
        else {
            continue;
        };
        // Only a record where it belongs, or no answer at all, ends the look: a failing
        // server is the health check's to report.
        if !right_answer.status.is_answer()
            || held(challenge, right_answer, right, hostname, None).is_some()
        {
            continue;
        }
        let found: Vec<(Misplaced, &String, &Answer, &DnsRecord)> = asked
            .iter()
            .filter_map(|(place, name, answer)| {
                let place = (*place).as_ref().copied()?;
                held(challenge, answer, name, hostname, Some(place))
                    .map(|record| (place, *name, *answer, record))
            })
            .collect();
        if let Some(finding) = misplaced(
            challenge,
            hostname,
            kind,
            server_label,
            right,
            right_answer,
            &found,
        ) {
            findings.push(finding);
        }
    }
    findings
}

/// The finding for `challenge`'s record found at the names in `found` instead of `right`.
fn misplaced(
    challenge: Challenge,
    hostname: &str,
    kind: &NameKind,
    server_label: &str,
    right: &str,
    right_answer: &Answer,
    found: &[(Misplaced, &String, &Answer, &DnsRecord)],
) -> Option<Finding> {
    let (first_place, first_name, _, first_record) = found.first()?;
    let zone = kind.zone.as_str();
    let record_type = challenge.record_type().to_string();
    // As every fix gives a value: in presentation form (a TXT record quoted, as `dig` shows
    // it).
    let value = |record: &DnsRecord| record.value.clone();
    let right_relative = relative_name(right, zone);
    let mut changes: Vec<RecordChange> = found
        .iter()
        .map(|(_, name, _, record)| RecordChange {
            action: ChangeAction::Remove,
            zone: zone.to_owned(),
            name: relative_name(name, zone),
            record_type: record_type.clone(),
            value: value(record),
            ttl: Some(record.ttl),
        })
        .collect();
    changes.push(RecordChange {
        action: ChangeAction::Add,
        zone: zone.to_owned(),
        name: right_relative.clone(),
        record_type: record_type.clone(),
        value: value(first_record),
        ttl: Some(first_record.ttl),
    });

    let what = challenge.what();
    let title = match first_place {
        Misplaced::ZoneAppended => {
            format!("The {what} for {hostname} is at {first_name}: the zone name was appended")
        }
        Misplaced::Apex => format!(
            "The {what} for {hostname} is at the apex ({first_name}), not under the subdomain"
        ),
    };
    let causes: Vec<String> = found
        .iter()
        .map(|(place, name, _, _)| match place {
            Misplaced::ZoneAppended => format!(
                "it is at {name}, because the full name was typed into a Name field that \
                 appends {zone} itself"
            ),
            Misplaced::Apex => format!(
                "it is at {name}, the zone's apex: the name was made without the subdomain \
                 part ({right_relative} in the zone {zone})"
            ),
        })
        .collect();
    let purpose = match challenge {
        Challenge::Ownership => {
            "Until it is there the platform cannot see the proof, and the name stays with the \
             account that holds it."
        }
        Challenge::Acme => {
            "Until it is there the CA cannot validate the name by DNS, so no certificate can be \
             issued before the routing record points at the platform."
        }
    };
    let apex_caveat = if challenge == Challenge::Ownership
        && found
            .iter()
            .any(|(place, _, _, _)| *place == Misplaced::Apex)
    {
        format!(
            " If the record at {OWNERSHIP_LABEL}.{zone} is the challenge of {zone} itself, keep \
             it and add this one beside it."
        )
    } else {
        String::new()
    };
    let detail = format!(
        "The platform looks for it at {right}, which has none ({}); {}. {purpose}{apex_caveat}",
        if right_answer.status == crate::dns::AnswerStatus::NxDomain {
            "no such name"
        } else {
            "no such record"
        },
        causes.join("; ")
    );
    let removals: Vec<String> = found
        .iter()
        .map(|(_, name, _, _)| relative_name(name, zone))
        .collect();
    let summary = format!(
        "In the zone {zone}, remove the {record_type} record named {} and add it as \
         {right_relative} with the same value{}.",
        removals.join(" and "),
        if found
            .iter()
            .any(|(place, _, _, _)| *place == Misplaced::ZoneAppended)
        {
            format!(" (type only {right_relative}: the provider appends .{zone} itself)")
        } else {
            String::new()
        }
    );
    let mut shown = vec![evidence(
        server_label,
        right_answer,
        Some("where the record belongs".to_owned()),
    )];
    shown.extend(found.iter().map(|(_, _, answer, _)| {
        evidence(server_label, answer, Some("where it was found".to_owned()))
    }));
    Some(Finding {
        code: FindingCode::ChallengeAtWrongName,
        severity: Severity::Warning,
        title,
        detail,
        evidence: shown,
        fix: Some(Fix {
            summary,
            changes,
            steps: Vec::new(),
        }),
        cached_until: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn txt_text_joins_the_strings_and_undoes_the_escapes() {
        assert_eq!(
            txt_text("\"domain-desk-challenge=abc\""),
            "domain-desk-challenge=abc"
        );
        assert_eq!(txt_text("\"v=spf1 \" \"-all\""), "v=spf1 -all");
        assert_eq!(txt_text(r#""say \"hi\" \\ \065""#), r#"say "hi" \ A"#);
    }

    #[test]
    fn the_right_names() {
        assert_eq!(
            Challenge::Ownership.right_name("www.example.com"),
            "_domain-desk-challenge.www.example.com"
        );
        assert_eq!(
            Challenge::Acme.right_name("*.shop.example.com"),
            "_acme-challenge.shop.example.com"
        );
    }
}

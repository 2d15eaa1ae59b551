//! Whether the zone's own servers agree about the name. They are not caches: when one says
//! CNAME to the platform and another still the old site's address, the zone is served by two
//! copies (a move between DNS providers left half done), and half the world sees each. A
//! secondary a serial behind its primary (one SOA primary, an older serial) is only catching
//! up, and is said to be.

use std::collections::BTreeSet;

use crate::checks::evidence;
use crate::dns::presentation::normalise_name;
use crate::dns::{Answer, AnswerStatus};
use crate::report::{Finding, FindingCode, Fix, RecordChange, Severity};

/// One of the zone's servers: its answers for the name and its SOA for the zone.
pub struct ZoneServerAnswer<'a> {
    /// The nameserver's name.
    pub name: &'a str,
    pub label: &'a str,
    pub a: &'a Answer,
    pub aaaa: &'a Answer,
    /// Its SOA serial and primary, when it serves the zone.
    pub serial: Option<u32>,
    pub primary: Option<&'a str>,
}

/// What a server says about the name itself: its own records (`CNAME x`, `A 1.2.3.4`), or
/// its response code when it has none.
fn own_answer(hostname: &str, server: &ZoneServerAnswer<'_>) -> Vec<String> {
    let records: BTreeSet<String> = server
        .a
        .answers
        .iter()
        .chain(server.aaaa.answers.iter())
        .filter(|record| record.name == hostname)
        .map(|record| {
            format!(
                "{} {}",
                record.record_type,
                normalise_name(&record.value.to_ascii_lowercase())
            )
        })
        .collect();
    if records.is_empty() {
        let words = match server.a.status {
            AnswerStatus::NxDomain => "no such name",
            AnswerStatus::NoError => "no address record",
            other => other.label(),
        };
        return vec![words.to_owned()];
    }
    records.into_iter().collect()
}

/// Whether an answer is the one the platform asks for: the CNAME to the target, or (an
/// apex) exactly the target's addresses.
fn is_platforms(answer: &[String], target: &str, target_addresses: &BTreeSet<String>) -> bool {
    if answer
        .iter()
        .any(|record| *record == format!("CNAME {target}"))
    {
        return true;
    }
    let addresses: BTreeSet<String> = answer
        .iter()
        .filter_map(|record| {
            record
                .strip_prefix("A ")
                .or_else(|| record.strip_prefix("AAAA "))
                .map(str::to_owned)
        })
        .collect();
    !addresses.is_empty() && addresses == *target_addresses
}

/// A finding when the zone's servers give different answers for `hostname`: the platform's
/// answer at some and not others is an error (verification flaps and half the world sees the
/// old site); other differences are a warning; one primary's secondary a serial behind is
/// `propagation_pending`.
pub fn check(
    hostname: &str,
    servers: &[ZoneServerAnswer<'_>],
    target: &str,
    target_addresses: &BTreeSet<String>,
    expected: &RecordChange,
) -> Option<Finding> {
    let hostname = normalise_name(hostname);
    let answered: Vec<(&ZoneServerAnswer<'_>, Vec<String>)> = servers
        .iter()
        .filter(|server| server.a.status.is_answer())
        .map(|server| (server, own_answer(&hostname, server)))
        .collect();
    let distinct: BTreeSet<&Vec<String>> = answered.iter().map(|(_, answer)| answer).collect();
    if distinct.len() < 2 {
        return None;
    }
    let says: Vec<String> = answered
        .iter()
        .map(|(server, answer)| format!("{} says {}", server.name, answer.join(", ")))
        .collect();
    let shown = answered
        .iter()
        .map(|(server, _)| evidence(server.label, server.a, None))
        .collect();
    let primaries: BTreeSet<Option<&str>> =
        answered.iter().map(|(server, _)| server.primary).collect();
    let serials: BTreeSet<Option<u32>> = answered.iter().map(|(server, _)| server.serial).collect();
    if primaries.len() == 1 && !primaries.contains(&None) && serials.len() > 1 {
        let newest = serials.iter().flatten().max().copied().unwrap_or(0);
        let behind: Vec<&str> = answered
            .iter()
            .filter(|(server, _)| server.serial != Some(newest))
            .map(|(server, _)| server.name)
            .collect();
        return Some(Finding {
            code: FindingCode::PropagationPending,
            severity: Severity::Warning,
            title: format!(
                "{} has not caught up with the zone's serial {newest} yet",
                behind.join(" and ")
            ),
            detail: format!(
                "The zone's servers share one primary and give different answers for \
                 {hostname}: {}. A secondary copies the zone from the primary after a change; \
                 once it has serial {newest}, they agree.",
                says.join("; ")
            ),
            evidence: shown,
            fix: Some(Fix {
                summary: "Nothing to change: the secondary copies the zone within the SOA's \
                          refresh time. If it does not, check the zone transfer at the provider."
                    .to_owned(),
                changes: Vec::new(),
                steps: Vec::new(),
            }),
            cached_until: None,
        });
    }
    let platforms = answered
        .iter()
        .filter(|(_, answer)| is_platforms(answer, target, target_addresses))
        .count();
    let split = platforms > 0 && platforms < answered.len();
    let record = format!(
        "{} {} {}",
        if expected.name == "@" {
            expected.zone.as_str()
        } else {
            expected.name.as_str()
        },
        expected.record_type,
        expected.value
    );
    Some(Finding {
        code: FindingCode::NameserversDisagree,
        severity: if split {
            Severity::Error
        } else {
            Severity::Warning
        },
        title: if split {
            format!(
                "{platforms} of {} of the zone's nameservers point {hostname} at the platform; \
                 the others do not",
                answered.len()
            )
        } else {
            format!("The zone's nameservers give different answers for {hostname}")
        },
        detail: format!(
            "{}. These are the zone's own servers, not caches: resolvers pick one of them at \
             random, so visitors and the platform's checks see each answer in turn, and \
             waiting does not end it. This is what a move between DNS providers looks like \
             when the registry still lists servers of both.",
            says.join("; ")
        ),
        evidence: shown,
        fix: Some(Fix {
            summary: format!(
                "Finish the move at the registrar (keep only one provider's nameservers), or \
                 make the record the same at both providers: {record}."
            ),
            changes: vec![expected.clone()],
            steps: Vec::new(),
        }),
        cached_until: None,
    })
}

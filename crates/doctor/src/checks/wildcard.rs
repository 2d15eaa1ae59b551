//! A wildcard answering for the name: `*.example.com` hands out its records for every name
//! that has none of its own, so a customer who made `shop` at another provider, in another
//! zone or misspelt sees "a wrong CNAME" where in truth their record does not exist here.
//!
//! Without DNSSEC a synthesised answer looks like any other, so the doctor asks for the
//! wildcard itself (`*.example.com`, which matches the literal name) at each parent up to
//! the zone apex and compares: the same records mean the wildcard is answering. A name that
//! holds its own copy of the wildcard's records reads the same; the fix (make the record)
//! is right in both cases.

use std::collections::BTreeSet;

use futures::future::join_all;
use hickory_proto::rr::RecordType;

use crate::checks::apex_or_subdomain::is_within;
use crate::checks::evidence;
use crate::dns::{Answer, QueryEngine};
use crate::report::{Finding, FindingCode, Fix, NameKind, RecordChange, Severity};
use crate::servers::Server;

/// The wildcard names that could answer for `hostname`: `*.` each parent, closest first, up
/// to the zone apex.
pub fn wildcard_names(hostname: &str, zone: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = hostname;
    while let Some((_, parent)) = current.split_once('.') {
        if !is_within(parent, zone) {
            break;
        }
        names.push(format!("*.{parent}"));
        current = parent;
    }
    names
}

/// The (type, value) pairs owned by `owner` in `answer`.
fn own_records(answer: &Answer, owner: &str) -> BTreeSet<(String, String)> {
    answer
        .answers
        .iter()
        .filter(|record| record.name == owner)
        .map(|record| {
            (
                record.record_type.to_string(),
                record.value.to_ascii_lowercase(),
            )
        })
        .collect()
}

/// The wildcard answering for `hostname`, if the closest one holds exactly the records the
/// name answered with (`a`, the name's A answer from `server`).
pub(crate) async fn check(
    engine: &QueryEngine,
    server: &Server,
    hostname: &str,
    kind: &NameKind,
    a: &Answer,
    expected: &RecordChange,
    nameservers: &[String],
) -> Option<Finding> {
    if kind.apex {
        return None;
    }
    let answered = own_records(a, hostname);
    if answered.is_empty() {
        return None;
    }
    let names = wildcard_names(hostname, &kind.zone);
    let answers = join_all(
        names
            .iter()
            .map(|name| engine.ask(server.address, server.recursive(), name, RecordType::A)),
    )
    .await;
    // The closest wildcard that exists is the one that answers (RFC 4592).
    let (wildcard, wildcard_answer) = names
        .iter()
        .zip(&answers)
        .find(|(name, answer)| !own_records(answer, name).is_empty())?;
    if own_records(wildcard_answer, wildcard) != answered {
        return None;
    }
    let label = server.source.label.as_str();
    let relative = &kind.relative_name;
    let served_by = if nameservers.is_empty() {
        String::new()
    } else {
        format!(" (served by {})", nameservers.join(", "))
    };
    Some(Finding {
        code: FindingCode::WildcardShadow,
        severity: Severity::Error,
        title: format!(
            "The wildcard {wildcard} answers for {hostname}: it has no record of its own"
        ),
        detail: format!(
            "{hostname} answers exactly what {wildcard} holds, so the zone {}{served_by} has no \
             record named {relative}. If you made one, it is at another provider or in another \
             zone than the one these nameservers serve, or under another name.",
            kind.zone
        ),
        evidence: vec![
            evidence(label, a, None),
            evidence(
                label,
                wildcard_answer,
                Some("the wildcard itself".to_owned()),
            ),
        ],
        fix: Some(Fix {
            summary: format!(
                "Add the {} record {relative} in the zone {} at the provider its nameservers \
                 belong to; a record of its own takes precedence over the wildcard.",
                expected.record_type, kind.zone
            ),
            changes: vec![expected.clone()],
            steps: Vec::new(),
        }),
        cached_until: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_from_the_closest_parent_to_the_apex() {
        assert_eq!(
            wildcard_names("eu.shops.example.com", "example.com"),
            ["*.shops.example.com", "*.example.com"]
        );
        assert_eq!(
            wildcard_names("www.example.com", "example.com"),
            ["*.example.com"]
        );
        assert!(wildcard_names("example.com", "example.com").is_empty());
    }
}

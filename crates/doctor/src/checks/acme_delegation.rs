//! The `_acme-challenge` delegation: the CNAME at `_acme-challenge.<name>` that hands the CA's
//! DNS-01 token to the platform's validation zone (RFC 8555 §8.4 through a CNAME). With it the
//! certificate is issued before the routing record moves traffic (a name live on another host
//! switches without a gap) and a wildcard's certificate can be issued at all, since only DNS
//! validation covers one.
//!
//! Judged where it matters: always when the record is there (its value must be the platform's
//! exactly: `<name without *.>.<validation zone>`, when the caller knows the zone), and when it
//! is missing only for a wildcard, a name whose records point elsewhere today, or a live name
//! whose certificate was validated by DNS (its renewal needs the record: an error, which the
//! renewal check turns into `renewal_at_risk`). A record at
//! a wrong name (the zone appended, the apex instead of the subdomain) is
//! [`super::challenge_labels`]'s to say; a CAA record that refuses the platform's CA refuses a
//! certificate validated by DNS as well, and the finding says so beside the delegation.

use std::net::SocketAddr;

use hickory_proto::rr::RecordType;

use crate::checks::apex_or_subdomain::relative_name;
use crate::checks::challenge_labels::ACME_LABEL;
use crate::checks::evidence;
use crate::dns::{AnswerStatus, QueryEngine};
use crate::report::{ChangeAction, Finding, FindingCode, Fix, NameKind, RecordChange, Severity};

/// What the delegation check needs to know besides the answer.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The domain as attached: a wildcard (`*.shop.example.com`) or a name.
    pub domain: &'a str,
    pub kind: &'a NameKind,
    /// The platform's validation zone, when known.
    pub validation_zone: Option<&'a str>,
    /// The name's records point elsewhere today (or it is a wildcard): without the
    /// delegation no certificate comes before the switch.
    pub needed: bool,
    /// The platform serves the name with a certificate validated through the delegation: its
    /// renewal needs the record again, so a missing or wrong one is an error.
    pub renews_by_dns: bool,
    /// A CAA record on the climb refuses the platform's CA.
    pub caa_refuses: bool,
    /// The record was found at a wrong name, which another finding says.
    pub misplaced: bool,
}

/// The TTL a delegation record is given in a fix.
const TTL: u32 = 3600;

/// The name the delegation belongs at and the value it must have (when the zone is known).
pub fn record_for(domain: &str, validation_zone: Option<&str>) -> (String, Option<String>) {
    let base = domain.strip_prefix("*.").unwrap_or(domain);
    let value = validation_zone
        .map(|zone| zone.trim_end_matches('.'))
        .filter(|zone| !zone.is_empty())
        .map(|zone| format!("{base}.{zone}").to_ascii_lowercase());
    (format!("{ACME_LABEL}.{base}"), value)
}

/// Asks `server` for the delegation of `context.domain` and judges it.
pub async fn check(
    engine: &QueryEngine,
    server: SocketAddr,
    recursive: bool,
    server_label: &str,
    context: Context<'_>,
) -> Option<Finding> {
    let (owner, expected) = record_for(context.domain, context.validation_zone);
    let answer = engine
        .ask(server, recursive, &owner, RecordType::CNAME)
        .await;
    // A failing server is the health check's to report.
    if !answer.status.is_answer() {
        return None;
    }
    let zone = context.kind.zone.as_str();
    let relative = relative_name(&owner, zone);
    let shown = vec![evidence(
        server_label,
        &answer,
        Some("where the CA's DNS validation looks".to_owned()),
    )];
    let domain = context.domain;
    let caa_note = if context.caa_refuses {
        " A CAA record refuses the platform's CA, though, and it refuses a certificate \
         validated by DNS as well: see the CAA finding."
    } else {
        ""
    };
    let add = |value: &str| RecordChange {
        action: ChangeAction::Add,
        zone: zone.to_owned(),
        name: relative.clone(),
        record_type: "CNAME".to_owned(),
        value: value.to_owned(),
        ttl: Some(TTL),
    };
    let Some(found) = answer.cname_of(&owner) else {
        if !(context.needed || context.renews_by_dns) || context.misplaced {
            return None;
        }
        let why = if context.renews_by_dns {
            format!(
                "{domain}'s certificate was validated through this record, and its renewal is too: without it the next renewal fails."
            )
        } else if domain.starts_with("*.") {
            format!(
                "A wildcard's certificate is issued only by DNS validation, so {domain} cannot be served over HTTPS without it."
            )
        } else {
            format!(
                "{domain} is served elsewhere today: with this record the platform's certificate is issued before you switch, so visitors never meet a certificate warning."
            )
        };
        let summary = match &expected {
            Some(value) => {
                format!("In the zone {zone}, add a CNAME named {relative} with the value {value}.")
            }
            None => format!(
                "In the zone {zone}, add the CNAME named {relative} that the domain's details name (`domain-desk domains inspect {domain}`)."
            ),
        };
        return Some(Finding {
            code: FindingCode::AcmeDelegationMissing,
            severity: if context.renews_by_dns {
                Severity::Error
            } else {
                Severity::Warning
            },
            title: format!("{owner} has no CNAME to the platform's validation zone"),
            detail: format!(
                "{server_label} answers {} for {owner} CNAME. {why}{caa_note}",
                if answer.status == AnswerStatus::NxDomain {
                    "no such name"
                } else {
                    "no such record"
                }
            ),
            evidence: shown,
            fix: Some(Fix {
                summary,
                changes: expected.iter().map(|value| add(value)).collect(),
                steps: Vec::new(),
            }),
            cached_until: None,
        });
    };
    let value = found.value.trim_end_matches('.').to_ascii_lowercase();
    match &expected {
        Some(wanted) if *wanted != value => Some(Finding {
            code: FindingCode::AcmeDelegationWrong,
            severity: if context.needed || context.renews_by_dns {
                Severity::Error
            } else {
                Severity::Warning
            },
            title: format!("{owner} points at {value}, not at the platform's {wanted}"),
            detail: format!(
                "The CA follows {owner} to find the platform's token and finds none at {value}, \
                 so the certificate of {domain} cannot be validated by DNS (nor renewed that \
                 way). The value must be exactly {wanted}.{caa_note}"
            ),
            evidence: shown,
            fix: Some(Fix {
                summary: format!(
                    "In the zone {zone}, change the CNAME named {relative} to {wanted}."
                ),
                changes: vec![
                    RecordChange {
                        action: ChangeAction::Remove,
                        zone: zone.to_owned(),
                        name: relative.clone(),
                        record_type: "CNAME".to_owned(),
                        value: found.value.clone(),
                        ttl: Some(found.ttl),
                    },
                    add(wanted),
                ],
                steps: Vec::new(),
            }),
            cached_until: None,
        }),
        _ => Some(Finding {
            code: FindingCode::AcmeDelegationCorrect,
            severity: if context.caa_refuses {
                Severity::Warning
            } else {
                Severity::Ok
            },
            title: format!("{owner} delegates DNS validation to the platform"),
            detail: format!(
                "{owner} is a CNAME to {value}{}: the certificate of {domain} can be issued \
                 by DNS validation, before the routing record points at the platform, and \
                 renewed the same way.{caa_note}",
                if expected.is_some() {
                    ", exactly the platform's value"
                } else {
                    ""
                }
            ),
            evidence: shown,
            fix: None,
            cached_until: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_and_its_base_share_one_delegation() {
        assert_eq!(
            record_for("*.shop.example.com", Some("acme.platform.test.")),
            (
                "_acme-challenge.shop.example.com".to_owned(),
                Some("shop.example.com.acme.platform.test".to_owned())
            )
        );
        assert_eq!(
            record_for("example.com", None),
            ("_acme-challenge.example.com".to_owned(), None)
        );
    }
}

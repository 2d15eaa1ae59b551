//! The renewal check: for a name the platform already holds a certificate for, whether its DNS
//! today would let the CA renew it, and from when that matters.
//!
//! The CA's renewal makes the same checks as the first issuance (the record still points at
//! the platform, the CAA climb allows its CA, DNSSEC validates, no proxy in front), and the
//! doctor's other checks already judge each of them. This one does not ask anything: it reads
//! their findings and, for a live name whose DNS would now refuse issuance, adds one finding,
//! `renewal_at_risk`, dated by the certificate (when it expires, when the platform starts
//! renewing it), with the fix of the finding that blocks it. A name that was never issued gets
//! the blocking findings alone, so the two cases stay apart.

use chrono::{DateTime, Datelike, Utc};
use domain_desk_api::caa::CaaReason;

use crate::live_certificate::LiveCertificate;
use crate::report::{CaaClimb, Finding, FindingCode, Severity};

/// The findings that say what the CA will find at renewal, and so make it fail. Findings that
/// say the doctor could not ask (a server timing out, the target unknown) are not among them:
/// they tell nothing about the renewal.
pub(crate) fn blocks_issuance(code: FindingCode) -> bool {
    matches!(
        code,
        FindingCode::DomainNotRegistered
            | FindingCode::RecordMissing
            | FindingCode::CnameMismatch
            | FindingCode::CnameTargetDoubled
            | FindingCode::ConflictingRecord
            | FindingCode::CnameAtApex
            | FindingCode::ApexAddressMismatch
            | FindingCode::AaaaMismatch
            | FindingCode::WildcardShadow
            | FindingCode::ZoneAppended
            | FindingCode::ProxiedByCloudflare
            | FindingCode::DnssecBogus
            | FindingCode::CaaForbidsIssuance
            | FindingCode::CaaLookupFailed
            | FindingCode::AcmeDelegationMissing
            | FindingCode::AcmeDelegationWrong
    )
}

/// `renewal_at_risk` for `hostname`, whose certificate is `certificate`, when one of
/// `findings` (the other checks' findings for it) blocks issuance; `None` when none does.
pub(crate) fn check(
    hostname: &str,
    certificate: &LiveCertificate,
    findings: &[Finding],
    caa: Option<&CaaClimb>,
    now: DateTime<Utc>,
) -> Option<Finding> {
    let blocking = blocking(findings)?;
    let cause = cause(hostname, blocking, caa);
    let renews_at = certificate.renews_at();
    let when = if now < renews_at {
        format!(
            "the platform renews it from {}; that renewal will fail",
            day(renews_at, Some(certificate.expires_at))
        )
    } else {
        format!(
            "the platform has been renewing it since {}, and the renewal fails",
            day(renews_at, Some(certificate.expires_at))
        )
    };
    let detail = format!(
        "{hostname}'s certificate expires on {}; {when}: {cause}.",
        day(certificate.expires_at, None),
    );
    Some(Finding {
        code: FindingCode::RenewalAtRisk,
        severity: Severity::Error,
        title: format!("The certificate of {hostname} will not renew"),
        detail,
        evidence: blocking.evidence.clone(),
        fix: blocking.fix.clone(),
        cached_until: None,
    })
}

/// The finding that makes issuance fail, when one does (the first to fix, when several do).
pub(crate) fn blocking(findings: &[Finding]) -> Option<&Finding> {
    findings
        .iter()
        .filter(|finding| finding.severity == Severity::Error && blocks_issuance(finding.code))
        .min_by_key(|finding| cause_rank(finding.code))
}

/// Which blocking finding names the cause when there are several: the one a person fixes
/// first (a record that no longer points here makes CAA moot).
fn cause_rank(code: FindingCode) -> u8 {
    match code {
        FindingCode::DomainNotRegistered => 0,
        FindingCode::RecordMissing
        | FindingCode::CnameMismatch
        | FindingCode::CnameTargetDoubled
        | FindingCode::ConflictingRecord
        | FindingCode::CnameAtApex
        | FindingCode::ApexAddressMismatch
        | FindingCode::AaaaMismatch
        | FindingCode::WildcardShadow
        | FindingCode::ZoneAppended
        | FindingCode::AcmeDelegationMissing
        | FindingCode::AcmeDelegationWrong => 1,
        FindingCode::ProxiedByCloudflare => 2,
        FindingCode::DnssecBogus => 3,
        _ => 4,
    }
}

/// The blocking finding in a clause: "the CAA record at example.com now allows only
/// other-ca.example".
pub(crate) fn cause(hostname: &str, blocking: &Finding, caa: Option<&CaaClimb>) -> String {
    let title = lower_first(&blocking.title);
    match blocking.code {
        FindingCode::CaaForbidsIssuance => {
            let Some((at, decision)) = caa.and_then(|climb| {
                climb
                    .decision
                    .as_ref()
                    .map(|decision| (climb.deciding_name.as_deref().unwrap_or(hostname), decision))
            }) else {
                return title;
            };
            match &decision.reason {
                CaaReason::NotAuthorized {
                    authorized_issuers, ..
                } if authorized_issuers.is_empty() => {
                    format!("the CAA record at {at} now allows no CA at all")
                }
                CaaReason::NotAuthorized {
                    authorized_issuers, ..
                } => format!(
                    "the CAA record at {at} now allows only {}",
                    authorized_issuers.join(", ")
                ),
                CaaReason::UnknownCriticalProperty { tag } => format!(
                    "the CAA record at {at} now has the critical tag {tag:?}, which no CA \
                     understands"
                ),
                _ => title,
            }
        }
        FindingCode::ProxiedByCloudflare => {
            format!("a proxy now answers for {hostname} instead of the platform ({title})")
        }
        FindingCode::DnssecBogus => format!("DNSSEC no longer validates ({title})"),
        FindingCode::CaaLookupFailed => title,
        FindingCode::DomainNotRegistered => title,
        _ => format!("{hostname} no longer points at the platform ({title})"),
    }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        // Keep names (`CAA`, `DNSSEC`, a hostname) as they are; lower an ordinary word.
        Some(first)
            if first.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) =>
        {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text.to_owned(),
    }
}

/// A day as a person reads it: `24 Feb 2027`; without the year when it is the year of
/// `beside` (`25 Jan`, beside an expiry in 2027).
pub(crate) fn day(at: DateTime<Utc>, beside: Option<DateTime<Utc>>) -> String {
    match beside {
        Some(other) if other.year() == at.year() => at.format("%-d %b").to_string(),
        _ => at.format("%-d %b %Y").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CaaStep, Fix};
    use domain_desk_api::caa::CaaDecision;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn certificate() -> LiveCertificate {
        LiveCertificate {
            expires_at: at("2027-02-24T10:00:00Z"),
            renews_at: Some(at("2027-01-25T10:00:00Z")),
            validated_by_dns: false,
        }
    }

    fn finding(code: FindingCode, severity: Severity, title: &str) -> Finding {
        Finding {
            code,
            severity,
            title: title.to_owned(),
            detail: String::new(),
            evidence: Vec::new(),
            fix: Some(Fix {
                summary: format!("fix {title}"),
                changes: Vec::new(),
                steps: Vec::new(),
            }),
            cached_until: None,
        }
    }

    fn forbidding_climb() -> CaaClimb {
        CaaClimb {
            server: "demo".into(),
            steps: vec![CaaStep {
                name: "example.com".into(),
                status: crate::dns::AnswerStatus::NoError,
                records: Vec::new(),
                via_cname: None,
                note: None,
            }],
            deciding_name: Some("example.com".into()),
            decision: Some(CaaDecision {
                allowed: false,
                reason: CaaReason::NotAuthorized {
                    tag: "issue".into(),
                    authorized_issuers: vec!["other-ca.example".into()],
                },
                deciding_records: Vec::new(),
            }),
        }
    }

    #[test]
    fn a_forbidding_caa_on_a_live_name_is_dated_and_says_who_is_allowed() {
        let caa = finding(
            FindingCode::CaaForbidsIssuance,
            Severity::Error,
            "CAA at example.com forbids letsencrypt.org from issuing for shop.example.com",
        );
        let found = check(
            "shop.example.com",
            &certificate(),
            &[
                finding(FindingCode::RecordCorrect, Severity::Ok, "Record correct"),
                caa.clone(),
            ],
            Some(&forbidding_climb()),
            at("2026-12-01T00:00:00Z"),
        )
        .expect("at risk");
        assert_eq!(found.code, FindingCode::RenewalAtRisk);
        assert_eq!(found.severity, Severity::Error);
        assert_eq!(
            found.detail,
            "shop.example.com's certificate expires on 24 Feb 2027; the platform renews it \
             from 25 Jan; that renewal will fail: the CAA record at example.com now allows \
             only other-ca.example."
        );
        assert_eq!(found.fix, caa.fix, "the fix is the blocking finding's");
    }

    #[test]
    fn inside_the_renewal_window_it_says_the_renewal_is_failing() {
        let found = check(
            "shop.example.com",
            &certificate(),
            &[finding(
                FindingCode::CnameMismatch,
                Severity::Error,
                "The CNAME of shop.example.com points elsewhere",
            )],
            None,
            at("2027-02-01T00:00:00Z"),
        )
        .unwrap();
        assert!(
            found.detail.contains(
                "the platform has been renewing it since 25 Jan, and the renewal fails: \
                 shop.example.com no longer points at the platform"
            ),
            "{}",
            found.detail
        );
    }

    #[test]
    fn findings_that_say_nothing_of_the_renewal_leave_it_alone() {
        for harmless in [
            finding(FindingCode::RecordCorrect, Severity::Ok, "ok"),
            finding(FindingCode::ServerTimeout, Severity::Error, "timeout"),
            finding(FindingCode::TargetUnresolvable, Severity::Error, "target"),
            finding(
                FindingCode::PropagationPending,
                Severity::Warning,
                "pending",
            ),
            // a blocking code at a lower severity is not a refusal
            finding(FindingCode::CnameMismatch, Severity::Warning, "odd"),
        ] {
            assert_eq!(
                check(
                    "shop.example.com",
                    &certificate(),
                    &[harmless],
                    None,
                    at("2026-12-01T00:00:00Z")
                ),
                None
            );
        }
    }

    #[test]
    fn the_record_is_named_before_caa_when_both_block() {
        let found = check(
            "shop.example.com",
            &certificate(),
            &[
                finding(FindingCode::CaaForbidsIssuance, Severity::Error, "CAA"),
                finding(FindingCode::RecordMissing, Severity::Error, "No record"),
            ],
            Some(&forbidding_climb()),
            at("2026-12-01T00:00:00Z"),
        )
        .unwrap();
        assert!(
            found
                .detail
                .contains("no longer points at the platform (no record)")
        );
        assert_eq!(found.fix.unwrap().summary, "fix No record");
    }

    #[test]
    fn days_carry_the_year_only_when_it_differs() {
        let expiry = at("2027-01-10T00:00:00Z");
        assert_eq!(day(expiry, None), "10 Jan 2027");
        assert_eq!(day(at("2026-12-11T00:00:00Z"), Some(expiry)), "11 Dec 2026");
        assert_eq!(day(at("2027-01-02T00:00:00Z"), Some(expiry)), "2 Jan");
    }
}

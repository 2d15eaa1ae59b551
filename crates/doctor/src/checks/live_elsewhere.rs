//! A name served today by another host: its records (an A record, a CNAME to another
//! provider) lead only to addresses that are not the platform's. Most names attached to a
//! platform start that way, and it is not a conflict to fix now: switching before the
//! certificate is ready is what makes visitors meet "your connection is not private". The
//! findings that would blame those records (`conflicting_record`, `apex_address_mismatch`,
//! `cname_mismatch`) give way to one `live_elsewhere` warning that says so plainly and keeps
//! their fix for the moment of the switch. Its first step is the `_acme-challenge` delegation
//! (the `acme_delegation_*` findings carry that record); once the delegation is in place it
//! says the switch without a gap is under way.
//!
//! Records that mix the platform's addresses with another host's stay a conflict: the
//! platform is already reached, and the other record is what blocks the certificate. A name
//! the platform already serves with a certificate is not "live elsewhere" either: its record
//! moved away, which the renewal check reports as the problem it is.

use crate::report::{ChainEnd, Finding, FindingCode, Fix, Severity, SourceView};

/// The findings that blame records pointing elsewhere.
fn blames_the_records(code: FindingCode) -> bool {
    matches!(
        code,
        FindingCode::ConflictingRecord
            | FindingCode::ApexAddressMismatch
            | FindingCode::CnameMismatch
    )
}

/// The addresses the name reaches (at the end of its CNAME chain, if it has one), as the
/// first server that answered with addresses saw them; sorted, without repeats.
pub fn addresses_reached(views: &[SourceView]) -> Vec<String> {
    let mut addresses: Vec<String> = views
        .iter()
        .find_map(|view| match view.chain.as_ref().map(|chain| &chain.end) {
            Some(ChainEnd::Addresses { addresses, .. }) => Some(addresses.clone()),
            _ => None,
        })
        .unwrap_or_default();
    addresses.sort();
    addresses.dedup();
    addresses
}

/// The addresses the name is served from today when they are another host's: `findings`
/// blame its records (or already say it is live elsewhere) and none of `reached` is among
/// `platform`'s addresses. Empty otherwise.
pub fn served_elsewhere(
    findings: &[Finding],
    reached: &[String],
    platform: &[String],
) -> Vec<String> {
    let blamed = findings.iter().any(|finding| {
        blames_the_records(finding.code) || finding.code == FindingCode::LiveElsewhere
    });
    if !blamed || reached.iter().any(|address| platform.contains(address)) {
        return Vec::new();
    }
    reached.to_vec()
}

/// When the name is served by another host (`elsewhere`, from [`served_elsewhere`]), the
/// findings that blame the records of `unicode` give way to one `live_elsewhere` finding.
/// `delegated`: the `_acme-challenge` delegation is in place, so the certificate can be
/// issued before the switch; without it, the finding says to create it first.
pub fn judge(findings: &mut Vec<Finding>, unicode: &str, elsewhere: &[String], delegated: bool) {
    if elsewhere.is_empty() {
        return;
    }
    let (blaming, rest): (Vec<Finding>, Vec<Finding>) = std::mem::take(findings)
        .into_iter()
        .partition(|finding| blames_the_records(finding.code));
    *findings = rest;
    if blaming.is_empty() {
        return;
    }
    let hosts = elsewhere.join(", ");
    let fix = blaming
        .iter()
        .find_map(|finding| finding.fix.clone())
        .map(|fix| Fix {
            summary: format!("When the certificate is ready: {}", fix.summary),
            ..fix
        });
    let why: Vec<String> = blaming
        .iter()
        .map(|finding| finding.title.clone())
        .collect();
    findings.push(Finding {
        code: FindingCode::LiveElsewhere,
        severity: Severity::Warning,
        title: format!(
            "{unicode} is served today by {hosts}, not the platform: switch when the certificate is ready"
        ),
        detail: if delegated {
            format!(
                "Its records lead to {hosts}, which serves visitors now ({}). That is not a \
                 mistake to fix now: the _acme-challenge delegation is in place, so Verify has \
                 the platform's certificate issued while the site stays where it is; once it \
                 is, change the records as below, and the name is live at the next Verify.",
                why.join("; ")
            )
        } else {
            format!(
                "Its records lead to {hosts}, which serves visitors now ({}). Keep them until \
                 the platform's certificate is ready: first create the _acme-challenge \
                 delegation and Verify, so the certificate is issued while the site stays where \
                 it is; then change the records as below, and the name is live at the next \
                 Verify. If nothing is served at {hosts} any more (a record left over), change \
                 the records now instead.",
                why.join("; ")
            )
        },
        evidence: blaming
            .into_iter()
            .flat_map(|finding| finding.evidence)
            .collect(),
        fix,
        cached_until: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: FindingCode) -> Finding {
        Finding {
            code,
            severity: Severity::Error,
            title: format!("{code:?}"),
            detail: String::new(),
            evidence: Vec::new(),
            fix: Some(Fix {
                summary: "Replace the A record with a CNAME.".to_owned(),
                changes: Vec::new(),
                steps: Vec::new(),
            }),
            cached_until: None,
        }
    }

    #[test]
    fn records_leading_to_another_host_are_live_elsewhere_not_a_conflict() {
        let mut findings = vec![
            finding(FindingCode::ConflictingRecord),
            finding(FindingCode::CaaAllowsIssuance),
        ];
        let reached = vec!["192.0.2.77".to_owned()];
        let elsewhere = served_elsewhere(&findings, &reached, &["198.51.100.1".to_owned()]);
        assert_eq!(elsewhere, ["192.0.2.77"]);
        let mut undelegated = findings.clone();
        judge(&mut undelegated, "shop.example.org", &elsewhere, false);
        let codes: Vec<FindingCode> = undelegated.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [FindingCode::CaaAllowsIssuance, FindingCode::LiveElsewhere]
        );
        assert!(
            undelegated[1]
                .detail
                .contains("first create the _acme-challenge delegation"),
            "{undelegated:#?}"
        );
        judge(&mut findings, "shop.example.org", &elsewhere, true);
        let codes: Vec<FindingCode> = findings.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [FindingCode::CaaAllowsIssuance, FindingCode::LiveElsewhere]
        );
        let live = &findings[1];
        assert_eq!(live.severity, Severity::Warning);
        assert_eq!(
            live.title,
            "shop.example.org is served today by 192.0.2.77, not the platform: switch when the certificate is ready"
        );
        assert!(
            live.fix
                .as_ref()
                .unwrap()
                .summary
                .starts_with("When the certificate is ready: Replace")
        );
    }

    #[test]
    fn an_address_of_the_platform_or_nothing_blamed_is_not_live_elsewhere() {
        let platform = vec!["198.51.100.1".to_owned()];
        let mixed = vec!["192.0.2.77".to_owned(), "198.51.100.1".to_owned()];
        let blamed = [finding(FindingCode::ConflictingRecord)];
        assert!(served_elsewhere(&blamed, &mixed, &platform).is_empty());
        let fine = [finding(FindingCode::RecordCorrect)];
        assert!(served_elsewhere(&fine, &["192.0.2.77".to_owned()], &platform).is_empty());
        assert!(served_elsewhere(&blamed, &[], &platform).is_empty());
    }
}

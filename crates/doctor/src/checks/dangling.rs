//! A name that points at the platform while no project has it attached: it shows the
//! platform's "no such site" page, and anyone with an account could attach it and serve
//! their content under the customer's name (a subdomain takeover).
//!
//! DNS cannot tell whether a project claims a name; the caller can (the platform's API, or
//! the local service), and passes the attached hostnames in the options. Without them this
//! check says nothing.

use std::collections::BTreeSet;

use crate::report::{Finding, FindingCode, Fix, NameKind, RecordChange, Severity};

/// A finding when `hostname` resolves as the platform asks but is not among `attached`.
pub fn check(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    attached: Option<&BTreeSet<String>>,
    record_correct: bool,
    expected: &RecordChange,
) -> Option<Finding> {
    let attached = attached?;
    if !record_correct || attached.contains(hostname) {
        return None;
    }
    let record = format!(
        "{} {} {}",
        expected.name, expected.record_type, expected.value
    );
    Some(Finding {
        code: FindingCode::DanglingCname,
        severity: Severity::Warning,
        title: format!("{hostname} points at the platform but no project has it attached"),
        detail: format!(
            "The records send {hostname} to {target}, yet none of the {} attached hostnames the \
             platform reported is {hostname}. Visitors see the platform's \"no such site\" \
             page, and any account that attaches {hostname} would serve its own content there.",
            attached.len()
        ),
        evidence: Vec::new(),
        fix: Some(Fix {
            summary: format!(
                "Attach {hostname} to its project (Project settings > Domains), or remove the \
                 record {record} in the zone {} if the name is no longer used.",
                kind.zone
            ),
            changes: Vec::new(),
            steps: Vec::new(),
        }),
        cached_until: None,
    })
}

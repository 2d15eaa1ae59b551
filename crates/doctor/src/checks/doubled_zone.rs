//! A doubled zone name: `www.example.com.example.com`, what a DNS provider makes of the full
//! hostname typed into a Name field that already appends the zone.

use domain_desk_api::Hostname;

use crate::checks::apex_or_subdomain::under_zone;
use crate::checks::evidence;
use crate::dns::Answer;
use crate::report::{ChangeAction, Finding, FindingCode, Fix, RecordChange, Severity};

/// The name that was probably meant, when `hostname` repeats its registrable domain.
pub fn meant_name(hostname: &Hostname) -> Option<String> {
    let name = hostname.as_str();
    let registrable = hostname.registrable_domain();
    let prefix = name.strip_suffix(registrable)?.strip_suffix('.')?;
    under_zone(prefix, registrable).map(|_| prefix.to_owned())
}

/// The name a provider creates when the full hostname is typed into its Name field.
pub fn doubled(name: &str, zone: &str) -> String {
    format!("{name}.{zone}")
}

/// Finding for a hostname that itself repeats its domain.
pub fn doubled_hostname_finding(hostname: &Hostname, meant: &str) -> Finding {
    Finding {
        code: FindingCode::DoubledZoneName,
        severity: Severity::Error,
        title: format!("{hostname} repeats its domain name"),
        detail: format!(
            "The name ends in {registrable} twice, which usually means the full hostname was \
             typed where only the part before {registrable} belongs. The name meant is \
             probably {meant}.",
            registrable = hostname.registrable_domain()
        ),
        evidence: Vec::new(),
        fix: Some(Fix {
            summary: format!(
                "Diagnose and attach {meant} instead; at the DNS provider, type only the part \
                 before {} in the Name field.",
                hostname.registrable_domain()
            ),
            changes: Vec::new(),
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

/// Finding for records found at `hostname.zone` while `hostname` itself has none: the
/// provider appended the zone to a full hostname.
pub fn doubled_record_finding(
    hostname: &str,
    zone: &str,
    relative_name: &str,
    server_label: &str,
    found: &Answer,
    expected: &RecordChange,
) -> Finding {
    let doubled_name = doubled(hostname, zone);
    let mut changes: Vec<RecordChange> = found
        .answers
        .iter()
        .filter(|record| record.name == doubled_name)
        .map(|record| RecordChange {
            action: ChangeAction::Remove,
            zone: zone.to_owned(),
            name: format!("{relative_name}.{zone}"),
            record_type: record.record_type.to_string(),
            value: record.value.clone(),
            ttl: Some(record.ttl),
        })
        .collect();
    changes.push(expected.clone());
    Finding {
        code: FindingCode::ZoneAppended,
        severity: Severity::Error,
        title: format!("The record was created at {doubled_name}, not {hostname}"),
        detail: format!(
            "{hostname} has no record, but {doubled_name} has one: the full hostname was typed \
             into the provider's Name field, which appends {zone} itself."
        ),
        evidence: vec![evidence(server_label, found, None)],
        fix: Some(Fix {
            summary: format!(
                "Remove the record named {relative_name}.{zone} and create it again with the \
                 name {relative_name} only."
            ),
            changes,
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> Hostname {
        Hostname::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn finds_a_repeated_registrable_domain() {
        assert_eq!(
            meant_name(&host("www.example.com.example.com")).as_deref(),
            Some("www.example.com")
        );
        assert_eq!(
            meant_name(&host("example.co.uk.example.co.uk")).as_deref(),
            Some("example.co.uk")
        );
        assert_eq!(meant_name(&host("www.example.com")), None);
        assert_eq!(meant_name(&host("example.com.au")), None);
        assert_eq!(meant_name(&host("com.example.com")), None);
    }

    #[test]
    fn doubled_record_names() {
        assert_eq!(
            doubled("www.example.com", "example.com"),
            "www.example.com.example.com"
        );
    }
}

//! A wildcard domain (`*.shop.example.com`) is routed by a wildcard record (`*.shop` CNAME to
//! the platform), which answers for any name under it that has no records of its own
//! (RFC 4592). So its routing is checked as the platform's verifier checks it: at a label no
//! one created, `dd-check-<10 letters or digits>.shop.example.com`. The label is derived from
//! the wildcard rather than drawn at random, so that a capture replays the same questions.
//!
//! The findings of that name then speak of the wildcard: the record to create is `*.shop`, not
//! `dd-check-….shop`. Only the evidence keeps the label, since it is what DNS was asked.

use crate::report::{Finding, FindingCode, Severity};

/// What the probe label starts with (the platform's verifier uses the same form).
pub const PROBE_PREFIX: &str = "dd-check-";

/// The label the routing of `wildcard` (`*.shop.example.com`) is checked at.
pub fn probe_label(wildcard: &str) -> String {
    // FNV-1a: stable across runs and builds, unlike the standard library's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in wildcard.to_ascii_lowercase().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut label = String::from(PROBE_PREFIX);
    for _ in 0..10 {
        let index = usize::try_from(hash % 36).unwrap_or(0);
        label.push(char::from(ALPHABET[index]));
        hash /= 36;
        if hash == 0 {
            hash = 0x9e37_79b9_7f4a_7c15;
        }
    }
    label
}

/// The name the routing of `wildcard` is checked at: the probe label in place of `*`.
pub fn probe_name(wildcard: &str) -> Option<String> {
    let base = wildcard.strip_prefix("*.")?;
    Some(format!("{}.{base}", probe_label(wildcard)))
}

/// Rewrites the findings about the probe name as findings about `wildcard`: in titles,
/// details and fixes (the records to change and the provider's steps), `dd-check-….` becomes
/// `*.` (so `dd-check-x.shop` reads `*.shop`, the record's name); the evidence, and the
/// detail of a TLS probe (which connected with the probe name), are left alone.
pub fn speak_of_the_wildcard(findings: &mut [Finding], wildcard: &str) {
    let label = format!("{}.", probe_label(wildcard));
    let speak = |text: &mut String| {
        if text.contains(&label) {
            *text = text.replace(&label, "*.");
        }
    };
    for finding in findings {
        speak(&mut finding.title);
        // A TLS probe connected with the probe name itself: its detail says so as it was.
        if !is_tls(finding.code) {
            speak(&mut finding.detail);
        }
        if let Some(fix) = finding.fix.as_mut() {
            speak(&mut fix.summary);
            for change in &mut fix.changes {
                speak(&mut change.name);
            }
            for step in &mut fix.steps {
                speak(step);
            }
        }
    }
}

/// The record name `relative` (the probe's, `dd-check-….shop`) as the wildcard's (`*.shop`).
pub fn wildcard_record_name(relative: &str, wildcard: &str) -> String {
    relative.replace(&format!("{}.", probe_label(wildcard)), "*.")
}

fn is_tls(code: FindingCode) -> bool {
    matches!(
        code,
        FindingCode::TlsUnreachable
            | FindingCode::TlsCertificateOk
            | FindingCode::TlsNameMismatch
            | FindingCode::TlsExpired
            | FindingCode::TlsExpiringSoon
            | FindingCode::TlsUntrusted
            | FindingCode::TlsAddressMismatch
    )
}

/// Context for the report: where the wildcard's routing was asked.
pub fn finding(wildcard: &str) -> Finding {
    let probe = probe_name(wildcard).unwrap_or_default();
    Finding {
        code: FindingCode::WildcardProbe,
        severity: Severity::Info,
        title: format!("{wildcard}'s routing is checked at {probe}"),
        detail: format!(
            "A wildcard answers for any name under it that has no records of its own, so the \
             doctor asks a name no one created, {probe}, as the platform's Verify does. Its \
             certificate can only be issued by DNS validation: the _acme-challenge delegation \
             is needed as well."
        ),
        evidence: Vec::new(),
        fix: None,
        cached_until: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ChangeAction, Fix, RecordChange};

    #[test]
    fn the_probe_label_is_stable_and_looks_like_the_platforms() {
        let label = probe_label("*.shop.example.com");
        assert_eq!(label, probe_label("*.SHOP.example.com"));
        assert_ne!(label, probe_label("*.blog.example.com"));
        let tail = label.strip_prefix(PROBE_PREFIX).unwrap();
        assert_eq!(tail.len(), 10);
        assert!(
            tail.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        );
        assert_eq!(
            probe_name("*.shop.example.com").unwrap(),
            format!("{label}.shop.example.com")
        );
        assert_eq!(probe_name("shop.example.com"), None);
    }

    #[test]
    fn findings_about_the_probe_speak_of_the_wildcard_but_the_evidence_does_not() {
        let wildcard = "*.shop.example.com";
        let probe = probe_name(wildcard).unwrap();
        let relative = probe.trim_end_matches(".example.com").to_owned();
        let mut findings = vec![Finding {
            code: FindingCode::RecordMissing,
            severity: Severity::Error,
            title: format!("{probe} has no CNAME"),
            detail: format!("Create a CNAME named {relative}."),
            evidence: vec![crate::report::Evidence {
                server: "ns".into(),
                question: format!("{probe} A"),
                status: crate::dns::AnswerStatus::NxDomain,
                records: Vec::new(),
                note: None,
            }],
            fix: Some(Fix {
                summary: format!("Add a CNAME named {relative}."),
                changes: vec![RecordChange {
                    action: ChangeAction::Add,
                    zone: "example.com".into(),
                    name: relative.clone(),
                    record_type: "CNAME".into(),
                    value: "cname.platform.test".into(),
                    ttl: Some(3600),
                }],
                steps: vec![format!("Name: {relative}")],
            }),
            cached_until: None,
        }];
        speak_of_the_wildcard(&mut findings, wildcard);
        let found = &findings[0];
        assert_eq!(found.title, "*.shop.example.com has no CNAME");
        assert_eq!(found.detail, "Create a CNAME named *.shop.");
        let fix = found.fix.as_ref().unwrap();
        assert_eq!(fix.changes[0].name, "*.shop");
        assert_eq!(fix.steps, ["Name: *.shop"]);
        assert_eq!(found.evidence[0].question, format!("{probe} A"));
    }
}

//! Once DNS is right: a TLS connection to the edge as a browser would make it (SNI = the
//! hostname), to show which certificate is served (issuer, names, expiry) and what `GET /`
//! answers (a 301 and its target for a redirect domain).
//!
//! The connection itself (the handshake that accepts any certificate so a wrong one can be
//! shown, the recording and replaying) is `tls_probe.rs`; this file decides what to connect
//! to and judges what was seen.

use std::net::SocketAddr;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::dns::Answer;
use crate::options::DoctorOptions;
use crate::report::{Finding, FindingCode, Severity, TlsProbe};
use crate::tls_probe::{TlsSource, describe};

/// A certificate closer to expiry than this is worth a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;

/// Probes the edge for `hostname` through `source` (live, recording or replaying), judging
/// expiry at `now`: at `edge` when given, else at the first IPv4 address the
/// servers returned, port 443. An offline run connects to nothing but loopback unless the
/// caller named the edge.
pub(crate) async fn probe(
    hostname: &str,
    address_answers: &[(Arc<Answer>, Arc<Answer>)],
    options: &DoctorOptions,
    source: &TlsSource,
    now: DateTime<Utc>,
) -> (TlsProbe, Vec<Finding>) {
    let edge = options.edge;
    let extra_roots_pem = options.extra_roots_pem.as_deref();
    let timeout = options.timeout;
    let offline = options.is_offline();
    let address = edge.or_else(|| {
        address_answers.iter().find_map(|(a, _)| {
            a.records_of_type("A")
                .find_map(|record| record.value.parse::<std::net::Ipv4Addr>().ok())
                .map(|ip| SocketAddr::from((ip, 443)))
        })
    });
    let Some(address) = address else {
        let probe = TlsProbe {
            address: String::new(),
            connected: false,
            error: Some("no address to connect to".to_owned()),
            certificate: None,
            http_status: None,
            location: None,
        };
        return (probe, Vec::new());
    };
    if offline && edge.is_none() && !address.ip().is_loopback() {
        let probe = TlsProbe {
            address: address.to_string(),
            connected: false,
            error: Some(
                "offline run: the edge is not on this machine; name it to probe it".to_owned(),
            ),
            certificate: None,
            http_status: None,
            location: None,
        };
        return (probe, Vec::new());
    }
    let outcome = source
        .observe(hostname, address, extra_roots_pem, timeout, now)
        .await;
    match outcome {
        Ok(observed) => {
            let probe = TlsProbe {
                address: address.to_string(),
                connected: true,
                error: None,
                certificate: observed
                    .chain
                    .first()
                    .map(|der| describe(der, hostname, observed.trust_error.clone())),
                http_status: observed.http_status,
                location: observed.location,
            };
            let findings = judge(hostname, &probe, now);
            (probe, findings)
        }
        Err(error) => {
            let hint = if error.contains("AccessDenied") || error.contains("UnrecognisedName") {
                " The edge refused the name: no project serves it yet (attach it to a project \
                 and verify it), or it was removed."
            } else {
                ""
            };
            let finding = Finding {
                code: FindingCode::TlsUnreachable,
                severity: Severity::Warning,
                title: format!("No TLS connection to the edge for {hostname}"),
                detail: format!(
                    "Connecting to {address} with the name {hostname} failed: {error}.{hint}"
                ),
                evidence: Vec::new(),
                fix: None,
                cached_until: None,
            };
            let probe = TlsProbe {
                address: address.to_string(),
                connected: false,
                error: Some(error),
                certificate: None,
                http_status: None,
                location: None,
            };
            (probe, vec![finding])
        }
    }
}

/// Findings about a probe's certificate and HTTP answer, at the instant `now`.
pub fn judge(hostname: &str, probe: &TlsProbe, now: DateTime<Utc>) -> Vec<Finding> {
    let mut findings = Vec::new();
    let finding = |code, severity, title: String, detail: String| Finding {
        code,
        severity,
        title,
        detail,
        evidence: Vec::new(),
        fix: None,
        cached_until: None,
    };
    if let Some(certificate) = &probe.certificate {
        let names = certificate.names.join(", ");
        let expired = certificate.not_after.is_some_and(|end| end <= now);
        let days_left = certificate
            .not_after
            .map(|end| (end - now).num_days())
            .unwrap_or(i64::MAX);
        if !certificate.covers_hostname {
            findings.push(finding(
                FindingCode::TlsNameMismatch,
                Severity::Warning,
                format!("The edge serves a certificate that does not cover {hostname}"),
                format!(
                    "It is for {names}, issued by {}. Browsers show a warning until the \
                     certificate for {hostname} is issued (usually minutes after \
                     verification).",
                    certificate.issuer
                ),
            ));
        } else if expired {
            findings.push(finding(
                FindingCode::TlsExpired,
                Severity::Error,
                format!("The certificate for {hostname} has expired"),
                format!(
                    "It expired on {} ({}); renewal has failed.",
                    certificate
                        .not_after
                        .map(crate::clock::human_time)
                        .unwrap_or_default(),
                    certificate
                        .not_after
                        .map(|end| crate::clock::relative(end, now))
                        .unwrap_or_default()
                ),
            ));
        } else if !certificate.trusted {
            findings.push(finding(
                FindingCode::TlsUntrusted,
                Severity::Warning,
                format!("The certificate for {hostname} is not trusted here"),
                format!(
                    "Issued by {}: {}.",
                    certificate.issuer,
                    certificate
                        .trust_error
                        .as_deref()
                        .unwrap_or("no trusted root")
                ),
            ));
        } else if days_left < EXPIRY_WARNING_DAYS {
            findings.push(finding(
                FindingCode::TlsExpiringSoon,
                Severity::Warning,
                format!("The certificate for {hostname} expires in {days_left} days"),
                "It should have been renewed by now.".to_owned(),
            ));
        } else {
            findings.push(finding(
                FindingCode::TlsCertificateOk,
                Severity::Ok,
                format!("The edge serves a valid certificate for {hostname}"),
                format!(
                    "Issued by {} for {names}, valid for {days_left} more days.",
                    certificate.issuer
                ),
            ));
        }
    }
    if let (Some(status), Some(location)) = (probe.http_status, &probe.location) {
        if (300..400).contains(&status) {
            findings.push(finding(
                FindingCode::Redirect,
                Severity::Info,
                format!("{hostname} redirects ({status}) to {location}"),
                if status == 301 {
                    "A permanent redirect, as configured for a redirect domain.".to_owned()
                } else {
                    format!("A {status} redirect; redirect domains on the platform answer 301.")
                },
            ));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CertificateInfo;
    use crate::tls_probe::name_covers;

    #[test]
    fn judges_expiry_names_and_redirects() {
        let now = Utc::now();
        let certificate = |names: &[&str], days: i64, trusted: bool| CertificateInfo {
            subject: "CN=test".into(),
            issuer: "CN=Local CA".into(),
            names: names.iter().map(|name| (*name).to_owned()).collect(),
            not_before: Some(now - chrono::Duration::days(1)),
            not_after: Some(now + chrono::Duration::days(days)),
            covers_hostname: names
                .iter()
                .any(|name| name_covers(name, "www.example.com")),
            trusted,
            trust_error: (!trusted).then(|| "unknown issuer".to_owned()),
        };
        let probe = |certificate, status, location: Option<&str>| TlsProbe {
            address: "127.0.0.1:443".into(),
            connected: true,
            error: None,
            certificate: Some(certificate),
            http_status: status,
            location: location.map(str::to_owned),
        };
        let codes = |probe: TlsProbe| {
            judge("www.example.com", &probe, now)
                .into_iter()
                .map(|finding| (finding.code, finding.severity))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            codes(probe(
                certificate(&["www.example.com"], 60, true),
                Some(200),
                None
            )),
            vec![(FindingCode::TlsCertificateOk, Severity::Ok)]
        );
        assert_eq!(
            codes(probe(certificate(&["other.example"], 60, true), None, None)),
            vec![(FindingCode::TlsNameMismatch, Severity::Warning)]
        );
        assert_eq!(
            codes(probe(certificate(&["*.example.com"], -1, true), None, None)),
            vec![(FindingCode::TlsExpired, Severity::Error)]
        );
        assert_eq!(
            codes(probe(
                certificate(&["www.example.com"], 5, true),
                None,
                None
            )),
            vec![(FindingCode::TlsExpiringSoon, Severity::Warning)]
        );
        assert_eq!(
            codes(probe(
                certificate(&["www.example.com"], 60, false),
                Some(301),
                Some("https://example.com/")
            )),
            vec![
                (FindingCode::TlsUntrusted, Severity::Warning),
                (FindingCode::Redirect, Severity::Info)
            ]
        );
    }
}

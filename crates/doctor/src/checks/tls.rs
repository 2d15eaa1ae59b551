//! Once DNS is right: a TLS connection to the edge as a browser would make it (SNI = the
//! hostname), to show which certificate is served (issuer, names, expiry) and what `GET /`
//! answers (a 301 and its target for a redirect domain).
//!
//! Every address the name reaches is probed on its own (its A and AAAA records, at most
//! [`MAX_ADDRESSES`], all at once): a visitor or the CA may reach any of them, and one left
//! behind by an old host, or an edge node that serves another name, breaks the site for some
//! and not for others. The first address (IPv4 first) is the edge the name is judged by, as
//! before; when the addresses do not all serve the same, each address that serves a
//! certificate for another name, an expired or untrusted one, or refuses is a
//! `tls_address_mismatch` naming the address and the fix. An edge the caller names stays the
//! one address probed.
//!
//! The connection itself (the handshake that accepts any certificate so a wrong one can be
//! shown, the recording and replaying) is `tls_probe.rs`; this file decides what to connect
//! to and judges what was seen.
//!
//! It is longer than the house's 500 lines with its tests (about 470 of code, 410 of tests): it
//! is one job, which addresses to probe and what each one served, judged alone (`judge`) and
//! against the others (`mismatches`); most of its tests (`per_address`) share one set-up, TLS
//! listeners on loopback under a test CA, a closed port, and options that trust that CA. The
//! handshake and its recording are apart already (`tls_probe.rs`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures::future::join_all;

use crate::dns::Answer;
use crate::options::DoctorOptions;
use crate::report::{
    ChangeAction, Finding, FindingCode, Fix, NameKind, RecordChange, Severity, TlsProbe,
};
use crate::tls_probe::{TlsSource, describe};

/// A certificate closer to expiry than this is worth a warning.
const EXPIRY_WARNING_DAYS: i64 = 14;

/// The most addresses of one name probed.
pub const MAX_ADDRESSES: usize = 4;

/// What probing a name's addresses found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsProbes {
    /// The connection the name is judged by: the edge the caller named, or the first address.
    pub edge: TlsProbe,
    /// One connection per address when the name reaches more than one (the first is `edge`);
    /// empty otherwise (`HostReport::tls_addresses`).
    pub addresses: Vec<TlsProbe>,
    /// The edge's findings, then one `tls_address_mismatch` per address that serves what the
    /// others do not.
    pub findings: Vec<Finding>,
}

/// One address the name reaches, with the record that gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// Where to connect (port 443).
    pub address: SocketAddr,
    /// The owner of the A or AAAA record: the hostname itself, or the end of its CNAME chain.
    pub owner: String,
    /// `A` or `AAAA`.
    pub record_type: String,
    pub ttl: u32,
}

/// The distinct addresses the name reaches, from the first server's answer that holds any
/// (the judged one when it holds them; an authoritative server stops at a CNAME out of its
/// zone, and the resolvers behind it then give the addresses): IPv4 and IPv6 taken in turn,
/// IPv4 first, at most [`MAX_ADDRESSES`].
pub fn reached_addresses(address_answers: &[(Arc<Answer>, Arc<Answer>)]) -> Vec<Reached> {
    let listed = |answer: &Answer, record_type: &str| -> Vec<Reached> {
        answer
            .records_of_type(record_type)
            .filter_map(|record| {
                let ip: IpAddr = record.value.parse().ok()?;
                Some(Reached {
                    address: SocketAddr::new(ip, 443),
                    owner: record.name.clone(),
                    record_type: record_type.to_owned(),
                    ttl: record.ttl,
                })
            })
            .collect()
    };
    let Some((v4, v6)) = address_answers
        .iter()
        .map(|(a, aaaa)| (listed(a, "A"), listed(aaaa, "AAAA")))
        .find(|(v4, v6)| !v4.is_empty() || !v6.is_empty())
    else {
        return Vec::new();
    };
    let mut reached: Vec<Reached> = Vec::new();
    let (mut v4, mut v6) = (v4.into_iter(), v6.into_iter());
    loop {
        let (four, six) = (v4.next(), v6.next());
        if four.is_none() && six.is_none() {
            break;
        }
        for next in [four, six].into_iter().flatten() {
            if !reached.iter().any(|seen| seen.address == next.address) {
                reached.push(next);
            }
        }
    }
    reached.truncate(MAX_ADDRESSES);
    reached
}

/// Probes the edge for `hostname` through `source` (live, recording or replaying), judging
/// expiry at `now`: at `edge` when given, else at every address the servers returned
/// ([`reached_addresses`]), port 443. An offline run connects to nothing but loopback unless
/// the caller named the edge. `kind` (the name's zone) lets the fix for a wrong address name
/// the record to remove.
pub(crate) async fn probe_all(
    hostname: &str,
    kind: Option<&NameKind>,
    address_answers: &[(Arc<Answer>, Arc<Answer>)],
    options: &DoctorOptions,
    source: &TlsSource,
    now: DateTime<Utc>,
) -> TlsProbes {
    let reached = match options.edge {
        Some(edge) => vec![Reached {
            address: edge,
            owner: hostname.to_owned(),
            record_type: String::new(),
            ttl: 0,
        }],
        None => reached_addresses(address_answers),
    };
    probe_addresses(hostname, kind, &reached, options, source, now).await
}

/// How one address did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    /// A trusted certificate for the name, in date.
    Valid,
    OtherName,
    Expired,
    Untrusted,
    /// No TLS connection.
    Refused,
    /// Not tried (an offline run's address off this machine), or unreachable from this
    /// computer (no route to its network): nothing to say about the address itself.
    Unjudged,
}

fn served(probe: &TlsProbe, now: DateTime<Utc>) -> Served {
    if !probe.connected {
        let error = probe
            .error
            .as_deref()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let not_tried = error.starts_with("offline run")
            || error.contains("network is unreachable")
            || error.contains("unreachable network");
        return if not_tried {
            Served::Unjudged
        } else {
            Served::Refused
        };
    }
    match &probe.certificate {
        None => Served::Refused,
        Some(certificate) if !certificate.covers_hostname => Served::OtherName,
        Some(certificate) if certificate.not_after.is_some_and(|end| end <= now) => Served::Expired,
        Some(certificate) if !certificate.trusted => Served::Untrusted,
        Some(_) => Served::Valid,
    }
}

/// [`probe`] at the given addresses (any port), all at once: the first is the edge the name
/// is judged by.
pub(crate) async fn probe_addresses(
    hostname: &str,
    kind: Option<&NameKind>,
    reached: &[Reached],
    options: &DoctorOptions,
    source: &TlsSource,
    now: DateTime<Utc>,
) -> TlsProbes {
    let probes = join_all(
        reached
            .iter()
            .map(|reached| probe_one(hostname, reached.address, options, source, now)),
    )
    .await;
    let mut probes = probes.into_iter();
    let Some((edge, mut findings)) = probes.next() else {
        let edge = TlsProbe {
            address: String::new(),
            connected: false,
            error: Some("no address to connect to".to_owned()),
            certificate: None,
            http_status: None,
            location: None,
        };
        return TlsProbes {
            edge,
            addresses: Vec::new(),
            findings: Vec::new(),
        };
    };
    if reached.len() < 2 {
        return TlsProbes {
            edge,
            addresses: Vec::new(),
            findings,
        };
    }
    let addresses: Vec<TlsProbe> = std::iter::once(edge.clone())
        .chain(probes.map(|(probe, _)| probe))
        .collect();
    findings.extend(mismatches(hostname, kind, reached, &addresses, now));
    TlsProbes {
        edge,
        addresses,
        findings,
    }
}

/// The address as a person reads it: the IP alone on port 443.
fn shown_address(address: SocketAddr) -> String {
    if address.port() == 443 {
        address.ip().to_string()
    } else {
        address.to_string()
    }
}

/// One `tls_address_mismatch` for each address that does not serve what the others do,
/// when the addresses (those that could be judged) do not all serve the same.
fn mismatches(
    hostname: &str,
    kind: Option<&NameKind>,
    reached: &[Reached],
    probes: &[TlsProbe],
    now: DateTime<Utc>,
) -> Vec<Finding> {
    let judged: Vec<(&Reached, &TlsProbe, Served)> = reached
        .iter()
        .zip(probes)
        .map(|(reached, probe)| (reached, probe, served(probe, now)))
        .filter(|(_, _, served)| *served != Served::Unjudged)
        .collect();
    let Some((_, _, first)) = judged.first() else {
        return Vec::new();
    };
    if judged.iter().all(|(_, _, served)| served == first) {
        return Vec::new();
    }
    let count = reached.len();
    let valid: Vec<String> = judged
        .iter()
        .filter(|(_, _, served)| *served == Served::Valid)
        .map(|(reached, _, _)| shown_address(reached.address))
        .collect();
    let all: Vec<String> = reached
        .iter()
        .map(|reached| shown_address(reached.address))
        .collect();
    judged
        .iter()
        .filter(|(_, _, served)| *served != Served::Valid)
        .map(|(reached, probe, served)| {
            let address = shown_address(reached.address);
            let names = probe
                .certificate
                .as_ref()
                .map(|certificate| certificate.names.join(", "))
                .unwrap_or_default();
            let (what, why) = match served {
                Served::OtherName => (
                    format!("serves a certificate for {names}"),
                    format!("Its certificate is for {names}, not {hostname}"),
                ),
                Served::Expired => (
                    format!("serves an expired certificate for {hostname}"),
                    format!(
                        "Its certificate for {hostname} expired on {}",
                        probe
                            .certificate
                            .as_ref()
                            .and_then(|certificate| certificate.not_after)
                            .map(crate::clock::human_time)
                            .unwrap_or_default()
                    ),
                ),
                Served::Untrusted => (
                    format!("serves a certificate for {hostname} that is not trusted"),
                    format!(
                        "Its certificate for {hostname} does not chain to a trusted root ({})",
                        probe
                            .certificate
                            .as_ref()
                            .and_then(|certificate| certificate.trust_error.as_deref())
                            .unwrap_or("no trusted root")
                    ),
                ),
                _ => (
                    format!("refuses the TLS connection for {hostname}"),
                    format!(
                        "Connecting to it with the name {hostname} failed ({})",
                        probe.error.as_deref().unwrap_or("no certificate")
                    ),
                ),
            };
            let others = if valid.is_empty() {
                String::from("the other addresses serve something else again")
            } else {
                format!(
                    "{} {} a valid certificate for {hostname}",
                    valid.join(", "),
                    if valid.len() == 1 { "serves" } else { "serve" }
                )
            };
            let own_record = reached.owner == hostname && !reached.record_type.is_empty();
            let fix = match kind.filter(|_| own_record) {
                Some(kind) => Fix {
                    summary: format!(
                        "If {address} is not the platform's, remove the {} record {address} at \
                         {} in the zone {}; if it is, the server behind it must serve \
                         {hostname}'s certificate.",
                        reached.record_type, kind.relative_name, kind.zone
                    ),
                    changes: vec![RecordChange {
                        action: ChangeAction::Remove,
                        zone: kind.zone.clone(),
                        name: kind.relative_name.clone(),
                        record_type: reached.record_type.clone(),
                        value: reached.address.ip().to_string(),
                        ttl: Some(reached.ttl),
                    }],
                    steps: Vec::new(),
                },
                None => Fix {
                    summary: format!(
                        "{address} is an address of {}, which {hostname} points at: whoever \
                         runs {} (the platform, when it is the platform's target) must fix the \
                         server behind it or take the address out.",
                        reached.owner, reached.owner
                    ),
                    changes: Vec::new(),
                    steps: Vec::new(),
                },
            };
            Finding {
                code: FindingCode::TlsAddressMismatch,
                severity: Severity::Error,
                title: format!("One of the {count} addresses ({address}) {what}"),
                detail: format!(
                    "{hostname} resolves to {}, and visitors and the CA may reach any of them. \
                     {why}, while {others}: whoever reaches {address} gets a certificate \
                     warning or no site.",
                    all.join(", ")
                ),
                evidence: Vec::new(),
                fix: Some(fix),
                cached_until: None,
            }
        })
        .collect()
}

/// One connection to `address`, and the findings about it as the edge the name is judged by.
async fn probe_one(
    hostname: &str,
    address: SocketAddr,
    options: &DoctorOptions,
    source: &TlsSource,
    now: DateTime<Utc>,
) -> (TlsProbe, Vec<Finding>) {
    let edge = options.edge;
    let extra_roots_pem = options.extra_roots_pem.as_deref();
    let timeout = options.timeout;
    let offline = options.is_offline();
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

    /// Two local TLS listeners and a closed port stand for the addresses a name reaches:
    /// certificates from a local CA the probe is told to trust (the service's, as against the
    /// local service's edge).
    mod per_address {
        use std::time::Duration;

        use domain_desk_service::ca::authority::CertificateAuthority;
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio::net::TcpListener;
        use tokio_rustls::TlsAcceptor;

        use super::*;
        use crate::dns::DnsRecord;

        const HOSTNAME: &str = "www.shop.test";

        /// A listener on 127.0.0.1 serving a certificate for `names` from `ca`, answering
        /// `GET /` with 200; it stops with the test's runtime.
        async fn listen(ca: &CertificateAuthority, names: &[&str]) -> SocketAddr {
            let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
            let issued = ca.issue(&names, Utc::now()).unwrap();
            let chain =
                vec![CertificateDer::from_pem_slice(issued.certificate_pem.as_bytes()).unwrap()];
            let key = PrivateKeyDer::from_pem_slice(issued.key_pem.as_bytes()).unwrap();
            let config = rustls::ServerConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
            let acceptor = TlsAcceptor::from(Arc::new(config));
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            tokio::spawn(async move {
                while let Ok((tcp, _)) = listener.accept().await {
                    let acceptor = acceptor.clone();
                    tokio::spawn(async move {
                        if let Ok(mut tls) = acceptor.accept(tcp).await {
                            let mut request = [0u8; 2048];
                            let _ = tls.read(&mut request).await;
                            let _ = tls
                                .write_all(
                                    b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                                )
                                .await;
                            let _ = tls.shutdown().await;
                        }
                    });
                }
            });
            address
        }

        /// A loopback port nothing listens on.
        async fn closed_port() -> SocketAddr {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.local_addr().unwrap()
        }

        fn reach(address: SocketAddr, owner: &str) -> Reached {
            Reached {
                address,
                owner: owner.to_owned(),
                record_type: "A".to_owned(),
                ttl: 300,
            }
        }

        fn kind() -> NameKind {
            NameKind {
                apex: false,
                registrable_apex: false,
                zone_apex: Some(false),
                public_suffix: "test".to_owned(),
                registrable_domain: "shop.test".to_owned(),
                zone: "shop.test".to_owned(),
                relative_name: "www".to_owned(),
            }
        }

        fn options(ca: &CertificateAuthority) -> DoctorOptions {
            let mut options = DoctorOptions::new("edge.platform.test")
                .with_resolvers(["127.0.0.1:53".parse().unwrap()])
                .with_timeout(Duration::from_secs(2));
            options.extra_roots_pem = Some(ca.certificate_pem().to_owned());
            options
        }

        fn codes(probes: &TlsProbes) -> Vec<(FindingCode, Severity)> {
            probes
                .findings
                .iter()
                .map(|finding| (finding.code, finding.severity))
                .collect()
        }

        #[tokio::test]
        async fn an_address_that_serves_another_name_is_named_with_its_record() {
            let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
            let good = listen(&ca, &[HOSTNAME]).await;
            let other = listen(&ca, &["other.example"]).await;
            let options = options(&ca);
            let reached = [reach(good, HOSTNAME), reach(other, HOSTNAME)];
            let probes = probe_addresses(
                HOSTNAME,
                Some(&kind()),
                &reached,
                &options,
                &TlsSource::Network,
                Utc::now(),
            )
            .await;
            // the first address is the edge the name is judged by
            assert_eq!(probes.edge.address, good.to_string());
            assert!(probes.edge.connected, "{:?}", probes.edge);
            assert_eq!(probes.edge.http_status, Some(200));
            assert_eq!(
                probes
                    .addresses
                    .iter()
                    .map(|probe| probe.address.clone())
                    .collect::<Vec<_>>(),
                [good.to_string(), other.to_string()]
            );
            assert_eq!(
                codes(&probes),
                [
                    (FindingCode::TlsCertificateOk, Severity::Ok),
                    (FindingCode::TlsAddressMismatch, Severity::Error)
                ]
            );
            let mismatch = &probes.findings[1];
            assert_eq!(
                mismatch.title,
                format!("One of the 2 addresses ({other}) serves a certificate for other.example")
            );
            assert_eq!(
                mismatch.detail,
                format!(
                    "www.shop.test resolves to {good}, {other}, and visitors and the CA may \
                     reach any of them. Its certificate is for other.example, not \
                     www.shop.test, while {good} serves a valid certificate for \
                     www.shop.test: whoever reaches {other} gets a certificate warning or no \
                     site."
                )
            );
            let fix = mismatch.fix.as_ref().unwrap();
            assert_eq!(
                fix.changes,
                [RecordChange {
                    action: ChangeAction::Remove,
                    zone: "shop.test".to_owned(),
                    name: "www".to_owned(),
                    record_type: "A".to_owned(),
                    value: "127.0.0.1".to_owned(),
                    ttl: Some(300),
                }]
            );
            assert!(
                fix.summary.starts_with(&format!(
                    "If {other} is not the platform's, remove the A record {other} at www in \
                     the zone shop.test"
                )),
                "{}",
                fix.summary
            );
        }

        #[tokio::test]
        async fn a_refusing_address_and_an_untrusted_one_beside_a_good_one() {
            let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
            let stranger = CertificateAuthority::generate("other-ca.example").unwrap();
            let good = listen(&ca, &[HOSTNAME]).await;
            let untrusted = listen(&stranger, &[HOSTNAME]).await;
            let refused = closed_port().await;
            let options = options(&ca);
            // the refusing address is the platform target's, reached through the CNAME
            let reached = [
                reach(good, HOSTNAME),
                reach(untrusted, HOSTNAME),
                reach(refused, "edge.platform.test"),
            ];
            let probes = probe_addresses(
                HOSTNAME,
                Some(&kind()),
                &reached,
                &options,
                &TlsSource::Network,
                Utc::now(),
            )
            .await;
            let titles: Vec<&str> = probes
                .findings
                .iter()
                .filter(|finding| finding.code == FindingCode::TlsAddressMismatch)
                .map(|finding| finding.title.as_str())
                .collect();
            assert_eq!(
                titles,
                [
                    format!(
                        "One of the 3 addresses ({untrusted}) serves a certificate for \
                         www.shop.test that is not trusted"
                    ),
                    format!(
                        "One of the 3 addresses ({refused}) refuses the TLS connection for \
                         www.shop.test"
                    ),
                ]
            );
            let refusing = &probes.findings[2];
            assert!(
                refusing.detail.contains(
                    "Connecting to it with the name www.shop.test failed (cannot connect:"
                ),
                "{}",
                refusing.detail
            );
            // not the customer's record: no change to make at their provider
            let fix = refusing.fix.as_ref().unwrap();
            assert!(fix.changes.is_empty());
            assert!(
                fix.summary.starts_with(&format!(
                    "{refused} is an address of edge.platform.test, which www.shop.test points at"
                )),
                "{}",
                fix.summary
            );
            assert!(!probes.addresses[2].connected);
        }

        #[tokio::test]
        async fn addresses_that_agree_and_a_single_address_add_nothing() {
            let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
            // before issuance every address serves the platform's own certificate
            let first = listen(&ca, &["edge.platform.test"]).await;
            let second = listen(&ca, &["edge.platform.test"]).await;
            let options = options(&ca);
            let probes = probe_addresses(
                HOSTNAME,
                Some(&kind()),
                &[reach(first, HOSTNAME), reach(second, HOSTNAME)],
                &options,
                &TlsSource::Network,
                Utc::now(),
            )
            .await;
            assert_eq!(
                codes(&probes),
                [(FindingCode::TlsNameMismatch, Severity::Warning)]
            );
            assert_eq!(probes.addresses.len(), 2);

            let probes = probe_addresses(
                HOSTNAME,
                Some(&kind()),
                &[reach(first, HOSTNAME)],
                &options,
                &TlsSource::Network,
                Utc::now(),
            )
            .await;
            assert_eq!(
                codes(&probes),
                [(FindingCode::TlsNameMismatch, Severity::Warning)]
            );
            assert!(probes.addresses.is_empty());
        }

        #[tokio::test]
        async fn each_address_is_recorded_and_replayed() {
            let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
            let good = listen(&ca, &[HOSTNAME]).await;
            let other = listen(&ca, &["other.example"]).await;
            let options = options(&ca);
            let reached = [reach(good, HOSTNAME), reach(other, HOSTNAME)];
            let now = Utc::now();
            let recording = TlsSource::Recording(Default::default());
            let live =
                probe_addresses(HOSTNAME, Some(&kind()), &reached, &options, &recording, now).await;
            let recorded = recording.recorded();
            assert_eq!(recorded.len(), 2);
            let replayed = probe_addresses(
                HOSTNAME,
                Some(&kind()),
                &reached,
                &options,
                &TlsSource::Replay(recorded),
                now,
            )
            .await;
            assert_eq!(replayed, live);
        }

        fn answer(kind: &'static str, records: &[(&str, &'static str, &str)]) -> Arc<Answer> {
            Arc::new(Answer::answered(
                "192.0.2.53:53".to_owned(),
                HOSTNAME.to_owned(),
                kind,
                hickory_proto::op::ResponseCode::NoError,
                false,
                records
                    .iter()
                    .map(|(name, record_type, value)| DnsRecord {
                        name: (*name).to_owned(),
                        record_type: (*record_type).into(),
                        ttl: 60,
                        value: (*value).to_owned(),
                    })
                    .collect(),
                Vec::new(),
            ))
        }

        #[test]
        fn the_addresses_reached_take_each_family_in_turn() {
            let cname = (HOSTNAME, "CNAME", "edge.platform.test");
            // an authoritative server that stops at the CNAME, then a resolver with the chain
            let stopped = (answer("A", &[cname]), answer("AAAA", &[cname]));
            let resolved = (
                answer(
                    "A",
                    &[
                        cname,
                        ("edge.platform.test", "A", "192.0.2.1"),
                        ("edge.platform.test", "A", "192.0.2.2"),
                        ("edge.platform.test", "A", "192.0.2.3"),
                        ("edge.platform.test", "A", "192.0.2.1"),
                    ],
                ),
                answer(
                    "AAAA",
                    &[
                        cname,
                        ("edge.platform.test", "AAAA", "2001:db8::1"),
                        ("edge.platform.test", "AAAA", "2001:db8::2"),
                    ],
                ),
            );
            let reached = reached_addresses(&[stopped, resolved]);
            assert_eq!(
                reached
                    .iter()
                    .map(|reached| reached.address.to_string())
                    .collect::<Vec<_>>(),
                [
                    "192.0.2.1:443",
                    "[2001:db8::1]:443",
                    "192.0.2.2:443",
                    "[2001:db8::2]:443"
                ]
            );
            assert!(
                reached
                    .iter()
                    .all(|reached| reached.owner == "edge.platform.test")
            );
            assert_eq!(reached[1].record_type, "AAAA");
            assert!(reached_addresses(&[]).is_empty());
        }
    }
}

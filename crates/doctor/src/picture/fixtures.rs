//! Hand-built host reports for the picture's tests (and the renderers'): a CNAME to a
//! misspelt target, and a zone halfway through a move with a lame server, a resolver holding
//! a cached "no such name" and two addresses, one serving another name's certificate.

use chrono::{DateTime, Utc};

use crate::dns::{AnswerStatus, DnsRecord};
use crate::report::{
    AnswerChain, CertificateInfo, ChainEnd, ChainLink, ChangeAction, Delegation, Evidence, Finding,
    FindingCode, HostReport, NameserverCheck, NameserverState, RecordChange, Severity, Source,
    SourceKind, SourceView, TlsProbe,
};

pub const TARGET: &str = "edge.platform.net";

pub fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

pub fn source(label: &str, address: &str, kind: SourceKind) -> Source {
    Source {
        label: label.to_owned(),
        address: address.to_owned(),
        kind,
        recursive: kind != SourceKind::Authoritative,
    }
}

pub fn cname(name: &str, target: &str) -> DnsRecord {
    DnsRecord {
        name: name.to_owned(),
        record_type: "CNAME".into(),
        ttl: 300,
        value: target.to_owned(),
    }
}

pub fn view(source: Source, agrees: Option<bool>, chain: AnswerChain) -> SourceView {
    let status = match chain.end {
        ChainEnd::NoSuchName { .. } => AnswerStatus::NxDomain,
        ChainEnd::Failed { status, .. } => status,
        _ => AnswerStatus::NoError,
    };
    SourceView {
        source,
        status,
        error: None,
        records: chain
            .links
            .iter()
            .map(|link| cname(&link.name, &link.target))
            .collect(),
        cache_expires_in_seconds: Some(300),
        agrees,
        chain: Some(chain),
        elapsed_ms: 1,
    }
}

pub fn link(name: &str, target: &str) -> ChainLink {
    ChainLink {
        name: name.to_owned(),
        target: target.to_owned(),
        ttl: 300,
    }
}

pub fn host(hostname: &str) -> HostReport {
    HostReport {
        input: hostname.to_owned(),
        hostname: hostname.to_owned(),
        unicode_hostname: hostname.to_owned(),
        name: None,
        expected_record: Some(RecordChange {
            action: ChangeAction::Add,
            zone: "example.com".to_owned(),
            name: "www".to_owned(),
            record_type: "CNAME".to_owned(),
            value: TARGET.to_owned(),
            ttl: Some(3600),
        }),
        nameservers: Vec::new(),
        provider: None,
        views: Vec::new(),
        caa: None,
        tls: None,
        tls_addresses: Vec::new(),
        delegation: None,
        findings: Vec::new(),
        elapsed_ms: 1,
    }
}

/// `www.example.com` is a CNAME to `cname.pages.exmaple.net`, which does not exist.
pub fn misspelt_target() -> HostReport {
    let mut host = host("www.example.com");
    host.expected_record.as_mut().unwrap().value = "cname.pages.example.net".to_owned();
    host.views = vec![
        view(
            source(
                "ns1.example.com (authoritative)",
                "192.0.2.53:53",
                SourceKind::Authoritative,
            ),
            Some(true),
            AnswerChain {
                links: vec![link("www.example.com", "cname.pages.exmaple.net")],
                end: ChainEnd::OutOfZone {
                    name: "cname.pages.exmaple.net".to_owned(),
                },
            },
        ),
        view(
            source("Cloudflare 1.1.1.1", "1.1.1.1:53", SourceKind::Public),
            Some(true),
            AnswerChain {
                links: vec![link("www.example.com", "cname.pages.exmaple.net")],
                end: ChainEnd::NoSuchName {
                    name: "cname.pages.exmaple.net".to_owned(),
                },
            },
        ),
    ];
    host.findings = vec![Finding {
        code: FindingCode::CnameMismatch,
        severity: Severity::Error,
        title: "www.example.com points at cname.pages.exmaple.net".to_owned(),
        detail: "a misspelt target".to_owned(),
        evidence: Vec::new(),
        fix: None,
        cached_until: None,
    }];
    host
}

fn certificate(names: &[&str], covers: bool) -> CertificateInfo {
    CertificateInfo {
        subject: format!("CN={}", names[0]),
        issuer: "CN=Demo CA".to_owned(),
        names: names.iter().map(|name| (*name).to_owned()).collect(),
        not_before: None,
        not_after: None,
        covers_hostname: covers,
        trusted: true,
        trust_error: None,
    }
}

pub fn probe(address: &str, certificate: Option<CertificateInfo>) -> TlsProbe {
    TlsProbe {
        address: address.to_owned(),
        connected: certificate.is_some(),
        error: None,
        certificate,
        http_status: Some(200),
        location: None,
    }
}

/// A zone whose registry lists a server that refuses it, a resolver that cached "no such
/// name" before the record existed, and two addresses, one serving another name.
pub fn half_moved() -> HostReport {
    let mut host = host("www.example.com");
    host.delegation = Some(Delegation {
        zone: "example.com".to_owned(),
        parent_zone: "com".to_owned(),
        parent_servers: vec!["a.gtld-servers.net".to_owned()],
        registry_nameservers: vec!["ns1.example.com".to_owned(), "ns2.other.net".to_owned()],
        glue: Vec::new(),
        zone_nameservers: vec!["ns1.example.com".to_owned()],
        nameservers: vec![
            NameserverCheck {
                name: "ns1.example.com".to_owned(),
                address: Some("192.0.2.53:53".to_owned()),
                in_registry: true,
                in_zone: true,
                state: NameserverState::Serves,
                answered: "authoritative, serial 7".to_owned(),
                serial: Some(7),
                soa_primary: Some("ns1.example.com".to_owned()),
                provider: None,
            },
            NameserverCheck {
                name: "ns2.other.net".to_owned(),
                address: Some("198.51.100.53:53".to_owned()),
                in_registry: true,
                in_zone: true,
                state: NameserverState::Lame,
                answered: "REFUSED".to_owned(),
                serial: None,
                soa_primary: None,
                provider: Some("Other DNS".to_owned()),
            },
        ],
    });
    let addresses = ChainEnd::Addresses {
        name: TARGET.to_owned(),
        addresses: vec!["127.0.0.10".to_owned(), "127.0.0.11".to_owned()],
    };
    host.views = vec![
        view(
            source(
                "ns1.example.com (authoritative)",
                "192.0.2.53:53",
                SourceKind::Authoritative,
            ),
            Some(true),
            AnswerChain {
                links: vec![link("www.example.com", TARGET)],
                end: ChainEnd::OutOfZone {
                    name: TARGET.to_owned(),
                },
            },
        ),
        view(
            source(
                "system resolver 127.0.0.6:53",
                "127.0.0.6:53",
                SourceKind::System,
            ),
            Some(true),
            AnswerChain {
                links: vec![link("www.example.com", TARGET)],
                end: addresses,
            },
        ),
        view(
            source("Google 8.8.8.8", "8.8.8.8:53", SourceKind::Public),
            Some(false),
            AnswerChain {
                links: Vec::new(),
                end: ChainEnd::NoSuchName {
                    name: "www.example.com".to_owned(),
                },
            },
        ),
    ];
    let answered = |server: &str, status: AnswerStatus, note: &str| Evidence {
        server: server.to_owned(),
        question: "www.example.com A".to_owned(),
        status,
        records: Vec::new(),
        note: Some(note.to_owned()),
    };
    host.findings = vec![
        Finding {
            code: FindingCode::LameNameserver,
            severity: Severity::Warning,
            title: "ns2.other.net refuses example.com".to_owned(),
            detail: String::new(),
            evidence: Vec::new(),
            fix: None,
            cached_until: None,
        },
        Finding {
            code: FindingCode::NegativeCached,
            severity: Severity::Warning,
            title: "Google 8.8.8.8 still answers \"no such name\"".to_owned(),
            detail: String::new(),
            evidence: vec![
                answered(
                    "ns1.example.com (authoritative)",
                    AnswerStatus::NoError,
                    "reference answer",
                ),
                answered(
                    "Google 8.8.8.8",
                    AnswerStatus::NxDomain,
                    "negative answer cached",
                ),
            ],
            fix: None,
            cached_until: Some(at("2026-11-26T12:45:00Z")),
        },
        Finding {
            code: FindingCode::RecordCorrect,
            severity: Severity::Ok,
            title: "www.example.com has the CNAME the platform asks for".to_owned(),
            detail: String::new(),
            evidence: Vec::new(),
            fix: None,
            cached_until: None,
        },
    ];
    host.tls_addresses = vec![
        probe(
            "127.0.0.10:443",
            Some(certificate(&["www.example.com"], true)),
        ),
        probe(
            "127.0.0.11:443",
            Some(certificate(&["other.example.org"], false)),
        ),
    ];
    host.tls = host.tls_addresses.first().cloned();
    host
}

/// A report of these hosts, as a run would give it.
pub fn report(hosts: Vec<HostReport>) -> crate::report::Report {
    crate::report::Report {
        generated_at: at("2026-11-26T12:40:00Z"),
        clock: crate::clock::RunClock::Wall,
        target: TARGET.to_owned(),
        ca_identity: "letsencrypt.org".to_owned(),
        offline: false,
        sources: Vec::new(),
        hosts,
        errors: 1,
        warnings: 2,
        elapsed_ms: 40,
    }
}

//! The checks of the path around a record, through `diagnose`: the ownership TXT record at
//! the zone-appended name, the records a fix must keep (mail beside the A record a CNAME
//! replaces, mail at a name that has nothing else, mail at an apex an ALIAS keeps), and TLS
//! at each of the platform target's addresses, one serving another name's certificate.

use std::sync::Arc;

use domain_desk_doctor::report::ChangeAction;
use domain_desk_doctor::{FindingCode, Severity, diagnose, diagnose_capturing, replay};
use hickory_proto::rr::RData;
use hickory_proto::rr::rdata::MX;

use crate::support::{TARGET, ZoneServer, Zones, name, options};
use crate::{finding, host};

fn mx() -> RData {
    RData::MX(MX::new(10, name("mx.mail.example")))
}

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .txt(
            "_domain-desk-challenge.www.example.com.example.com",
            "domain-desk-challenge=appended",
        )
        .a("shop.example.com", "192.0.2.10")
        .add("shop.example.com", 300, mx())
        .txt("shop.example.com", "v=spf1 include:_spf.mail.example -all")
        .add("mail.example.com", 300, mx());
    zones
        .zone("example.net")
        .a("example.net", "192.0.2.20")
        .add("example.net", 300, mx());
    zones
}

#[tokio::test]
async fn challenge_records_and_records_that_must_stay_in_a_diagnosis() {
    let server = ZoneServer::start(&world()).await;
    let names = [
        "www.example.com",
        "shop.example.com",
        "mail.example.com",
        "example.net",
    ];
    let (report, capture) = diagnose_capturing(&names, &options(&[server.address]))
        .await
        .unwrap();
    let text = report.to_text();
    let wrong = finding(
        host(&report, "www.example.com"),
        FindingCode::ChallengeAtWrongName,
    );
    assert_eq!(wrong.severity, Severity::Warning, "{text}");

    // the A record goes, the CNAME cannot come: mail and SPF are kept and said
    let shop = host(&report, "shop.example.com");
    let mail = finding(shop, FindingCode::RecordsAtName);
    assert_eq!(mail.severity, Severity::Error, "{text}");
    assert_eq!(
        mail.title,
        "A CNAME at shop.example.com would take its mail with it: it has MX and TXT records"
    );
    let conflicting = finding(shop, FindingCode::LiveElsewhere);
    let kept: Vec<&str> = conflicting
        .fix
        .as_ref()
        .unwrap()
        .changes
        .iter()
        .filter(|change| change.action == ChangeAction::Keep)
        .map(|change| change.record_type.as_str())
        .collect();
    assert_eq!(kept, ["MX", "TXT"], "{text}");

    // a name that only receives mail
    finding(
        host(&report, "mail.example.com"),
        FindingCode::RecordsAtName,
    );

    // an ALIAS stands beside the apex's mail: kept, nothing to warn about
    let apex = host(&report, "example.net");
    assert!(
        !apex
            .findings
            .iter()
            .any(|found| found.code == FindingCode::RecordsAtName),
        "{text}"
    );
    let mismatch = finding(apex, FindingCode::LiveElsewhere);
    assert!(
        mismatch
            .fix
            .as_ref()
            .unwrap()
            .changes
            .iter()
            .any(|change| change.action == ChangeAction::Keep && change.record_type == "MX"),
        "{text}"
    );
    assert_eq!(replay(&capture).await.unwrap(), report);
}

/// Two edges on port 443 of two loopback addresses, the platform target's addresses: one
/// serves the name's certificate, the other another name's. Port 443 needs root: without it
/// the test says so and passes, except under `CI=true`.
#[tokio::test]
async fn every_address_of_the_target_is_probed() {
    use domain_desk_service::ca::authority::CertificateAuthority;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let ca = CertificateAuthority::generate("letsencrypt.org").unwrap();
    let mut listeners = Vec::new();
    for (ip, names) in [
        ("127.0.0.71", "www.example.com"),
        ("127.0.0.72", "other.example"),
    ] {
        match tokio::net::TcpListener::bind((ip, 443)).await {
            Ok(listener) => listeners.push((listener, names)),
            Err(error)
                if error.kind() == std::io::ErrorKind::PermissionDenied
                    && !std::env::var("CI").is_ok_and(|value| value == "true") =>
            {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("skipping: port 443 needs root ({error})");
                }
                return;
            }
            Err(error) => panic!("cannot listen on {ip}:443: {error}"),
        }
    }
    for (listener, names) in listeners {
        let issued = ca.issue(&[names.to_owned()], chrono::Utc::now()).unwrap();
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
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    if let Ok(mut tls) = acceptor.accept(tcp).await {
                        let mut request = [0u8; 2048];
                        let _ = tls.read(&mut request).await;
                        let _ = tls
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                            .await;
                        let _ = tls.shutdown().await;
                    }
                });
            }
        });
    }
    let mut zones = Zones::default();
    zones
        .zone("platform.example.com")
        .a(TARGET, "127.0.0.71")
        .a(TARGET, "127.0.0.72");
    zones.zone("example.com").cname("www.example.com", TARGET);
    let server = ZoneServer::start(&zones).await;
    let mut options = options(&[server.address]).with_tls_probe(true);
    options.extra_roots_pem = Some(ca.certificate_pem().to_owned());
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    let www = host(&report, "www.example.com");
    let text = report.to_text();
    assert_eq!(www.tls_addresses.len(), 2, "{text}");
    assert_eq!(
        www.tls.as_ref().map(|probe| probe.address.as_str()),
        Some("127.0.0.71:443"),
        "{text}"
    );
    finding(www, FindingCode::TlsCertificateOk);
    let mismatch = finding(www, FindingCode::TlsAddressMismatch);
    assert_eq!(
        mismatch.title,
        "One of the 2 addresses (127.0.0.72) serves a certificate for other.example"
    );
    // the address is the platform target's, not a record of the customer's
    let fix = mismatch.fix.as_ref().unwrap();
    assert!(fix.changes.is_empty(), "{text}");
    assert!(
        fix.summary
            .starts_with("127.0.0.72 is an address of edge.platform.example.com"),
        "{text}"
    );
}

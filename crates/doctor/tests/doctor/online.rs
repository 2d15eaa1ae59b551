//! An online run (no --resolver): the zone's nameservers are found through NS records and
//! asked directly beside the resolvers, and they are the reference when views disagree.
//! Everything still runs on loopback: the "public resolver" is a test server and the zone's
//! nameserver lives at 127.0.0.2.

use domain_desk_doctor::report::SourceKind;
use domain_desk_doctor::{DoctorOptions, FindingCode, Severity, diagnose};

use crate::support::{CA, TARGET, ZoneServer, Zones};
use crate::{codes, finding, host};

#[tokio::test]
async fn the_zones_nameservers_are_the_reference_and_resolvers_lag() {
    let mut fresh = Zones::with_platform();
    fresh
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .a("ns1.example.com", "127.0.0.2");
    let nameserver = ZoneServer::start_on(&fresh, "127.0.0.2").await;

    // The resolver still has the old A record cached.
    let mut cached = Zones::with_platform();
    cached.zone("com");
    cached
        .zone("example.com")
        .a("www.example.com", "192.0.2.10")
        .a("ns1.example.com", "127.0.0.2");
    let resolver = ZoneServer::start(&cached).await;

    let mut options = DoctorOptions::new(TARGET)
        .with_ca_identity(CA)
        .with_tls_probe(false);
    options.use_system_resolver = false;
    options.public_resolvers = vec![("Test resolver".to_owned(), resolver.address)];
    options.nameserver_port = nameserver.address.port();
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    assert!(!report.offline);

    let www = host(&report, "www.example.com");
    assert_eq!(www.nameservers, ["ns1.example.com"]);
    let kinds: Vec<SourceKind> = www.views.iter().map(|view| view.source.kind).collect();
    assert_eq!(kinds, [SourceKind::Authoritative, SourceKind::Public]);
    assert_eq!(www.views[0].source.address, nameserver.address.to_string());
    assert!(!www.views[0].source.recursive);
    // judged by the zone's own answer: the CNAME is right
    finding(www, FindingCode::RecordCorrect);
    assert!(
        codes(www, Severity::Error).is_empty(),
        "{:#?}",
        www.findings
    );
    // and the resolver's stale answer is shown with its expiry
    let pending = finding(www, FindingCode::PropagationPending);
    assert!(
        pending
            .detail
            .starts_with("ns1.example.com (authoritative)")
    );
    assert_eq!(www.views[1].agrees, Some(false));
    assert_eq!(www.views[1].cache_expires_in_seconds, Some(300));
}

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

/// The zone's nameserver answers only the CNAME (the target lives in another zone); a
/// resolver follows the chain and adds the target's addresses. Both say the same about the
/// name, which is what nearly every healthy custom domain looks like.
#[tokio::test]
async fn a_cname_into_another_zone_is_not_propagation_pending() {
    let mut zone = Zones::default();
    zone.zone("example.com")
        .cname("www.example.com", TARGET)
        .a("ns1.example.com", "127.0.0.2");
    let nameserver = ZoneServer::start_on(&zone, "127.0.0.2").await;

    let mut everything = Zones::with_platform();
    everything.zone("com");
    everything
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .a("ns1.example.com", "127.0.0.2");
    let resolver = ZoneServer::start(&everything).await;

    let mut options = DoctorOptions::new(TARGET)
        .with_ca_identity(CA)
        .with_tls_probe(false);
    options.use_system_resolver = false;
    options.public_resolvers = vec![("Test resolver".to_owned(), resolver.address)];
    options.nameserver_port = nameserver.address.port();
    let report = diagnose(&["www.example.com"], &options).await.unwrap();

    let www = host(&report, "www.example.com");
    // the two answers really differ: the nameserver stops at the CNAME
    assert_eq!(www.views[0].records.len(), 1, "{:#?}", www.views);
    assert!(www.views[1].records.len() > 1, "{:#?}", www.views);
    finding(www, FindingCode::RecordCorrect);
    let agrees: Vec<Option<bool>> = www.views.iter().map(|view| view.agrees).collect();
    assert_eq!(agrees, [Some(true), Some(true)]);
    assert!(
        codes(www, Severity::Error).is_empty() && codes(www, Severity::Warning).is_empty(),
        "{:#?}",
        www.findings
    );
    assert_eq!((report.errors, report.warnings), (0, 0));
}

/// Comparing only the name's own records still catches a resolver holding an old CNAME.
#[tokio::test]
async fn a_resolver_holding_an_old_cname_still_disagrees() {
    let mut zone = Zones::default();
    zone.zone("example.com")
        .cname("www.example.com", TARGET)
        .a("ns1.example.com", "127.0.0.2");
    let nameserver = ZoneServer::start_on(&zone, "127.0.0.2").await;

    let mut cached = Zones::with_platform();
    cached.zone("com");
    cached
        .zone("example.com")
        .cname("www.example.com", "old-host.example.com")
        .a("old-host.example.com", "192.0.2.10")
        .a("ns1.example.com", "127.0.0.2");
    let resolver = ZoneServer::start(&cached).await;

    let mut options = DoctorOptions::new(TARGET)
        .with_ca_identity(CA)
        .with_tls_probe(false);
    options.use_system_resolver = false;
    options.public_resolvers = vec![("Test resolver".to_owned(), resolver.address)];
    options.nameserver_port = nameserver.address.port();
    let report = diagnose(&["www.example.com"], &options).await.unwrap();

    let www = host(&report, "www.example.com");
    finding(www, FindingCode::RecordCorrect);
    finding(www, FindingCode::PropagationPending);
    assert_eq!(www.views[1].agrees, Some(false));
}

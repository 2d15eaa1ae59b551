//! The CAA climb: to the root, through CNAMEs, naming the label that decides.

use domain_desk_api::caa::CaaReason;
use domain_desk_doctor::report::ChangeAction;
use domain_desk_doctor::{FindingCode, Severity, diagnose};

use crate::support::{CA, TARGET, ZoneServer, Zones, options};
use crate::{codes, finding, host};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.org")
        .caa("example.org", 0, "issue", CA)
        .caa("locked.example.org", 0, "issue", "other-ca.example")
        .cname("www.locked.example.org", TARGET)
        .cname("www.example.org", TARGET)
        .caa("critical.example.org", 0, "issue", CA)
        .caa("critical.example.org", 128, "tbs", "Unknown")
        .cname("www.critical.example.org", TARGET)
        .caa("nobody.example.org", 0, "issue", ";")
        .cname("www.nobody.example.org", TARGET)
        .cname("inherit.example.org", "cdn.other-platform.example.com");
    zones
        .zone("other-platform.example.com")
        .a("cdn.other-platform.example.com", "192.0.2.50")
        .caa(
            "cdn.other-platform.example.com",
            0,
            "issue",
            "other-ca.example",
        );
    // A CAA record above the registrable domain, at the top-level domain itself: tools that
    // stop at the public suffix miss it; CAs do not.
    zones
        .zone("net")
        .caa("net", 0, "issue", "other-ca.example")
        .cname("www.example.net", TARGET);
    zones.zone("com").servfail("com");
    zones.cname("www.example.com", TARGET);
    zones
}

#[tokio::test]
async fn caa_on_the_parent_forbids_and_the_fix_names_it() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.locked.example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.locked.example.org");
    let caa = www.caa.as_ref().unwrap();
    assert_eq!(caa.deciding_name.as_deref(), Some("locked.example.org"));
    let names: Vec<&str> = caa.steps.iter().map(|step| step.name.as_str()).collect();
    assert_eq!(names, ["www.locked.example.org", "locked.example.org"]);
    let forbids = finding(www, FindingCode::CaaForbidsIssuance);
    assert_eq!(forbids.severity, Severity::Error);
    assert!(forbids.title.contains("locked.example.org"));
    assert!(forbids.detail.contains("other-ca.example"));
    let add = &forbids.fix.as_ref().unwrap().changes[0];
    assert_eq!(
        (
            add.action,
            add.name.as_str(),
            add.record_type.as_str(),
            add.value.as_str()
        ),
        (
            ChangeAction::Add,
            "locked",
            "CAA",
            "0 issue \"letsencrypt.org\""
        )
    );
    // the record itself is right: only the climb finds the trouble
    assert!(codes(www, Severity::Ok).contains(&FindingCode::RecordCorrect));
}

#[tokio::test]
async fn caa_at_the_apex_that_names_the_ca_allows() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.example.org");
    assert_eq!(
        www.caa.as_ref().unwrap().deciding_name.as_deref(),
        Some("example.org")
    );
    finding(www, FindingCode::CaaAllowsIssuance);
    assert!(
        codes(www, Severity::Error).is_empty(),
        "{:#?}",
        www.findings
    );
}

#[tokio::test]
async fn an_unknown_critical_tag_forbids_even_the_named_ca() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.critical.example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.critical.example.org");
    let decision = www.caa.as_ref().unwrap().decision.as_ref().unwrap();
    assert_eq!(
        decision.reason,
        CaaReason::UnknownCriticalProperty { tag: "tbs".into() }
    );
    let forbids = finding(www, FindingCode::CaaForbidsIssuance);
    let remove = &forbids.fix.as_ref().unwrap().changes[0];
    assert_eq!(remove.action, ChangeAction::Remove);
    assert_eq!(remove.value, "128 tbs \"Unknown\"");
}

#[tokio::test]
async fn an_empty_issuer_forbids_every_ca_and_is_replaced() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.nobody.example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let forbids = finding(
        host(&report, "www.nobody.example.org"),
        FindingCode::CaaForbidsIssuance,
    );
    assert!(forbids.detail.contains("no CA"), "{}", forbids.detail);
    let changes = &forbids.fix.as_ref().unwrap().changes;
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Remove && change.value == "0 issue \";\"")
    );
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Add && change.name == "nobody")
    );
}

#[tokio::test]
async fn caa_inherited_through_a_cname_target() {
    let server = ZoneServer::start(&world()).await;
    let mut opts = options(&[server.address]);
    opts.target = "cdn.other-platform.example.com".to_owned();
    let report = diagnose(&["inherit.example.org"], &opts).await.unwrap();
    let inherit = host(&report, "inherit.example.org");
    let caa = inherit.caa.as_ref().unwrap();
    assert_eq!(caa.deciding_name.as_deref(), Some("inherit.example.org"));
    assert_eq!(
        caa.steps[0].via_cname.as_deref(),
        Some("cdn.other-platform.example.com")
    );
    let forbids = finding(inherit, FindingCode::CaaForbidsIssuance);
    assert!(
        forbids
            .fix
            .as_ref()
            .unwrap()
            .summary
            .contains("Only the owner")
    );
}

#[tokio::test]
async fn the_climb_goes_past_the_public_suffix_to_the_tld() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.example.net"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.example.net");
    let caa = www.caa.as_ref().unwrap();
    assert_eq!(caa.deciding_name.as_deref(), Some("net"));
    let forbids = finding(www, FindingCode::CaaForbidsIssuance);
    let add = &forbids.fix.as_ref().unwrap().changes[0];
    // the customer cannot change the TLD, but a CAA record at their apex ends the climb there
    assert_eq!((add.name.as_str(), add.zone.as_str()), ("@", "example.net"));
}

#[tokio::test]
async fn a_failing_caa_lookup_is_an_error() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["www.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let www = host(&report, "www.example.com");
    let failed = finding(www, FindingCode::CaaLookupFailed);
    assert!(failed.title.contains("com"));
    assert!(www.caa.as_ref().unwrap().decision.is_none());
}

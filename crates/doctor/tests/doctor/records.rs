//! The records at the name, judged as verification judges them.

use domain_desk_doctor::report::ChangeAction;
use domain_desk_doctor::{FindingCode, Severity, diagnose};

use crate::support::{TARGET, TARGET_V4, TARGET_V6, ZoneServer, Zones, options};
use crate::{codes, finding, host};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .a("example.com", TARGET_V4)
        .aaaa("example.com", TARGET_V6)
        .cname("www.example.com", TARGET)
        .a("shop.example.com", "192.0.2.10")
        .cname("blog.example.com", "old-host.example.net")
        .cname("app.example.com.example.com", TARGET)
        .cname("mixed.example.com", TARGET)
        .txt("mixed.example.com", "site-verification=abc")
        .cname("chain.example.com", "www.example.com");
    zones
        .zone("example.net")
        .a("example.net", "192.0.2.20")
        .cname("blog.example.net", &format!("{TARGET}.example.net"));
    zones
        .zone("example.co.uk")
        .cname("example.co.uk", TARGET)
        .cname("www.example.co.uk", TARGET);
    zones
        .zone("shop.example.org")
        .a("shop.example.org", "192.0.2.40");
    zones
}

#[tokio::test]
async fn a_correct_subdomain_and_apex_have_no_errors() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["www.example.com", "example.com"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    for name in ["www.example.com", "example.com"] {
        let host = host(&report, name);
        assert!(
            codes(host, Severity::Error).is_empty(),
            "{name}: {:#?}",
            host.findings
        );
        assert!(codes(host, Severity::Ok).contains(&FindingCode::RecordCorrect));
        assert!(codes(host, Severity::Ok).contains(&FindingCode::CaaAllowsIssuance));
    }
    assert!(!report.has_errors());
    let www = host(&report, "www.example.com");
    let kind = www.name.as_ref().unwrap();
    assert!(!kind.apex);
    assert_eq!(kind.zone, "example.com");
    assert_eq!(www.expected_record.as_ref().unwrap().record_type, "CNAME");
    let apex = host(&report, "example.com");
    assert!(apex.name.as_ref().unwrap().apex);
    assert_eq!(apex.expected_record.as_ref().unwrap().record_type, "ALIAS");
}

#[tokio::test]
async fn a_missing_record_says_which_to_add() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["new.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let new = host(&report, "new.example.com");
    let missing = finding(new, FindingCode::RecordMissing);
    assert_eq!(missing.severity, Severity::Error);
    let fix = missing.fix.as_ref().unwrap();
    assert_eq!(fix.changes.len(), 1);
    let add = &fix.changes[0];
    assert_eq!(
        (
            add.action,
            add.name.as_str(),
            add.record_type.as_str(),
            add.value.as_str()
        ),
        (ChangeAction::Add, "new", "CNAME", TARGET)
    );
    assert!(missing.detail.contains("NXDOMAIN"));
    assert!(report.has_errors());
}

#[tokio::test]
async fn an_a_record_blocking_the_cname_is_named_for_removal() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let shop = host(&report, "shop.example.com");
    let conflict = finding(shop, FindingCode::LiveElsewhere);
    let changes = &conflict.fix.as_ref().unwrap().changes;
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Remove
                && change.record_type == "A"
                && change.value == "192.0.2.10"
                && change.name == "shop")
    );
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Add && change.record_type == "CNAME")
    );
    assert!(
        conflict.evidence[0]
            .records
            .iter()
            .any(|record| record.value == "192.0.2.10")
    );
}

#[tokio::test]
async fn a_cname_pointing_elsewhere_or_through_another_name() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["blog.example.com", "chain.example.com"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    let blog = finding(
        host(&report, "blog.example.com"),
        FindingCode::CnameMismatch,
    );
    assert!(blog.detail.contains("old-host.example.net"));
    let chain = finding(
        host(&report, "chain.example.com"),
        FindingCode::CnameMismatch,
    );
    assert!(chain.detail.contains("reaches"), "{}", chain.detail);
}

#[tokio::test]
async fn a_cname_target_with_the_zone_appended() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["blog.example.net"], &options(&[server.address]))
        .await
        .unwrap();
    let doubled = finding(
        host(&report, "blog.example.net"),
        FindingCode::CnameTargetDoubled,
    );
    assert_eq!(doubled.severity, Severity::Error);
    assert!(doubled.detail.contains(&format!("{TARGET}.example.net")));
}

#[tokio::test]
async fn other_data_beside_a_cname() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["mixed.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let mixed = host(&report, "mixed.example.com");
    let conflict = finding(mixed, FindingCode::ConflictingRecord);
    assert!(conflict.detail.contains("TXT"));
    assert!(!codes(mixed, Severity::Ok).contains(&FindingCode::RecordCorrect));
}

#[tokio::test]
async fn apex_mistakes() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["example.net", "example.co.uk", "www.example.co.uk"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    // Its only address is another host's: served there today, the fix kept for the switch.
    let net = finding(host(&report, "example.net"), FindingCode::LiveElsewhere);
    let changes = &net.fix.as_ref().unwrap().changes;
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Remove
                && change.value == "192.0.2.20"
                && change.name == "@")
    );
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Add
                && change.record_type == "ALIAS"
                && change.name == "@")
    );
    // example.co.uk is an apex under a two-label suffix: its CNAME is the mistake
    let couk = host(&report, "example.co.uk");
    assert!(couk.name.as_ref().unwrap().registrable_apex);
    finding(couk, FindingCode::CnameAtApex);
    // and shop-style names below it are plain subdomains
    let www = host(&report, "www.example.co.uk");
    assert!(!www.name.as_ref().unwrap().apex);
    assert!(
        codes(www, Severity::Error).is_empty(),
        "{:#?}",
        www.findings
    );
}

#[tokio::test]
async fn a_delegated_subdomain_is_an_apex_by_its_soa() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let shop = host(&report, "shop.example.org");
    let kind = shop.name.as_ref().unwrap();
    assert!(kind.apex && !kind.registrable_apex);
    assert_eq!(kind.zone_apex, Some(true));
    assert_eq!(shop.expected_record.as_ref().unwrap().record_type, "ALIAS");
    finding(shop, FindingCode::LiveElsewhere);
}

#[tokio::test]
async fn a_record_created_under_a_doubled_name() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["app.example.com", "www.example.com.example.com"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    let app = finding(host(&report, "app.example.com"), FindingCode::ZoneAppended);
    assert!(app.title.contains("app.example.com.example.com"));
    let changes = &app.fix.as_ref().unwrap().changes;
    assert!(changes.iter().any(|change| change.action == ChangeAction::Remove && change.name == "app.example.com"));
    assert!(
        changes
            .iter()
            .any(|change| change.action == ChangeAction::Add && change.name == "app")
    );
    let typed = finding(
        host(&report, "www.example.com.example.com"),
        FindingCode::DoubledZoneName,
    );
    assert!(typed.detail.contains("www.example.com"));
}

#[tokio::test]
async fn a_name_that_is_not_a_hostname_is_a_finding() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(
        &["not a host", "*.example.com", "co.uk"],
        &options(&[server.address]),
    )
    .await
    .unwrap();
    assert_eq!(report.hosts.len(), 3);
    for host in &report.hosts {
        assert_eq!(
            codes(host, Severity::Error),
            vec![FindingCode::InvalidHostname]
        );
    }
}

#[tokio::test]
async fn a_wrong_target_is_reported_not_blamed_on_the_customer() {
    let server = ZoneServer::start(&world()).await;
    let mut wrong = options(&[server.address]);
    wrong.target = "nothing.platform.example.com".to_owned();
    let report = diagnose(&["www.example.com"], &wrong).await.unwrap();
    let www = host(&report, "www.example.com");
    finding(www, FindingCode::TargetUnresolvable);
    assert!(!codes(www, Severity::Error).contains(&FindingCode::CnameMismatch));
}

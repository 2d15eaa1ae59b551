//! Attaching a name without a gap: the `_acme-challenge` delegation judged (there with the
//! platform's exact value, missing where it is needed, another value, at the apex instead of
//! the subdomain, a CAA record that refuses the CA anyway), a name live on another host said
//! plainly once its delegation is there, and a wildcard's routing asked at a label no one
//! created, its findings speaking of the wildcard.

use domain_desk_doctor::checks::wildcard_probe::{PROBE_PREFIX, probe_name};
use domain_desk_doctor::report::ChangeAction;
use domain_desk_doctor::{DoctorOptions, FindingCode, HostReport, Severity, diagnose};

use crate::support::{CA, TARGET, ZoneServer, Zones, options};
use crate::{codes, finding, host};

const VALIDATION: &str = "acme.platform.example.com";
const ELSEWHERE: &str = "192.0.2.77";

fn delegation(name: &str) -> String {
    format!("{name}.{VALIDATION}")
}

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.org")
        // live elsewhere, no delegation yet
        .a("shop.example.org", ELSEWHERE)
        // live elsewhere, the delegation in place: the switch is under way
        .a("moving.example.org", ELSEWHERE)
        .cname(
            "_acme-challenge.moving.example.org",
            &delegation("moving.example.org"),
        )
        // the delegation to another target
        .a("wrong.example.org", ELSEWHERE)
        .cname(
            "_acme-challenge.wrong.example.org",
            "wrong.example.org.old-ca.example.net",
        )
        // the delegation made at the apex, without the subdomain
        .a("apexed.example.org", ELSEWHERE)
        .cname(
            "_acme-challenge.example.org",
            &delegation("apexed.example.org"),
        )
        // a wildcard routed and delegated
        .cname("*.app.example.org", TARGET)
        .cname(
            "_acme-challenge.app.example.org",
            &delegation("app.example.org"),
        )
        // a wildcard with nothing yet
        .a("nowild.example.org", ELSEWHERE)
        // live on the platform, its delegation removed after the switch
        .cname("renewed.example.org", TARGET);
    zones
        .zone("example.net")
        .caa("example.net", 0, "issue", "other-ca.example")
        .a("site.example.net", ELSEWHERE)
        .cname(
            "_acme-challenge.site.example.net",
            &delegation("site.example.net"),
        )
        // issue allows the CA, issuewild does not: a wildcard is refused
        .caa("tame.example.net", 0, "issue", CA)
        .caa("tame.example.net", 0, "issuewild", ";")
        .cname("*.tame.example.net", TARGET)
        .cname(
            "_acme-challenge.tame.example.net",
            &delegation("tame.example.net"),
        );
    zones
}

fn switching_options(server: &ZoneServer) -> DoctorOptions {
    let mut options = options(&[server.address]);
    options.validation_zone = Some(VALIDATION.to_owned());
    options
}

async fn diagnosed(hostnames: &[&str]) -> domain_desk_doctor::Report {
    let server = ZoneServer::start(&world()).await;
    diagnose(hostnames, &switching_options(&server))
        .await
        .unwrap()
}

fn has(host: &HostReport, code: FindingCode) -> bool {
    host.findings.iter().any(|finding| finding.code == code)
}

#[tokio::test]
async fn a_name_live_elsewhere_with_its_delegation_is_said_plainly_not_as_a_conflict() {
    let report = diagnosed(&["moving.example.org", "shop.example.org"]).await;

    let moving = host(&report, "moving.example.org");
    let live = finding(moving, FindingCode::LiveElsewhere);
    assert_eq!(
        live.title,
        "moving.example.org is served today by 192.0.2.77, not the platform: switch when the certificate is ready"
    );
    assert_eq!(live.severity, Severity::Warning);
    // Its fix is the switch, for later: remove the A record, add the CNAME.
    let fix = live.fix.as_ref().expect("the switch's fix");
    assert!(
        fix.summary.starts_with("When the certificate is ready: "),
        "{fix:?}"
    );
    assert!(
        fix.changes
            .iter()
            .any(|change| change.action == ChangeAction::Add && change.value.contains(TARGET))
    );
    assert!(!has(moving, FindingCode::ConflictingRecord), "{moving:#?}");
    assert!(codes(moving, Severity::Error).is_empty(), "{moving:#?}");
    let delegated = finding(moving, FindingCode::AcmeDelegationCorrect);
    assert_eq!(delegated.severity, Severity::Ok);
    assert!(delegated.detail.contains("exactly the platform's value"));

    // Without the delegation it is said as plainly, not as a conflict: the site is kept
    // until the certificate is ready, the delegation comes first, and it is asked for with
    // its exact value.
    let shop = host(&report, "shop.example.org");
    assert!(!has(shop, FindingCode::ConflictingRecord), "{shop:#?}");
    let live = finding(shop, FindingCode::LiveElsewhere);
    assert_eq!(
        live.title,
        "shop.example.org is served today by 192.0.2.77, not the platform: switch when the certificate is ready"
    );
    assert_eq!(live.severity, Severity::Warning);
    assert!(
        live.detail.contains(
            "Keep them until the platform's certificate is ready: first create the \
             _acme-challenge delegation"
        ),
        "{live:#?}"
    );
    let missing = finding(shop, FindingCode::AcmeDelegationMissing);
    assert_eq!(missing.severity, Severity::Warning);
    let add = &missing.fix.as_ref().expect("a fix").changes[0];
    assert_eq!(
        (
            add.name.as_str(),
            add.record_type.as_str(),
            add.value.as_str()
        ),
        (
            "_acme-challenge.shop",
            "CNAME",
            "shop.example.org.acme.platform.example.com"
        )
    );
}

#[tokio::test]
async fn a_delegation_to_another_target_or_at_the_apex_is_named_with_its_fix() {
    let report = diagnosed(&["wrong.example.org", "apexed.example.org"]).await;

    let wrong = host(&report, "wrong.example.org");
    let found = finding(wrong, FindingCode::AcmeDelegationWrong);
    assert_eq!(found.severity, Severity::Error, "needed for the switch");
    assert!(
        found.title.contains("wrong.example.org.old-ca.example.net"),
        "{found:#?}"
    );
    let changes = &found.fix.as_ref().unwrap().changes;
    assert_eq!(changes[0].action, ChangeAction::Remove);
    assert_eq!(changes[1].action, ChangeAction::Add);
    assert_eq!(
        changes[1].value,
        "wrong.example.org.acme.platform.example.com"
    );
    // Served by another host all the same; the delegation is not in place yet, so the first
    // step is still to come.
    let live = finding(wrong, FindingCode::LiveElsewhere);
    assert!(
        live.detail
            .contains("first create the _acme-challenge delegation"),
        "{live:#?}"
    );

    // At the apex: the wrong-name finding says where it is; no second "missing" finding.
    let apexed = host(&report, "apexed.example.org");
    let misplaced = finding(apexed, FindingCode::ChallengeAtWrongName);
    assert!(misplaced.title.contains("at the apex"), "{misplaced:#?}");
    assert!(
        !has(apexed, FindingCode::AcmeDelegationMissing),
        "{apexed:#?}"
    );
}

#[tokio::test]
async fn a_delegation_does_not_get_past_a_caa_record_that_refuses_the_ca() {
    let report = diagnosed(&["site.example.net"]).await;
    let site = host(&report, "site.example.net");
    assert!(has(site, FindingCode::CaaForbidsIssuance));
    let delegated = finding(site, FindingCode::AcmeDelegationCorrect);
    assert_eq!(delegated.severity, Severity::Warning);
    assert!(
        delegated
            .detail
            .contains("refuses a certificate validated by DNS as well")
    );
}

#[tokio::test]
async fn a_wildcard_is_routed_by_a_label_no_one_created_and_its_findings_name_the_wildcard() {
    let report = diagnosed(&[
        "*.app.example.org",
        "*.nowild.example.org",
        "*.tame.example.net",
    ])
    .await;
    let probe = probe_name("*.app.example.org").unwrap();
    assert!(probe.starts_with(PROBE_PREFIX) && probe.ends_with(".app.example.org"));

    let app = host(&report, "*.app.example.org");
    assert_eq!(app.hostname, "*.app.example.org");
    assert!(has(app, FindingCode::RecordCorrect), "{app:#?}");
    assert!(has(app, FindingCode::AcmeDelegationCorrect), "{app:#?}");
    let probed = finding(app, FindingCode::WildcardProbe);
    assert!(probed.title.contains(&probe), "{probed:#?}");
    assert_eq!(app.expected_record.as_ref().unwrap().name, "*.app");
    assert!(codes(app, Severity::Error).is_empty(), "{app:#?}");

    // Nothing at the wildcard: the record to create is *.nowild, the delegation is needed.
    let nowild = host(&report, "*.nowild.example.org");
    let missing = finding(nowild, FindingCode::RecordMissing);
    let fix = missing.fix.as_ref().unwrap();
    assert!(
        fix.changes.iter().any(|change| change.name == "*.nowild"),
        "{fix:#?}"
    );
    assert!(!missing.title.contains(PROBE_PREFIX), "{missing:#?}");
    // The evidence keeps what DNS was asked.
    assert!(
        missing
            .evidence
            .iter()
            .any(|evidence| evidence.question.contains(PROBE_PREFIX)),
        "{missing:#?}"
    );
    assert!(
        has(nowild, FindingCode::AcmeDelegationMissing),
        "{nowild:#?}"
    );

    // issuewild decides for a wildcard: issue alone would have allowed the CA.
    let tame = host(&report, "*.tame.example.net");
    assert!(has(tame, FindingCode::CaaForbidsIssuance), "{tame:#?}");
}

/// A certificate validated through the delegation renews through it: with the record removed
/// after the switch, the renewal will fail, and the doctor says so, dated; the same name with
/// a certificate validated through its routing record renews fine.
#[tokio::test]
async fn a_certificate_validated_by_dns_will_not_renew_without_its_delegation() {
    use domain_desk_doctor::renewal::LiveCertificate;
    let server = ZoneServer::start(&world()).await;
    let live = |validated_by_dns| LiveCertificate {
        expires_at: "2027-02-24T10:00:00Z".parse().unwrap(),
        renews_at: Some("2027-01-25T10:00:00Z".parse().unwrap()),
        validated_by_dns,
    };
    let mut options = switching_options(&server);
    options.live_certificates = Some([("renewed.example.org".to_owned(), live(true))].into());
    let report = diagnose(&["renewed.example.org"], &options).await.unwrap();
    let renewed = host(&report, "renewed.example.org");
    let missing = finding(renewed, FindingCode::AcmeDelegationMissing);
    assert_eq!(missing.severity, Severity::Error);
    assert!(
        missing.detail.contains("its renewal is too"),
        "{missing:#?}"
    );
    let at_risk = finding(renewed, FindingCode::RenewalAtRisk);
    assert!(
        at_risk
            .detail
            .contains("_acme-challenge.renewed.example.org has no CNAME"),
        "{at_risk:#?}"
    );

    options.live_certificates = Some([("renewed.example.org".to_owned(), live(false))].into());
    let report = diagnose(&["renewed.example.org"], &options).await.unwrap();
    let renewed = host(&report, "renewed.example.org");
    assert!(!has(renewed, FindingCode::RenewalAtRisk), "{renewed:#?}");
    assert!(
        !has(renewed, FindingCode::AcmeDelegationMissing),
        "{renewed:#?}"
    );
}

//! The quick look before a name is added: the warnings for what would stand in the way, and
//! none for a name that is simply not pointed yet.

use domain_desk_doctor::{FindingCode, Severity, preflight};

use crate::support::{CA, ZoneServer, Zones, options};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.org")
        .caa("example.org", 0, "issue", CA)
        .caa("locked.example.org", 0, "issue", "other-ca.example")
        .a("shop.example.org", "192.0.2.77");
    zones
}

#[tokio::test]
async fn a_forbidding_caa_at_the_parent_is_named_before_the_name_is_added() {
    let server = ZoneServer::start(&world()).await;
    let found = preflight::check("www.locked.example.org", &options(&[server.address]))
        .await
        .unwrap();
    let codes: Vec<FindingCode> = found.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, [FindingCode::CaaForbidsIssuance], "{found:#?}");
    assert!(found.warnings[0].title.contains("locked.example.org"));
    assert!(found.live_elsewhere.is_empty());
}

#[tokio::test]
async fn a_name_not_pointed_yet_has_nothing_to_warn_about() {
    let server = ZoneServer::start(&world()).await;
    let found = preflight::check("new.example.org", &options(&[server.address]))
        .await
        .unwrap();
    assert!(found.warnings.is_empty(), "{found:#?}");
}

#[tokio::test]
async fn a_name_live_on_another_host_is_said_plainly_not_as_a_conflict_to_fix_now() {
    let server = ZoneServer::start(&world()).await;
    let found = preflight::check("shop.example.org", &options(&[server.address]))
        .await
        .unwrap();
    assert_eq!(found.live_elsewhere, ["192.0.2.77"], "{found:#?}");
    assert_eq!(found.warnings.len(), 1, "{found:#?}");
    let live = &found.warnings[0];
    assert_eq!(live.severity, Severity::Warning);
    assert_eq!(
        live.title,
        "shop.example.org is served today by 192.0.2.77, not the platform: switch when the certificate is ready"
    );
}

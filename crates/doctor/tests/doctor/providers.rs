//! The zone's DNS provider, told from its NS records, and fixes worded for it.

use domain_desk_doctor::report::ChangeAction;
use domain_desk_doctor::{FindingCode, diagnose};

use crate::support::{TARGET, TARGET_V4, TARGET_V6, ZoneServer, Zones, options};
use crate::{finding, host};

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .nameservers(
            "example.com",
            &["amy.ns.cloudflare.com", "bob.ns.cloudflare.com"],
        )
        .a("shop.example.com", "192.0.2.10")
        .a("cdn.example.com", "104.16.132.229");
    zones
        .zone("example.net")
        .nameservers(
            "example.net",
            &["ns51.domaincontrol.com", "ns52.domaincontrol.com"],
        )
        .a("example.net", "192.0.2.20");
    zones
        .zone("example.org")
        .nameservers("example.org", &["dns1.registrar-servers.com"]);
    zones
        .zone("example.info")
        .a("shop.example.info", "192.0.2.10");
    zones
}

#[tokio::test]
async fn a_cloudflare_zone_gets_cloudflare_steps() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let shop = host(&report, "shop.example.com");
    let found = shop.provider.as_ref().expect("a provider");
    assert_eq!(found.provider.id, "cloudflare");
    assert_eq!(found.matched_nameservers.len(), 2);
    let conflict = finding(shop, FindingCode::LiveElsewhere);
    let steps = &conflict.fix.as_ref().unwrap().steps;
    assert!(
        steps[0].starts_with("At Cloudflare, delete the A record"),
        "{steps:#?}"
    );
    let add = steps.last().unwrap();
    assert!(add.contains("add a CNAME record"), "{add}");
    assert!(add.contains(&format!("Target {TARGET}")), "{add}");
    assert!(add.contains("DNS only"), "{add}");
    let markdown = report.to_markdown();
    assert!(
        markdown.contains("- DNS provider: Cloudflare (from amy.ns.cloudflare.com"),
        "{markdown}"
    );
    assert!(markdown.contains("At Cloudflare, add a CNAME record"));
}

#[tokio::test]
async fn an_apex_at_a_provider_without_alias_gets_the_www_plan() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["example.net", "example.org"], &options(&[server.address]))
        .await
        .unwrap();
    let net = host(&report, "example.net");
    assert_eq!(net.provider.as_ref().unwrap().provider.id, "godaddy");
    let fix = finding(net, FindingCode::LiveElsewhere)
        .fix
        .as_ref()
        .unwrap();
    assert!(
        fix.summary.contains("GoDaddy has no ALIAS"),
        "{}",
        fix.summary
    );
    assert!(fix.summary.contains("Forwarding"), "{}", fix.summary);
    let added: Vec<(&str, &str, &str)> = fix
        .changes
        .iter()
        .filter(|change| change.action == ChangeAction::Add)
        .map(|change| {
            (
                change.name.as_str(),
                change.record_type.as_str(),
                change.value.as_str(),
            )
        })
        .collect();
    assert_eq!(
        added,
        [
            ("www", "CNAME", TARGET),
            ("@", "A", TARGET_V4),
            ("@", "AAAA", TARGET_V6)
        ]
    );
    assert!(
        fix.steps
            .iter()
            .any(|step| step.contains("GoDaddy appends .example.net itself")),
        "{:#?}",
        fix.steps
    );

    // Namecheap has ALIAS records: the apex keeps its ALIAS, in Namecheap's words.
    let org = host(&report, "example.org");
    assert_eq!(org.provider.as_ref().unwrap().provider.id, "namecheap");
    let fix = finding(org, FindingCode::RecordMissing)
        .fix
        .as_ref()
        .unwrap();
    assert_eq!(fix.changes.len(), 1);
    assert_eq!(fix.changes[0].record_type, "ALIAS");
    assert!(
        fix.steps[0].starts_with("At Namecheap, add an ALIAS record: Name @"),
        "{:#?}",
        fix.steps
    );
}

#[tokio::test]
async fn an_unknown_provider_keeps_the_generic_fix() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["shop.example.info"], &options(&[server.address]))
        .await
        .unwrap();
    let shop = host(&report, "shop.example.info");
    assert_eq!(shop.nameservers, ["ns1.example.info"]);
    assert!(shop.provider.is_none());
    let fix = finding(shop, FindingCode::LiveElsewhere)
        .fix
        .as_ref()
        .unwrap();
    assert!(fix.steps.is_empty());
    assert!(!report.to_markdown().contains("DNS provider"));
}

#[tokio::test]
async fn a_record_behind_cloudflares_proxy_is_switched_to_dns_only() {
    let server = ZoneServer::start(&world()).await;
    let report = diagnose(&["cdn.example.com"], &options(&[server.address]))
        .await
        .unwrap();
    let cdn = host(&report, "cdn.example.com");
    let proxied = finding(cdn, FindingCode::ProxiedByCloudflare);
    assert!(
        !cdn.findings
            .iter()
            .any(|found| found.code == FindingCode::ConflictingRecord),
        "{:#?}",
        cdn.findings
    );
    let fix = proxied.fix.as_ref().unwrap();
    assert!(fix.summary.contains("DNS only"), "{}", fix.summary);
    assert_eq!(fix.changes[0].action, ChangeAction::Keep);
    assert!(
        fix.steps[0].contains("set Proxy status to DNS only"),
        "{:#?}",
        fix.steps
    );
}

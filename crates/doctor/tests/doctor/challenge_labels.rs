//! Challenge records at the wrong name, asked of the in-process DNS server: the ownership TXT
//! record and the `_acme-challenge` CNAME made with the zone appended to the full name, or at
//! the apex without the subdomain, each found with the exact fix (remove it there, add it at
//! the right name, relative to the zone); a record where it belongs, and the apex's own
//! delegation, are left alone.

use std::time::Duration;

use domain_desk_api::Hostname;
use domain_desk_doctor::checks::apex_or_subdomain::classify;
use domain_desk_doctor::checks::challenge_labels::check;
use domain_desk_doctor::dns::{QueryEngine, QueryOptions};
use domain_desk_doctor::report::{ChangeAction, RecordChange};
use domain_desk_doctor::{Finding, FindingCode, Severity};

use crate::support::{TARGET, ZoneServer, Zones};

const VALIDATION: &str = "validation.platform.example.com";

fn world() -> Zones {
    let mut zones = Zones::with_platform();
    zones
        .zone("example.com")
        .cname("www.example.com", TARGET)
        .txt(
            "_domain-desk-challenge.www.example.com.example.com",
            "domain-desk-challenge=appended",
        )
        .cname(
            "_acme-challenge.www.example.com.example.com",
            &format!("www.example.com.{VALIDATION}"),
        );
    zones
        .zone("example.org")
        .txt(
            "_domain-desk-challenge.example.org",
            "domain-desk-challenge=at-the-apex",
        )
        // the delegation made for shop.example.org, at the apex
        .cname(
            "_acme-challenge.example.org",
            &format!("shop.example.org.{VALIDATION}"),
        )
        .txt(
            "_domain-desk-challenge.right.example.org",
            "domain-desk-challenge=right",
        )
        .cname(
            "_acme-challenge.right.example.org",
            &format!("right.example.org.{VALIDATION}"),
        );
    zones
}

async fn findings(server: &ZoneServer, hostname: &str) -> Vec<Finding> {
    let engine = QueryEngine::new(
        QueryOptions {
            timeout: Duration::from_secs(3),
            recursion_desired: false,
            ..QueryOptions::default()
        },
        16,
    );
    let parsed = Hostname::parse(hostname).unwrap();
    let zone = parsed.registrable_domain().to_owned();
    let kind = classify(&parsed, Some(&zone));
    check(
        &engine,
        server.address,
        false,
        "the zone's server",
        hostname,
        &kind,
    )
    .await
}

fn changes(finding: &Finding) -> Vec<RecordChange> {
    finding.fix.as_ref().expect("a fix").changes.clone()
}

fn change(action: ChangeAction, zone: &str, name: &str, kind: &str, value: &str) -> RecordChange {
    RecordChange {
        action,
        zone: zone.to_owned(),
        name: name.to_owned(),
        record_type: kind.to_owned(),
        value: value.to_owned(),
        ttl: Some(300),
    }
}

#[tokio::test]
async fn records_made_with_the_zone_appended_are_moved_to_the_right_name() {
    let server = ZoneServer::start(&world()).await;
    let found = findings(&server, "www.example.com").await;
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|finding| {
        finding.code == FindingCode::ChallengeAtWrongName && finding.severity == Severity::Warning
    }));

    let ownership = &found[0];
    assert_eq!(
        ownership.title,
        "The ownership TXT record for www.example.com is at \
         _domain-desk-challenge.www.example.com.example.com: the zone name was appended"
    );
    assert!(
        ownership.detail.starts_with(
            "The platform looks for it at _domain-desk-challenge.www.example.com, which has \
             none (no such name); it is at _domain-desk-challenge.www.example.com.example.com, \
             because the full name was typed into a Name field that appends example.com itself."
        ),
        "{}",
        ownership.detail
    );
    assert_eq!(
        changes(ownership),
        [
            change(
                ChangeAction::Remove,
                "example.com",
                "_domain-desk-challenge.www.example.com",
                "TXT",
                "\"domain-desk-challenge=appended\""
            ),
            change(
                ChangeAction::Add,
                "example.com",
                "_domain-desk-challenge.www",
                "TXT",
                "\"domain-desk-challenge=appended\""
            ),
        ]
    );
    let fix = ownership.fix.as_ref().unwrap();
    assert_eq!(
        fix.summary,
        "In the zone example.com, remove the TXT record named \
         _domain-desk-challenge.www.example.com and add it as _domain-desk-challenge.www with \
         the same value (type only _domain-desk-challenge.www: the provider appends \
         .example.com itself)."
    );
    // the answer where it belongs and the one where it was found
    assert_eq!(ownership.evidence.len(), 2);
    assert_eq!(
        ownership.evidence[1].question,
        "_domain-desk-challenge.www.example.com.example.com TXT"
    );

    let acme = &found[1];
    assert!(
        acme.title.starts_with(
            "The _acme-challenge CNAME for www.example.com is at \
             _acme-challenge.www.example.com.example.com"
        ),
        "{}",
        acme.title
    );
    assert_eq!(
        changes(acme),
        [
            change(
                ChangeAction::Remove,
                "example.com",
                "_acme-challenge.www.example.com",
                "CNAME",
                &format!("www.example.com.{VALIDATION}")
            ),
            change(
                ChangeAction::Add,
                "example.com",
                "_acme-challenge.www",
                "CNAME",
                &format!("www.example.com.{VALIDATION}")
            ),
        ]
    );
}

#[tokio::test]
async fn records_made_at_the_apex_are_moved_under_the_subdomain() {
    let server = ZoneServer::start(&world()).await;
    let found = findings(&server, "shop.example.org").await;
    assert_eq!(found.len(), 2, "{found:#?}");
    let ownership = &found[0];
    assert_eq!(
        ownership.title,
        "The ownership TXT record for shop.example.org is at the apex \
         (_domain-desk-challenge.example.org), not under the subdomain"
    );
    assert!(
        ownership.detail.contains(
            "it is at _domain-desk-challenge.example.org, the zone's apex: the name was made \
             without the subdomain part (_domain-desk-challenge.shop in the zone example.org)"
        ) && ownership.detail.ends_with(
            "If the record at _domain-desk-challenge.example.org is the challenge of \
             example.org itself, keep it and add this one beside it."
        ),
        "{}",
        ownership.detail
    );
    assert_eq!(
        changes(ownership),
        [
            change(
                ChangeAction::Remove,
                "example.org",
                "_domain-desk-challenge",
                "TXT",
                "\"domain-desk-challenge=at-the-apex\""
            ),
            change(
                ChangeAction::Add,
                "example.org",
                "_domain-desk-challenge.shop",
                "TXT",
                "\"domain-desk-challenge=at-the-apex\""
            ),
        ]
    );
    let acme = &found[1];
    assert_eq!(
        changes(acme),
        [
            change(
                ChangeAction::Remove,
                "example.org",
                "_acme-challenge",
                "CNAME",
                &format!("shop.example.org.{VALIDATION}")
            ),
            change(
                ChangeAction::Add,
                "example.org",
                "_acme-challenge.shop",
                "CNAME",
                &format!("shop.example.org.{VALIDATION}")
            ),
        ]
    );
    assert!(
        !acme.detail.contains("keep it"),
        "a delegation naming the hostname is this one's: {}",
        acme.detail
    );
}

#[tokio::test]
async fn records_where_they_belong_and_the_apexs_own_delegation_are_left_alone() {
    let server = ZoneServer::start(&world()).await;
    // both records at their names
    assert_eq!(findings(&server, "right.example.org").await, []);
    // the apex's own names are the right ones for the apex
    assert_eq!(findings(&server, "example.org").await, []);
    // the delegation at the apex names shop.example.org: not blog's. The ownership token
    // names no hostname, so the TXT at the apex may be blog's.
    let blog = findings(&server, "blog.example.org").await;
    assert_eq!(
        blog.iter()
            .map(|finding| finding.title.as_str())
            .collect::<Vec<_>>(),
        [
            "The ownership TXT record for blog.example.org is at the apex \
          (_domain-desk-challenge.example.org), not under the subdomain"
        ]
    );
    // nothing anywhere
    assert_eq!(findings(&server, "www.example.net").await, []);
}

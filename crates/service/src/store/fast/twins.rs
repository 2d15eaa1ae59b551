//! The fence around the store's fast paths that write the API's JSON by hand: `domain_json.rs`
//! writes `Domain` and `project_json.rs` writes `Project` straight from the rows, byte for
//! byte what `serde_json` writes for the API's types. A field added to one of those types is
//! a field the twin does not write yet, and nothing in the twin's own code would say so.
//!
//! So, here, for whoever adds the field:
//! - [`domain_fields`] and [`project_fields`] name every field of the types the twins write
//!   field by field, with no `..`: a new field fails to compile this file until it is named
//!   here, which is the moment to make the twin write it;
//! - the tests fill every field (each JSON leaf is non-null in at least one row of the
//!   fixture, checked by walking the JSON, not by a list kept by hand) and compare the twin's
//!   bytes with serde's.
//!
//! The parts the twins hand to serde whole (error objects, redirects, deploy statuses) are
//! compared by the tests but need no naming here.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use domain_desk_api::{
    Certificate, CertificateError, CertificateErrorCode, CertificateStatus, CertificateValidation,
    DeployStatus, DeploySummary, DnsRecord, Domain, DomainRole, DomainStatus, FoundRecord,
    Hostname, Project, ValidationMethod, ValidationRecord, Verification, VerificationError,
    VerificationErrorCode,
};
use rusqlite::Connection;

use super::{domain_json, project_json};
use crate::store::migrations::{MIGRATIONS, migrate};
use crate::store::page::PageRequest;
use crate::store::{deploys, domains, projects};

/// Every field of `Domain` and of the parts `domain_json.rs` writes field by field. Added a
/// field? Make `domain_json::page_of_project` write it, fill it in [`fixture`], then name it
/// here.
fn domain_fields(domain: &Domain) {
    let Domain {
        hostname: _,
        unicode_hostname: _,
        project_id: _,
        apex: _,
        role: _,
        redirect: _,
        status: _,
        dns_record,
        verification,
        certificate,
        created_at: _,
    } = domain;
    let DnsRecord {
        record_type: _,
        name: _,
        value: _,
        ttl: _,
    } = dns_record;
    let Verification {
        checked_at: _,
        error: _,
    } = verification;
    let Certificate {
        status: _,
        started_at: _,
        issued_at: _,
        expires_at: _,
        error: _,
        renews_at: _,
        validation,
    } = certificate;
    let CertificateValidation {
        method: _,
        dns_record,
    } = validation;
    let ValidationRecord {
        record_type: _,
        name: _,
        fqdn: _,
        value: _,
    } = dns_record;
}

/// Every field of `Project` and of the deploy summary `project_json.rs` writes field by
/// field. Added a field? Make `project_json::page_of_account` write it, fill it in
/// [`fixture`], then name it here.
fn project_fields(project: &Project) {
    let Project {
        id: _,
        name: _,
        default_address: _,
        primary_domain: _,
        url: _,
        last_deploy,
        created_at: _,
    } = project;
    if let Some(DeploySummary {
        id: _,
        status: _,
        created_at: _,
    }) = last_deploy
    {}
}

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// One account with two projects — one with a live primary domain, a deploy and a redirect,
/// one with nothing — whose domains between them fill every field: a live certificate whose
/// last renewal failed, a verification that failed with what it found and the resolver's
/// cached negative answer, a redirect.
fn fixture() -> (Connection, String) {
    let mut conn = Connection::open_in_memory().unwrap();
    migrate(&mut conn, MIGRATIONS).unwrap();
    conn.execute(
        "INSERT INTO accounts (id, name, plan, per_minute, per_day, max_domains_per_project, created_at)
         VALUES ('acc', 'a', 'pro', 1, 1, 50, '2026-01-01T00:00:00Z')",
        [],
    )
    .unwrap();
    projects::create(
        &conn,
        "acc",
        "bare",
        "pages.example",
        at("2026-01-01T00:00:00Z"),
    )
    .unwrap();
    let project = projects::create(
        &conn,
        "acc",
        "full",
        "pages.example",
        at("2026-01-01T00:00:01.5Z"),
    )
    .unwrap()
    .id;
    let files = BTreeMap::from([("index.html".to_owned(), "<h1>hi</h1>".to_owned())]);
    deploys::create(
        &conn,
        &project,
        DeployStatus::Succeeded,
        &files,
        at("2026-01-01T01:00:00Z"),
    )
    .unwrap();
    for (name, role, redirect_to) in [
        ("www.example.com", DomainRole::Primary, None),
        (
            "old.example.com",
            DomainRole::Redirect,
            Some("www.example.com"),
        ),
    ] {
        let domain = domains::new_domain(
            &Hostname::parse(name).unwrap(),
            &project,
            role,
            redirect_to.map(str::to_owned),
            "cname.pages.example",
            "acme.pages.example",
            at("2026-01-02T00:00:00.000001Z"),
        );
        domains::insert(&conn, &domain).unwrap();
    }
    let checked = at("2026-01-02T00:10:00.25Z");
    domains::set_verification(
        &conn,
        "www.example.com",
        DomainStatus::Verified,
        &Verification {
            checked_at: Some(checked),
            error: None,
        },
    )
    .unwrap();
    domains::set_certificate(
        &conn,
        "www.example.com",
        DomainStatus::Live,
        &Certificate {
            status: CertificateStatus::Issued,
            started_at: Some(checked),
            issued_at: Some(checked + Duration::seconds(90)),
            expires_at: Some(checked + Duration::days(90)),
            error: Some(CertificateError {
                code: CertificateErrorCode::CaaForbidsIssuance,
                message: "the renewal: CAA names only \"other-ca.example\"".into(),
            }),
            renews_at: Some(checked + Duration::days(60)),
            validation: CertificateValidation {
                method: Some(ValidationMethod::Dns),
                ..CertificateValidation::default()
            },
        },
    )
    .unwrap();
    domains::set_verification(
        &conn,
        "old.example.com",
        DomainStatus::PendingVerification,
        &Verification {
            checked_at: Some(checked),
            error: Some(VerificationError {
                code: VerificationErrorCode::RecordMissing,
                message: "No CNAME yet.".into(),
                found: vec![FoundRecord {
                    record_type: "A".into(),
                    value: "192.0.2.1".into(),
                }],
                cached_at: Some(checked - Duration::minutes(5)),
                cached_until: Some(checked + Duration::minutes(25)),
            }),
        },
    )
    .unwrap();
    (conn, project)
}

/// Every path in `value` below `at` (array elements under `[]`), and whether it holds
/// something somewhere: a value other than null, an object, or an array with elements.
fn paths(value: &serde_json::Value, at: String, found: &mut BTreeMap<String, bool>) {
    let filled = match value {
        serde_json::Value::Null => false,
        serde_json::Value::Array(items) => !items.is_empty(),
        _ => true,
    };
    match value {
        serde_json::Value::Object(fields) => {
            for (name, field) in fields {
                paths(field, format!("{at}/{name}"), found);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                paths(item, format!("{at}[]"), found);
            }
        }
        _ => {}
    }
    *found.entry(at).or_insert(false) |= filled;
}

/// The fields no item of `items` fills.
fn unfilled(items: &[impl serde::Serialize]) -> BTreeSet<String> {
    let mut found = BTreeMap::new();
    for item in items {
        paths(
            &serde_json::to_value(item).unwrap(),
            String::new(),
            &mut found,
        );
    }
    found
        .into_iter()
        .filter(|(_, filled)| !filled)
        .map(|(path, _)| path)
        .collect()
}

fn everything() -> PageRequest {
    PageRequest {
        limit: 100,
        after: None,
    }
}

#[test]
fn the_domain_twin_writes_every_field_as_serde_does() {
    let (conn, project) = fixture();
    let typed = domains::page_of_project(&conn, &project, &everything()).unwrap();
    typed.items.iter().for_each(domain_fields);
    assert_eq!(
        unfilled(&typed.items),
        BTreeSet::new(),
        "fill these in the fixture, or the twin could leave them out unseen"
    );
    let twin = domain_json::page_of_project(&conn, &project, &everything()).unwrap();
    assert_eq!(
        String::from_utf8(twin.items.0).unwrap(),
        serde_json::to_string(&typed.items).unwrap()
    );
}

#[test]
fn the_project_twin_writes_every_field_as_serde_does() {
    let (conn, _) = fixture();
    let typed = projects::page_of_account(&conn, "acc", &everything()).unwrap();
    typed.items.iter().for_each(project_fields);
    assert_eq!(
        unfilled(&typed.items),
        BTreeSet::new(),
        "fill these in the fixture, or the twin could leave them out unseen"
    );
    let twin = project_json::page_of_account(&conn, "acc", &everything()).unwrap();
    assert_eq!(
        String::from_utf8(twin.items.0).unwrap(),
        serde_json::to_string(&typed.items).unwrap()
    );
}

#[test]
fn a_leaf_no_item_fills_is_named() {
    let items = [
        serde_json::json!({"a": 1, "b": null, "c": {"d": null}, "e": [], "f": [{"g": 1}]}),
        serde_json::json!({"a": null, "b": null, "c": {"d": 2}, "e": [], "f": []}),
        serde_json::json!({"a": null, "b": null, "c": null, "e": [], "f": null}),
    ];
    assert_eq!(
        unfilled(&items),
        BTreeSet::from(["/b".to_owned(), "/e".to_owned()])
    );
}

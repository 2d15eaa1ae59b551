//! Every verification outcome and the CAA climb, against the real DNS server on 127.0.0.1.

use domain_desk_api::caa::{CaaReason, evaluate};
use domain_desk_api::local::{NewZoneRecord, ZoneRecordType};
use domain_desk_api::{Hostname, VerificationErrorCode};

use super::*;
use crate::dns::ZoneView;
use crate::dns::tests::{TARGET, at, seeded_store, start};

fn host(name: &str) -> Hostname {
    Hostname::parse(name).unwrap()
}

fn add(
    store: &crate::dns::ZoneStore,
    zone: &str,
    name: &str,
    record_type: ZoneRecordType,
    value: &str,
) {
    let record = NewZoneRecord {
        name: name.to_owned(),
        record_type,
        value: value.to_owned(),
        ttl: Some(60),
    };
    store
        .add_record(zone, &record, at("2026-01-01T00:00:00Z"))
        .unwrap();
}

fn found(error: &VerificationError) -> Vec<(String, String)> {
    error
        .found
        .iter()
        .map(|record| (record.record_type.clone(), record.value.clone()))
        .collect()
}

#[tokio::test]
async fn a_cname_to_the_target_passes() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let verifier = Verifier::new(dns.address, TARGET);
    verifier.verify(&host("www.example.com")).await.unwrap();
    verifier.verify(&host("WWW.example.co.uk")).await.unwrap();
}

#[tokio::test]
async fn a_conflicting_a_record_is_reported_with_what_was_found() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let error = Verifier::new(dns.address, TARGET)
        .verify(&host("shop.example.com"))
        .await
        .unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::ConflictingRecord);
    assert_eq!(found(&error), [("A".to_owned(), "192.0.2.10".to_owned())]);
    assert!(error.message.contains("192.0.2.10"));
}

#[tokio::test]
async fn a_wrong_cname_is_a_mismatch() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let error = Verifier::new(dns.address, TARGET)
        .verify(&host("blog.example.net"))
        .await
        .unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::CnameMismatch);
    assert_eq!(
        found(&error),
        [("CNAME".to_owned(), format!("{TARGET}.example.net"))]
    );
}

#[tokio::test]
async fn no_record_at_all_is_missing() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let verifier = Verifier::new(dns.address, TARGET);
    let error = verifier
        .verify(&host("nothing.example.com"))
        .await
        .unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
    assert!(error.found.is_empty());
    // a zone the platform's DNS does not serve at all: missing too, not a lookup failure
    let error = verifier.verify(&host("www.example.edu")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
}

#[tokio::test]
async fn an_apex_passes_with_alias_and_fails_with_an_old_a_record() {
    let store = seeded_store();
    store
        .add_zone("example.io", at("2026-01-01T00:00:00Z"))
        .unwrap();
    let dns = start(store.clone(), ZoneView::Live).await;
    let verifier = Verifier::new(dns.address, TARGET);

    let error = verifier.verify(&host("example.io")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);

    add(&store, "example.io", "@", ZoneRecordType::Alias, TARGET);
    verifier.verify(&host("example.io")).await.unwrap();

    let error = verifier.verify(&host("example.net")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::ConflictingRecord);
    assert_eq!(found(&error), [("A".to_owned(), "192.0.2.20".to_owned())]);

    // an ALIAS beside the old A record still answers the old address too
    add(&store, "example.net", "@", ZoneRecordType::Alias, TARGET);
    let error = verifier.verify(&host("example.net")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::ConflictingRecord);
}

#[tokio::test]
async fn a_silent_server_is_a_lookup_failure_not_a_verdict() {
    // bound but never answered: the resolver times out
    let silent = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let verifier = Verifier::new(silent.local_addr().unwrap(), TARGET)
        .with_timeout(std::time::Duration::from_millis(100));
    let error = verifier.verify(&host("www.example.com")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::DnsLookupFailed);
}

#[tokio::test]
async fn caa_climb_finds_nothing_when_no_name_has_caa() {
    // RFC 8659 §3: X.Y.Z with no CAA anywhere gives the empty set, and any CA may issue.
    let dns = start(seeded_store(), ZoneView::Live).await;
    let relevant = Verifier::new(dns.address, TARGET)
        .relevant_caa("x.y.example.com")
        .await
        .unwrap();
    assert_eq!(relevant.found_at, None);
    assert!(evaluate(&relevant.records, "letsencrypt.org", false).allowed);
}

#[tokio::test]
async fn caa_climb_stops_at_the_first_name_with_records() {
    // RFC 8659 §3: A.B.C with "issue example.com" at B.C terminates at B.C.
    let store = seeded_store();
    add(
        &store,
        "example.com",
        "b",
        ZoneRecordType::Caa,
        "0 issue \"example.com\"",
    );
    add(
        &store,
        "example.com",
        "@",
        ZoneRecordType::Caa,
        "0 issue \"letsencrypt.org\"",
    );
    let dns = start(store, ZoneView::Live).await;
    let verifier = Verifier::new(dns.address, TARGET);
    let relevant = verifier.relevant_caa("a.b.example.com").await.unwrap();
    assert_eq!(relevant.found_at.as_deref(), Some("b.example.com"));
    let decision = evaluate(&relevant.records, "letsencrypt.org", false);
    assert!(
        !decision.allowed,
        "the parent's CAA decides, the apex's allowing record is never reached"
    );

    // the seed's CAA on a parent name forbids the platform's CA for a correct CNAME below it
    let relevant = verifier
        .relevant_caa("www.locked.example.org")
        .await
        .unwrap();
    assert_eq!(relevant.found_at.as_deref(), Some("locked.example.org"));
    assert!(!evaluate(&relevant.records, "letsencrypt.org", false).allowed);
}

#[tokio::test]
async fn caa_lookup_follows_a_cname_at_the_name() {
    let store = seeded_store();
    add(
        &store,
        "example.com",
        "cdn",
        ZoneRecordType::Cname,
        "edge.example.net",
    );
    add(
        &store,
        "example.net",
        "edge",
        ZoneRecordType::Caa,
        "0 issue \"ca.example.net\"",
    );
    let dns = start(store, ZoneView::Live).await;
    let relevant = Verifier::new(dns.address, TARGET)
        .relevant_caa("cdn.example.com")
        .await
        .unwrap();
    assert_eq!(relevant.found_at.as_deref(), Some("cdn.example.com"));
    assert_eq!(relevant.records.len(), 1);
    assert!(evaluate(&relevant.records, "ca.example.net", false).allowed);
    assert!(!evaluate(&relevant.records, "letsencrypt.org", false).allowed);
}

#[tokio::test]
async fn caa_issuewild_and_a_critical_unknown_tag() {
    // RFC 8659 §4.3 style: issue allows the CA, issuewild ";" forbids wildcards.
    let store = seeded_store();
    store
        .add_zone("example.io", at("2026-01-01T00:00:00Z"))
        .unwrap();
    add(
        &store,
        "example.io",
        "@",
        ZoneRecordType::Caa,
        "0 issue \"letsencrypt.org\"",
    );
    add(
        &store,
        "example.io",
        "@",
        ZoneRecordType::Caa,
        "0 issuewild \";\"",
    );
    // RFC 8659 §4.1: an unknown tag with the critical flag forbids issuance.
    add(
        &store,
        "example.io",
        "strict",
        ZoneRecordType::Caa,
        "0 issue \"letsencrypt.org\"",
    );
    add(
        &store,
        "example.io",
        "strict",
        ZoneRecordType::Caa,
        "128 tbs \"Unknown\"",
    );
    let dns = start(store, ZoneView::Live).await;
    let verifier = Verifier::new(dns.address, TARGET);

    let apex = verifier.relevant_caa("shop.example.io").await.unwrap();
    assert_eq!(apex.found_at.as_deref(), Some("example.io"));
    assert!(evaluate(&apex.records, "letsencrypt.org", false).allowed);
    assert!(!evaluate(&apex.records, "letsencrypt.org", true).allowed);

    let strict = verifier.relevant_caa("strict.example.io").await.unwrap();
    let decision = evaluate(&strict.records, "letsencrypt.org", false);
    assert!(!decision.allowed);
    assert!(matches!(
        decision.reason,
        CaaReason::UnknownCriticalProperty { .. }
    ));
}

/// The platform's resolver view (60 s propagation delay) with a negative cache, on `clock`.
async fn resolver_view(
    store: &crate::dns::ZoneStore,
    clock: &crate::clock::Clock,
) -> crate::dns::tests::RunningDns {
    start(
        store.clone(),
        ZoneView::Delayed {
            clock: clock.clone(),
            delay: std::sync::Arc::new(|| chrono::TimeDelta::seconds(60)),
            negative_cache: Some(std::sync::Arc::new(crate::dns::NegativeCache::new(100))),
        },
    )
    .await
}

#[tokio::test]
async fn a_cname_created_after_a_verify_is_seen_once_the_cached_no_such_name_expires() {
    let store = seeded_store();
    let clock = crate::clock::Clock::frozen_at(at("2026-01-01T12:40:00Z"));
    let view = resolver_view(&store, &clock).await;
    let live = start(store.clone(), ZoneView::Live).await;
    let verifier = Verifier::new(view.address, TARGET).with_negative_cache(clock.clone());
    let dig = Verifier::new(live.address, TARGET);
    let name = host("new.example.com");

    let error = verifier.verify(&name).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
    assert!(
        error.message.starts_with(
            "The platform's resolver cached 'no such name' for new.example.com at 12:40 UTC \
             and asks again at 12:45 UTC."
        ),
        "{}",
        error.message
    );
    assert!(error.message.contains(TARGET), "{}", error.message);
    assert_eq!(error.cached_at, Some(at("2026-01-01T12:40:00Z")));
    assert_eq!(error.cached_until, Some(at("2026-01-01T12:45:00Z")));

    clock.advance_seconds(30.0).unwrap();
    store
        .add_record(
            "example.com",
            &NewZoneRecord {
                name: "new".to_owned(),
                record_type: ZoneRecordType::Cname,
                value: TARGET.to_owned(),
                ttl: Some(3600),
            },
            clock.now(),
        )
        .unwrap();
    // what dig sees has it at once
    assert_eq!(
        dig.lookup("new.example.com", RecordType::CNAME)
            .await
            .unwrap()
            .len(),
        1
    );
    // past the propagation delay, within the SOA minimum: still the cached answer, with the
    // times it was cached and expires
    clock.advance_seconds(150.0).unwrap();
    let error = verifier.verify(&name).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
    assert!(
        error.message.starts_with(
            "The platform's resolver cached 'no such name' for new.example.com at 12:40 UTC \
             and asks again at 12:45 UTC."
        ),
        "{}",
        error.message
    );
    assert_eq!(error.cached_at, Some(at("2026-01-01T12:40:00Z")));
    assert_eq!(error.cached_until, Some(at("2026-01-01T12:45:00Z")));
    assert_eq!(
        dig.lookup("new.example.com", RecordType::CNAME)
            .await
            .unwrap()
            .len(),
        1
    );
    clock.advance_seconds(119.0).unwrap();
    assert!(verifier.verify(&name).await.is_err(), "one second before");
    clock.advance_seconds(1.0).unwrap();
    verifier.verify(&name).await.unwrap();
}

#[tokio::test]
async fn an_apex_without_addresses_says_no_such_record_and_without_the_cache_nothing_of_it() {
    let store = seeded_store();
    store
        .add_zone("example.io", at("2026-01-01T00:00:00Z"))
        .unwrap();
    let clock = crate::clock::Clock::frozen_at(at("2026-01-01T23:58:30Z"));
    let view = resolver_view(&store, &clock).await;
    let verifier = Verifier::new(view.address, TARGET).with_negative_cache(clock.clone());
    let error = verifier.verify(&host("example.io")).await.unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
    // the apex exists (SOA, NS): NODATA; past midnight, with the dates; the minute it asks
    // again rounded up
    assert!(
        error.message.starts_with(
            "The platform's resolver cached 'no such record' for example.io at 2026-01-01 \
             23:58 UTC and asks again at 2026-01-02 00:04 UTC. Add an ALIAS"
        ),
        "{}",
        error.message
    );
    assert_eq!(error.cached_until, Some(at("2026-01-02T00:03:30Z")));

    // a verifier not told of the cache says what it always said
    let plain = Verifier::new(view.address, TARGET);
    let error = plain
        .verify(&host("nothing.example.com"))
        .await
        .unwrap_err();
    assert_eq!(error.code, VerificationErrorCode::RecordMissing);
    assert!(
        error
            .message
            .starts_with("nothing.example.com has no CNAME record yet"),
        "{}",
        error.message
    );
    assert_eq!((error.cached_at, error.cached_until), (None, None));
}

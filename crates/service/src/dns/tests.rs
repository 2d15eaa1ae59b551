//! The DNS server over real sockets on 127.0.0.1, asked with raw DNS messages (so flags and
//! sections can be checked) and with hickory-resolver (so a truncated answer is retried over
//! TCP the way clients do).
//!
//! It is longer than the house's 500 lines: the server's tests over sockets share its helpers (a
//! server on a free port, questions written by hand, the seeded zones); the UDP fast path's own
//! test is beside it, in `fast/tests.rs`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::ErrorCode;
use domain_desk_api::local::{NewZoneRecord, ZoneRecordType};
use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, RecordType};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};
use tokio::sync::oneshot;

use super::*;
use crate::clock::Clock;
use crate::verify::Verifier;

pub(crate) const TARGET: &str = "edge.domaindesk.test";

pub(crate) fn platform() -> PlatformZone {
    PlatformZone {
        domain: "domaindesk.test".to_owned(),
        dns_target: TARGET.to_owned(),
        edge_address: IpAddr::V4(Ipv4Addr::LOCALHOST),
    }
}

pub(crate) fn seeded_store() -> ZoneStore {
    let store = ZoneStore::new(platform());
    store.restore(demo_zones(TARGET, "letsencrypt.org").unwrap());
    store
}

pub(crate) fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// A running server; dropping it stops the server.
pub(crate) struct RunningDns {
    pub address: SocketAddr,
    _stop: oneshot::Sender<()>,
}

pub(crate) async fn start(store: ZoneStore, view: ZoneView) -> RunningDns {
    let (udp, tcp) = bind_dns("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let address = udp.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_dns(
        ZoneHandler::new(store, view),
        udp,
        tcp,
        async move {
            let _ = stopped.await;
        },
    ));
    RunningDns {
        address,
        _stop: stop,
    }
}

fn question(name: &str, record_type: RecordType, edns: bool) -> Vec<u8> {
    let mut message = Message::new(4242, MessageType::Query, OpCode::Query);
    message.metadata.recursion_desired = true;
    message.add_query(Query::query(Name::from_ascii(name).unwrap(), record_type));
    if edns {
        let mut options = Edns::new();
        options.set_max_payload(1232);
        message.set_edns(options);
    }
    message.to_vec().unwrap()
}

async fn ask_udp(server: SocketAddr, name: &str, record_type: RecordType) -> Message {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket
        .send_to(&question(name, record_type, false), server)
        .await
        .unwrap();
    let mut buffer = vec![0u8; 65_535];
    let (length, _) = socket.recv_from(&mut buffer).await.unwrap();
    Message::from_vec(&buffer[..length]).unwrap()
}

async fn ask_udp_edns(server: SocketAddr, name: &str, record_type: RecordType) -> Message {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket
        .send_to(&question(name, record_type, true), server)
        .await
        .unwrap();
    let mut buffer = vec![0u8; 65_535];
    let (length, _) = socket.recv_from(&mut buffer).await.unwrap();
    Message::from_vec(&buffer[..length]).unwrap()
}

async fn ask_tcp(server: SocketAddr, name: &str, record_type: RecordType) -> Message {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let query = question(name, record_type, true);
    stream
        .write_all(&(query.len() as u16).to_be_bytes())
        .await
        .unwrap();
    stream.write_all(&query).await.unwrap();
    let length = stream.read_u16().await.unwrap();
    let mut buffer = vec![0u8; usize::from(length)];
    stream.read_exact(&mut buffer).await.unwrap();
    Message::from_vec(&buffer).unwrap()
}

fn a_values(message: &Message) -> Vec<String> {
    message
        .answers
        .iter()
        .filter_map(|record| match &record.data {
            RData::A(a) => Some(a.0.to_string()),
            _ => None,
        })
        .collect()
}

fn has_soa_authority(message: &Message) -> bool {
    message
        .authorities
        .iter()
        .any(|record| record.record_type() == RecordType::SOA)
}

fn record(name: &str, record_type: ZoneRecordType, value: &str) -> NewZoneRecord {
    NewZoneRecord {
        name: name.to_owned(),
        record_type,
        value: value.to_owned(),
        ttl: Some(60),
    }
}

#[tokio::test]
async fn platform_target_answers_over_udp_and_tcp_with_the_aa_flag() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    for answer in [
        ask_udp(dns.address, "edge.domaindesk.test.", RecordType::A).await,
        ask_tcp(dns.address, "EDGE.DomainDesk.test.", RecordType::A).await,
    ] {
        assert_eq!(answer.response_code, ResponseCode::NoError);
        assert!(answer.authoritative);
        assert_eq!(a_values(&answer), ["127.0.0.1"]);
    }
}

#[tokio::test]
async fn default_addresses_resolve_once_registered() {
    let store = seeded_store();
    let dns = start(store.clone(), ZoneView::Live).await;
    let name = "shop-abc123.domaindesk.test.";
    assert_eq!(
        ask_udp(dns.address, name, RecordType::A)
            .await
            .response_code,
        ResponseCode::NXDomain
    );
    store.add_platform_host("shop-abc123.domaindesk.test");
    assert_eq!(
        a_values(&ask_udp(dns.address, name, RecordType::A).await),
        ["127.0.0.1"]
    );
}

#[tokio::test]
async fn nxdomain_and_nodata_are_told_apart_with_the_soa() {
    let store = seeded_store();
    store
        .add_record(
            "example.com",
            &record("a.deep", ZoneRecordType::Txt, "hello"),
            at("2026-01-01T00:00:00Z"),
        )
        .unwrap();
    let dns = start(store, ZoneView::Live).await;

    let missing = ask_udp(dns.address, "nothing-here.example.com.", RecordType::A).await;
    assert_eq!(missing.response_code, ResponseCode::NXDomain);
    assert!(missing.authoritative && missing.answers.is_empty() && has_soa_authority(&missing));

    let no_data = ask_udp(dns.address, "shop.example.com.", RecordType::AAAA).await;
    assert_eq!(no_data.response_code, ResponseCode::NoError);
    assert!(no_data.answers.is_empty() && has_soa_authority(&no_data));

    // an empty non-terminal exists: NODATA, not NXDOMAIN
    let between = ask_udp(dns.address, "deep.example.com.", RecordType::A).await;
    assert_eq!(between.response_code, ResponseCode::NoError);
    assert!(has_soa_authority(&between));

    let apex_soa = ask_udp(dns.address, "example.com.", RecordType::SOA).await;
    assert_eq!(apex_soa.answers.len(), 1);
    assert!(!has_soa_authority(&apex_soa));
}

#[tokio::test]
async fn names_outside_our_zones_are_refused() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let answer = ask_udp(dns.address, "www.example.edu.", RecordType::A).await;
    assert_eq!(answer.response_code, ResponseCode::Refused);
    assert!(!answer.authoritative);
}

#[tokio::test]
async fn cname_is_chased_within_our_zones_and_alias_is_flattened() {
    let store = seeded_store();
    store
        .add_zone("example.io", at("2026-01-01T00:00:00Z"))
        .unwrap();
    store
        .add_record(
            "example.io",
            &record("@", ZoneRecordType::Alias, TARGET),
            at("2026-01-01T00:00:00Z"),
        )
        .unwrap();
    let dns = start(store, ZoneView::Live).await;

    let chased = ask_udp(dns.address, "www.example.com.", RecordType::A).await;
    let types: Vec<RecordType> = chased
        .answers
        .iter()
        .map(|record| record.record_type())
        .collect();
    assert_eq!(types, [RecordType::CNAME, RecordType::A]);
    assert_eq!(a_values(&chased), ["127.0.0.1"]);
    // asked for the CNAME itself, only the CNAME
    assert_eq!(
        ask_udp(dns.address, "www.example.com.", RecordType::CNAME)
            .await
            .answers
            .len(),
        1
    );

    let flattened = ask_udp(dns.address, "example.io.", RecordType::A).await;
    assert_eq!(a_values(&flattened), ["127.0.0.1"]);
    assert_eq!(flattened.answers[0].name.to_ascii(), "example.io.");
    assert!(
        flattened
            .answers
            .iter()
            .all(|record| record.record_type() == RecordType::A)
    );
}

#[tokio::test]
async fn a_cname_loop_is_answered_once_round() {
    let store = seeded_store();
    let now = at("2026-01-01T00:00:00Z");
    store
        .add_record(
            "example.com",
            &record("ping", ZoneRecordType::Cname, "pong.example.com"),
            now,
        )
        .unwrap();
    store
        .add_record(
            "example.com",
            &record("pong", ZoneRecordType::Cname, "ping.example.com"),
            now,
        )
        .unwrap();
    store
        .add_record(
            "example.com",
            &record("self", ZoneRecordType::Cname, "self.example.com"),
            now,
        )
        .unwrap();
    let dns = start(store, ZoneView::Live).await;
    let answer = ask_udp(dns.address, "ping.example.com.", RecordType::A).await;
    assert_eq!(answer.response_code, ResponseCode::NoError);
    assert_eq!(answer.answers.len(), 2);
    assert_eq!(
        ask_udp(dns.address, "self.example.com.", RecordType::A)
            .await
            .answers
            .len(),
        1
    );
}

#[tokio::test]
async fn zone_changes_are_served_at_once() {
    let store = seeded_store();
    let dns = start(store.clone(), ZoneView::Live).await;
    let now = at("2026-01-01T00:00:00Z");
    let added = store
        .add_record(
            "example.net",
            &record("new", ZoneRecordType::A, "192.0.2.77"),
            now,
        )
        .unwrap();
    assert_eq!(
        a_values(&ask_udp(dns.address, "new.example.net.", RecordType::A).await),
        ["192.0.2.77"]
    );
    store.delete_record("example.net", &added.id, now).unwrap();
    assert_eq!(
        ask_udp(dns.address, "new.example.net.", RecordType::A)
            .await
            .response_code,
        ResponseCode::NXDomain
    );
}

/// Internationalised names are stored and asked by their A-labels: the server finds the record
/// of `xn--bcher-kva` (bücher) over UDP and over TCP.
#[tokio::test]
async fn a_record_under_an_internationalised_name_answers() {
    let store = seeded_store();
    let dns = start(store.clone(), ZoneView::Live).await;
    store
        .add_record(
            "example.net",
            &record("xn--bcher-kva", ZoneRecordType::A, "192.0.2.78"),
            at("2026-01-01T00:00:00Z"),
        )
        .unwrap();
    let name = "xn--bcher-kva.example.net.";
    assert_eq!(
        a_values(&ask_udp(dns.address, name, RecordType::A).await),
        ["192.0.2.78"]
    );
    assert_eq!(
        a_values(&ask_tcp(dns.address, name, RecordType::A).await),
        ["192.0.2.78"]
    );
}

/// The UDP loops remember their answers by question; a zone change makes every loop forget
/// them, so the same question asked again (on any loop) gets the new answer.
#[tokio::test]
async fn a_remembered_answer_is_forgotten_when_the_zone_changes() {
    let store = seeded_store();
    let dns = start(store.clone(), ZoneView::Live).await;
    let now = at("2026-01-01T00:00:00Z");
    let address = dns.address;
    // Asked often enough that every loop has the answer remembered, whichever gets it.
    let ask_often = |expected: Vec<&'static str>| async move {
        for _ in 0..16 {
            let answer = ask_udp(address, "often.example.net.", RecordType::A).await;
            assert_eq!(a_values(&answer), expected);
            assert_eq!(answer.id, 4242);
        }
    };
    ask_often(vec![]).await;
    let added = store
        .add_record(
            "example.net",
            &record("often", ZoneRecordType::A, "192.0.2.78"),
            now,
        )
        .unwrap();
    ask_often(vec!["192.0.2.78"]).await;
    store.delete_record("example.net", &added.id, now).unwrap();
    ask_often(vec![]).await;
}

#[tokio::test]
async fn a_big_udp_answer_is_truncated_and_the_resolver_retries_over_tcp() {
    let store = seeded_store();
    let now = at("2026-01-01T00:00:00Z");
    for index in 0..40 {
        let text = format!("{index:02}-{}", "x".repeat(200));
        store
            .add_record(
                "example.com",
                &record("big", ZoneRecordType::Txt, &text),
                now,
            )
            .unwrap();
    }
    let dns = start(store, ZoneView::Live).await;
    let over_udp = ask_udp(dns.address, "big.example.com.", RecordType::TXT).await;
    assert!(
        over_udp.truncation,
        "a 8 kB answer must not fit a UDP datagram"
    );
    let over_tcp = ask_tcp(dns.address, "big.example.com.", RecordType::TXT).await;
    assert!(!over_tcp.truncation);
    assert_eq!(over_tcp.answers.len(), 40);

    let verifier = Verifier::new(dns.address, TARGET);
    let records = verifier
        .lookup("big.example.com", RecordType::TXT)
        .await
        .unwrap();
    assert_eq!(
        records.len(),
        40,
        "the resolver must retry the truncated answer over TCP"
    );
}

#[tokio::test]
async fn without_edns_a_udp_answer_over_512_bytes_is_truncated() {
    let store = seeded_store();
    let now = at("2026-01-01T00:00:00Z");
    for index in 0..4 {
        let text = format!("{index}-{}", "y".repeat(200));
        store
            .add_record(
                "example.com",
                &record("mid", ZoneRecordType::Txt, &text),
                now,
            )
            .unwrap();
    }
    let dns = start(store, ZoneView::Live).await;
    let classic = ask_udp(dns.address, "mid.example.com.", RecordType::TXT).await;
    assert!(classic.truncation && classic.answers.is_empty());
    let with_edns = ask_udp_edns(dns.address, "mid.example.com.", RecordType::TXT).await;
    assert!(!with_edns.truncation);
    assert_eq!(with_edns.answers.len(), 4);
}

#[tokio::test]
async fn the_delayed_view_sees_changes_after_the_propagation_delay() {
    let store = seeded_store();
    let clock = Clock::frozen_at(at("2026-01-01T00:00:00Z"));
    let delayed = ZoneView::Delayed {
        clock: clock.clone(),
        delay: Arc::new(|| TimeDelta::minutes(5)),
        negative_cache: None,
    };
    let live = start(store.clone(), ZoneView::Live).await;
    let resolver_view = start(store.clone(), delayed).await;

    let added = store
        .add_record(
            "example.net",
            &record("late", ZoneRecordType::A, "192.0.2.5"),
            clock.now(),
        )
        .unwrap();
    assert_eq!(
        a_values(&ask_udp(live.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );
    assert_eq!(
        ask_udp(resolver_view.address, "late.example.net.", RecordType::A)
            .await
            .response_code,
        ResponseCode::NXDomain
    );
    clock.advance_seconds(299.0).unwrap();
    assert!(
        a_values(&ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await)
            .is_empty()
    );
    clock.advance_seconds(1.0).unwrap();
    assert_eq!(
        a_values(&ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );

    store
        .delete_record("example.net", &added.id, clock.now())
        .unwrap();
    assert_eq!(
        a_values(&ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );
    clock.advance_seconds(300.0).unwrap();
    assert!(
        a_values(&ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await)
            .is_empty()
    );
    // seed records count as old: visible to the delayed view at once
    assert_eq!(
        a_values(&ask_udp(resolver_view.address, "shop.example.com.", RecordType::A).await),
        ["192.0.2.10"]
    );
}

/// The SOA TTL and MINIMUM in the authority section of a negative answer.
fn negative_soa(message: &Message) -> (u32, u32) {
    message
        .authorities
        .iter()
        .find_map(|record| match &record.data {
            RData::SOA(soa) => Some((record.ttl, soa.minimum)),
            _ => None,
        })
        .expect("a negative answer carries the zone's SOA")
}

#[tokio::test]
async fn the_resolver_view_keeps_a_negative_answer_for_the_soa_minimum_and_the_live_view_does_not()
{
    let store = seeded_store();
    let clock = Clock::frozen_at(at("2026-01-01T12:40:00Z"));
    let cache = Arc::new(NegativeCache::new(100));
    let delayed = ZoneView::Delayed {
        clock: clock.clone(),
        delay: Arc::new(|| TimeDelta::seconds(60)),
        negative_cache: Some(cache.clone()),
    };
    let live = start(store.clone(), ZoneView::Live).await;
    let resolver_view = start(store.clone(), delayed).await;

    // asked before the record exists: NXDOMAIN, with the demo zones' SOA minimum (300 s)
    let before = ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(before.response_code, ResponseCode::NXDomain);
    assert_eq!(negative_soa(&before), (300, 300));
    let live_before = ask_udp(live.address, "late.example.net.", RecordType::A).await;
    assert_eq!(negative_soa(&live_before), (300, 300));
    // NODATA is kept too (a CNAME question at a name with an A record)
    let nodata = ask_udp(
        resolver_view.address,
        "shop.example.com.",
        RecordType::CNAME,
    )
    .await;
    assert_eq!(nodata.response_code, ResponseCode::NoError);
    assert!(nodata.answers.is_empty());

    clock.advance_seconds(10.0).unwrap();
    store
        .add_record(
            "example.net",
            &record("late", ZoneRecordType::A, "192.0.2.5"),
            clock.now(),
        )
        .unwrap();
    // the live view answers at once, and never from a cache
    assert_eq!(
        a_values(&ask_udp(live.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );
    // past the propagation delay the record is in the delayed view's zones, but the
    // resolver keeps its NXDOMAIN, its SOA TTL counting down
    clock.advance_seconds(110.0).unwrap();
    let cached = ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(cached.response_code, ResponseCode::NXDomain);
    assert!(cached.answers.is_empty());
    assert_eq!(negative_soa(&cached), (180, 300));
    let cached = ask_tcp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(cached.response_code, ResponseCode::NXDomain, "over TCP too");
    assert_eq!(
        a_values(&ask_udp(live.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );
    clock.advance_seconds(179.0).unwrap();
    let last = ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(last.response_code, ResponseCode::NXDomain);
    assert_eq!(negative_soa(&last), (1, 300));
    // 300 s after it was cached, the resolver asks again and finds the record
    clock.advance_seconds(1.0).unwrap();
    let after = ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(after.response_code, ResponseCode::NoError);
    assert_eq!(a_values(&after), ["192.0.2.5"]);
    // the platform zone keeps its own, shorter minimum
    let platform = ask_udp(
        resolver_view.address,
        "nothing.domaindesk.test.",
        RecordType::A,
    )
    .await;
    assert_eq!(negative_soa(&platform), (60, 60));
}

#[tokio::test]
async fn without_a_negative_cache_the_resolver_view_sees_a_record_after_the_delay_alone() {
    let store = seeded_store();
    let clock = Clock::frozen_at(at("2026-01-01T12:40:00Z"));
    let delayed = ZoneView::Delayed {
        clock: clock.clone(),
        delay: Arc::new(|| TimeDelta::seconds(60)),
        negative_cache: None,
    };
    let resolver_view = start(store.clone(), delayed).await;
    let before = ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await;
    assert_eq!(before.response_code, ResponseCode::NXDomain);
    store
        .add_record(
            "example.net",
            &record("late", ZoneRecordType::A, "192.0.2.5"),
            clock.now(),
        )
        .unwrap();
    clock.advance_seconds(60.0).unwrap();
    assert_eq!(
        a_values(&ask_udp(resolver_view.address, "late.example.net.", RecordType::A).await),
        ["192.0.2.5"]
    );
}

#[test]
fn the_provider_refuses_a_cname_beside_other_records_and_the_reverse() {
    let store = seeded_store();
    let now = at("2026-01-01T00:00:00Z");
    // shop.example.com has an A record from the seed
    let error = store
        .add_record(
            "example.com",
            &record("shop", ZoneRecordType::Cname, TARGET),
            now,
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::RecordConflict);
    assert_eq!(error.status().as_u16(), 409);
    // www.example.com has a CNAME from the seed
    let error = store
        .add_record("example.com", &record("www", ZoneRecordType::Txt, "x"), now)
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::RecordConflict);
    // not at the apex either
    let error = store
        .add_record(
            "example.com",
            &record("@", ZoneRecordType::Cname, TARGET),
            now,
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::RecordConflict);
    // the same record twice
    store
        .add_record(
            "example.com",
            &record("two", ZoneRecordType::A, "192.0.2.1"),
            now,
        )
        .unwrap();
    let error = store
        .add_record(
            "example.com",
            &record("two", ZoneRecordType::A, "192.0.2.1"),
            now,
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::RecordConflict);
    // two A records at one name are fine
    store
        .add_record(
            "example.com",
            &record("two", ZoneRecordType::A, "192.0.2.2"),
            now,
        )
        .unwrap();
}

#[test]
fn the_provider_checks_values_zones_and_ids() {
    let store = seeded_store();
    let now = at("2026-01-01T00:00:00Z");
    for (record_type, value) in [
        (ZoneRecordType::A, "2001:db8::1"),
        (ZoneRecordType::Aaaa, "192.0.2.1"),
        (ZoneRecordType::Cname, "http://example.net/"),
        (ZoneRecordType::Caa, "issue letsencrypt.org"),
    ] {
        let error = store
            .add_record("example.com", &record("x", record_type, value), now)
            .unwrap_err();
        assert_eq!(error.code(), ErrorCode::ValidationFailed, "{value}");
    }
    let mut zero_ttl = record("x", ZoneRecordType::A, "192.0.2.1");
    zero_ttl.ttl = Some(0);
    assert_eq!(
        store
            .add_record("example.com", &zero_ttl, now)
            .unwrap_err()
            .code(),
        ErrorCode::ValidationFailed
    );
    assert_eq!(
        store
            .add_record(
                "example.edu",
                &record("x", ZoneRecordType::A, "192.0.2.1"),
                now
            )
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        store
            .delete_record("example.com", "rec_nope", now)
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        store.add_zone("example.com", now).unwrap_err().code(),
        ErrorCode::ZoneExists
    );
    assert_eq!(
        store
            .add_zone("shop.domaindesk.test", now)
            .unwrap_err()
            .code(),
        ErrorCode::ValidationFailed
    );
    assert_eq!(
        store.add_zone("co.uk", now).unwrap_err().code(),
        ErrorCode::ValidationFailed
    );
    assert_eq!(store.add_zone("example.io.", now).unwrap(), "example.io");
    let with_default_ttl = NewZoneRecord {
        ttl: None,
        ..record("www", ZoneRecordType::Cname, "Edge.DomainDesk.test.")
    };
    let created = store
        .add_record("example.io", &with_default_ttl, now)
        .unwrap();
    assert_eq!((created.ttl, created.value.as_str()), (3600, TARGET));
    assert_eq!(store.records("example.io").unwrap(), vec![created]);
}

#[test]
fn the_seed_zones_hold_the_classic_mistakes() {
    let store = seeded_store();
    let com = store.records("example.com").unwrap();
    assert!(
        com.iter()
            .any(|r| r.name == "shop" && r.record_type == ZoneRecordType::A)
    );
    let net = store.records("example.net").unwrap();
    assert!(
        net.iter()
            .any(|r| r.name == "blog" && r.value == format!("{TARGET}.example.net"))
    );
    assert!(
        net.iter()
            .any(|r| r.name == "@" && r.record_type == ZoneRecordType::A)
    );
    let org = store.records("example.org").unwrap();
    assert!(
        org.iter()
            .any(|r| r.name == "locked" && r.value == "0 issue \"other-ca.example\"")
    );
    assert_eq!(
        store.zone_names(),
        ["example.co.uk", "example.com", "example.net", "example.org"]
    );
}

#[test]
fn deleted_records_are_kept_only_up_to_the_bound_in_memory_and_on_disk() {
    let database = crate::store::Store::open_in_memory().unwrap();
    let store = ZoneStore::new(platform())
        .with_removed_limit(3)
        .with_journal(Arc::new(crate::store::zones::StoreJournal(
            database.clone(),
        )));
    store
        .add_zone("example.org", at("2026-01-01T00:00:00Z"))
        .unwrap();
    let removed = |snapshot: &ZoneSnapshot| {
        snapshot
            .records
            .iter()
            .filter(|stored| stored.removed_at.is_some())
            .count()
    };
    let start = at("2026-01-01T00:00:00Z");
    for minute in 0..10 {
        let now = start + TimeDelta::minutes(minute);
        let added = store
            .add_record(
                "example.org",
                &record("churn", ZoneRecordType::A, &format!("192.0.2.{minute}")),
                now,
            )
            .unwrap();
        store
            .delete_record("example.org", &added.id, now + TimeDelta::seconds(30))
            .unwrap();
    }
    let kept = store
        .add_record(
            "example.org",
            &record("kept", ZoneRecordType::A, "192.0.2.200"),
            start,
        )
        .unwrap();
    let snapshot = store.snapshot();
    assert_eq!(removed(&snapshot), 3);
    assert!(snapshot.records.iter().any(|s| s.record.id == kept.id));
    let on_disk = database
        .write_blocking(|tx| crate::store::zones::read_zones(tx))
        .unwrap();
    assert_eq!(
        on_disk.records, snapshot.records,
        "the database forgets the same records"
    );
    // the newest deletions stay visible to the delayed view, the oldest are forgotten
    let churn = |as_of: DateTime<Utc>| match store
        .resolve("churn.example.org", RecordType::A, Some(as_of))
        .unwrap()
    {
        Resolution::Answer { answers, .. } => answers.len(),
        Resolution::Refused => panic!("refused"),
    };
    assert_eq!(
        churn(start + TimeDelta::minutes(9) + TimeDelta::seconds(10)),
        1
    );
    assert_eq!(churn(start + TimeDelta::seconds(10)), 0);
    // the lookup indexes were rebuilt with the records
    assert_eq!(store.records("example.org").unwrap(), vec![kept]);
}

#[test]
fn zones_and_live_records_past_their_bounds_are_refused_with_422() {
    let store = ZoneStore::new(platform()).with_size_limits(2, 3);
    let now = at("2026-01-01T00:00:00Z");
    store.add_zone("example.org", now).unwrap();
    store.add_zone("example.net", now).unwrap();
    let error = store.add_zone("example.com", now).unwrap_err();
    assert_eq!(error.code(), ErrorCode::ValidationFailed);
    assert_eq!(error.status().as_u16(), 422);
    assert!(error.to_string().contains("at most 2 zones"), "{error}");

    let mut ids = Vec::new();
    for n in 0..3 {
        let value = format!("192.0.2.{n}");
        let added = store
            .add_record(
                "example.org",
                &record("www", ZoneRecordType::A, &value),
                now,
            )
            .unwrap();
        ids.push(added.id);
    }
    let error = store
        .add_record(
            "example.org",
            &record("www", ZoneRecordType::A, "192.0.2.9"),
            now,
        )
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::ValidationFailed);
    assert_eq!(error.status().as_u16(), 422);
    assert!(error.to_string().contains("delete one first"), "{error}");
    // another zone has its own room; a deletion makes room again
    store
        .add_record(
            "example.net",
            &record("www", ZoneRecordType::A, "192.0.2.9"),
            now,
        )
        .unwrap();
    store.delete_record("example.org", &ids[0], now).unwrap();
    store
        .add_record(
            "example.org",
            &record("www", ZoneRecordType::A, "192.0.2.9"),
            now,
        )
        .unwrap();
}

#[test]
fn a_history_longer_than_a_lowered_bound_is_trimmed_when_loaded() {
    let database = crate::store::Store::open_in_memory().unwrap();
    let start = at("2026-01-01T00:00:00Z");
    let long = ZoneStore::new(platform());
    long.add_zone("example.org", start).unwrap();
    for minute in 0..5 {
        let now = start + TimeDelta::minutes(minute);
        let value = format!("192.0.2.{minute}");
        let added = long
            .add_record(
                "example.org",
                &record("churn", ZoneRecordType::A, &value),
                now,
            )
            .unwrap();
        long.delete_record("example.org", &added.id, now).unwrap();
    }
    let snapshot = long.snapshot();
    database
        .write_blocking(|tx| crate::store::zones::write_zones(tx, &snapshot))
        .unwrap();

    let store = ZoneStore::new(platform())
        .with_removed_limit(2)
        .with_journal(Arc::new(crate::store::zones::StoreJournal(
            database.clone(),
        )));
    store.restore(snapshot);
    store.trim_history().unwrap();
    assert_eq!(store.snapshot().records.len(), 2);
    let on_disk = database
        .write_blocking(|tx| crate::store::zones::read_zones(tx))
        .unwrap();
    assert_eq!(on_disk.records, store.snapshot().records);
}

/// A burst of questions is queued, not dropped: the receive buffer is as large as the process
/// may make it — the full size with `CAP_NET_ADMIN` (root, as in CI), else the kernel's cap.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_udp_socket_queues_a_burst() {
    let (udp, _tcp) = bind_dns("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let granted = socket2::SockRef::from(&udp).recv_buffer_size().unwrap();
    let cap: usize = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0);
    let privileged = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status
                .lines()
                .find(|l| l.starts_with("CapEff:"))?
                .to_owned();
            u64::from_str_radix(line.split_whitespace().nth(1)?, 16).ok()
        })
        // CAP_NET_ADMIN is capability 12.
        .is_some_and(|effective| effective & (1 << 12) != 0);
    // The kernel reports twice the size asked for (its bookkeeping).
    let expected = if privileged {
        32 * 1024 * 1024
    } else {
        cap.min(32 * 1024 * 1024)
    };
    assert!(
        granted >= expected,
        "receive buffer {granted} bytes; expected at least {expected} (privileged: {privileged}, rmem_max {cap})"
    );
}

/// Garbage does not stop the UDP loop: too short for a header, it gets no answer; with a
/// readable header but an unreadable question, FORMERR with the question's id; a response is
/// not answered (no reflection). The next real question is still answered.
#[tokio::test]
async fn garbage_gets_formerr_or_silence_and_the_loop_goes_on() {
    let dns = start(seeded_store(), ZoneView::Live).await;
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut buffer = vec![0u8; 65_535];

    // Five bytes: no header, no answer.
    socket.send_to(b"\x01\x02junk", dns.address).await.unwrap();
    // A header (id 0x0bad, one question) followed by a truncated question name.
    let broken = b"\x0b\xad\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07exa";
    socket.send_to(broken, dns.address).await.unwrap();
    let (length, _) = socket.recv_from(&mut buffer).await.unwrap();
    let formerr = Message::from_vec(&buffer[..length]).unwrap();
    assert_eq!(formerr.id, 0x0bad);
    assert_eq!(formerr.message_type, MessageType::Response);
    assert_eq!(formerr.response_code, ResponseCode::FormErr);

    // A response sent to the server is ignored, then a real question is answered.
    let mut response = Message::from_vec(&question(TARGET, RecordType::A, false)).unwrap();
    response.metadata.message_type = MessageType::Response;
    response.metadata.id = 7;
    socket
        .send_to(&response.to_vec().unwrap(), dns.address)
        .await
        .unwrap();
    socket
        .send_to(&question(TARGET, RecordType::A, false), dns.address)
        .await
        .unwrap();
    let (length, _) = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        socket.recv_from(&mut buffer),
    )
    .await
    .expect("the loop stopped after garbage")
    .unwrap();
    let answer = Message::from_vec(&buffer[..length]).unwrap();
    assert_eq!(answer.id, 4242, "only the question is answered");
    assert_eq!(answer.response_code, ResponseCode::NoError);
    assert_eq!(a_values(&answer), vec!["127.0.0.1"]);
}

/// Thousands of questions in flight on one client socket all get their answer, each with its
/// own id (the client's socket is bound as the server's, so its buffer holds the burst).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_question_of_a_burst_in_flight_is_answered() {
    const BURST: u16 = 3_000;
    let dns = start(seeded_store(), ZoneView::Live).await;
    let (client, _tcp) = bind_dns("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let kinds = [
        RecordType::A,
        RecordType::AAAA,
        RecordType::TXT,
        RecordType::CAA,
    ];
    for id in 0..BURST {
        let mut message =
            Message::from_vec(&question(TARGET, kinds[usize::from(id) % 4], true)).unwrap();
        message.metadata.id = id;
        client
            .send_to(&message.to_vec().unwrap(), dns.address)
            .await
            .unwrap();
    }
    let mut seen = vec![false; usize::from(BURST)];
    let mut buffer = vec![0u8; 65_535];
    for _ in 0..BURST {
        let (length, _) = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            client.recv_from(&mut buffer),
        )
        .await
        .expect("a question of the burst was never answered")
        .unwrap();
        let answer = Message::from_vec(&buffer[..length]).unwrap();
        assert_eq!(answer.response_code, ResponseCode::NoError);
        assert!(!seen[usize::from(answer.id)], "answered twice");
        seen[usize::from(answer.id)] = true;
    }
    assert!(seen.iter().all(|&answered| answered));
}

fn resolved(
    store: &ZoneStore,
    name: &str,
    record_type: RecordType,
    as_of: Option<DateTime<Utc>>,
) -> (Vec<String>, bool) {
    match store.resolve(name, record_type, as_of).unwrap() {
        Resolution::Answer {
            answers, nxdomain, ..
        } => (
            answers
                .iter()
                .map(|record| format!("{} {} {}", record.name, record.record_type(), record.data))
                .collect(),
            nxdomain,
        ),
        Resolution::Refused => panic!("{name} refused"),
    }
}

#[test]
fn a_wildcard_answers_for_names_without_records_of_their_own() {
    let store = seeded_store();
    let now = at("2026-03-02T10:00:00Z");
    store
        .add_record(
            "example.net",
            &record("*.w", ZoneRecordType::Cname, TARGET),
            now,
        )
        .unwrap();
    store
        .add_record(
            "example.net",
            &record("x.w", ZoneRecordType::A, "192.0.2.5"),
            now,
        )
        .unwrap();
    let (answers, nxdomain) = resolved(&store, "anything.w.example.net", RecordType::A, None);
    assert!(!nxdomain);
    assert_eq!(
        answers,
        [
            format!("anything.w.example.net. CNAME {TARGET}."),
            format!("{TARGET}. A 127.0.0.1"),
        ]
    );
    // a name that has records of its own is answered from them alone
    let (answers, _) = resolved(&store, "x.w.example.net", RecordType::A, None);
    assert_eq!(answers, ["x.w.example.net. A 192.0.2.5"]);
    assert!(
        resolved(&store, "x.w.example.net", RecordType::CNAME, None)
            .0
            .is_empty()
    );
    // deeper names are covered too (RFC 4592), the wildcard's parent exists without data, and
    // another branch does not exist
    assert_eq!(
        resolved(&store, "a.b.w.example.net", RecordType::CNAME, None).0,
        [format!("a.b.w.example.net. CNAME {TARGET}.")]
    );
    assert_eq!(
        resolved(&store, "w.example.net", RecordType::A, None),
        (vec![], false)
    );
    assert!(resolved(&store, "other.example.net", RecordType::A, None).1);
    // the delayed view sees the wildcard only once it was added
    let before = now - TimeDelta::seconds(1);
    assert!(
        resolved(
            &store,
            "anything.w.example.net",
            RecordType::A,
            Some(before)
        )
        .1
    );
}

#[test]
fn validation_tokens_are_txt_in_the_validation_zone_seen_late_by_the_delayed_view() {
    let store = seeded_store();
    store.set_validation_zone("acme.domaindesk.test");
    let published = at("2026-03-02T10:00:00Z");
    let owner = "shop.example.org.acme.domaindesk.test";
    store.publish_validation_token(owner, "shop.example.org", "token-1", published);
    assert_eq!(
        store.validation_token("shop.example.org"),
        Some(("token-1".to_owned(), published))
    );
    assert_eq!(
        resolved(&store, owner, RecordType::TXT, None).0,
        [format!("{owner}. TXT token-1")]
    );
    let earlier = Some(published - TimeDelta::seconds(1));
    assert!(resolved(&store, owner, RecordType::TXT, earlier).1);
    // the zone and the names between exist (NODATA), a name beside them does not
    assert_eq!(
        resolved(&store, "acme.domaindesk.test", RecordType::TXT, None),
        (vec![], false)
    );
    assert_eq!(
        resolved(
            &store,
            "example.org.acme.domaindesk.test",
            RecordType::TXT,
            None
        ),
        (vec![], false)
    );
    assert!(
        resolved(
            &store,
            "blog.example.net.acme.domaindesk.test",
            RecordType::TXT,
            None
        )
        .1
    );
    // reached through the customer's delegation
    store
        .add_record(
            "example.org",
            &record("_acme-challenge.shop", ZoneRecordType::Cname, owner),
            published,
        )
        .unwrap();
    assert_eq!(
        resolved(
            &store,
            "_acme-challenge.shop.example.org",
            RecordType::TXT,
            None
        )
        .0,
        [
            format!("_acme-challenge.shop.example.org. CNAME {owner}."),
            format!("{owner}. TXT token-1"),
        ]
    );
    // a wildcard's order shares the owner with a token of its own; a new token replaces the
    // order's old one; a withdrawn token stays in the delayed view for a while
    store.publish_validation_token(owner, "*.shop.example.org", "token-2", published);
    assert_eq!(resolved(&store, owner, RecordType::TXT, None).0.len(), 2);
    let withdrawn = published + TimeDelta::minutes(5);
    store.withdraw_validation_token("shop.example.org", withdrawn);
    store.withdraw_validation_token("*.shop.example.org", withdrawn);
    assert_eq!(store.validation_token("shop.example.org"), None);
    assert!(resolved(&store, owner, RecordType::TXT, None).1);
    assert_eq!(
        resolved(
            &store,
            owner,
            RecordType::TXT,
            Some(withdrawn - TimeDelta::seconds(1))
        )
        .0
        .len(),
        2
    );
}

//! The fast path held to the plain one: an answer the cache gives from memory is, byte for
//! byte, the answer computed afresh for that question (with its own id), for names and types
//! of every kind, before and after a zone changes. Over real sockets (the loops against
//! hickory-server's TCP, garbage, bursts, a change seen at once) the tests are `dns/tests.rs`.

use std::net::SocketAddr;

use chrono::{DateTime, Utc};
use domain_desk_api::local::{NewZoneRecord, ZoneRecordType};
use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query};
use hickory_proto::rr::{Name, RecordType};

use super::answer_cache::AnswerCache;
use super::one_question::answer_udp;
use crate::dns::tests::{TARGET, seeded_store};
use crate::dns::{ZoneHandler, ZoneView};

fn question(id: u16, name: &str, record_type: RecordType, edns: bool) -> Vec<u8> {
    let mut message = Message::new(id, MessageType::Query, OpCode::Query);
    message.metadata.recursion_desired = true;
    message.add_query(Query::query(Name::from_ascii(name).unwrap(), record_type));
    if edns {
        let mut options = Edns::new();
        options.set_max_payload(1232);
        message.set_edns(options);
    }
    message.to_vec().unwrap()
}

const NAMES: &[&str] = &[
    "edge.domaindesk.test.",
    "domaindesk.test.",
    "shop.example.com.",
    "www.example.com.",
    "missing.example.com.",
    "example.net.",
    "blog.example.net.",
    "www.locked.example.org.",
    "example.org.",
    "www.example.co.uk.",
    "outside.invalid.",
];

const TYPES: &[RecordType] = &[
    RecordType::A,
    RecordType::AAAA,
    RecordType::CNAME,
    RecordType::TXT,
    RecordType::CAA,
    RecordType::NS,
    RecordType::SOA,
    RecordType::MX,
];

/// Asks every question twice through `cache` (the second from memory) and once afresh, and
/// compares the bytes.
fn every_remembered_answer_is_the_fresh_one(handler: &ZoneHandler, cache: &mut AnswerCache) {
    let from: SocketAddr = "127.0.0.1:5300".parse().unwrap();
    for name in NAMES {
        for &record_type in TYPES {
            for edns in [false, true] {
                let mut first = Vec::new();
                let asked = question(1, name, record_type, edns);
                assert!(cache.answer(handler, &asked, from, &mut first));
                let again = question(0x7a7a, name, record_type, edns);
                let mut fresh = Vec::new();
                assert!(answer_udp(handler, &again, from, &mut fresh));
                let mut remembered = Vec::new();
                assert!(cache.answer(handler, &again, from, &mut remembered));
                assert_eq!(
                    remembered, fresh,
                    "{name} {record_type} (EDNS {edns}): the remembered answer differs"
                );
                assert_eq!(first.get(2..), fresh.get(2..), "{name} {record_type}");
            }
        }
    }
}

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

#[test]
fn a_remembered_answer_is_the_answer_computed_afresh_before_and_after_a_change() {
    let store = seeded_store();
    let handler = ZoneHandler::new(store.clone(), ZoneView::Live);
    let mut cache = AnswerCache::default();
    every_remembered_answer_is_the_fresh_one(&handler, &mut cache);
    store
        .add_record(
            "example.com",
            &NewZoneRecord {
                name: "missing".to_owned(),
                record_type: ZoneRecordType::Cname,
                value: TARGET.to_owned(),
                ttl: None,
            },
            at("2026-01-01T00:00:00Z"),
        )
        .unwrap();
    every_remembered_answer_is_the_fresh_one(&handler, &mut cache);
}

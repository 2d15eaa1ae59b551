//! DNSSEC judged link by link, against an in-process server that signs its zones as it answers
//! (hickory's signer, one ECDSA P-256 key per zone) under a root the test trusts: `com` and
//! `net` hold the DS records of their signed children, `shop.net` is not signed and `net`
//! proves that it has no DS, by an NSEC record at its name or, as the real `net` does, by an
//! NSEC3 record (which the doctor's walk leaves to hickory's validator).
//!
//! `www.good.com` is a CNAME, signed in `good.com`, to `www.shop.net`: the name's own record
//! validates in its own zone, so it is `dnssec_valid` with the note that the target's zone is
//! unsigned, whichever proof `net` gives and whatever order the answer's RRsets come in. A
//! link that breaks further down the chain (an expired signature in `broken.com`) is bogus and
//! names that link; a name in an unsigned zone is unsigned even when its target is signed.
//!
//! It is longer than the house's 500 lines (about 545, all tests): about 475 are the signing
//! server (the `World` of zones, signing each answer as it goes, the NSEC and NSEC3 proofs of
//! no DS, the anchor) and 70 the one story, run once with each proof. No other test's server
//! signs as it answers: `support.rs` answers unsigned zones, `nsec3_denial.rs` writes bytes,
//! and the rest use the local service's signed zones (`service.rs`) or NSD (`real_servers.rs`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use chrono::{TimeDelta, Utc};
use domain_desk_doctor::{
    DoctorOptions, FindingCode, Severity, diagnose, diagnose_capturing, replay,
};
use hickory_net::runtime::Time;
use hickory_proto::dnssec::crypto::EcdsaSigningKey;
use hickory_proto::dnssec::rdata::{DNSKEY, DNSSECRData, DS, NSEC, NSEC3, RRSIG, SigInput};
use hickory_proto::dnssec::{
    Algorithm, DigestType, Nsec3HashAlgorithm, PublicKey, SigningKey, TBS,
};
use hickory_proto::op::{Edns, Header, HeaderCounts, MessageType, Metadata, OpCode, ResponseCode};
use hickory_proto::rr::rdata::{A, CNAME, NS, SOA};
use hickory_proto::rr::{DNSClass, Name, RData, Record, RecordType, SerialNumber};
use hickory_server::Server;
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponseBuilder;
use rustls::pki_types::PrivatePkcs8KeyDer;

use crate::support::{name, udp_and_tcp_on};
use crate::{finding, host};

/// The platform target the options name (the names here do not point at it: only their
/// DNSSEC is looked at).
const TARGET: &str = "edge.platform.net";

/// How `net` proves that `shop.net` has no DS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Denial {
    Nsec,
    Nsec3,
}

struct ZoneKey {
    pkcs8: PrivatePkcs8KeyDer<'static>,
    dnskey: DNSKEY,
}

struct Zone {
    apex: Name,
    /// `None`: not signed.
    key: Option<ZoneKey>,
}

/// A record with the index of the zone it belongs to.
type Tagged = (usize, Record);

/// The zones, each record tagged with the zone it belongs to (a DS belongs to the parent).
struct World {
    zones: Vec<Zone>,
    records: Vec<Tagged>,
    denial: Denial,
    /// Owners whose signatures ended a day ago, as when a provider stops signing again.
    expired: Vec<Name>,
}

impl World {
    fn new(denial: Denial) -> Self {
        Self {
            zones: Vec::new(),
            records: Vec::new(),
            denial,
            expired: Vec::new(),
        }
    }

    fn index(&self, apex: &Name) -> usize {
        self.zones
            .iter()
            .position(|zone| zone.apex == *apex)
            .unwrap()
    }

    /// A zone with its SOA and NS; signed (its DNSKEY at the apex, its DS at the parent,
    /// which must come first) unless `signed` is false.
    fn zone(&mut self, apex: &str, signed: bool) -> &mut Self {
        let (origin, apex) = if apex == "." {
            (Name::root(), "")
        } else {
            (name(apex), apex)
        };
        let key = signed.then(|| {
            let pkcs8 = EcdsaSigningKey::generate_pkcs8(Algorithm::ECDSAP256SHA256).unwrap();
            let key = EcdsaSigningKey::from_pkcs8(&pkcs8, Algorithm::ECDSAP256SHA256).unwrap();
            let public = key.to_public_key().unwrap();
            ZoneKey {
                pkcs8,
                dnskey: DNSKEY::with_flags(257, public),
            }
        });
        let ds = key
            .as_ref()
            .map(|key| DS::from_key(key.dnskey.public_key(), &origin, DigestType::SHA256).unwrap());
        let dnskey = key.as_ref().map(|key| key.dnskey.clone());
        self.zones.push(Zone {
            apex: origin.clone(),
            key,
        });
        let index = self.zones.len() - 1;
        let soa = SOA::new(
            name(&format!("ns.{apex}")),
            name(&format!("hostmaster.{apex}")),
            1,
            3600,
            600,
            86400,
            300,
        );
        self.records.push((
            index,
            Record::from_rdata(origin.clone(), 3600, RData::SOA(soa)),
        ));
        let ns = RData::NS(NS(name(&format!("ns.{apex}"))));
        self.records
            .push((index, Record::from_rdata(origin.clone(), 3600, ns.clone())));
        if let Some(dnskey) = dnskey {
            self.records.push((
                index,
                Record::from_rdata(
                    origin.clone(),
                    3600,
                    RData::DNSSEC(DNSSECRData::DNSKEY(dnskey)),
                ),
            ));
        }
        if !origin.is_root() {
            let parent = self.zone_of(&origin.base_name());
            // the delegation, and its DS when the child is signed
            self.records
                .push((parent, Record::from_rdata(origin.clone(), 3600, ns)));
            if let Some(ds) = ds {
                self.records.push((
                    parent,
                    Record::from_rdata(origin, 3600, RData::DNSSEC(DNSSECRData::DS(ds))),
                ));
            }
        }
        self
    }

    fn add(&mut self, owner: &str, data: RData) -> &mut Self {
        let owner = name(owner);
        let zone = self.zone_of(&owner);
        self.records
            .push((zone, Record::from_rdata(owner, 300, data)));
        self
    }

    fn a(&mut self, owner: &str, address: &str) -> &mut Self {
        self.add(owner, RData::A(address.parse::<A>().unwrap()))
    }

    fn cname(&mut self, owner: &str, target: &str) -> &mut Self {
        self.add(owner, RData::CNAME(CNAME(name(target))))
    }

    /// The zone `owner` belongs to: the closest apex at or above it.
    fn zone_of(&self, owner: &Name) -> usize {
        self.zones
            .iter()
            .enumerate()
            .filter(|(_, zone)| zone.apex.zone_of(owner))
            .max_by_key(|(_, zone)| zone.apex.num_labels())
            .map(|(index, _)| index)
            .unwrap()
    }

    /// The zone that answers `record_type` at `owner`: a DS at a zone's apex is its parent's.
    fn answering_zone(&self, owner: &Name, record_type: RecordType) -> usize {
        let zone = self.zone_of(owner);
        if record_type == RecordType::DS && self.zones[zone].apex == *owner && !owner.is_root() {
            self.zone_of(&owner.base_name())
        } else {
            zone
        }
    }

    fn at(&self, zone: usize, owner: &Name) -> Vec<&Record> {
        self.records
            .iter()
            .filter(|(of, record)| *of == zone && record.name == *owner)
            .map(|(_, record)| record)
            .collect()
    }

    /// (rcode, answers, authority), each record with its zone.
    fn resolve(
        &self,
        query: &Name,
        record_type: RecordType,
    ) -> (ResponseCode, Vec<Tagged>, Vec<Tagged>) {
        let mut zone = self.answering_zone(query, record_type);
        let mut answers = Vec::new();
        let mut current = query.clone();
        for _ in 0..8 {
            let at = self.at(zone, &current);
            let wanted: Vec<Tagged> = at
                .iter()
                .filter(|record| record.record_type() == record_type)
                .map(|record| (zone, (*record).clone()))
                .collect();
            if !wanted.is_empty() {
                answers.extend(wanted);
                return (ResponseCode::NoError, answers, Vec::new());
            }
            if let Some(cname) = at
                .iter()
                .find(|record| record.record_type() == RecordType::CNAME)
                .filter(|_| record_type != RecordType::CNAME)
            {
                answers.push((zone, (*cname).clone()));
                let RData::CNAME(target) = &cname.data else {
                    unreachable!()
                };
                current = target.0.clone();
                zone = self.zone_of(&current);
                continue;
            }
            let exists = self
                .records
                .iter()
                .any(|(of, record)| *of == zone && current.zone_of(&record.name));
            let soa = self
                .at(zone, &self.zones[zone].apex)
                .into_iter()
                .find(|record| record.record_type() == RecordType::SOA)
                .cloned();
            let mut authority: Vec<Tagged> = soa.into_iter().map(|soa| (zone, soa)).collect();
            if record_type == RecordType::DS && exists && self.zones[zone].key.is_some() {
                authority.push((zone, self.denial_at(zone, &current)));
            }
            let code = if exists || !answers.is_empty() {
                ResponseCode::NoError
            } else {
                ResponseCode::NXDomain
            };
            return (code, answers, authority);
        }
        (ResponseCode::NoError, answers, Vec::new())
    }

    /// The proof of the types at `owner` in `zone`: an NSEC record at the name, or the NSEC3
    /// record of its hash (SHA-1, no salt, no extra iterations).
    fn denial_at(&self, zone: usize, owner: &Name) -> Record {
        let mut types: Vec<RecordType> = self
            .at(zone, owner)
            .iter()
            .map(|record| record.record_type())
            .collect();
        types.dedup();
        let apex = self.zones[zone].apex.clone();
        match self.denial {
            Denial::Nsec => Record::from_rdata(
                owner.clone(),
                300,
                RData::DNSSEC(DNSSECRData::NSEC(NSEC::new_cover_self(apex, types))),
            ),
            Denial::Nsec3 => {
                let hash = Nsec3HashAlgorithm::SHA1.hash(&[], owner, 0).unwrap();
                let hash = hash.as_ref().to_vec();
                let mut next = hash.clone();
                let last = next.len() - 1;
                next[last] = next[last].wrapping_add(1);
                let label = base32hex(&hash);
                Record::from_rdata(
                    Name::from_ascii(format!("{label}.{}", apex.to_ascii())).unwrap(),
                    300,
                    RData::DNSSEC(DNSSECRData::NSEC3(NSEC3::new(
                        Nsec3HashAlgorithm::SHA1,
                        false,
                        0,
                        Vec::new(),
                        next,
                        types,
                    ))),
                )
            }
        }
    }

    /// An RRSIG for each RRset of `records` whose zone is signed.
    fn sign(&self, records: &[Tagged]) -> Vec<Record> {
        let mut sets: Vec<(usize, Name, RecordType, Vec<Record>)> = Vec::new();
        for (zone, record) in records {
            match sets.iter_mut().find(|(of, owner, kind, _)| {
                of == zone && *owner == record.name && *kind == record.record_type()
            }) {
                Some((_, _, _, set)) => set.push(record.clone()),
                None => sets.push((
                    *zone,
                    record.name.clone(),
                    record.record_type(),
                    vec![record.clone()],
                )),
            }
        }
        let now = Utc::now();
        sets.into_iter()
            .filter_map(|(zone, owner, record_type, set)| {
                let signing = &self.zones[zone];
                let key = signing.key.as_ref()?;
                let (inception, expiration) = if self.expired.contains(&owner) {
                    (now - TimeDelta::days(30), now - TimeDelta::days(1))
                } else {
                    (now - TimeDelta::days(1), now + TimeDelta::days(30))
                };
                let input = SigInput {
                    type_covered: record_type,
                    algorithm: Algorithm::ECDSAP256SHA256,
                    num_labels: owner.num_labels(),
                    original_ttl: set[0].ttl,
                    sig_expiration: SerialNumber::new(expiration.timestamp() as u32),
                    sig_inception: SerialNumber::new(inception.timestamp() as u32),
                    key_tag: key.dnskey.calculate_key_tag().unwrap(),
                    signer_name: signing.apex.clone(),
                };
                let tbs = TBS::from_input(&owner, DNSClass::IN, &input, set.iter()).unwrap();
                let signer =
                    EcdsaSigningKey::from_pkcs8(&key.pkcs8, Algorithm::ECDSAP256SHA256).unwrap();
                let signature = signer.sign(&tbs).unwrap();
                Some(Record::from_rdata(
                    owner,
                    set[0].ttl,
                    RData::DNSSEC(DNSSECRData::RRSIG(RRSIG::from_sig(input, signature))),
                ))
            })
            .collect()
    }

    /// The root's key as a trust anchor file.
    fn anchor(&self) -> String {
        let key = self.zones[self.index(&Name::root())]
            .key
            .as_ref()
            .unwrap()
            .dnskey
            .clone();
        format!(
            ". 3600 IN DNSKEY 257 3 13 {}\n",
            base64::engine::general_purpose::STANDARD.encode(key.public_key().public_bytes())
        )
    }
}

/// RFC 4648's base32 with the extended hex alphabet, lowercase, unpadded: an NSEC3 owner.
fn base32hex(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0u32);
    for byte in bytes {
        buffer = (buffer << 8) | u32::from(*byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// The hierarchy: a signed root, `com` and `net`; `good.com` signed, `broken.com` signed but
/// with an expired signature over `www.broken.com A`, `shop.net` not signed.
fn hierarchy(denial: Denial) -> World {
    let mut world = World::new(denial);
    world
        .zone(".", true)
        .zone("com", true)
        .zone("net", true)
        .zone("good.com", true)
        .zone("broken.com", true)
        .zone("shop.net", false);
    world
        .cname("www.good.com", "www.shop.net")
        .a("www.shop.net", "192.0.2.7")
        .a("api.good.com", "192.0.2.8")
        .cname("old.good.com", "www.broken.com")
        .a("www.broken.com", "192.0.2.9")
        .cname("cdn.shop.net", "api.good.com");
    world.expired.push(name("www.broken.com"));
    world
}

fn unsent(metadata: Metadata) -> ResponseInfo {
    Header {
        metadata,
        counts: HeaderCounts::default(),
    }
    .into()
}

#[derive(Clone)]
struct Handler {
    world: Arc<World>,
}

#[async_trait::async_trait]
impl RequestHandler for Handler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let mut reply = Metadata::response_from_request(&request.metadata);
        let Ok(info) = request.request_info() else {
            reply.response_code = ResponseCode::FormErr;
            return unsent(reply);
        };
        if request.metadata.message_type != MessageType::Query
            || request.metadata.op_code != OpCode::Query
        {
            reply.response_code = ResponseCode::NotImp;
            return unsent(reply);
        }
        let query: Name = info.query.name().into();
        let dnssec_ok = request
            .edns
            .as_ref()
            .is_some_and(|edns| edns.flags().dnssec_ok);
        let (code, answers, authority) = self.world.resolve(&query, info.query.query_type());
        let (mut answer_records, mut authority_records): (Vec<Record>, Vec<Record>) = (
            answers.iter().map(|(_, record)| record.clone()).collect(),
            authority.iter().map(|(_, record)| record.clone()).collect(),
        );
        if dnssec_ok {
            answer_records.extend(self.world.sign(&answers));
            authority_records.extend(self.world.sign(&authority));
        }
        let mut builder = MessageResponseBuilder::from_message_request(request);
        let edns = request.edns.as_ref().map(|asked| {
            let mut edns = Edns::new();
            edns.set_max_payload(asked.max_payload().clamp(512, 4096));
            edns.flags_mut().dnssec_ok = dnssec_ok;
            edns
        });
        if let Some(edns) = &edns {
            builder.edns(edns);
        }
        reply.response_code = code;
        reply.authoritative = true;
        match response_handle
            .send_response(builder.build(
                reply,
                answer_records.iter(),
                std::iter::empty(),
                authority_records.iter(),
                std::iter::empty(),
            ))
            .await
        {
            Ok(info) => info,
            Err(_) => unsent(reply),
        }
    }
}

/// The signing server on loopback; stops when dropped.
struct SigningServer {
    address: SocketAddr,
    anchor: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl SigningServer {
    async fn start(world: World) -> Self {
        let anchor = world.anchor();
        let (udp, tcp, address) = udp_and_tcp_on("127.0.0.1").await;
        let mut server = Server::new(Handler {
            world: Arc::new(world),
        });
        server.register_socket(udp);
        server.register_listener(tcp, Duration::from_secs(5), 64);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let token = server.shutdown_token().clone();
        tokio::spawn(async move {
            let _ = stopped.await;
            token.cancel();
        });
        tokio::spawn(async move {
            let _ = server.block_until_done().await;
        });
        Self {
            address,
            anchor,
            _stop: stop,
        }
    }

    fn options(&self) -> DoctorOptions {
        let mut options = DoctorOptions::new(TARGET)
            .with_resolvers([self.address])
            .with_timeout(Duration::from_secs(3))
            .with_tls_probe(false);
        options.dnssec = true;
        options.trust_anchor = Some(self.anchor.clone());
        options
    }
}

const NAMES: [&str; 4] = [
    "www.good.com",
    "api.good.com",
    "old.good.com",
    "cdn.shop.net",
];

/// The DNSSEC findings of `hostname`.
fn dnssec_codes(report: &domain_desk_doctor::Report, hostname: &str) -> Vec<FindingCode> {
    host(report, hostname)
        .findings
        .iter()
        .map(|finding| finding.code)
        .filter(|code| {
            matches!(
                code,
                FindingCode::DnssecValid | FindingCode::DnssecUnsignedOk | FindingCode::DnssecBogus
            )
        })
        .collect()
}

async fn each_link_judged_in_its_zone(denial: Denial) {
    let server = SigningServer::start(hierarchy(denial)).await;
    let options = server.options();
    let (report, capture) = diagnose_capturing(&NAMES, &options).await.unwrap();
    let context = format!("{denial:?}\n{}", report.to_text());

    // signed in its own zone, its CNAME into an unsigned one: valid, with the note
    assert_eq!(
        dnssec_codes(&report, "www.good.com"),
        [FindingCode::DnssecValid],
        "{context}"
    );
    let valid = finding(host(&report, "www.good.com"), FindingCode::DnssecValid);
    assert_eq!(valid.severity, Severity::Ok, "{context}");
    assert_eq!(
        valid.title, "DNSSEC validates for www.good.com; its target www.shop.net is not signed",
        "{context}"
    );
    assert!(
        valid.detail.starts_with(&format!(
            "good.com is signed and its records validate: every signature from the trust \
             anchor down to www.good.com checks out (asked {} with checking disabled). Its \
             CNAME leads to www.shop.net, in shop.net, a zone that is not signed: its parent \
             proves there is no DS record for it, so validating resolvers and the CA accept \
             its answer unsigned.",
            host(&report, "www.good.com").views[0].source.label
        )),
        "{context}"
    );

    // signed all the way
    let api = finding(host(&report, "api.good.com"), FindingCode::DnssecValid);
    assert_eq!(api.title, "DNSSEC validates for api.good.com", "{context}");

    // a link further down the chain that breaks: bogus, naming that link
    assert_eq!(
        dnssec_codes(&report, "old.good.com"),
        [FindingCode::DnssecBogus],
        "{context}"
    );
    let bogus = finding(host(&report, "old.good.com"), FindingCode::DnssecBogus);
    assert!(
        bogus.title.contains("www.broken.com A") && bogus.title.ends_with("has expired"),
        "{context}"
    );
    assert!(
        bogus.detail.contains("made by broken.com with key"),
        "{context}"
    );

    // the name's own zone is unsigned: unsigned, though its target is signed
    assert_eq!(
        dnssec_codes(&report, "cdn.shop.net"),
        [FindingCode::DnssecUnsignedOk],
        "{context}"
    );

    // the verdicts are kept for a replay, which gives the same report
    assert_eq!(capture.dnssec.len(), NAMES.len(), "{context}");
    assert_eq!(replay(&capture).await.unwrap(), report, "{context}");
}

#[tokio::test]
async fn a_signed_name_into_an_unsigned_zone_proven_by_nsec_is_valid_for_itself() {
    each_link_judged_in_its_zone(Denial::Nsec).await;
}

/// `net`'s NSEC3 proof of the missing DS is hickory's to check: only that link is asked of
/// it, so the name's own link still decides. Asked several times: hickory gives an answer's
/// RRsets back in no set order, and the verdict must not depend on it.
#[tokio::test]
async fn a_signed_name_into_an_unsigned_zone_proven_by_nsec3_is_valid_for_itself() {
    each_link_judged_in_its_zone(Denial::Nsec3).await;
    let server = SigningServer::start(hierarchy(Denial::Nsec3)).await;
    for _ in 0..4 {
        let report = diagnose(&["www.good.com"], &server.options())
            .await
            .unwrap();
        assert_eq!(
            dnssec_codes(&report, "www.good.com"),
            [FindingCode::DnssecValid],
            "{}",
            report.to_text()
        );
    }
}

//! A small authoritative DNS server for the tests: hickory-server's UDP and TCP plumbing on
//! 127.0.0.1:0 around a handler that answers from zones built in code. Each test builds the
//! zones that hold the mistake it is about, and can make names answer SERVFAIL, fail only
//! without the CD flag (a DNSSEC failure), or never answer.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use domain_desk_doctor::DoctorOptions;
use hickory_net::runtime::Time;
use hickory_proto::op::{Edns, Header, HeaderCounts, MessageType, Metadata, OpCode, ResponseCode};
use hickory_proto::rr::rdata::{A, AAAA, CNAME, NS, SOA, TXT};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use hickory_proto::serialize::binary::{BinDecodable, BinDecoder};
use hickory_server::Server;
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponseBuilder;
use tokio::net::{TcpListener, UdpSocket};

pub const TARGET: &str = "edge.platform.example.com";
pub const TARGET_V4: &str = "192.0.2.1";
pub const TARGET_V6: &str = "2001:db8::1";
pub const CA: &str = "letsencrypt.org";

pub fn name(text: &str) -> Name {
    let mut name = Name::from_ascii(text).unwrap();
    name.set_fqdn(true);
    name
}

/// Zones built in code.
#[derive(Default, Clone)]
pub struct Zones {
    zones: Vec<Name>,
    records: Vec<Record>,
    servfail: HashSet<Name>,
    dnssec_bogus: HashSet<Name>,
    silent: HashSet<Name>,
    reject_edns: bool,
}

impl Zones {
    /// Zones with the platform zone holding the target's addresses.
    pub fn with_platform() -> Self {
        let mut zones = Self::default();
        zones
            .zone("platform.example.com")
            .a(TARGET, TARGET_V4)
            .aaaa(TARGET, TARGET_V6);
        zones
    }

    /// Adds a zone with its SOA and NS.
    pub fn zone(&mut self, apex: &str) -> &mut Self {
        let origin = name(apex);
        self.zones.push(origin.clone());
        let soa = SOA::new(
            name(&format!("ns1.{apex}")),
            name(&format!("hostmaster.{apex}")),
            1,
            3600,
            600,
            86400,
            300,
        );
        self.records
            .push(Record::from_rdata(origin.clone(), 3600, RData::SOA(soa)));
        self.records.push(Record::from_rdata(
            origin,
            3600,
            RData::NS(NS(name(&format!("ns1.{apex}")))),
        ));
        self
    }

    /// Replaces the NS records of the zone `apex` (as a provider's zone lists its own
    /// nameservers).
    pub fn nameservers(&mut self, apex: &str, nameservers: &[&str]) -> &mut Self {
        let origin = name(apex);
        self.records
            .retain(|record| !(record.record_type() == RecordType::NS && record.name == origin));
        for nameserver in nameservers {
            self.records.push(Record::from_rdata(
                origin.clone(),
                3600,
                RData::NS(NS(name(nameserver))),
            ));
        }
        self
    }

    pub fn a(&mut self, owner: &str, address: &str) -> &mut Self {
        self.add(owner, 300, RData::A(A::from_str(address).unwrap()))
    }

    pub fn aaaa(&mut self, owner: &str, address: &str) -> &mut Self {
        self.add(owner, 300, RData::AAAA(AAAA::from_str(address).unwrap()))
    }

    pub fn cname(&mut self, owner: &str, target: &str) -> &mut Self {
        self.add(owner, 300, RData::CNAME(CNAME(name(target))))
    }

    /// A CNAME whose target has labels of raw bytes, which no zone file could hold unescaped
    /// (control characters, `|`, backticks): what a hostile zone can serve.
    pub fn cname_raw(&mut self, owner: &str, labels: &[&[u8]]) -> &mut Self {
        let mut target = Name::from_labels(labels.iter().copied()).unwrap();
        target.set_fqdn(true);
        self.add(owner, 300, RData::CNAME(CNAME(target)))
    }

    pub fn txt(&mut self, owner: &str, text: &str) -> &mut Self {
        self.add(owner, 300, RData::TXT(TXT::new(vec![text.to_owned()])))
    }

    pub fn add(&mut self, owner: &str, ttl: u32, data: RData) -> &mut Self {
        self.records
            .push(Record::from_rdata(name(owner), ttl, data));
        self
    }

    /// A CAA record from its presentation form, encoded byte for byte so that unknown tags
    /// and flags are served as written.
    pub fn caa(&mut self, owner: &str, flags: u8, tag: &str, value: &str) -> &mut Self {
        let mut rdata = vec![flags, u8::try_from(tag.len()).unwrap()];
        rdata.extend_from_slice(tag.as_bytes());
        rdata.extend_from_slice(value.as_bytes());
        let mut wire = vec![0u8]; // root owner
        wire.extend_from_slice(&257u16.to_be_bytes());
        wire.extend_from_slice(&1u16.to_be_bytes());
        wire.extend_from_slice(&300u32.to_be_bytes());
        wire.extend_from_slice(&u16::try_from(rdata.len()).unwrap().to_be_bytes());
        wire.extend_from_slice(&rdata);
        let mut record = Record::read(&mut BinDecoder::new(&wire)).unwrap();
        record.name = name(owner);
        self.records.push(record);
        self
    }

    pub fn servfail(&mut self, owner: &str) -> &mut Self {
        self.servfail.insert(name(owner));
        self
    }

    pub fn dnssec_bogus(&mut self, owner: &str) -> &mut Self {
        self.dnssec_bogus.insert(name(owner));
        self
    }

    /// Answer FORMERR to any question with EDNS, as servers from before RFC 6891 do.
    pub fn reject_edns(&mut self) -> &mut Self {
        self.reject_edns = true;
        self
    }

    pub fn silent(&mut self, owner: &str) -> &mut Self {
        self.silent.insert(name(owner));
        self
    }

    fn zone_of(&self, query: &Name) -> Option<&Name> {
        self.zones
            .iter()
            .filter(|zone| zone.zone_of(query))
            .max_by_key(|zone| zone.num_labels())
    }

    fn soa_of(&self, zone: &Name) -> Option<Record> {
        self.records
            .iter()
            .find(|record| record.record_type() == RecordType::SOA && record.name == *zone)
            .cloned()
    }

    /// (rcode, answers, authority) for a question.
    fn resolve(
        &self,
        query: &Name,
        record_type: RecordType,
    ) -> (ResponseCode, Vec<Record>, Vec<Record>) {
        let Some(zone) = self.zone_of(query).cloned() else {
            return (ResponseCode::Refused, Vec::new(), Vec::new());
        };
        let mut answers = Vec::new();
        let mut current = query.clone();
        for _ in 0..8 {
            let mut at: Vec<Record> = self
                .records
                .iter()
                .filter(|record| record.name == current)
                .cloned()
                .collect();
            // A name that does not exist is answered by a wildcard at its parent, under the
            // name asked (RFC 4592).
            let exists = self
                .records
                .iter()
                .any(|record| current.zone_of(&record.name));
            if !exists && current.num_labels() > 1 {
                let wildcard = current
                    .base_name()
                    .prepend_label("*")
                    .expect("a wildcard name");
                at = self
                    .records
                    .iter()
                    .filter(|record| record.name == wildcard)
                    .map(|record| {
                        let mut synthesised = record.clone();
                        synthesised.name = current.clone();
                        synthesised
                    })
                    .collect();
            }
            let at: Vec<&Record> = at.iter().collect();
            let cname = at
                .iter()
                .find(|record| record.record_type() == RecordType::CNAME);
            let wanted: Vec<Record> = at
                .iter()
                .filter(|record| record.record_type() == record_type)
                .map(|record| (*record).clone())
                .collect();
            if !wanted.is_empty() {
                answers.extend(wanted);
                return (ResponseCode::NoError, answers, Vec::new());
            }
            match cname {
                Some(cname) if record_type != RecordType::CNAME => {
                    answers.push((*cname).clone());
                    let RData::CNAME(target) = &cname.data else {
                        unreachable!()
                    };
                    current = target.0.clone();
                    if self.zone_of(&current).is_none() {
                        return (ResponseCode::NoError, answers, Vec::new());
                    }
                }
                _ => {
                    let exists = exists || !at.is_empty();
                    let current_zone = self.zone_of(&current).cloned().unwrap_or(zone.clone());
                    let soa: Vec<Record> = self.soa_of(&current_zone).into_iter().collect();
                    let code = if exists || !answers.is_empty() {
                        ResponseCode::NoError
                    } else {
                        ResponseCode::NXDomain
                    };
                    return (code, answers, soa);
                }
            }
        }
        (ResponseCode::NoError, answers, Vec::new())
    }
}

/// What the server did when no answer went out: the header it would have sent.
fn unsent(metadata: Metadata) -> ResponseInfo {
    Header {
        metadata,
        counts: HeaderCounts::default(),
    }
    .into()
}

#[derive(Clone)]
struct Handler {
    zones: Arc<Zones>,
}

#[async_trait::async_trait]
impl RequestHandler for Handler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let header = &request.metadata;
        let mut reply = Metadata::response_from_request(header);
        let Ok(info) = request.request_info() else {
            reply.response_code = ResponseCode::FormErr;
            return unsent(reply);
        };
        if header.message_type != MessageType::Query || header.op_code != OpCode::Query {
            reply.response_code = ResponseCode::NotImp;
            return unsent(reply);
        }
        let query_name: Name = info.query.name().into();
        let query_type = info.query.query_type();
        if self.zones.silent.contains(&query_name) {
            return unsent(reply);
        }
        let mut builder = MessageResponseBuilder::from_message_request(request);
        if self.zones.reject_edns && request.edns.is_some() {
            reply.response_code = ResponseCode::FormErr;
            return match response_handle
                .send_response(builder.build_no_records(reply))
                .await
            {
                Ok(info) => info,
                Err(_) => unsent(reply),
            };
        }
        let edns = request.edns.as_ref().map(|asked| {
            let mut edns = Edns::new();
            edns.set_max_payload(asked.max_payload().clamp(512, 1232));
            edns
        });
        if let Some(edns) = &edns {
            builder.edns(edns);
        }
        let failing = self.zones.servfail.contains(&query_name)
            || (self.zones.dnssec_bogus.contains(&query_name) && !header.checking_disabled);
        let sent = if failing {
            reply.response_code = ResponseCode::ServFail;
            response_handle
                .send_response(builder.build_no_records(reply))
                .await
        } else {
            let (code, answers, authority) = self.zones.resolve(&query_name, query_type);
            reply.response_code = code;
            reply.authoritative = code != ResponseCode::Refused;
            response_handle
                .send_response(builder.build(
                    reply,
                    answers.iter(),
                    std::iter::empty(),
                    authority.iter(),
                    std::iter::empty(),
                ))
                .await
        };
        match sent {
            Ok(info) => info,
            Err(_) => unsent(reply),
        }
    }
}

/// A running test server; stops when dropped.
pub struct ZoneServer {
    pub address: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl ZoneServer {
    pub async fn start(zones: &Zones) -> Self {
        Self::start_on(zones, "127.0.0.1").await
    }

    /// Starts on another loopback address (`127.0.0.2`), so that a test can give a zone's
    /// nameserver an address of its own.
    pub async fn start_on(zones: &Zones, ip: &str) -> Self {
        let (udp, tcp, address) = udp_and_tcp_on(ip).await;
        let mut server = Server::new(Handler {
            zones: Arc::new(zones.clone()),
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
            _stop: stop,
        }
    }
}

/// A UDP socket and a TCP listener on one port of `ip`, as a DNS server listens. UDP picks a
/// free port; TCP must get the same one, which another process may hold: then another port.
pub async fn udp_and_tcp_on(ip: &str) -> (UdpSocket, TcpListener, SocketAddr) {
    let mut attempt = 0;
    loop {
        let udp = UdpSocket::bind(format!("{ip}:0")).await.unwrap();
        let address = udp.local_addr().unwrap();
        match TcpListener::bind(address).await {
            Ok(tcp) => return (udp, tcp, address),
            Err(_) if attempt < 50 => attempt += 1,
            Err(error) => panic!("no port free for UDP and TCP: {error}"),
        }
    }
}

/// A test server's tasks, ended when the server is dropped.
pub struct ServerTasks(pub Vec<tokio::task::JoinHandle<()>>);

impl Drop for ServerTasks {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Offline options asking only `servers`, for the test target and CA, without the TLS probe.
pub fn options(servers: &[SocketAddr]) -> DoctorOptions {
    DoctorOptions::new(TARGET)
        .with_resolvers(servers.iter().copied())
        .with_ca_identity(CA)
        .with_timeout(Duration::from_secs(3))
        .with_tls_probe(false)
}

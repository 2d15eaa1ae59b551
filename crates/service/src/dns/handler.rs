//! The authoritative DNS server's request handler: it answers every question from the zone
//! store at the moment it arrives, in one [`ZoneView`], signed when the zones are. hickory-server
//! calls it for TCP ([`super::server`]); the UDP loops ([`super::fast`]) call it once per question
//! they have not answered before.
//!
//! A zone change is therefore visible to the next query; there is no zone file to reload. The
//! same handler type serves the live view on the public port and, on a second listener, the
//! platform resolver's delayed view that the verifier and the CA query. Only the delayed view
//! may keep negative answers ([`NegativeCache`]), as a resolver does; its questions never take
//! the UDP loops' answer cache, so the live view's fast paths do not look at it.

use std::sync::Arc;

use chrono::TimeDelta;
use hickory_net::runtime::Time;
use hickory_net::xfer::Protocol;
use hickory_proto::op::{
    Edns, Header, HeaderCounts, Message, MessageType, Metadata, OpCode, ResponseCode,
};
use hickory_proto::rr::{DNSClass, Record, RecordType};
use hickory_server::server::{Request, RequestHandler, ResponseHandler, ResponseInfo};
use hickory_server::zone_handler::MessageResponseBuilder;

use super::answer::Resolution;
use super::negative_cache::NegativeCache;
use super::signing::ZoneSigning;
use super::zone::ZoneStore;
use crate::clock::Clock;
use crate::{Error, Result};

/// The EDNS payload size we offer when the client offers more (the DNS flag day 2020 value).
const MAX_EDNS_PAYLOAD: u16 = 1232;

/// The largest UDP answer for a client that did not offer EDNS (RFC 1035 §4.2.1).
const CLASSIC_UDP_LIMIT: usize = 512;

/// An upper bound of a record's wire size without encoding it: its owner name uncompressed,
/// type, class, TTL and length, and the data — `None` for data whose size is not known
/// without encoding.
fn record_size_bound(record: &Record) -> Option<usize> {
    use hickory_proto::rr::RData;
    let name = record.name.len() + 1;
    let data = match &record.data {
        RData::A(_) => 4,
        RData::AAAA(_) => 16,
        RData::CNAME(target) => target.0.len() + 1,
        RData::NS(target) => target.0.len() + 1,
        RData::SOA(soa) => soa.mname.len() + soa.rname.len() + 2 + 20,
        _ => return None,
    };
    Some(name + 10 + data)
}

/// True when an answer may not fit `limit` bytes; exact (by encoding) only when the cheap
/// upper bound says it might not.
fn may_exceed(metadata: Metadata, answers: &[Record], authority: &[Record], limit: usize) -> bool {
    // header (12) and a generous question section (a full-length name, type and class)
    let mut bound = Some(12 + 255 + 4);
    for record in answers.iter().chain(authority) {
        bound = bound
            .zip(record_size_bound(record))
            .map(|(sum, size)| sum + size);
    }
    match bound {
        Some(bound) if bound <= limit => false,
        _ => encoded_len(metadata, answers, authority) > limit,
    }
}

/// The size of an answer in wire form (no name compression assumed away: an upper bound).
fn encoded_len(metadata: Metadata, answers: &[Record], authority: &[Record]) -> usize {
    let mut message = Message::new(metadata.id, metadata.message_type, metadata.op_code);
    message.metadata = metadata;
    message.answers = answers.to_vec();
    message.authorities = authority.to_vec();
    message.to_vec().map_or(usize::MAX, |bytes| bytes.len())
}

/// Which instant of the zones' history a listener answers from.
#[derive(Clone)]
pub enum ZoneView {
    /// The zones as they are now (the public port: what `dig` sees).
    Live,
    /// The zones as they were `delay()` ago on `clock`: the platform's resolvers, which see
    /// changes only after the propagation delay.
    Delayed {
        clock: Clock,
        delay: Arc<dyn Fn() -> TimeDelta + Send + Sync>,
        /// With one, a negative answer is given again until its zone's negative TTL has
        /// passed on `clock`, even once the record exists (RFC 2308).
        negative_cache: Option<Arc<NegativeCache>>,
    },
}

/// Answers DNS questions from a [`ZoneStore`] in one [`ZoneView`].
#[derive(Clone)]
pub struct ZoneHandler {
    store: ZoneStore,
    view: ZoneView,
    /// With `serve --sign-zones`: DNSKEY at each zone's apex, RRSIGs for a question with DO.
    signing: Option<Arc<ZoneSigning>>,
}

impl ZoneHandler {
    pub fn new(store: ZoneStore, view: ZoneView) -> Self {
        Self {
            store,
            view,
            signing: None,
        }
    }

    /// Signs the zones' answers with `signing`.
    pub fn with_signing(mut self, signing: Option<Arc<ZoneSigning>>) -> Self {
        self.signing = signing;
        self
    }

    /// The answer to `name`/`qtype` in this handler's view: the zones as they are (live), or
    /// as they were `delay` ago, through the negative cache when the view has one.
    fn resolve(&self, name: &str, qtype: RecordType) -> Result<Resolution> {
        let ZoneView::Delayed {
            clock,
            delay,
            negative_cache,
        } = &self.view
        else {
            return self.store.resolve(name, qtype, None);
        };
        let now = clock.now();
        let as_of = now - delay();
        let Some(cache) = negative_cache else {
            return self.store.resolve(name, qtype, Some(as_of));
        };
        if let Some(cached) = cache.answer(name, qtype, now) {
            return Ok(cached);
        }
        let resolution = self.store.resolve(name, qtype, Some(as_of))?;
        cache.remember(name, qtype, &resolution, now);
        Ok(resolution)
    }

    /// Whether its answers depend on the question and the zones alone (the live view,
    /// unsigned), so that [`super::fast`]'s answer cache may remember them.
    pub(super) fn answers_by_question_alone(&self) -> bool {
        matches!(self.view, ZoneView::Live) && self.signing.is_none()
    }

    /// The zones' [`ZoneStore::generation`]: it changes with every edit.
    pub(super) fn generation(&self) -> u64 {
        self.store.generation()
    }

    /// The DNSKEY RRset of `zone`'s apex.
    fn dnskey_answer(store: &ZoneStore, signing: &ZoneSigning, zone: &str) -> Result<Resolution> {
        let soa = match store.resolve(zone, RecordType::SOA, None)? {
            Resolution::Answer { soa, .. } => soa,
            Resolution::Refused => return Err(Error::Dns(format!("no SOA for {zone}"))),
        };
        Ok(Resolution::Answer {
            answers: vec![signing.dnskey_record(zone)?],
            nxdomain: false,
            soa,
        })
    }

    /// Every zone served: the platform's and the customers'.
    fn zones(&self) -> Vec<String> {
        let mut zones = self.store.zone_names();
        zones.push(self.store.platform().domain);
        zones
    }

    /// The zone `name` belongs to, among `zones`: the longest that is the name or a parent.
    fn zone_of(zones: &[String], name: &str) -> Option<String> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        zones
            .iter()
            .filter(|zone| {
                name == **zone
                    || name
                        .strip_suffix(zone.as_str())
                        .is_some_and(|head| head.ends_with('.'))
            })
            .max_by_key(|zone| zone.len())
            .cloned()
    }
}

#[async_trait::async_trait]
impl RequestHandler for ZoneHandler {
    async fn handle_request<R: ResponseHandler, T: Time>(
        &self,
        request: &Request,
        mut response_handle: R,
    ) -> ResponseInfo {
        let edns = request.edns.as_ref().map(|asked| {
            let mut edns = Edns::new();
            edns.set_version(0);
            edns.set_max_payload(asked.max_payload().clamp(512, MAX_EDNS_PAYLOAD));
            edns
        });
        let mut builder = MessageResponseBuilder::from_message_request(request);
        if let Some(edns) = &edns {
            builder.edns(edns);
        }
        let request_metadata = &request.metadata;
        let refuse = |code: ResponseCode| {
            let mut metadata = Metadata::response_from_request(request_metadata);
            metadata.response_code = code;
            metadata
        };

        let outcome = if request_metadata.message_type != MessageType::Query
            || request_metadata.op_code != OpCode::Query
        {
            Err(refuse(ResponseCode::NotImp))
        } else {
            match request.request_info() {
                Err(_) => Err(refuse(ResponseCode::FormErr)),
                Ok(info) if info.query.query_class() != DNSClass::IN => {
                    Err(refuse(ResponseCode::Refused))
                }
                Ok(info) => {
                    // Its A-labels: hickory displays a name in Unicode, and the zones hold names as
                    // A-labels (`xn--bcher-kva`), which a Unicode name never finds.
                    let name = info.query.name().to_ascii();
                    let zones = self.signing.as_ref().map(|_| self.zones());
                    let apex = zones
                        .as_ref()
                        .and_then(|zones| Self::zone_of(zones, &name))
                        .filter(|zone| *zone == name.trim_end_matches('.').to_ascii_lowercase());
                    let resolution = match (&self.signing, apex) {
                        (Some(signing), Some(zone))
                            if info.query.query_type() == RecordType::DNSKEY =>
                        {
                            Self::dnskey_answer(&self.store, signing, &zone)
                        }
                        _ => self.resolve(&name, info.query.query_type()),
                    };
                    // With DO, each RRset of the answer comes with its RRSIG (a negative
                    // answer has no NSEC proof: it stays unproven).
                    let resolution = match (resolution, &self.signing, &zones) {
                        (
                            Ok(Resolution::Answer {
                                mut answers,
                                nxdomain,
                                soa,
                            }),
                            Some(signing),
                            Some(zones),
                        ) if request
                            .edns
                            .as_ref()
                            .is_some_and(|edns| edns.flags().dnssec_ok) =>
                        {
                            let signatures = signing
                                .sign(&answers, |owner| Self::zone_of(zones, &owner.to_ascii()));
                            answers.extend(signatures);
                            Ok(Resolution::Answer {
                                answers,
                                nxdomain,
                                soa,
                            })
                        }
                        (other, _, _) => other,
                    };
                    match resolution {
                        Ok(Resolution::Refused) => Err(refuse(ResponseCode::Refused)),
                        Ok(Resolution::Answer {
                            answers,
                            nxdomain,
                            soa,
                        }) => Ok((answers, nxdomain, soa)),
                        Err(error) => {
                            tracing::error!(%error, name, "DNS answer failed");
                            Err(refuse(ResponseCode::ServFail))
                        }
                    }
                }
            }
        };

        let sent = match outcome {
            Err(metadata) => {
                let response = builder.build_no_records(metadata);
                response_handle.send_response(response).await
            }
            Ok((answers, nxdomain, soa)) => {
                let mut metadata = Metadata::response_from_request(request_metadata);
                metadata.authoritative = true;
                metadata.recursion_available = false;
                metadata.response_code = if nxdomain {
                    ResponseCode::NXDomain
                } else {
                    ResponseCode::NoError
                };
                let negative: Vec<Record> = if answers.is_empty() || nxdomain {
                    vec![*soa]
                } else {
                    Vec::new()
                };
                if request.protocol() == Protocol::Udp
                    && request.edns.is_none()
                    && may_exceed(metadata, &answers, &negative, CLASSIC_UDP_LIMIT)
                {
                    // RFC 1035 §4.2.1: without EDNS a UDP answer holds at most 512 bytes;
                    // send none of the records, with TC, so the client asks again over TCP.
                    metadata.truncation = true;
                    let response = builder.build_no_records(metadata);
                    response_handle.send_response(response).await
                } else {
                    let response = builder.build(
                        metadata,
                        answers.iter(),
                        std::iter::empty(),
                        negative.iter(),
                        std::iter::empty(),
                    );
                    response_handle.send_response(response).await
                }
            }
        };
        match sent {
            Ok(info) => info,
            Err(error) => {
                tracing::warn!(%error, "could not send a DNS response");
                Header {
                    metadata: refuse(ResponseCode::ServFail),
                    counts: HeaderCounts::default(),
                }
                .into()
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    use std::net::Ipv4Addr;

    use hickory_proto::rr::rdata::{A, CNAME};
    use hickory_proto::rr::{Name, RData};

    use super::*;

    fn a(name: &str) -> Record {
        Record::from_rdata(
            Name::from_ascii(name).unwrap(),
            60,
            RData::A(A(Ipv4Addr::LOCALHOST)),
        )
    }

    #[test]
    fn the_bound_is_never_below_the_encoded_size() {
        let cname = Record::from_rdata(
            Name::from_ascii("shop.example.com.").unwrap(),
            60,
            RData::CNAME(CNAME(
                Name::from_ascii("cname.pages.local-platform.test.").unwrap(),
            )),
        );
        let answers = vec![cname.clone(), a("cname.pages.local-platform.test.")];
        let bound: usize = answers.iter().map(|r| record_size_bound(r).unwrap()).sum();
        let metadata = Metadata::new(0, MessageType::Query, OpCode::Query);
        let encoded = encoded_len(metadata, &answers, &[]) - 12;
        assert!(bound >= encoded, "bound {bound} < encoded {encoded}");
        assert!(!may_exceed(metadata, &answers, &[], CLASSIC_UDP_LIMIT));
        // many records: over the classic limit, and found so
        let many: Vec<Record> = (0..40)
            .map(|n| a(&format!("host-{n}.example.com.")))
            .collect();
        assert!(encoded_len(metadata, &many, &[]) > CLASSIC_UDP_LIMIT);
        assert!(may_exceed(metadata, &many, &[], CLASSIC_UDP_LIMIT));
    }
}

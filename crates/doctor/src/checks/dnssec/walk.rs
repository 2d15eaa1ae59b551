//! The doctor's own walk down the chain of trust, judged at the run's time.
//!
//! hickory's validating handle judges every signature's validity period by this computer's
//! clock, while a run may judge time by the platform's (the local service's clock runs fast):
//! a healthy zone signed at the platform's time would be "not yet valid" to it. And when the
//! chain breaks, its proof says "bogus" without saying where or why, while a person needs the
//! one cause: which signature expired and when, or which DS names which key.
//!
//! So the walk fetches, with checking disabled, the answer's RRsets with their RRSIGs, then
//! for each signer zone its DNSKEY RRset, the DS RRset at its parent, and so up to a zone
//! whose keys include a trust anchor's; each DS is matched to a key by digest, each RRSIG is
//! verified with its key (hickory's `Verifier`, which knows nothing of time) and its
//! inception and expiration compared with the run's time. A delegation without a DS is
//! accepted as insecure when the parent's NSEC record at that name, itself verified, lists no
//! DS. What the walk cannot prove (NSEC3 denials, answers without records) it leaves to
//! hickory's validator ([`Walked::Unproven`], or [`LinkState::Unproven`] for one link).
//!
//! The answer is judged link by link ([`Walk::links`]): the name's own RRset (its CNAME, or
//! its addresses) in its own zone, then each name its CNAME chain leads to, in its zone. A
//! signed name whose CNAME leads into an unsigned zone is then secure for itself, with the
//! target's zone unsigned, whatever order the answer's RRsets came in.
//!
//! It is longer than the house's 500 lines (about 545 of code, and 50 of tests): the walk is
//! one recursion over one `Walk`, its connection and the keys of each zone established so
//! far. Establishing a zone's keys asks the parent for its DS (and so up the chain), proving a
//! delegation insecure verifies the parent's NSEC with the parent's keys, and every RRSIG is
//! verified against keys from the same table; split, the steps would pass the walk and its
//! table around and call back into each other. What stands apart already does: the trust
//! anchors (`anchors.rs`), the cause of a broken chain (`cause.rs`), the TCP exchange
//! (`tcp.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use futures::future::BoxFuture;
use hickory_net::xfer::DnsHandle;
use hickory_proto::dnssec::rdata::{DNSKEY, DNSSECRData, DS, RRSIG};
use hickory_proto::dnssec::{TrustAnchors, Verifier};
use hickory_proto::op::{DnsRequestOptions, Message, Query, ResponseCode};
use hickory_proto::rr::{DNSClass, LowerName, Name, RData, Record, RecordType};

use super::anchors::keys_matching;
use super::cause::BrokenChain;
use super::tcp::TcpExchange;

/// How many zone cuts a walk climbs at most (the deepest real names have far fewer).
const MAX_DEPTH: usize = 32;

/// Why the walk could not judge a name's answer link by link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Walked {
    /// The walk cannot decide (a negative answer, an answer without records): hickory's
    /// validator decides for the whole answer.
    Unproven(String),
    /// The resolver did not give what the walk needs.
    Unknown(String),
}

/// One link of an answer: an RRset (a CNAME on the way, or the addresses at the end) and
/// how it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) owner: String,
    pub(crate) record_type: String,
    pub(crate) state: LinkState,
    /// The zone the RRset belongs to: its signer for a signed one, the closest SOA above it
    /// otherwise; `None` when that could not be found.
    pub(crate) zone: Option<String>,
}

/// How one link stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkState {
    /// Its signature validates from the trust anchor.
    Secure,
    /// Its zone is proven unsigned.
    Insecure,
    /// The chain breaks here, for this reason.
    Broken(BrokenChain),
    /// hickory's validator says its signature does not validate (set by the caller, for a
    /// link the walk left unproven).
    Bogus(String),
    /// The walk cannot decide (an NSEC3 denial of a DS, say): hickory's validator decides.
    Unproven(String),
    /// The resolver did not give what the walk needs.
    Unknown(String),
}

/// Why a step stopped the walk.
#[derive(Debug, Clone)]
enum Stop {
    Broken(BrokenChain),
    Unproven(String),
    Unknown(String),
}

/// A zone's keys, once its DNSKEY RRset is established (or its lack of one is proven fine).
#[derive(Debug, Clone)]
enum Keys {
    Secure(Vec<DNSKEY>),
    Insecure,
}

/// One RRset of an answer with the signatures that cover it.
struct Rrset {
    owner: Name,
    record_type: RecordType,
    records: Vec<Record>,
    signatures: Vec<RRSIG>,
}

/// The walk's state for one name: its connection, the anchors, the time it judges by, and
/// the keys of each zone already established.
pub(crate) struct Walk {
    exchange: TcpExchange,
    anchors: Arc<TrustAnchors>,
    now: DateTime<Utc>,
    timeout: Duration,
    zones: Mutex<HashMap<Name, Result<Keys, Stop>>>,
}

impl Walk {
    pub(crate) fn new(
        exchange: TcpExchange,
        anchors: Arc<TrustAnchors>,
        now: DateTime<Utc>,
        timeout: Duration,
    ) -> Self {
        Self {
            exchange,
            anchors,
            now,
            timeout,
            zones: Mutex::new(HashMap::new()),
        }
    }

    /// Walks the chain for `name`'s A answer, link by link in the order of its CNAME chain
    /// (the name's own RRset first), each judged in its own zone.
    pub(crate) async fn links(&self, name: &Name) -> Result<Vec<Link>, Walked> {
        let response = self
            .ask(name, RecordType::A)
            .await
            .map_err(Walked::Unknown)?;
        if response.metadata.response_code != ResponseCode::NoError {
            return Err(Walked::Unproven(format!(
                "the answer is {}",
                response.metadata.response_code
            )));
        }
        let rrsets = in_chain_order(rrsets(&response.answers), name);
        if rrsets.is_empty() {
            return Err(Walked::Unproven("the answer holds no records".to_owned()));
        }
        let mut links = Vec::with_capacity(rrsets.len());
        for rrset in &rrsets {
            let state = match self.rrset(rrset).await {
                Ok(Keys::Secure(_)) => LinkState::Secure,
                Ok(Keys::Insecure) => LinkState::Insecure,
                Err(Stop::Broken(cause)) => LinkState::Broken(cause),
                Err(Stop::Unproven(why)) => LinkState::Unproven(why),
                Err(Stop::Unknown(why)) => LinkState::Unknown(why),
            };
            let zone = match (&state, rrset.signatures.first()) {
                (LinkState::Secure, Some(signature)) => {
                    Some(display(&signature.input().signer_name))
                }
                (LinkState::Insecure | LinkState::Unproven(_), _) => self
                    .zone_of(&rrset.owner, rrset.record_type)
                    .await
                    .ok()
                    .map(|zone| display(&zone)),
                _ => None,
            };
            links.push(Link {
                owner: display(&rrset.owner),
                record_type: rrset.record_type.to_string(),
                state,
                zone,
            });
        }
        Ok(links)
    }

    /// Establishes one RRset of the answer: `Secure` when its signature validates from the
    /// anchor, `Insecure` when its zone is proven unsigned.
    async fn rrset(&self, rrset: &Rrset) -> Result<Keys, Stop> {
        let Some(signature) = rrset.signatures.first() else {
            let zone = self.zone_of(&rrset.owner, rrset.record_type).await?;
            return match self.zone_keys(zone.clone(), 0).await? {
                Keys::Insecure => Ok(Keys::Insecure),
                Keys::Secure(_) => Err(Stop::Broken(BrokenChain::SignatureMissing {
                    owner: display(&rrset.owner),
                    record_type: rrset.record_type.to_string(),
                    zone: display(&zone),
                })),
            };
        };
        let signer = signature.input().signer_name.clone();
        if !signer.zone_of(&rrset.owner) {
            return Err(Stop::Broken(BrokenChain::SignatureInvalid {
                owner: display(&rrset.owner),
                record_type: rrset.record_type.to_string(),
                signer: display(&signer),
                key_tag: signature.input().key_tag,
            }));
        }
        match self.zone_keys(signer.clone(), 0).await? {
            Keys::Insecure => Ok(Keys::Insecure),
            Keys::Secure(keys) => {
                self.verify(rrset, &signer, &keys)?;
                Ok(Keys::Secure(keys))
            }
        }
    }

    /// The zone `owner` belongs to, for an RRset that names no signer: the closest name at or
    /// above it with an SOA (a CNAME's owner is never a zone's apex).
    async fn zone_of(&self, owner: &Name, record_type: RecordType) -> Result<Name, Stop> {
        let mut candidate = if record_type == RecordType::CNAME && !owner.is_root() {
            owner.base_name()
        } else {
            owner.clone()
        };
        for _ in 0..MAX_DEPTH {
            let response = self
                .ask(&candidate, RecordType::SOA)
                .await
                .map_err(Stop::Unknown)?;
            let at_apex = response
                .answers
                .iter()
                .any(|record| record.record_type() == RecordType::SOA && record.name == candidate);
            if at_apex {
                return Ok(candidate);
            }
            let is_alias = response.answers.iter().any(|record| {
                record.record_type() == RecordType::CNAME && record.name == candidate
            });
            if !is_alias
                && let Some(soa) = response.authorities.iter().find(|record| {
                    record.record_type() == RecordType::SOA && record.name.zone_of(&candidate)
                })
            {
                return Ok(soa.name.clone());
            }
            if candidate.is_root() {
                break;
            }
            candidate = candidate.base_name();
        }
        Err(Stop::Unproven(format!(
            "no zone found for {}",
            display(owner)
        )))
    }

    /// The keys of `zone`, established from a trust anchor or through its parent's DS.
    fn zone_keys(&self, zone: Name, depth: usize) -> BoxFuture<'_, Result<Keys, Stop>> {
        Box::pin(async move {
            if let Some(known) = self
                .zones
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&zone)
            {
                return known.clone();
            }
            let found = if depth > MAX_DEPTH {
                Err(Stop::Unproven("the chain is too long".to_owned()))
            } else {
                self.establish(&zone, depth).await
            };
            self.zones
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(zone, found.clone());
            found
        })
    }

    async fn establish(&self, zone: &Name, depth: usize) -> Result<Keys, Stop> {
        let response = self
            .ask(zone, RecordType::DNSKEY)
            .await
            .map_err(Stop::Unknown)?;
        let dnskeys = rrset_of(&response.answers, zone, RecordType::DNSKEY);
        let keys: Vec<DNSKEY> = dnssec_data(&dnskeys.records, |data| match data {
            DNSSECRData::DNSKEY(key) => Some(key),
            _ => None,
        });
        let anchored: Vec<DNSKEY> = keys
            .iter()
            .filter(|key| {
                self.anchors
                    .contains_with_name(key.public_key(), &LowerName::from(zone))
            })
            .cloned()
            .collect();
        if !anchored.is_empty() {
            self.verify(&dnskeys, zone, &anchored)?;
            return Ok(Keys::Secure(keys));
        }
        if zone.is_root() {
            return Err(Stop::Broken(BrokenChain::UntrustedKeys {
                zone: display(zone),
                dnskey_key_tags: tags(&keys),
                anchor_key_tags: (0..self.anchors.len())
                    .filter_map(|index| self.anchors.get(index))
                    .map(|key| DNSKEY::with_flags(257, key.clone()))
                    .filter_map(|key| key.calculate_key_tag().ok())
                    .collect(),
            }));
        }

        // Through the parent: its DS RRset for the zone, or its proof that there is none.
        let response = self
            .ask(zone, RecordType::DS)
            .await
            .map_err(Stop::Unknown)?;
        let ds_rrset = rrset_of(&response.answers, zone, RecordType::DS);
        let ds: Vec<DS> = dnssec_data(&ds_rrset.records, |data| match data {
            DNSSECRData::DS(ds) => Some(ds),
            _ => None,
        });
        if ds.is_empty() {
            return self.no_ds(zone, &response, depth).await;
        }
        let parent = match ds_rrset.signatures.first() {
            Some(signature) => signature.input().signer_name.clone(),
            None => self.zone_of(&zone.base_name(), RecordType::DS).await?,
        };
        if parent == *zone || !parent.zone_of(zone) {
            return Err(Stop::Broken(BrokenChain::SignatureInvalid {
                owner: display(zone),
                record_type: "DS".to_owned(),
                signer: display(&parent),
                key_tag: ds_rrset
                    .signatures
                    .first()
                    .map(|signature| signature.input().key_tag)
                    .unwrap_or_default(),
            }));
        }
        let parent_keys = match self.zone_keys(parent.clone(), depth + 1).await? {
            Keys::Insecure => return Ok(Keys::Insecure),
            Keys::Secure(keys) => keys,
        };
        if ds_rrset.signatures.is_empty() {
            return Err(Stop::Broken(BrokenChain::SignatureMissing {
                owner: display(zone),
                record_type: "DS".to_owned(),
                zone: display(&parent),
            }));
        }
        self.verify(&ds_rrset, &parent, &parent_keys)?;
        let matching: Vec<DNSKEY> = keys_matching(zone, &ds, &keys)
            .into_iter()
            .cloned()
            .collect();
        if matching.is_empty() {
            return Err(Stop::Broken(BrokenChain::DsMatchesNoKey {
                zone: display(zone),
                parent: display(&parent),
                ds_key_tags: ds.iter().map(DS::key_tag).collect(),
                dnskey_key_tags: tags(&keys),
            }));
        }
        self.verify(&dnskeys, zone, &matching)?;
        Ok(Keys::Secure(keys))
    }

    /// A DS question answered without DS: insecure if the parent is, or if the parent's NSEC
    /// record at the zone's name, verified, lists no DS.
    async fn no_ds(&self, zone: &Name, response: &Message, depth: usize) -> Result<Keys, Stop> {
        let nsec = rrset_of(&response.authorities, zone, RecordType::NSEC);
        let parent = match nsec.signatures.first() {
            Some(signature) => signature.input().signer_name.clone(),
            None => match response
                .authorities
                .iter()
                .find(|record| record.record_type() == RecordType::SOA)
            {
                Some(soa) => soa.name.clone(),
                None => {
                    return Err(Stop::Unproven(format!(
                        "no proof that {} has no DS",
                        display(zone)
                    )));
                }
            },
        };
        if parent == *zone || !parent.zone_of(zone) {
            return Err(Stop::Unproven(format!(
                "the answer about the DS of {} comes from {}",
                display(zone),
                display(&parent)
            )));
        }
        let parent_keys = match self.zone_keys(parent.clone(), depth + 1).await? {
            Keys::Insecure => return Ok(Keys::Insecure),
            Keys::Secure(keys) => keys,
        };
        let Some(types) = nsec.records.iter().find_map(|record| match &record.data {
            RData::DNSSEC(DNSSECRData::NSEC(nsec)) => {
                Some(nsec.type_bit_maps().collect::<Vec<_>>())
            }
            _ => None,
        }) else {
            // NSEC3, or a covering NSEC: hickory's validator proves those.
            return Err(Stop::Unproven(format!(
                "{} proves the absence of the DS of {} other than by an NSEC record at that name",
                display(&parent),
                display(zone)
            )));
        };
        self.verify(&nsec, &parent, &parent_keys)?;
        if types.contains(&RecordType::DS) || !types.contains(&RecordType::NS) {
            return Err(Stop::Unproven(format!(
                "the NSEC record of {} does not prove an unsigned delegation",
                display(zone)
            )));
        }
        Ok(Keys::Insecure)
    }

    /// Verifies `rrset`'s signatures by `signer` with `keys`, at the walk's time: one
    /// signature that verifies and is in date is enough. Otherwise the most telling failure:
    /// a signature that verifies but is out of date, then one that does not verify, then one
    /// by a key the zone does not publish.
    fn verify(&self, rrset: &Rrset, signer: &Name, keys: &[DNSKEY]) -> Result<(), Stop> {
        let owner = display(&rrset.owner);
        let record_type = rrset.record_type.to_string();
        if rrset.signatures.is_empty() {
            return Err(Stop::Broken(BrokenChain::SignatureMissing {
                owner,
                record_type,
                zone: display(signer),
            }));
        }
        let now = self.now.timestamp();
        let mut out_of_date = None;
        let mut invalid = None;
        let mut unknown_key = None;
        for signature in &rrset.signatures {
            let usable: Vec<&DNSKEY> = keys
                .iter()
                .filter(|key| {
                    key.zone_key()
                        && !key.revoke()
                        && key.algorithm() == signature.input().algorithm
                        && key.calculate_key_tag().ok() == Some(signature.input().key_tag)
                })
                .collect();
            if signature.input().signer_name != *signer || usable.is_empty() {
                unknown_key.get_or_insert(BrokenChain::NoKeyForSignature {
                    owner: owner.clone(),
                    record_type: record_type.clone(),
                    signer: display(&signature.input().signer_name),
                    key_tag: signature.input().key_tag,
                    dnskey_key_tags: tags(keys),
                });
                continue;
            }
            let verifies = usable.iter().any(|key| {
                key.verify_rrsig(&rrset.owner, DNSClass::IN, signature, rrset.records.iter())
                    .is_ok()
            });
            if !verifies {
                invalid.get_or_insert(BrokenChain::SignatureInvalid {
                    owner: owner.clone(),
                    record_type: record_type.clone(),
                    signer: display(signer),
                    key_tag: signature.input().key_tag,
                });
                continue;
            }
            let inception = i64::from(signature.input().sig_inception.get());
            let expiration = i64::from(signature.input().sig_expiration.get());
            let at = |seconds: i64| DateTime::<Utc>::from_timestamp(seconds, 0).unwrap_or_default();
            if now > expiration {
                out_of_date.get_or_insert(BrokenChain::SignatureExpired {
                    owner: owner.clone(),
                    record_type: record_type.clone(),
                    signer: display(signer),
                    key_tag: signature.input().key_tag,
                    inception: at(inception),
                    expiration: at(expiration),
                    judged_at: self.now,
                });
            } else if now < inception {
                out_of_date.get_or_insert(BrokenChain::SignatureNotYetValid {
                    owner: owner.clone(),
                    record_type: record_type.clone(),
                    signer: display(signer),
                    key_tag: signature.input().key_tag,
                    inception: at(inception),
                    expiration: at(expiration),
                    judged_at: self.now,
                });
            } else {
                return Ok(());
            }
        }
        Err(Stop::Broken(
            out_of_date
                .or(invalid)
                .or(unknown_key)
                .unwrap_or(BrokenChain::SignatureMissing {
                    owner,
                    record_type,
                    zone: display(signer),
                }),
        ))
    }

    /// Asks `name` `record_type` with the DO bit and checking disabled, over the walk's
    /// connection.
    async fn ask(&self, name: &Name, record_type: RecordType) -> Result<Message, String> {
        let mut options = DnsRequestOptions::default();
        options.use_edns = true;
        options.edns_set_dnssec_ok = true;
        let asked = tokio::time::timeout(
            self.timeout,
            super::tcp::CheckingDisabled(self.exchange.clone())
                .lookup(Query::query(name.clone(), record_type), options)
                .next(),
        )
        .await;
        match asked {
            Ok(Some(Ok(response))) => Ok(response.into_message()),
            Ok(Some(Err(error))) => Err(format!(
                "asking {} {record_type} failed: {error}",
                display(name)
            )),
            Ok(None) => Err(format!("no answer to {} {record_type}", display(name))),
            Err(_) => Err(format!(
                "no answer to {} {record_type} within {} ms",
                display(name),
                self.timeout.as_millis()
            )),
        }
    }
}

/// `name` for a person: without the final dot, `.` for the root.
pub(crate) fn display(name: &Name) -> String {
    if name.is_root() {
        ".".to_owned()
    } else {
        name.to_ascii().trim_end_matches('.').to_ascii_lowercase()
    }
}

/// The DNSSEC data of one kind among `records` (a DNSKEY or DS RRset), cloned.
fn dnssec_data<T: Clone>(records: &[Record], pick: impl Fn(&DNSSECRData) -> Option<&T>) -> Vec<T> {
    records
        .iter()
        .filter_map(|record| match &record.data {
            RData::DNSSEC(data) => pick(data).cloned(),
            _ => None,
        })
        .collect()
}

fn tags(keys: &[DNSKEY]) -> Vec<u16> {
    keys.iter()
        .filter_map(|key| key.calculate_key_tag().ok())
        .collect()
}

/// The RRsets of `records` (RRSIGs aside), each with the signatures that cover it, in the
/// order they first appear (the name's own first, then along its CNAME chain).
fn rrsets(records: &[Record]) -> Vec<Rrset> {
    let mut order: Vec<(Name, RecordType)> = Vec::new();
    for record in records {
        let key = (record.name.clone(), record.record_type());
        if record.record_type() != RecordType::RRSIG && !order.contains(&key) {
            order.push(key);
        }
    }
    order
        .into_iter()
        .map(|(owner, record_type)| rrset_of(records, &owner, record_type))
        .collect()
}

/// `rrsets` in the order of the CNAME chain from `name`: the name's own RRset, then the one
/// at its CNAME's target, and so on; any other RRset after them, as they came.
fn in_chain_order(mut rrsets: Vec<Rrset>, name: &Name) -> Vec<Rrset> {
    let mut ordered = Vec::with_capacity(rrsets.len());
    let mut current = name.clone();
    while let Some(position) = rrsets
        .iter()
        .position(|rrset| rrset.owner == current && rrset.record_type == RecordType::CNAME)
        .or_else(|| rrsets.iter().position(|rrset| rrset.owner == current))
    {
        let rrset = rrsets.remove(position);
        let next = (rrset.record_type == RecordType::CNAME)
            .then(|| {
                rrset.records.iter().find_map(|record| match &record.data {
                    RData::CNAME(target) => Some(target.0.clone()),
                    _ => None,
                })
            })
            .flatten();
        ordered.push(rrset);
        match next {
            Some(target) => current = target,
            None => {
                // the addresses at the end: every RRset of the name, one after the other
                while let Some(position) = rrsets.iter().position(|rrset| rrset.owner == current) {
                    ordered.push(rrsets.remove(position));
                }
                break;
            }
        }
    }
    ordered.extend(rrsets);
    ordered
}

/// The records of `owner` `record_type` among `records`, with their signatures.
fn rrset_of(records: &[Record], owner: &Name, record_type: RecordType) -> Rrset {
    Rrset {
        owner: owner.clone(),
        record_type,
        records: records
            .iter()
            .filter(|record| record.record_type() == record_type && record.name == *owner)
            .cloned()
            .collect(),
        signatures: records
            .iter()
            .filter(|record| record.name == *owner)
            .filter_map(|record| match &record.data {
                RData::DNSSEC(DNSSECRData::RRSIG(signature))
                    if signature.input().type_covered == record_type =>
                {
                    Some(signature.clone())
                }
                _ => None,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use hickory_proto::rr::rdata::{A, CNAME};

    use super::*;

    fn name(text: &str) -> Name {
        Name::from_ascii(text).unwrap()
    }

    /// The answer's RRsets in any order (hickory's validator gives them back in none) come
    /// out in the chain's: the name's own first, then along its CNAMEs.
    #[test]
    fn rrsets_are_put_in_the_order_of_the_chain() {
        let records = [
            Record::from_rdata(
                name("www.shop.net."),
                300,
                RData::A(A(Ipv4Addr::new(192, 0, 2, 7))),
            ),
            Record::from_rdata(
                name("edge.shop.net."),
                300,
                RData::CNAME(CNAME(name("www.shop.net."))),
            ),
            Record::from_rdata(
                name("www.good.com."),
                300,
                RData::CNAME(CNAME(name("edge.shop.net."))),
            ),
            Record::from_rdata(
                name("www.shop.net."),
                300,
                RData::A(A(Ipv4Addr::new(192, 0, 2, 8))),
            ),
        ];
        let ordered = in_chain_order(rrsets(&records), &name("WWW.good.com."));
        let order: Vec<(String, RecordType, usize)> = ordered
            .iter()
            .map(|rrset| {
                (
                    display(&rrset.owner),
                    rrset.record_type,
                    rrset.records.len(),
                )
            })
            .collect();
        assert_eq!(
            order,
            [
                ("www.good.com".to_owned(), RecordType::CNAME, 1),
                ("edge.shop.net".to_owned(), RecordType::CNAME, 1),
                ("www.shop.net".to_owned(), RecordType::A, 2),
            ]
        );
    }
}

//! Answering one DNS question from the zones: following CNAME chains inside them (stopping at
//! loops and after a bounded number of steps), flattening ALIAS at an apex, the platform's own
//! names, the synthesised SOA and NS, and telling NXDOMAIN from NODATA. The result is a
//! [`Resolution`], which the server turns into a message.
//!
//! The data it reads (records and their indexes by name) and the edits that change it are in
//! [`super::zone`]; this file only reads, so the live view and the platform resolver's delayed
//! view (`as_of`) are the same code.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use domain_desk_api::local::ZoneRecordType;
use hickory_proto::rr::rdata::{A, AAAA, NS, SOA};
use hickory_proto::rr::{Name, RData, Record, RecordType};

use super::records::{dns_name, to_record};
use super::zone::{StoredRecord, ZoneStore, Zones};
use crate::Result;

/// How many CNAME or ALIAS steps an answer follows inside our zones before it stops.
const MAX_CHAIN: usize = 8;

/// TTL of the synthesised NS records and of the platform's own names; also the platform
/// zone's SOA TTL and negative-caching TTL (its SOA minimum). The customer zones' SOA takes
/// the store's SOA minimum for both (`ZoneStore::with_soa_minimum`).
const PLATFORM_TTL: u32 = 60;

/// The DNS answer to one question, before it is put into a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The name is outside every zone we serve.
    Refused,
    /// Authoritative answer: `answers` (possibly empty: NODATA), or NXDOMAIN when the name
    /// (or the end of its CNAME chain inside our zones) does not exist. `soa` is the SOA of the
    /// zone of the last name, for the authority section of a negative answer.
    Answer {
        answers: Vec<Record>,
        nxdomain: bool,
        soa: Box<Record>,
    },
}

/// Outcome of following one name inside our zones.
enum Step {
    OutOfZone,
    Exists { zone: String },
    NxDomain { zone: String },
}

impl ZoneStore {
    /// Answers one question. `as_of` is `None` for the live view, or the instant whose zone
    /// contents to answer from (the platform resolver's delayed view).
    pub fn resolve(
        &self,
        qname: &str,
        qtype: RecordType,
        as_of: Option<DateTime<Utc>>,
    ) -> Result<Resolution> {
        let qname = qname.trim_end_matches('.').to_ascii_lowercase();
        let zones = self.read();
        let mut answers = Vec::new();
        let mut last_zone = None;
        let step = zones.follow(&qname, qtype, as_of, &mut answers, &mut last_zone, 0)?;
        let nxdomain = match step {
            Step::OutOfZone if answers.is_empty() => return Ok(Resolution::Refused),
            Step::OutOfZone | Step::Exists { .. } => false,
            Step::NxDomain { .. } => true,
        };
        let soa_zone = match step {
            Step::Exists { zone } | Step::NxDomain { zone } => zone,
            Step::OutOfZone => last_zone.unwrap_or_else(|| zones.platform.domain.clone()),
        };
        let soa = Box::new(zones.soa(&soa_zone)?);
        Ok(Resolution::Answer {
            answers,
            nxdomain,
            soa,
        })
    }
}

/// True when `name` is `zone` or a name below it.
fn is_within(name: &str, zone: &str) -> bool {
    name == zone
        || name
            .strip_suffix(zone)
            .is_some_and(|head| head.ends_with('.'))
}

impl Zones {
    /// The visible records of `zone` owned by `name`.
    fn at_name<'a>(
        &'a self,
        zone: &'a str,
        name: &str,
        as_of: Option<DateTime<Utc>>,
    ) -> impl Iterator<Item = &'a StoredRecord> + 'a {
        self.owners
            .get(name)
            .into_iter()
            .flatten()
            .map(|&index| &self.records[index])
            .filter(move |stored| stored.zone == zone && stored.visible_at(as_of))
    }

    /// `_domainconnect.<zone>` of a customer zone, while the provider publishes it.
    fn is_domain_connect_name(&self, zone: &str, name: &str) -> bool {
        self.domain_connect_host.is_some()
            && zone != self.platform.domain
            && name
                .strip_prefix(domain_desk_api::domain_connect::DISCOVERY_LABEL)
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(zone)
    }

    fn is_platform_host(&self, name: &str) -> bool {
        self.platform_hosts.contains(name)
    }

    /// True when a DNS-01 token visible at `as_of` is published at `name` or below it, inside
    /// the validation zone.
    fn validation_tokens_at_or_below(&self, name: &str, as_of: Option<DateTime<Utc>>) -> bool {
        let Some(zone) = &self.validation.zone else {
            return false;
        };
        if !is_within(name, zone) {
            return false;
        }
        self.validation
            .tokens
            .iter()
            .any(|token| is_within(&token.owner, name) && token.visible_at(as_of))
    }

    /// RFC 4592: the wildcard record set that answers for `name`, which does not exist in
    /// `zone`: `*.<closest encloser>` (the nearest parent that exists), when it has records.
    fn source_of_synthesis(
        &self,
        zone: &str,
        name: &str,
        as_of: Option<DateTime<Utc>>,
    ) -> Option<String> {
        let mut parent = name;
        while let Some((_, up)) = parent.split_once('.') {
            parent = up;
            if parent.len() < zone.len() {
                return None;
            }
            if self.name_exists(zone, parent, as_of) {
                let source = format!("*.{parent}");
                return self
                    .at_name(zone, &source, as_of)
                    .next()
                    .is_some()
                    .then_some(source);
            }
        }
        None
    }

    /// The zone a name belongs to: the longest zone that is the name or a parent of it.
    fn zone_of(&self, name: &str, as_of: Option<DateTime<Utc>>) -> Option<String> {
        let platform = &self.platform.domain;
        std::iter::once(platform.as_str())
            .chain(
                self.customer
                    .iter()
                    .filter(|(_, created)| as_of.is_none_or(|at| **created <= at))
                    .map(|(zone, _)| zone.as_str()),
            )
            .filter(|zone| is_within(name, zone))
            .max_by_key(|zone| zone.len())
            .map(str::to_owned)
    }

    /// True when the name owns records or has records below it (an empty non-terminal).
    fn name_exists(&self, zone: &str, name: &str, as_of: Option<DateTime<Utc>>) -> bool {
        if name == zone || self.is_domain_connect_name(zone, name) {
            return true;
        }
        let below = format!(".{name}");
        if zone == self.platform.domain {
            return std::iter::once(&self.platform.dns_target)
                .chain(self.platform_hosts.iter())
                .chain(self.validation.zone.iter())
                .any(|host| host == name || host.ends_with(&below))
                || self.is_platform_host(name)
                || self.validation_tokens_at_or_below(name, as_of);
        }
        self.existing.get(name).is_some_and(|indexes| {
            indexes.iter().any(|&index| {
                let stored = &self.records[index];
                stored.zone == zone && stored.visible_at(as_of)
            })
        })
    }

    fn follow(
        &self,
        name: &str,
        qtype: RecordType,
        as_of: Option<DateTime<Utc>>,
        answers: &mut Vec<Record>,
        last_zone: &mut Option<String>,
        depth: usize,
    ) -> Result<Step> {
        let Some(zone) = self.zone_of(name, as_of) else {
            return Ok(Step::OutOfZone);
        };
        *last_zone = Some(zone.clone());
        // The records answering: the name's own, or a wildcard's in its place (RFC 4592).
        let mut records_at = std::borrow::Cow::Borrowed(name);
        if !self.name_exists(&zone, name, as_of) {
            match (zone != self.platform.domain)
                .then(|| self.source_of_synthesis(&zone, name, as_of))
                .flatten()
            {
                Some(source) => records_at = std::borrow::Cow::Owned(source),
                None => return Ok(Step::NxDomain { zone }),
            }
        }
        let owner = dns_name(name)?;
        if name == zone && matches!(qtype, RecordType::SOA | RecordType::NS | RecordType::ANY) {
            if qtype != RecordType::NS {
                answers.push(self.soa(&zone)?);
            }
            if qtype != RecordType::SOA {
                answers.push(self.ns(&zone)?);
            }
            if qtype != RecordType::ANY {
                return Ok(Step::Exists { zone });
            }
        }
        if zone == self.platform.domain {
            if name != zone {
                let address = self.platform.edge_address;
                let rdata = match (address, qtype) {
                    (IpAddr::V4(v4), RecordType::A | RecordType::ANY) => Some(RData::A(A(v4))),
                    (IpAddr::V6(v6), RecordType::AAAA | RecordType::ANY) => {
                        Some(RData::AAAA(AAAA(v6)))
                    }
                    _ => None,
                };
                let is_host = name == self.platform.dns_target || self.is_platform_host(name);
                if let (Some(rdata), true) = (rdata, is_host) {
                    answers.push(Record::from_rdata(owner.clone(), PLATFORM_TTL, rdata));
                }
                if matches!(qtype, RecordType::TXT | RecordType::ANY) {
                    for token in self
                        .validation
                        .tokens
                        .iter()
                        .filter(|token| token.owner == name && token.visible_at(as_of))
                    {
                        answers.push(to_record(
                            &owner,
                            ZoneRecordType::Txt,
                            &token.value,
                            PLATFORM_TTL,
                        )?);
                    }
                }
            }
            return Ok(Step::Exists { zone });
        }
        if self.is_domain_connect_name(&zone, name)
            && matches!(qtype, RecordType::TXT | RecordType::ANY)
        {
            if let Some(host) = &self.domain_connect_host {
                answers.push(to_record(&owner, ZoneRecordType::Txt, host, PLATFORM_TTL)?);
            }
        }
        let here: Vec<&StoredRecord> = self.at_name(&zone, &records_at, as_of).collect();
        if let Some(cname) = here
            .iter()
            .find(|stored| stored.record.record_type == ZoneRecordType::Cname)
        {
            answers.push(to_record(
                &owner,
                ZoneRecordType::Cname,
                &cname.record.value,
                cname.record.ttl,
            )?);
            // a question for the CNAME itself ends here; any other follows it
            if qtype == RecordType::CNAME {
                return Ok(Step::Exists { zone });
            }
            // a chain that comes back to a name already answered is a loop: stop there
            let target = dns_name(&cname.record.value)?;
            let looped = answers
                .iter()
                .any(|seen| seen.record_type() == RecordType::CNAME && seen.name == target);
            if depth >= MAX_CHAIN || looped {
                return Ok(Step::Exists { zone });
            }
            return match self.follow(
                &cname.record.value,
                qtype,
                as_of,
                answers,
                last_zone,
                depth + 1,
            )? {
                Step::OutOfZone => Ok(Step::Exists { zone }),
                step => Ok(step),
            };
        }
        for stored in &here {
            let record = &stored.record;
            let served_type = match record.record_type {
                ZoneRecordType::A => RecordType::A,
                ZoneRecordType::Aaaa => RecordType::AAAA,
                ZoneRecordType::Caa => RecordType::CAA,
                ZoneRecordType::Txt => RecordType::TXT,
                ZoneRecordType::Cname => RecordType::CNAME,
                ZoneRecordType::Alias => {
                    if matches!(qtype, RecordType::A | RecordType::AAAA | RecordType::ANY)
                        && depth < MAX_CHAIN
                    {
                        self.flatten_alias(
                            &owner,
                            &record.value,
                            record.ttl,
                            qtype,
                            as_of,
                            answers,
                            depth,
                        )?;
                    }
                    continue;
                }
            };
            if qtype == served_type || qtype == RecordType::ANY {
                answers.push(to_record(
                    &owner,
                    record.record_type,
                    &record.value,
                    record.ttl,
                )?);
            }
        }
        Ok(Step::Exists { zone })
    }

    /// Answers an ALIAS the way providers do: the target's addresses under the ALIAS's owner.
    #[allow(clippy::too_many_arguments)]
    fn flatten_alias(
        &self,
        owner: &Name,
        target: &str,
        ttl: u32,
        qtype: RecordType,
        as_of: Option<DateTime<Utc>>,
        answers: &mut Vec<Record>,
        depth: usize,
    ) -> Result<()> {
        let wanted: &[RecordType] = match qtype {
            RecordType::ANY => &[RecordType::A, RecordType::AAAA],
            RecordType::A => &[RecordType::A],
            _ => &[RecordType::AAAA],
        };
        for &record_type in wanted {
            let mut chased = Vec::new();
            let mut ignored_zone = None;
            self.follow(
                target,
                record_type,
                as_of,
                &mut chased,
                &mut ignored_zone,
                depth + 1,
            )?;
            for record in chased
                .into_iter()
                .filter(|record| record.record_type() == record_type)
            {
                answers.push(Record::from_rdata(owner.clone(), ttl, record.data));
            }
        }
        Ok(())
    }

    fn soa(&self, zone: &str) -> Result<Record> {
        let negative_ttl = if is_within(zone, &self.platform.domain) {
            PLATFORM_TTL
        } else {
            self.soa_minimum
        };
        let origin = dns_name(zone)?;
        let primary = dns_name(&format!("ns1.{}", self.platform.domain))?;
        let mailbox = dns_name(&format!("hostmaster.{}", self.platform.domain))?;
        let soa = SOA::new(
            primary,
            mailbox,
            self.serial,
            3600,
            600,
            604_800,
            negative_ttl,
        );
        Ok(Record::from_rdata(origin, negative_ttl, RData::SOA(soa)))
    }

    fn ns(&self, zone: &str) -> Result<Record> {
        let origin = dns_name(zone)?;
        let server = dns_name(&format!("ns1.{}", self.platform.domain))?;
        Ok(Record::from_rdata(
            origin,
            PLATFORM_TTL,
            RData::NS(NS(server)),
        ))
    }
}

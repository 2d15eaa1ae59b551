//! The zones the local DNS server is authoritative for, with their history.
//!
//! Every record keeps the virtual time it was added and removed, so the same store answers two
//! views: the live one (what `dig` sees on the public port, changes at once) and the platform
//! resolver's view as of an earlier instant (`now - propagation delay`), which is how the
//! verifier and the CA come to see DNS changes late, the way a real platform's resolvers do.
//!
//! The platform zone is built in: its DNS target and every project's default address resolve to
//! the edge. Customer zones (the demo zones and any added later) hold the records the demo DNS
//! provider manages, under the provider's rules (no CNAME beside other records).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, PoisonError, RwLock};

use chrono::{DateTime, Utc};
use domain_desk_api::local::{NewZoneRecord, ZoneRecord, ZoneRecordType};
use hickory_proto::rr::rdata::{A, AAAA, NS, SOA};
use hickory_proto::rr::{Name, RData, Record, RecordType};

use super::records::{
    DEFAULT_TTL, MAX_TTL, absolute_name, dns_name, normalise_hostname, normalise_relative_name,
    normalise_value, to_record,
};
use crate::{Error, Result};
use domain_desk_api::ErrorCode;

fn zone_not_found(zone: &str) -> Error {
    Error::not_found(format!("The demo DNS provider has no zone {zone}."))
}

fn record_conflict(message: String) -> Error {
    Error::conflict(ErrorCode::RecordConflict, message)
}

/// How many CNAME or ALIAS steps an answer follows inside our zones before it stops.
const MAX_CHAIN: usize = 8;

/// TTL of the synthesised SOA and NS records and of the platform's own names; also the
/// negative-caching TTL (the SOA minimum).
const PLATFORM_TTL: u32 = 60;

/// The platform's own zone: its domain, the DNS target customers point to, and the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformZone {
    /// The platform domain, e.g. `domaindesk.test`: default addresses live under it.
    pub domain: String,
    /// The platform DNS target customers' CNAME records must name, e.g. `edge.domaindesk.test`.
    pub dns_target: String,
    /// The address the target and the default addresses resolve to: the edge.
    pub edge_address: IpAddr,
}

/// One record with the virtual times it was added and (if so) removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    pub zone: String,
    pub record: ZoneRecord,
    pub added_at: DateTime<Utc>,
    pub removed_at: Option<DateTime<Utc>>,
}

impl StoredRecord {
    fn visible_at(&self, as_of: Option<DateTime<Utc>>) -> bool {
        match as_of {
            None => self.removed_at.is_none(),
            Some(at) => self.added_at <= at && self.removed_at.is_none_or(|removed| removed > at),
        }
    }
}

/// Everything the store holds, for persistence and for restoring it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZoneSnapshot {
    /// Customer zones with the virtual time they were added.
    pub zones: Vec<(String, DateTime<Utc>)>,
    pub records: Vec<StoredRecord>,
}

/// Told about every change, in order, so the zones survive a restart.
pub trait ZoneJournal: Send + Sync {
    fn zone_added(&self, zone: &str, created_at: DateTime<Utc>) -> Result<()>;
    fn record_added(&self, record: &StoredRecord) -> Result<()>;
    fn record_removed(&self, zone: &str, id: &str, removed_at: DateTime<Utc>) -> Result<()>;
    /// Deleted records dropped from the history, as `(zone, id)`.
    fn records_forgotten(&self, records: &[(String, String)]) -> Result<()>;
}

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

/// The zone store shared by the DNS server, the demo provider and the verifier.
#[derive(Clone)]
pub struct ZoneStore {
    inner: Arc<RwLock<Zones>>,
    journal: Option<Arc<dyn ZoneJournal>>,
    /// Most deleted records kept for the delayed view; the oldest deletions go first.
    removed_limit: usize,
    /// Most customer zones; a further one is refused.
    zone_limit: usize,
    /// Most live records in one customer zone; a further one is refused.
    record_limit: usize,
}

impl std::fmt::Debug for ZoneStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneStore").finish_non_exhaustive()
    }
}

struct Zones {
    platform: PlatformZone,
    /// Default addresses of the projects, resolved to the edge.
    platform_hosts: BTreeSet<String>,
    customer: BTreeMap<String, DateTime<Utc>>,
    records: Vec<StoredRecord>,
    /// Indexes into `records` by owner name, so a question reads only its name's records
    /// (removed records stay, for the delayed view; they are filtered by time).
    owners: HashMap<String, Vec<usize>>,
    /// Indexes into `records` by every name a record makes exist: its owner and each name
    /// between the owner and its zone (empty non-terminals exist too).
    existing: HashMap<String, Vec<usize>>,
    /// Bumped on every change; it is the SOA serial.
    serial: u32,
    /// What `_domainconnect` at each customer zone's apex answers (TXT): the host of this
    /// DNS provider's Domain Connect API. `None` answers nothing there.
    domain_connect_host: Option<String>,
}

/// Outcome of following one name inside our zones.
enum Step {
    OutOfZone,
    Exists { zone: String },
    NxDomain { zone: String },
}

impl ZoneStore {
    /// An empty store with only the platform zone.
    pub fn new(platform: PlatformZone) -> Self {
        let platform = PlatformZone {
            domain: platform.domain.trim_end_matches('.').to_ascii_lowercase(),
            dns_target: platform
                .dns_target
                .trim_end_matches('.')
                .to_ascii_lowercase(),
            edge_address: platform.edge_address,
        };
        Self {
            inner: Arc::new(RwLock::new(Zones {
                platform,
                platform_hosts: BTreeSet::new(),
                customer: BTreeMap::new(),
                records: Vec::new(),
                owners: HashMap::new(),
                existing: HashMap::new(),
                serial: 1,
                domain_connect_host: None,
            })),
            journal: None,
            removed_limit: crate::HistoryLimits::default().removed_dns_records,
            zone_limit: crate::HistoryLimits::default().dns_zones,
            record_limit: crate::HistoryLimits::default().records_per_zone,
        }
    }

    /// Refuses (`422 validation_failed`) a customer zone past `zones` and a live record past
    /// `records_per_zone` in its zone.
    pub fn with_size_limits(mut self, zones: usize, records_per_zone: usize) -> Self {
        self.zone_limit = zones;
        self.record_limit = records_per_zone;
        self
    }

    /// Keeps at most `limit` deleted records in the history: deleting past it forgets the
    /// oldest deletions (the delayed view then no longer sees them).
    pub fn with_removed_limit(mut self, limit: usize) -> Self {
        self.removed_limit = limit;
        self
    }

    /// Records every later change in `journal`.
    pub fn with_journal(mut self, journal: Arc<dyn ZoneJournal>) -> Self {
        self.journal = Some(journal);
        self
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Zones> {
        // The data under the lock is only changed by whole-value assignments and pushes, so a
        // panic elsewhere cannot leave it half-written; reading on is sound.
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Zones> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn platform(&self) -> PlatformZone {
        self.read().platform.clone()
    }

    /// Changes the edge address the platform names resolve to (once the edge is bound).
    pub fn set_edge_address(&self, address: IpAddr) {
        let mut zones = self.write();
        zones.platform.edge_address = address;
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// Replaces the set of projects' default addresses that resolve to the edge.
    pub fn set_platform_hosts(&self, hostnames: impl IntoIterator<Item = String>) {
        let mut zones = self.write();
        zones.platform_hosts = hostnames
            .into_iter()
            .map(|name| name.trim_end_matches('.').to_ascii_lowercase())
            .collect();
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// Makes a project's default address resolve to the edge.
    pub fn add_platform_host(&self, hostname: &str) {
        let mut zones = self.write();
        zones
            .platform_hosts
            .insert(hostname.trim_end_matches('.').to_ascii_lowercase());
        zones.serial = zones.serial.wrapping_add(1);
    }

    pub fn remove_platform_host(&self, hostname: &str) {
        let mut zones = self.write();
        zones
            .platform_hosts
            .remove(&hostname.trim_end_matches('.').to_ascii_lowercase());
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// Publishes `_domainconnect TXT "<host>"` at every customer zone's apex: the DNS
    /// provider's Domain Connect API (`host:port` of the local service's API).
    pub fn set_domain_connect_host(&self, host: Option<String>) {
        let mut zones = self.write();
        zones.domain_connect_host = host;
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// Replaces all customer zones and records (restoring from persistence or resetting).
    pub fn restore(&self, snapshot: ZoneSnapshot) {
        let mut zones = self.write();
        zones.customer = snapshot.zones.into_iter().collect();
        zones.records = snapshot.records;
        zones.reindex();
        zones.serial = zones.serial.wrapping_add(1);
    }

    pub fn snapshot(&self) -> ZoneSnapshot {
        let zones = self.read();
        ZoneSnapshot {
            zones: zones
                .customer
                .iter()
                .map(|(name, at)| (name.clone(), *at))
                .collect(),
            records: zones.records.clone(),
        }
    }

    /// The customer zones' names.
    pub fn zone_names(&self) -> Vec<String> {
        self.read().customer.keys().cloned().collect()
    }

    /// Adds a customer zone (the demo provider's "add a domain").
    pub fn add_zone(&self, zone: &str, now: DateTime<Utc>) -> Result<String> {
        let name = normalise_hostname(zone)
            .filter(|name| name.contains('.'))
            .ok_or_else(|| {
                Error::validation(
                    "zone",
                    format!("{zone:?} is not a domain name such as example.com."),
                )
            })?;
        if let Err(error) = domain_desk_api::Hostname::parse(&name) {
            // a public suffix on its own, an unknown top-level domain: not a customer's zone
            return Err(Error::validation("zone", error.to_string()));
        }
        let mut zones = self.write();
        let platform = &zones.platform.domain;
        if &name == platform
            || name.ends_with(&format!(".{platform}"))
            || platform.ends_with(&format!(".{name}"))
        {
            return Err(Error::validation(
                "zone",
                format!("{name} overlaps the platform's own zone {platform}."),
            ));
        }
        if zones.customer.contains_key(&name) {
            return Err(Error::conflict(
                ErrorCode::ZoneExists,
                format!("The demo provider already has the zone {name}."),
            ));
        }
        if zones.customer.len() >= self.zone_limit {
            return Err(Error::validation(
                "zone",
                format!(
                    "The demo provider holds at most {} zones (serve --max-dns-zones).",
                    self.zone_limit
                ),
            ));
        }
        if let Some(journal) = &self.journal {
            journal.zone_added(&name, now)?;
        }
        zones.customer.insert(name.clone(), now);
        zones.serial = zones.serial.wrapping_add(1);
        Ok(name)
    }

    /// The current records of a customer zone, sorted by name and type.
    pub fn records(&self, zone: &str) -> Result<Vec<ZoneRecord>> {
        let zone = zone.trim_end_matches('.').to_ascii_lowercase();
        let zones = self.read();
        if !zones.customer.contains_key(&zone) {
            return Err(zone_not_found(&zone));
        }
        let mut records: Vec<ZoneRecord> = zones
            .records
            .iter()
            .filter(|stored| stored.zone == zone && stored.removed_at.is_none())
            .map(|stored| stored.record.clone())
            .collect();
        records.sort_by(|a, b| {
            (a.name.as_str(), a.record_type.as_str(), a.value.as_str()).cmp(&(
                b.name.as_str(),
                b.record_type.as_str(),
                b.value.as_str(),
            ))
        });
        Ok(records)
    }

    /// Adds a record under the provider's rules: a CNAME stands alone at its name (not beside
    /// other records, not at the zone apex where SOA and NS live), values must fit their type.
    pub fn add_record(
        &self,
        zone: &str,
        new: &NewZoneRecord,
        now: DateTime<Utc>,
    ) -> Result<ZoneRecord> {
        let zone = zone.trim_end_matches('.').to_ascii_lowercase();
        let name = normalise_relative_name(&zone, &new.name)?;
        let value = normalise_value(new.record_type, &new.value)?;
        let ttl = new.ttl.unwrap_or(DEFAULT_TTL);
        if ttl == 0 || ttl > MAX_TTL {
            return Err(Error::validation(
                "ttl",
                format!("The TTL must be from 1 to {MAX_TTL} seconds."),
            ));
        }
        let mut zones = self.write();
        if !zones.customer.contains_key(&zone) {
            return Err(zone_not_found(&zone));
        }
        let at_name: Vec<&StoredRecord> = zones
            .records
            .iter()
            .filter(|stored| {
                stored.zone == zone && stored.removed_at.is_none() && stored.record.name == name
            })
            .collect();
        let full = absolute_name(&zone, &name);
        let live = zones
            .records
            .iter()
            .filter(|stored| stored.zone == zone && stored.removed_at.is_none())
            .count();
        if live >= self.record_limit {
            return Err(Error::validation(
                "name",
                format!(
                    "The zone {zone} already has {live} records, the most the demo provider keeps \
                     in one zone (serve --max-zone-records); delete one first."
                ),
            ));
        }
        if new.record_type == ZoneRecordType::Cname {
            if name == "@" {
                return Err(record_conflict(format!(
                    "A CNAME cannot stand at the zone apex {zone}, beside its SOA and NS records; use an ALIAS record there."
                )));
            }
            if let Some(other) = at_name.first() {
                return Err(record_conflict(format!(
                    "{full} already has a {} record ({}); a CNAME cannot stand beside other records. Delete it first.",
                    other.record.record_type.as_str(),
                    other.record.value
                )));
            }
        } else if let Some(cname) = at_name
            .iter()
            .find(|stored| stored.record.record_type == ZoneRecordType::Cname)
        {
            return Err(record_conflict(format!(
                "{full} has a CNAME record (to {}); no other record can stand beside it. Delete the CNAME first.",
                cname.record.value
            )));
        }
        if at_name.iter().any(|stored| {
            stored.record.record_type == new.record_type && stored.record.value == value
        }) {
            return Err(record_conflict(format!(
                "{full} already has this {} record.",
                new.record_type.as_str()
            )));
        }
        let stored = StoredRecord {
            zone: zone.clone(),
            record: ZoneRecord {
                id: format!("rec_{}", uuid::Uuid::new_v4().simple()),
                name,
                record_type: new.record_type,
                value,
                ttl,
            },
            added_at: now,
            removed_at: None,
        };
        if let Some(journal) = &self.journal {
            journal.record_added(&stored)?;
        }
        let record = stored.record.clone();
        zones.records.push(stored);
        let added = zones.records.len() - 1;
        zones.index(added);
        zones.serial = zones.serial.wrapping_add(1);
        Ok(record)
    }

    /// Removes a record now; the delayed view keeps seeing it until the delay has passed.
    pub fn delete_record(&self, zone: &str, id: &str, now: DateTime<Utc>) -> Result<()> {
        let zone = zone.trim_end_matches('.').to_ascii_lowercase();
        let mut zones = self.write();
        if !zones.customer.contains_key(&zone) {
            return Err(zone_not_found(&zone));
        }
        let Some(index) = zones.records.iter().position(|stored| {
            stored.zone == zone && stored.record.id == id && stored.removed_at.is_none()
        }) else {
            return Err(Error::not_found(format!(
                "The zone {zone} has no record {id:?}."
            )));
        };
        if let Some(journal) = &self.journal {
            journal.record_removed(&zone, id, now)?;
        }
        zones.records[index].removed_at = Some(now);
        zones.serial = zones.serial.wrapping_add(1);
        self.forget_oldest_removed(&mut zones)
    }

    /// Applies the bound on deleted records to what was restored (the bound may have been
    /// lowered since the history was written).
    pub fn trim_history(&self) -> Result<()> {
        let mut zones = self.write();
        self.forget_oldest_removed(&mut zones)
    }

    /// Drops the oldest deleted records beyond [`Self::removed_limit`].
    fn forget_oldest_removed(&self, zones: &mut Zones) -> Result<()> {
        let mut removed: Vec<(DateTime<Utc>, usize)> = zones
            .records
            .iter()
            .enumerate()
            .filter_map(|(index, stored)| stored.removed_at.map(|at| (at, index)))
            .collect();
        let Some(excess) = removed
            .len()
            .checked_sub(self.removed_limit)
            .filter(|&n| n > 0)
        else {
            return Ok(());
        };
        removed.sort_unstable();
        let mut forget: Vec<usize> = removed[..excess].iter().map(|&(_, index)| index).collect();
        forget.sort_unstable();
        if let Some(journal) = &self.journal {
            let ids: Vec<(String, String)> = forget
                .iter()
                .map(|&index| {
                    let stored = &zones.records[index];
                    (stored.zone.clone(), stored.record.id.clone())
                })
                .collect();
            journal.records_forgotten(&ids)?;
        }
        let mut position = 0;
        let mut next = forget.iter().peekable();
        zones.records.retain(|_| {
            let drop = next.next_if_eq(&&position).is_some();
            position += 1;
            !drop
        });
        zones.reindex();
        Ok(())
    }

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
    fn reindex(&mut self) {
        self.owners.clear();
        self.existing.clear();
        for index in 0..self.records.len() {
            self.index(index);
        }
    }

    fn index(&mut self, index: usize) {
        let stored = &self.records[index];
        let owner = absolute_name(&stored.zone, &stored.record.name);
        let zone_len = stored.zone.len();
        // the owner and every parent of it down to (not including) the zone apex
        let mut name = owner.as_str();
        while name.len() > zone_len {
            self.existing
                .entry(name.to_owned())
                .or_default()
                .push(index);
            match name.split_once('.') {
                Some((_, parent)) => name = parent,
                None => break,
            }
        }
        self.owners.entry(owner).or_default().push(index);
    }

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
                .any(|host| host == name || host.ends_with(&below))
                || self.is_platform_host(name);
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
        if !self.name_exists(&zone, name, as_of) {
            return Ok(Step::NxDomain { zone });
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
                    answers.push(Record::from_rdata(owner, PLATFORM_TTL, rdata));
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
        let here: Vec<&StoredRecord> = self.at_name(&zone, name, as_of).collect();
        if let Some(cname) = here
            .iter()
            .find(|stored| stored.record.record_type == ZoneRecordType::Cname)
        {
            if qtype == RecordType::CNAME {
                answers.push(to_record(
                    &owner,
                    ZoneRecordType::Cname,
                    &cname.record.value,
                    cname.record.ttl,
                )?);
                return Ok(Step::Exists { zone });
            }
            answers.push(to_record(
                &owner,
                ZoneRecordType::Cname,
                &cname.record.value,
                cname.record.ttl,
            )?);
            // a chain that comes back to a name already answered is a loop: stop there
            let target = dns_name(&cname.record.value)?;
            let looped = answers
                .iter()
                .any(|seen| seen.record_type() == RecordType::CNAME && seen.name() == &target);
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
                answers.push(Record::from_rdata(
                    owner.clone(),
                    ttl,
                    record.data().clone(),
                ));
            }
        }
        Ok(())
    }

    fn soa(&self, zone: &str) -> Result<Record> {
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
            PLATFORM_TTL,
        );
        Ok(Record::from_rdata(origin, PLATFORM_TTL, RData::SOA(soa)))
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

//! The zones the local DNS server is authoritative for, with their history: the data (the
//! records, the indexes by name, the customer zones and the platform's hosts) and its edits
//! under the demo DNS provider's rules, with the journal that persists them. Answering a
//! question from this data is [`super::answer`]'s job, so the two can be read apart.
//!
//! Every record keeps the virtual time it was added and removed, so the same store answers two
//! views: the live one (what `dig` sees on the public port, changes at once) and the platform
//! resolver's view as of an earlier instant (`now - propagation delay`), which is how the
//! verifier and the CA come to see DNS changes late, the way a real platform's resolvers do.
//!
//! The platform zone is built in: its DNS target and every project's default address resolve to
//! the edge. Customer zones (the demo zones and any added later) hold the records the demo DNS
//! provider manages, under the provider's rules (no CNAME beside other records).
//!
//! It is longer than the house's 500 lines (about 530 of code, its tests are in `tests.rs`):
//! [`ZoneStore`] is the one owner of the zones and their history, behind one lock (the
//! generation moves on as it is taken for writing), and each edit checks its rules (the
//! provider's, the size bounds) against the data it changes and records the change in the
//! journal. Split, each part would reach into the others' state. What reads the data without
//! editing it is apart already: answering (`answer.rs`), the record types (`records.rs`), the
//! seed zones (`seed.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use chrono::{DateTime, Utc};
use domain_desk_api::local::{NewZoneRecord, ZoneRecord, ZoneRecordType};

use super::records::{
    DEFAULT_TTL, MAX_TTL, absolute_name, normalise_hostname, normalise_relative_name,
    normalise_value,
};
use crate::{Error, Result};
use domain_desk_api::ErrorCode;

fn zone_not_found(zone: &str) -> Error {
    Error::not_found(format!("The demo DNS provider has no zone {zone}."))
}

fn record_conflict(message: String) -> Error {
    Error::conflict(ErrorCode::RecordConflict, message)
}

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
    pub(super) fn visible_at(&self, as_of: Option<DateTime<Utc>>) -> bool {
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

/// The zone store shared by the DNS server, the demo provider and the verifier.
#[derive(Clone)]
pub struct ZoneStore {
    inner: Arc<RwLock<Zones>>,
    /// Bumped each time the zones are taken for writing (while the write lock is held), so an
    /// answer remembered at one value of it is known stale at any other
    /// ([`ZoneStore::generation`]).
    generation: Arc<AtomicU64>,
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

pub(super) struct Zones {
    pub(super) platform: PlatformZone,
    /// Default addresses of the projects, resolved to the edge.
    pub(super) platform_hosts: BTreeSet<String>,
    pub(super) customer: BTreeMap<String, DateTime<Utc>>,
    pub(super) records: Vec<StoredRecord>,
    /// Indexes into `records` by owner name, so a question reads only its name's records
    /// (removed records stay, for the delayed view; they are filtered by time).
    pub(super) owners: HashMap<String, Vec<usize>>,
    /// Indexes into `records` by every name a record makes exist: its owner and each name
    /// between the owner and its zone (empty non-terminals exist too).
    pub(super) existing: HashMap<String, Vec<usize>>,
    /// Bumped on every change; it is the SOA serial.
    pub(super) serial: u32,
    /// What `_domainconnect` at each customer zone's apex answers (TXT): the host of this
    /// DNS provider's Domain Connect API. `None` answers nothing there.
    pub(super) domain_connect_host: Option<String>,
    /// The validation zone under the platform's and the CA's DNS-01 tokens in it.
    pub(super) validation: ValidationTokens,
    /// The customer zones' SOA MINIMUM and SOA TTL, in seconds: how long a resolver keeps a
    /// negative answer from them (RFC 2308).
    pub(super) soa_minimum: u32,
}

/// The customer zones' SOA minimum unless told otherwise: five minutes, a common value, long
/// enough that a negative answer the platform's resolver cached is seen to last.
pub const DEFAULT_SOA_MINIMUM: u32 = crate::settings::DEFAULT_SOA_MINIMUM;

/// The platform's validation zone (`acme.<platform domain>`), where the CA publishes the TXT
/// token of each DNS-01 challenge at `<name>.<validation zone>`, the target customers'
/// `_acme-challenge` CNAMEs name. Tokens keep the virtual times they were published and
/// withdrawn, so the platform resolver's delayed view sees them late like any record. They
/// live in memory only: an attempt under way after a restart publishes a new one.
#[derive(Debug, Clone, Default)]
pub(super) struct ValidationTokens {
    /// `None` until the world names it: nothing is answered under it.
    pub(super) zone: Option<String>,
    pub(super) tokens: Vec<ValidationToken>,
}

/// One DNS-01 token as the validation zone serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ValidationToken {
    /// The TXT record's owner, `<name without *.>.<validation zone>`.
    pub(super) owner: String,
    /// The name whose certificate it validates (`*.shop.example.com` and `shop.example.com`
    /// share an owner, each with its own token).
    pub(super) order: String,
    pub(super) value: String,
    pub(super) added_at: DateTime<Utc>,
    pub(super) removed_at: Option<DateTime<Utc>>,
}

impl ValidationToken {
    pub(super) fn visible_at(&self, as_of: Option<DateTime<Utc>>) -> bool {
        match as_of {
            None => self.removed_at.is_none(),
            Some(at) => self.added_at <= at && self.removed_at.is_none_or(|removed| removed > at),
        }
    }
}

/// Most withdrawn tokens kept for the delayed view; the oldest go first.
const WITHDRAWN_TOKENS_KEPT: usize = 1_000;

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
                validation: ValidationTokens::default(),
                soa_minimum: DEFAULT_SOA_MINIMUM,
            })),
            generation: Arc::new(AtomicU64::new(0)),
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

    /// Gives the customer zones `seconds` as their SOA MINIMUM (and SOA TTL): the negative
    /// TTL resolvers keep their NXDOMAIN and NODATA answers for.
    pub fn with_soa_minimum(self, seconds: u32) -> Self {
        self.write().soa_minimum = seconds;
        self
    }

    /// Records every later change in `journal`.
    pub fn with_journal(mut self, journal: Arc<dyn ZoneJournal>) -> Self {
        self.journal = Some(journal);
        self
    }

    pub(super) fn read(&self) -> std::sync::RwLockReadGuard<'_, Zones> {
        // The data under the lock is only changed by whole-value assignments and pushes, so a
        // panic elsewhere cannot leave it half-written; reading on is sound.
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Zones> {
        let zones = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        // Bumped with the lock held: a reader that sees the new value reads the zones only
        // after this writer is done; one that saw the old value finds it changed next time.
        self.generation.fetch_add(1, Ordering::SeqCst);
        zones
    }

    /// A number that changes whenever the zones may have changed: an answer computed while it
    /// read `n` (read before the answer) holds for as long as it still reads `n`.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
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

    /// Serves `zone` (under the platform's domain, e.g. `acme.<platform domain>`) as the
    /// validation zone the CA publishes its DNS-01 tokens in.
    pub fn set_validation_zone(&self, zone: &str) {
        let mut zones = self.write();
        zones.validation.zone = Some(zone.trim_end_matches('.').to_ascii_lowercase());
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// The validation zone, once named.
    pub fn validation_zone(&self) -> Option<String> {
        self.read().validation.zone.clone()
    }

    /// Publishes `value` as the DNS-01 token validating `order` (a hostname), as TXT at
    /// `owner` in the validation zone, from `now` on; a token `order` had before is withdrawn.
    pub fn publish_validation_token(
        &self,
        owner: &str,
        order: &str,
        value: &str,
        now: DateTime<Utc>,
    ) {
        let mut zones = self.write();
        withdraw(&mut zones.validation, order, now);
        zones.validation.tokens.push(ValidationToken {
            owner: owner.trim_end_matches('.').to_ascii_lowercase(),
            order: order.to_owned(),
            value: value.to_owned(),
            added_at: now,
            removed_at: None,
        });
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// The token published for `order` and still served, with when it was published.
    pub fn validation_token(&self, order: &str) -> Option<(String, DateTime<Utc>)> {
        self.read()
            .validation
            .tokens
            .iter()
            .find(|token| token.order == order && token.removed_at.is_none())
            .map(|token| (token.value.clone(), token.added_at))
    }

    /// Withdraws `order`'s token (its challenge is over); the delayed view keeps seeing it
    /// for the propagation delay.
    pub fn withdraw_validation_token(&self, order: &str, now: DateTime<Utc>) {
        if self.validation_token(order).is_none() {
            return;
        }
        let mut zones = self.write();
        withdraw(&mut zones.validation, order, now);
        zones.serial = zones.serial.wrapping_add(1);
    }

    /// Replaces all customer zones and records (restoring from persistence or resetting).
    pub fn restore(&self, snapshot: ZoneSnapshot) {
        let mut zones = self.write();
        zones.customer = snapshot.zones.into_iter().collect();
        zones.records = snapshot.records;
        zones.validation.tokens.clear();
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
}

/// Marks `order`'s live token withdrawn at `now`, and forgets the oldest withdrawn tokens past
/// [`WITHDRAWN_TOKENS_KEPT`].
fn withdraw(validation: &mut ValidationTokens, order: &str, now: DateTime<Utc>) {
    for token in &mut validation.tokens {
        if token.order == order && token.removed_at.is_none() {
            token.removed_at = Some(now);
        }
    }
    let withdrawn = validation
        .tokens
        .iter()
        .filter(|token| token.removed_at.is_some())
        .count();
    if withdrawn > WITHDRAWN_TOKENS_KEPT {
        let mut ages: Vec<DateTime<Utc>> = validation
            .tokens
            .iter()
            .filter_map(|token| token.removed_at)
            .collect();
        ages.sort_unstable();
        let cutoff = ages[withdrawn - WITHDRAWN_TOKENS_KEPT - 1];
        let mut over = withdrawn - WITHDRAWN_TOKENS_KEPT;
        validation.tokens.retain(|token| match token.removed_at {
            Some(at) if at <= cutoff && over > 0 => {
                over -= 1;
                false
            }
            _ => true,
        });
    }
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
}

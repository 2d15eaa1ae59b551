//! The offline demo's renewal story, seeded with the demo's data so anyone can watch it:
//! `app.example.co.uk` on the Business account's site starts live with a certificate, and
//! [`EVENT_AFTER`] later (platform time) a seeded event adds `CAA 0 issue "other-ca.example"`
//! at `example.co.uk`, the way someone at a company switches CAs without asking. From then the
//! app's renewal watch warns that the renewal [`crate::ca::RENEW_BEFORE`] before expiry will
//! fail; on that date it fails as predicted (the certificate keeps being served); deleting the
//! record in Demo DNS lets the next hourly attempt renew.
//!
//! It lives in the world, not in the API seed, because it needs what only the world has: the
//! DNS target the domain's record names, the CA's issuance time and the zones the event edits.
//! Its rows are read and written through the store (`store/projects.rs`, `store/domains.rs`,
//! `store/meta.rs`): no SQL of its own.

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::local::{NewZoneRecord, ZoneRecordType};
use domain_desk_api::{Certificate, CertificateStatus, DomainRole, DomainStatus, Hostname};
use rusqlite::Connection;

use crate::store::time::{from_sql, to_sql};
use crate::store::{domains, meta, projects};
use crate::{Error, Result};

/// The seeded live domain.
pub const HOSTNAME: &str = "app.example.co.uk";
/// The account and project holding it: the Business demo account's site.
pub const ACCOUNT: &str = "acc_business";
pub const PROJECT_NAME: &str = "Business site";
/// The zone whose apex gains the forbidding CAA record.
pub const EVENT_ZONE: &str = "example.co.uk";
/// The CAA record the event adds.
pub const EVENT_CAA: &str = "0 issue \"other-ca.example\"";
/// How long after the seed the event happens (platform time).
pub const EVENT_AFTER: TimeDelta = TimeDelta::days(3);

/// `meta` key holding when the event is due; gone once it happened.
const EVENT_KEY: &str = "demo_event.renewal_caa_at";

/// Writes the live domain (its certificate due at once, so the world's first pass issues it)
/// and schedules the event. Into a freshly seeded database: the Business site exists.
pub fn seed(
    conn: &Connection,
    dns_target: &str,
    validation_zone: &str,
    issuance_time: TimeDelta,
    now: DateTime<Utc>,
) -> Result<()> {
    let Some(project_id) = projects::id_by_name(conn, ACCOUNT, PROJECT_NAME)? else {
        // A database seeded by another version: nothing to hang the story on.
        return Ok(());
    };
    let hostname = Hostname::parse(HOSTNAME).map_err(|err| Error::Corrupt(err.to_string()))?;
    let started_at = now - issuance_time;
    let mut domain = domains::new_domain(
        &hostname,
        &project_id,
        DomainRole::Primary,
        None,
        dns_target.trim_end_matches('.'),
        validation_zone,
        started_at,
    );
    domain.status = DomainStatus::Verified;
    domain.verification.checked_at = Some(started_at);
    domain.certificate = Certificate {
        status: CertificateStatus::Issuing,
        started_at: Some(started_at),
        ..Certificate::default()
    };
    if domains::get(conn, HOSTNAME)?.is_none() {
        domains::insert(conn, &domain)?;
    }
    meta::set(conn, EVENT_KEY, &to_sql(now + EVENT_AFTER))
}

/// When the event is due; `None` once it happened (or in a database without it).
pub fn event_at(conn: &Connection) -> Result<Option<DateTime<Utc>>> {
    meta::get(conn, EVENT_KEY)?
        .map(|text| from_sql(&text))
        .transpose()
}

/// Forgets the event once it happened, so a restart does not add the record again.
pub fn event_done(conn: &Connection) -> Result<()> {
    meta::delete(conn, EVENT_KEY)
}

/// The record the event adds.
pub fn event_record() -> NewZoneRecord {
    NewZoneRecord {
        name: "@".to_owned(),
        record_type: ZoneRecordType::Caa,
        value: EVENT_CAA.to_owned(),
        ttl: None,
    }
}

//! The demo DNS provider's tables (migration 2): zones and every record with the time it was
//! added and removed, so the platform resolver's delayed view and a restart see the same
//! history. [`StoreJournal`] writes each change as the zone store makes it.

use chrono::{DateTime, Utc};
use domain_desk_api::local::{ZoneRecord, ZoneRecordType};
use rusqlite::{Connection, OptionalExtension, params};

use super::Store;
use super::execute_cached;
use super::time::{from_sql, opt_from_sql, to_sql};
use crate::dns::{StoredRecord, ZoneJournal, ZoneSnapshot};
use crate::{Error, Result};

/// `meta` key set once the demo zones were written.
const ZONES_SEEDED: &str = "dns_zones_seeded";

fn record_type_to_sql(record_type: ZoneRecordType) -> &'static str {
    record_type.as_str()
}

fn record_type_from_sql(text: &str) -> Result<ZoneRecordType> {
    Ok(match text {
        "A" => ZoneRecordType::A,
        "AAAA" => ZoneRecordType::Aaaa,
        "CNAME" => ZoneRecordType::Cname,
        "ALIAS" => ZoneRecordType::Alias,
        "CAA" => ZoneRecordType::Caa,
        "TXT" => ZoneRecordType::Txt,
        other => return Err(Error::Corrupt(format!("DNS record type {other:?}"))),
    })
}

pub fn zones_seeded(conn: &Connection) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM meta WHERE key = ?1",
            params![ZONES_SEEDED],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Replaces every zone and record with `snapshot` and marks the zones seeded.
pub fn write_zones(conn: &Connection, snapshot: &ZoneSnapshot) -> Result<()> {
    execute_cached(conn, "DELETE FROM dns_records", [])?;
    execute_cached(conn, "DELETE FROM dns_zones", [])?;
    for (zone, created_at) in &snapshot.zones {
        insert_zone(conn, zone, *created_at)?;
    }
    for record in &snapshot.records {
        insert_record(conn, record)?;
    }
    execute_cached(
        conn,
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, 'yes')",
        params![ZONES_SEEDED],
    )?;
    Ok(())
}

fn insert_zone(conn: &Connection, zone: &str, created_at: DateTime<Utc>) -> Result<()> {
    execute_cached(
        conn,
        "INSERT INTO dns_zones (name, created_at) VALUES (?1, ?2)",
        params![zone, to_sql(created_at)],
    )?;
    Ok(())
}

fn insert_record(conn: &Connection, stored: &StoredRecord) -> Result<()> {
    let record = &stored.record;
    execute_cached(
        conn,
        "INSERT INTO dns_records (id, zone, name, type, value, ttl, added_at, removed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            record.id,
            stored.zone,
            record.name,
            record_type_to_sql(record.record_type),
            record.value,
            record.ttl,
            to_sql(stored.added_at),
            stored.removed_at.map(to_sql),
        ],
    )?;
    Ok(())
}

pub fn read_zones(conn: &Connection) -> Result<ZoneSnapshot> {
    let mut zones = Vec::new();
    let mut stmt = conn.prepare("SELECT name, created_at FROM dns_zones ORDER BY name")?;
    let rows = stmt
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    for (name, created_at) in rows {
        zones.push((name, from_sql(&created_at)?));
    }
    let mut stmt = conn.prepare(
        "SELECT id, zone, name, type, value, ttl, added_at, removed_at FROM dns_records ORDER BY rowid",
    )?;
    type Row = (
        String,
        String,
        String,
        String,
        String,
        u32,
        String,
        Option<String>,
    );
    let rows = stmt
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
                row.get(7)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<Row>>>()?;
    let mut records = Vec::with_capacity(rows.len());
    for (id, zone, name, record_type, value, ttl, added_at, removed_at) in rows {
        records.push(StoredRecord {
            zone,
            record: ZoneRecord {
                id,
                name,
                record_type: record_type_from_sql(&record_type)?,
                value,
                ttl,
            },
            added_at: from_sql(&added_at)?,
            removed_at: opt_from_sql(removed_at)?,
        });
    }
    Ok(ZoneSnapshot { zones, records })
}

/// Writes each zone change to the database as it happens.
pub struct StoreJournal(pub Store);

impl ZoneJournal for StoreJournal {
    fn zone_added(&self, zone: &str, created_at: DateTime<Utc>) -> Result<()> {
        self.0
            .write_blocking(|tx| insert_zone(tx, zone, created_at))
    }

    fn record_added(&self, record: &StoredRecord) -> Result<()> {
        self.0.write_blocking(|tx| insert_record(tx, record))
    }

    fn record_removed(&self, zone: &str, id: &str, removed_at: DateTime<Utc>) -> Result<()> {
        self.0.write_blocking(|tx| {
            tx.execute(
                "UPDATE dns_records SET removed_at = ?3 WHERE zone = ?1 AND id = ?2",
                params![zone, id, to_sql(removed_at)],
            )?;
            Ok(())
        })
    }

    fn records_forgotten(&self, records: &[(String, String)]) -> Result<()> {
        self.0.write_blocking(|tx| {
            let mut delete =
                tx.prepare_cached("DELETE FROM dns_records WHERE zone = ?1 AND id = ?2")?;
            for (zone, id) in records {
                delete.execute(params![zone, id])?;
            }
            Ok(())
        })
    }
}

//! Bans survive a restart: the limiter keeps its counters in memory, but a key it bans is
//! written here and read back at start-up.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};

use super::execute_cached;
use super::time::{from_sql, to_sql};
use crate::Result;

pub fn save(conn: &Connection, api_key: &str, until: DateTime<Utc>) -> Result<()> {
    execute_cached(
        conn,
        "INSERT OR REPLACE INTO bans (api_key, banned_until) VALUES (?1, ?2)",
        params![api_key, to_sql(until)],
    )?;
    Ok(())
}

/// Bans that have not ended at `now`.
pub fn active(conn: &Connection, now: DateTime<Utc>) -> Result<Vec<(String, DateTime<Utc>)>> {
    let mut stmt =
        conn.prepare("SELECT api_key, banned_until FROM bans WHERE banned_until > ?1")?;
    let rows = stmt
        .query_map(params![to_sql(now)], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(key, until)| Ok((key, from_sql(&until)?)))
        .collect()
}

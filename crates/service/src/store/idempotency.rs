//! Remembered answers to `POST` requests sent with an `Idempotency-Key`, per API key, so a
//! retried request gets the first answer again instead of acting twice.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::time::{from_sql, to_sql};
use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// Method, path and canonical body, hashed: what "the same request" means.
    pub fingerprint: String,
    pub status: u16,
    pub body: Vec<u8>,
    pub created_at: DateTime<Utc>,
}

/// The remembered answer, if one was stored after `not_before`.
pub fn get(
    conn: &Connection,
    api_key: &str,
    idempotency_key: &str,
    not_before: DateTime<Utc>,
) -> Result<Option<StoredResponse>> {
    let row = conn
        .query_row(
            "SELECT fingerprint, status, body, created_at FROM idempotency
             WHERE api_key = ?1 AND idem_key = ?2",
            params![api_key, idempotency_key],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, u16>(1)?,
                    row.get::<_, Vec<u8>>(2)?,
                    row.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((fingerprint, status, body, created_at)) = row else {
        return Ok(None);
    };
    let created_at = from_sql(&created_at)?;
    if created_at < not_before {
        return Ok(None);
    }
    Ok(Some(StoredResponse {
        fingerprint,
        status,
        body,
        created_at,
    }))
}

/// Remembers an answer, replacing an expired one under the same key.
pub fn put(
    conn: &Connection,
    api_key: &str,
    idempotency_key: &str,
    response: &StoredResponse,
) -> Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO idempotency (api_key, idem_key, fingerprint, status, body, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            api_key,
            idempotency_key,
            response.fingerprint,
            response.status,
            response.body,
            to_sql(response.created_at),
        ],
    )?;
    Ok(())
}

/// Forgets answers older than `before`.
pub fn purge(conn: &Connection, before: DateTime<Utc>) -> Result<usize> {
    Ok(conn.execute(
        "DELETE FROM idempotency WHERE created_at < ?1",
        params![to_sql(before)],
    )?)
}

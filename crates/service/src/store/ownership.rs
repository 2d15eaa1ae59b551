//! Who may take a name another account holds, and what its former owner is told.
//!
//! An ownership challenge is a random token per account and hostname with an expiry on the
//! service clock: the TXT record that carries it proves control of the name. The same token is
//! offered again until it expires, so a customer who already created the record is not sent
//! back to change it. A removal row tells a project's owner that the platform took a domain
//! away and why; adding the name back to that project forgets it.

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::{DomainRemoval, RemovalReason};
use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::random_token;
use super::time::{from_sql, to_sql};
use crate::{Error, Result};

/// How many removals a project keeps.
pub const REMOVALS_KEPT: usize = 100;

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub token: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

impl Challenge {
    pub fn is_valid_at(&self, now: DateTime<Utc>) -> bool {
        now < self.expires_at
    }
}

/// The account's challenge for `hostname`, expired or not.
pub fn challenge(conn: &Connection, account_id: &str, hostname: &str) -> Result<Option<Challenge>> {
    let row = conn
        .prepare_cached(
            "SELECT token, created_at, expires_at FROM ownership_challenges
             WHERE account_id = ?1 AND hostname = ?2",
        )?
        .query_row(params![account_id, hostname], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
        .optional()?;
    row.map(|(token, created_at, expires_at)| {
        Ok(Challenge {
            token,
            created_at: from_sql(&created_at)?,
            expires_at: from_sql(&expires_at)?,
        })
    })
    .transpose()
}

/// The account's valid challenge for `hostname`, or a new one (replacing an expired one).
pub fn current_or_new_challenge(
    conn: &Connection,
    account_id: &str,
    hostname: &str,
    now: DateTime<Utc>,
    ttl: TimeDelta,
) -> Result<Challenge> {
    if let Some(existing) = challenge(conn, account_id, hostname)? {
        if existing.is_valid_at(now) {
            return Ok(existing);
        }
    }
    let fresh = Challenge {
        token: random_token(32),
        created_at: now,
        expires_at: now + ttl,
    };
    execute_cached(
        conn,
        "INSERT INTO ownership_challenges (account_id, hostname, token, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (account_id, hostname) DO UPDATE SET
             token = excluded.token, created_at = excluded.created_at,
             expires_at = excluded.expires_at",
        params![
            account_id,
            hostname,
            fresh.token,
            to_sql(fresh.created_at),
            to_sql(fresh.expires_at)
        ],
    )?;
    Ok(fresh)
}

/// Forgets every account's challenge for `hostname` (once the name changed hands).
pub fn forget_challenges(conn: &Connection, hostname: &str) -> Result<()> {
    execute_cached(
        conn,
        "DELETE FROM ownership_challenges WHERE hostname = ?1",
        params![hostname],
    )?;
    Ok(())
}

fn reason_to_sql(reason: RemovalReason) -> &'static str {
    match reason {
        RemovalReason::OwnershipTransferred => "ownership_transferred",
        RemovalReason::Unknown => "unknown",
    }
}

fn reason_from_sql(text: &str) -> Result<RemovalReason> {
    match text {
        "ownership_transferred" => Ok(RemovalReason::OwnershipTransferred),
        other => Err(Error::Corrupt(format!("removal reason {other:?}"))),
    }
}

/// Remembers that the platform removed `removal.hostname` from the project, keeping the
/// newest [`REMOVALS_KEPT`].
pub fn record_removal(conn: &Connection, project_id: &str, removal: &DomainRemoval) -> Result<()> {
    execute_cached(
        conn,
        "INSERT INTO domain_removals (project_id, hostname, reason, message, removed_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (project_id, hostname) DO UPDATE SET
             reason = excluded.reason, message = excluded.message,
             removed_at = excluded.removed_at",
        params![
            project_id,
            removal.hostname,
            reason_to_sql(removal.reason),
            removal.message,
            to_sql(removal.removed_at)
        ],
    )?;
    execute_cached(
        conn,
        "DELETE FROM domain_removals WHERE project_id = ?1 AND hostname NOT IN (
             SELECT hostname FROM domain_removals WHERE project_id = ?1
             ORDER BY removed_at DESC, hostname LIMIT ?2)",
        params![project_id, REMOVALS_KEPT as i64],
    )?;
    Ok(())
}

/// The platform's removal of `hostname` from the project, if it has one on record.
pub fn removal(
    conn: &Connection,
    project_id: &str,
    hostname: &str,
) -> Result<Option<DomainRemoval>> {
    let row = conn
        .prepare_cached(
            "SELECT hostname, reason, message, removed_at FROM domain_removals
             WHERE project_id = ?1 AND hostname = ?2",
        )?
        .query_row(params![project_id, hostname], raw_removal)
        .optional()?;
    row.map(parse_removal).transpose()
}

/// The project's removals, newest first.
pub fn removals(conn: &Connection, project_id: &str) -> Result<Vec<DomainRemoval>> {
    let mut stmt = conn.prepare_cached(
        "SELECT hostname, reason, message, removed_at FROM domain_removals
         WHERE project_id = ?1 ORDER BY removed_at DESC, hostname",
    )?;
    let rows = stmt
        .query_map(params![project_id], raw_removal)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.into_iter().map(parse_removal).collect()
}

/// Forgets the removal of `hostname` from the project (it was added back).
pub fn forget_removal(conn: &Connection, project_id: &str, hostname: &str) -> Result<()> {
    execute_cached(
        conn,
        "DELETE FROM domain_removals WHERE project_id = ?1 AND hostname = ?2",
        params![project_id, hostname],
    )?;
    Ok(())
}

type RawRemoval = (String, String, String, String);

fn raw_removal(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawRemoval> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

fn parse_removal((hostname, reason, message, removed_at): RawRemoval) -> Result<DomainRemoval> {
    Ok(DomainRemoval {
        hostname,
        reason: reason_from_sql(&reason)?,
        message,
        removed_at: from_sql(&removed_at)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::migrations::{MIGRATIONS, migrate};

    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, MIGRATIONS).unwrap();
        conn.execute(
            "INSERT INTO accounts VALUES ('acc_a', 'A', 'pro', 1, 1, 1, '2026-01-01T00:00:00.000000Z')",
            [],
        )
        .unwrap();
        conn
    }

    #[test]
    fn a_challenge_is_offered_again_until_it_expires() {
        let conn = database();
        let now: DateTime<Utc> = "2026-03-02T10:00:00Z".parse().unwrap();
        let ttl = TimeDelta::hours(1);
        let first = current_or_new_challenge(&conn, "acc_a", "shop.example.com", now, ttl).unwrap();
        let again = current_or_new_challenge(
            &conn,
            "acc_a",
            "shop.example.com",
            now + TimeDelta::minutes(59),
            ttl,
        )
        .unwrap();
        assert_eq!(first, again);
        let later = now + ttl;
        let renewed =
            current_or_new_challenge(&conn, "acc_a", "shop.example.com", later, ttl).unwrap();
        assert_ne!(renewed.token, first.token);
        assert_eq!(renewed.expires_at, later + ttl);
        let other = current_or_new_challenge(&conn, "acc_a", "www.example.com", now, ttl).unwrap();
        assert_ne!(other.token, renewed.token);
    }
}

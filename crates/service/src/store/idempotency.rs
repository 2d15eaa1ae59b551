//! Remembered answers to `POST` requests sent with an `Idempotency-Key`, per API key, so a
//! retried request gets the first answer again instead of acting twice.
//!
//! The API key is stored as its SHA-256 hash only: this table outlives requests, and a copy of
//! the database must not hand out keys. An answer that records a change is written in the same
//! transaction as the change (see `http::idempotency`), so a crash keeps both or neither.
//!
//! An answer is found by its name through [`AnswerIndex`], a map in memory built from this
//! table and changed with it; the table itself has no index (migration 11), so remembering an
//! answer appends a row and nothing else.
//!
//! Forgetting answers (expired, or past the history's bound) is upkeep on the single writer:
//! it goes in bounded batches, each its own trip to the writer, so no request queues behind a
//! long job.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

pub use super::answer_key::AnswerKey;
use super::execute_cached;
pub use super::fast::answer_index::AnswerIndex;
use super::time::{from_sql, to_sql};
use crate::Result;

/// The SHA-256 of the method, the path and the canonical body: what "the same request" means.
pub type Fingerprint = [u8; 32];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    pub fingerprint: Fingerprint,
    pub status: u16,
    pub body: Vec<u8>,
    pub created_at: DateTime<Utc>,
}

/// An answer to remember, borrowed from the request it answers (the body is stored as the
/// bytes that are sent, not copied first).
#[derive(Debug, Clone, Copy)]
pub struct NewAnswer<'a> {
    pub fingerprint: &'a Fingerprint,
    pub status: u16,
    pub body: &'a [u8],
    /// When it was made, as [`to_sql`] writes it.
    pub created_at: &'a str,
}

/// The hex SHA-256 of an API key: how these tables name the key.
pub fn key_hash(api_key: &str) -> String {
    hex(&Sha256::digest(api_key.as_bytes()))
}

/// Lowercase hex of `bytes` (by table: two hashes of every keyed `POST` go through here, and
/// a formatter call per byte was a visible part of that).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// The remembered answer, if one was stored after `not_before`: found by its row id in
/// `answers` (the table has no index of names), then read from its row.
pub fn get(
    conn: &Connection,
    answers: &AnswerIndex,
    key: &AnswerKey,
    not_before: DateTime<Utc>,
) -> Result<Option<StoredResponse>> {
    let Some(id) = answers.find(key) else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT key, fingerprint, status, body, created_at FROM idempotency WHERE id = ?1",
    )?;
    let row = stmt
        .query_row(params![id], |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, Vec<u8>>(1)?,
                row.get::<_, u16>(2)?,
                row.get::<_, Vec<u8>>(3)?,
                row.get::<_, String>(4)?,
            ))
        })
        .optional()?;
    let Some((name, fingerprint, status, body, created_at)) = row else {
        return Ok(None);
    };
    if name != key.as_bytes() {
        return Ok(None);
    }
    let created_at = from_sql(&created_at)?;
    if created_at < not_before {
        return Ok(None);
    }
    let fingerprint = Fingerprint::try_from(fingerprint.as_slice())
        .map_err(|_| crate::Error::Corrupt("a remembered answer's fingerprint".into()))?;
    Ok(Some(StoredResponse {
        fingerprint,
        status,
        body,
        created_at,
    }))
}

/// Remembers an answer, replacing an expired one under the same key (deleted, and the new one
/// appended: rows stay in the order they were made).
pub fn put(
    conn: &Connection,
    answers: &AnswerIndex,
    key: &AnswerKey,
    answer: &NewAnswer<'_>,
) -> Result<()> {
    if let Some(earlier) = answers.find(key) {
        execute_cached(
            conn,
            "DELETE FROM idempotency WHERE id = ?1 AND key = ?2",
            params![earlier, &key.as_bytes()[..]],
        )?;
    }
    execute_cached(
        conn,
        "INSERT INTO idempotency (key, fingerprint, status, body, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            &key.as_bytes()[..],
            &answer.fingerprint[..],
            answer.status,
            answer.body,
            answer.created_at,
        ],
    )?;
    answers.put(*key, conn.last_insert_rowid());
    Ok(())
}

/// Runs a `DELETE … RETURNING id, key` and tells `answers` which rows went; says how many.
fn forget(
    conn: &Connection,
    answers: &AnswerIndex,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<usize> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    let mut forgotten = 0;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        let name = row.get_ref(1)?.as_blob().ok().map(<[u8; 16]>::try_from);
        if let Some(Ok(name)) = name {
            answers.forgot(AnswerKey::from_bytes(name), id);
        }
        forgotten += 1;
    }
    Ok(forgotten)
}

/// Forgets the answers older than `before` among the `batch` oldest by insertion, and says
/// how many it forgot: a full batch means there may be more. Bounded so that one purge never
/// holds the single writer for long, and found in the rowid tree, so no index of their age is
/// kept up on every keyed `POST` (one more B-tree to insert into and delete from; a fifth of
/// what a key added to the writer's time). Answers are appended as the clock goes, so the
/// oldest by insertion are the oldest in time; after the clock was set back, a newer answer
/// among them takes a place in each batch until it expires too (a batch forgets fewer).
/// [`get`] ignores expired answers whether purged or not, and [`keep_newest`] bounds the
/// table meanwhile.
pub fn purge(
    conn: &Connection,
    answers: &AnswerIndex,
    before: DateTime<Utc>,
    batch: usize,
) -> Result<usize> {
    forget(
        conn,
        answers,
        "DELETE FROM idempotency WHERE id IN (
             SELECT id FROM (SELECT id, created_at FROM idempotency ORDER BY id LIMIT ?2)
             WHERE created_at < ?1)
         RETURNING id, key",
        params![to_sql(before), batch as i64],
    )
}

/// Forgets at most `batch` of the oldest answers beyond the newest `keep` (over all keys), so
/// that a client sending a new `Idempotency-Key` with every request cannot grow the table
/// without end; says how many it forgot. "Newest" is by insertion: answers are appended with
/// rising ids, so the newest `keep` are those above `max(id) - keep`, found in the rowid tree
/// without walking `keep` entries. An answer replaced or purged among them leaves a gap, so
/// the table may keep a few fewer than `keep`, never more.
pub fn keep_newest(
    conn: &Connection,
    answers: &AnswerIndex,
    keep: usize,
    batch: usize,
) -> Result<usize> {
    forget(
        conn,
        answers,
        "DELETE FROM idempotency WHERE id IN (
             SELECT id FROM idempotency
             WHERE id <= (SELECT max(id) FROM idempotency) - ?1
             ORDER BY id LIMIT ?2)
         RETURNING id, key",
        params![keep as i64, batch as i64],
    )
}

/// How many answers are remembered, over all keys.
pub fn count(conn: &Connection) -> Result<usize> {
    Ok(
        conn.query_row("SELECT count(*) FROM idempotency", [], |row| {
            row.get::<_, i64>(0)
        })? as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembers `{}` under (`api`, `key`), made at `at`.
    fn put(tx: &Connection, answers: &AnswerIndex, api: &str, key: &str, at: &str) -> Result<()> {
        let at: DateTime<Utc> = at.parse().unwrap();
        super::put(
            tx,
            answers,
            &AnswerKey::new(api, key),
            &NewAnswer {
                fingerprint: &[7; 32],
                status: 201,
                body: b"{}",
                created_at: &to_sql(at),
            },
        )
    }

    fn get(
        tx: &Connection,
        answers: &AnswerIndex,
        api: &str,
        key: &str,
        not_before: DateTime<Utc>,
    ) -> Result<Option<StoredResponse>> {
        super::get(tx, answers, &AnswerKey::new(api, key), not_before)
    }

    #[test]
    fn only_the_newest_answers_are_kept() {
        let store = super::super::Store::open_in_memory().unwrap();
        let answers = store.answers().clone();
        store
            .write_blocking(|tx| {
                // a frozen clock: many answers share one instant
                for n in 0..10 {
                    put(
                        tx,
                        &answers,
                        "k1",
                        &format!("same-{n:02}"),
                        "2026-01-01T00:00:00Z",
                    )?;
                }
                put(tx, &answers, "k2", "later", "2026-01-01T00:00:01Z")?;
                let not_before = "2025-01-01T00:00:00Z".parse().unwrap();
                // in batches: at most `batch` at a time, the oldest first
                assert_eq!(keep_newest(tx, &answers, 4, 5)?, 5);
                assert!(get(tx, &answers, "k1", "same-04", not_before)?.is_none());
                assert!(get(tx, &answers, "k1", "same-05", not_before)?.is_some());
                assert_eq!(keep_newest(tx, &answers, 4, 5)?, 2);
                assert_eq!(count(tx)?, 4);
                assert!(
                    get(tx, &answers, "k2", "later", not_before)?.is_some(),
                    "the newest is kept"
                );
                assert!(get(tx, &answers, "k1", "same-09", not_before)?.is_some());
                assert!(get(tx, &answers, "k1", "same-06", not_before)?.is_none());
                assert_eq!(keep_newest(tx, &answers, 4, 5)?, 0);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn expired_answers_are_purged_oldest_first_in_batches() {
        let store = super::super::Store::open_in_memory().unwrap();
        let answers = store.answers().clone();
        store
            .write_blocking(|tx| {
                for n in 0..5 {
                    put(
                        tx,
                        &answers,
                        "k",
                        &format!("old-{n}"),
                        &format!("2026-01-01T00:00:0{n}Z"),
                    )?;
                }
                put(tx, &answers, "k", "fresh", "2026-01-02T00:00:00Z")?;
                let before = "2026-01-01T12:00:00Z".parse().unwrap();
                let not_before = "2025-01-01T00:00:00Z".parse().unwrap();
                assert_eq!(purge(tx, &answers, before, 2)?, 2);
                assert!(get(tx, &answers, "k", "old-1", not_before)?.is_none());
                assert!(
                    get(tx, &answers, "k", "old-2", not_before)?.is_some(),
                    "oldest first"
                );
                assert_eq!(purge(tx, &answers, before, 2)?, 2);
                assert_eq!(
                    purge(tx, &answers, before, 2)?,
                    1,
                    "fewer than a batch: none left"
                );
                assert_eq!(purge(tx, &answers, before, 2)?, 0);
                assert!(get(tx, &answers, "k", "fresh", not_before)?.is_some());
                assert_eq!(count(tx)?, 1);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_purge_looks_only_at_the_oldest_batch_by_insertion_and_keeps_no_age_index() {
        let store = super::super::Store::open_in_memory().unwrap();
        let answers = store.answers().clone();
        store
            .write_blocking(|tx| {
                // the clock was set forward, then back: the first answer is the newest in time
                put(tx, &answers, "k", "ahead", "2026-01-03T00:00:00Z")?;
                for n in 0..3 {
                    put(
                        tx,
                        &answers,
                        "k",
                        &format!("old-{n}"),
                        &format!("2026-01-01T00:00:0{n}Z"),
                    )?;
                }
                let before = "2026-01-01T12:00:00Z".parse().unwrap();
                // the oldest two by insertion, the answer ahead among them: one expired
                assert!(
                    get(tx, &answers, "k", "old-1", before)?.is_none(),
                    "never replayed"
                );
                assert_eq!(purge(tx, &answers, before, 2)?, 1);
                assert_eq!(purge(tx, &answers, before, 2)?, 1);
                assert_eq!(count(tx)?, 2);
                assert_eq!(purge(tx, &answers, before, 2)?, 1);
                assert_eq!(purge(tx, &answers, before, 2)?, 0);
                assert!(get(tx, &answers, "k", "ahead", before)?.is_some());
                let age_indexes: i64 = tx.query_row(
                    "SELECT count(*) FROM sqlite_master
                     WHERE type = 'index' AND tbl_name = 'idempotency' AND sql LIKE '%created_at%'",
                    [],
                    |row| row.get(0),
                )?;
                assert_eq!(age_indexes, 0, "an index every keyed POST would keep up");
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_answer_remembered_by_a_transaction_that_rolls_back_is_not_indexed() {
        let store = super::super::Store::open_in_memory().unwrap();
        let answers = store.answers().clone();
        let at = "2026-01-01T00:00:00Z";
        let failed = store.write_blocking(|tx| {
            put(tx, &answers, "k", "failed", at)?;
            Err::<(), _>(crate::Error::Internal("a later step failed".into()))
        });
        assert!(failed.is_err());
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.write_blocking(|tx| -> Result<()> {
                put(tx, &answers, "k", "panicked", at)?;
                panic!("a bug after the answer was remembered");
            })
        }));
        assert!(panicked.is_err());
        for gone in ["failed", "panicked"] {
            assert_eq!(answers.find(&AnswerKey::new("k", gone)), None, "{gone}");
        }
        assert!(answers.is_empty());
        store
            .write_blocking(|tx| put(tx, &answers, "k", "kept", at))
            .unwrap();
        assert_eq!(answers.len(), 1);
        let not_before = "2025-01-01T00:00:00Z".parse().unwrap();
        store
            .write_blocking(|tx| {
                // the rolled-back rows' ids were given to this one: it answers for itself only
                assert!(get(tx, &answers, "k", "kept", not_before)?.is_some());
                assert!(get(tx, &answers, "k", "failed", not_before)?.is_none());
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn an_expired_answer_is_replaced_by_a_row_appended_after_the_others() {
        let store = super::super::Store::open_in_memory().unwrap();
        let answers = store.answers().clone();
        store
            .write_blocking(|tx| {
                put(tx, &answers, "k", "again", "2026-01-01T00:00:00Z")?;
                put(tx, &answers, "k", "other", "2026-01-01T00:00:01Z")?;
                put(tx, &answers, "k", "again", "2026-01-03T00:00:00Z")?;
                Ok(())
            })
            .unwrap();
        assert_eq!(answers.len(), 2);
        let not_before = "2026-01-02T00:00:00Z".parse().unwrap();
        store
            .write_blocking(|tx| {
                let again = get(tx, &answers, "k", "again", not_before)?.expect("replaced");
                assert_eq!(
                    again.created_at,
                    "2026-01-03T00:00:00Z".parse::<DateTime<Utc>>().unwrap()
                );
                assert_eq!(count(tx)?, 2, "the expired row is gone");
                // the newest by insertion is the replacement: keeping one keeps it
                assert_eq!(keep_newest(tx, &answers, 1, 10)?, 1);
                assert!(get(tx, &answers, "k", "again", not_before)?.is_some());
                Ok(())
            })
            .unwrap();
        assert_eq!(answers.len(), 1);
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff, 0x5c]), "000fa0ff5c");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn keys_are_stored_as_hashes() {
        let hash = key_hash("dd_live_secret");
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains("secret"));
        assert_ne!(hash, key_hash("dd_live_secreT"));
    }
}

//! Where each remembered answer's row is, by its name, kept in memory: the answers' table has
//! no index of its own (migration 11).
//!
//! With the unique index `idempotency_by_key`, a keyed `POST` looked its name up in a B-tree of
//! up to 100,000 random 16-byte names, inserted into it and, past the bound, deleted from it:
//! each time at a random leaf, on the single writer, so each was a page found, read, journaled
//! and written back at commit, a cost the same `POST` without a key does not have. Here the
//! lookup is a hash-map probe, and the table is only appended to and trimmed at its oldest
//! end, pages the writer already holds.
//!
//! The map is derived from the table: built from it when the store opens ([`AnswerIndex::load`])
//! and changed only with it. A write transaction's changes wait beside the map and reach it when
//! that transaction commits, or are dropped when it rolls back (`Store::write_blocking`),
//! so the map is always the committed table. A lookup inside a transaction sees that
//! transaction's own changes. (A name missing from the map would let a retry act twice; a name
//! left over would only send a lookup to a row that is not there, and a found row is checked
//! to carry the name.)

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;

use crate::Result;
use crate::store::answer_key::AnswerKey;

/// Remembered answers' rows by name: the committed ones, and the open transaction's changes.
#[derive(Debug, Default)]
pub struct AnswerIndex {
    rows: Mutex<Rows>,
    /// The open write transaction changed some answer: its commit or rollback has work to do.
    /// Writes that touch no answer pay one atomic load.
    touched: AtomicBool,
}

#[derive(Debug, Default)]
struct Rows {
    committed: HashMap<AnswerKey, i64>,
    /// The open write transaction's changes, in order.
    pending: Vec<Change>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// The answer under this name is now the row with this id.
    Put(AnswerKey, i64),
    /// The row with this id was deleted.
    Forgot(AnswerKey, i64),
}

impl Change {
    /// `at`, the row under `key` before this change, after it.
    fn apply(self, key: &AnswerKey, at: Option<i64>) -> Option<i64> {
        match self {
            Change::Put(name, id) if name == *key => Some(id),
            Change::Forgot(name, id) if name == *key && at == Some(id) => None,
            _ => at,
        }
    }
}

impl AnswerIndex {
    /// The index of the answers in `conn`'s table, read in insertion order (should a name be
    /// there twice, the newer row is the answer).
    pub fn load(conn: &Connection) -> Result<Self> {
        let mut committed = HashMap::new();
        let mut stmt = conn.prepare("SELECT id, key FROM idempotency ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            // a name that is not 16 bytes is no answer's: nothing can look it up
            let name = row.get_ref(1)?.as_blob().ok().map(<[u8; 16]>::try_from);
            if let Some(Ok(name)) = name {
                committed.insert(AnswerKey::from_bytes(name), id);
            }
        }
        Ok(Self {
            rows: Mutex::new(Rows {
                committed,
                pending: Vec::new(),
            }),
            touched: AtomicBool::new(false),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Rows> {
        self.rows.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The id of the row that holds the answer under `key`, as the open transaction sees it.
    pub fn find(&self, key: &AnswerKey) -> Option<i64> {
        let rows = self.lock();
        rows.pending
            .iter()
            .fold(rows.committed.get(key).copied(), |at, change| {
                change.apply(key, at)
            })
    }

    /// The open transaction inserted the answer under `key` as row `id`.
    pub fn put(&self, key: AnswerKey, id: i64) {
        self.change(Change::Put(key, id));
    }

    /// The open transaction deleted row `id`, the answer under `key`.
    pub fn forgot(&self, key: AnswerKey, id: i64) {
        self.change(Change::Forgot(key, id));
    }

    fn change(&self, change: Change) {
        self.lock().pending.push(change);
        self.touched.store(true, Ordering::Release);
    }

    /// The open transaction committed: its changes are the table's now.
    pub fn commit(&self) {
        if !self.touched.swap(false, Ordering::AcqRel) {
            return;
        }
        let mut rows = self.lock();
        let Rows { committed, pending } = &mut *rows;
        for change in pending.drain(..) {
            match change {
                Change::Put(key, id) => {
                    committed.insert(key, id);
                }
                Change::Forgot(key, id) => {
                    if committed.get(&key) == Some(&id) {
                        committed.remove(&key);
                    }
                }
            }
        }
    }

    /// The open transaction rolled back: its changes never happened.
    pub fn roll_back(&self) {
        if self.touched.swap(false, Ordering::AcqRel) {
            self.lock().pending.clear();
        }
    }

    /// How many answers the committed table holds.
    pub fn len(&self) -> usize {
        self.lock().committed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: u8) -> AnswerKey {
        AnswerKey::from_bytes([n; 16])
    }

    #[test]
    fn changes_reach_the_map_only_when_their_transaction_commits() {
        let index = AnswerIndex::default();
        index.put(name(1), 10);
        assert_eq!(
            index.find(&name(1)),
            Some(10),
            "the transaction sees its own put"
        );
        assert!(index.is_empty(), "not committed yet");
        index.roll_back();
        assert_eq!(index.find(&name(1)), None, "rolled back");

        index.put(name(1), 11);
        index.put(name(2), 12);
        index.commit();
        assert_eq!((index.find(&name(1)), index.len()), (Some(11), 2));

        // replaced (an expired answer) and forgotten in one transaction, then rolled back
        index.put(name(1), 13);
        index.forgot(name(2), 12);
        assert_eq!(
            (index.find(&name(1)), index.find(&name(2))),
            (Some(13), None)
        );
        index.roll_back();
        assert_eq!(
            (index.find(&name(1)), index.find(&name(2))),
            (Some(11), Some(12))
        );

        index.forgot(name(2), 12);
        index.commit();
        assert_eq!((index.find(&name(2)), index.len()), (None, 1));
    }

    #[test]
    fn forgetting_an_older_row_keeps_the_newer_answer_under_that_name() {
        let index = AnswerIndex::default();
        index.put(name(1), 1);
        index.commit();
        index.put(name(1), 5);
        index.forgot(name(1), 1);
        assert_eq!(index.find(&name(1)), Some(5));
        index.commit();
        assert_eq!(index.find(&name(1)), Some(5));
    }

    #[test]
    fn the_index_is_read_from_the_table_newest_row_last() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE idempotency (id INTEGER PRIMARY KEY, key BLOB NOT NULL);
             INSERT INTO idempotency VALUES (1, zeroblob(16)), (2, x'01'), (3, zeroblob(16)),
                                            (4, randomblob(16));",
        )
        .unwrap();
        let index = AnswerIndex::load(&conn).unwrap();
        assert_eq!(index.len(), 2, "the one-byte name is no answer's");
        assert_eq!(index.find(&AnswerKey::from_bytes([0; 16])), Some(3));
    }
}

//! The service's state in one SQLite database.
//!
//! One connection behind a mutex: every change is a transaction that is committed (with WAL
//! and `synchronous=FULL`, so it is on disk) before the handler answers, which is what makes
//! kill -9 lose nothing acknowledged. Work runs on tokio's blocking pool so a slow fsync never
//! stalls the async workers. The schema is versioned from the start (see [`migrations`]).

pub mod accounts;
pub mod bans;
pub mod deploys;
pub mod domains;
pub mod idempotency;
pub mod migrations;
pub mod projects;
pub mod seed;
pub mod time;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, Transaction};

use crate::{Error, Result};

/// A handle to the database; clones share the one connection.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

impl Store {
    /// Opens (or creates) the database file and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let conn = Connection::open(path)?;
        // WAL lets readers proceed during a write; FULL syncs the WAL on every commit, so a
        // committed change survives a crash or power loss.
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Schema(format!(
                "the database refused WAL mode (got {mode})"
            )));
        }
        Self::configure(conn)
    }

    /// A private in-memory database with the full schema, for tests and `--memory`.
    pub fn open_in_memory() -> Result<Self> {
        Self::configure(Connection::open_in_memory()?)
    }

    fn configure(mut conn: Connection) -> Result<Self> {
        conn.execute_batch(
            "PRAGMA synchronous = FULL;
             PRAGMA foreign_keys = ON;
             PRAGMA busy_timeout = 5000;",
        )?;
        migrations::migrate(&mut conn, migrations::MIGRATIONS)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Runs `work` with the connection on the blocking pool.
    pub async fn run<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.run_blocking(work)).await?
    }

    /// Runs `work` in one transaction on the blocking pool; it is committed (durably) before
    /// this returns, and rolled back if `work` fails.
    pub async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T> + Send + 'static,
    {
        self.run(|conn| {
            let tx = conn.transaction()?;
            let value = work(&tx)?;
            tx.commit()?;
            Ok(value)
        })
        .await
    }

    /// Runs `work` with the connection on the calling thread (start-up, tests).
    pub fn run_blocking<T>(&self, work: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        // A panic while the lock was held cannot leave SQLite half-written: the open
        // transaction is rolled back when its guard drops, so the connection stays usable.
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        work(&mut conn)
    }

    /// Like [`Store::write`], on the calling thread.
    pub fn write_blocking<T>(&self, work: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        self.run_blocking(|conn| {
            let tx = conn.transaction()?;
            let value = work(&tx)?;
            tx.commit()?;
            Ok(value)
        })
    }
}

/// A random identifier with a readable prefix: `prj_k3v9…`.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_token(16))
}

/// Random lowercase letters and digits.
pub fn random_token(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect()
}

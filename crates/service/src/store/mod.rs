//! The service's state in one SQLite database, and the only module that speaks SQL.
//!
//! One writer connection and a small pool of readers over the same database. Every change is
//! one transaction on the writer, committed (WAL and `synchronous=FULL` for a file, so it is on
//! disk) before the handler answers, which is what makes kill -9 lose nothing acknowledged.
//! Readers see the last committed state and never wait for the writer (WAL). No SQLite call on
//! a file runs on an async worker, so neither a slow fsync nor a long query stalls them: writes
//! run on the writer's own thread, which takes them one after another from a queue, and reads
//! on tokio's blocking pool; statements are prepared once per connection (`prepare_cached`).
//! The schema is versioned from the start (see [`migrations`]).
//!
//! `--memory` uses SQLite's in-memory `memdb` VFS under a private name, with the same pool of
//! readers. It has no WAL: a reader is refused while a write transaction commits, and a commit
//! waits for the readers under way. Both are over in microseconds in memory, so every
//! connection waits for a lock by yielding and retrying ([`wait_for_lock`]), not with SQLite's
//! default busy handler, which sleeps a millisecond and more (reads used to go through the
//! writer's thread for that reason, one at a time: a fifth of bare axum's rate, p99 up to 20
//! ms under load). Nothing there waits on a disk, so its reads run where they are asked for,
//! on the calling task's thread: handing each to the blocking pool (a thread woken, then the
//! task woken back) cost more than the read itself on two cores.

pub mod accounts;
pub mod answer_key;
pub mod bans;
pub mod certificates;
pub mod deploys;
pub mod domains;
pub mod fast;
pub mod idempotency;
pub mod meta;
pub mod migrations;
pub mod ownership;
pub mod page;
pub mod projects;
pub mod seed;
pub mod time;
pub mod zones;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags, Transaction};
use tokio::sync::Semaphore;

use self::fast::answer_index::AnswerIndex;
use crate::{Error, Result};

/// How many read-only connections serve reads side by side (file databases, in WAL mode).
pub const READERS: usize = 4;

/// A handle to the database; clones share the writer and the readers.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Mutex<Connection>,
    /// Idle reader connections; a permit of `reader_permits` guarantees one is there.
    readers: Mutex<Vec<Connection>>,
    reader_permits: Arc<Semaphore>,
    /// The writer's own thread: [`Store::write`] hands it its work, which it runs one after
    /// another on the writer's connection.
    writer_jobs: std::sync::mpsc::Sender<WriterJob>,
    /// Counts committed write transactions: a cache that saw generation `n` is current while
    /// it is still `n`.
    generation: AtomicU64,
    /// Reads run on the calling task's thread (the in-memory store: nothing there waits on a
    /// disk) rather than on tokio's blocking pool.
    reads_in_place: bool,
    /// Where each remembered answer's row is (the answers' table has no index): changed with
    /// the table, by the transaction that changes it.
    answers: Arc<AnswerIndex>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}

/// Work for the writer's thread: runs on it and sends its own result back.
type WriterJob = Box<dyn FnOnce() + Send>;

/// The writer's thread: runs each job in turn until every [`Store`] is gone.
///
/// Writes used to go to tokio's blocking pool, a thread each, where they queued on the
/// writer's mutex: with thirty-two requests writing at once there were as many threads parked
/// on it, and each commit woke the next one, so the kernel's thread switches cost more than the
/// writes. One thread that takes the next job as soon as it is done keeps the writer busy with
/// no hand-over between writes. A job that panics is caught here (its caller hears that its
/// answer was lost), so the thread stays for the next one.
fn run_writer_jobs(jobs: std::sync::mpsc::Receiver<WriterJob>) {
    while let Ok(job) = jobs.recv() {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
            tracing::error!("a database write panicked; it was rolled back");
        }
    }
}

/// Where a database lives, as SQLite opens it.
enum Location {
    File(std::path::PathBuf),
    /// A `memdb` URI shared by the connections of this process.
    Memory(String),
}

impl Location {
    fn open(&self) -> Result<Connection> {
        Ok(match self {
            Location::File(path) => Connection::open(path)?,
            Location::Memory(uri) => Connection::open_with_flags(
                uri,
                OpenFlags::SQLITE_OPEN_READ_WRITE
                    | OpenFlags::SQLITE_OPEN_CREATE
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?,
        })
    }
}

impl Store {
    /// Opens (or creates) the database file and brings its schema up to date. On Unix the
    /// folder it is created in is private to the user (0700) and the files are 0600: the
    /// database holds the demo keys and the local CA's private key.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir(parent)?;
        }
        let location = Location::File(path.to_owned());
        let writer = location.open()?;
        // WAL lets readers proceed during a write; FULL syncs the WAL on every commit, so a
        // committed change survives a crash or power loss.
        let mode: String = writer.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Schema(format!(
                "the database refused WAL mode (got {mode})"
            )));
        }
        let store = Self::configure(
            &location,
            writer,
            "PRAGMA synchronous = FULL;",
            READERS,
            false,
        )?;
        restrict_files(path);
        Ok(store)
    }

    /// A private in-memory database with the full schema, for tests and `--memory`.
    pub fn open_in_memory() -> Result<Self> {
        let location = Location::Memory(format!(
            "file:/domain-desk-{}?vfs=memdb",
            uuid::Uuid::new_v4().simple()
        ));
        let writer = location.open()?;
        // Nothing here outlives the process: no fsync, the rollback journal in memory.
        Self::configure(
            &location,
            writer,
            "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;",
            READERS,
            true,
        )
    }

    fn configure(
        location: &Location,
        mut writer: Connection,
        durability: &str,
        reader_count: usize,
        reads_in_place: bool,
    ) -> Result<Self> {
        writer.execute_batch(durability)?;
        writer.execute_batch("PRAGMA foreign_keys = ON;")?;
        writer.busy_handler(Some(wait_for_lock))?;
        writer.set_prepared_statement_cache_capacity(64);
        migrations::migrate(&mut writer, migrations::MIGRATIONS)?;
        let answers = Arc::new(AnswerIndex::load(&writer)?);
        let mut readers = Vec::with_capacity(reader_count);
        for _ in 0..reader_count {
            let reader = location.open()?;
            reader.execute_batch("PRAGMA query_only = ON;")?;
            reader.busy_handler(Some(wait_for_lock))?;
            reader.set_prepared_statement_cache_capacity(64);
            readers.push(reader);
        }
        let (writer_jobs, jobs) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("database writer".into())
            .spawn(move || run_writer_jobs(jobs))?;
        Ok(Self {
            inner: Arc::new(Inner {
                writer_jobs,
                writer: Mutex::new(writer),
                readers: Mutex::new(readers),
                reader_permits: Arc::new(Semaphore::new(reader_count)),
                generation: AtomicU64::new(0),
                reads_in_place,
                answers,
            }),
        })
    }

    /// Where the remembered answers' rows are; see [`fast::answer_index`].
    pub fn answers(&self) -> &Arc<AnswerIndex> {
        &self.inner.answers
    }

    /// The number of write transactions committed so far.
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Acquire)
    }

    /// Runs `work` on a reader connection; it sees the last committed state and cannot write.
    /// A file database reads on tokio's blocking pool (a read may wait on the disk); the
    /// in-memory one reads right here, on the calling task's thread.
    pub async fn read<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        let permit = self
            .inner
            .reader_permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Error::Internal("the reader pool is closed".into()))?;
        if self.inner.reads_in_place {
            let _permit = permit;
            return self.with_reader(work);
        }
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            store.with_reader(work)
        })
        .await?
    }

    /// Like [`Store::read`], on the calling thread (start-up, blocking code). Uses an idle
    /// reader, or the writer when every reader is busy.
    pub fn read_blocking<T>(&self, work: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        match self.inner.reader_permits.try_acquire() {
            Ok(_permit) => self.with_reader(work),
            Err(_) => self.on_writer(work),
        }
    }

    /// A read on the writer's connection, outside any transaction.
    fn on_writer<T>(&self, work: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self
            .inner
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        work(&conn)
    }

    /// Runs `work` on an idle reader; the caller holds a permit, so one is there.
    fn with_reader<T>(&self, work: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self
            .inner
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .ok_or_else(|| Error::Internal("no idle reader despite a permit".into()))?;
        // The connection goes back even if `work` fails or panics half-way: a read leaves
        // nothing to undo.
        struct Return<'a>(&'a Store, Option<Connection>);
        impl Drop for Return<'_> {
            fn drop(&mut self) {
                if let Some(conn) = self.1.take() {
                    self.0
                        .inner
                        .readers
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(conn);
                }
            }
        }
        let guard = Return(self, Some(conn));
        let conn = guard
            .1
            .as_ref()
            .ok_or_else(|| Error::Internal("reader gone".into()))?;
        work(conn)
    }

    /// Runs `work` in one transaction on the writer, on the writer's thread; it is committed
    /// (durably) before this returns, and rolled back if `work` fails or panics.
    pub async fn write<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        self.on_writer_thread(move || store.write_blocking(work))
            .await
    }

    /// Runs `work` on the writer's thread and waits for its result.
    async fn on_writer_thread<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: WriterJob = Box::new(move || {
            // the caller may have gone (a dropped request): the work is done all the same
            let _ = answer.send(work());
        });
        self.inner
            .writer_jobs
            .send(job)
            .map_err(|_| Error::Internal("the database writer has stopped".into()))?;
        answered
            .await
            .map_err(|_| Error::Internal("the database write was lost (it panicked)".into()))?
    }

    /// Like [`Store::write`], on the calling thread.
    pub fn write_blocking<T>(&self, work: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        // A panic while the lock was held cannot leave SQLite half-written: the open
        // transaction is rolled back when its guard drops, so the connection stays usable.
        let mut conn = self
            .inner
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let tx = conn.transaction()?;
        // The answers' index takes this transaction's changes only if it commits (when `work`
        // fails, panics or the commit fails, the guard drops them).
        let answers = AnswersSettle(&self.inner.answers);
        let value = work(&tx)?;
        tx.commit()?;
        answers.committed();
        self.inner.generation.fetch_add(1, Ordering::AcqRel);
        Ok(value)
    }
}

/// Settles the open write transaction's changes to the answers' index: applied by
/// [`AnswersSettle::committed`], dropped if the guard goes without it.
struct AnswersSettle<'a>(&'a AnswerIndex);

impl AnswersSettle<'_> {
    fn committed(self) {
        self.0.commit();
        std::mem::forget(self);
    }
}

impl Drop for AnswersSettle<'_> {
    fn drop(&mut self) {
        self.0.roll_back();
    }
}

/// How long a connection waits for a lock another holds before its statement fails with
/// `SQLITE_BUSY` (as `busy_timeout = 5000` did).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Tries before a waiting connection starts to sleep between tries.
const LOCK_YIELDS: i32 = 200;

/// The pause between tries after the first [`LOCK_YIELDS`].
const LOCK_PAUSE: std::time::Duration = std::time::Duration::from_micros(50);

/// SQLite's busy handler for every connection: called with the number of earlier tries, true
/// to try again. Locks are held for microseconds here (a write transaction in memory, a read
/// under way in `memdb`; WAL readers never wait), so it first yields the thread and tries
/// again, then sleeps 50 µs a try, and gives up after about [`LOCK_WAIT`]. SQLite's own
/// handler sleeps 1, 2, 5, 10… ms, far longer than any lock here is held.
fn wait_for_lock(tries: i32) -> bool {
    if tries < LOCK_YIELDS {
        std::thread::yield_now();
        return true;
    }
    let slept = LOCK_PAUSE * u32::try_from(tries - LOCK_YIELDS).unwrap_or(u32::MAX);
    if slept >= LOCK_WAIT {
        return false;
    }
    std::thread::sleep(LOCK_PAUSE);
    true
}

/// `conn.execute(sql, params)` with the statement kept prepared on the connection. Preparing
/// a statement parses it and, for a write on `domains`, compiles its triggers: with every write
/// preparing its statements anew, that was a sixth of the writer's thread (perf, a keyed POST
/// run).
pub(crate) fn execute_cached(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<usize> {
    Ok(conn.prepare_cached(sql)?.execute(params)?)
}

/// Creates `dir` (and its parents); on Unix a folder this creates is 0700.
fn create_private_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Makes the database and its WAL files readable by the user only (Unix).
fn restrict_files(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut names = vec![path.to_owned()];
        for suffix in ["-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            names.push(name.into());
        }
        for name in names.iter().filter(|name| name.exists()) {
            if let Err(error) =
                std::fs::set_permissions(name, std::fs::Permissions::from_mode(0o600))
            {
                tracing::warn!(%error, file = %name.display(), "could not make a database file private");
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_rows(store: &Store) -> i64 {
        store
            .read_blocking(|conn| {
                Ok(conn.query_row("SELECT count(*) FROM scratch", [], |row| row.get(0))?)
            })
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_from_many_tasks_each_commit_once_on_the_writers_thread() {
        let store = Store::open_in_memory().unwrap();
        store
            .write(|tx| Ok(tx.execute_batch("CREATE TABLE scratch (n INTEGER)")?))
            .await
            .unwrap();
        let before = store.generation();
        let writes: Vec<_> = (0..64)
            .map(|n| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .write(move |tx| Ok(tx.execute("INSERT INTO scratch VALUES (?1)", [n])?))
                        .await
                })
            })
            .collect();
        for write in writes {
            assert_eq!(write.await.unwrap().unwrap(), 1);
        }
        assert_eq!(scratch_rows(&store), 64);
        assert_eq!(store.generation() - before, 64);
        let threads: Vec<String> = futures::future::join_all((0..4).map(|_| {
            let store = store.clone();
            async move {
                store
                    .write(|_| Ok(std::thread::current().name().map(str::to_owned)))
                    .await
                    .unwrap()
                    .unwrap_or_default()
            }
        }))
        .await;
        assert!(
            threads.iter().all(|name| name == "database writer"),
            "{threads:?}"
        );
    }

    /// The thread `store.read` runs its work on.
    async fn read_thread(store: &Store) -> std::thread::ThreadId {
        store
            .read(|_| Ok(std::thread::current().id()))
            .await
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn memory_reads_run_in_place_and_file_reads_on_the_blocking_pool() {
        let memory = Store::open_in_memory().unwrap();
        let here =
            tokio::spawn(async move { (std::thread::current().id(), read_thread(&memory).await) });
        let (caller, reader) = here.await.unwrap();
        assert_eq!(caller, reader, "an in-memory read left the calling thread");

        let dir = tempfile::tempdir().unwrap();
        let file = Store::open(&dir.path().join("state.db")).unwrap();
        let elsewhere =
            tokio::spawn(async move { (std::thread::current().id(), read_thread(&file).await) });
        let (caller, reader) = elsewhere.await.unwrap();
        assert_ne!(caller, reader, "a file read ran on an async worker");
    }

    #[tokio::test]
    async fn a_write_that_panics_is_rolled_back_and_the_writer_takes_the_next() {
        let store = Store::open_in_memory().unwrap();
        store
            .write(|tx| Ok(tx.execute_batch("CREATE TABLE scratch (n INTEGER)")?))
            .await
            .unwrap();
        let lost = store
            .write(|tx| -> Result<()> {
                tx.execute("INSERT INTO scratch VALUES (1)", [])?;
                panic!("a bug half-way through a write");
            })
            .await;
        assert!(matches!(lost, Err(Error::Internal(_))), "{lost:?}");
        assert_eq!(
            scratch_rows(&store),
            0,
            "the half-done write was rolled back"
        );
        store
            .write(|tx| Ok(tx.execute("INSERT INTO scratch VALUES (2)", [])?))
            .await
            .expect("the writer's thread survived the panic");
        assert_eq!(scratch_rows(&store), 1);
        let rows = store
            .read(|conn| {
                Ok(conn.query_row("SELECT n FROM scratch", [], |row| row.get::<_, i64>(0))?)
            })
            .await
            .unwrap();
        assert_eq!(rows, 2);
    }
}

//! One budget per key for every process on the machine.
//!
//! The platform counts requests per key, and the app, the command line and a second window
//! are separate processes with a queue each. Each would think it owns the key's windows and
//! together they would overrun them. So the queues of one key share a small ledger file in
//! the data directory: the lowest `Remaining` any of them was told in each window, the
//! window's reset (as wall-clock time, which every process on the machine reads alike), the
//! requests on the wire (one lease per request, for all processes), and a pause after a 429.
//! Before a counted request leaves, and when its answer arrives, the queue takes an exclusive
//! OS advisory lock on the file, folds the ledger into its own budget
//! ([`crate::budget::Budget::merge`]), makes its decision, writes the result back and lets go:
//! the same reasoning as inside one process ("what the platform last reported, minus what is
//! on the wire") now counts every process's requests.
//!
//! A crashed process never blocks the others: the OS releases its lock when it dies, its
//! leases lapse (at once on Linux, where a lease whose process is gone is dropped; elsewhere
//! after [`LEASE`]), and a ledger that cannot be read is started afresh. A process that holds
//! the lock and does not let go (stopped in a debugger) only delays the others' decisions:
//! after [`LOCK_PATIENCE`] they act on what they know themselves.
//!
//! The file is named by a SHA-256 of the platform address and the key, so the key itself is
//! never written anywhere.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use domain_desk_api::RateWindow;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::budget::Window;
use crate::clock::WallClock;
use crate::error::{Error, Result};
use crate::secret::ApiKey;

/// How long a request on the wire is counted for another process when its owner never says
/// it was answered (longer than any request may take).
pub(crate) const LEASE: Duration = Duration::from_secs(120);

/// How long a queue waits for another process to let go of the ledger before it decides on
/// its own.
pub(crate) const LOCK_PATIENCE: Duration = Duration::from_millis(500);

/// Added to a reset another process measured: the processes' wall clocks are read at
/// slightly different moments, and a reset must never be taken as earlier than it is.
pub(crate) const RESET_MARGIN: Duration = Duration::from_millis(1);

/// The ledger file of `api_key` on `base_url` under `dir`.
pub fn ledger_path(dir: &Path, base_url: &str, api_key: &ApiKey) -> PathBuf {
    let mut hash = Sha256::new();
    hash.update(base_url.trim_end_matches('/').as_bytes());
    hash.update([0]);
    hash.update(api_key.expose().as_bytes());
    let digest = hash.finalize();
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("budget-{name}.json"))
}

/// One window as the ledger keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct SharedWindow {
    pub limit: u64,
    pub reported: u64,
    pub reset_unix: Option<i64>,
    /// The reset as wall-clock microseconds since the Unix epoch (never earlier than the real
    /// one).
    pub reset_at_us: Option<i64>,
    pub learned: bool,
}

impl SharedWindow {
    /// A window of this queue's budget, for the ledger.
    pub fn export(window: &Window, clock: &WallClock) -> Self {
        Self {
            limit: window.limit,
            reported: window.reported,
            reset_unix: window.reset_unix,
            reset_at_us: window.reset_at.map(|at| clock.micros(at)),
            learned: window.learned,
        }
    }

    /// The ledger's window as this queue's budget holds one, its reset [`RESET_MARGIN`]
    /// later (to be merged with [`crate::budget::Budget::merge`]).
    pub fn import(&self, kind: RateWindow, clock: &WallClock) -> Window {
        Window {
            kind,
            limit: self.limit,
            reported: self.reported,
            reset_unix: self.reset_unix,
            reset_at: self
                .reset_at_us
                .map(|us| clock.instant_at_micros(us) + RESET_MARGIN),
            learned: self.learned,
        }
    }
}

/// A request on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Lease {
    pub pid: u32,
    /// Which queue of that process (a process can run several on one key in tests).
    pub queue: u64,
    pub id: u64,
    pub expires_us: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Ledger {
    pub minute: Option<SharedWindow>,
    pub day: Option<SharedWindow>,
    #[serde(default)]
    pub in_flight: Vec<Lease>,
    /// Nothing is sent before this (wall-clock microseconds), after a 429 to any process.
    pub paused_until_us: Option<i64>,
}

impl Ledger {
    /// Drops the leases that ran out or whose process is gone.
    pub fn drop_stale(&mut self, now_us: i64) {
        self.in_flight
            .retain(|lease| lease.expires_us > now_us && process_alive(lease.pid));
    }

    /// The request `id` of queue `queue` in process `pid` was answered.
    pub fn release(&mut self, pid: u32, queue: u64, id: u64) {
        self.in_flight
            .retain(|l| !(l.pid == pid && l.queue == queue && l.id == id));
    }

    /// Keeps the later of the ledger's pause and `until_us` (a pause is never shortened by
    /// another queue), and forgets a pause that has run out by `now_us`.
    pub fn extend_pause(&mut self, until_us: Option<i64>, now_us: i64) {
        self.paused_until_us = self
            .paused_until_us
            .max(until_us)
            .filter(|until| *until > now_us);
    }
}

/// The open ledger file of one key.
#[derive(Debug)]
pub(crate) struct SharedBudget {
    file: File,
    path: PathBuf,
}

impl SharedBudget {
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|err| setup(path, &err))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|err| setup(path, &err))?;
        Ok(Self {
            file,
            path: path.to_owned(),
        })
    }

    /// Takes the lock and reads the ledger; `None` when another process holds the lock for
    /// longer than [`LOCK_PATIENCE`] or the file cannot be used (then the queue decides on
    /// its own for now).
    pub fn lock(&mut self) -> Option<Ledger> {
        let started = std::time::Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            match self.file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if started.elapsed() < LOCK_PATIENCE => {
                    // Held for a read and a write: microseconds, unless its holder is stuck.
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(2));
                }
                Err(err) => {
                    tracing::warn!(path = %self.path.display(), error = %err, "the shared budget is not available; deciding alone");
                    return None;
                }
            }
        }
        let mut text = String::new();
        let read = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_string(&mut text));
        if let Err(err) = read {
            tracing::warn!(path = %self.path.display(), error = %err, "the shared budget could not be read");
            let _ = self.file.unlock();
            return None;
        }
        // Empty (new) or unreadable (a writer died half-way): start afresh; the budget only
        // forgets what others reported, and the platform's next answers say it again.
        Some(serde_json::from_str(&text).unwrap_or_default())
    }

    /// Writes the ledger back and lets go of the lock.
    pub fn unlock(&mut self, ledger: &Ledger) {
        let text = serde_json::to_vec(ledger).unwrap_or_default();
        let written = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.set_len(0))
            .and_then(|()| self.file.write_all(&text));
        if let Err(err) = written {
            tracing::warn!(path = %self.path.display(), error = %err, "the shared budget could not be written");
        }
        let _ = self.file.unlock();
    }
}

fn setup(path: &Path, err: &std::io::Error) -> Error {
    Error::Setup(format!(
        "the shared rate-limit budget {} could not be opened: {err}",
        path.display()
    ))
}

/// Whether the process that took a lease still runs (on Linux; elsewhere leases only expire).
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn the_file_name_depends_on_key_and_platform_and_hides_the_key() {
        let dir = Path::new("/data");
        let key = ApiKey::new("ddk_secret_key_text");
        let a = ledger_path(dir, "http://127.0.0.1:8787/", &key);
        assert_eq!(a, ledger_path(dir, "http://127.0.0.1:8787", &key));
        assert_ne!(a, ledger_path(dir, "http://127.0.0.1:8788", &key));
        assert_ne!(
            a,
            ledger_path(dir, "http://127.0.0.1:8787", &ApiKey::new("other"))
        );
        assert!(!a.to_string_lossy().contains("secret"), "{}", a.display());
    }

    #[tokio::test(start_paused = true)]
    async fn a_window_goes_through_the_ledger_with_its_reset_a_margin_later() {
        let clock = WallClock::at(
            tokio::time::Instant::now(),
            UNIX_EPOCH + Duration::from_secs(1_900_000_000),
        );
        let reset_at = tokio::time::Instant::now() + Duration::from_secs(20);
        let window = Window {
            kind: RateWindow::Minute,
            limit: 300,
            reported: 120,
            reset_unix: Some(1_900_000_020),
            reset_at: Some(reset_at),
            learned: true,
        };
        let shared = SharedWindow::export(&window, &clock);
        assert_eq!(shared.reset_at_us, Some(1_900_000_020_000_000));
        let back = shared.import(RateWindow::Minute, &clock);
        assert_eq!(back.reset_at, Some(reset_at + RESET_MARGIN));
        assert_eq!(
            (back.limit, back.reported, back.reset_unix, back.learned),
            (300, 120, Some(1_900_000_020), true)
        );
    }

    #[test]
    fn a_pause_is_extended_never_shortened_and_forgotten_once_over() {
        let mut ledger = Ledger::default();
        ledger.extend_pause(Some(100), 50);
        assert_eq!(ledger.paused_until_us, Some(100));
        ledger.extend_pause(Some(80), 50);
        assert_eq!(
            ledger.paused_until_us,
            Some(100),
            "another queue's shorter pause"
        );
        ledger.extend_pause(Some(150), 50);
        assert_eq!(ledger.paused_until_us, Some(150), "a longer one");
        ledger.extend_pause(None, 50);
        assert_eq!(ledger.paused_until_us, Some(150));
        ledger.extend_pause(None, 150);
        assert_eq!(ledger.paused_until_us, None, "over");
    }

    #[test]
    fn an_answered_request_releases_only_its_own_lease() {
        let lease = |pid, queue, id| Lease {
            pid,
            queue,
            id,
            expires_us: 1,
        };
        let mut ledger = Ledger {
            in_flight: vec![
                lease(1, 1, 1),
                lease(1, 2, 1),
                lease(2, 1, 1),
                lease(1, 1, 2),
            ],
            ..Ledger::default()
        };
        ledger.release(1, 1, 1);
        assert_eq!(
            ledger.in_flight,
            vec![lease(1, 2, 1), lease(2, 1, 1), lease(1, 1, 2)]
        );
    }

    #[test]
    fn stale_leases_are_dropped() {
        let me = std::process::id();
        let lease = |pid, expires_us| Lease {
            pid,
            queue: 1,
            id: 1,
            expires_us,
        };
        let mut ledger = Ledger {
            in_flight: vec![lease(me, 100), lease(me, 10), lease(u32::MAX, 100)],
            ..Ledger::default()
        };
        ledger.drop_stale(50);
        let expected = if cfg!(target_os = "linux") {
            vec![lease(me, 100)]
        } else {
            vec![lease(me, 100), lease(u32::MAX, 100)]
        };
        assert_eq!(ledger.in_flight, expected);
    }

    #[test]
    fn a_torn_ledger_starts_afresh_and_the_lock_is_released_for_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queue/budget.json");
        let mut first = SharedBudget::open(&path).unwrap();
        let mut ledger = first.lock().unwrap();
        assert_eq!(ledger, Ledger::default());
        ledger.paused_until_us = Some(42);
        first.unlock(&ledger);
        let mut second = SharedBudget::open(&path).unwrap();
        assert_eq!(second.lock().unwrap().paused_until_us, Some(42));
        // Held by `second`: `first` waits its patience out and decides alone.
        assert!(first.lock().is_none());
        second.unlock(&Ledger::default());
        std::fs::write(&path, b"{\"minute\": {\"lim").unwrap();
        assert_eq!(first.lock(), Some(Ledger::default()));
        first.unlock(&Ledger::default());
        // A holder that goes away (here: its file is closed, as when its process dies)
        // releases the lock.
        let _held = second.lock().unwrap();
        drop(second);
        assert!(first.lock().is_some());
    }
}

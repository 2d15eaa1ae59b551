//! Where the logs go. The desktop app logs to `domain-desk.log` in the app's log folder. The
//! file starts afresh every day (UTC) and whenever it reaches a size cap, and only the newest
//! files are kept, so a chatty day cannot fill the disk. The writer's guard lives in Tauri's
//! managed state so the last lines are flushed when the app exits. The command line logs to
//! standard error instead ([`to_stderr`]), set up once before its subcommand runs.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::{EnvFilter, fmt, prelude::*};

use crate::{Error, Result};

const PREFIX: &str = "domain-desk";
const CURRENT: &str = "domain-desk.log";

/// Keeps the background log writer alive; dropping it flushes the file.
pub struct LogGuard(#[allow(dead_code)] WorkerGuard);

pub fn init(log_dir: &Path) -> Result<LogGuard> {
    let file = CappedLog::open(log_dir, LogLimits::default(), Box::new(Utc::now))?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    let filter = EnvFilter::try_from_env("DOMAIN_DESK_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,domain_desk=debug"));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt::layer().with_writer(writer).with_ansi(false))
        .try_init()
        .map_err(|e| Error::Logging(e.to_string()))?;
    Ok(LogGuard(guard))
}

/// Logs the command line's events to standard error: `RUST_LOG` when set, else
/// `default_filter` (each subcommand says how much it has to say).
pub fn to_stderr(default_filter: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    // Only fails when a subscriber is already set (a test that set one first): keep it.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .try_init();
}

/// How much log the folder keeps: at most `max_files` files (the current one included) of
/// `max_file_bytes` each, so about `max_files * max_file_bytes` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimits {
    pub max_file_bytes: u64,
    pub max_files: usize,
}

impl Default for LogLimits {
    /// 10 MiB a file, 14 files: two weeks of quiet days, 140 MiB at the very most.
    fn default() -> Self {
        Self {
            max_file_bytes: 10 * 1024 * 1024,
            max_files: 14,
        }
    }
}

/// The log file: written to `domain-desk.log`, which is renamed to
/// `domain-desk.<day>.<n>.log` when the day changes or the next write would take it past
/// the cap; the oldest renamed files are then deleted. Each write is one whole event, so a
/// line is never split between two files.
pub struct CappedLog {
    dir: PathBuf,
    limits: LogLimits,
    now: Clock,
    file: File,
    written: u64,
    day: NaiveDate,
}

/// Where the log reads the time (the day of each line).
pub type Clock = Box<dyn Fn() -> DateTime<Utc> + Send>;

impl CappedLog {
    /// Opens (or creates) the current file in `dir`, reading the time from `now`.
    pub fn open(dir: &Path, limits: LogLimits, now: Clock) -> Result<Self> {
        // The user's alone: the log names the user's domains and accounts.
        domain_desk_app::paths::private_dir(dir)?;
        let path = dir.join(CURRENT);
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let metadata = file.metadata()?;
        let day = metadata
            .modified()
            .map(|modified| DateTime::<Utc>::from(modified).date_naive())
            .unwrap_or_else(|_| now().date_naive());
        let log = Self {
            dir: dir.to_owned(),
            limits,
            now,
            file,
            written: metadata.len(),
            day,
        };
        log.prune()?;
        Ok(log)
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file.flush()?;
        let day = self.day.format("%Y-%m-%d").to_string();
        // One more than the day's highest number, never a gap left by pruning: the names
        // must keep sorting oldest first.
        let day_prefix = format!("{PREFIX}.{day}.");
        let last = std::fs::read_dir(&self.dir)?
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                name.strip_prefix(&day_prefix)?
                    .strip_suffix(".log")?
                    .parse::<u32>()
                    .ok()
            })
            .max()
            .unwrap_or(0);
        let next = self.dir.join(format!("{day_prefix}{:04}.log", last + 1));
        std::fs::rename(self.dir.join(CURRENT), next)?;
        self.file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(CURRENT))?;
        self.written = 0;
        self.prune()
    }

    /// Deletes the oldest earlier files until `max_files` remain, the current one included.
    fn prune(&self) -> io::Result<()> {
        let mut earlier: Vec<PathBuf> = std::fs::read_dir(&self.dir)?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| {
                        name != CURRENT
                            && name.starts_with(&format!("{PREFIX}."))
                            && name.ends_with(".log")
                    })
            })
            .collect();
        // Day first, then the number within the day: the names sort oldest first.
        earlier.sort();
        let keep = self.limits.max_files.saturating_sub(1);
        let excess = earlier.len().saturating_sub(keep);
        for old in &earlier[..excess] {
            std::fs::remove_file(old)?;
        }
        Ok(())
    }
}

impl Write for CappedLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let today = (self.now)().date_naive();
        let too_big = self.written + buf.len() as u64 > self.limits.max_file_bytes;
        if self.written > 0 && (today != self.day || too_big) {
            self.rotate()?;
        }
        self.day = today;
        let written = self.file.write(buf)?;
        self.written += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use chrono::TimeZone;

    use super::*;

    const LIMITS: LogLimits = LogLimits {
        max_file_bytes: 1000,
        max_files: 3,
    };

    fn noon() -> Clock {
        Box::new(|| Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap())
    }

    /// Every file in the folder: name and content, oldest first, the current file last.
    fn files(dir: &Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap().to_owned();
                (name, std::fs::read_to_string(&path).unwrap())
            })
            .collect();
        files.sort_by_key(|(name, _)| (name == CURRENT, name.clone()));
        files
    }

    fn line(i: usize) -> String {
        format!("2026-03-01T12:00:00Z INFO domain_desk: event number {i:05} of the test\n")
    }

    #[test]
    fn no_file_grows_past_the_cap_and_only_the_newest_files_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = CappedLog::open(dir.path(), LIMITS, noon()).unwrap();
        for i in 0..200 {
            log.write_all(line(i).as_bytes()).unwrap();
        }
        log.flush().unwrap();
        let files = files(dir.path());
        assert_eq!(files.len(), LIMITS.max_files, "{files:#?}");
        for (name, content) in &files {
            assert!(
                content.len() as u64 <= LIMITS.max_file_bytes,
                "{name} has {} bytes",
                content.len()
            );
            assert!(content.ends_with('\n'), "{name} ends mid-line");
        }
        let total: usize = files.iter().map(|(_, content)| content.len()).sum();
        assert!(total as u64 <= LIMITS.max_file_bytes * LIMITS.max_files as u64);
        // The newest lines are kept, in order, ending in the current file.
        let kept: String = files.iter().map(|(_, content)| content.as_str()).collect();
        assert!(kept.ends_with(&line(199)));
        let first_kept = kept.lines().next().unwrap().to_owned() + "\n";
        let from = (0..200).position(|i| line(i) == first_kept).unwrap();
        let expected: String = (from..200).map(line).collect();
        assert_eq!(kept, expected);
    }

    /// The log folder is the user's alone, and an existing one more open is tightened.
    #[cfg(unix)]
    #[test]
    fn the_log_folder_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        drop(CappedLog::open(&logs, LIMITS, noon()).unwrap());
        assert_eq!(mode(&logs), 0o700);
        std::fs::set_permissions(&logs, std::fs::Permissions::from_mode(0o755)).unwrap();
        drop(CappedLog::open(&logs, LIMITS, noon()).unwrap());
        assert_eq!(mode(&logs), 0o700);
    }

    #[test]
    fn a_reopened_log_counts_what_the_file_already_holds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CURRENT), "x".repeat(990) + "\n").unwrap();
        // Today, as the file's own date: only its size can start a new file.
        let mut log = CappedLog::open(dir.path(), LIMITS, Box::new(Utc::now)).unwrap();
        log.write_all(line(1).as_bytes()).unwrap();
        let files = files(dir.path());
        assert_eq!(files.len(), 2, "{files:#?}");
        assert_eq!(files[1].1, line(1));
    }

    #[test]
    fn a_new_day_starts_a_new_file_named_for_the_day_before() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(Mutex::new(
            Utc.with_ymd_and_hms(2026, 3, 1, 23, 59, 0).unwrap(),
        ));
        let clock = now.clone();
        let mut log =
            CappedLog::open(dir.path(), LIMITS, Box::new(move || *clock.lock().unwrap())).unwrap();
        log.write_all(line(1).as_bytes()).unwrap();
        *now.lock().unwrap() = Utc.with_ymd_and_hms(2026, 3, 2, 0, 1, 0).unwrap();
        log.write_all(line(2).as_bytes()).unwrap();
        let files = files(dir.path());
        assert_eq!(
            files,
            vec![
                ("domain-desk.2026-03-01.0001.log".to_owned(), line(1)),
                (CURRENT.to_owned(), line(2)),
            ]
        );
    }
}

//! Work whose result `cargo xtask test` needs only later (installing cargo-deny, cargo-fuzz,
//! tauri-driver and schemathesis, building the fuzz targets), started early beside the main
//! line of steps at the lowest CPU priority: on Linux its thread is put under `SCHED_IDLE`
//! (with util-linux's `chrt`), which everything it starts inherits, so it only takes the
//! cycles the main line leaves idle (apt's downloads, the build's serial tail, tests that
//! wait) and never slows it. The main line waits for it where it needs its result; the wait
//! is a step of its own in the durations table, the work's own steps are listed beside.
//! Its commands write to a log under `target/xtask-beside/`, shown when it fails, so their
//! output never mixes with the main line's.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Command;
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow};

use crate::steps::{self, root};

/// How many of a failed job's last log lines are shown.
const LOG_TAIL_LINES: usize = 60;

/// A job running beside the main line; [`Beside::wait`] joins it.
#[must_use = "a job beside the main line is waited for where its result is needed"]
pub struct Beside {
    title: String,
    log: PathBuf,
    handle: JoinHandle<Result<()>>,
}

/// Starts `work` on its own thread at idle priority, its steps logged to a file.
pub fn start(title: &str, work: impl FnOnce() -> Result<()> + Send + 'static) -> Result<Beside> {
    let dir = root().join("target/xtask-beside");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let log = dir.join(format!("{}.log", file_stem(title)));
    let file = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
    println!(
        "\n==> beside the steps, at idle priority: {title} (log: {})",
        log.display()
    );
    let handle = std::thread::Builder::new()
        .name(title.to_owned())
        .spawn(move || {
            let priority = idle_priority_for_this_thread();
            steps::log_this_threads_steps_to(file);
            if let Err(why) = priority {
                steps::note(&format!("at normal priority: {why}"));
            }
            work()
        })
        .context("cannot start a thread")?;
    Ok(Beside {
        title: title.to_owned(),
        log,
        handle,
    })
}

impl Beside {
    /// Waits for the job; its failure, with the end of its log, fails the caller's step.
    pub fn wait(self) -> Result<()> {
        let Beside { title, log, handle } = self;
        steps::timed(&format!("wait for: {title}"), || {
            let result = handle
                .join()
                .unwrap_or_else(|_| Err(anyhow!("its thread panicked")));
            if result.is_err() {
                print_tail(&log);
            }
            result.with_context(|| format!("{title} (beside the steps; log: {})", log.display()))
        })
    }
}

/// Stops what the jobs beside the main line are running (when the main line has failed and
/// the run ends without waiting for them).
pub fn stop_all() {
    steps::stop_beside_commands();
}

fn file_stem(title: &str) -> String {
    title
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `SCHED_IDLE` for the calling thread: Linux keeps a policy per thread, and a process this
/// thread starts inherits it. The thread's id is the last part of `/proc/thread-self`.
fn idle_priority_for_this_thread() -> Result<()> {
    if !cfg!(target_os = "linux") {
        return Err(anyhow!("SCHED_IDLE is Linux's"));
    }
    let link = std::fs::read_link("/proc/thread-self").context("no /proc/thread-self")?;
    let thread_id = link
        .file_name()
        .and_then(|name| name.to_str())
        .context("/proc/thread-self names no thread")?
        .to_owned();
    let status = Command::new("chrt")
        .args(["--idle", "--pid", "0", &thread_id])
        .status()
        .context("cannot run chrt")?;
    if !status.success() {
        return Err(anyhow!("chrt --idle failed ({status})"));
    }
    Ok(())
}

fn print_tail(log: &PathBuf) {
    let Ok(file) = File::open(log) else { return };
    let lines: Vec<String> = BufReader::new(file).lines().map_while(Result::ok).collect();
    let from = lines.len().saturating_sub(LOG_TAIL_LINES);
    println!("--- the last lines of {}:", log.display());
    for line in &lines[from..] {
        println!("{line}");
    }
    println!("---");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_beside_runs_at_idle_priority_and_its_failure_reaches_the_wait() {
        let job = start("xtask test: a failing job", || {
            if cfg!(target_os = "linux") {
                let thread = std::fs::read_link("/proc/thread-self")?;
                let thread_id = thread.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let shown = Command::new("chrt").args(["--pid", thread_id]).output()?;
                let policy = String::from_utf8_lossy(&shown.stdout).into_owned();
                if !policy.contains("SCHED_IDLE") {
                    return Err(anyhow!("not under SCHED_IDLE: {policy}"));
                }
            }
            Err(anyhow!("the job's own failure"))
        })
        .expect("starts");
        let err = job.wait().expect_err("the job failed");
        assert!(
            format!("{err:#}").contains("the job's own failure"),
            "{err:#}"
        );
    }
}

//! Work whose result `cargo xtask test` needs only later (installing cargo-deny, cargo-fuzz,
//! tauri-driver and schemathesis, building and running the fuzz targets), started early
//! beside the main line of steps at the lowest CPU priority: on Linux its thread is put under `SCHED_IDLE`
//! (with util-linux's `chrt`), which everything it starts inherits, so it only takes the
//! cycles the main line leaves idle (apt's downloads, the build's serial tail, tests that
//! wait) and never slows it. The main line waits for it where it needs its result, and from
//! then on it runs at normal priority (its thread and the processes of the commands it runs),
//! ahead of the jobs nobody waits for yet; the wait is a step of its own in the durations
//! table, the work's own steps are listed beside.
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
    /// The job thread's id in the kernel, when its priority was lowered.
    thread_id: Option<String>,
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
    let (lowered, thread_id) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(title.to_owned())
        .spawn(move || {
            let priority = idle_priority_for_this_thread();
            steps::log_this_threads_steps_to(file);
            let _ = lowered.send(priority.as_ref().ok().cloned());
            if let Err(why) = priority {
                steps::note(&format!("at normal priority: {why}"));
            }
            work()
        })
        .context("cannot start a thread")?;
    Ok(Beside {
        title: title.to_owned(),
        log,
        thread_id: thread_id.recv().ok().flatten(),
        handle,
    })
}

impl Beside {
    /// Waits for the job; its failure, with the end of its log, fails the caller's step.
    pub fn wait(self) -> Result<()> {
        let Beside {
            title,
            log,
            thread_id,
            handle,
        } = self;
        if let Some(thread_id) = thread_id {
            normal_priority(&thread_id, &steps::beside_groups_of(&title));
        }
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

/// `SCHED_IDLE` for the calling thread, and the thread's id: Linux keeps a policy per thread,
/// and a process this thread starts inherits it. The id is the last part of
/// `/proc/thread-self`.
fn idle_priority_for_this_thread() -> Result<String> {
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
    Ok(thread_id)
}

/// Back to the normal policy: the job's thread (so the commands it starts next inherit it)
/// and every process of the command it runs now (cargo, and what cargo has started; what cargo
/// starts later inherits cargo's). At worst, the job goes on at idle priority.
fn normal_priority(thread_id: &str, groups: &[u32]) {
    let to_normal = |args: &[&str]| {
        let _ = Command::new("chrt")
            .args(["--other"])
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    };
    to_normal(&["--pid", "0", thread_id]);
    for process in groups.iter().flat_map(|&group| processes_in_group(group)) {
        to_normal(&["--all-tasks", "--pid", "0", &process]);
    }
}

/// The processes whose group is `group`, from `/proc/<pid>/stat` (the group is the third
/// field after the command's name in parentheses).
fn processes_in_group(group: u32) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.to_owned();
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let after_name = &stat[stat.rfind(')')? + 1..];
            let pgrp = after_name.split_whitespace().nth(2)?.parse::<u32>().ok()?;
            (pgrp == group).then_some(pid)
        })
        .collect()
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
    fn the_job_waited_for_runs_on_at_normal_priority() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let title = "xtask test: a job waited for";
        let job = start(title, || {
            // Still running when the main line starts to wait; then it looks at itself.
            steps::step(
                "the running command",
                Command::new("sh").args(["-c", "sleep 1; chrt --pid $$ | grep -q SCHED_OTHER"]),
            )
        })
        .expect("starts");
        while steps::beside_groups_of(title).is_empty() {
            std::thread::yield_now();
        }
        job.wait()
            .expect("the command runs at normal priority once waited for");
    }

    #[test]
    fn a_job_beside_runs_at_idle_priority_and_its_failure_reaches_the_wait() {
        let (seen, policy) = std::sync::mpsc::channel();
        let job = start("xtask test: a failing job", move || {
            // Read before the wait below, which raises the job.
            let thread = std::fs::read_link("/proc/thread-self")?;
            let thread_id = thread.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let shown = Command::new("chrt").args(["--pid", thread_id]).output()?;
            let _ = seen.send(String::from_utf8_lossy(&shown.stdout).into_owned());
            Err(anyhow!("the job's own failure"))
        })
        .expect("starts");
        let policy = policy.recv().expect("the job says its policy");
        if cfg!(target_os = "linux") {
            assert!(policy.contains("SCHED_IDLE"), "{policy}");
        }
        let err = job.wait().expect_err("the job failed");
        assert!(
            format!("{err:#}").contains("the job's own failure"),
            "{err:#}"
        );
    }
}

//! How xtask runs things, shared by every command: where the workspace is, cargo in it, a
//! step that fails with its name, a check that cannot run (skipped here, a failure in CI),
//! and how long each step took ([`durations`], the table `cargo xtask test` ends with).
//! It imports nothing of the commands (only [`crate::lint_build`], which imports nothing of
//! xtask), so each command can use it without a ring.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one folder below the workspace root")
        .to_path_buf()
}

pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    crate::lint_build::apply(&mut cmd);
    cmd
}

/// `cargo install` of a tool, never linted as ours are (see [`crate::lint_build`]). In the
/// dev profile: the tools (tauri-driver, cargo-deny, cargo-fuzz) do the same work either way
/// and spend their time waiting on what they start or reading a few files, while their
/// release builds took 42 s, 222 s and 56 s of a fresh machine's run. Without debug info: a
/// tool's backtrace is not ours to read, and generating and linking it is a good part of a
/// debug build.
pub fn cargo_install() -> Command {
    let mut cmd = cargo();
    crate::lint_build::clear(&mut cmd)
        .args(["install", "--debug"])
        .env("CARGO_PROFILE_DEV_DEBUG", "false");
    cmd
}

/// Whether this runs in CI (`CI=true`, as CI services set it): there, a check that cannot run
/// fails instead of being skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// A check that cannot run here: skipped with a note on a developer's machine, a failure in
/// CI, where a skipped check would look like a passed one.
pub fn cannot_run(reason: &str, ci: bool) -> Result<()> {
    if ci {
        bail!("{reason}; in CI (CI=true) that is a failure");
    }
    println!("{reason}: skipped");
    Ok(())
}

/// Runs a command to completion, failing with its name when it fails.
pub fn step(title: &str, cmd: &mut Command) -> Result<()> {
    timed(title, || {
        let status = run_to_end(cmd).with_context(|| format!("could not start: {title}"))?;
        if !status.success() {
            bail!("{title} failed ({status})");
        }
        Ok(())
    })
}

thread_local! {
    /// Where this thread's steps write, when it is a job beside the main line
    /// ([`crate::beside`]); the main line writes to the terminal.
    static BESIDE_LOG: RefCell<Option<File>> = const { RefCell::new(None) };
}

/// The process groups of the commands running beside the main line, each with its job (the
/// name of the job's thread): to stop them when the main line fails first, and to raise the
/// one the main line waits for.
static BESIDE_GROUPS: Mutex<Vec<(String, u32)>> = Mutex::new(Vec::new());

/// This thread's steps, and what they run, write to `log` and count as beside the main line.
pub fn log_this_threads_steps_to(log: File) {
    BESIDE_LOG.with(|cell| *cell.borrow_mut() = Some(log));
}

fn beside_log() -> Option<File> {
    BESIDE_LOG.with(|cell| {
        cell.borrow()
            .as_ref()
            .and_then(|file| file.try_clone().ok())
    })
}

/// A line for the reader: on the terminal, or in the log of the job beside the main line.
pub fn note(line: &str) {
    match beside_log() {
        Some(mut log) => {
            let _ = writeln!(log, "{line}");
        }
        None => println!("{line}"),
    }
}

/// A line of a command's error output that a step reads as it comes: on standard error, or in
/// the log of the job beside the main line.
pub fn note_error(line: &str) {
    match beside_log() {
        Some(mut log) => {
            let _ = writeln!(log, "{line}");
        }
        None => eprintln!("{line}"),
    }
}

/// Starts `work` on a scoped thread that belongs where the calling thread does: in the same
/// job beside the main line (its name, its log, its commands stopped with it), or on the main
/// line.
pub fn spawn_alike<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    let log = beside_log();
    let mut builder = std::thread::Builder::new();
    if let Some(name) = std::thread::current().name() {
        builder = builder.name(name.to_owned());
    }
    builder.spawn_scoped(scope, move || {
        if let Some(log) = log {
            log_this_threads_steps_to(log);
        }
        work()
    })
}

fn run_to_end(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    if let Some(log) = beside_log() {
        cmd.stdout(log.try_clone()?).stderr(log);
    }
    wait_in_job(spawn_in_job(cmd)?)
}

/// Starts `cmd`; beside the main line, in a process group of its own that the job's stop
/// ([`stop_beside_commands`]) and raise ([`beside_groups_of`]) reach.
pub fn spawn_in_job(cmd: &mut Command) -> std::io::Result<Child> {
    if beside_log().is_none() {
        return cmd.spawn();
    }
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let child = cmd.spawn()?;
    let job = std::thread::current().name().unwrap_or_default().to_owned();
    lock(&BESIDE_GROUPS).push((job, child.id()));
    Ok(child)
}

/// Waits for a child [`spawn_in_job`] started, counting its CPU time (see
/// [`wait_counting_cpu`]).
pub fn wait_in_job(child: Child) -> std::io::Result<ExitStatus> {
    let group = child.id();
    let status = wait_counting_cpu(child);
    lock(&BESIDE_GROUPS).retain(|(_, running)| *running != group);
    status
}

thread_local! {
    /// The CPU time (user and system) of the commands this thread has waited for, each with
    /// every process it started and waited for: what [`timed`] reports beside the wall time.
    static CPU_WAITED: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// Waits for `child` to end, adding the CPU time it and its descendants spent to this
/// thread's count. Takes the child by value: once waited for here, its process id is free
/// for the system to give out again, so nothing may signal or wait on it after.
pub fn wait_counting_cpu(child: Child) -> std::io::Result<ExitStatus> {
    #[cfg(unix)]
    {
        let (status, cpu) = wait4(child.id())?;
        CPU_WAITED.with(|spent| spent.set(spent.get() + cpu));
        Ok(status)
    }
    #[cfg(not(unix))]
    {
        let mut child = child;
        child.wait()
    }
}

/// `wait4(2)`: the exit status of the child `pid` and the CPU time of it and of every
/// descendant it waited for (the kernel's resource usage of the child at its end), which the
/// standard library's wait does not return.
#[cfg(unix)]
#[allow(unsafe_code)]
fn wait4(pid: u32) -> std::io::Result<(ExitStatus, Duration)> {
    use std::os::unix::process::ExitStatusExt;
    let pid = libc::pid_t::try_from(pid).map_err(std::io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain integers, valid all zero; `wait4` writes `status` and
    // `usage`, both live locals, and reads nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Ok((
        ExitStatus::from_raw(status),
        time(usage.ru_utime) + time(usage.ru_stime),
    ))
}

/// The CPU time this thread's commands have spent so far (see [`wait_counting_cpu`]).
fn cpu_waited() -> Duration {
    CPU_WAITED.with(Cell::get)
}

/// Stops every command running beside the main line, with all it started.
pub fn stop_beside_commands() {
    for (_, group) in lock(&BESIDE_GROUPS).drain(..) {
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{group}")])
            .status();
    }
}

/// The process groups of the commands the job beside named `job` is running now (one, or
/// one per worker of a job that runs several at once).
pub fn beside_groups_of(job: &str) -> Vec<u32> {
    lock(&BESIDE_GROUPS)
        .iter()
        .filter(|(name, _)| name == job)
        .map(|(_, group)| *group)
        .collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A step's title, how long it took, whether it passed, and whether it ran beside the main
/// line (its time overlaps the others').
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    pub title: String,
    pub took: Duration,
    pub passed: bool,
    pub beside: bool,
    /// The CPU time (user and system) of the step's commands: on a machine whose cores are
    /// all busy (a cold CI run here), what the step costs the whole run.
    pub cpu: Duration,
}

/// Every step this process ran, in order.
static TIMES: Mutex<Vec<Timed>> = Mutex::new(Vec::new());

/// Runs `work` as a step named `title`: announced, and its time kept for [`durations`].
pub fn timed<T>(title: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
    note(&format!("\n==> {title}"));
    let started = Instant::now();
    let cpu_before = cpu_waited();
    let result = work();
    let took = started.elapsed();
    let cpu = cpu_waited().saturating_sub(cpu_before);
    lock(&TIMES).push(Timed {
        title: title.to_owned(),
        took,
        passed: result.is_ok(),
        beside: beside_log().is_some(),
        cpu,
    });
    result
}

/// The steps run so far by the CPU time their commands took, most first: where a busy
/// machine's time went. Steps nested in another are counted in both. Empty without steps.
pub fn cpu_times() -> String {
    cpu_table(
        &lock(&TIMES),
        std::thread::available_parallelism().map_or(1, usize::from),
    )
}

fn cpu_table(times: &[Timed], cores: usize) -> String {
    if times.is_empty() {
        return String::new();
    }
    let mut sorted: Vec<&Timed> = times.iter().collect();
    sorted.sort_by(|a, b| b.cpu.cmp(&a.cpu).then_with(|| a.title.cmp(&b.title)));
    let width = sorted
        .iter()
        .map(|time| time.title.chars().count())
        .max()
        .unwrap_or(0);
    let mut table = format!(
        "\n==> CPU time of each step's commands (user + system; {cores} cores), most first\n"
    );
    for time in sorted {
        table.push_str(&format!(
            "  {:<width$}  {:>8.1} s CPU in {:>7.1} s\n",
            time.title,
            time.cpu.as_secs_f64(),
            time.took.as_secs_f64()
        ));
    }
    table
}

/// The steps run so far, as a table: each with its time, the one that failed marked, and the
/// time outside any step and the total since `started`.
pub fn durations(started: Instant) -> String {
    let times = lock(&TIMES).clone();
    durations_table(&times, started.elapsed())
}

/// The row for the time no step accounts for (between steps, and checks run without one).
const OUTSIDE: &str = "outside the steps above";
/// The heading of the steps that ran beside the main line.
const BESIDE: &str = "beside them, at idle priority:";

fn durations_table(times: &[Timed], total: Duration) -> String {
    let width = times
        .iter()
        .map(|timed| timed.title.chars().count() + if timed.beside { 2 } else { 0 })
        .chain([OUTSIDE.len()])
        .max()
        .unwrap_or(0);
    let row = |title: &str, took: Duration, passed: bool| {
        let note = if passed { "" } else { "  (failed)" };
        format!("  {title:<width$}  {:>8.1} s{note}\n", took.as_secs_f64())
    };
    let (main, beside): (Vec<&Timed>, Vec<&Timed>) = times.iter().partition(|timed| !timed.beside);
    let mut table = String::from("\n==> step durations\n");
    for timed in &main {
        table.push_str(&row(&timed.title, timed.took, timed.passed));
    }
    let in_steps: Duration = main.iter().map(|timed| timed.took).sum();
    table.push_str(&row(OUTSIDE, total.saturating_sub(in_steps), true));
    table.push_str(&row("total", total, true));
    if !beside.is_empty() {
        table.push_str(&format!("  {BESIDE}\n"));
        for timed in &beside {
            table.push_str(&row(
                &format!("  {}", timed.title),
                timed.took,
                timed.passed,
            ));
        }
    }
    table
}

/// Builds the app's binary, `target/debug/domain-desk`, exactly as `cargo test --workspace`
/// builds it: the one build that `domain-desk serve` under schemathesis, the end-to-end tests
/// and the acceptance walk-throughs share; after the Rust tests it compiles nothing. Every
/// test step selects `--workspace` for the same reason: cargo resolves the dependencies'
/// features over the packages selected, so `cargo build --package domain-desk` (without the
/// workspace's dev-dependencies: tokio's `test-util`, tauri's `test`, ...) built 174 units
/// that `cargo test --workspace` had not, `cargo test --package domain-desk --test e2e` 66 and
/// `cargo test --package domain-desk-app --lib` 127 (counted with `--unit-graph`), each also
/// overwriting the binary the step before had tested.
pub fn build_app(title: &str) -> Result<()> {
    // Linted as `cargo xtask test` builds (see `lint_build`), also when a command of its own
    // (`cargo xtask acceptance`, `reliability`) asks: else it would build the workspace's
    // crates again, without the lints, over the binaries the tests ran.
    crate::lint_build::enable();
    step(
        title,
        cargo().args(["test", "--workspace", "--test", "e2e", "--no-run"]),
    )
}

pub fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_table_lists_the_costliest_step_first() {
        let time = |title: &str, cpu_ms: u64, took_ms: u64| Timed {
            title: title.into(),
            took: Duration::from_millis(took_ms),
            passed: true,
            beside: false,
            cpu: Duration::from_millis(cpu_ms),
        };
        let times = [
            time("rustfmt", 1_500, 1_400),
            time("the build of every test", 950_000, 476_500),
            time("wait for: the fuzz build", 0, 260_000),
        ];
        assert_eq!(
            cpu_table(&times, 2),
            "\n==> CPU time of each step's commands (user + system; 2 cores), most first\n\
             \x20 the build of every test      950.0 s CPU in   476.5 s\n\
             \x20 rustfmt                        1.5 s CPU in     1.4 s\n\
             \x20 wait for: the fuzz build       0.0 s CPU in   260.0 s\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_commands_cpu_time_counts_what_it_started() {
        // The CPU is burnt by a grandchild, which the shell waits for: its time reaches the
        // shell's own at its end, and from there this thread's count.
        let before = cpu_waited();
        let child = Command::new("sh")
            .args(["-c", "timeout 0.3 sh -c 'while :; do :; done'; true"])
            .spawn()
            .unwrap();
        let status = wait_counting_cpu(child).unwrap();
        assert!(status.success());
        let spent = cpu_waited() - before;
        assert!(
            spent > Duration::from_millis(20) && spent < Duration::from_secs(5),
            "{spent:?}"
        );
    }

    #[test]
    fn the_durations_table_lists_each_step_the_failed_one_and_the_rest() {
        let times = [
            Timed {
                title: "rustfmt".into(),
                took: Duration::from_millis(3_250),
                passed: true,
                beside: false,
                cpu: Duration::ZERO,
            },
            Timed {
                title: "Rust tests".into(),
                took: Duration::from_secs(412),
                passed: false,
                beside: false,
                cpu: Duration::ZERO,
            },
        ];
        assert_eq!(
            durations_table(&times, Duration::from_millis(420_000)),
            "\n==> step durations\n\
             \x20 rustfmt                       3.2 s\n\
             \x20 Rust tests                  412.0 s  (failed)\n\
             \x20 outside the steps above       4.8 s\n\
             \x20 total                       420.0 s\n"
        );
    }

    #[test]
    fn steps_beside_the_main_line_are_listed_apart_and_do_not_count_in_its_time() {
        let step = |title: &str, secs: u64, beside: bool| Timed {
            title: title.into(),
            took: Duration::from_secs(secs),
            passed: true,
            beside,
            cpu: Duration::ZERO,
        };
        let times = [
            step("clippy and the build", 600, false),
            step("install cargo-deny", 150, true),
            step("wait for: install cargo-deny", 0, false),
        ];
        assert_eq!(
            durations_table(&times, Duration::from_secs(610)),
            "\n==> step durations\n\
             \x20 clippy and the build             600.0 s\n\
             \x20 wait for: install cargo-deny       0.0 s\n\
             \x20 outside the steps above           10.0 s\n\
             \x20 total                            610.0 s\n\
             \x20 beside them, at idle priority:\n\
             \x20   install cargo-deny             150.0 s\n"
        );
    }

    #[test]
    fn a_check_that_cannot_run_fails_in_ci_and_is_skipped_elsewhere() {
        assert!(cannot_run("Wine is not installed", false).is_ok());
        let err = cannot_run("Wine is not installed", true).unwrap_err();
        assert!(err.to_string().contains("Wine is not installed"), "{err}");
    }
}

//! The project's task runner: `cargo xtask run | test | …`.
//!
//! One place knows how to set up a machine, build and test, so a newcomer, CI and every
//! developer run exactly the same steps. It shells out to cargo, node and the system tools;
//! it has no logic of the product.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod architecture;
mod bench;
mod beside;
mod deb_check;
mod deny;
mod fuzz;
mod host_units;
mod http;
mod installer;
mod lint_build;
mod long_files;
mod module_cycles;
mod platforms;
mod prereqs;
mod reliability;
mod session;
mod steps;
mod wine;
mod workflows;

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use crate::steps::{cargo, exe, root, step, timed};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  run          install what the app needs (Linux), build it and open the window
  test         install the test tools, then fmt, the module cycles, the architecture map,
               the long files' reasons, clippy, cargo deny, every Rust test, the reliability checks, the UI tests,
               actionlint and the end-to-end tests under Xvfb
  e2e [NAME…]  only the end-to-end tests (under Xvfb when there is no display); with
               NAMEs, only the tests whose name contains one of them
  cycles [DIR] only the check that no two files of a crate import each other (of the
               workspace at DIR, this one by default)
  architecture only the check that ARCHITECTURE.md has at most 900 words and that every path
               it names exists
  long-files   only the check that every Rust file over 500 lines of code says why in its //!
  deny         cargo deny offline: RustSec's advisories (the ../shared snapshot), licenses,
               sources and banned duplicates, after proving a vulnerable lock file fails
  prereqs [windows]
               only install what building and testing need (Linux); with windows, what
               the Windows build and its Wine test need, and the Windows and macOS targets
  reliability  schemathesis against `domain-desk serve`, then a short run of every fuzz target
  contract     only the schemathesis passes
  fuzz         only the fuzz targets (cargo-fuzz, a short bounded run of each)
  icons        regenerate every icon from icons/app-icon.svg
  bundle       release build and Linux packages (.deb, .rpm)
  deb-check    install the .deb on a fresh Debian tree (debootstrap), start it there, and
               open a domain-desk:// link in the running window with xdg-open
  windows      cross-build the workspace for Windows (MinGW), build the installer, and
               under Wine install it, run info, serve and doctor from the installed folder,
               and uninstall it (--release: the app alone, as shipped; --build-only:
               the cross build alone; --already-built: the rest, over that build;
               --after-test-build: first wait for `cargo xtask test`'s build and take
               its host units)
  actionlint   lint the GitHub Actions workflows (the release workflow)
  macos-check  type-check the Tauri-free crates for macOS (--after-test-build as for windows)
  acceptance   the contract's acceptance walk-throughs from ../shared/acceptance
  bench        performance figures against peers: bench [service|queue|doctor|app|all]
               (installs wrk, dig, Prism, json-server and WireMock; see BENCHMARKS.md)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("test") => test(),
        Some("deny") => deny::run(),
        Some("e2e") => e2e(&args[1..]),
        Some("cycles") => module_cycles::check(&args.get(1).map_or_else(root, PathBuf::from)),
        Some("architecture") => architecture::check(&root()),
        Some("long-files") => long_files::check(&root()),
        Some("prereqs") => match args.get(1).map(String::as_str) {
            Some("windows") => prereqs::ensure(prereqs::Purpose::Windows)
                .and_then(|()| platforms::ensure_cross_targets()),
            _ => prereqs::ensure(prereqs::Purpose::Test),
        },
        Some("reliability") => reliability::run(),
        Some("contract") => reliability::contract(),
        Some("fuzz") => fuzz::run(fuzz::FuzzMode::Explore),
        Some("icons") => platforms::icons(),
        Some("bundle") => platforms::bundle(),
        Some("deb-check") => deb_check::run(),
        Some("windows") => platforms::windows(&args[1..]),
        Some("actionlint") => platforms::actionlint(),
        Some("macos-check") => platforms::macos_check(&args[1..]),
        Some("acceptance") => platforms::acceptance(),
        Some("bench") => bench::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown command `{other}`\n\n{USAGE}")),
    };
    // After `test`'s durations table; the window's `run` has no steps worth a table.
    if !matches!(args.first().map(String::as_str), Some("run")) {
        let table = steps::cpu_times();
        if !table.is_empty() {
            println!("{table}");
        }
    }
    if let Err(err) = result {
        eprintln!("xtask: {err:#}");
        std::process::exit(1);
    }
}

fn run(app_args: &[String]) -> Result<()> {
    prereqs::ensure(prereqs::Purpose::Run)?;
    step(
        "build the app",
        cargo().args(["build", "--package", "domain-desk"]),
    )?;
    let binary = root().join("target/debug").join(exe("domain-desk"));
    let display = session::Display::ensure()?;
    let mut cmd = Command::new(&binary);
    cmd.args(app_args);
    display.apply(&mut cmd);
    step("Domain Desk", &mut cmd)
}

/// Every check, in order, then how long each step took (also when one failed).
fn test() -> Result<()> {
    let started = std::time::Instant::now();
    lint_build::enable();
    let result = test_steps();
    if result.is_err() {
        beside::stop_all();
    }
    println!("{}", steps::durations(started));
    result
}

fn test_steps() -> Result<()> {
    // Needed only later, so done beside the main line on the cycles it leaves idle (see
    // `beside`): on a fresh machine, minutes of compiling the main line no longer waits for.
    let cargo_deny = beside::start("install cargo-deny", deny::ensure_cargo_deny)?;
    // Built, then run as a regression, beside the main line: most of it fits in the cycles
    // the end-to-end tests leave idle (they wait on the window and on the minute's reset).
    let fuzzing = beside::start("build and run the fuzz targets", || {
        fuzz::run(fuzz::FuzzMode::Regression)
    })?;
    let tauri_driver = beside::start("install tauri-driver", prereqs::ensure_tauri_driver)?;
    timed("prerequisites", || {
        prereqs::ensure_packages(prereqs::Purpose::Test)
    })?;
    // After the packages: python3-venv is one of them.
    let schemathesis = beside::start("install schemathesis", reliability::install_schemathesis)?;
    step("rustfmt", cargo().args(["fmt", "--all", "--check"]))?;
    timed("module cycles", || module_cycles::check(&root()))?;
    timed("the architecture map", || architecture::check(&root()))?;
    timed("long files say why", || long_files::check(&root()))?;
    // Clippy lints the build of every test as it is built (see `lint_build`): the
    // dependencies are built once, not once more in check mode.
    host_units::clear_mark();
    step(
        "clippy and the build of every test",
        cargo().args(["test", "--workspace", "--no-run"]),
    )?;
    // The cross builds of `.ci/run` wait for this to take its host units (see `host_units`).
    host_units::mark_built()?;
    step("Rust tests", cargo().args(["test", "--workspace"]))?;
    schemathesis.wait()?;
    reliability::contract()?;
    step(
        "UI tests",
        Command::new("node")
            .args(["--test", "tests/"])
            .current_dir(root().join("ui")),
    )?;
    platforms::actionlint()?;
    tauri_driver.wait()?;
    e2e(&[])?;
    // Last, so that the jobs beside had the end-to-end tests' idle cycles: on a cold run the
    // main line once waited 48 s for cargo-deny's install here after the build, and 166 s for
    // the fuzz build after the contract checks, while the fuzz runs kept the window waiting.
    fuzzing.wait()?;
    cargo_deny.wait()?;
    deny::run()
}

/// The end-to-end tests drive the real window through tauri-driver, so they need a display,
/// a D-Bus session and private XDG folders; `session` provides all three. `filters` pick the
/// tests whose name contains one of them, as `cargo test` does.
fn e2e(filters: &[String]) -> Result<()> {
    // Built as `cargo xtask test` builds (linted), so that after it this compiles nothing.
    lint_build::enable();
    if cfg!(target_os = "linux") {
        prereqs::ensure(prereqs::Purpose::Test)?;
    }
    steps::build_app("build the app")?;
    let sandbox = session::Sandbox::new()?;
    if cfg!(target_os = "linux") {
        keyring_stores(&sandbox)?;
    }
    let display = session::Display::ensure()?;
    let mut cmd = sandbox.command(cargo().get_program());
    lint_build::apply(&mut cmd);
    cmd.current_dir(root()).args([
        "test",
        "--workspace",
        "--test",
        "e2e",
        "--",
        "--ignored",
        "--test-threads=1",
    ]);
    cmd.args(filters);
    display.apply(&mut cmd);
    step("end-to-end tests", &mut cmd)
}

/// The two Linux keyring stores the app may use, each where it exists: the Secret Service in
/// the sandbox's D-Bus session, the kernel keyutils in a fresh session keyring. The test
/// binaries are the workspace's (`--workspace --lib`, see [`steps::build_app`]): only
/// `domain-desk-app`'s has tests with these names, the others run none.
fn keyring_stores(sandbox: &session::Sandbox) -> Result<()> {
    let test_args = |filter: &str| {
        ["test", "--workspace", "--lib", "--", filter, "--ignored"].map(String::from)
    };
    let mut secret_service = sandbox.command(cargo().get_program());
    lint_build::apply(&mut secret_service);
    secret_service
        .current_dir(root())
        .args(test_args("secrets::linux::tests::secret_service"));
    step("API keys in the Secret Service", &mut secret_service)?;
    let mut keyutils = Command::new("keyctl");
    lint_build::apply(&mut keyutils);
    keyutils
        .current_dir(root())
        .args(["session", "-"])
        .arg(cargo().get_program())
        .args(test_args("secrets::linux::tests::kernel_keyutils"));
    step("API keys in the kernel keyring", &mut keyutils)
}

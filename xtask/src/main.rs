//! The project's task runner: `cargo xtask run | test | …`.
//!
//! One place knows how to set up a machine, build and test, so a newcomer, CI and every
//! developer run exactly the same steps. It shells out to cargo, node and the system tools;
//! it has no logic of the product.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench;
mod deb_check;
mod platforms;
mod prereqs;
mod reliability;
mod session;
mod wine;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <command>

commands:
  run          install what the app needs (Linux), build it and open the window
  test         install the test tools, then fmt, clippy, every Rust test, the reliability
               checks, the UI tests and the end-to-end tests under Xvfb
  e2e [NAME…]  only the end-to-end tests (under Xvfb when there is no display); with
               NAMEs, only the tests whose name contains one of them
  prereqs      only install what building and testing need (Linux)
  reliability  schemathesis against `domain-desk serve`, then a short run of every fuzz target
  contract     only the schemathesis passes
  fuzz         only the fuzz targets (cargo-fuzz, a short bounded run of each)
  icons        regenerate every icon from icons/app-icon.svg
  bundle       release build and Linux packages (.deb, .rpm)
  deb-check    install the .deb on a fresh Debian tree (debootstrap) and start it there
  windows      cross-build the workspace for Windows (MinGW)
  macos-check  type-check the Tauri-free crates for macOS
  acceptance   the contract's acceptance walk-throughs from ../shared/acceptance
  bench        performance figures against peers: bench [service|queue|doctor|app|all]
               (installs wrk, dig, Prism, json-server and WireMock; see BENCHMARKS.md)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("test") => test(),
        Some("e2e") => e2e(&args[1..]),
        Some("prereqs") => prereqs::ensure(prereqs::Purpose::Test),
        Some("reliability") => reliability::run(),
        Some("contract") => reliability::contract(),
        Some("fuzz") => reliability::fuzz(reliability::FuzzMode::Explore),
        Some("icons") => platforms::icons(),
        Some("bundle") => platforms::bundle(),
        Some("deb-check") => deb_check::run(),
        Some("windows") => platforms::windows(),
        Some("macos-check") => platforms::macos_check(),
        Some("acceptance") => platforms::acceptance(),
        Some("bench") => bench::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown command `{other}`\n\n{USAGE}")),
    };
    if let Err(err) = result {
        eprintln!("xtask: {err:#}");
        std::process::exit(1);
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one folder below the workspace root")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// Whether this runs in CI (`CI=true`, as CI services set it): there, a check that cannot run
/// fails instead of being skipped.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// A check that cannot run here: skipped with a note on a developer's machine, a failure in
/// CI, where a skipped check would look like a passed one.
fn cannot_run(reason: &str, ci: bool) -> Result<()> {
    if ci {
        bail!("{reason}; in CI (CI=true) that is a failure");
    }
    println!("{reason}: skipped");
    Ok(())
}

/// Runs a command to completion, failing with its name when it fails.
fn step(title: &str, cmd: &mut Command) -> Result<()> {
    println!("\n==> {title}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start: {title}"))?;
    if !status.success() {
        bail!("{title} failed ({status})");
    }
    Ok(())
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

fn test() -> Result<()> {
    prereqs::ensure(prereqs::Purpose::Test)?;
    step("rustfmt", cargo().args(["fmt", "--all", "--check"]))?;
    step(
        "clippy",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    step("Rust tests", cargo().args(["test", "--workspace"]))?;
    reliability::run()?;
    step(
        "UI tests",
        Command::new("node")
            .args(["--test", "tests/"])
            .current_dir(root().join("ui")),
    )?;
    e2e(&[])
}

/// The end-to-end tests drive the real window through tauri-driver, so they need a display,
/// a D-Bus session and private XDG folders; `session` provides all three. `filters` pick the
/// tests whose name contains one of them, as `cargo test` does.
fn e2e(filters: &[String]) -> Result<()> {
    if cfg!(target_os = "linux") {
        prereqs::ensure(prereqs::Purpose::Test)?;
    }
    step(
        "build the app",
        cargo().args(["build", "--package", "domain-desk"]),
    )?;
    let sandbox = session::Sandbox::new()?;
    if cfg!(target_os = "linux") {
        keyring_stores(&sandbox)?;
    }
    let display = session::Display::ensure()?;
    let mut cmd = sandbox.command(cargo().get_program());
    cmd.current_dir(root()).args([
        "test",
        "--package",
        "domain-desk",
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
/// the sandbox's D-Bus session, the kernel keyutils in a fresh session keyring.
fn keyring_stores(sandbox: &session::Sandbox) -> Result<()> {
    let test_args = |filter: &str| {
        [
            "test",
            "--package",
            "domain-desk",
            "--lib",
            filter,
            "--",
            "--ignored",
        ]
        .map(String::from)
    };
    let mut secret_service = sandbox.command(cargo().get_program());
    secret_service
        .current_dir(root())
        .args(test_args("secrets::linux::tests::secret_service"));
    step("API keys in the Secret Service", &mut secret_service)?;
    let mut keyutils = Command::new("keyctl");
    keyutils
        .current_dir(root())
        .args(["session", "-"])
        .arg(cargo().get_program())
        .args(test_args("secrets::linux::tests::kernel_keyutils"));
    step("API keys in the kernel keyring", &mut keyutils)
}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_that_cannot_run_fails_in_ci_and_is_skipped_elsewhere() {
        assert!(cannot_run("Wine is not installed", false).is_ok());
        let err = cannot_run("Wine is not installed", true).unwrap_err();
        assert!(err.to_string().contains("Wine is not installed"), "{err}");
    }
}

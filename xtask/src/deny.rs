//! `cargo deny`, offline: what we link is checked against RustSec's advisories (the snapshot in
//! `../shared/advisory-db`), an allow-list of licenses, crates.io as the only source, and the
//! duplicates `deny.toml` bans. CI reaches no advisory server, and cargo-deny opens each
//! database as a git repository under its `db-path`: the snapshot is copied there and made
//! one commit before the run.
//!
//! The check proves it can fail before it is trusted: a canary workspace whose lock file pins
//! hickory-proto 0.25.2 (RUSTSEC-2026-0118, -0119) must be refused, with those advisories
//! named, by the same policy and database.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::steps::{cannot_run, cargo, in_ci, root, step};

/// The cargo-deny release the directory name below was read from.
const CARGO_DENY_VERSION: &str = "0.20.2";
/// Where cargo-deny 0.20 looks for the database of `db-urls` in `deny.toml`
/// (`https://github.com/rustsec/advisory-db`), under `db-path`.
const DATABASE_DIRECTORY: &str = "advisory-db-3157b0e258782691";
/// The advisories the canary's lock file must be refused for.
const CANARY_ADVISORIES: [&str; 2] = ["RUSTSEC-2026-0118", "RUSTSEC-2026-0119"];

pub fn run() -> Result<()> {
    let snapshot = root().join("../shared/advisory-db");
    if !snapshot.join("crates").is_dir() {
        return cannot_run(
            &format!("no advisory snapshot at {}", snapshot.display()),
            in_ci(),
        );
    }
    ensure_cargo_deny()?;
    let database = lay_database(&snapshot)?;
    step("fetch every platform's crates", cargo().arg("fetch"))?;
    canary_is_refused(&database)?;
    step(
        "cargo deny (advisories, bans, licenses, sources)",
        cargo().args(["deny", "--offline", "check"]),
    )
}

pub fn ensure_cargo_deny() -> Result<()> {
    let version = Command::new("cargo")
        .args(["deny", "--version"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
    if version.is_some_and(|version| version.trim().ends_with(CARGO_DENY_VERSION)) {
        return Ok(());
    }
    step(
        "install cargo-deny",
        crate::steps::cargo_install().args([
            "cargo-deny",
            "--locked",
            "--version",
            CARGO_DENY_VERSION,
        ]),
    )
}

/// The snapshot as the git repository cargo-deny opens: `target/advisory-dbs/<directory>`,
/// laid anew each run (one commit of the snapshot's files as they are).
fn lay_database(snapshot: &Path) -> Result<PathBuf> {
    let databases = root().join("target/advisory-dbs");
    let database = databases.join(DATABASE_DIRECTORY);
    if database.exists() {
        fs::remove_dir_all(&database)
            .with_context(|| format!("cannot clear {}", database.display()))?;
    }
    copy_tree(snapshot, &database)?;
    let git = |args: &[&str]| -> Result<()> {
        let status = Command::new("git")
            .current_dir(&database)
            .args([
                "-c",
                "user.name=Domain Desk CI",
                "-c",
                "user.email=ci@localhost",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .stdout(Stdio::null())
            .status()
            .context("cannot run git")?;
        if !status.success() {
            bail!("git {} failed in {}", args.join(" "), database.display());
        }
        Ok(())
    };
    git(&["init", "--quiet"])?;
    git(&["add", "--all"])?;
    git(&[
        "commit",
        "--quiet",
        "--message",
        "RustSec advisory snapshot",
    ])?;
    Ok(databases)
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
            // The shared folder is read-only for CI; the copy must be writable to clear it.
            let mut permissions = fs::metadata(&target)?.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            fs::set_permissions(&target, permissions)?;
        }
    }
    Ok(())
}

/// The canary: a workspace of one crate that links hickory-proto 0.25.2, checked with this
/// workspace's `deny.toml` against the same database. It must fail, naming the advisories.
fn canary_is_refused(databases: &Path) -> Result<()> {
    let canary = root().join("target/deny-canary");
    fs::create_dir_all(canary.join("src"))?;
    fs::write(
        canary.join("Cargo.toml"),
        "[package]\nname = \"deny-canary\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\nlicense = \"MIT\"\n\n[dependencies]\n\
         hickory-proto = { version = \"=0.25.2\", default-features = false, features = [\"std\"] }\n\n\
         [workspace]\n",
    )?;
    fs::write(canary.join("src/lib.rs"), "")?;
    let manifest = canary.join("Cargo.toml");
    step(
        "lock the canary (hickory-proto 0.25.2)",
        cargo()
            .arg("generate-lockfile")
            .arg("--manifest-path")
            .arg(&manifest),
    )?;
    step(
        "fetch the canary's crates",
        cargo().arg("fetch").arg("--manifest-path").arg(&manifest),
    )?;
    // The canary's own deny.toml: ours, with the database where this run laid it.
    let policy = fs::read_to_string(root().join("deny.toml"))?.replace(
        "db-path = \"target/advisory-dbs\"",
        &format!("db-path = {:?}", databases.display().to_string()),
    );
    let config = canary.join("deny.toml");
    fs::write(&config, policy)?;
    println!("\n==> cargo deny refuses the canary");
    let output = cargo()
        .arg("deny")
        .arg("--offline")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--config")
        .arg(&config)
        .args(["check", "advisories"])
        .output()
        .context("cannot run cargo deny")?;
    let said = String::from_utf8_lossy(&output.stderr);
    judge_canary(output.status.success(), &said)?;
    println!("refused, naming {}", CANARY_ADVISORIES.join(" and "));
    Ok(())
}

/// The canary's run must fail and name every advisory it links.
fn judge_canary(succeeded: bool, said: &str) -> Result<()> {
    if succeeded {
        bail!(
            "cargo deny passed a lock file with hickory-proto 0.25.2: the advisory check \
             would not fail on a known vulnerability\n{said}"
        );
    }
    let missing: Vec<&str> = CANARY_ADVISORIES
        .into_iter()
        .filter(|id| !said.contains(id))
        .collect();
    if !missing.is_empty() {
        bail!(
            "cargo deny refused the canary without naming {} (is the database empty?)\n{said}",
            missing.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canary_passes_only_when_refused_for_both_advisories() {
        assert!(judge_canary(true, "").is_err());
        assert!(judge_canary(false, "error[vulnerability]: RUSTSEC-2026-0118").is_err());
        assert!(judge_canary(false, "RUSTSEC-2026-0118 … RUSTSEC-2026-0119").is_ok());
        assert!(judge_canary(false, "failed to open the database").is_err());
    }

    #[test]
    fn the_policy_names_the_database_the_check_lays() {
        let policy = fs::read_to_string(root().join("deny.toml")).unwrap();
        assert!(policy.contains("db-path = \"target/advisory-dbs\""));
        assert!(policy.contains("db-urls = [\"https://github.com/rustsec/advisory-db\"]"));
    }
}

//! How xtask runs things, shared by every command: where the workspace is, cargo in it, a
//! step that fails with its name, a check that cannot run (skipped here, a failure in CI).
//! It imports nothing of the commands, so each command can use it without a ring.

use std::path::{Path, PathBuf};
use std::process::Command;

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
    println!("\n==> {title}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start: {title}"))?;
    if !status.success() {
        bail!("{title} failed ({status})");
    }
    Ok(())
}

pub fn exe(name: &str) -> String {
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

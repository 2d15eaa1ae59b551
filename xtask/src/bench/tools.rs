//! The peers and tools the benchmarks compare against, installed at pinned versions (apt for
//! wrk and dig, npm into `target/bench-tools/` for the peers), and the release build of the
//! app they measure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Result, bail};
use serde_json::Value;

use super::processes::output_of;
use crate::steps::{cargo, exe, root, step};

/// The peers, at the versions the comparison was made with.
pub(super) const PRISM: (&str, &str) = ("@stoplight/prism-cli", "5.14.2");
pub(super) const JSON_SERVER: (&str, &str) = ("json-server", "0.17.4");
pub(super) const WIREMOCK: (&str, &str) = ("wiremock", "3.13.2");

/// Installs missing Debian packages when we are root or have password-less sudo.
pub(super) fn ensure_apt(packages: &[&str]) -> Result<()> {
    if !Path::new("/usr/bin/dpkg-query").exists() {
        let missing: Vec<&&str> = packages
            .iter()
            .filter(|p| crate::session::find_on_path(p).is_none())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        bail!("install these first: {missing:?}");
    }
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|package| {
            !output_of(Command::new("dpkg-query").args(["-W", "-f=${Status}", package]))
                .is_some_and(|status| status.contains("install ok installed"))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let list = missing.join(" ");
    let script = format!(
        "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {list}"
    );
    let is_root = output_of(Command::new("id").arg("-u")).is_some_and(|id| id.trim() == "0");
    let mut cmd = if is_root {
        Command::new("sh")
    } else if Command::new("sudo")
        .args(["-n", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
    {
        let mut sudo = Command::new("sudo");
        sudo.arg("-n").arg("sh");
        sudo
    } else {
        bail!("these packages are missing: {list}\ninstall them with:\n  sudo sh -c '{script}'");
    };
    step(&format!("install {list}"), cmd.args(["-c", &script]))
}

/// Prism, json-server and WireMock at their pinned versions, in `target/bench-tools/`.
pub(super) fn ensure_peers() -> Result<PathBuf> {
    ensure_apt(&["openjdk-17-jre-headless"]).or_else(|err| {
        if crate::session::find_on_path("java").is_some() {
            Ok(())
        } else {
            Err(err)
        }
    })?;
    if crate::session::find_on_path("npm").is_none() {
        ensure_apt(&["nodejs", "npm"])?;
    }
    let dir = root().join("target/bench-tools");
    std::fs::create_dir_all(&dir)?;
    let installed = |(name, version): (&str, &str)| {
        std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|manifest| manifest["version"] == version)
    };
    if ![PRISM, JSON_SERVER, WIREMOCK].into_iter().all(installed) {
        if !dir.join("package.json").exists() {
            std::fs::write(
                dir.join("package.json"),
                "{\"name\": \"bench-tools\", \"private\": true}\n",
            )?;
        }
        let specs: Vec<String> = [PRISM, JSON_SERVER, WIREMOCK]
            .iter()
            .map(|(name, version)| format!("{name}@{version}"))
            .collect();
        step(
            "install Prism, json-server and WireMock",
            Command::new("npm")
                .current_dir(&dir)
                .args(["install", "--no-audit", "--no-fund", "--save-exact"])
                .args(&specs),
        )?;
    }
    Ok(dir)
}

/// The release build of the app, or the binary `BENCH_APP_BINARY` names (to compare two
/// builds, say before and after a change).
pub(super) fn build_release_app() -> Result<PathBuf> {
    if let Some(binary) = std::env::var_os("BENCH_APP_BINARY") {
        return Ok(PathBuf::from(binary));
    }
    step(
        "build the app (release)",
        cargo().args(["build", "--release", "--package", "domain-desk"]),
    )?;
    Ok(root().join("target/release").join(exe("domain-desk")))
}

/// The local service without the app around it (the service crate's `serve_memory` example,
/// the service as `domain-desk serve --memory` runs it), to stand in for the platform. Not
/// `domain-desk serve`: that binary is the app's and links GTK and WebKit, so beside the window
/// it shares the app's code pages and those libraries' pages, and PSS bills part of them to it
/// (13.6 MB of the window's processes' file-backed PSS in one pair of readings), which a
/// user's window, talking to the platform, never gets.
pub(super) fn build_platform_stand_in() -> Result<PathBuf> {
    build_service_example("the platform's stand-in", "serve_memory")
}

/// Builds the service crate's example `name` (release) and returns its path.
pub(super) fn build_service_example(what: &str, name: &str) -> Result<PathBuf> {
    step(
        &format!("build {what} (release)"),
        cargo()
            .args(["build", "--release", "--package", "domain-desk-service"])
            .args(["--example", name]),
    )?;
    Ok(root().join("target/release/examples").join(exe(name)))
}

//! What a Linux machine needs to build, run and test the app, installed when we may.
//!
//! On Debian and Ubuntu the missing apt packages are installed when we are root or have sudo
//! without a password; otherwise the exact command is printed. macOS and Windows have what
//! Tauri needs already, so this is a no-op there.

use std::process::{Command, Stdio};

use anyhow::{Result, bail};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Run,
    Test,
    Bundle,
    Windows,
}

const BUILD: &[&str] = &["libwebkit2gtk-4.1-dev", "pkg-config", "build-essential"];
// libayatana-appindicator3-1: the tray icon that keeps watching after the window closes
// (loaded at run time; without it the window minimises instead).
const RUN: &[&str] = &[
    "xvfb",
    "gnome-keyring",
    "keyutils",
    "dbus",
    "libayatana-appindicator3-1",
];
const BUNDLE: &[&str] = &["rpm", "file", "dpkg-dev", "debootstrap"];
const WINDOWS: &[&str] = &[
    "gcc-mingw-w64-x86-64",
    "binutils-mingw-w64-x86-64",
    "wine64",
    // makensis builds the Windows installer (xtask/windows/installer.nsi).
    "nsis",
];
const TEST: &[&str] = &[
    "webkit2gtk-driver",
    // The notification server the end-to-end walk reads the desktop notifications from.
    "dunst",
    // xdg-open and xdg-mime: opening domain-desk:// links as the desktop does; gio (GLib's
    // launcher, what GNOME opens links with) honours the desktop entry's %u.
    "xdg-utils",
    "libglib2.0-bin",
    "imagemagick",
    "xdotool",
    "dnsutils",
    // The doctor benchmark's batch peer (adnshost) and the DNS server's ceiling (dnsperf);
    // dig -f comes with dnsutils.
    "adns-tools",
    "dnsperf",
    // The DNS doctor's real-server test: a root, TLDs and zones in NSD, Unbound resolving
    // from that root, in a network namespace (`ip`, with unshare and mount from util-linux).
    "nsd",
    "unbound",
    // ldns-keygen and ldns-signzone sign that test's zones (DNSSEC failures seen through
    // a validating Unbound).
    "ldnsutils",
    "iproute2",
    "jq",
    "curl",
    "bc",
    // schemathesis (`cargo xtask reliability`) is installed into a virtual environment.
    "python3-venv",
];

pub fn ensure(purpose: Purpose) -> Result<()> {
    ensure_packages(purpose)?;
    if purpose == Purpose::Test {
        ensure_tauri_driver()?;
    }
    Ok(())
}

/// The apt packages alone (`cargo xtask test` installs tauri-driver beside its build).
pub fn ensure_packages(purpose: Purpose) -> Result<()> {
    if !cfg!(target_os = "linux") || !std::path::Path::new("/usr/bin/dpkg-query").exists() {
        return Ok(());
    }
    let mut wanted: Vec<&str> = BUILD.iter().chain(RUN).copied().collect();
    match purpose {
        Purpose::Run => {}
        Purpose::Test => wanted.extend(TEST),
        Purpose::Bundle => wanted.extend(BUNDLE),
        Purpose::Windows => wanted.extend(WINDOWS),
    }
    let missing: Vec<&str> = wanted.into_iter().filter(|p| !installed(p)).collect();
    if !missing.is_empty() {
        install(&missing)?;
    }
    Ok(())
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
}

fn install(packages: &[&str]) -> Result<()> {
    let list = packages.join(" ");
    let command = format!(
        "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {list}"
    );
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo_ok = !is_root
        && Command::new("sudo")
            .args(["-n", "true"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    let mut cmd = if is_root {
        let mut c = Command::new("sh");
        c.args(["-c", &command]);
        c
    } else if sudo_ok {
        let mut c = Command::new("sudo");
        c.args(["-n", "sh", "-c", &command]);
        c
    } else {
        bail!("these packages are missing: {list}\ninstall them with:\n  sudo sh -c '{command}'");
    };
    println!("\n==> installing {list}");
    if !cmd.status()?.success() {
        bail!("installing {list} failed; run this yourself:\n  sudo sh -c '{command}'");
    }
    Ok(())
}

pub fn ensure_tauri_driver() -> Result<()> {
    if crate::session::find_on_path("tauri-driver").is_some() {
        return Ok(());
    }
    crate::steps::step(
        "install tauri-driver",
        crate::steps::cargo_install().args(["tauri-driver", "--locked", "--version", "^2"]),
    )
}

//! Installs the `.deb` on a fresh Debian and starts it there: `cargo xtask deb-check`.
//!
//! A fresh machine is a Debian 12 tree made with `debootstrap --variant=minbase` (from the
//! Debian archive), so apt must resolve every dependency the package declares, and nothing
//! the build machine happens to have can hide a missing one. In that tree the check installs
//! the package with apt, runs `domain-desk --version` and `domain-desk info`, then opens the
//! window on an Xvfb display of the host and saves a screenshot to `target/deb-check.png`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::steps::{root, step};

const SUITE: &str = "bookworm";
const MIRROR: &str = "http://deb.debian.org/debian";

pub fn run() -> Result<()> {
    if !cfg!(target_os = "linux") {
        bail!("deb-check needs Linux (debootstrap and chroot)");
    }
    let deb = find_deb()?;
    let tree = root().join("target/deb-check/debian");
    if !tree.join("usr/bin/apt-get").exists() {
        std::fs::create_dir_all(&tree)?;
        step(
            "a fresh Debian 12 (debootstrap minbase)",
            Command::new("debootstrap")
                .args(["--variant=minbase", SUITE])
                .arg(&tree)
                .arg(MIRROR),
        )?;
    }
    std::fs::copy(&deb, tree.join("tmp/domain-desk.deb"))?;
    std::fs::copy("/etc/resolv.conf", tree.join("etc/resolv.conf"))?;
    let mounts = Mounts::new(&tree)?;
    step(
        "install the .deb with apt in the fresh tree",
        chroot(&tree).args([
            "sh",
            "-c",
            "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
             apt-get install -y -qq --no-install-recommends /tmp/domain-desk.deb >/tmp/install.log \
             && dpkg-query -W -f='${Package} ${Version} ${Status}\\n' domain-desk",
        ]),
    )?;
    step(
        "domain-desk --version",
        chroot(&tree).args(["domain-desk", "--version"]),
    )?;
    step(
        "domain-desk info",
        chroot(&tree).args(["domain-desk", "info"]),
    )?;
    let shot = window_screenshot(&tree)?;
    println!("the installed app opened its window: {}", shot.display());
    drop(mounts);
    Ok(())
}

fn find_deb() -> Result<PathBuf> {
    let dir = root().join("target/release/bundle/deb");
    std::fs::read_dir(&dir)
        .with_context(|| format!("no {}: run cargo xtask bundle first", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .context("no .deb in target/release/bundle/deb: run cargo xtask bundle first")
}

fn chroot(tree: &Path) -> Command {
    let mut cmd = Command::new("chroot");
    cmd.arg(tree)
        .env("HOME", "/root")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .stdin(Stdio::null());
    cmd
}

/// Starts the installed app on a private Xvfb display and photographs its first paint.
fn window_screenshot(tree: &Path) -> Result<PathBuf> {
    let xvfb = crate::session::Display::xvfb(150..250)?;
    let display = xvfb.name().unwrap_or_default().to_owned();
    let result = (|| {
        let mut app = chroot(tree)
            .env("DISPLAY", &display)
            .args(["domain-desk"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("start the installed domain-desk")?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut mapped = false;
        while Instant::now() < deadline && !mapped {
            std::thread::sleep(Duration::from_millis(250));
            if let Some(status) = app.try_wait()? {
                bail!("the installed domain-desk exited at start ({status})");
            }
            mapped = Command::new("xdotool")
                .args(["search", "--name", "Domain Desk"])
                .env("DISPLAY", &display)
                .output()
                .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
        }
        if !mapped {
            let _ = app.kill();
            bail!("no Domain Desk window within 30 s");
        }
        // the page paints about half a second after the window maps
        std::thread::sleep(Duration::from_secs(3));
        let shot = root().join("target/deb-check.png");
        let status = Command::new("import")
            .args(["-window", "root"])
            .arg(&shot)
            .env("DISPLAY", &display)
            .status()?;
        let _ = app.kill();
        let _ = app.wait();
        if !status.success() {
            bail!("the screenshot failed");
        }
        Ok(shot)
    })();
    drop(xvfb);
    result
}

/// /proc and the X socket folder inside the tree, unmounted on drop.
struct Mounts {
    tree: PathBuf,
    mounted: Vec<PathBuf>,
}

impl Mounts {
    fn new(tree: &Path) -> Result<Self> {
        let proc_dir = tree.join("proc");
        let x11 = tree.join("tmp/.X11-unix");
        std::fs::create_dir_all(&x11)?;
        let mut mounted = Vec::new();
        for (args, target) in [
            (vec!["-t", "proc", "proc"], &proc_dir),
            (vec!["--bind", "/tmp/.X11-unix"], &x11),
        ] {
            let ok = Command::new("mount")
                .args(&args)
                .arg(target)
                .status()?
                .success();
            if !ok {
                bail!("mount {} failed (deb-check needs root)", target.display());
            }
            mounted.push(target.clone());
        }
        Ok(Self {
            tree: tree.to_path_buf(),
            mounted,
        })
    }
}

impl Drop for Mounts {
    fn drop(&mut self) {
        end_processes_inside(&self.tree);
        for target in self.mounted.iter().rev() {
            let _ = Command::new("umount").arg(target).status();
        }
    }
}

/// The app's WebKit helpers outlive it for a moment; end every process whose root is the
/// tree so that its mounts can go.
fn end_processes_inside(tree: &Path) {
    let Ok(tree) = tree.canonicalize() else {
        return;
    };
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if std::fs::read_link(entry.path().join("root")).is_ok_and(|root| root == tree) {
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &pid.to_string()])
                .status();
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

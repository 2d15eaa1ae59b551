//! Installs the `.deb` on a fresh Debian and starts it there: `cargo xtask deb-check`.
//!
//! A fresh machine is a Debian 12 tree made with `debootstrap --variant=minbase` (from the
//! Debian archive), so apt must resolve every dependency the package declares, and nothing
//! the build machine happens to have can hide a missing one. In that tree the check installs
//! the package with apt, runs `domain-desk --version` and `domain-desk info`, then opens the
//! window on an Xvfb display of the host and saves a screenshot to `target/deb-check.png`.
//!
//! Then the package's `domain-desk://` handler, as a desktop user meets it: with the tools a
//! desktop has (`xdg-utils`, `desktop-file-utils`, `dbus`) added after the package, `xdg-mime`
//! must name the package's own desktop entry for the scheme, and `xdg-open` of a Diagnose
//! link while the window runs must reach that window (one window still, the app's log says
//! the window took the link; `target/deb-check-link.png` shows it).

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
            // A tree kept from an earlier run first loses that run's package, the tools and
            // every dependency they brought (and root's data), so apt must resolve them again.
            "export DEBIAN_FRONTEND=noninteractive; \
             if dpkg -s domain-desk >/dev/null 2>&1; then \
               apt-get purge -y -qq domain-desk xdg-utils desktop-file-utils dbus >/dev/null && \
               apt-get autoremove --purge -y -qq >/dev/null; fi; \
             rm -rf /root/.local /root/.config /root/.cache; \
             apt-get update -qq && \
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
    step(
        "a desktop's tools in the tree: xdg-utils, desktop-file-utils, dbus",
        chroot(&tree).args([
            "sh",
            "-c",
            "export DEBIAN_FRONTEND=noninteractive; \
             apt-get install -y -qq --no-install-recommends xdg-utils desktop-file-utils dbus \
             >/tmp/tools.log && update-desktop-database -q /usr/share/applications",
        ]),
    )?;
    scheme_handler_is_the_package(&tree)?;
    window_and_link(&tree)?;
    drop(mounts);
    Ok(())
}

/// The link a support reply would carry; it only opens the Diagnose panel.
const LINK: &str = "domain-desk://diagnose/www.example.com";

/// `xdg-mime` in the tree names the package's own desktop entry for `domain-desk://`, and
/// that entry hands the link to the program (`%u`).
fn scheme_handler_is_the_package(tree: &Path) -> Result<()> {
    let output = chroot(tree)
        .args([
            "xdg-mime",
            "query",
            "default",
            "x-scheme-handler/domain-desk",
        ])
        .output()
        .context("xdg-mime in the tree")?;
    let handler = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if handler.is_empty() {
        bail!("no handler for domain-desk:// after installing the package");
    }
    let entry = tree.join("usr/share/applications").join(&handler);
    let text = std::fs::read_to_string(&entry)
        .with_context(|| format!("the handler {handler} is not in /usr/share/applications"))?;
    let owner = chroot(tree)
        .args(["dpkg", "-S", &format!("/usr/share/applications/{handler}")])
        .output()
        .context("dpkg -S in the tree")?;
    let owner = String::from_utf8_lossy(&owner.stdout);
    if !owner.starts_with("domain-desk:") {
        bail!("the domain-desk:// handler {handler} is not the package's ({owner})");
    }
    let exec = text
        .lines()
        .find(|l| l.starts_with("Exec="))
        .unwrap_or_default();
    if !exec.contains("%u") && !exec.contains("%U") {
        bail!("{handler} does not pass the link to the program: {exec}");
    }
    println!("    domain-desk:// → {handler} (from the package), {exec}");
    Ok(())
}

/// Starts the installed app on a private Xvfb display, in a D-Bus session of the tree (the
/// one-instance handover goes over it), photographs its first paint, then opens [`LINK`]
/// with the tree's `xdg-open` and checks that the running window took it.
fn window_and_link(tree: &Path) -> Result<()> {
    let xvfb = crate::session::Display::xvfb(150..250)?;
    let display = xvfb.name().unwrap_or_default().to_owned();
    let signal = |name: &str| tree.join("tmp").join(name);
    for name in ["dd-open-link", "dd-stop", "dd-xdg-open.status"] {
        let _ = std::fs::remove_file(signal(name));
    }
    let log = tree.join("root/.local/share/dev.domaindesk.app/logs/domain-desk.log");
    let _ = std::fs::remove_file(&log);
    // The session's programs run inside the tree; the host tells them when to open the link
    // and when to stop through files in the tree's /tmp.
    let script = r#"dbus-run-session -- sh -c '
        domain-desk >/tmp/dd-app.log 2>&1 &
        app=$!
        while [ ! -e /tmp/dd-open-link ] && kill -0 $app 2>/dev/null; do sleep 0.2; done
        if [ -e /tmp/dd-open-link ]; then
          xdg-open "$(cat /tmp/dd-open-link)" >/tmp/dd-xdg-open.log 2>&1
          echo $? >/tmp/dd-xdg-open.status
        fi
        while [ ! -e /tmp/dd-stop ] && kill -0 $app 2>/dev/null; do sleep 0.2; done
        kill $app 2>/dev/null; wait $app 2>/dev/null; exit 0'"#;
    let result = (|| {
        let mut session = chroot(tree)
            .env("DISPLAY", &display)
            .args(["sh", "-c", script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("start the installed domain-desk")?;
        let windows = |display: &str| -> usize {
            Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "Domain Desk"])
                .env("DISPLAY", display)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).lines().count())
                .unwrap_or(0)
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while windows(&display) == 0 {
            if let Some(status) = session.try_wait()? {
                bail!("the installed domain-desk exited at start ({status})");
            }
            if Instant::now() > deadline {
                bail!("no Domain Desk window within 30 s");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        // the page paints about half a second after the window maps
        std::thread::sleep(Duration::from_secs(3));
        let shot = screenshot(&display, "deb-check.png")?;
        println!("the installed app opened its window: {}", shot.display());
        let before = windows(&display);

        std::fs::write(signal("dd-open-link"), LINK)?;
        let status = wait_for(Duration::from_secs(30), || {
            std::fs::read_to_string(signal("dd-xdg-open.status")).ok()
        })
        .context("xdg-open did not return within 30 s")?;
        if status.trim() != "0" {
            bail!("xdg-open {LINK} in the tree exited {}", status.trim());
        }
        let taken = wait_for(Duration::from_secs(30), || {
            let text = std::fs::read_to_string(&log).ok()?;
            text.lines()
                .find(|l| l.contains("the window took a link") && l.contains("www.example.com"))
                .map(str::to_owned)
        })
        .with_context(|| {
            format!(
                "the window did not take the link within 30 s ({})",
                log.display()
            )
        })?;
        std::thread::sleep(Duration::from_secs(2));
        let after = windows(&display);
        if after != before {
            bail!(
                "{before} window(s) before the link, {after} after: the link opened a second app"
            );
        }
        let shot = screenshot(&display, "deb-check-link.png")?;
        println!(
            "    xdg-open {LINK}: exit 0, still {after} window; the log: {}",
            taken.trim()
        );
        println!("    the window with the link: {}", shot.display());
        std::fs::write(signal("dd-stop"), "")?;
        if wait_for(Duration::from_secs(10), || {
            session.try_wait().ok().flatten()
        })
        .is_none()
        {
            let _ = session.kill();
            let _ = session.wait();
        }
        Ok(())
    })();
    drop(xvfb);
    result
}

fn screenshot(display: &str, name: &str) -> Result<PathBuf> {
    let shot = root().join("target").join(name);
    let status = Command::new("import")
        .args(["-window", "root"])
        .arg(&shot)
        .env("DISPLAY", display)
        .status()?;
    if !status.success() {
        bail!("the screenshot failed");
    }
    Ok(shot)
}

/// Polls `check` every 200 ms until it answers or `limit` has passed.
fn wait_for<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check() {
            return Some(value);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
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

//! A display and a private desktop session for running the window headless.
//!
//! Under Xvfb with `dbus-run-session` and XDG folders in a temporary directory, GTK's session
//! daemons end with the test and nothing is written into the user's home folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result};

/// The X display the window uses: the user's own, or an Xvfb we started and stop on drop.
pub struct Display {
    name: Option<String>,
    xvfb: Option<Child>,
}

impl Display {
    pub fn ensure() -> Result<Self> {
        if !cfg!(target_os = "linux")
            || std::env::var_os("DISPLAY").is_some()
            || std::env::var_os("WAYLAND_DISPLAY").is_some()
        {
            return Ok(Self {
                name: None,
                xvfb: None,
            });
        }
        let display = Self::xvfb(90..200)?;
        println!(
            "\n==> no display: started Xvfb on {}",
            display.name().unwrap_or_default()
        );
        Ok(display)
    }

    /// A private Xvfb display (1280×800, no TCP) on the first free number in `numbers`, once
    /// its socket is there; stopped on drop.
    pub fn xvfb(numbers: std::ops::Range<u32>) -> Result<Self> {
        let number = free_display_number(numbers)?;
        let name = format!(":{number}");
        let child = Command::new("Xvfb")
            .args([
                name.as_str(),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("could not start Xvfb (apt-get install xvfb)")?;
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        for _ in 0..100 {
            if socket.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(Self {
            name: Some(name),
            xvfb: Some(child),
        })
    }

    /// The display's name (`:99`), or `None` for the user's own.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    pub fn apply(&self, cmd: &mut Command) {
        if let Some(name) = &self.name {
            cmd.env("DISPLAY", name);
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(child) = &mut self.xvfb {
            stop_x_server(child);
        }
    }
}

/// The first display number in `numbers` no running X server holds. A number whose lock file
/// names a process that is gone is free: a server killed outright leaves its lock and socket
/// behind, and the next server on that number clears both.
pub fn free_display_number(numbers: std::ops::Range<u32>) -> Result<u32> {
    numbers
        .into_iter()
        .find(|n| !display_in_use(*n))
        .context("no free X display number")
}

fn display_in_use(number: u32) -> bool {
    match std::fs::read_to_string(format!("/tmp/.X{number}-lock")) {
        // a lock holds the server's pid; the server is gone when /proc has no such process
        Ok(lock) => lock
            .trim()
            .parse::<u32>()
            .map_or(true, |pid| Path::new(&format!("/proc/{pid}")).exists()),
        // a socket without a lock: someone else's, leave it be
        Err(_) => Path::new(&format!("/tmp/.X11-unix/X{number}")).exists(),
    }
}

/// Stops an X server so that it removes its lock and socket (SIGTERM, then SIGKILL after two
/// seconds if it is still there).
fn stop_x_server(child: &mut std::process::Child) {
    let _ = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .stderr(Stdio::null())
        .status();
    for _ in 0..40 {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Private XDG folders and a D-Bus session with an unlocked keyring, for one run.
pub struct Sandbox {
    dir: tempfile_dir::TempDir,
}

impl Sandbox {
    pub fn new() -> Result<Self> {
        Ok(Self {
            dir: tempfile_dir::TempDir::new("domain-desk-e2e")?,
        })
    }

    /// A command that runs `program` inside the sandbox's D-Bus session.
    pub fn command(&self, program: &std::ffi::OsStr) -> Command {
        let root = self.dir.path();
        let mut cmd = if cfg!(target_os = "linux") && find_on_path("dbus-run-session").is_some() {
            let mut c = Command::new("dbus-run-session");
            c.args(["--", "sh", "-c", "echo | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec \"$@\"", "sh"]);
            c.arg(program);
            c
        } else {
            Command::new(program)
        };
        for (var, sub) in [
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
            ("XDG_RUNTIME_DIR", "runtime"),
        ] {
            let path = root.join(sub);
            let _ = std::fs::create_dir_all(&path);
            cmd.env(var, path);
        }
        cmd
    }
}

pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(home).join("bin"));
    } else if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// A temporary folder removed on drop, without pulling a crate into the task runner.
mod tempfile_dir {
    use std::path::{Path, PathBuf};

    pub struct TempDir(PathBuf);

    impl TempDir {
        pub fn new(prefix: &str) -> std::io::Result<Self> {
            let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path)?;
            Ok(Self(path))
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[cfg(test)]
mod display_tests {
    use super::*;

    #[test]
    fn a_display_whose_server_is_gone_is_free() {
        // a number no X server uses; its lock names a live process, then a finished one
        let number = 987_654;
        let lock = format!("/tmp/.X{number}-lock");
        std::fs::write(&lock, format!("{:>10}\n", std::process::id())).unwrap();
        assert!(display_in_use(number), "held by this (live) process");
        let mut finished = Command::new("true").spawn().unwrap();
        finished.wait().unwrap();
        std::fs::write(&lock, format!("{:>10}\n", finished.id())).unwrap();
        let in_use = display_in_use(number);
        std::fs::remove_file(&lock).unwrap();
        assert!(!in_use, "a lock left by a process that is gone");
        assert!(!display_in_use(number), "no lock, no socket");
    }
}

//! Runs the Windows build under Wine: a prefix and the commands run in it (the installer's
//! walk in `installer.rs` uses them), and the installed program's headless subcommands run
//! against each other:
//! the Windows `domain-desk serve` answers the Windows `domain-desk doctor` and plain HTTP
//! from Linux.
//!
//! Debian's Wine 8 lacks `bcryptprimitives.dll`, which every Rust program for Windows loads,
//! so a stand-in built from `xtask/wine/bcryptprimitives.rs` is put in the prefix's system
//! folder (the installer ships nothing for Wine).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::steps::root;

pub fn find_wine() -> Option<PathBuf> {
    let lib = PathBuf::from("/usr/lib/wine/wine64");
    if lib.is_file() {
        return Some(lib);
    }
    crate::session::find_on_path("wine64").or_else(|| crate::session::find_on_path("wine"))
}

/// A Wine prefix and the commands run in it.
pub struct Wine<'a> {
    pub wine: &'a Path,
    pub prefix: PathBuf,
}

impl Wine<'_> {
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        // Wine in a session of its own: it must not signal or take over the terminal and
        // process group of whoever runs this task.
        let mut cmd = Command::new("setsid");
        cmd.arg(self.wine)
            .arg(program)
            .stdin(Stdio::null())
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env_remove("DISPLAY");
        cmd
    }

    /// The current user's profile folder inside the prefix.
    pub fn profile(&self) -> Result<PathBuf> {
        let users = self.prefix.join("drive_c/users");
        std::fs::read_dir(&users)
            .with_context(|| format!("{} (has Wine started in this prefix?)", users.display()))?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.join("AppData/Local").is_dir())
            .context("no user profile in the Wine prefix")
    }

    pub fn reg(&self, args: &[&str]) -> Option<String> {
        let output = self
            .command("reg")
            .args(args)
            .stderr(Stdio::null())
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    }

    pub fn reg_exists(&self, key: &str) -> bool {
        self.reg(&["query", key]).is_some()
    }

    /// The default value of `key`, as `reg query KEY /ve` prints it.
    pub fn reg_default(&self, key: &str) -> Option<String> {
        let out = self.reg(&["query", key, "/ve"])?;
        out.lines()
            .find_map(|line| line.split_once("REG_SZ"))
            .map(|(_, value)| value.trim().to_owned())
    }
}

/// Builds the stand-in `bcryptprimitives.dll` and puts it in the prefix's system folder,
/// where every program in the prefix finds it (the installer ships nothing for Wine).
pub fn install_shim(wine: &Wine<'_>, target: &str) -> Result<()> {
    // Wine creates its prefix on first use; `wineboot` makes that happen now.
    let _ = Command::new("setsid")
        .arg(wine.wine)
        .arg("wineboot")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env("WINEPREFIX", &wine.prefix)
        .env("WINEDEBUG", "-all")
        .env_remove("DISPLAY")
        .status();
    let system = wine.prefix.join("drive_c/windows/system32");
    std::fs::create_dir_all(&system)?;
    let shim = system.join("bcryptprimitives.dll");
    let status = Command::new("rustc")
        .args([
            "--target",
            target,
            "-C",
            "panic=abort",
            "-O",
            "--crate-type",
            "cdylib",
        ])
        .arg(root().join("xtask/wine/bcryptprimitives.rs"))
        .arg("-o")
        .arg(&shim)
        .status()
        .context("rustc builds the Wine stand-in")?;
    if !status.success() {
        bail!("could not build {}", shim.display());
    }
    Ok(())
}

/// Starts `exe serve` in the prefix, reaches it from Linux, and runs `exe doctor` against its
/// DNS server.
pub fn serve_and_doctor(wine: &Wine<'_>, exe: &Path) -> Result<()> {
    let wine_cmd = |args: &[&str]| {
        let mut cmd = wine.command(exe);
        cmd.args(args);
        cmd
    };
    let ports: Vec<u16> = (0..4).map(|_| free_port()).collect::<Result<_>>()?;
    let addr = |i: usize| format!("127.0.0.1:{}", ports[i]);
    let mut serve = Killed(
        wine_cmd(&[
            "serve",
            "--memory",
            "--api",
            &addr(0),
            "--dns",
            &addr(1),
            "--edge-https",
            &addr(2),
            "--edge-http",
            &addr(3),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("start domain-desk.exe serve under Wine")?,
    );
    let info = wait_for_info(&addr(0), &mut serve.0)?;
    let info: serde_json::Value = serde_json::from_str(&info).context("/_local/info is JSON")?;
    let pro_key = info["demo_keys"]["pro"]
        .as_str()
        .context("a pro demo key")?;
    let dns_target = info["platform_dns_target"]
        .as_str()
        .context("platform_dns_target")?;
    println!("    serve.exe answers /_local/info; DNS target {dns_target}");

    let account = http_get(&addr(0), "/v1/account", Some(pro_key))?;
    if !account.starts_with("HTTP/1.1 200") || !account.contains("\"plan\":\"pro\"") {
        bail!(
            "GET /v1/account from Linux to serve.exe: {}",
            first_line(&account)
        );
    }
    println!("    Linux → serve.exe: GET /v1/account 200, plan pro");

    let output = wine_cmd(&[
        "doctor",
        "shop.example.com",
        "--resolver",
        &addr(1),
        "--local-api",
        &addr(0),
        "--target",
        dns_target,
        "--json",
    ])
    .stderr(Stdio::inherit())
    .output()
    .context("run domain-desk.exe doctor under Wine")?;
    let report = String::from_utf8_lossy(&output.stdout);
    let parsed: serde_json::Value = serde_json::from_str(&report)
        .with_context(|| format!("doctor.exe printed no JSON report: {report}"))?;
    // The old host's A record is all the name reaches: served there today, a warning (the
    // doctor exits 0 when nothing is an error).
    let live_elsewhere = parsed["hosts"][0]["findings"]
        .as_array()
        .is_some_and(|findings| findings.iter().any(|f| f["code"] == "live_elsewhere"));
    if output.status.code() != Some(0) || !live_elsewhere || !report.contains("192.0.2.10") {
        bail!(
            "doctor.exe should find shop.example.com served today by 192.0.2.10 (live_elsewhere, a warning) and exit 0; exit {:?}: {parsed}",
            output.status.code()
        );
    }
    println!(
        "    doctor.exe → serve.exe DNS: served today by 192.0.2.10 (a warning), exit status 0"
    );
    drop(serve);
    Ok(())
}

/// Waits until the prefix's programs have ended (`wineserver -w`).
pub fn wait_for_wineserver(wine: &Path, prefix: &Path) {
    wineserver(wine, prefix, "-w");
}

/// Wine leaves a `wineserver` behind for a few seconds; end it now so nothing outlives the task.
pub fn stop_wineserver(wine: &Path, prefix: &Path) {
    wineserver(wine, prefix, "-k");
}

/// Runs the prefix's `wineserver` (beside `wine`, else on the PATH) with `flag`, quietly.
fn wineserver(wine: &Path, prefix: &Path, flag: &str) {
    let server = wine.with_file_name("wineserver");
    let server = if server.is_file() {
        server
    } else {
        PathBuf::from("wineserver")
    };
    let _ = Command::new(server)
        .arg(flag)
        .env("WINEPREFIX", prefix)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Ends the child when dropped, so a failed check never leaves Wine running.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port `serve.exe` binds when Wine has started it, seconds later: below the ephemeral
/// range, where no outgoing connection can take it meanwhile.
fn free_port() -> Result<u16> {
    Ok(domain_desk_test_support::free_loopback_port()?)
}

fn wait_for_info(api: &str, child: &mut Child) -> Result<String> {
    // Wine's first start creates its prefix, which takes a while.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(response) = http_get(api, "/_local/info", None)
            && response.starts_with("HTTP/1.1 200")
            && let Some((_, body)) = response.split_once("\r\n\r\n")
        {
            return Ok(body.to_owned());
        }
        if let Some(status) = child.try_wait()? {
            bail!("domain-desk.exe serve exited under Wine ({status})");
        }
        if Instant::now() > deadline {
            bail!("domain-desk.exe serve did not answer within 120 s under Wine");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A plain HTTP/1.1 GET with `Connection: close`; enough for a smoke test.
fn http_get(addr: &str, path: &str, bearer: Option<&str>) -> Result<String> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let auth = bearer
        .map(|key| format!("Authorization: Bearer {key}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    Ok(response)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

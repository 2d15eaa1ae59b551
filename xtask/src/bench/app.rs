//! The desktop app: launch time to first paint and memory, with an empty project and one with
//! 5,000 domains, driven through WebDriver.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::{
    Server, Table, add_domains, build_release_app, ensure_apt, expect, free_port,
    project_with_deploy, serve_in_memory,
};

/// Domains in the big project the window opens.
const APP_DOMAINS: usize = 5000;

/// The processes that make up the running app: the app itself and the WebKit processes it
/// starts (not the WebDriver that drives it).
fn is_app_process(comm: &str) -> bool {
    comm.starts_with("domain-desk")
        || (comm.starts_with("WebKit") && !comm.starts_with("WebKitWebDriver"))
}

/// RSS and PSS in KiB, summed over the app's processes below `ancestor`.
fn app_memory(ancestor: u32) -> Result<(u64, u64, usize)> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // the command name is in parentheses and may hold spaces; the parent follows the state
        let Some((_, after)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if let Some(ppid) = ppid {
            parents.push((pid, ppid, comm.trim().to_owned()));
        }
    }
    let mut below = vec![ancestor];
    let mut changed = true;
    while changed {
        changed = false;
        for (pid, ppid, _) in &parents {
            if below.contains(ppid) && !below.contains(pid) {
                below.push(*pid);
                changed = true;
            }
        }
    }
    let (mut rss, mut pss, mut count) = (0, 0, 0);
    for (pid, _, comm) in &parents {
        if !below.contains(pid) || !is_app_process(comm) {
            continue;
        }
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .with_context(|| format!("reading the memory of {comm} ({pid})"))?;
        let field = |name: &str| {
            rollup
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        rss += field("Rss:");
        pss += field("Pss:");
        count += 1;
    }
    if count == 0 {
        bail!("no app or WebKit process found below the driver");
    }
    Ok((rss, pss, count))
}

/// A WebDriver session with the app, spoken over plain HTTP with curl.
struct WebDriver {
    base: String,
    session: String,
}

impl WebDriver {
    fn launch(driver: &str, app: &Path) -> Result<Self> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": app},
        }}});
        let answer = expect("POST", &format!("{driver}/session"), None, Some(&caps), 200)?;
        let session = answer["value"]["sessionId"]
            .as_str()
            .context("WebDriver answered without a session id")?
            .to_owned();
        let webdriver = Self {
            base: format!("{driver}/session/{session}"),
            session,
        };
        expect(
            "POST",
            &format!("{}/timeouts", webdriver.base),
            None,
            Some(&json!({"script": 120_000})),
            200,
        )?;
        Ok(webdriver)
    }

    fn script(&self, script: &str, asynchronous: bool) -> Result<Value> {
        self.script_with(script, asynchronous, json!([]))
    }

    fn script_with(&self, script: &str, asynchronous: bool, args: Value) -> Result<Value> {
        let kind = if asynchronous { "async" } else { "sync" };
        let answer = expect(
            "POST",
            &format!("{}/execute/{kind}", self.base),
            None,
            Some(&json!({"script": script, "args": args})),
            200,
        )?;
        Ok(answer["value"].clone())
    }

    /// Polls `condition` (a JS expression) until it holds.
    fn wait_for(&self, condition: &str, what: &str) -> Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            if self.script(&format!("return Boolean({condition});"), false)? == Value::Bool(true) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!("the window did not show {what} within 120 s")
    }

    fn close(self) -> Result<()> {
        expect("DELETE", &self.base, None, None, 200)
            .map(|_| ())
            .with_context(|| format!("closing WebDriver session {}", self.session))
    }
}

/// What one timed launch measured.
struct Launch {
    first_paint_ms: f64,
    domains_painted_ms: f64,
    rows: u64,
    rss_kib: u64,
    pss_kib: u64,
    processes: usize,
}

impl Launch {
    fn figure(&self) -> String {
        format!(
            "first paint {:.0} ms, Domains painted {:.0} ms ({} rows drawn); memory {:.0} MiB RSS / {:.0} MiB PSS over {} processes",
            self.first_paint_ms,
            self.domains_painted_ms,
            self.rows,
            self.rss_kib as f64 / 1024.0,
            self.pss_kib as f64 / 1024.0,
            self.processes
        )
    }
}

/// The page's own clock, read as soon as the session exists: when the first contentful paint
/// happened, and (waiting for it) when the Domains view first painted with its rows or its
/// empty note, both as Unix milliseconds.
const PAINT_SCRIPT: &str = r#"
const want = arguments[0];
const done = arguments[arguments.length - 1];
const fcp = () => {
  const entries = performance.getEntriesByType('paint');
  const entry = entries.find((e) => e.name === 'first-contentful-paint') || entries[0];
  return entry ? performance.timeOrigin + entry.startTime : null;
};
const shown = () => {
  const rows = document.querySelectorAll('#domains-grid .vt-row[data-index]').length;
  const empty = document.getElementById('domains-empty');
  const total = (document.getElementById('domain-count') || {}).textContent || '';
  if (want === 0) return empty && !empty.hidden ? { rows, total } : null;
  return rows > 0 && total.startsWith(`${want} domain`) ? { rows, total } : null;
};
const check = () => {
  const view = shown();
  if (!view) return setTimeout(check, 5);
  requestAnimationFrame(() => setTimeout(() => done({
    painted: Date.now(), first_paint: fcp(), rows: view.rows, total: view.total,
  }), 0));
};
check();
"#;

fn timed_launch(
    driver: &str,
    app: &Path,
    ancestor: u32,
    label: &str,
    domains: usize,
) -> Result<(WebDriver, Launch)> {
    let launched = unix_millis();
    let webdriver = WebDriver::launch(driver, app)?;
    let seen = webdriver
        .script_with(PAINT_SCRIPT, true, json!([domains]))
        .with_context(|| format!("{label}: the Domains view never painted"))?;
    let painted = seen["painted"].as_f64().context("no paint time")?;
    let first_paint = seen["first_paint"].as_f64().unwrap_or(painted);
    // let the page settle (images, the meter's first event) before reading memory
    std::thread::sleep(Duration::from_secs(3));
    let (rss_kib, pss_kib, processes) = app_memory(ancestor)?;
    println!("    {label}: {}", seen);
    Ok((
        webdriver,
        Launch {
            first_paint_ms: first_paint - launched,
            domains_painted_ms: painted - launched,
            rows: seen["rows"].as_u64().unwrap_or(0),
            rss_kib,
            pss_kib,
            processes,
        },
    ))
}

fn unix_millis() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}

pub(super) fn app(work: &Path, table: &mut Table) -> Result<()> {
    crate::prereqs::ensure(crate::prereqs::Purpose::Test)?;
    ensure_apt(&["curl"])?;
    let binary = build_release_app()?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs)?;

    let (service, key) = serve_in_memory(&binary, &[], &logs.join("app-service.log"))?;
    let base = service.base_url();
    let mut project_ids = Vec::new();
    for name in ["bench-empty", "bench-5000"] {
        project_ids.push(project_with_deploy(&base, &key, name)?);
    }
    println!("\n==> adding {APP_DOMAINS} domains to bench-5000");
    add_domains(
        &base,
        &key,
        &project_ids[1],
        APP_DOMAINS,
        &work.join("add-domains.curl"),
    )?;

    // tauri-driver under a display and a private D-Bus session with a keyring
    let display = crate::session::Display::ensure()?;
    let sandbox = crate::session::Sandbox::new()?;
    let tauri_driver =
        crate::session::find_on_path("tauri-driver").context("tauri-driver is not installed")?;
    let driver_port = free_port()?;
    let native_port = free_port()?;
    let mut cmd = sandbox.command(tauri_driver.as_os_str());
    cmd.args(["--port", &driver_port.to_string()])
        .args(["--native-port", &native_port.to_string()]);
    display.apply(&mut cmd);
    // its own process group, so stopping it also stops the WebKitWebDriver and app it starts
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let driver = DriverGroup(Server::spawn(
        "tauri-driver",
        &mut cmd,
        driver_port,
        &logs.join("tauri-driver.log"),
    )?);
    let driver_url = driver.0.base.clone();
    let ancestor = driver.0.child.id();

    // 1. sign in and open the empty project, so the next launch resumes there
    println!("\n==> signing the window in");
    let setup = WebDriver::launch(&driver_url, &binary)?;
    setup.wait_for(
        "document.getElementById('connect-form')",
        "the first-run form",
    )?;
    setup.script(
        &format!(
            "document.getElementById('connect-base-url').value = {};\
             document.getElementById('connect-api-key').value = {};\
             document.getElementById('connect-form').requestSubmit(); return true;",
            serde_json::to_string(&base)?,
            serde_json::to_string(&key)?
        ),
        false,
    )?;
    // opens a project from the list and waits until the app has saved it as the one to
    // resume, so the next launch opens straight into it
    let open_project = |webdriver: &WebDriver, name: &str, id: &str| -> Result<()> {
        webdriver.wait_for(
            &format!("document.querySelector('[data-testid=\"project-{name}\"]')"),
            "the project list",
        )?;
        webdriver.script(
            &format!(
                "document.querySelector('[data-testid=\"project-{name}\"]').click(); return true;"
            ),
            false,
        )?;
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            let saved = webdriver.script(
                "const done = arguments[arguments.length - 1];\
                 window.__TAURI__.core.invoke('settings_get').then((s) => done(s.last_project), () => done(null));",
                true,
            )?;
            if saved.as_str() == Some(id) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("the app did not keep {name} as the project to resume")
    };
    open_project(&setup, "bench-empty", &project_ids[0])?;
    setup.close()?;

    // 2. a launch straight into the empty project; then open the big one for the next launch
    println!("\n==> launching into the empty project");
    let (webdriver, empty) = timed_launch(&driver_url, &binary, ancestor, "empty project", 0)?;
    webdriver.script(
        "document.getElementById('back-to-projects').click(); return true;",
        false,
    )?;
    open_project(&webdriver, "bench-5000", &project_ids[1])?;
    webdriver.close()?;

    // 3. a launch straight into 5,000 domains
    println!("\n==> launching into the project with {APP_DOMAINS} domains");
    let (webdriver, big) =
        timed_launch(&driver_url, &binary, ancestor, "5,000 domains", APP_DOMAINS)?;
    webdriver.close()?;
    drop(driver);
    drop(service);

    table.add(
        "app: launch",
        "empty project",
        empty.figure(),
        String::new(),
    );
    table.add(
        "app: launch",
        "project with 5,000 domains",
        big.figure(),
        format!(
            "×{:.2} time, ×{:.2} PSS of the empty one",
            big.domains_painted_ms / empty.domains_painted_ms.max(1.0),
            big.pss_kib as f64 / empty.pss_kib.max(1) as f64
        ),
    );
    Ok(())
}

/// tauri-driver in its own process group: the whole group (driver, WebKitWebDriver, app) is
/// stopped by the group's id when dropped.
struct DriverGroup(Server);

impl Drop for DriverGroup {
    fn drop(&mut self) {
        // tauri-driver may outlive SIGTERM, so the group gets SIGKILL after a moment (`--`:
        // procps kill reads `-<pid>` alone as a signal number)
        let group = format!("-{}", self.0.child.id());
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &group])
            .stderr(Stdio::null())
            .status();
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_app_and_its_webkit_processes_count() {
        assert!(is_app_process("domain-desk"));
        assert!(is_app_process("WebKitWebProces"));
        assert!(is_app_process("WebKitNetworkPr"));
        assert!(!is_app_process("WebKitWebDriver"));
        assert!(!is_app_process("tauri-driver"));
    }
}

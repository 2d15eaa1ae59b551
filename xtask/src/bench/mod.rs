//! `cargo xtask bench [service|queue|doctor|app|all]`: the performance figures, printed as one
//! table and saved with the machine they ran on.
//!
//! Every figure is a ratio taken from one run on one machine, so the peers run right beside
//! ours under the same conditions: the local service against Prism, json-server and WireMock
//! serving the same routes (all driven by wrk on loopback), the client's queue against the
//! window-aligned optimum and a naive client, the doctor against `dig -f`, `adnshost` and the
//! server's `dnsperf` ceiling. The tools are installed here, at pinned versions
//! (apt for wrk and dig, npm into `target/bench-tools/` for the peers), so a fresh machine
//! needs nothing but `cargo xtask bench`. Benchmarks are not part of `cargo xtask test`.
//!
//! One file per benchmark (`service`, `queue`, `doctor`, `app`); this one holds what they
//! share: the runner, the table and its report, installing tools, starting processes and
//! calling the API.

use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use domain_desk_test_support::{LOOPBACK_ARGS, Served};
use serde_json::{Value, json};

use crate::{cargo, exe, root, step};

mod app;
mod doctor;
mod queue;
mod service;

use app::app;
use doctor::doctor;
use queue::queue;
use service::service;

const USAGE: &str = "usage: cargo xtask bench [service|queue|doctor|app|all]

environment:
  BENCH_SECONDS      length of each measured wrk run (default 10)
  BENCH_CONNECTIONS  open connections wrk keeps (default 32)
  BENCH_DOCTOR_HOSTS hostnames the doctor diagnoses in one batch (default 1000)
  BENCH_APP_BINARY   measure this domain-desk binary instead of building the release one
  BENCH_APP_ENV      NAME=value,… set for the app in the app benchmark (through its drivers)
  BENCH_APP_LAUNCHES launches into the 5,000-domain project (default 5; the median is the figure)
  BENCH_BARE_AXUM    use this bare_axum build (the service's ceiling) instead of building it
  BENCH_DNS_NAMES    names in the DNS server benchmark (default 1000, 7 questions each)";

/// The peers, at the versions the comparison was made with.
const PRISM: (&str, &str) = ("@stoplight/prism-cli", "5.14.2");
const JSON_SERVER: (&str, &str) = ("json-server", "0.17.4");
const WIREMOCK: (&str, &str) = ("wiremock", "3.13.2");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Service,
    Queue,
    Doctor,
    App,
}

pub fn run(args: &[String]) -> Result<()> {
    let parts = match args.first().map(String::as_str) {
        None | Some("all") => vec![Part::Service, Part::Queue, Part::Doctor, Part::App],
        Some("service") => vec![Part::Service],
        Some("queue") => vec![Part::Queue],
        Some("doctor") => vec![Part::Doctor],
        Some("app") => vec![Part::App],
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return Ok(());
        }
        Some(other) => bail!("unknown benchmark `{other}`\n\n{USAGE}"),
    };
    let work = root().join("target/bench");
    std::fs::create_dir_all(&work)?;
    let mut table = Table::default();
    let mut failures = Vec::new();
    for part in parts {
        let outcome = match part {
            Part::Service => service(&work, &mut table),
            Part::Queue => queue(&mut table),
            Part::Doctor => doctor(&mut table),
            Part::App => app(&work, &mut table),
        };
        if let Err(err) = outcome {
            eprintln!("xtask bench: {part:?} failed: {err:#}");
            failures.push(format!("{part:?}: {err:#}"));
        }
    }
    let report = table.report(&machine());
    let saved = work.join("report.md");
    std::fs::write(&saved, &report)?;
    println!("\n{report}");
    println!("(saved to {})", saved.display());
    if !failures.is_empty() {
        bail!("some benchmarks failed:\n  {}", failures.join("\n  "));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The table

#[derive(Default)]
struct Table {
    rows: Vec<Row>,
}

struct Row {
    part: &'static str,
    subject: String,
    figure: String,
    ratio: String,
}

impl Table {
    fn add(&mut self, part: &'static str, subject: &str, figure: String, ratio: String) {
        self.rows.push(Row {
            part,
            subject: subject.to_owned(),
            figure,
            ratio,
        });
    }

    fn report(&self, machine: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| benchmark | subject | figures | ratio |");
        let _ = writeln!(out, "|---|---|---|---|");
        for row in &self.rows {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                row.part, row.subject, row.figure, row.ratio
            );
        }
        let _ = writeln!(out, "\nMachine: {machine}");
        out
    }
}

/// nproc, CPU model, memory, OS and toolchain: what the figures depend on.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map_or("unknown CPU", |(_, name)| name.trim())
        .to_owned();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_gib = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let os = std::fs::read_to_string("/etc/os-release")
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("PRETTY_NAME="))
        .map_or(std::env::consts::OS.to_owned(), |name| {
            name.trim_matches('"').to_owned()
        });
    let kernel = output_of(Command::new("uname").arg("-r")).unwrap_or_default();
    // other work on the machine skews every figure: say how busy it was
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into());
    let rustc = output_of(Command::new("rustc").arg("-V")).unwrap_or_default();
    format!(
        "nproc {cpus}, {model}, {memory_gib:.1} GiB RAM, {os} (Linux {}), {}; load average {load} at the end",
        kernel.trim(),
        rustc.trim()
    )
}

fn output_of(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

// ---------------------------------------------------------------------------------------------
// Tools

/// Installs missing Debian packages when we are root or have password-less sudo.
fn ensure_apt(packages: &[&str]) -> Result<()> {
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
fn ensure_peers() -> Result<PathBuf> {
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
fn build_release_app() -> Result<PathBuf> {
    if let Some(binary) = std::env::var_os("BENCH_APP_BINARY") {
        return Ok(PathBuf::from(binary));
    }
    step(
        "build the app (release)",
        cargo().args(["build", "--release", "--package", "domain-desk"]),
    )?;
    Ok(root().join("target/release").join(exe("domain-desk")))
}

// ---------------------------------------------------------------------------------------------
// Processes and HTTP

/// A server we started; stopped (by its own pid) when dropped.
struct Server {
    name: &'static str,
    child: Child,
    base: String,
}

impl Server {
    fn spawn(name: &'static str, cmd: &mut Command, port: u16, log: &Path) -> Result<Self> {
        let log_file = std::fs::File::create(log)?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("could not start {name}"))?;
        let mut server = Self {
            name,
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        server.wait_listening(port, log)?;
        Ok(server)
    }

    fn wait_listening(&mut self, port: u16, log: &Path) -> Result<()> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(90) {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "{} exited ({status}) before listening; see {}",
                    self.name,
                    log.display()
                );
            }
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!(
            "{} did not listen on {address} within 90 s; see {}",
            self.name,
            log.display()
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (bound, read, released).
fn free_port() -> Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// One HTTP call through curl; returns the status and the body as JSON (`null` when empty).
fn call(method: &str, url: &str, key: Option<&str>, body: Option<&Value>) -> Result<(u16, Value)> {
    let mut cmd = Command::new("curl");
    cmd.args([
        "-sS",
        "--noproxy",
        "*",
        "-X",
        method,
        "-w",
        "\n%{http_code}",
    ]);
    if let Some(key) = key {
        cmd.args(["-H", &format!("Authorization: Bearer {key}")]);
    }
    if let Some(body) = body {
        cmd.args(["-H", "Content-Type: application/json", "--data-binary"])
            .arg(body.to_string());
    }
    let out = cmd.arg(url).output().context("could not run curl")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
    let status: u16 = status
        .trim()
        .parse()
        .with_context(|| format!("{method} {url}: no HTTP status from curl"))?;
    let body = if body.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).with_context(|| format!("{method} {url}: not JSON"))?
    };
    Ok((status, body))
}

fn expect(
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<&Value>,
    want: u16,
) -> Result<Value> {
    let (status, answer) = call(method, url, key, body)?;
    if status != want {
        bail!("{method} {url}: expected {want}, got {status}: {answer}");
    }
    Ok(answer)
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// "met" or "MISSED" against a goal, for the ratio column.
fn goal(met: bool, text: &str) -> String {
    format!("{} (goal {text})", if met { "met" } else { "MISSED" })
}

/// POSTs each of `bodies` (JSON) to `url` through one curl process (one connection, in
/// order), from a config file written to `config`; returns how many were answered 201.
fn post_in_one_curl(
    url: &str,
    key: Option<&str>,
    bodies: impl IntoIterator<Item = Value>,
    config: &Path,
) -> Result<usize> {
    std::fs::write(config, curl_config(url, key, bodies))?;
    let out = Command::new("curl")
        .args(["-sS", "--noproxy", "*", "-K"])
        .arg(config)
        .output()
        .context("could not run curl")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|code| code.trim() == "201")
        .count())
}

/// A curl config (`-K`) with one POST of each body to `url`, each printing its status.
fn curl_config(url: &str, key: Option<&str>, bodies: impl IntoIterator<Item = Value>) -> String {
    let mut text = String::new();
    for body in bodies {
        let _ = writeln!(text, "url = \"{url}\"");
        if let Some(key) = key {
            let _ = writeln!(text, "header = \"Authorization: Bearer {key}\"");
        }
        let data = body.to_string().replace('\\', "\\\\").replace('"', "\\\"");
        let _ = write!(
            text,
            "header = \"Content-Type: application/json\"\ndata = \"{data}\"\noutput = \"/dev/null\"\nwrite-out = \"%{{http_code}}\\n\"\nnext\n"
        );
    }
    text
}

/// Adds `count` domains to a project through one curl process (one connection, in order).
fn add_domains(base: &str, key: &str, project: &str, count: usize, config: &Path) -> Result<()> {
    let created = post_in_one_curl(
        &format!("{base}/v1/projects/{project}/domains"),
        Some(key),
        (0..count).map(|number| json!({"hostname": format!("site-{number}.example.com")})),
        config,
    )?;
    std::fs::remove_file(config)?;
    if created != count {
        bail!("only {created} of {count} domains were created");
    }
    Ok(())
}

/// `domain-desk serve` with `args` (after `serve`), its log in `log`, started as the tests
/// start it: its banner read for the addresses and keys, its process group killed when
/// dropped.
fn start_serve(binary: &Path, args: &[&str], log: &Path) -> Result<Served> {
    Served::start(
        Command::new(binary)
            .arg("serve")
            .args(args)
            .stderr(std::fs::File::create(log)?),
    )
    .with_context(|| format!("domain-desk serve did not start; see {}", log.display()))
}

/// `domain-desk serve --memory` on loopback ports the system picks, and the Enterprise demo
/// key from its banner.
fn serve_in_memory(binary: &Path, extra: &[&str], log: &Path) -> Result<(Served, String)> {
    let args = [&["--memory"], extra, &LOOPBACK_ARGS[..]].concat();
    let served = start_serve(binary, &args, log)?;
    let key = served
        .demo_key("enterprise")
        .context("no enterprise demo key in the banner")?
        .to_owned();
    Ok((served, key))
}

/// A new project with one deploy (domains need one) on `key`'s account; returns its id.
fn project_with_deploy(base: &str, key: &str, name: &str) -> Result<String> {
    let project = expect(
        "POST",
        &format!("{base}/v1/projects"),
        Some(key),
        Some(&json!({"name": name})),
        201,
    )?;
    let id = project["id"]
        .as_str()
        .context("project without id")?
        .to_owned();
    expect(
        "POST",
        &format!("{base}/v1/projects/{id}/deploys"),
        Some(key),
        Some(&json!({"files": {"index.html": "<h1>bench</h1>"}})),
        201,
    )?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curl_config_posts_each_body_quoted_for_curl() {
        let config = curl_config(
            "http://127.0.0.1:1/v1/x",
            Some("k"),
            [json!({"a": "say \"hi\""}), json!({"b": 1})],
        );
        assert_eq!(
            config,
            "url = \"http://127.0.0.1:1/v1/x\"\n\
             header = \"Authorization: Bearer k\"\n\
             header = \"Content-Type: application/json\"\n\
             data = \"{\\\"a\\\":\\\"say \\\\\\\"hi\\\\\\\"\\\"}\"\n\
             output = \"/dev/null\"\n\
             write-out = \"%{http_code}\\n\"\n\
             next\n\
             url = \"http://127.0.0.1:1/v1/x\"\n\
             header = \"Authorization: Bearer k\"\n\
             header = \"Content-Type: application/json\"\n\
             data = \"{\\\"b\\\":1}\"\n\
             output = \"/dev/null\"\n\
             write-out = \"%{http_code}\\n\"\n\
             next\n"
        );
        assert!(!curl_config("u", None, [json!({})]).contains("Authorization"));
    }
}

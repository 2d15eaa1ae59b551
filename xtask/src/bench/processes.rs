//! Starting what a benchmark measures (the service, the peers) as processes on free ports,
//! and calling the API to set it up: what every benchmark shares.

use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use domain_desk_test_support::{LOOPBACK_ARGS, Served};
use serde_json::{Value, json};

/// A server we started; stopped (by its own pid) when dropped.
pub(super) struct Server {
    pub(super) name: &'static str,
    pub(super) child: Child,
    pub(super) base: String,
}

impl Server {
    pub(super) fn spawn(
        name: &'static str,
        cmd: &mut Command,
        port: u16,
        log: &Path,
    ) -> Result<Self> {
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

    pub(super) fn wait_listening(&mut self, port: u16, log: &Path) -> Result<()> {
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
/// What `cmd` prints, when it runs and succeeds.
pub(super) fn output_of(cmd: &mut Command) -> Option<String> {
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A port for a peer that binds it once started: below the ephemeral range, where no
/// outgoing connection can take it meanwhile.
pub(super) fn free_port() -> Result<u16> {
    Ok(domain_desk_test_support::free_loopback_port()?)
}

/// One HTTP call through curl; returns the status and the body as JSON (`null` when empty).
pub(super) fn call(
    method: &str,
    url: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value)> {
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

pub(super) fn expect(
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

pub(super) fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// POSTs each of `bodies` (JSON) to `url` through one curl process (one connection, in
/// order), from a config file written to `config`; returns how many were answered 201.
pub(super) fn post_in_one_curl(
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
pub(super) fn curl_config(
    url: &str,
    key: Option<&str>,
    bodies: impl IntoIterator<Item = Value>,
) -> String {
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
pub(super) fn add_domains(
    base: &str,
    key: &str,
    project: &str,
    count: usize,
    config: &Path,
) -> Result<()> {
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
pub(super) fn start_serve(binary: &Path, args: &[&str], log: &Path) -> Result<Served> {
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
pub(super) fn serve_in_memory(
    binary: &Path,
    extra: &[&str],
    log: &Path,
) -> Result<(Served, String)> {
    let args = [&["--memory"], extra, &LOOPBACK_ARGS[..]].concat();
    let served = start_serve(binary, &args, log)?;
    let key = served
        .demo_key("enterprise")
        .context("no enterprise demo key in the banner")?
        .to_owned();
    Ok((served, key))
}

/// A new project with one deploy (domains need one) on `key`'s account; returns its id.
pub(super) fn project_with_deploy(base: &str, key: &str, name: &str) -> Result<String> {
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

//! The local service against Prism, json-server and WireMock serving the same routes (wrk on
//! loopback, with a bare axum server as the machine's ceiling), and its DNS server against
//! pebble-challtestsrv (both asked by `dnsperf`).
//!
//! Over 500 lines because both benchmarks of the service live here with the set-ups of their
//! peers (the routes each peer is configured to serve, the DNS records): they measure the same
//! release binary in one `cargo xtask bench service`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use domain_desk_test_support::Served;
use serde_json::{Value, json};

use super::processes::{
    Server, add_domains, env_number, expect, free_port, post_in_one_curl, project_with_deploy,
    serve_in_memory, start_serve,
};
use super::report::{Table, goal};
use super::tools::{WIREMOCK, build_release_app, ensure_apt, ensure_peers};
use crate::steps::{cargo, root};

/// Projects set up as a new user would (each with a deploy and two domains): what the GET
/// rows list.
const BENCH_PROJECTS: usize = 25;

/// Projects the domain-create runs spread their domains over, made after the GET rows (which
/// list only the first `BENCH_PROJECTS`). Four runs of ten seconds at 25,000 POST/s would
/// fill 100 projects to the Enterprise limit (10,000 domains each), after which every POST is
/// a cheap 409: twice that room, so the runs measure creating domains, not refusing them
/// (on 2026-11-25 the old 25 projects filled up within the first run, and 68 % of the
/// answers were 409s). A run with answers ≥ 400 counts only the others in its rate.
const WRITE_PROJECTS: usize = 200;

/// What one wrk run measured.
#[derive(Debug, Clone, Copy)]
struct Load {
    requests_per_second: f64,
    requests: u64,
    bad_status: u64,
    socket_errors: u64,
    p50_us: u64,
    p90_us: u64,
    p99_us: u64,
}

impl Load {
    /// Two runs of the same route as one figure: requests and errors added, rates and
    /// percentiles averaged.
    fn mean(&self, other: &Load) -> Load {
        Load {
            requests_per_second: (self.requests_per_second + other.requests_per_second) / 2.0,
            requests: self.requests + other.requests,
            bad_status: self.bad_status + other.bad_status,
            socket_errors: self.socket_errors + other.socket_errors,
            p50_us: (self.p50_us + other.p50_us) / 2,
            p90_us: (self.p90_us + other.p90_us) / 2,
            p99_us: (self.p99_us + other.p99_us) / 2,
        }
    }

    fn figure(&self) -> String {
        let mut text = format!(
            "{:.0} req/s; p50 {} p90 {} p99 {}",
            self.requests_per_second,
            millis(self.p50_us),
            millis(self.p90_us),
            millis(self.p99_us)
        );
        if self.bad_status > 0 || self.socket_errors > 0 {
            let _ = write!(
                text,
                "; {} of {} answered ≥ 400 (not counted in the rate), {} socket errors",
                self.bad_status, self.requests, self.socket_errors
            );
        }
        text
    }
}

fn millis(micros: u64) -> String {
    format!("{:.2} ms", micros as f64 / 1000.0)
}

/// The Lua that reports wrk's summary on one machine-readable line.
const WRK_DONE: &str = r#"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH %d %d %d %d %d %d %d\n", summary.requests, summary.duration,
    e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"#;

fn lua_string(text: &str) -> String {
    format!("{text:?}")
}

/// `GET path` with the key.
fn get_script(path: &str, key: &str) -> String {
    format!(
        "wrk.method = \"GET\"\nwrk.path = {}\nwrk.headers[\"Authorization\"] = {}\n{WRK_DONE}",
        lua_string(path),
        lua_string(&format!("Bearer {key}"))
    )
}

/// `POST /v1/projects/{id}/domains` with a fresh hostname each time, round robin over the
/// projects; each wrk thread numbers its own names. With `keyed`, each request carries an
/// `Idempotency-Key` of its own, as the app sends them.
fn create_script(projects: &[String], key: &str, tag: &str, keyed: bool) -> String {
    let list: Vec<String> = projects.iter().map(|id| lua_string(id)).collect();
    let idempotency = if keyed {
        format!(
            r#"headers["Idempotency-Key"] = string.format("{tag}-%d-%d", thread_number, counter)"#
        )
    } else {
        String::new()
    };
    format!(
        r#"local projects = {{{list}}}
local auth = {auth}
local threads = 0
setup = function(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end
local counter = 0
request = function()
  counter = counter + 1
  local project = projects[(counter % #projects) + 1]
  local body = string.format('{{"hostname":"n%d-%d.{tag}.example.com"}}', thread_number, counter)
  local headers = {{["Authorization"] = auth, ["Content-Type"] = "application/json"}}
  {idempotency}
  return wrk.format("POST", "/v1/projects/" .. project .. "/domains", headers, body)
end
{WRK_DONE}"#,
        list = list.join(", "),
        auth = lua_string(&format!("Bearer {key}")),
    )
}

fn wrk(base: &str, script: &Path, seconds: u64, connections: u32) -> Result<Load> {
    let out = Command::new("wrk")
        .args(["-t1", "-c", &connections.to_string()])
        .args(["-d", &format!("{seconds}s"), "--timeout", "5s", "-s"])
        .arg(script)
        .arg(base)
        .stderr(Stdio::inherit())
        .output()
        .context("could not run wrk")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("wrk failed: {text}");
    }
    parse_wrk_summary(&text)
}

/// The line [`WRK_DONE`] prints: requests, duration (µs), answers ≥ 400, socket errors, and
/// the 50th, 90th and 99th latency percentiles (µs).
fn parse_wrk_summary(text: &str) -> Result<Load> {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("BENCH "))
        .with_context(|| format!("wrk printed no summary: {text}"))?;
    let numbers: Vec<u64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<std::result::Result<_, _>>()
        .with_context(|| format!("unreadable wrk summary: {line}"))?;
    let [
        requests,
        duration_us,
        bad_status,
        socket_errors,
        p50_us,
        p90_us,
        p99_us,
    ] = numbers[..]
    else {
        bail!("unexpected wrk summary: {line}");
    };
    Ok(Load {
        // answers as asked only: a refused request (a 409 when a project is full, a 429) is
        // not the work the row measures
        requests_per_second: requests.saturating_sub(bad_status) as f64
            / (duration_us.max(1) as f64 / 1e6),
        requests,
        bad_status,
        socket_errors,
        p50_us,
        p90_us,
        p99_us,
    })
}

/// The two routes measured on one server: a warm-up, then the measured run of each.
struct Routes {
    get: PathBuf,
    create: PathBuf,
}

fn measure(base: &str, routes: &Routes) -> Result<(Load, Load)> {
    let seconds = env_number("BENCH_SECONDS", 10);
    let connections = env_number("BENCH_CONNECTIONS", 32);
    wrk(base, &routes.get, 2, connections)?;
    let get = wrk(base, &routes.get, seconds, connections)?;
    let create = wrk(base, &routes.create, seconds, connections)?;
    Ok((get, create))
}

/// Our service set up as the issue's user tried it: `BENCH_PROJECTS` projects, each with a
/// deploy and two domains; the bodies the ceiling and the peers will serve are read from it.
struct OurService {
    base: String,
    _served: Served,
    key: String,
    projects: Vec<String>,
    project_list: Value,
    sample_domain: Value,
    openapi: Value,
}

fn start_ours(binary: &Path, extra: &[&str], log: &Path) -> Result<OurService> {
    // Its clock runs at 60×, so the Enterprise key's minute window (100,000 requests) renews
    // every real second: the limit never binds, the service is what is measured.
    let mut flags = vec!["--clock-speed", "60"];
    flags.extend_from_slice(extra);
    let (served, key) = serve_in_memory(binary, &flags, log)?;
    let base = served.base_url();
    let openapi = expect("GET", &format!("{base}/openapi.json"), None, None, 200)?;
    let mut projects = Vec::with_capacity(BENCH_PROJECTS);
    for number in 0..BENCH_PROJECTS {
        let id = project_with_deploy(&base, &key, &format!("bench {number}"))?;
        for which in ["www", "shop"] {
            expect(
                "POST",
                &format!("{base}/v1/projects/{id}/domains"),
                Some(&key),
                Some(&json!({"hostname": format!("{which}.p{number}.bench.example.com")})),
                201,
            )?;
        }
        projects.push(id);
    }
    let project_list = expect("GET", &format!("{base}/v1/projects"), Some(&key), None, 200)?;
    let sample_domain = expect(
        "POST",
        &format!("{base}/v1/projects/{}/domains", projects[0]),
        Some(&key),
        Some(&json!({"hostname": "sample.bench.example.com"})),
        201,
    )?;
    Ok(OurService {
        base,
        _served: served,
        key,
        projects,
        project_list,
        sample_domain,
        openapi,
    })
}

pub(super) fn service(work: &Path, table: &mut Table) -> Result<()> {
    ensure_apt(&["wrk", "curl"])?;
    let tools = ensure_peers()?;
    let binary = build_release_app()?;
    let bare = build_bare_axum()?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs)?;

    let ours = start_ours(&binary, &[], &logs.join("domain-desk.log"))?;
    let key = ours.key.clone();
    let routes = Routes {
        get: work.join("get-projects.lua"),
        create: work.join("create-domain.lua"),
    };
    let keyed = work.join("create-domain-keyed.lua");
    std::fs::write(&routes.get, get_script("/v1/projects", &key))?;
    let seconds = env_number("BENCH_SECONDS", 10);
    let connections = env_number("BENCH_CONNECTIONS", 32);

    println!("\n==> wrk against domain-desk serve --memory");
    wrk(&ours.base, &routes.get, 2, connections)?;
    let our_get = wrk(&ours.base, &routes.get, seconds, connections)?;
    // The writes go to projects of their own, made after the GET rows so those list only the
    // new user's 25; the peers and the ceiling answer the same requests.
    let mut projects_for_runs = Vec::with_capacity(WRITE_PROJECTS);
    for number in 0..WRITE_PROJECTS {
        projects_for_runs.push(project_with_deploy(
            &ours.base,
            &key,
            &format!("writes {number}"),
        )?);
    }
    std::fs::write(
        &routes.create,
        create_script(&projects_for_runs, &key, "bench", false),
    )?;
    std::fs::write(
        &keyed,
        create_script(&projects_for_runs, &key, "keyed", true),
    )?;
    let first_unkeyed = wrk(&ours.base, &routes.create, seconds, connections)?;
    // The tables grow with every run, so the order is unkeyed, keyed, keyed, unkeyed (ABBA):
    // both figures, each the mean of its two runs, meet tables of the same mean size. (In
    // the order A B A B the keyed runs always came later and met larger tables.)
    // Every run names its own hostnames and keys: a repeated name would be a cheap 409, a
    // repeated key a cheap replay.
    let first_keyed = wrk(&ours.base, &keyed, seconds, connections)?;
    let unkeyed_again = work.join("create-domain-2.lua");
    let keyed_again = work.join("create-domain-keyed-2.lua");
    std::fs::write(
        &unkeyed_again,
        create_script(&projects_for_runs, &key, "bench2", false),
    )?;
    std::fs::write(
        &keyed_again,
        create_script(&projects_for_runs, &key, "keyed2", true),
    )?;
    let second_keyed = wrk(&ours.base, &keyed_again, seconds, connections)?;
    let second_unkeyed = wrk(&ours.base, &unkeyed_again, seconds, connections)?;
    let our_create = first_unkeyed.mean(&second_unkeyed);
    let our_keyed = first_keyed.mean(&second_keyed);
    let (openapi, project_list, sample_domain, projects) = (
        ours.openapi.clone(),
        ours.project_list.clone(),
        ours.sample_domain.clone(),
        ours.projects.clone(),
    );
    drop(ours);

    // The database path alone: every GET read from SQLite, and a page of a 5,000-domain list.
    println!("\n==> wrk against domain-desk serve --memory --no-read-cache");
    let uncached = start_ours(&binary, &["--no-read-cache"], &logs.join("uncached.log"))?;
    std::fs::write(&routes.get, get_script("/v1/projects", &uncached.key))?;
    wrk(&uncached.base, &routes.get, 2, connections)?;
    let db_get = wrk(&uncached.base, &routes.get, seconds, connections)?;
    add_domains(
        &uncached.base,
        &uncached.key,
        &uncached.projects[1],
        5_000,
        &work.join("add-5000.curl"),
    )?;
    let page_script = work.join("get-domain-page.lua");
    std::fs::write(
        &page_script,
        get_script(
            &format!("/v1/projects/{}/domains?limit=1000", uncached.projects[1]),
            &uncached.key,
        ),
    )?;
    let page = wrk(&uncached.base, &page_script, seconds.min(5), 1)?;
    let first_page = work.join("get-domain-first-page.lua");
    std::fs::write(
        &first_page,
        get_script(
            &format!("/v1/projects/{}/domains", uncached.projects[1]),
            &uncached.key,
        ),
    )?;
    let default_page = wrk(&uncached.base, &first_page, seconds.min(5), 1)?;
    drop(uncached);
    std::fs::write(&routes.get, get_script("/v1/projects", &key))?;

    println!("\n==> wrk against bare axum (the ceiling: same route, key check and bytes)");
    let list_file = work.join("bare-list.json");
    let created_file = work.join("bare-created.json");
    std::fs::write(&list_file, serde_json::to_vec(&project_list)?)?;
    std::fs::write(&created_file, serde_json::to_vec(&sample_domain)?)?;
    let port = free_port()?;
    let bare_server = Server::spawn(
        "bare axum",
        Command::new(&bare)
            .arg(format!("127.0.0.1:{port}"))
            .arg(&key)
            .arg(&list_file)
            .arg(&created_file),
        port,
        &logs.join("bare-axum.log"),
    )?;
    let (bare_get, bare_create) = measure(&bare_server.base, &routes)?;
    drop(bare_server);

    let get_share = our_get.requests_per_second / bare_get.requests_per_second.max(1.0);
    table.add(
        "service: GET /v1/projects",
        "bare axum, same key check and bytes (ceiling)",
        bare_get.figure(),
        "1.00".into(),
    );
    table.add(
        "service: GET /v1/projects",
        "domain-desk serve --memory (release)",
        our_get.figure(),
        format!(
            "{get_share:.2} of the ceiling; {}",
            goal(
                get_share >= 0.5 && our_get.p99_us < 5_000,
                "≥ 0.50 and p99 < 5 ms"
            )
        ),
    );
    table.add(
        "service: GET /v1/projects",
        "… with --no-read-cache (every GET from SQLite)",
        db_get.figure(),
        format!(
            "{:.2} of the ceiling",
            db_get.requests_per_second / bare_get.requests_per_second.max(1.0)
        ),
    );
    table.add(
        "service: POST …/domains",
        "bare axum, same key check and bytes (ceiling)",
        bare_create.figure(),
        "1.00".into(),
    );
    table.add(
        "service: POST …/domains",
        "domain-desk, no Idempotency-Key (mean of runs 1 and 4)",
        our_create.figure(),
        format!(
            "{:.2} of the ceiling",
            our_create.requests_per_second / bare_create.requests_per_second.max(1.0)
        ),
    );
    let keyed_share = our_keyed.requests_per_second / our_create.requests_per_second.max(1.0);
    table.add(
        "service: POST …/domains",
        "domain-desk, with Idempotency-Key, as the app sends (mean of runs 2 and 3)",
        our_keyed.figure(),
        format!(
            "{keyed_share:.2} of unkeyed; {}",
            goal(keyed_share >= 0.8, "≥ 0.80")
        ),
    );
    table.add(
        "service: 5,000-domain list",
        "GET …/domains (default page of 100), one connection, --no-read-cache",
        default_page.figure(),
        goal(default_page.p99_us < 5_000, "a page in < 5 ms (p99)"),
    );
    table.add(
        "service: 5,000-domain list",
        "GET …/domains?limit=1000 (the client's page), one connection, --no-read-cache",
        page.figure(),
        goal(page.p99_us < 5_000, "a page in < 5 ms (p99)"),
    );

    let peers = peer_setups(work, &tools, &openapi, &project_list, &sample_domain, &key)?;
    for (label, mut cmd, port) in peers {
        println!("\n==> wrk against {label}");
        let server = Server::spawn(label, &mut cmd, port, &logs.join(format!("{port}.log")))?;
        // every peer must answer both routes as the contract says before it is measured
        expect(
            "GET",
            &format!("{}/v1/projects", server.base),
            Some(&key),
            None,
            200,
        )
        .with_context(|| format!("{label} does not serve GET /v1/projects"))?;
        expect(
            "POST",
            &format!("{}/v1/projects/{}/domains", server.base, projects[0]),
            Some(&key),
            Some(&json!({"hostname": "check.bench.example.com"})),
            201,
        )
        .with_context(|| format!("{label} does not serve POST …/domains"))?;
        let (get, create) = measure(&server.base, &routes)?;
        table.add(
            "service: GET /v1/projects",
            label,
            get.figure(),
            ratio(our_get.requests_per_second, get.requests_per_second),
        );
        table.add(
            "service: POST …/domains",
            label,
            create.figure(),
            format!(
                "{} (unkeyed), {} (keyed)",
                ratio(our_create.requests_per_second, create.requests_per_second),
                ratio(our_keyed.requests_per_second, create.requests_per_second)
            ),
        );
    }

    dns_server(work, &binary, table)
}

/// The bare-axum ceiling, built from the service crate's example.
fn build_bare_axum() -> Result<PathBuf> {
    if let Some(binary) = std::env::var_os("BENCH_BARE_AXUM") {
        return Ok(PathBuf::from(binary));
    }
    let status = cargo()
        .args(["build", "--release", "--package", "domain-desk-service"])
        .args(["--example", "bare_axum"])
        .status()
        .context("could not build the bare-axum example")?;
    if !status.success() {
        bail!("building the bare-axum example failed");
    }
    Ok(root().join("target/release/examples/bare_axum"))
}

/// What one dnsperf run measured.
#[derive(Debug, Clone, Copy)]
struct DnsLoad {
    queries_per_second: f64,
    sent: u64,
    lost: u64,
    mean_latency_ms: f64,
}

impl DnsLoad {
    fn figure(&self) -> String {
        format!(
            "{:.0} q/s; mean latency {:.2} ms; {} of {} lost",
            self.queries_per_second, self.mean_latency_ms, self.lost, self.sent
        )
    }
}

fn dnsperf(port: u16, questions: &Path, seconds: u64, in_flight: u32) -> Result<DnsLoad> {
    let out = Command::new("dnsperf")
        .args(["-s", "127.0.0.1", "-p", &port.to_string(), "-d"])
        .arg(questions)
        .args(["-l", &seconds.to_string(), "-c", "4", "-T", "2"])
        .args(["-q", &in_flight.to_string(), "-t", "2"])
        // 4 MB socket buffers for dnsperf itself: with the system's default (about 200 kB)
        // a burst's answers overflow dnsperf's own sockets and count as lost questions, a
        // loss of the client's, not the server's. The same for both servers.
        .args(["-b", "4096"])
        .stdin(Stdio::null())
        .output()
        .context("could not run dnsperf")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("dnsperf failed: {text}");
    }
    parse_dnsperf(&text)
}

/// Reads dnsperf's statistics block.
fn parse_dnsperf(text: &str) -> Result<DnsLoad> {
    let field = |label: &str| -> Result<f64> {
        let line = text
            .lines()
            .map(str::trim)
            .find(|line| line.starts_with(label))
            .with_context(|| format!("dnsperf printed no {label:?}: {text}"))?;
        line[label.len()..]
            .split_whitespace()
            .next()
            .and_then(|number| number.parse().ok())
            .with_context(|| format!("unreadable dnsperf line: {line}"))
    };
    Ok(DnsLoad {
        queries_per_second: field("Queries per second:")?,
        sent: field("Queries sent:")? as u64,
        lost: field("Queries lost:")? as u64,
        mean_latency_ms: field("Average Latency (s):")? * 1000.0,
    })
}

/// Our DNS server against pebble-challtestsrv (a Go server answering from memory) with dnsperf,
/// on the same questions: names in a demo zone with a CNAME each, asked as the doctor asks.
fn dns_server(work: &Path, binary: &Path, table: &mut Table) -> Result<()> {
    ensure_apt(&["dnsperf", "pebble", "curl"])?;
    let names = env_number("BENCH_DNS_NAMES", 1_000);
    let logs = work.join("logs");
    let dns_port = free_port()?;
    let dns = format!("127.0.0.1:{dns_port}");
    let ours = start_serve(
        binary,
        &["--memory", "--api", "127.0.0.1:0", "--dns", &dns]
            .into_iter()
            .chain(["--edge-https", "127.0.0.1:0", "--edge-http", "127.0.0.1:0"])
            .collect::<Vec<_>>(),
        &logs.join("dns.log"),
    )?;
    let info = expect(
        "GET",
        &format!("{}/_local/info", ours.base_url()),
        None,
        None,
        200,
    )?;
    let target = info["platform_dns_target"]
        .as_str()
        .context("no platform_dns_target")?
        .to_owned();
    let created = post_in_one_curl(
        &format!("{}/_local/dns/example.com/records", ours.base_url()),
        None,
        (0..names)
            .map(|number| json!({"name": format!("h{number}"), "type": "CNAME", "value": target})),
        &work.join("dns-records.curl"),
    )?;
    if created != names {
        bail!("only {created} of {names} DNS records were created");
    }
    // The doctor's questions for a subdomain: A, AAAA, CNAME, TXT and CAA at the name, CAA at
    // the zone, SOA of the zone.
    let mut questions = String::new();
    for number in 0..names {
        for kind in ["A", "AAAA", "CNAME", "TXT", "CAA"] {
            let _ = writeln!(questions, "h{number}.example.com {kind}");
        }
        let _ = writeln!(questions, "example.com CAA");
        let _ = writeln!(questions, "example.com SOA");
    }
    let question_file = work.join("dns-questions.txt");
    std::fs::write(&question_file, questions)?;
    let seconds = env_number("BENCH_SECONDS", 10);

    println!(
        "\n==> dnsperf against our DNS server ({} questions)",
        names * 7
    );
    dnsperf(dns_port, &question_file, 2, 200)?;
    let our_steady = dnsperf(dns_port, &question_file, seconds, 200)?;
    let our_burst = dnsperf(dns_port, &question_file, 4, 7_000)?;
    drop(ours);

    println!("\n==> dnsperf against pebble-challtestsrv");
    let pebble_port = free_port()?;
    let management = free_port()?;
    let pebble = Server::spawn(
        "pebble-challtestsrv",
        Command::new("pebble-challtestsrv")
            .args(["-dns01", &format!("127.0.0.1:{pebble_port}")])
            .args(["-http01", "", "-https01", "", "-tlsalpn01", ""])
            .args(["-management", &format!("127.0.0.1:{management}")]),
        management,
        &logs.join("pebble.log"),
    )?;
    dnsperf(pebble_port, &question_file, 2, 200)?;
    let pebble_steady = dnsperf(pebble_port, &question_file, seconds, 200)?;
    let pebble_burst = dnsperf(pebble_port, &question_file, 4, 7_000)?;
    drop(pebble);

    let share = our_steady.queries_per_second / pebble_steady.queries_per_second.max(1.0);
    table.add(
        "service: DNS (dnsperf, 200 in flight)",
        "pebble-challtestsrv 2.4 (Debian)",
        pebble_steady.figure(),
        "1.00".into(),
    );
    table.add(
        "service: DNS (dnsperf, 200 in flight)",
        "domain-desk serve DNS",
        our_steady.figure(),
        format!("{share:.2} of pebble; {}", goal(share >= 1.0, "≥ 1.00")),
    );
    table.add(
        "service: DNS burst (7,000 in flight)",
        "pebble-challtestsrv 2.4 (Debian)",
        pebble_burst.figure(),
        String::new(),
    );
    table.add(
        "service: DNS burst (7,000 in flight)",
        "domain-desk serve DNS",
        our_burst.figure(),
        goal(our_burst.lost == 0, "no question lost"),
    );
    Ok(())
}

/// "ours ÷ theirs" for throughput.
fn ratio(ours: f64, theirs: f64) -> String {
    if theirs <= 0.0 {
        "n/a".into()
    } else {
        format!("ours ×{:.2}", ours / theirs)
    }
}

/// Prism mocking our own document, json-server with a rewrite to the same bodies, WireMock
/// with stub mappings of the same bodies; each answers only with the right bearer key.
fn peer_setups(
    work: &Path,
    tools: &Path,
    openapi: &Value,
    project_list: &Value,
    sample_domain: &Value,
    key: &str,
) -> Result<Vec<(&'static str, Command, u16)>> {
    let bin = tools.join("node_modules/.bin");
    let mut peers = Vec::new();

    let document = work.join("openapi.json");
    std::fs::write(&document, serde_json::to_vec_pretty(openapi)?)?;
    let port = free_port()?;
    let mut prism = Command::new(bin.join("prism"));
    prism
        .args(["mock", "--host", "127.0.0.1", "--port", &port.to_string()])
        // its fastest documented setting: no log line per request
        .args(["--verboseLevel", "warn"])
        .arg(&document);
    peers.push(("Prism 5.14.2 (mock of /openapi.json)", prism, port));

    // json-server: a JS source keeps the database in memory (as `--memory` does for ours).
    let json_dir = work.join("json-server");
    std::fs::create_dir_all(&json_dir)?;
    let database = json!({"v1_projects": project_list, "domains": []});
    std::fs::write(
        json_dir.join("db.js"),
        format!("module.exports = () => ({database});\n"),
    )?;
    std::fs::write(
        json_dir.join("routes.json"),
        serde_json::to_vec_pretty(&json!({
            "/v1/projects": "/v1_projects",
            "/v1/projects/:id/domains": "/domains",
        }))?,
    )?;
    std::fs::write(
        json_dir.join("auth.js"),
        format!(
            "module.exports = (req, res, next) => {{\n  if (req.headers.authorization === {}) return next();\n  res.status(401).jsonp({{error: {{code: 'unauthorized', message: 'No or unknown API key.'}}}});\n}};\n",
            serde_json::to_string(&format!("Bearer {key}"))?
        ),
    )?;
    let port = free_port()?;
    let mut json_server = Command::new(bin.join("json-server"));
    json_server
        .current_dir(&json_dir)
        .args([
            "db.js",
            "--routes",
            "routes.json",
            "--middlewares",
            "auth.js",
        ])
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--quiet",
        ]);
    peers.push(("json-server 0.17.4", json_server, port));

    // WireMock: two stubs answering with our bodies, matched on the bearer key.
    let wiremock_root = work.join("wiremock");
    let mappings = wiremock_root.join("mappings");
    std::fs::create_dir_all(&mappings)?;
    std::fs::create_dir_all(wiremock_root.join("__files"))?;
    let auth = json!({"Authorization": {"equalTo": format!("Bearer {key}")}});
    let json_headers = json!({"Content-Type": "application/json"});
    std::fs::write(
        mappings.join("get-projects.json"),
        serde_json::to_vec_pretty(&json!({
            "request": {"method": "GET", "url": "/v1/projects", "headers": auth},
            "response": {"status": 200, "headers": json_headers, "jsonBody": project_list},
        }))?,
    )?;
    std::fs::write(
        mappings.join("create-domain.json"),
        serde_json::to_vec_pretty(&json!({
            "request": {
                "method": "POST",
                "urlPathPattern": "/v1/projects/[^/]+/domains",
                "headers": auth,
                "bodyPatterns": [{"matchesJsonPath": "$.hostname"}],
            },
            "response": {"status": 201, "headers": json_headers, "jsonBody": sample_domain},
        }))?,
    )?;
    let jar = tools
        .join("node_modules/wiremock/build")
        .join(format!("wiremock-standalone-{}.jar", WIREMOCK.1));
    let port = free_port()?;
    let mut wiremock = Command::new("java");
    wiremock
        .arg("-jar")
        .arg(&jar)
        .args(["--bind-address", "127.0.0.1", "--port", &port.to_string()])
        .arg("--root-dir")
        .arg(&wiremock_root)
        // the journal keeps every request in memory; WireMock's own advice for load tests
        .args(["--no-request-journal", "--disable-banner"]);
    peers.push(("WireMock 3.13.2 (standalone jar)", wiremock, port));
    Ok(peers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_summary_gives_rate_and_percentiles() {
        let load = parse_wrk_summary("Running 10s test\nBENCH 20000 10000000 5 1 900 1500 4000\n")
            .expect("a summary");
        // 20,000 requests in 10 s, 5 of them refused: the rate counts the 19,995 others
        assert!(
            (load.requests_per_second - 1999.5).abs() < 1e-9,
            "{}",
            load.requests_per_second
        );
        assert_eq!((load.bad_status, load.socket_errors), (5, 1));
        assert!(
            load.figure()
                .contains("5 of 20000 answered ≥ 400 (not counted in the rate)")
        );
        assert_eq!((load.p50_us, load.p90_us, load.p99_us), (900, 1500, 4000));
        assert!(parse_wrk_summary("no summary here").is_err());
        assert!(parse_wrk_summary("BENCH 1 2 3").is_err());
    }
}

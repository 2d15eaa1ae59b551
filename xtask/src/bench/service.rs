//! The local service against Prism, json-server and WireMock serving the same routes (wrk on
//! loopback, with a bare axum server as the machine's ceiling): the read cache, the database
//! path without it, the app's own mix of reads and writes, and writes with and without an
//! `Idempotency-Key`. Its DNS server is measured in `dns.rs`, in the same
//! `cargo xtask bench service`.
//!
//! It is longer than the house's 500 lines (about 630 of code): the set-ups of the peers
//! (the routes each is configured to serve) live beside the runs they are measured in.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use domain_desk_test_support::Served;
use serde_json::{Value, json};

use super::processes::{
    Server, add_domains, env_number, expect, free_port, project_with_deploy, serve_in_memory,
};
use super::report::{Table, goal};
use super::tools::{WIREMOCK, build_release_app, build_service_example, ensure_apt, ensure_peers};

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

/// Pairs of domain-create runs, unkeyed against keyed; the median pair's ratio is the figure
/// and the spread is printed beside it.
const WRITE_PAIRS: usize = 3;

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
    /// The run with the median rate of several (runs of one route on one server).
    fn median(runs: &[Load]) -> Load {
        let mut sorted = runs.to_vec();
        sorted.sort_by(|a, b| a.requests_per_second.total_cmp(&b.requests_per_second));
        sorted[sorted.len() / 2]
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

/// Keyed ÷ unkeyed, pair by pair, sorted: (min, median, max) come from it.
fn pair_ratios(unkeyed: &[Load], keyed: &[Load]) -> Vec<f64> {
    let mut ratios: Vec<f64> = unkeyed
        .iter()
        .zip(keyed)
        .map(|(unkeyed, keyed)| keyed.requests_per_second / unkeyed.requests_per_second.max(1.0))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios
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

/// The app's traffic: of each hundred requests, one `POST …/domains` to a listed project (a
/// fresh hostname), the others alternately `GET /v1/projects` (the list it polls) and
/// `GET /v1/projects/{id}/domains/{hostname}` round robin over the listed projects' domains.
/// The written hostnames carry `tag`, one per run: the warm-up's names again in the measured
/// run would be cheap 409s, left out of the rate.
fn mix_script_text(projects: &[String], key: &str, tag: &str) -> String {
    let list: Vec<String> = projects.iter().map(|id| lua_string(id)).collect();
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
  local index = (counter % #projects) + 1
  local project = projects[index]
  if counter % 100 == 0 then
    local body = string.format('{{"hostname":"m%d-%d.{tag}.example.com"}}', thread_number, counter)
    return wrk.format("POST", "/v1/projects/" .. project .. "/domains",
      {{["Authorization"] = auth, ["Content-Type"] = "application/json"}}, body)
  end
  local headers = {{["Authorization"] = auth}}
  if counter % 2 == 0 then
    return wrk.format("GET", "/v1/projects", headers)
  end
  local which = (counter % 4 == 1) and "www" or "shop"
  local hostname = string.format("%s.p%d.bench.example.com", which, index - 1)
  return wrk.format("GET", "/v1/projects/" .. project .. "/domains/" .. hostname, headers)
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
    std::fs::write(&routes.get, get_script("/v1/projects", &key))?;
    let seconds = env_number("BENCH_SECONDS", 10);
    let connections = env_number("BENCH_CONNECTIONS", 32);

    println!("\n==> wrk against domain-desk serve --memory");
    wrk(&ours.base, &routes.get, 2, connections)?;
    let our_get = wrk(&ours.base, &routes.get, seconds, connections)?;
    // The app's own traffic: the list polled, the domains of the listed projects read, one
    // write in a hundred (a domain added to a listed project), so the read cache is emptied
    // while it is in use.
    let mix_warm_up = work.join("app-mix-warm-up.lua");
    std::fs::write(&mix_warm_up, mix_script_text(&ours.projects, &key, "mixw"))?;
    wrk(&ours.base, &mix_warm_up, 2, connections)?;
    let mix_script = work.join("app-mix.lua");
    std::fs::write(&mix_script, mix_script_text(&ours.projects, &key, "mix"))?;
    let our_mix = wrk(&ours.base, &mix_script, seconds, connections)?;
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
    // The tables grow with every run, so the runs alternate in pairs, unkeyed, keyed, keyed,
    // unkeyed, unkeyed, keyed (ABBAAB): each pair's ratio meets tables of nearly one size,
    // and the spread of the pairs' ratios is reported with its median. (In the order A B A B
    // the keyed runs always came later and met larger tables.) Every run names its own
    // hostnames and keys: a repeated name would be a cheap 409, a repeated key a cheap replay.
    let mut unkeyed_runs = Vec::with_capacity(WRITE_PAIRS);
    let mut keyed_runs = Vec::with_capacity(WRITE_PAIRS);
    for pair in 0..WRITE_PAIRS {
        let unkeyed_script = work.join(format!("create-domain-{pair}.lua"));
        let keyed_script = work.join(format!("create-domain-keyed-{pair}.lua"));
        std::fs::write(
            &unkeyed_script,
            create_script(&projects_for_runs, &key, &format!("bench{pair}"), false),
        )?;
        std::fs::write(
            &keyed_script,
            create_script(&projects_for_runs, &key, &format!("keyed{pair}"), true),
        )?;
        if pair % 2 == 0 {
            unkeyed_runs.push(wrk(&ours.base, &unkeyed_script, seconds, connections)?);
            keyed_runs.push(wrk(&ours.base, &keyed_script, seconds, connections)?);
        } else {
            keyed_runs.push(wrk(&ours.base, &keyed_script, seconds, connections)?);
            unkeyed_runs.push(wrk(&ours.base, &unkeyed_script, seconds, connections)?);
        }
    }
    std::fs::write(
        &routes.create,
        create_script(&projects_for_runs, &key, "bench", false),
    )?;
    let our_create = Load::median(&unkeyed_runs);
    let our_keyed = Load::median(&keyed_runs);
    let pair_ratios = pair_ratios(&unkeyed_runs, &keyed_runs);
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
        "… with --no-read-cache (every GET from SQLite): the database path",
        db_get.figure(),
        {
            let share = db_get.requests_per_second / bare_get.requests_per_second.max(1.0);
            format!(
                "{share:.2} of the ceiling; {}",
                goal(
                    share >= 0.25 && db_get.p99_us < 5_000,
                    "≥ 0.25 and p99 < 5 ms"
                )
            )
        },
    );
    table.add(
        "service: the app's traffic",
        "domain-desk serve --memory: the list polled, domains of the listed projects read, \
         one POST …/domains in 100 (the read cache emptied while in use)",
        our_mix.figure(),
        format!(
            "{:.2} of the GET ceiling; ×{:.2} of the cached GET, ×{:.2} of the uncached GET",
            our_mix.requests_per_second / bare_get.requests_per_second.max(1.0),
            our_mix.requests_per_second / our_get.requests_per_second.max(1.0),
            our_mix.requests_per_second / db_get.requests_per_second.max(1.0)
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
        "domain-desk, no Idempotency-Key (median of 3 runs)",
        our_create.figure(),
        format!(
            "{:.2} of the ceiling",
            our_create.requests_per_second / bare_create.requests_per_second.max(1.0)
        ),
    );
    let keyed_median = pair_ratios[pair_ratios.len() / 2];
    table.add(
        "service: POST …/domains",
        "domain-desk, with Idempotency-Key, as the app sends (median of 3 runs)",
        our_keyed.figure(),
        format!(
            "keyed ÷ unkeyed over {} pairs run U K, K U, U K: min {:.2}, median {keyed_median:.2}, max {:.2}; {}",
            pair_ratios.len(),
            pair_ratios[0],
            pair_ratios[pair_ratios.len() - 1],
            goal(keyed_median >= 0.8, "≥ 0.80 at the median")
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

    super::dns::dns_server(work, &binary, table)
}

/// The bare-axum ceiling, built from the service crate's example.
fn build_bare_axum() -> Result<PathBuf> {
    if let Some(binary) = std::env::var_os("BENCH_BARE_AXUM") {
        return Ok(PathBuf::from(binary));
    }
    build_service_example("the bare-axum example", "bare_axum")
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

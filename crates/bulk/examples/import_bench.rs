//! The import benchmark: 1,000 rows into one project on the Enterprise demo key (the only
//! plan whose domains-per-project limit allows 1,000), against `domain-desk serve --memory`
//! started from the same binary, in one run:
//!
//! - `domain-desk domains import` (the real command line: paced queue, derived keys);
//! - the shell loop a user would write: one `curl` per row, in sequence;
//! - the ceiling of this machine for the same work: the same 1,000 POSTs with their
//!   `Idempotency-Key`s sent by a bare client with as many requests in flight as the queue
//!   allows (8), no pacing, no checks.
//!
//! It also prints the window-aligned optimum of the plan's rate limits for 1,000 requests (the
//! wait the windows force), which at Enterprise's 100,000 a minute is nothing: the machine,
//! not the plan, bounds this run. Every 429 each client earned is counted.
//!
//! `BENCH_APP_BINARY=target/release/domain-desk cargo run --release -p domain-desk-bulk --example import_bench`
#![allow(clippy::print_stdout)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use domain_desk_api::Plan;
use domain_desk_client::WindowBudget;
use serde_json::{Value, json};

const ROWS: usize = 1_000;
const IN_FLIGHT: usize = 8;

struct Served {
    api: String,
    _process: domain_desk_test_support::Served,
}

fn serve(binary: &str) -> Served {
    let process = domain_desk_test_support::Served::start(
        Command::new(binary)
            .args(["serve", "--memory"])
            .args(domain_desk_test_support::LOOPBACK_ARGS)
            .env("RUST_LOG", "warn")
            .stderr(Stdio::null()),
    )
    .expect("domain-desk serve starts and prints its addresses");
    Served {
        api: process.api().to_string(),
        _process: process,
    }
}

fn http() -> reqwest::blocking::Client {
    domain_desk_test_support::blocking_http_client_builder()
        .no_proxy()
        .pool_max_idle_per_host(IN_FLIGHT)
        .build()
        .expect("client")
}

fn project(http: &reqwest::blocking::Client, api: &str, key: &str, name: &str) -> String {
    let created: Value = http
        .post(format!("http://{api}/v1/projects"))
        .bearer_auth(key)
        .json(&json!({ "name": name }))
        .send()
        .and_then(|r| r.json())
        .expect("project");
    let id = created["id"].as_str().expect("id").to_owned();
    http.post(format!("http://{api}/v1/projects/{id}/deploys"))
        .bearer_auth(key)
        .json(&json!({}))
        .send()
        .expect("deploy");
    id
}

fn hostnames(tag: &str) -> Vec<String> {
    (0..ROWS)
        .map(|i| format!("h{i}.{tag}.example.com"))
        .collect()
}

fn main() {
    let binary = std::env::var("BENCH_APP_BINARY")
        .unwrap_or_else(|_| "target/release/domain-desk".to_owned());
    let served = serve(&binary);
    let api = served.api.clone();
    let http = http();
    let info: Value = http
        .get(format!("http://{api}/_local/info"))
        .send()
        .and_then(|r| r.json())
        .expect("info");
    let key = info["demo_keys"]["enterprise"]
        .as_str()
        .expect("key")
        .to_owned();
    let dir = tempfile::tempdir().expect("temp dir");

    // The plan's windows: the wait they force on 1,000 requests from a full window.
    let limits = Plan::Enterprise.default_limits();
    let windows = WindowBudget {
        minute_limit: limits.per_minute,
        minute_remaining: limits.per_minute,
        minute_reset: 60.0,
        day_limit: limits.per_day,
        day_remaining: limits.per_day,
        day_reset: 86_400.0,
        clock_speed: 1.0,
    }
    .earliest_done(ROWS as u64, 0.0);

    // 1. The ceiling: bare POSTs, IN_FLIGHT at once.
    let ceiling_project = project(&http, &api, &key, "ceiling");
    let names = hostnames("ceiling");
    let started = Instant::now();
    let mut ceiling_429 = 0;
    std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .chunks(ROWS.div_ceil(IN_FLIGHT))
            .map(|chunk| {
                let http = &http;
                let (api, key, project) = (&api, &key, &ceiling_project);
                scope.spawn(move || {
                    let mut limited = 0;
                    for name in chunk {
                        let answer = http
                            .post(format!("http://{api}/v1/projects/{project}/domains"))
                            .bearer_auth(key)
                            .header("Idempotency-Key", format!("bench-{name}"))
                            .json(&json!({ "hostname": name }))
                            .send()
                            .expect("answer");
                        if answer.status().as_u16() == 429 {
                            limited += 1;
                        }
                    }
                    limited
                })
            })
            .collect();
        for handle in handles {
            ceiling_429 += handle.join().expect("sender");
        }
    });
    let ceiling = started.elapsed();

    // 2. Our import, the real command line.
    let ours_project = project(&http, &api, &key, "import");
    let file = dir.path().join("domains.csv");
    std::fs::write(&file, hostnames("import").join("\n")).expect("csv");
    let started = Instant::now();
    let output = Command::new(&binary)
        .args(["domains", "import"])
        .arg(&file)
        .args([
            "--project",
            &ours_project,
            "--json",
            "--local",
            "--local-api",
            &api,
        ])
        .args(["--plan", "enterprise"])
        .env("XDG_DATA_HOME", dir.path())
        .stderr(Stdio::null())
        .output()
        .expect("import runs");
    let ours = started.elapsed();
    let summary: Value = serde_json::from_slice(&output.stdout).expect("summary");
    let created = summary["created"].as_array().map_or(0, Vec::len);

    // 3. The shell loop of curl a user would write.
    let loop_project = project(&http, &api, &key, "loop");
    let list = dir.path().join("loop.txt");
    std::fs::write(&list, hostnames("loop").join("\n") + "\n").expect("list");
    let script = format!(
        r#"while read -r h; do curl -s -o /dev/null -w '%{{http_code}}\n' -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "{{\"hostname\":\"$h\"}}" "http://{api}/v1/projects/{loop_project}/domains"; done < "{}""#,
        list.display()
    );
    let started = Instant::now();
    let curl = Command::new("bash")
        .args(["-c", &script])
        .env("KEY", &key)
        .output()
        .expect("bash runs");
    let shell = started.elapsed();
    let codes = String::from_utf8_lossy(&curl.stdout);
    let curl_ok = codes.lines().filter(|c| *c == "201").count();
    let curl_429 = codes.lines().filter(|c| *c == "429").count();

    let secs = |d: Duration| d.as_secs_f64();
    println!("Import of {ROWS} rows, Enterprise demo key, `domain-desk serve --memory` ({binary})");
    println!(
        "plan windows: the window-aligned optimum waits {:.1} s for {ROWS} requests at {} a minute; the machine bounds this run",
        secs(windows),
        limits.per_minute
    );
    println!("| client | wall time | rows/s | created | 429 | share of ceiling |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, time: Duration, created: usize, limited: usize| {
        println!(
            "| {name} | {:.2} s | {:.0} | {created} | {limited} | {:.2} |",
            secs(time),
            ROWS as f64 / secs(time),
            secs(ceiling) / secs(time)
        );
    };
    row(
        &format!("ceiling: bare POSTs, {IN_FLIGHT} in flight"),
        ceiling,
        ROWS,
        ceiling_429,
    );
    row(
        "domain-desk domains import",
        ours,
        created,
        summary["rate_limited"].as_u64().unwrap_or(0) as usize,
    );
    row("shell loop of curl", shell, curl_ok, curl_429);
    let verdict = if ours <= shell { "met" } else { "MISSED" };
    println!("goal: the import faster than the curl loop — {verdict}");
}

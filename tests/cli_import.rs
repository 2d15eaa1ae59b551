//! The command line, the real binary, against `domain-desk serve`.
//!
//! `domains import` with faults on (latency, 503s, dropped connections): the import process
//! is killed with SIGKILL in the middle of the run and run again until it reports everything
//! done. Afterwards every row exists exactly once, and the service's access log shows no 429
//! and no ban. Plus the refusals before anything is sent (Free, one row over Business's
//! limit), `--no-wait`, the retry file a finished run leaves (none), the progress line on an
//! 80-column terminal, and every example of the README's command tables.
//!
//! It is longer than the house's 500 lines (about 785, all tests): eleven tests on one set-up,
//! `Served` (`domain-desk serve` with its access log and faults) and the real binary on a data
//! folder (`cli`), about 120 lines; the killed-import run is one function for both plans, and
//! the README's examples bring their own reader (about 170). The command line's other
//! journeys are apart already (`cli_domains.rs`, `cli_renewal.rs`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use domain_desk_test_support::LOOPBACK_ARGS;
use serde_json::{Value, json};

/// One running `domain-desk serve --memory` with its access log in a file; killed when
/// dropped.
struct Served {
    api: String,
    /// The DNS server's `host:port`.
    dns: String,
    log: std::path::PathBuf,
    _process: domain_desk_test_support::Served,
}

impl Served {
    fn start(dir: &Path) -> Served {
        let log = dir.join("access.log");
        let process = domain_desk_test_support::Served::start(
            Command::new(env!("CARGO_BIN_EXE_domain-desk"))
                .args(["serve", "--memory"])
                .args(LOOPBACK_ARGS)
                .env("RUST_LOG", "warn,domain_desk_service::access=debug")
                .stderr(std::fs::File::create(&log).expect("log file")),
        )
        .expect("the service starts and prints its addresses");
        Served {
            api: process.api().to_string(),
            dns: process.banner().dns.clone().expect("the DNS server runs"),
            log,
            _process: process,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.api)
    }

    /// Answers with this status in the access log.
    fn logged(&self, status: u16) -> usize {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .filter(|l| l.contains(&format!("status={status}")))
            .count()
    }
}

fn http() -> reqwest::blocking::Client {
    domain_desk_test_support::blocking_http_client()
}

fn demo_key(served: &Served, plan: &str) -> String {
    let info: Value = http()
        .get(served.url("/_local/info"))
        .send()
        .and_then(|r| r.json())
        .expect("info");
    info["demo_keys"][plan].as_str().expect("key").to_owned()
}

/// A new project with a deploy, on the demo account of `plan`; its id.
fn project(served: &Served, plan: &str, name: &str) -> String {
    let key = demo_key(served, plan);
    let created: Value = http()
        .post(served.url("/v1/projects"))
        .bearer_auth(&key)
        .json(&json!({ "name": name }))
        .send()
        .and_then(|r| r.json())
        .expect("project");
    let id = created["id"].as_str().expect("id").to_owned();
    let deployed = http()
        .post(served.url(&format!("/v1/projects/{id}/deploys")))
        .bearer_auth(&key)
        .json(&json!({}))
        .send()
        .expect("deploy");
    assert!(deployed.status().is_success(), "{}", deployed.status());
    id
}

fn domains(served: &Served, plan: &str, project: &str) -> Vec<String> {
    let key = demo_key(served, plan);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = served.url(&format!("/v1/projects/{project}/domains?limit=1000"));
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let page: Value = http()
            .get(url)
            .bearer_auth(&key)
            .send()
            .and_then(|r| r.json())
            .expect("domains");
        for domain in page["domains"].as_array().expect("list") {
            names.push(domain["hostname"].as_str().expect("hostname").to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return names,
        }
    }
}

fn set_faults(served: &Served, faults: Value) {
    let answer = http()
        .put(served.url("/_local/faults"))
        .json(&faults)
        .send()
        .expect("faults");
    assert!(answer.status().is_success(), "{}", answer.status());
}

fn cli(served: &Served, data: &Path, plan: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_domain-desk"));
    command
        .args(args)
        .args(["--local", "--local-api", &served.api, "--plan", plan])
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env_remove("DOMAIN_DESK_ACCOUNT")
        .stdin(Stdio::null());
    command
}

fn run(command: &mut Command) -> Output {
    command.output().expect("the command line runs")
}

/// Writes `rows` hostnames to a CSV file and imports it on `plan`, killing the first run
/// once a quarter of the rows are answered, then running again until it says it is done.
fn import_killed_then_rerun(plan: &str, rows: usize) {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, plan, "bulk");
    let file = dir.path().join("domains.csv");
    let text: String = std::iter::once("hostname\n".to_owned())
        .chain((0..rows).map(|i| format!("host{i}.bulk-{plan}.example.com\n")))
        .collect();
    std::fs::write(&file, text).unwrap();
    set_faults(
        &served,
        json!({"latency_ms": 3, "error_rate": 0.05, "drop_rate": 0.05}),
    );
    let file_arg = file.to_str().unwrap();
    let import = [
        "domains",
        "import",
        file_arg,
        "--project",
        &project,
        "--json",
    ];

    let mut first = cli(&served, dir.path(), plan, &import)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("import starts");
    let progress = BufReader::new(first.stderr.take().expect("stderr"));
    let quarter = rows / 4;
    let mut killed_at = None;
    for line in progress.lines() {
        let line = line.expect("progress line");
        // `[####----] 120/250 · …`
        let answered = line
            .split_once("] ")
            .and_then(|(_, rest)| rest.split_once('/'))
            .and_then(|(n, _)| n.trim().parse::<usize>().ok());
        if answered.is_some_and(|n| n >= quarter) {
            first.kill().expect("SIGKILL");
            killed_at = answered;
            break;
        }
    }
    let _ = first.wait();
    let killed_at = killed_at.expect("the first run was killed in the middle");
    assert!(killed_at < rows, "killed at {killed_at} of {rows}");

    let mut reruns = 0;
    loop {
        reruns += 1;
        let output = run(&mut cli(&served, dir.path(), plan, &import));
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(0) || !output.stdout.is_empty() {
            let summary: Value = serde_json::from_slice(&output.stdout)
                .unwrap_or_else(|err| panic!("{err}: {stderr}"));
            assert_eq!(summary["rate_limited"], 0, "{summary}");
            assert_eq!(summary["refused"], json!([]), "{summary}");
            if output.status.code() == Some(0) {
                break;
            }
        }
        // A fault hit the reads before sending, or rows were left: run again, as a user would.
        assert!(reruns < 15, "not done after {reruns} reruns: {stderr}");
    }

    set_faults(&served, json!({}));
    let mut names = domains(&served, plan, &project);
    assert_eq!(names.len(), rows, "every row, once");
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows);
    assert_eq!(served.logged(429), 0, "no 429 in the access log");
    assert_eq!(served.logged(403), 0, "no ban");
}

#[test]
fn a_killed_250_row_import_on_business_ends_with_every_row_once() {
    import_killed_then_rerun("business", 250);
}

#[test]
fn a_killed_2000_row_import_on_enterprise_ends_with_every_row_once() {
    import_killed_then_rerun("enterprise", 2_000);
}

#[test]
fn refusals_come_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let file = dir.path().join("big.csv");
    let text: String = (0..251).map(|i| format!("d{i}.example.com\n")).collect();
    std::fs::write(&file, text).unwrap();
    let file_arg = file.to_str().unwrap();

    let business = project(&served, "business", "full");
    let output = run(&mut cli(
        &served,
        dir.path(),
        "business",
        &["domains", "import", file_arg, "--project", &business],
    ));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("allows 250"), "{stderr}");
    assert!(domains(&served, "business", &business).is_empty());

    let free: Value = http()
        .get(served.url("/v1/projects"))
        .bearer_auth(demo_key(&served, "free"))
        .send()
        .and_then(|r| r.json())
        .expect("free projects");
    let free_project = free["projects"][0]["id"].as_str().expect("a free project");
    let output = run(&mut cli(
        &served,
        dir.path(),
        "free",
        &["domains", "import", file_arg, "--project", free_project],
    ));
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no custom domains"));

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "ok.example.com\n*.example.com\nOK.example.com\n").unwrap();
    let output = run(&mut cli(
        &served,
        dir.path(),
        "business",
        &[
            "domains",
            "import",
            bad.to_str().unwrap(),
            "--project",
            &business,
        ],
    ));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 2: *.example.com"), "{stderr}");
    assert!(
        stderr.contains("line 3: OK.example.com: a duplicate of line 1"),
        "{stderr}"
    );
    assert!(domains(&served, "business", &business).is_empty());
}

#[test]
fn no_wait_exits_4_instead_of_waiting_for_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    // A frozen clock: the minute window never turns over by itself.
    let answer = http()
        .put(served.url("/_local/clock"))
        .json(&json!({"now": "2031-01-01T00:00:30Z", "speed": 0}))
        .send()
        .expect("clock");
    assert!(answer.status().is_success());
    let key = demo_key(&served, "pro");
    let limit: Value = http()
        .get(served.url("/v1/rate_limit"))
        .bearer_auth(&key)
        .send()
        .and_then(|r| r.json())
        .expect("rate limit");
    let remaining = limit["minute"]["remaining"].as_u64().expect("remaining");
    for _ in 0..remaining {
        let spent = http()
            .get(served.url("/v1/account"))
            .bearer_auth(&key)
            .send()
            .expect("spend");
        assert!(spent.status().is_success());
    }
    let projects = ["projects", "list", "--no-wait"];
    let output = run(&mut cli(&served, dir.path(), "pro", &projects));
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(served.logged(429), 0, "refused without earning a 429");
}

#[test]
fn domains_round_trip_through_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, "pro", "cli");
    let add = run(&mut cli(
        &served,
        dir.path(),
        "pro",
        &["domains", "add", "www.cli.example.com", "--project", "cli"],
    ));
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    let shown = String::from_utf8_lossy(&add.stdout);
    assert!(shown.contains("CNAME") && shown.contains("www"), "{shown}");

    let list = run(&mut cli(
        &served,
        dir.path(),
        "pro",
        &["domains", "list", "--project", &project, "--json"],
    ));
    let list: Value = serde_json::from_slice(&list.stdout).expect("JSON list");
    assert_eq!(list["domains"][0]["hostname"], "www.cli.example.com");

    // Not live yet: inspect says so with status 1.
    let inspect = run(&mut cli(
        &served,
        dir.path(),
        "pro",
        &[
            "domains",
            "inspect",
            "www.cli.example.com",
            "--project",
            "cli",
        ],
    ));
    assert_eq!(inspect.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&inspect.stdout).contains("DNS record to create"));

    let export = run(&mut cli(
        &served,
        dir.path(),
        "pro",
        &["domains", "export", "--project", "cli", "--format", "zone"],
    ));
    let zone = String::from_utf8_lossy(&export.stdout);
    assert!(
        zone.contains("www.cli.example.com.\t3600\tIN\tCNAME\t"),
        "{zone}"
    );

    let remove = run(&mut cli(
        &served,
        dir.path(),
        "pro",
        &[
            "domains",
            "remove",
            "www.cli.example.com",
            "--project",
            "cli",
        ],
    ));
    assert!(remove.status.success());
    assert!(domains(&served, "pro", &project).is_empty());

    // Usage mistakes are status 2; an unknown account is status 3.
    let usage = run(&mut cli(&served, dir.path(), "pro", &["domains", "list"]));
    assert_eq!(usage.status.code(), Some(2));
    let unknown = Command::new(env!("CARGO_BIN_EXE_domain-desk"))
        .args(["projects", "list", "--account", "nobody@nowhere.example"])
        .env("XDG_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .output()
        .expect("runs");
    assert_eq!(unknown.status.code(), Some(3));
}

#[test]
fn the_offline_demo_account_starts_its_service_on_the_demo_database() {
    let dir = tempfile::tempdir().unwrap();
    let run_demo = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_domain-desk"))
            .args(args)
            .args(["--account", "offline-demo:pro"])
            .env("XDG_DATA_HOME", dir.path())
            .env("HOME", dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    let projects = run_demo(&["projects", "list", "--json"]);
    assert!(
        projects.status.success(),
        "{}",
        String::from_utf8_lossy(&projects.stderr)
    );
    let list: Value = serde_json::from_slice(&projects.stdout).expect("JSON");
    let site = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Pro site")
        .expect("the demo's Pro site");
    let id = site["id"].as_str().unwrap();
    let added = run_demo(&["domains", "add", "kept.example.com", "--project", id]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    // A second process finds it in the same database: the demo continues where it was left.
    let again = run_demo(&["domains", "list", "--project", id, "--json"]);
    let domains: Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(domains["domains"][0]["hostname"], "kept.example.com");
}

/// A project named `name` with a deploy on `plan`'s demo account, and these domains in it.
fn project_with(served: &Served, plan: &str, name: &str, hostnames: &[&str]) -> String {
    let id = project(served, plan, name);
    let key = demo_key(served, plan);
    for hostname in hostnames {
        let added = http()
            .post(served.url(&format!("/v1/projects/{id}/domains")))
            .bearer_auth(&key)
            .json(&json!({ "hostname": hostname }))
            .send()
            .expect("add a domain");
        assert!(
            added.status().is_success(),
            "{hostname}: {}",
            added.status()
        );
    }
    id
}

/// The command lines in the README's tables: each code span in a table row that starts with
/// `domain-desk`, as the words a shell would pass (double quotes group words).
fn readme_examples() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let mut examples = Vec::new();
    for row in readme.lines().filter(|l| l.starts_with('|')) {
        for span in row.split('`').skip(1).step_by(2) {
            if span == "domain-desk" || span.starts_with("domain-desk ") {
                examples.push((span.to_owned(), shell_words(span)));
            }
        }
    }
    examples
}

fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in text.chars() {
        match c {
            '"' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quotes in {text}");
    if started {
        words.push(word);
    }
    words
}

/// Every command line the README's tables show is one the program accepts, and each runs
/// against the local service where it can: `serve` is the service itself, `login` and
/// `logout` need the OS keyring and a real platform, `--auto` opens a browser, and
/// `domain-desk` alone opens the window; those are only parsed. A placeholder (`URL`,
/// `HOST…`) becomes a value of its kind, and `domains …` asks for the subcommand's help.
#[test]
fn every_command_line_example_in_the_readme_runs() {
    use clap::Parser as _;
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let shop = project_with(
        &served,
        "pro",
        "shop",
        &["old.example.com", "example.com", "blog.example.com"],
    );
    // Where `domains move blog.example.com --to blog` moves it.
    let blog = project(&served, "pro", "blog");
    std::fs::write(
        dir.path().join("domains.csv"),
        "hostname\na.import.example.com\nb.import.example.com\n",
    )
    .unwrap();
    let examples = readme_examples();
    assert!(examples.len() >= 20, "{examples:?}");
    let mut ran = 0;
    for (text, words) in &examples {
        let mut args: Vec<String> = Vec::new();
        for word in &words[1..] {
            let placeholder = word.trim_end_matches('…');
            let is_placeholder = placeholder.len() >= 3
                && placeholder
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_');
            match word.as_str() {
                "…" => args.push("--help".into()),
                _ if is_placeholder => args.push(
                    match placeholder {
                        "URL" => "https://api.example.com",
                        "HOST" => "www.example.com",
                        other => panic!("no value for the placeholder {other} in `{text}`"),
                    }
                    .into(),
                ),
                w => args.push(w.to_owned()),
            }
        }
        let argv = std::iter::once("domain-desk".to_owned()).chain(args.iter().cloned());
        if let Err(err) = domain_desk::cli::Cli::try_parse_from(argv)
            && err.kind() != clap::error::ErrorKind::DisplayHelp
        {
            panic!("the README's `{text}` does not parse:\n{err}");
        }
        let only_parsed = args.is_empty()
            || ["serve", "login", "logout"].contains(&args[0].as_str())
            || args.iter().any(|a| a == "--auto");
        if only_parsed {
            continue;
        }
        let mut command = Command::new(env!("CARGO_BIN_EXE_domain-desk"));
        command
            .args(&args)
            .args(["--local-api", &served.api])
            .current_dir(dir.path())
            .env("XDG_DATA_HOME", dir.path())
            .env("HOME", dir.path())
            .env_remove("DOMAIN_DESK_ACCOUNT")
            .env_remove("DOMAIN_DESK_PROJECT")
            .stdin(Stdio::null());
        if !args.iter().any(|a| a == "--local") {
            command.arg("--local");
        }
        if args[0] == "doctor" {
            command.args(["--resolver", &served.dns]);
        }
        let output = run(&mut command);
        // 1: the doctor found an error, or a domain is not live yet (inspect, verify).
        let allowed: &[i32] = match args.get(1).map(String::as_str) {
            _ if args[0] == "doctor" => &[0, 1],
            Some("inspect" | "verify") => &[0, 1],
            _ => &[0],
        };
        let status = output.status.code().expect("an exit status");
        assert!(
            allowed.contains(&status),
            "the README's `{text}` exited {status}:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            !output.stdout.is_empty(),
            "the README's `{text}` printed nothing: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 14, "only {ran} examples ran");
    // They did what the README says.
    let mut left = domains(&served, "pro", &shop);
    left.sort();
    assert_eq!(
        left,
        [
            "a.import.example.com",
            "b.import.example.com",
            "example.com",
            "www.example.com"
        ]
    );
    assert!(!dir.path().join("domains.csv.failed.csv").exists());
    assert_eq!(domains(&served, "pro", &blog), ["blog.example.com"]);
}

/// A CSV of `rows` hostnames under `zone` in `dir`; its path.
fn import_file(dir: &Path, rows: usize, zone: &str) -> std::path::PathBuf {
    let file = dir.join(format!("{zone}.csv"));
    let text: String = std::iter::once("hostname\n".to_owned())
        .chain((0..rows).map(|i| format!("host{i}.{zone}.example.com\n")))
        .collect();
    std::fs::write(&file, text).unwrap();
    file
}

/// A run stopped with Ctrl-C leaves `FILE.failed.csv` with the rows it did not send; the next
/// run that finishes them all removes it and says so, so no retry file lists rows now done.
#[cfg(unix)]
#[test]
fn a_finished_run_leaves_no_retry_file_of_rows_now_done() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, "business", "stale");
    let file = import_file(dir.path(), 200, "stale");
    let retry = dir.path().join("stale.csv.failed.csv");
    // Slow enough that Ctrl-C comes before the last row.
    set_faults(&served, json!({"latency_ms": 50}));
    let file_arg = file.to_str().unwrap();
    let import = ["domains", "import", file_arg, "--project", &project];
    let mut first = cli(&served, dir.path(), "business", &import)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("import starts");
    let mut progress = BufReader::new(first.stderr.take().expect("stderr")).lines();
    let line = progress.next().expect("a progress line").expect("text");
    assert!(line.contains("/200"), "{line}");
    let interrupted = Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(interrupted.success());
    let rest: Vec<String> = progress.map_while(Result::ok).collect();
    let first = first.wait_with_output().expect("the first run ends");
    assert_eq!(first.status.code(), Some(1), "{rest:?}");
    let shown = String::from_utf8_lossy(&first.stdout);
    assert!(shown.contains("stopped"), "{shown}");
    let left = std::fs::read_to_string(&retry).expect("the stopped run's retry file");
    // Below the retry file's own first line and the header.
    let left_rows = left.lines().count() - 2;
    assert!(left_rows > 0 && left_rows < 200, "{left_rows} rows left");

    set_faults(&served, json!({}));
    let second = run(&mut cli(&served, dir.path(), "business", &import));
    let shown = String::from_utf8_lossy(&second.stdout);
    assert_eq!(
        second.status.code(),
        Some(0),
        "{shown}{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(
        !retry.exists(),
        "the retry file outlived the run that finished its rows"
    );
    assert!(
        shown.contains("Nothing left to try again: removed"),
        "{shown}"
    );
    assert_eq!(domains(&served, "business", &project).len(), 200);
}

/// On an 80-column terminal (a pseudo-terminal here) every redraw of the progress line fits
/// in 79 columns, so nothing wraps and no pieces of old lines pile up; the full line would be
/// about 100.
#[cfg(unix)]
#[test]
fn the_progress_line_fits_an_80_column_terminal() {
    use std::io::Read;

    use nix::pty::{Winsize, openpty};
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, "business", "narrow");
    let file = import_file(dir.path(), 120, "narrow");
    set_faults(&served, json!({"latency_ms": 2}));
    let size = Winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = openpty(&size, None).expect("a pseudo-terminal");
    let file_arg = file.to_str().unwrap();
    let import = ["domains", "import", file_arg, "--project", &project];
    let mut child = cli(&served, dir.path(), "business", &import)
        .stdout(Stdio::null())
        .stderr(Stdio::from(pty.slave))
        .spawn()
        .expect("import starts");
    // The child holds the terminal's other end now; reading ends when it exits.
    let mut terminal = std::fs::File::from(pty.master);
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match terminal.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&chunk[..n]),
        }
    }
    let status = child.wait().expect("the import ends");
    let text = String::from_utf8_lossy(&seen).replace("\x1b[K", "");
    assert!(status.success(), "{text}");
    let redraws: Vec<&str> = text
        .split(['\r', '\n'])
        .filter(|line| line.contains("/120"))
        .collect();
    assert!(redraws.len() >= 10, "{text}");
    for line in &redraws {
        assert!(
            line.chars().count() < 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(
        redraws
            .iter()
            .all(|line| line.starts_with("[#") || line.starts_with("[-"))
    );
    assert!(redraws.last().unwrap().contains("120/120"), "{text}");
}

/// A file of 30 rows with 4 that cannot be imported (not a hostname, a wildcard, a duplicate,
/// a line without one): without `--skip-invalid` nothing is sent and the 4 are named; with it
/// the 26 valid rows are added and the 4 go to the retry file, each under why.
#[test]
fn skip_invalid_imports_the_valid_rows_and_keeps_the_rest_for_later() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, "business", "mixed");
    let mut text = String::from("hostname,redirect_to\n");
    for i in 0..26 {
        text.push_str(&format!("host{i}.mixed.example.com,\n"));
        match i {
            5 => text.push_str("not a host,\n"),
            10 => text.push_str("*.example.com,\n"),
            15 => text.push_str("host3.mixed.example.com,\n"),
            20 => text.push_str(",host1.mixed.example.com\n"),
            _ => {}
        }
    }
    let file = dir.path().join("mixed.csv");
    std::fs::write(&file, text).unwrap();
    let retry = dir.path().join("mixed.csv.failed.csv");
    let file_arg = file.to_str().unwrap();
    let import = ["domains", "import", file_arg, "--project", &project];

    let refused = run(&mut cli(&served, dir.path(), "business", &import));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("4 line(s) cannot be imported"), "{said}");
    assert!(domains(&served, "business", &project).is_empty());

    let mut skipping = import.to_vec();
    skipping.push("--skip-invalid");
    let done = run(&mut cli(&served, dir.path(), "business", &skipping));
    let shown = String::from_utf8_lossy(&done.stdout);
    assert_eq!(
        done.status.code(),
        Some(0),
        "{shown}{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(shown.contains("added 26"), "{shown}");
    assert!(shown.contains("left out 4 invalid row(s)"), "{shown}");
    assert_eq!(domains(&served, "business", &project).len(), 26);
    let left = std::fs::read_to_string(&retry).expect("the retry file");
    assert_eq!(
        // (quoted as one cell when a spreadsheet would split it)
        left.lines()
            .filter(|l| l.trim_start_matches('"').starts_with("# line "))
            .count(),
        4,
        "{left}"
    );
    assert!(left.contains("\nnot a host,\n"), "{left}");
    assert!(
        left.contains("# as written: ,host1.mixed.example.com"),
        "{left}"
    );
}

/// `--failed` names where the rows to import again go, never the file being imported nor a
/// file Domain Desk did not write: both are refused before anything is sent, and left as they
/// were. An export through `--output` replaces a link planted at the path instead of writing
/// through it, and is its owner's alone.
#[cfg(unix)]
#[test]
fn the_retry_file_and_exports_never_overwrite_what_they_should_not() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let project = project(&served, "business", "careful");
    let file = import_file(dir.path(), 3, "careful");
    let written = std::fs::read_to_string(&file).unwrap();
    let file_arg = file.to_str().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "mine\n").unwrap();
    for failed in [file_arg, notes.to_str().unwrap()] {
        let import = [
            "domains",
            "import",
            file_arg,
            "--project",
            &project,
            "--failed",
            failed,
        ];
        let refused = run(&mut cli(&served, dir.path(), "business", &import));
        let said = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{failed}: {said}");
        assert!(said.contains(failed), "{said}");
        assert!(domains(&served, "business", &project).is_empty(), "{said}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");

    let link = dir.path().join("export.csv");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    let export = [
        "domains",
        "export",
        "--project",
        &project,
        "--output",
        link.to_str().unwrap(),
    ];
    let exported = run(&mut cli(&served, dir.path(), "business", &export));
    assert_eq!(
        exported.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
    let metadata = link.symlink_metadata().unwrap();
    assert!(metadata.file_type().is_file());
    assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
    assert!(
        std::fs::read_to_string(&link)
            .unwrap()
            .starts_with("hostname,redirect_to,")
    );
}

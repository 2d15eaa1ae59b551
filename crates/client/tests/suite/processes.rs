//! Several processes on one API key (the app and the command line, two windows): real
//! separate processes, each with its own queue, against the real local service. They share
//! the key's budget through a data directory, so together they never earn a 429.
//!
//! The child processes are this test binary again, running only [`child_process_worker`],
//! told what to do through environment variables (without them that test does nothing).

use std::process::{Command, Stdio};

use chrono::TimeDelta;
use domain_desk_api::Plan;
use domain_desk_client::{ApiRequest, Client, ClientConfig};
use futures::future::join_all;

use super::local_service::{LocalService, minute_boundary};

const CHILD_ENV: &str = "DOMAIN_DESK_TEST_CHILD";
const SPEED: f64 = 60.0;

/// What a child reports on its last line of output.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct ChildReport {
    not_found: usize,
    other: usize,
    rate_limited_total: u64,
}

/// Runs `processes` children on the Free key, `requests` each, sharing `dir` (or each
/// alone when `dir` is `None`); returns their reports.
async fn run_children(
    service: &LocalService,
    processes: usize,
    requests: usize,
    dir: Option<&std::path::Path>,
) -> Vec<ChildReport> {
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..processes)
        .map(|index| {
            let mut command = Command::new(&exe);
            command
                .args([
                    "--exact",
                    "suite::processes::child_process_worker",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, "1")
                .env("CHILD_BASE_URL", &service.base_url)
                .env("CHILD_KEY", service.key(Plan::Free))
                .env("CHILD_NAME", format!("p{index}"))
                .env("CHILD_REQUESTS", requests.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit());
            if let Some(dir) = dir {
                command.env("CHILD_DATA_DIR", dir);
            }
            command.spawn().expect("a child process starts")
        })
        .collect();
    let outputs = join_all(children.into_iter().map(|child| {
        tokio::task::spawn_blocking(move || child.wait_with_output().expect("the child ends"))
    }))
    .await;
    outputs
        .into_iter()
        .map(|output| {
            let output = output.expect("joined");
            let text = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "a child failed:\n{text}");
            let line = text
                .lines()
                .find_map(|line| line.split_once("CHILD_REPORT ").map(|(_, report)| report))
                .unwrap_or_else(|| panic!("no report from a child:\n{text}"));
            serde_json::from_str(line).expect("a readable report")
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_on_one_key_share_its_budget_without_a_429() {
    let service = LocalService::start().await;
    // Half-way through a minute, so the first window is already part used up in time.
    service
        .set_clock(minute_boundary(9) + TimeDelta::seconds(30), SPEED)
        .await;
    let dir = tempfile::tempdir().unwrap();
    // 4 × 40 = 160 requests on Free (60 a minute): three windows, shared.
    let reports = run_children(&service, 4, 40, Some(dir.path())).await;
    assert_eq!(reports.len(), 4);
    for report in &reports {
        assert_eq!(report.not_found, 40, "{report:?}");
        assert_eq!(report.other, 0, "{report:?}");
    }
    let limited: u64 = reports.iter().map(|r| r.rate_limited_total).sum();
    assert_eq!(limited, 0, "{reports:?}");
}

/// The child's side of the tests above; does nothing unless started by them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_process_worker() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let mut config = ClientConfig::new(var("CHILD_BASE_URL"), var("CHILD_KEY")).plan(Plan::Free);
    config.queue.platform_clock_speed = SPEED;
    if let Ok(dir) = std::env::var("CHILD_DATA_DIR") {
        config = config.data_dir(dir);
    }
    let client = Client::new(config).unwrap().bulk();
    let name = var("CHILD_NAME");
    let requests: usize = var("CHILD_REQUESTS").parse().unwrap();
    // Bounded, so that a child stuck behind a ban fails the test instead of hanging it.
    let answers = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        join_all((0..requests).map(|i| {
            let client = client.clone();
            let path = format!("/v1/projects/{name}-{i}");
            async move { client.send(ApiRequest::get(path)).await }
        })),
    )
    .await
    .unwrap_or_default();
    let not_found = answers
        .iter()
        .filter(|a| matches!(a, Ok(r) if r.status.as_u16() == 404))
        .count();
    let report = ChildReport {
        not_found,
        other: requests - not_found,
        rate_limited_total: client.state().borrow().rate_limited_total,
    };
    // The child's report to its parent, on its own line of the test's output.
    #[allow(clippy::print_stdout)]
    {
        println!("\nCHILD_REPORT {}", serde_json::to_string(&report).unwrap());
    }
}

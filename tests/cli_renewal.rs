//! The renewal watch on the command line, the real binary against `domain-desk serve`: a live
//! domain is `ready` in `domains list` and `inspect`; once its parent zone gains a CAA record
//! naming another CA, `list` says the renewal will fail, `inspect` explains it with the date
//! and the fix and exits 1, and `doctor` reports `renewal_at_risk` as an error — which a name
//! in the same state that was never issued does not get.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use domain_desk_test_support::LOOPBACK_ARGS;
use serde_json::{Value, json};

struct Served {
    api: String,
    _process: domain_desk_test_support::Served,
}

fn http() -> reqwest::blocking::Client {
    domain_desk_test_support::blocking_http_client()
}

impl Served {
    fn start(dir: &Path) -> Served {
        let process = domain_desk_test_support::Served::start(
            Command::new(env!("CARGO_BIN_EXE_domain-desk"))
                .args(["serve", "--memory", "--clock-speed", "0"])
                .args(LOOPBACK_ARGS)
                .env("RUST_LOG", "warn")
                .stderr(std::fs::File::create(dir.join("serve.log")).expect("log file")),
        )
        .expect("the service starts and prints its addresses");
        Served {
            api: process.api().to_string(),
            _process: process,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.api)
    }

    fn info(&self) -> Value {
        http()
            .get(self.url("/_local/info"))
            .send()
            .and_then(|r| r.json())
            .expect("info")
    }

    fn call(&self, method: reqwest::Method, path: &str, key: Option<&str>, body: Value) -> Value {
        let mut request = http().request(method, self.url(path)).json(&body);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let answer = request.send().expect("request");
        let status = answer.status();
        let body: Value = answer.json().unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {body}");
        body
    }

    fn advance(&self, seconds: f64) {
        self.call(
            reqwest::Method::POST,
            "/_local/clock/advance",
            None,
            json!({"seconds": seconds}),
        );
    }
}

fn cli(served: &Served, data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_domain-desk"))
        .args(args)
        .args(["--local", "--local-api", &served.api, "--plan", "pro"])
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env_remove("DOMAIN_DESK_ACCOUNT")
        .stdin(Stdio::null())
        .output()
        .expect("the command line runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_live_domain_whose_parent_gains_a_forbidding_caa_will_not_renew() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let info = served.info();
    let key = info["demo_keys"]["pro"].as_str().unwrap().to_owned();
    let target = info["platform_dns_target"].as_str().unwrap().to_owned();
    let dns = info["dns"].as_str().unwrap().to_owned();
    let post = |path: &str, body: Value| served.call(reqwest::Method::POST, path, Some(&key), body);
    let project = post("/v1/projects", json!({"name": "renewal"}));
    let project = project["id"].as_str().unwrap().to_owned();
    post(&format!("/v1/projects/{project}/deploys"), json!({}));
    for name in ["live", "never"] {
        served.call(
            reqwest::Method::POST,
            "/_local/dns/example.com/records",
            None,
            json!({"name": name, "type": "CNAME", "value": target, "ttl": 60}),
        );
    }
    post(
        &format!("/v1/projects/{project}/domains"),
        json!({"hostname": "live.example.com"}),
    );
    served.advance(61.0);
    post(
        &format!("/v1/projects/{project}/domains/live.example.com/verify"),
        json!({}),
    );
    served.advance(180.0);

    let list = cli(
        &served,
        dir.path(),
        &["domains", "list", "--project", "renewal"],
    );
    let table = stdout(&list);
    assert!(list.status.success(), "{table}");
    assert!(table.contains("RENEWAL"), "{table}");
    let row = table
        .lines()
        .find(|line| line.contains("live.example.com"))
        .unwrap();
    assert!(row.contains("live") && row.contains("ready"), "{table}");
    let inspect = cli(
        &served,
        dir.path(),
        &[
            "domains",
            "inspect",
            "live.example.com",
            "--project",
            "renewal",
        ],
    );
    assert_eq!(inspect.status.code(), Some(0), "{}", stdout(&inspect));
    assert!(
        stdout(&inspect).contains("renewal      ready"),
        "{}",
        stdout(&inspect)
    );

    // Later, someone names another CA at the parent.
    served.call(
        reqwest::Method::POST,
        "/_local/dns/example.com/records",
        None,
        json!({"name": "@", "type": "CAA", "value": "0 issue \"other-ca.example\""}),
    );

    let list = cli(
        &served,
        dir.path(),
        &["domains", "list", "--project", "renewal", "--json"],
    );
    let listed: Value = serde_json::from_slice(&list.stdout).expect("JSON list");
    assert_eq!(
        listed["renewal"]["live.example.com"]["state"], "at_risk",
        "{listed}"
    );
    let table = stdout(&cli(
        &served,
        dir.path(),
        &["domains", "list", "--project", "renewal"],
    ));
    assert!(
        table
            .lines()
            .any(|line| line.contains("live.example.com") && line.contains("will fail")),
        "{table}"
    );

    let inspect = cli(
        &served,
        dir.path(),
        &[
            "domains",
            "inspect",
            "live.example.com",
            "--project",
            "renewal",
        ],
    );
    let explained = stdout(&inspect);
    assert_eq!(inspect.status.code(), Some(1), "{explained}");
    assert!(
        explained.contains(
            "that renewal will fail: the CAA record at example.com now allows only other-ca.example"
        ),
        "{explained}"
    );
    assert!(
        explained.contains("live.example.com's certificate expires on"),
        "{explained}"
    );
    assert!(
        explained.contains("0 issue \"letsencrypt.org\""),
        "{explained}"
    );

    // The doctor: renewal_at_risk for the live name, the CAA finding alone for the other.
    let doctor = Command::new(env!("CARGO_BIN_EXE_domain-desk"))
        .args([
            "doctor",
            "live.example.com",
            "never.example.com",
            "--resolver",
            &dns,
            "--local-api",
            &served.api,
            "--no-tls",
            "--json",
        ])
        .env("XDG_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("doctor runs");
    assert_eq!(doctor.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&doctor.stdout).expect("JSON report");
    let codes = |host: usize| -> Vec<(String, String)> {
        report["hosts"][host]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_owned(),
                    f["severity"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let live = codes(0);
    assert!(
        live.contains(&("renewal_at_risk".to_owned(), "error".to_owned())),
        "{live:?}"
    );
    let never = codes(1);
    assert!(
        never.iter().any(|(code, _)| code == "caa_forbids_issuance"),
        "{never:?}"
    );
    assert!(
        !never.iter().any(|(code, _)| code == "renewal_at_risk"),
        "{never:?}"
    );
}

/// `domains add` prints the window's pre-flight warnings (one code path): a name whose parent
/// holds a CAA record naming another CA is told so before the record is created, and a name
/// with nothing in the way is told nothing more.
#[test]
fn domains_add_warns_of_what_would_refuse_the_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(dir.path());
    let info = served.info();
    let key = info["demo_keys"]["pro"].as_str().unwrap().to_owned();
    let post = |path: &str, body: Value| served.call(reqwest::Method::POST, path, Some(&key), body);
    let project = post("/v1/projects", json!({"name": "preflight"}));
    let project = project["id"].as_str().unwrap().to_owned();
    post(&format!("/v1/projects/{project}/deploys"), json!({}));

    // the demo seeds `locked.example.org CAA 0 issue "other-ca.example"`
    let added = cli(
        &served,
        dir.path(),
        &[
            "domains",
            "add",
            "www.locked.example.org",
            "--project",
            "preflight",
        ],
    );
    let said = stdout(&added);
    assert!(added.status.success(), "{said}");
    let warning = said
        .split("Before you create the record:")
        .nth(1)
        .unwrap_or_else(|| panic!("no pre-flight warning: {said}"));
    assert!(
        warning.contains("CAA at locked.example.org forbids"),
        "{said}"
    );

    let plain = cli(
        &served,
        dir.path(),
        &[
            "domains",
            "add",
            "new.example.org",
            "--project",
            "preflight",
        ],
    );
    let said = stdout(&plain);
    assert!(plain.status.success(), "{said}");
    assert!(!said.contains("Before you create the record"), "{said}");
}

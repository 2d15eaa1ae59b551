//! The command line, the real binary, against `domain-desk serve`: an apex added with its
//! www name (`--with-www`, `--www-primary`), a domain moved to another project, the seeded
//! site live on another host (the `_acme-challenge` record printed beside the routing
//! record), and a wildcard added, inspected, imported and exported as a BIND zone fragment.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use domain_desk_test_support::LOOPBACK_ARGS;
use serde_json::{Value, json};

/// One running `domain-desk serve --memory`; killed when dropped.
struct Served {
    api: String,
    info: Value,
    _process: domain_desk_test_support::Served,
}

impl Served {
    fn start() -> Served {
        let process = domain_desk_test_support::Served::start(
            Command::new(env!("CARGO_BIN_EXE_domain-desk"))
                .args(["serve", "--memory"])
                .args(LOOPBACK_ARGS)
                .stderr(Stdio::null()),
        )
        .expect("the service starts and prints its addresses");
        let api = process.api().to_string();
        let info: Value = http()
            .get(format!("http://{api}/_local/info"))
            .send()
            .and_then(|r| r.json())
            .expect("info");
        Served {
            api,
            info,
            _process: process,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.api)
    }

    fn key(&self) -> String {
        self.info["demo_keys"]["pro"]
            .as_str()
            .expect("key")
            .to_owned()
    }

    /// A new project with a deploy on the Pro demo account; its id.
    fn project(&self, name: &str) -> String {
        let created: Value = http()
            .post(self.url("/v1/projects"))
            .bearer_auth(self.key())
            .json(&json!({ "name": name }))
            .send()
            .and_then(|r| r.json())
            .expect("project");
        let id = created["id"].as_str().expect("id").to_owned();
        let deployed = http()
            .post(self.url(&format!("/v1/projects/{id}/deploys")))
            .bearer_auth(self.key())
            .json(&json!({}))
            .send()
            .expect("deploy");
        assert!(deployed.status().is_success(), "{}", deployed.status());
        id
    }

    /// The project's domains as the API answers them.
    fn domains(&self, project: &str) -> Vec<Value> {
        let page: Value = http()
            .get(self.url(&format!("/v1/projects/{project}/domains?limit=1000")))
            .bearer_auth(self.key())
            .send()
            .and_then(|r| r.json())
            .expect("domains");
        page["domains"].as_array().expect("list").clone()
    }

    /// `domain-desk ARGS --local` against this service, with a home of its own.
    fn cli(&self, home: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_domain-desk"))
            .args(args)
            .args(["--local", "--local-api", &self.api, "--plan", "pro"])
            .env("XDG_DATA_HOME", home)
            .env("HOME", home)
            .env_remove("DOMAIN_DESK_ACCOUNT")
            .env_remove("DOMAIN_DESK_PROJECT")
            .stdin(Stdio::null())
            .output()
            .expect("the command line runs")
    }
}

fn http() -> reqwest::blocking::Client {
    domain_desk_test_support::blocking_http_client()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn by_name<'a>(domains: &'a [Value], hostname: &str) -> &'a Value {
    domains
        .iter()
        .find(|d| d["hostname"] == hostname)
        .unwrap_or_else(|| panic!("{hostname} is not in {domains:#?}"))
}

#[test]
fn with_www_adds_the_pair_redirecting_to_the_apex_or_with_www_primary_the_other_way() {
    let home = tempfile::tempdir().unwrap();
    let served = Served::start();
    let project = served.project("pair");

    let added = served.cli(
        home.path(),
        &[
            "domains",
            "add",
            "www.example.net",
            "--with-www",
            "-p",
            &project,
        ],
    );
    let text = said(&added);
    assert_eq!(added.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Added example.net and www.example.net to pair: www.example.net redirects (301) to example.net."),
        "{text}"
    );
    // Both records to create, each under its name.
    assert!(text.contains("example.net:\n"), "{text}");
    assert!(text.contains("www.example.net:\n"), "{text}");
    let domains = served.domains(&project);
    assert_eq!(domains.len(), 2, "{domains:#?}");
    assert_eq!(by_name(&domains, "www.example.net")["role"], "redirect");
    assert_eq!(
        by_name(&domains, "www.example.net")["redirect"]["to"],
        "example.net"
    );
    assert_ne!(by_name(&domains, "example.net")["role"], "redirect");

    let other = served.project("www-first");
    let added = served.cli(
        home.path(),
        &[
            "--json",
            "domains",
            "add",
            "example.com",
            "--www-primary",
            "-p",
            &other,
        ],
    );
    assert_eq!(added.status.code(), Some(0), "{}", said(&added));
    let printed: Value = serde_json::from_slice(&added.stdout).expect("JSON");
    let names: Vec<&str> = printed["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["hostname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["www.example.com", "example.com"]);
    let domains = served.domains(&other);
    assert_eq!(
        by_name(&domains, "example.com")["redirect"]["to"],
        "www.example.com"
    );

    // A name without a www partner, and --with-www beside --redirect-to, are usage mistakes.
    let lone = served.cli(
        home.path(),
        &[
            "domains",
            "add",
            "shop.example.com",
            "--with-www",
            "-p",
            &other,
        ],
    );
    assert_eq!(lone.status.code(), Some(2), "{}", said(&lone));
    assert!(said(&lone).contains("has no www pair"), "{}", said(&lone));
    let both = served.cli(
        home.path(),
        &[
            "domains",
            "add",
            "example.org",
            "--with-www",
            "--redirect-to",
            "example.com",
            "-p",
            &other,
        ],
    );
    assert_eq!(both.status.code(), Some(2), "{}", said(&both));
    assert_eq!(served.domains(&other).len(), 2);
}

#[test]
fn move_takes_a_domain_to_another_project_by_name_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let served = Served::start();
    let from = served.project("old-site");
    let to = served.project("new-site");
    let added = served.cli(
        home.path(),
        &["domains", "add", "blog.example.com", "-p", &from],
    );
    assert_eq!(added.status.code(), Some(0), "{}", said(&added));

    let moved = served.cli(
        home.path(),
        &[
            "domains",
            "move",
            "Blog.Example.com",
            "--to",
            "new-site",
            "-p",
            "old-site",
        ],
    );
    let text = said(&moved);
    assert_eq!(moved.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Moved blog.example.com from old-site to new-site"),
        "{text}"
    );
    assert!(served.domains(&from).is_empty());
    assert_eq!(
        by_name(&served.domains(&to), "blog.example.com")["project_id"],
        to.as_str()
    );

    // Gone from the old project: the platform's 404, not a panic; and the same project twice
    // is a usage mistake caught before anything is sent.
    let again = served.cli(
        home.path(),
        &[
            "domains",
            "move",
            "blog.example.com",
            "--to",
            &to,
            "-p",
            &from,
        ],
    );
    assert_ne!(again.status.code(), Some(0), "{}", said(&again));
    let same = served.cli(
        home.path(),
        &[
            "domains",
            "move",
            "blog.example.com",
            "--to",
            &to,
            "-p",
            &to,
        ],
    );
    assert_eq!(same.status.code(), Some(2), "{}", said(&same));
    assert!(said(&same).contains("already"), "{}", said(&same));
}

/// The demo seeds `shop.example.org A 192.0.2.77`: a site live on another host. Adding it
/// says so and gives the `_acme-challenge` record first, then the routing record.
#[test]
fn adding_a_name_live_elsewhere_prints_the_delegation_beside_the_routing_record() {
    let home = tempfile::tempdir().unwrap();
    let served = Served::start();
    let project = served.project("switch");
    let added = served.cli(
        home.path(),
        &["domains", "add", "shop.example.org", "-p", &project],
    );
    let text = said(&added);
    assert_eq!(added.status.code(), Some(0), "{text}");
    let zone = served.info["validation_zone"]
        .as_str()
        .expect("a validation zone");
    assert_eq!(
        text.matches("shop.example.org is served today by 192.0.2.77, not the platform")
            .count(),
        1,
        "said once, with the steps: {text}"
    );
    let delegation = text
        .find("name   _acme-challenge.shop")
        .unwrap_or_else(|| panic!("no delegation in {text}"));
    assert!(
        text.contains(&format!("value  shop.example.org.{zone}")),
        "{text}"
    );
    let routing = text
        .find("type   CNAME\n  name   shop\n")
        .expect("the routing record");
    assert!(delegation < routing, "the delegation comes first: {text}");
    // Not "a conflicting record to remove now".
    assert!(!text.to_lowercase().contains("conflict"), "{text}");

    // A name that is not live anywhere gets the routing record alone.
    let fresh = served.cli(
        home.path(),
        &["domains", "add", "new.example.org", "-p", &project],
    );
    let text = said(&fresh);
    assert_eq!(fresh.status.code(), Some(0), "{text}");
    assert!(!text.contains("_acme-challenge"), "{text}");
}

#[test]
fn a_wildcard_is_added_inspected_imported_and_exported_with_both_records() {
    let home = tempfile::tempdir().unwrap();
    let served = Served::start();
    let project = served.project("wild");
    let target = served.info["platform_dns_target"]
        .as_str()
        .unwrap()
        .to_owned();
    let zone = served.info["validation_zone"].as_str().unwrap().to_owned();

    let added = served.cli(
        home.path(),
        &["domains", "add", "*.Shop.example.com", "-p", &project],
    );
    let text = said(&added);
    assert_eq!(added.status.code(), Some(0), "{text}");
    assert!(text.contains("Added *.shop.example.com"), "{text}");
    assert!(text.contains("issued only by DNS validation"), "{text}");
    // A command to copy: the shell must not expand the `*`.
    assert!(
        text.contains("`domain-desk domains verify '*.shop.example.com'`"),
        "{text}"
    );
    assert!(text.contains("name   _acme-challenge.shop"), "{text}");
    assert!(text.contains("name   *.shop"), "{text}");

    let inspected = served.cli(
        home.path(),
        &["domains", "inspect", "*.shop.example.com", "-p", &project],
    );
    let text = said(&inspected);
    assert_eq!(inspected.status.code(), Some(1), "not live yet: {text}");
    assert!(text.contains("validation   none yet"), "{text}");
    assert!(
        text.contains(&format!(
            "delegation CNAME _acme-challenge.shop.example.com → shop.example.com.{zone}"
        )),
        "{text}"
    );

    let file = home.path().join("wild.csv");
    std::fs::write(
        &file,
        "hostname,redirect_to\n*.blog.example.com,\nblog.example.com,\n",
    )
    .unwrap();
    let imported = served.cli(
        home.path(),
        &["domains", "import", file.to_str().unwrap(), "-p", &project],
    );
    assert_eq!(imported.status.code(), Some(0), "{}", said(&imported));
    let names: Vec<String> = served
        .domains(&project)
        .iter()
        .map(|d| d["hostname"].as_str().unwrap().to_owned())
        .collect();
    for name in [
        "*.shop.example.com",
        "*.blog.example.com",
        "blog.example.com",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }

    let exported = served.cli(
        home.path(),
        &["domains", "export", "--format", "zone", "-p", &project],
    );
    assert_eq!(exported.status.code(), Some(0), "{}", said(&exported));
    let fragment = String::from_utf8_lossy(&exported.stdout);
    let records: Vec<&str> = fragment
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
        .collect();
    for wanted in [
        format!("*.shop.example.com.\t3600\tIN\tCNAME\t{target}."),
        format!("*.blog.example.com.\t3600\tIN\tCNAME\t{target}."),
        format!("blog.example.com.\t3600\tIN\tCNAME\t{target}."),
        format!("_acme-challenge.shop.example.com.\t3600\tIN\tCNAME\tshop.example.com.{zone}."),
        format!("_acme-challenge.blog.example.com.\t3600\tIN\tCNAME\tblog.example.com.{zone}."),
    ] {
        assert!(
            records.contains(&wanted.as_str()),
            "{wanted:?} in\n{fragment}"
        );
    }
    // blog.example.com and *.blog.example.com share one delegation.
    assert_eq!(records.len(), 5, "{fragment}");

    // What was exported reads back in: the CSV export imported again adds nothing.
    let csv = served.cli(home.path(), &["domains", "export", "-p", &project]);
    let again = home.path().join("again.csv");
    std::fs::write(&again, &csv.stdout).unwrap();
    let reimported = served.cli(
        home.path(),
        &["domains", "import", again.to_str().unwrap(), "-p", &project],
    );
    assert_eq!(reimported.status.code(), Some(0), "{}", said(&reimported));
    assert_eq!(served.domains(&project).len(), 3);
}

/// The seeded site live on another host, switched without a gap on the service's virtual
/// clock (moved forward, never slept on): the delegation, a Verify that issues the
/// certificate by DNS while the domain stays pending, then the routing record and a Verify
/// that makes it live at once, `inspect` saying how the certificate was validated.
#[test]
fn the_seeded_live_site_switches_with_its_certificate_ready_first() {
    let home = tempfile::tempdir().unwrap();
    let served = Served::start();
    let project = served.project("switch-now");
    let advance = |seconds: u64| {
        let moved = http()
            .post(served.url("/_local/clock/advance"))
            .json(&json!({ "seconds": seconds }))
            .send()
            .expect("clock");
        assert!(moved.status().is_success(), "{}", moved.status());
    };
    let add_record = |name: &str, value: &str| {
        let added = http()
            .post(served.url("/_local/dns/example.org/records"))
            .json(&json!({"name": name, "type": "CNAME", "value": value}))
            .send()
            .expect("record");
        assert_eq!(added.status(), 201);
    };
    let added = served.cli(
        home.path(),
        &[
            "--json",
            "domains",
            "add",
            "shop.example.org",
            "-p",
            &project,
        ],
    );
    assert_eq!(added.status.code(), Some(0), "{}", said(&added));
    let domain: Value = serde_json::from_slice(&added.stdout).unwrap();
    let delegation = &domain["certificate"]["validation"]["dns_record"];
    add_record(
        delegation["name"].as_str().unwrap(),
        delegation["value"].as_str().unwrap(),
    );
    // Past the propagation delay: the platform's resolver sees the delegation.
    advance(120);
    let verify = ["domains", "verify", "shop.example.org", "-p", &project];
    let first = served.cli(home.path(), &verify);
    assert_eq!(
        first.status.code(),
        Some(1),
        "routing still fails: {}",
        said(&first)
    );
    assert!(
        said(&first).contains("certificate  issuing"),
        "{}",
        said(&first)
    );
    advance(300);
    let inspect = ["domains", "inspect", "shop.example.org", "-p", &project];
    let ready = served.cli(home.path(), &inspect);
    let text = said(&ready);
    assert_eq!(ready.status.code(), Some(1), "not live yet: {text}");
    assert!(text.contains("status       pending_verification"), "{text}");
    assert!(text.contains("certificate  issued"), "{text}");
    assert!(
        text.contains("validation   dns (through the _acme-challenge record)"),
        "{text}"
    );
    assert!(
        text.contains("Certificate ready: switch the DNS record"),
        "{text}"
    );

    // The switch: the A record goes, the routing CNAME comes.
    let records: Value = http()
        .get(served.url("/_local/dns/example.org/records"))
        .send()
        .and_then(|r| r.json())
        .expect("records");
    let old = records["records"]
        .as_array()
        .or(records.as_array())
        .expect("a list")
        .iter()
        .find(|r| r["name"] == "shop" && r["type"] == "A")
        .expect("the seeded A record")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let deleted = http()
        .delete(served.url(&format!("/_local/dns/example.org/records/{old}")))
        .send()
        .expect("delete");
    assert!(deleted.status().is_success(), "{}", deleted.status());
    add_record("shop", served.info["platform_dns_target"].as_str().unwrap());
    // Past the propagation delay and the zone's negative TTL (300 s): the platform's
    // resolver may have cached "no such record" for the CNAME in between.
    advance(420);
    let live = served.cli(home.path(), &verify);
    let text = said(&live);
    assert_eq!(live.status.code(), Some(0), "{text}");
    assert!(text.contains("status       live"), "{text}");
    assert!(
        text.contains("validation   dns (through the _acme-challenge record)"),
        "{text}"
    );
    assert!(!text.contains("Certificate ready"), "{text}");
}

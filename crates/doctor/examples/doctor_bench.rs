//! Benchmark: the doctor against the local service's DNS server, side by side with `dig`.
//!
//! 1. Starts the local service in-process on loopback (memory storage, frozen clock) and adds
//!    N hostnames to its demo zones through `/_local/dns` (most correct, some with an A record
//!    blocking the CNAME, some missing).
//! 2. Diagnoses all N with the doctor (batch mode, TLS probe off) and times it.
//! 3. Runs exactly the DNS questions the doctor sent, with `dig`, one after another, and times
//!    that: same server, same names, same types, same RD/CD flags.
//! 4. Takes one hostname live through the API and times its full report (DNS, CAA climb, TLS
//!    probe, redirect) over several runs, each with a fresh cache, and prints the median.
//!
//! Run: `cargo run --release -p domain-desk-doctor --example doctor_bench -- [HOSTS] [RUNS]`
//! (defaults 1000 and 21). Needs `dig` (Debian `dnsutils`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use domain_desk_doctor::{DoctorOptions, diagnose, diagnose_logged};
use domain_desk_service::{Service, ServiceSettings, Storage};
use serde_json::{Value, json};

type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let hosts: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(1000);
    let runs: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(21);

    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let service = Service::bind(ServiceSettings {
        storage: Storage::Memory,
        api_addr: loopback,
        dns_addr: loopback,
        edge_https_addr: loopback,
        edge_http_addr: loopback,
        clock_speed: 0.0,
        ..ServiceSettings::default()
    })
    .await?;
    let info = service.info().await?;
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(service.run(async {
        let _ = stopped.await;
    }));
    let dns: SocketAddr = info.dns.as_deref().ok_or("no DNS server")?.parse()?;
    let edge: SocketAddr = info.edge_https.as_deref().ok_or("no edge")?.parse()?;
    let http = reqwest::Client::builder().no_proxy().build()?;
    let api = format!("http://{}", info.api);
    let call = |method: reqwest::Method, path: String, key: Option<String>, body: Value| {
        let request = http.request(method, format!("{api}{path}")).json(&body);
        let request = match key {
            Some(key) => request.bearer_auth(key),
            None => request,
        };
        async move {
            let response = request.send().await?;
            if !response.status().is_success() {
                return Err(format!("{path}: {}", response.status()).into());
            }
            Ok::<Value, Failure>(response.json().await.unwrap_or(Value::Null))
        }
    };

    // 1. The hostnames, added through the demo DNS provider.
    let started = Instant::now();
    let mut names = Vec::with_capacity(hosts);
    for index in 0..hosts {
        let (zone, label, record_type, value) = match index % 10 {
            0 => (
                "example.net",
                format!("old{index}"),
                "A",
                "192.0.2.10".to_owned(),
            ),
            1 => ("example.org", format!("missing{index}"), "", String::new()),
            _ => (
                "example.com",
                format!("site{index}"),
                "CNAME",
                info.platform_dns_target.clone(),
            ),
        };
        if !record_type.is_empty() {
            call(
                reqwest::Method::POST,
                format!("/_local/dns/{zone}/records"),
                None,
                json!({"name": label, "type": record_type, "value": value, "ttl": 3600}),
            )
            .await?;
        }
        names.push(format!("{label}.{zone}"));
    }
    println!(
        "set-up: {hosts} hostnames in the local service's zones in {:.2?}",
        started.elapsed()
    );

    let options = DoctorOptions::new(&info.platform_dns_target)
        .with_resolvers([dns])
        .with_ca_identity(&info.ca_identity)
        .with_tls_probe(false);

    // 2. The doctor, all hostnames as one batch.
    let started = Instant::now();
    let (report, questions) = diagnose_logged(&names, &options).await?;
    let doctor_time = started.elapsed();
    println!(
        "doctor: {hosts} hostnames, {} DNS questions, {} errors found, in {:.3?}",
        questions.len(),
        report.errors,
        doctor_time
    );

    // 3. The same questions with dig, one after another.
    let started = Instant::now();
    let mut failed = 0usize;
    for question in &questions {
        let status = Command::new("dig")
            .arg(format!("@{}", question.server.ip()))
            .args(["-p", &question.server.port().to_string()])
            .args(["+tries=1", "+time=2"])
            .arg(if question.recursion_desired {
                "+recurse"
            } else {
                "+norecurse"
            })
            .arg(if question.checking_disabled {
                "+cdflag"
            } else {
                "+nocdflag"
            })
            .arg(&question.name)
            .arg(question.record_type.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        if !status.success() {
            failed += 1;
        }
    }
    let dig_time = started.elapsed();
    println!(
        "dig:    the same {} questions one after another in {:.3?}{}",
        questions.len(),
        dig_time,
        if failed > 0 {
            format!(" ({failed} failed)")
        } else {
            String::new()
        }
    );
    println!(
        "ratio:  dig / doctor = {:.1}x",
        dig_time.as_secs_f64() / doctor_time.as_secs_f64()
    );

    // 4. One hostname's full report, live with a certificate: median over runs.
    let key = info.demo_keys.get("pro").cloned().ok_or("no pro key")?;
    let post = reqwest::Method::POST;
    let project = call(
        post.clone(),
        "/v1/projects".into(),
        Some(key.clone()),
        json!({"name": "bench"}),
    )
    .await?;
    let project = project["id"].as_str().ok_or("no project id")?.to_owned();
    call(
        post.clone(),
        format!("/v1/projects/{project}/deploys"),
        Some(key.clone()),
        json!({"files": {"index.html": "bench"}}),
    )
    .await?;
    call(
        post.clone(),
        format!("/v1/projects/{project}/domains"),
        Some(key.clone()),
        json!({"hostname": "www.example.com"}),
    )
    .await?;
    for _ in 0..10 {
        call(
            post.clone(),
            "/_local/clock/advance".into(),
            None,
            json!({"seconds": 3600}),
        )
        .await?;
        let domain = call(
            post.clone(),
            format!("/v1/projects/{project}/domains/www.example.com/verify"),
            Some(key.clone()),
            json!({}),
        )
        .await?;
        if domain["status"] == "live" {
            break;
        }
    }
    let mut full = options.clone().with_tls_probe(true).with_edge(Some(edge));
    full.extra_roots_pem = info.ca_certificate_pem.clone();
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        let report = diagnose(&["www.example.com"], &full).await?;
        times.push(started.elapsed());
        last = Some(report);
    }
    times.sort();
    let report = last.ok_or("no run")?;
    let host = report.hosts.first().ok_or("no host")?;
    println!(
        "one hostname, full report (DNS, CAA climb, TLS probe, GET /): median {:.2?} over {} runs (min {:.2?}, max {:.2?}); {} findings, certificate {}",
        times[times.len() / 2],
        times.len(),
        times[0],
        times[times.len() - 1],
        host.findings.len(),
        host.tls
            .as_ref()
            .and_then(|tls| tls.certificate.as_ref())
            .map(|certificate| format!(
                "for {} from {}",
                certificate.names.join(", "),
                certificate.issuer
            ))
            .unwrap_or_else(|| "none".to_owned())
    );
    Ok(())
}

//! Benchmark: the doctor against the local service's DNS server, beside the batch tools a
//! support engineer would use on the same questions, and against the server's own ceiling.
//!
//! 1. Starts the local service on loopback (memory storage, frozen clock) in a process of its
//!    own (this example again, with `--serve-child`; until 2026-11-25 on a runtime of its own
//!    in the doctor's process), as `domain-desk serve` runs and as every peer sees it: the
//!    doctor runs on one thread of its own, as the command line runs it (`domain-desk
//!    doctor`), and shares nothing with the server but the machine, like each peer. Then adds
//!    N hostnames to its demo zones through `/_local/dns` (most correct, some with an A record
//!    blocking the CNAME, some missing). Its DNS server listens on 127.0.89.53 port 53 when it
//!    may (adnshost can only ask port 53), else on a free port and adnshost is skipped.
//! 2. Diagnoses all N with the doctor (batch mode, TLS probe off), seven times, each with a
//!    fresh cache, and prints the median, fastest and slowest run.
//!    Then replays the run from its capture (`diagnose_capturing`, `replay`): the analysis
//!    alone, every answer from memory, as a share of the doctor's time.
//! 3. Asks exactly the DNS questions the doctor sent (same server, names and types) with the
//!    batch peers, each in its fastest configuration, in the same run:
//!    - `dig -f FILE` (one process, one question after another; `+noall` prints nothing,
//!      `+tries=1 +time=2` never retries; each line keeps the doctor's RD and CD flags);
//!    - `adnshost -a -f` (adns: questions fed on its standard input, answers as they come;
//!      `-Vq` quiet; adns always sets RD and never CD), right after each doctor run (the two
//!      take turns), at each of [`ADNS_IN_FLIGHT`] questions kept in flight (the doctor's
//!      concurrency was chosen on this benchmark, so adnshost gets its best setting too: the
//!      one with the shortest median is its figure), with the median, fastest and slowest
//!      run, and in how many of the pairs the doctor was faster; for its runs only, the
//!      kernel's default socket receive buffer is raised (as root) so that adns's socket
//!      holds every answer and it never waits for its retransmit (see
//!      [`RaisedReceiveBuffer`]). adnshost is timed as a process (start, read, print every
//!      answer to a pipe, exit) and the doctor inside its own: so adnshost's start-up is
//!      measured too (one question, the same way) and printed beside it;
//!    - and the ceiling: `dnsperf` over the same questions (the file ten times), the best of
//!      four set-ups (`-c 4 -T 2 -q 200`, `-c 1 -T 1 -q 200`, `-c 2 -T 1 -q 500`,
//!      `-c 4 -T 2 -q 1000`): the questions per second the server can answer on this
//!      machine. The doctor's questions per second (median run, and the slowest) are printed
//!      as a share of it.
//!
//!    Beside each wall-clock time, the CPU time each spent per question: the doctor's own
//!    thread (`/proc/thread-self/schedstat`: everything it does, the analysis included, and
//!    the kernel's work for its sockets) and each peer process (`getrusage` of the waited-for
//!    child). CPU time does not count waiting (adnshost's retransmit timer) and moves less
//!    with the machine's load than wall-clock time does.
//! 4. Takes one hostname live through the API and times its full report (DNS, CAA climb, TLS
//!    probe, redirect) over several runs, each with a fresh cache, and prints the median.
//!
//! Run: `cargo run --release -p domain-desk-doctor --example doctor_bench -- [HOSTS] [RUNS]`
//! (defaults 1000 and 21); `-- --doctor-only [HOSTS]` runs only step 2 (the doctor and its
//! replay), for profiling. Needs `dig` (Debian `dnsutils`), `adnshost` (`adns-tools`) and
//! `dnsperf` (`dnsperf`).
//!
//! It is longer than the house's 500 lines (about 730 of code, no tests): it is one program,
//! whose steps above run in order in `bench` (about 450) over the same server, hostnames and
//! questions, steps 2 and 3 printing their figures as shares of each other's (the doctor and
//! adnshost pair by pair, both against the dnsperf ceiling); the rest is how the peers and the
//! CPU are measured. Reading its lines and putting the kernel's settings back are apart
//! already (`xtask/src/bench/doctor.rs`, `kernel.rs`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use domain_desk_doctor::{DoctorOptions, diagnose, diagnose_capturing, diagnose_logged, replay};
use domain_desk_service::{Service, ServiceSettings, Storage};
use serde_json::{Value, json};

type Failure = Box<dyn std::error::Error>;

/// The allocator of the `domain-desk` binary, which runs the doctor from the command line.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How many times the batch runs; the median is the figure, the slowest is printed beside it.
/// Fifteen (seven until 2026-11-25): this machine's speed drifts by a fifth within a minute,
/// and the pair-by-pair CPU ratio needs enough pairs for its median to settle.
const BATCH_RUNS: usize = 15;

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some(SERVE_CHILD) {
        return serve_child();
    }
    let doctor_only = args.peek().map(String::as_str) == Some(DOCTOR_ONLY);
    if doctor_only {
        args.next();
    }
    let hosts: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(1000);
    let runs: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(21);
    // one thread for the doctor, as `domain-desk doctor` runs it
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(bench(hosts, runs, doctor_only))
}

/// `--doctor-only`: the doctor's runs, their CPU time and the replay, nothing else (no peers,
/// no ceiling): a quick loop for profiling the doctor, not a comparison.
const DOCTOR_ONLY: &str = "--doctor-only";

async fn bench(hosts: usize, runs: usize, doctor_only: bool) -> Result<(), Failure> {
    // The server runs in a process of its own, as `domain-desk serve` does and as every peer
    // sees it: the doctor's process runs only the doctor.
    let server = ServerProcess::start()?;
    let info = server.info.clone();
    let dns: SocketAddr = info.dns.as_deref().ok_or("no DNS server")?.parse()?;
    let edge: SocketAddr = info.edge_https.as_deref().ok_or("no edge")?.parse()?;
    // The peers take a while; a connection idle for longer than the service's keep-alive
    // (30 s) is closed there, so an idle one is never reused after 5 s.
    let http = domain_desk_test_support::http_client_builder()
        .no_proxy()
        .pool_idle_timeout(Duration::from_secs(5))
        .build()?;
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

    // 2. The doctor, all hostnames as one batch, several times (a batch takes a tenth of a
    //    second, so one run says little); each run starts with a fresh cache. adnshost asks
    //    the same questions right after each run, so the two take turns and whatever the
    //    machine does meanwhile falls on both alike.
    let work = std::env::temp_dir().join(format!("doctor-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let mut adns_input: Vec<String> = Vec::new();
    let adnshost_installed = which("adnshost");
    let mut times = Vec::with_capacity(BATCH_RUNS);
    let mut cpu = Vec::with_capacity(BATCH_RUNS);
    // what each run cost its thread besides CPU time: sleeps, and fresh pages of memory
    let mut switches = Vec::with_capacity(BATCH_RUNS);
    let mut faults = Vec::with_capacity(BATCH_RUNS);
    // one list of runs per setting of ADNS_IN_FLIGHT
    let mut adns_settings: Vec<Vec<AdnsRun>> = ADNS_IN_FLIGHT.iter().map(|_| Vec::new()).collect();
    let mut first = None;
    // adnshost's socket: what its runs had (the kernel's default, raised for them if it may)
    let mut adns_buffer = String::new();
    for _ in 0..BATCH_RUNS {
        let started = Instant::now();
        let cpu_before = thread_cpu()?;
        let usage_before = ThreadUsage::now();
        let (report, questions) = diagnose_logged(&names, &options).await?;
        times.push(started.elapsed());
        cpu.push(thread_cpu()?.saturating_sub(cpu_before));
        let usage = ThreadUsage::now().since(&usage_before);
        switches.push(usage.sleeps);
        faults.push(usage.page_faults);
        match &first {
            None => {
                adns_input = adnshost_input(&questions);
                first = Some((report, questions));
            }
            Some((_, asked)) if asked.len() != questions.len() => {
                let counts = (asked.len(), questions.len());
                return Err(format!("the runs asked different questions ({counts:?})").into());
            }
            Some(_) => {}
        }
        if dns.port() == 53 && adnshost_installed && !doctor_only {
            let raised = RaisedReceiveBuffer::raise(ADNS_RECEIVE_BUFFER);
            adns_buffer = match &raised {
                Ok(raised) => raised.describe(),
                Err(err) => format!(
                    "its socket's receive buffer the kernel's default (raising it failed: {err}), which overflows when every answer arrives at once"
                ),
            };
            for (setting, runs) in ADNS_IN_FLIGHT.iter().zip(&mut adns_settings) {
                runs.push(run_adnshost(&adns_input, dns, *setting)?);
            }
            drop(raised);
        }
    }
    let (report, questions) = first.ok_or("no run")?;
    // adnshost's best setting: the shortest median run
    let median_of = |runs: &[AdnsRun]| {
        let mut times: Vec<Duration> = runs.iter().map(|run| run.elapsed).collect();
        times.sort();
        times.get(times.len() / 2).copied()
    };
    let adns_medians: Vec<(usize, Duration)> = ADNS_IN_FLIGHT
        .iter()
        .zip(&adns_settings)
        .filter_map(|(setting, runs)| Some((*setting, median_of(runs)?)))
        .collect();
    let best = adns_medians
        .iter()
        .enumerate()
        .min_by_key(|(_, (_, median))| *median)
        .map(|(index, (setting, _))| (index, *setting));
    let (mut adns_runs, adns_best) = match best {
        Some((index, setting)) => (std::mem::take(&mut adns_settings[index]), Some(setting)),
        None => (Vec::new(), None),
    };
    // each doctor run against the adnshost run right after it
    let pairs_won = times
        .iter()
        .zip(&adns_runs)
        .filter(|(doctor, adns)| **doctor < adns.elapsed)
        .count();
    // The CPU ratio pair by pair: the two runs of a pair see the same machine (its speed
    // drifts by a fifth within a minute), so this ratio moves less than one of two medians.
    let mut cpu_ratios: Vec<f64> = cpu
        .iter()
        .zip(&adns_runs)
        .filter(|(_, adns)| !adns.cpu.is_zero())
        .map(|(doctor, adns)| doctor.as_secs_f64() / adns.cpu.as_secs_f64())
        .collect();
    cpu_ratios.sort_by(f64::total_cmp);
    times.sort();
    let doctor_time = times[times.len() / 2];
    let slowest = times[times.len() - 1];
    println!(
        "doctor: {hosts} hostnames, {} DNS questions, {} errors found ({} hostnames in flight, its default); {} runs, fastest {:.3?}, slowest {:.3?}, median in {:.3?}",
        questions.len(),
        report.errors,
        options.concurrency,
        times.len(),
        times[0],
        slowest,
        doctor_time
    );

    let per_question = |cpu: Duration| cpu.as_secs_f64() * 1e6 / questions.len() as f64;
    cpu.sort();
    println!(
        "doctor-cpu: {:.2} µs of its thread's CPU per question (median run; fastest {:.2}, slowest {:.2}), the analysis included",
        per_question(cpu[cpu.len() / 2]),
        per_question(cpu[0]),
        per_question(cpu[cpu.len() - 1]),
    );
    switches.sort_unstable();
    faults.sort_unstable();
    println!(
        "doctor-thread: per run (medians) its thread slept {} times waiting for answers and took {} fresh pages of memory",
        switches[switches.len() / 2],
        faults[faults.len() / 2],
    );

    // The analysis alone: the same run replayed from its capture, every answer from memory,
    // no socket and no parsing; what is left of the doctor's time is the network's part.
    let (_, capture) = diagnose_capturing(&names, &options).await?;
    let mut replays = Vec::with_capacity(BATCH_RUNS);
    for _ in 0..BATCH_RUNS {
        let started = Instant::now();
        let cpu_before = thread_cpu()?;
        replay(&capture).await?;
        replays.push((started.elapsed(), thread_cpu()?.saturating_sub(cpu_before)));
    }
    replays.sort();
    let (replay_time, replay_cpu) = replays[replays.len() / 2];
    println!(
        "doctor-analysis: the same run replayed from its capture (answers from memory: no socket, no parsing), {:.2} µs of CPU per question, median of {} in {:.3?}",
        per_question(replay_cpu),
        replays.len(),
        replay_time
    );
    if doctor_only {
        return Ok(());
    }

    let doctor_qps = questions.len() as f64 / doctor_time.as_secs_f64();
    let slowest_qps = questions.len() as f64 / slowest.as_secs_f64();
    println!("doctor-rate: {doctor_qps:.0} questions/s (median run), {slowest_qps:.0} (slowest)");

    // 3. The same questions through the batch peers, and the server's ceiling.
    let batch: String = questions
        .iter()
        .map(|q| {
            format!(
                "{} {} {} {}\n",
                q.name,
                q.record_type,
                if q.recursion_desired {
                    "+recurse"
                } else {
                    "+norecurse"
                },
                if q.checking_disabled {
                    "+cdflag"
                } else {
                    "+nocdflag"
                }
            )
        })
        .collect();
    let dig_file = work.join("dig.txt");
    std::fs::write(&dig_file, batch)?;
    let started = Instant::now();
    let children_before = children_cpu();
    let status = Command::new("dig")
        .arg("-f")
        .arg(&dig_file)
        .arg(format!("@{}", dns.ip()))
        .args(["-p", &dns.port().to_string()])
        .args(["+tries=1", "+time=2", "+noall"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let dig_time = started.elapsed();
    let dig_cpu = children_cpu().saturating_sub(children_before);
    println!(
        "dig-f: the same {} questions in one `dig -f` process (+noall +tries=1 +time=2), {:.2} µs of CPU per question, in {:.3?}{}",
        questions.len(),
        per_question(dig_cpu),
        dig_time,
        if status.success() {
            String::new()
        } else {
            format!(" (exit {status})")
        }
    );

    // adnshost's median run, for its own share of the server's ceiling below
    let mut adns_median = None;
    if !adnshost_installed {
        println!("adnshost: skipped (not installed: Debian `adns-tools`)");
    } else if adns_runs.is_empty() {
        println!(
            "adnshost: skipped (adns asks port 53 only, and the server could not listen there)"
        );
    } else {
        let setting = adns_best.map_or("?".to_owned(), in_flight_name);
        println!(
            "adnshost-settings: median run with each number of questions in flight: {}; the best, {setting}, is its figure",
            adns_medians
                .iter()
                .map(|(setting, median)| format!("{} {median:.3?}", in_flight_name(*setting)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        // adnshost's own start-up, measured the same way (a process reading one question,
        // printing its answer, exiting): what its batch time holds beyond asking
        let one = adns_input.iter().take(1).cloned().collect::<Vec<_>>();
        let mut startups = Vec::with_capacity(BATCH_RUNS);
        for _ in 0..BATCH_RUNS {
            startups.push(run_adnshost(&one, dns, 1)?.elapsed);
        }
        startups.sort();
        println!(
            "adnshost-startup: start-up, one question and exit, as a process (median of {}) in {:.3?}",
            startups.len(),
            startups[startups.len() / 2]
        );
        let pairs = adns_runs.len();
        let mut adns_cpu: Vec<Duration> = adns_runs.iter().map(|run| run.cpu).collect();
        adns_cpu.sort();
        adns_runs.sort_by_key(|run| run.elapsed);
        let median = &adns_runs[adns_runs.len() / 2];
        adns_median = Some(median.elapsed);
        let retransmitted = adns_runs
            .iter()
            .filter(|run| run.elapsed > Duration::from_secs(1))
            .count();
        println!(
            "adnshost: the same {} questions through `adnshost -a -f` ({setting} in flight, its best; {adns_buffer}), {:.2} µs of CPU per question (median; fastest {:.2}, slowest {:.2}); {} runs, each right after a doctor run, fastest {:.3?}, slowest {:.3?} ({retransmitted} of them waited over 1 s for adns's retransmit), median in {:.3?}; {} answered, {} timed out (the median run)",
            questions.len(),
            per_question(adns_cpu[adns_cpu.len() / 2]),
            per_question(adns_cpu[0]),
            per_question(adns_cpu[adns_cpu.len() - 1]),
            adns_runs.len(),
            adns_runs[0].elapsed,
            adns_runs[adns_runs.len() - 1].elapsed,
            median.elapsed,
            median.answered,
            median.timed_out,
        );
        println!(
            "pairs: the doctor was faster than adnshost in {pairs_won} of {pairs} pairs (each doctor run against the adnshost run right after it)"
        );
        if let (Some(low), Some(high)) = (cpu_ratios.first(), cpu_ratios.last()) {
            let less = cpu_ratios.iter().filter(|ratio| **ratio < 1.0).count();
            println!(
                "cpu-pairs: pair by pair, the doctor's CPU per question was ×{:.2} of adnshost's at the median (×{low:.2} to ×{high:.2}), less in {less} of {} pairs",
                cpu_ratios[cpu_ratios.len() / 2],
                cpu_ratios.len()
            );
        }
    }

    let perf_file = work.join("dnsperf.txt");
    let perf_input: String = questions
        .iter()
        .map(|q| format!("{} {}\n", q.name, q.record_type))
        .collect();
    std::fs::write(&perf_file, perf_input)?;
    // The ceiling is the best of several dnsperf set-ups: on two cores dnsperf's own threads
    // compete with the server's, so which one lets the server answer most depends on the
    // machine; a share over 100 % would mean the "ceiling" was not one.
    let mut ceiling: Option<(f64, String, f64, f64)> = None;
    let mut tried = Vec::new();
    for setup in [
        "-c 4 -T 2 -q 200",
        "-c 1 -T 1 -q 200",
        "-c 2 -T 1 -q 500",
        "-c 4 -T 2 -q 1000",
    ] {
        let output = Command::new("dnsperf")
            .args([
                "-s",
                &dns.ip().to_string(),
                "-p",
                &dns.port().to_string(),
                "-d",
            ])
            .arg(&perf_file)
            .args(["-n", "10", "-t", "2"])
            .args(setup.split(' '))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()?;
        let text = String::from_utf8_lossy(&output.stdout);
        let field = |label: &str| {
            text.lines()
                .map(str::trim)
                .find_map(|line| line.strip_prefix(label))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|number| number.parse::<f64>().ok())
        };
        match (
            field("Queries per second:"),
            field("Queries sent:"),
            field("Queries lost:"),
        ) {
            (Some(qps), Some(sent), Some(lost)) => {
                tried.push(format!("{qps:.0} with {setup}"));
                if ceiling.as_ref().is_none_or(|(best, ..)| qps > *best) {
                    ceiling = Some((qps, setup.to_owned(), sent, lost));
                }
            }
            _ => tried.push(format!("{setup} failed: {}", text.trim())),
        }
    }
    match ceiling {
        Some((qps, setup, sent, lost)) => {
            println!(
                "dnsperf: {qps:.0} questions/s on the same {} questions, ten times over ({setup}, the best of: {}); {lost} of {sent} lost",
                questions.len(),
                tried.join(", ")
            );
            // the closest peer's share beside the doctor's: both near the server's ceiling
            // says the server, not either client, sets the pace
            let adns_share = adns_median
                .map(|elapsed| {
                    let adns_qps = questions.len() as f64 / elapsed.as_secs_f64();
                    format!(
                        "; adnshost asked {adns_qps:.0} questions/s at its median, {:.1} % of it",
                        adns_qps / qps * 100.0
                    )
                })
                .unwrap_or_default();
            println!(
                "share: the doctor asked {doctor_qps:.0} questions/s, {:.1} % of the server's dnsperf ceiling (median of {BATCH_RUNS} runs; the slowest run {:.1} %){adns_share}",
                doctor_qps / qps * 100.0,
                slowest_qps / qps * 100.0
            );
        }
        None => println!("dnsperf: failed: {}", tried.join("; ")),
    }
    let _ = std::fs::remove_dir_all(&work);

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

/// One `adnshost -a -f` run: its wall-clock and CPU time, and how many questions it saw
/// answered and time out.
struct AdnsRun {
    elapsed: Duration,
    cpu: Duration,
    answered: usize,
    timed_out: usize,
}

/// How many questions adnshost is given to keep in flight, each setting run after every
/// doctor run; `usize::MAX` is every question at once (its whole input written up front, as
/// `adnshost -f FILE` reads it).
const ADNS_IN_FLIGHT: [usize; 4] = [32, 128, 512, usize::MAX];

fn in_flight_name(setting: usize) -> String {
    if setting == usize::MAX {
        "all".to_owned()
    } else {
        setting.to_string()
    }
}

/// Whether `program` is on the PATH.
fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// The doctor's questions as adnshost's input, one entry per question (`--type` before each
/// name).
fn adnshost_input(questions: &[domain_desk_doctor::dns::WireQuery]) -> Vec<String> {
    questions
        .iter()
        .map(|q| {
            let kind = match q.record_type.to_string().as_str() {
                "A" => "a".to_owned(),
                "AAAA" => "aaaa".to_owned(),
                "CNAME" => "cname".to_owned(),
                "TXT" => "txt".to_owned(),
                "NS" => "ns-".to_owned(),
                "SOA" => "soa-".to_owned(),
                "MX" => "mx-".to_owned(),
                _ => format!("type{}", u16::from(q.record_type)),
            };
            format!("--type {kind}\n{}\n", q.name)
        })
        .collect()
}

/// Whether a line of `adnshost --asynch` output starts an answer: `<id> <nrrs> <status> …`.
fn is_answer_header(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() > 3 && words[0].parse::<u64>().is_ok() && words[1].parse::<u64>().is_ok()
}

/// Asks `questions` of the server at `dns` (port 53) with adnshost, keeping `in_flight` of
/// them out: that many written to its standard input at first, one more for each answer it
/// prints, its input closed after the last. With the kernel's default receive buffer and
/// every question in flight its time is bimodal (all answers at once, or its 2 s retransmit
/// when its own socket overflowed); with the raised one it is not.
fn run_adnshost(
    questions: &[String],
    dns: SocketAddr,
    in_flight: usize,
) -> Result<AdnsRun, Failure> {
    use std::io::{BufRead as _, BufReader, Write as _};
    let started = Instant::now();
    let children_before = children_cpu();
    let mut child = Command::new("adnshost")
        .args(["-a", "-Vq", "--config"])
        .arg(format!("nameserver {}", dns.ip()))
        .arg("-f")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("adnshost without stdin")?;
    let stdout = child.stdout.take().ok_or("adnshost without stdout")?;
    // The questions are written from a thread of their own, the first `in_flight` at once and
    // one more for each answer read here: a write never waits on a read (with every question
    // in flight the input outgrows the pipe while adnshost's answers fill the other one).
    let (answered_tx, answered_rx) = std::sync::mpsc::channel::<()>();
    let owned: Vec<String> = questions.to_vec();
    let first = owned.len().min(in_flight);
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        stdin.write_all(owned[..first].concat().as_bytes())?;
        stdin.flush()?;
        for question in &owned[first..] {
            if answered_rx.recv().is_err() {
                break;
            }
            stdin.write_all(question.as_bytes())?;
            stdin.flush()?;
        }
        Ok(())
    });
    let (mut answered, mut timed_out) = (0, 0);
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        timed_out += line.matches("timeout").count();
        if is_answer_header(&line) {
            answered += 1;
            let _ = answered_tx.send(());
        }
    }
    drop(answered_tx);
    writer
        .join()
        .map_err(|_| "the adnshost writer panicked")??;
    child.wait()?;
    let elapsed = started.elapsed();
    let cpu = children_cpu().saturating_sub(children_before);
    Ok(AdnsRun {
        elapsed,
        cpu,
        answered,
        timed_out,
    })
}

/// The kernel's default receive buffer for new sockets, in bytes.
const RMEM_DEFAULT: &str = "/proc/sys/net/core/rmem_default";

/// adnshost's socket's receive buffer for its runs: room for every answer of a batch at once
/// (with it, no run of 7,117 questions waited for a retransmit, in 15 of 15 here).
const ADNS_RECEIVE_BUFFER: u64 = 16 << 20;

/// The kernel's default receive buffer raised for adnshost's runs, and put back when dropped.
///
/// adns opens its socket with the kernel's default receive buffer (208 KiB on Debian) and has
/// no option to change it; with every question in flight the answers overflow it, and adns
/// waits two seconds to retransmit what was dropped. A larger default is adnshost's fastest
/// configuration, so its runs get one: the benchmark compares against the peer at its best,
/// not against its retransmit timer. The doctor's runs keep the machine's default (it holds
/// 32 hostnames in flight and never overflows it). Needs root; without it adnshost runs with
/// the default and the line says so.
struct RaisedReceiveBuffer {
    /// The value to put back, or `None` when the default was already as large.
    original: Option<u64>,
    bytes: u64,
}

impl RaisedReceiveBuffer {
    fn raise(bytes: u64) -> Result<Self, Failure> {
        let original: u64 = std::fs::read_to_string(RMEM_DEFAULT)?.trim().parse()?;
        if original >= bytes {
            return Ok(Self {
                original: None,
                bytes: original,
            });
        }
        std::fs::write(RMEM_DEFAULT, bytes.to_string())?;
        Ok(Self {
            original: Some(original),
            bytes,
        })
    }

    fn describe(&self) -> String {
        match self.original {
            Some(original) => format!(
                "its socket's receive buffer {} KiB: the kernel's default raised from {} KiB for its runs only, so that no answer is dropped",
                self.bytes / 1024,
                original / 1024
            ),
            None => format!(
                "its socket's receive buffer {} KiB, the kernel's default",
                self.bytes / 1024
            ),
        }
    }
}

impl Drop for RaisedReceiveBuffer {
    fn drop(&mut self) {
        if let Some(original) = self.original
            && let Err(err) = std::fs::write(RMEM_DEFAULT, original.to_string())
        {
            eprintln!("could not put {RMEM_DEFAULT} back to {original}: {err}");
        }
    }
}

/// The CPU time the calling thread has run (user and system), from the scheduler's own
/// accounting (nanoseconds, unlike the 10 ms ticks of `/proc/…/stat`).
fn thread_cpu() -> Result<Duration, Failure> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat")?;
    let nanos: u64 = text
        .split_whitespace()
        .next()
        .ok_or("schedstat is empty")?
        .parse()?;
    Ok(Duration::from_nanos(nanos))
}

/// What the calling thread has cost the kernel so far, besides CPU time.
struct ThreadUsage {
    /// Voluntary context switches: times it waited (for an answer, here).
    sleeps: i64,
    /// Minor page faults: pages of memory touched for the first time.
    page_faults: i64,
}

impl ThreadUsage {
    fn now() -> Self {
        use nix::sys::resource::{UsageWho, getrusage};
        getrusage(UsageWho::RUSAGE_THREAD).map_or(
            Self {
                sleeps: 0,
                page_faults: 0,
            },
            |usage| Self {
                sleeps: usage.voluntary_context_switches(),
                page_faults: usage.minor_page_faults(),
            },
        )
    }

    fn since(&self, before: &Self) -> Self {
        Self {
            sleeps: self.sleeps - before.sleeps,
            page_faults: self.page_faults - before.page_faults,
        }
    }
}

/// The CPU time (user and system) of every child process waited for so far.
fn children_cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    let Ok(usage) = getrusage(UsageWho::RUSAGE_CHILDREN) else {
        return Duration::ZERO;
    };
    let time = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    time(usage.user_time()) + time(usage.system_time())
}

/// The argument that makes this example the server's process.
const SERVE_CHILD: &str = "--serve-child";

/// The server's process: this example again with [`SERVE_CHILD`]. It prints the service's
/// `LocalInfo` as one JSON line and serves until its standard input closes; it is stopped
/// (killed, then waited for) on every way out of `main`.
struct ServerProcess {
    child: std::process::Child,
    info: domain_desk_api::local::LocalInfo,
}

impl ServerProcess {
    fn start() -> Result<Self, Failure> {
        let mut child = Command::new(std::env::current_exe()?)
            .arg(SERVE_CHILD)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let mut line = String::new();
        let stdout = child
            .stdout
            .take()
            .ok_or("the server's output is not piped")?;
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let info = match serde_json::from_str(&line) {
            Ok(info) => info,
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the server process did not start: {error} ({line:?})").into());
            }
        };
        Ok(Self { child, info })
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server's process: the local service on its own multi-thread runtime (one worker per
/// core, as `domain-desk serve`), its DNS on 127.0.89.53 port 53 when it may be (adnshost can
/// only ask port 53), else on a free port and adnshost is skipped.
fn serve_child() -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let settings = move |dns_addr| ServiceSettings {
            storage: Storage::Memory,
            api_addr: loopback,
            dns_addr,
            edge_https_addr: loopback,
            edge_http_addr: loopback,
            clock_speed: 0.0,
            ..ServiceSettings::default()
        };
        let service = match Service::spawn(settings(SocketAddr::from(([127, 0, 89, 53], 53)))).await
        {
            Ok(service) => service,
            Err(err) => {
                eprintln!(
                    "note: DNS on 127.0.89.53:53 not possible ({err}); adnshost will be skipped"
                );
                Service::spawn(settings(loopback)).await?
            }
        };
        println!("{}", serde_json::to_string(service.info())?);
        // serves until the benchmark closes this process's standard input (or kills it)
        let mut stdin = tokio::io::stdin();
        let mut sink = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut stdin, &mut sink).await?;
        service.shutdown().await?;
        Ok(())
    })
}

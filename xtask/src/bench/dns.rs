//! The local service's DNS server against NSD, the authoritative server a professional would
//! name, on equal terms: the same zone (copied from ours), the same questions from `dnsperf`,
//! the same socket buffers (read back from the kernel for both), NSD tuned as its manual
//! advises for load (a server process per core, `reuseport`, response rate limiting off).
//! `pebble-challtestsrv`, the fixture the table used to compare with, stays as a reference
//! row only: it serves none of the zone's records and keeps the kernel's default buffers, so
//! neither its rate nor its losses say anything about ours.
//!
//! It is longer than the house's 500 lines with its tests (about 460 of code, 60 of tests): each
//! server measured is set up beside the run that measures it, as in `service.rs`.

use std::fmt::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::processes::{
    Server, env_number, expect, free_port, output_of, post_in_one_curl, start_serve,
};
use super::report::{Table, goal};
use super::tools::ensure_apt;

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
        // loss of the client's, not the server's. The same for every server.
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

/// The receive and send buffers (bytes, as the kernel accounts them: twice what was asked)
/// of every UDP socket bound to `port`, from `ss`; one pair when they all agree.
fn socket_buffers(port: u16) -> Result<Vec<(u64, u64)>> {
    let text = output_of(Command::new("ss").args(["-uamn", &format!("sport = :{port}")]))
        .context("could not run ss (iproute2)")?;
    let mut pairs = parse_skmem(&text);
    pairs.sort_unstable();
    pairs.dedup();
    if pairs.is_empty() {
        bail!("ss shows no UDP socket on port {port}");
    }
    Ok(pairs)
}

/// `rb` and `tb` of each `skmem:(…)` in `ss -m` output.
fn parse_skmem(text: &str) -> Vec<(u64, u64)> {
    text.split("skmem:(")
        .skip(1)
        .filter_map(|rest| {
            let inside = rest.split(')').next()?;
            let value = |name: &str| {
                inside
                    .split(',')
                    .find_map(|field| field.strip_prefix(name)?.parse::<u64>().ok())
            };
            Some((value("rb")?, value("tb")?))
        })
        .collect()
}

fn describe_buffers(pairs: &[(u64, u64)]) -> String {
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    pairs
        .iter()
        .map(|(receive, send)| {
            format!(
                "receive {:.0} MiB, send {:.0} MiB",
                mib(*receive),
                mib(*send)
            )
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// NSD's configuration for the benchmark: its manual's advice for load (`server-count` one per
/// core, `reuseport: yes`, rate limiting off: `rrl-ratelimit: 0` and
/// `rrl-whitelist-ratelimit: 0`), minimal responses (ours adds nothing it need not), and the
/// socket buffers asked for as ours asked for them (`receive`/`send`, bytes before the
/// kernel doubles them). Everything in `dir`; nothing written outside it.
fn nsd_config(dir: &Path, port: u16, cores: usize, receive: u64, send: u64) -> String {
    let dir = dir.display();
    format!(
        r#"server:
  ip-address: 127.0.0.1@{port}
  server-count: {cores}
  reuseport: yes
  receive-buffer-size: {receive}
  send-buffer-size: {send}
  rrl-ratelimit: 0
  rrl-whitelist-ratelimit: 0
  minimal-responses: yes
  hide-version: yes
  verbosity: 1
  username: ""
  chroot: ""
  zonesdir: "{dir}"
  database: ""
  zonelistfile: "{dir}/zone.list"
  xfrdfile: "{dir}/xfrd.state"
  pidfile: "{dir}/nsd.pid"
  logfile: "{dir}/nsd.log"
remote-control:
  control-enable: no
zone:
  name: "example.com"
  zonefile: "example.com.zone"
zone:
  name: "{PLATFORM_ZONE}"
  zonefile: "platform.zone"
"#
    )
}

/// The platform's zone, which holds the CNAME target our server adds to each A answer.
const PLATFORM_ZONE: &str = "pages.local-platform.test";

/// `dig +noall +answer` of one question at `port`: its answer lines, which are zone-file
/// lines (absolute names, TTL, class, type, data).
fn dig_answer(port: u16, name: &str, kind: &str) -> Result<String> {
    output_of(
        Command::new("dig")
            .args(["+norec", "+noall", "+answer", "+tries=1", "+time=2"])
            .args(["-p", &port.to_string(), "@127.0.0.1", name, kind]),
    )
    .with_context(|| format!("dig {name} {kind} at port {port} failed"))
}

/// `dig`'s status and answer section for one question, whitespace folded and sorted: what two
/// servers must agree on.
fn dig_outcome(port: u16, name: &str, kind: &str) -> Result<String> {
    let text = output_of(
        Command::new("dig")
            .args([
                "+norec",
                "+noall",
                "+answer",
                "+comments",
                "+tries=1",
                "+time=2",
            ])
            .args(["-p", &port.to_string(), "@127.0.0.1", name, kind]),
    )
    .with_context(|| format!("dig {name} {kind} at port {port} failed"))?;
    let status = text
        .split("status: ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or("no status")
        .to_owned();
    let mut answers: Vec<String> = text
        .lines()
        .filter(|line| !line.starts_with(';') && !line.trim().is_empty())
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    answers.sort();
    Ok(format!("{status}: {}", answers.join(" | ")))
}

/// A zone record from `/_local/dns/{zone}/records` as a zone-file line.
fn zone_line(zone: &str, record: &Value) -> Option<String> {
    let name = record["name"].as_str()?;
    let kind = record["type"].as_str()?;
    let value = record["value"].as_str()?;
    let ttl = record["ttl"].as_u64().unwrap_or(3600);
    let owner = if name == "@" || name.is_empty() {
        format!("{zone}.")
    } else {
        format!("{name}.{zone}.")
    };
    let data = match kind {
        "CNAME" | "NS" | "MX" if !value.ends_with('.') => format!("{value}."),
        "TXT" => format!("{value:?}"),
        _ => value.to_owned(),
    };
    Some(format!("{owner} {ttl} IN {kind} {data}"))
}

/// NSD started in its own process group (its main process forks a server per core and a
/// zone-transfer process); stopped with SIGTERM to the group when dropped, as its manual
/// says, so no server process outlives the benchmark.
struct Nsd {
    child: Child,
}

impl Nsd {
    fn start(config: &Path, port: u16, log: &Path) -> Result<Self> {
        let log_file = std::fs::File::create(log)?;
        let child = Command::new("nsd")
            .arg("-d")
            .arg("-c")
            .arg(config)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .context("could not start nsd")?;
        let mut nsd = Self { child };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            if let Some(status) = nsd.child.try_wait()? {
                bail!("nsd exited ({status}); see {}", log.display());
            }
            if dig_answer(port, "example.com", "SOA").is_ok_and(|answer| !answer.is_empty()) {
                return Ok(nsd);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("nsd did not answer within 60 s; see {}", log.display())
    }
}

impl Drop for Nsd {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-TERM", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// min / median / max of the rates of several runs.
fn spread(runs: &[DnsLoad]) -> (f64, f64, f64) {
    let mut rates: Vec<f64> = runs.iter().map(|run| run.queries_per_second).collect();
    rates.sort_by(f64::total_cmp);
    (rates[0], rates[rates.len() / 2], rates[rates.len() - 1])
}

/// Our DNS server against NSD (and, for reference, pebble-challtestsrv) with dnsperf, on the
/// same questions: names in a demo zone with a CNAME each, asked as the doctor asks.
pub(super) fn dns_server(work: &Path, binary: &Path, table: &mut Table) -> Result<()> {
    ensure_apt(&["dnsperf", "nsd", "pebble", "dnsutils", "iproute2"])?;
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
    if !target.ends_with(PLATFORM_ZONE) {
        bail!("the platform's DNS target {target} is not in {PLATFORM_ZONE}");
    }
    let records_url = format!("{}/_local/dns/example.com/records", ours.base_url());
    let created = post_in_one_curl(
        &records_url,
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

    // NSD gets our zone as it stands: the apex SOA and NS and the platform zone's records as
    // ours answers them, every record of example.com from the API.
    let nsd_dir = work.join("nsd");
    std::fs::create_dir_all(&nsd_dir)?;
    let mut zone = String::new();
    for kind in ["SOA", "NS"] {
        zone.push_str(&dig_answer(dns_port, "example.com", kind)?);
    }
    let listed = expect("GET", &records_url, None, None, 200)?;
    for record in listed["records"].as_array().context("no records listed")? {
        let line = zone_line("example.com", record)
            .with_context(|| format!("a record NSD cannot be given: {record}"))?;
        let _ = writeln!(zone, "{line}");
    }
    std::fs::write(nsd_dir.join("example.com.zone"), zone)?;
    let mut platform = String::new();
    for (name, kind) in [
        (PLATFORM_ZONE, "SOA"),
        (PLATFORM_ZONE, "NS"),
        (target.as_str(), "A"),
        (target.as_str(), "AAAA"),
    ] {
        platform.push_str(&dig_answer(dns_port, name, kind)?);
    }
    std::fs::write(nsd_dir.join("platform.zone"), platform)?;
    // The same buffers: what the kernel gave ours, asked of NSD (which forces them, as ours
    // forces its receive buffer).
    let our_buffers = socket_buffers(dns_port)?;
    let &[(receive, send)] = &our_buffers[..] else {
        bail!("our DNS sockets have different buffers: {our_buffers:?}");
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let nsd_port = free_port()?;
    let config = nsd_dir.join("nsd.conf");
    std::fs::write(
        &config,
        nsd_config(&nsd_dir, nsd_port, cores, receive / 2, send / 2),
    )?;
    let nsd = Nsd::start(&config, nsd_port, &logs.join("nsd.log"))?;
    let nsd_buffers = socket_buffers(nsd_port)?;
    if nsd_buffers != our_buffers {
        bail!(
            "NSD's sockets did not get our buffers: ours {}, NSD's {}",
            describe_buffers(&our_buffers),
            describe_buffers(&nsd_buffers)
        );
    }
    // Both must give the same answers before their speed is compared.
    let mut sample: Vec<(String, &str)> = Vec::new();
    for number in [0, names / 2, names - 1] {
        for kind in ["A", "AAAA", "CNAME", "TXT", "CAA"] {
            sample.push((format!("h{number}.example.com"), kind));
        }
    }
    sample.push(("example.com".into(), "CAA"));
    sample.push(("example.com".into(), "SOA"));
    sample.push(("missing.example.com".into(), "A"));
    let mut differ = Vec::new();
    for (name, kind) in &sample {
        let (a, b) = (
            dig_outcome(dns_port, name, kind)?,
            dig_outcome(nsd_port, name, kind)?,
        );
        if a != b {
            differ.push(format!("{name} {kind}: ours {a}; NSD {b}"));
        }
    }
    if !differ.is_empty() {
        bail!(
            "NSD and ours answer differently:\n  {}",
            differ.join("\n  ")
        );
    }

    println!(
        "\n==> dnsperf against our DNS server and NSD ({} questions; runs ours, NSD, NSD, ours, ours, NSD)",
        names * 7
    );
    dnsperf(dns_port, &question_file, 2, 200)?;
    dnsperf(nsd_port, &question_file, 2, 200)?;
    let (mut our_runs, mut nsd_runs) = (Vec::new(), Vec::new());
    for ours_first in [true, false, true] {
        for ours_now in [ours_first, !ours_first] {
            let (port, runs) = if ours_now {
                (dns_port, &mut our_runs)
            } else {
                (nsd_port, &mut nsd_runs)
            };
            runs.push(dnsperf(port, &question_file, seconds, 200)?);
        }
    }
    let our_burst = dnsperf(dns_port, &question_file, 4, 7_000)?;
    let nsd_burst = dnsperf(nsd_port, &question_file, 4, 7_000)?;
    drop(nsd);
    drop(ours);

    println!("\n==> dnsperf against pebble-challtestsrv (a fixture: for reference only)");
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
    drop(pebble);

    let (our_min, our_median, our_max) = spread(&our_runs);
    let (nsd_min, nsd_median, nsd_max) = spread(&nsd_runs);
    let share = our_median / nsd_median.max(1.0);
    let lost = |runs: &[DnsLoad]| runs.iter().map(|run| run.lost).sum::<u64>();
    let steady = |runs: &[DnsLoad], (min, median, max): (f64, f64, f64)| {
        let latency: Vec<String> = runs
            .iter()
            .map(|run| format!("{:.2}", run.mean_latency_ms))
            .collect();
        format!(
            "median {median:.0} q/s (min {min:.0}, max {max:.0}; {} runs); mean latency {} ms; {} of {} lost",
            runs.len(),
            latency.join(" / "),
            lost(runs),
            runs.iter().map(|run| run.sent).sum::<u64>()
        )
    };
    let terms = format!(
        "same zone (answers compared on {} questions: the same), same buffers ({}), {cores} UDP workers each",
        sample.len(),
        describe_buffers(&our_buffers)
    );
    table.add(
        "service: DNS (dnsperf, 200 in flight)",
        &format!("NSD 4.6.1 (Debian; server-count {cores}, reuseport, RRL off, minimal responses)"),
        steady(&nsd_runs, (nsd_min, nsd_median, nsd_max)),
        format!("1.00; {terms}"),
    );
    table.add(
        "service: DNS (dnsperf, 200 in flight)",
        "domain-desk serve DNS",
        steady(&our_runs, (our_min, our_median, our_max)),
        format!(
            "{share:.2} of NSD at the medians (each run: ours {}; NSD {}); {}",
            our_runs
                .iter()
                .map(|run| format!("{:.0}", run.queries_per_second))
                .collect::<Vec<_>>()
                .join(", "),
            nsd_runs
                .iter()
                .map(|run| format!("{:.0}", run.queries_per_second))
                .collect::<Vec<_>>()
                .join(", "),
            goal(
                share >= 0.75 && lost(&our_runs) == 0,
                "≥ 0.75 of NSD, nothing lost"
            )
        ),
    );
    table.add(
        "service: DNS burst (7,000 in flight, same buffers)",
        "NSD 4.6.1 (as above)",
        nsd_burst.figure(),
        goal(nsd_burst.lost == 0, "no question lost"),
    );
    table.add(
        "service: DNS burst (7,000 in flight, same buffers)",
        "domain-desk serve DNS",
        our_burst.figure(),
        goal(our_burst.lost == 0, "no question lost"),
    );
    table.add(
        "service: DNS (dnsperf, 200 in flight)",
        "pebble-challtestsrv 2.4 (Debian), a test fixture: for reference only",
        pebble_steady.figure(),
        "no comparison: it serves none of the zone's records (default addresses, empty \
         answers, NOTIMP for SOA) and keeps the kernel's default buffers"
            .into(),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ss_buffers_are_read_per_socket() {
        let text = "UNCONN 0 0 127.0.0.1:45354 0.0.0.0:* users:((\"nsd\",pid=1,fd=6))\n\
            \t skmem:(r0,rb67108864,t0,tb8388608,f0,w0,o0,bl0,d0)\n\
            UNCONN 0 0 127.0.0.1:45354 0.0.0.0:*\n\
            \t skmem:(r0,rb425984,t0,tb425984,f0,w0,o0,bl0,d12)\n";
        assert_eq!(
            parse_skmem(text),
            vec![(67_108_864, 8_388_608), (425_984, 425_984)]
        );
        assert!(parse_skmem("no sockets").is_empty());
        assert_eq!(
            describe_buffers(&[(67_108_864, 8_388_608)]),
            "receive 64 MiB, send 8 MiB"
        );
    }

    #[test]
    fn nsd_is_configured_for_load_with_our_buffers() {
        let config = nsd_config(Path::new("/w/nsd"), 5353, 2, 33_554_432, 4_194_304);
        for line in [
            "ip-address: 127.0.0.1@5353",
            "server-count: 2",
            "reuseport: yes",
            "receive-buffer-size: 33554432",
            "send-buffer-size: 4194304",
            "rrl-ratelimit: 0",
            "rrl-whitelist-ratelimit: 0",
            "pidfile: \"/w/nsd/nsd.pid\"",
            "name: \"pages.local-platform.test\"",
        ] {
            assert!(config.contains(line), "{line} missing from:\n{config}");
        }
    }

    #[test]
    fn api_records_become_zone_lines() {
        let cname = json!({"name": "h1", "type": "CNAME", "value": "cname.pages.local-platform.test", "ttl": 3600});
        assert_eq!(
            zone_line("example.com", &cname).unwrap(),
            "h1.example.com. 3600 IN CNAME cname.pages.local-platform.test."
        );
        let txt = json!({"name": "@", "type": "TXT", "value": "v=spf1 -all", "ttl": 60});
        assert_eq!(
            zone_line("example.com", &txt).unwrap(),
            "example.com. 60 IN TXT \"v=spf1 -all\""
        );
        assert!(zone_line("example.com", &json!({"name": "x"})).is_none());
    }

    #[test]
    fn dnsperf_statistics_are_read() {
        let text = "Statistics:\n\n  Queries sent:         70000\n  Queries completed:    69990 (99.99%)\n  Queries lost:         10 (0.01%)\n\n  Average Latency (s):  0.001234 (min 0.000010, max 0.020000)\n  Queries per second:   123456.789\n";
        let load = parse_dnsperf(text).unwrap();
        assert_eq!((load.sent, load.lost), (70_000, 10));
        assert!((load.queries_per_second - 123_456.789).abs() < 1e-6);
        assert!((load.mean_latency_ms - 1.234).abs() < 1e-9);
        assert!(parse_dnsperf("nothing").is_err());
    }
}

//! `domain-desk serve`, the real binary, under a low `ulimit -n`: clients open more
//! connections than the process has file descriptors. While they hold them the service runs
//! out of descriptors on every accept; it must pause between tries instead of spinning on the
//! error (its CPU time stays a small part of the wall time), and once the clients go away it
//! must answer again.
//!
//! This is a real process on real time: spinning can only be seen as CPU burnt over a stretch
//! of wall time, so the test waits that stretch out.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Descriptors the service gets: it needs 18 to start (runtime, listeners, standard streams).
const FD_LIMIT: u32 = 48;
/// Connections the clients open: more than the service has descriptors.
const CONNECTIONS: usize = 150;
/// How long the service is watched while out of descriptors.
const WATCH: Duration = Duration::from_secs(3);

struct Served {
    process: domain_desk_test_support::Served,
    api: String,
    log: mpsc::Receiver<String>,
}

impl Served {
    fn start() -> Served {
        // `ulimit` from the shell, then exec: the limit is the service's own from its start.
        let mut process = domain_desk_test_support::Served::start(
            Command::new("sh")
                .arg("-c")
                .arg(format!("ulimit -n {FD_LIMIT} && exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_domain-desk"))
                .args(["serve", "--memory"])
                .args(domain_desk_test_support::LOOPBACK_ARGS)
                .env("NO_COLOR", "1")
                .stderr(Stdio::piped()),
        )
        .expect("the service starts and prints its addresses");
        let api = process.api().to_string();
        let stderr = process.take_stderr().expect("stderr is piped");
        let (sender, log) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Served { process, api, log }
    }

    /// Waits (up to `within`) for a log line containing `text`.
    fn logged(&self, text: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.log.recv_timeout(left) {
                Ok(line) if line.contains(text) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    }

    /// User plus system CPU time the service has used.
    fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.process.id()))
            .expect("the service runs");
        // fields after the command name (which may hold spaces) in parentheses
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .expect("stat format")
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_secs_f64(ticks as f64 / clock_ticks_per_second() as f64)
    }

    fn open_descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.process.id()))
            .expect("the service runs")
            .count()
    }

    fn get(&self, path: &str) -> u16 {
        let client = domain_desk_test_support::blocking_http_client_builder()
            .timeout(Duration::from_secs(10))
            .no_proxy()
            .build()
            .unwrap();
        client
            .get(format!("http://{}{path}", self.api))
            .send()
            .map(|reply| reply.status().as_u16())
            .unwrap_or_else(|error| panic!("GET {path}: {error}"))
    }
}

fn clock_ticks_per_second() -> u64 {
    let out = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn out_of_descriptors_the_service_pauses_instead_of_spinning_and_recovers() {
    let served = Served::start();
    assert_eq!(served.get("/_local/info"), 200);

    let held: Vec<TcpStream> = (0..CONNECTIONS)
        .map(|_| TcpStream::connect(&served.api).expect("the system queues the connection"))
        .collect();
    assert!(
        served.logged("cannot accept connections", Duration::from_secs(10)),
        "the service never ran out of descriptors"
    );
    let open = served.open_descriptors();
    assert!(
        open + 2 >= FD_LIMIT as usize,
        "only {open} descriptors open"
    );

    let cpu_before = served.cpu_time();
    let started = Instant::now();
    std::thread::sleep(WATCH);
    let cpu = served.cpu_time() - cpu_before;
    let wall = started.elapsed();
    assert!(
        cpu < wall / 4,
        "the service burnt {cpu:?} of CPU in {wall:?} while out of descriptors: it spins"
    );

    drop(held);
    assert_eq!(
        served.get("/_local/info"),
        200,
        "no answer after the clients left"
    );
    assert_eq!(served.get("/_local/info"), 200);
}

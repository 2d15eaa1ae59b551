//! Benchmark of the request queue against the real local service.
//!
//! Starts the local service in-process on loopback (port 0, in-memory) with its clock sped
//! up, then runs bulk jobs on a Free and a Pro key: once through this crate's scheduler, once
//! through a naive client (send until 429, sleep Retry-After, resend), each from a fresh
//! window. Then two schedulers share one key. Prints, for each run: wall time against the
//! ideal (requests ÷ per-minute limit), the share of the plan used, 429s received, requests
//! sent while that client was paused by a 429, and bans.
//!
//! `cargo run -p domain-desk-client --example queue_bench -- [--requests N] [--speed F]
//! [--naive-workers N] [--windows]` (defaults: 1000, 20, 4; `--windows` prints how the
//! scheduler's requests fell into the platform's minutes).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Timelike, Utc};
use domain_desk_api::Plan;
use domain_desk_api::local::{ClockState, LocalInfo};
use domain_desk_client::headers::parse_retry_after_header;
use domain_desk_client::{
    ApiKey, ApiRequest, Client, HttpTransport, QueueConfig, Transport, TransportError, WireResponse,
};
use domain_desk_service::{Service, ServiceSettings};
use futures::future::{BoxFuture, join_all};

/// One request as the benchmark saw it.
#[derive(Debug, Clone)]
struct Exchange {
    client: &'static str,
    sent: Instant,
    answered: Instant,
    status: Option<u16>,
    /// Retry-After of a 429 or 403, in local seconds.
    retry_after: Option<f64>,
}

#[derive(Default)]
struct Recorder {
    exchanges: Mutex<Vec<Exchange>>,
}

impl Recorder {
    fn take(&self) -> Vec<Exchange> {
        std::mem::take(&mut *self.exchanges.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The real HTTP transport, with every exchange written down.
struct Recording {
    inner: HttpTransport,
    client: &'static str,
    recorder: Arc<Recorder>,
    speed: f64,
}

impl Transport for Recording {
    fn send(
        &self,
        request: &ApiRequest,
    ) -> BoxFuture<'static, Result<WireResponse, TransportError>> {
        let sent = Instant::now();
        let answer = self.inner.send(request);
        let recorder = self.recorder.clone();
        let (client, speed) = (self.client, self.speed);
        Box::pin(async move {
            let result = answer.await;
            let answered = Instant::now();
            let (status, retry_after) = match &result {
                Ok(response) => (
                    Some(response.status.as_u16()),
                    parse_retry_after_header(&response.headers)
                        .map(|r| r.delay_from(std::time::SystemTime::now()).as_secs_f64() / speed),
                ),
                Err(_) => (None, None),
            };
            recorder
                .exchanges
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Exchange {
                    client,
                    sent,
                    answered,
                    status,
                    retry_after,
                });
            result
        })
    }
}

struct Bench {
    base_url: String,
    info: LocalInfo,
    http: reqwest::Client,
    speed: f64,
    requests: usize,
    naive_workers: usize,
    days_ahead: i64,
    /// When the platform clock was last set to a minute boundary (for `--windows`).
    clock_set_at: Instant,
    show_windows: bool,
}

#[derive(Debug)]
struct Row {
    plan: &'static str,
    client: String,
    requests: usize,
    wall: f64,
    ideal: Option<f64>,
    rate_limited: usize,
    sent_while_paused: usize,
    bans: usize,
    failed: usize,
}

impl Bench {
    fn key(&self, plan: Plan) -> ApiKey {
        ApiKey::new(self.info.demo_keys[plan.as_str()].clone())
    }

    fn transport(&self, plan: Plan, client: &'static str, recorder: &Arc<Recorder>) -> Recording {
        Recording {
            inner: HttpTransport::new(&self.base_url, &self.key(plan), Duration::from_secs(30))
                .unwrap_or_else(|err| fail(&format!("transport: {err}"))),
            client,
            recorder: recorder.clone(),
            speed: self.speed,
        }
    }

    /// A fresh day, ten minutes before its end: each run starts on a minute boundary with
    /// both windows full. (Free's day holds 1000 requests; crossing midnight part-way keeps
    /// the day window from ending a Free run, for both clients alike.)
    async fn fresh_clock(&mut self) {
        self.days_ahead += 1;
        let day = Utc::now() + TimeDelta::days(self.days_ahead);
        let start: DateTime<Utc> = day
            .with_hour(23)
            .and_then(|t| t.with_minute(50))
            .and_then(|t| t.with_second(0))
            .and_then(|t| t.with_nanosecond(0))
            .unwrap_or(day);
        let answer = self
            .http
            .put(format!("{}/_local/clock", self.base_url))
            .json(&ClockState {
                now: start,
                speed: self.speed,
            })
            .send()
            .await
            .unwrap_or_else(|err| fail(&format!("clock: {err}")));
        if !answer.status().is_success() {
            fail(&format!("clock: {}", answer.status()));
        }
        self.clock_set_at = Instant::now();
    }

    /// With `--windows`: how many requests each platform minute received, and when the first
    /// and last of them were sent (platform seconds into the minute).
    fn print_windows(&self, title: &str, exchanges: &[Exchange]) {
        if !self.show_windows {
            return;
        }
        let mut minutes: std::collections::BTreeMap<u64, (usize, f64, f64)> = Default::default();
        for e in exchanges.iter().filter(|e| e.status == Some(404)) {
            let platform = e.sent.duration_since(self.clock_set_at).as_secs_f64() * self.speed;
            let entry = minutes
                .entry((platform / 60.0) as u64)
                .or_insert((0, f64::MAX, 0.0));
            entry.0 += 1;
            entry.1 = entry.1.min(platform % 60.0);
            entry.2 = entry.2.max(platform % 60.0);
        }
        let text: Vec<String> = minutes
            .iter()
            .map(|(m, (n, first, last))| format!("m{m}: {n} [{first:.1}..{last:.1}]"))
            .collect();
        println!("{title}: {}", text.join("  "));
    }

    fn scheduler(&self, plan: Plan, name: &'static str, recorder: &Arc<Recorder>) -> Client {
        let queue = QueueConfig {
            limits: plan.default_limits(),
            platform_clock_speed: self.speed,
            ..QueueConfig::default()
        };
        Client::with_transport(queue, self.transport(plan, name, recorder))
            .unwrap_or_else(|err| fail(&format!("client: {err}")))
            .bulk()
    }

    /// A bulk job of distinct GETs (distinct so that none is coalesced).
    async fn scheduled_job(client: Client, prefix: &'static str, count: usize) -> usize {
        let answers = join_all((0..count).map(|i| {
            let client = client.clone();
            async move {
                client
                    .send(ApiRequest::get(format!("/v1/projects/{prefix}-{i}")))
                    .await
            }
        }))
        .await;
        answers
            .iter()
            .filter(|a| !matches!(a, Ok(r) if r.status.as_u16() == 404))
            .count()
    }

    async fn run_scheduler(&mut self, plan: Plan) -> Row {
        self.fresh_clock().await;
        let recorder = Arc::new(Recorder::default());
        let client = self.scheduler(plan, "scheduler", &recorder);
        let started = Instant::now();
        let failed = Self::scheduled_job(client, "s", self.requests).await;
        let wall = started.elapsed().as_secs_f64();
        let exchanges = recorder.take();
        self.print_windows(&format!("{} scheduler", plan.as_str()), &exchanges);
        self.row(
            plan,
            "scheduler".into(),
            wall,
            failed,
            &exchanges,
            Some("scheduler"),
        )
    }

    async fn run_naive(&mut self, plan: Plan) -> Row {
        self.fresh_clock().await;
        let recorder = Arc::new(Recorder::default());
        let transport = Arc::new(self.transport(plan, "naive", &recorder));
        let next = Arc::new(AtomicUsize::new(0));
        let failed = Arc::new(AtomicUsize::new(0));
        let (requests, speed) = (self.requests, self.speed);
        let started = Instant::now();
        let workers = (0..self.naive_workers.max(1)).map(|_| {
            let (transport, next, failed) = (transport.clone(), next.clone(), failed.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= requests {
                        break;
                    }
                    let request = ApiRequest::get(format!("/v1/projects/n-{i}"));
                    loop {
                        match transport.send(&request).await {
                            Ok(r) if matches!(r.status.as_u16(), 429 | 403) => {
                                let wait = parse_retry_after_header(&r.headers)
                                    .map(|r| r.delay_from(std::time::SystemTime::now()))
                                    .unwrap_or(Duration::from_secs(1));
                                tokio::time::sleep(wait.div_f64(speed)).await;
                            }
                            Ok(r) if r.status.as_u16() == 404 => break,
                            _ => {
                                failed.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                        }
                    }
                }
            })
        });
        for worker in join_all(workers).await {
            if worker.is_err() {
                fail("a naive worker panicked");
            }
        }
        let wall = started.elapsed().as_secs_f64();
        let name = format!("naive ({} workers)", self.naive_workers.max(1));
        let failed = failed.load(Ordering::Relaxed);
        self.row(plan, name, wall, failed, &recorder.take(), Some("naive"))
    }

    async fn run_shared(&mut self, plan: Plan) -> Vec<Row> {
        self.fresh_clock().await;
        let recorder = Arc::new(Recorder::default());
        let a = self.scheduler(plan, "A", &recorder);
        let b = self.scheduler(plan, "B", &recorder);
        let half = self.requests / 2;
        let started = Instant::now();
        let timed = |client: Client, prefix: &'static str| async move {
            let failed = Self::scheduled_job(client, prefix, half).await;
            (failed, started.elapsed().as_secs_f64())
        };
        let ((failed_a, wall_a), (failed_b, wall_b)) = tokio::join!(timed(a, "a"), timed(b, "b"));
        let exchanges = recorder.take();
        let mut rows = vec![
            self.row(
                plan,
                "2 schedulers: A".into(),
                wall_a,
                failed_a,
                &exchanges,
                Some("A"),
            ),
            self.row(
                plan,
                "2 schedulers: B".into(),
                wall_b,
                failed_b,
                &exchanges,
                Some("B"),
            ),
        ];
        for row in &mut rows {
            row.requests = half;
            row.ideal = None;
        }
        let mut both = self.row(
            plan,
            "2 schedulers: key".into(),
            wall_a.max(wall_b),
            failed_a + failed_b,
            &exchanges,
            None,
        );
        both.requests = half * 2;
        both.ideal = Some(self.ideal(plan, half * 2));
        rows.push(both);
        rows
    }

    fn ideal(&self, plan: Plan, requests: usize) -> f64 {
        requests as f64 / plan.default_limits().per_minute as f64 * 60.0 / self.speed
    }

    /// Tallies one run. `who`: the client whose numbers these are (`None`: the whole key, and
    /// "sent while paused" then counts any client's sends during any client's pause).
    fn row(
        &self,
        plan: Plan,
        client: String,
        wall: f64,
        failed: usize,
        exchanges: &[Exchange],
        who: Option<&'static str>,
    ) -> Row {
        let mine = |e: &&Exchange| who.is_none_or(|w| e.client == w);
        let pauses: Vec<(&'static str, Instant, Instant)> = exchanges
            .iter()
            .filter(mine)
            .filter(|e| e.status == Some(429))
            .map(|e| {
                let wait = Duration::from_secs_f64(e.retry_after.unwrap_or(0.0));
                (e.client, e.answered, e.answered + wait)
            })
            .collect();
        let sent_while_paused = exchanges
            .iter()
            .filter(mine)
            .filter(|e| {
                pauses.iter().any(|(client, from, until)| {
                    (who.is_none() || *client == e.client) && e.sent > *from && e.sent < *until
                })
            })
            .count();
        let mine_all: Vec<&Exchange> = exchanges.iter().filter(mine).collect();
        Row {
            plan: plan.as_str(),
            client,
            requests: self.requests,
            wall,
            ideal: Some(self.ideal(plan, self.requests)),
            rate_limited: mine_all.iter().filter(|e| e.status == Some(429)).count(),
            sent_while_paused,
            bans: mine_all.iter().filter(|e| e.status == Some(403)).count(),
            failed,
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("queue_bench: {message}");
    std::process::exit(1)
}

fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| fail(&format!("{name} needs a number"))),
        None => default,
    }
}

#[tokio::main]
async fn main() {
    let requests: usize = arg("--requests", 1_000);
    let speed: f64 = arg("--speed", 20.0);
    let naive_workers: usize = arg("--naive-workers", 4);
    if requests == 0 || !(speed > 0.0 && speed <= 600.0) {
        fail("--requests must be positive and --speed between 0 and 600");
    }
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let settings = ServiceSettings {
        api_addr: loopback,
        dns_addr: loopback,
        edge_https_addr: loopback,
        edge_http_addr: loopback,
        clock_speed: speed,
        ..ServiceSettings::default()
    };
    let service = Service::bind(settings)
        .await
        .unwrap_or_else(|err| fail(&format!("the local service did not start: {err}")));
    let info = service
        .info()
        .await
        .unwrap_or_else(|err| fail(&format!("info: {err}")));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(service.run(async move {
        let _ = stopped.await;
    }));
    let mut bench = Bench {
        base_url: format!("http://{}", info.api),
        info,
        http: reqwest::Client::new(),
        speed,
        requests,
        naive_workers,
        days_ahead: 0,
        clock_set_at: Instant::now(),
        show_windows: std::env::args().any(|a| a == "--windows"),
    };
    println!(
        "queue benchmark: local service at {}, clock {speed}x, {requests} requests per run\n",
        bench.info.api
    );
    let mut rows = Vec::new();
    for plan in [Plan::Free, Plan::Pro] {
        rows.push(bench.run_scheduler(plan).await);
        rows.push(bench.run_naive(plan).await);
    }
    rows.extend(bench.run_shared(Plan::Pro).await);
    print_table(&rows);
    let _ = stop.send(());
    let _ = server.await;
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<5} {:<20} {:>8} {:>8} {:>8} {:>6} {:>5} {:>12} {:>5} {:>7}",
        "plan",
        "client",
        "requests",
        "wall s",
        "ideal s",
        "use %",
        "429s",
        "sent paused",
        "bans",
        "failed"
    );
    for row in rows {
        let (ideal, used) = match row.ideal {
            Some(ideal) => (
                format!("{ideal:.2}"),
                format!("{:.1}", ideal / row.wall * 100.0),
            ),
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:<5} {:<20} {:>8} {:>8.2} {:>8} {:>6} {:>5} {:>12} {:>5} {:>7}",
            row.plan,
            row.client,
            row.requests,
            row.wall,
            ideal,
            used,
            row.rate_limited,
            row.sent_while_paused,
            row.bans,
            row.failed
        );
    }
    println!(
        "\nwall and ideal are local seconds; ideal = requests ÷ per-minute limit on the sped-up clock;"
    );
    println!(
        "use % = ideal ÷ wall; \"sent paused\" = requests a client sent after a 429 and before its Retry-After"
    );
    println!(
        "(for the key row: any client's sends during any client's pause); bans = 403 key_banned answers."
    );
}

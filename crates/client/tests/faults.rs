//! The client under faults, against the real local service on loopback: every `/v1` answer
//! slowed down, a share of them 503, a share of connections closed without an answer, and
//! another program on the same key that uses up the window again and again (a 429 storm).
//! A bulk job still completes: every project created exactly once, no ban, and the service's
//! own access log shows that nothing of the job arrived while the client was paused by a 429.
//!
//! Its own test binary: it reads the service's log through a process-wide tracing subscriber,
//! which only this one test may own.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Timelike, Utc};
use domain_desk_api::Plan;
use domain_desk_api::local::{ClockState, Faults};
use domain_desk_client::{ApiRequest, Client, ClientConfig};
use domain_desk_service::http::gate::ACCESS_LOG;
use domain_desk_service::{Service, ServiceSettings};
use futures::future::join_all;
use tokio::sync::{Notify, oneshot};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Platform seconds per real second: a minute window lasts two seconds.
const SPEED: f64 = 30.0;
const PROJECTS: usize = 45;
/// The storm strikes each time this many more projects were created.
const STORM_EVERY: u64 = 10;
/// How late a request the client sent before it read a 429 may still reach the service,
/// in real time (loopback, two busy cores).
const IN_FLIGHT_SLACK: Duration = Duration::from_millis(300);

/// One line of the service's access log.
#[derive(Debug, Clone, Default)]
struct Access {
    method: String,
    path: String,
    status: u64,
    dropped: bool,
    received: Option<DateTime<Utc>>,
    retry_after: Option<u64>,
}

impl Visit for Access {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        let text = format!("{value:?}");
        match field.name() {
            "method" => self.method = text,
            "path" => self.path = text,
            "received" => self.received = text.parse().ok(),
            _ => {}
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "status" => self.status = value,
            "retry_after" => self.retry_after = Some(value),
            _ => {}
        }
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        if field.name() == "dropped" {
            self.dropped = value;
        }
    }
}

/// Collects the access log; ignores everything else.
struct AccessLog {
    lines: Arc<Mutex<Vec<Access>>>,
    next_span: AtomicU64,
}

impl Subscriber for AccessLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == ACCESS_LOG
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut access = Access::default();
        event.record(&mut access);
        self.lines.lock().unwrap().push(access);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

struct Running {
    base_url: String,
    key: String,
    http: reqwest::Client,
    _stop: oneshot::Sender<()>,
}

impl Running {
    async fn start() -> Self {
        let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let service = Service::bind(ServiceSettings {
            api_addr: loopback,
            dns_addr: loopback,
            edge_https_addr: loopback,
            edge_http_addr: loopback,
            ..ServiceSettings::default()
        })
        .await
        .expect("the service starts");
        let info = service.info().await.expect("info");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(service.run(async move {
            let _ = stopped.await;
        }));
        Self {
            base_url: format!("http://{}", info.api),
            key: info.demo_keys[Plan::Free.as_str()].clone(),
            http: reqwest::Client::new(),
            _stop: stop,
        }
    }

    async fn put<T: serde::Serialize>(&self, path: &str, body: &T) {
        let answer = self
            .http
            .put(format!("{}{path}", self.base_url))
            .json(body)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{path}: {}", answer.status());
    }
}

/// Another program on the same key: sends until it gets its first 429, then stops, so that it
/// alone never earns the key a ban. Several at a time while the window has plenty left (so it
/// goes quickly), one at a time near the end (so only one of them is refused).
async fn storm(http: reqwest::Client, base_url: String, key: String) -> usize {
    let mut sent = 0;
    // What the last answers said is left; one request first, to learn it.
    let mut remaining = 1u64;
    loop {
        let batch = remaining.clamp(1, 16);
        let answers = join_all((0..batch).map(|_| {
            http.get(format!("{base_url}/v1/account"))
                .bearer_auth(&key)
                .send()
        }))
        .await;
        sent += batch as usize;
        let mut limited = false;
        remaining = u64::MAX;
        for answer in answers.iter().flatten() {
            limited |= answer.status().as_u16() == 429;
            if let Some(left) = answer
                .headers()
                .get("x-ratelimit-remaining")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok())
            {
                remaining = remaining.min(left);
            }
        }
        if remaining == u64::MAX {
            remaining = 1; // every answer was dropped: learn again
        }
        if limited || sent > 200 {
            return sent;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bulk_job_completes_under_faults_and_429_storms_without_duplicates_or_a_ban() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    tracing::subscriber::set_global_default(AccessLog {
        lines: lines.clone(),
        next_span: AtomicU64::new(0),
    })
    .expect("this binary's only subscriber");

    let service = Running::start().await;
    let start = Utc::now() + TimeDelta::days(2);
    let start = start
        .with_second(0)
        .and_then(|t| t.with_nanosecond(0))
        .unwrap();
    service
        .put(
            "/_local/clock",
            &ClockState {
                now: start,
                speed: SPEED,
            },
        )
        .await;
    service
        .put(
            "/_local/faults",
            &Faults {
                latency_ms: 15,
                error_rate: 0.2,
                drop_rate: 0.15,
            },
        )
        .await;

    let mut config = ClientConfig::new(&service.base_url, service.key.clone()).plan(Plan::Free);
    config.queue.platform_clock_speed = SPEED;
    config.request_timeout = Duration::from_secs(5);
    let client = Client::new(config).unwrap();
    let bulk = client.in_job(client.new_job()).bulk();

    // The storm strikes whenever the job made some progress.
    let created = Arc::new(AtomicU64::new(0));
    let progress = Arc::new(Notify::new());
    let storms = {
        let (created, progress) = (created.clone(), progress.clone());
        let (http, base_url, key) = (
            service.http.clone(),
            service.base_url.clone(),
            service.key.clone(),
        );
        tokio::spawn(async move {
            let mut struck = 0;
            let mut next = STORM_EVERY;
            while next < PROJECTS as u64 {
                while created.load(Ordering::Acquire) < next {
                    progress.notified().await;
                }
                storm(http.clone(), base_url.clone(), key.clone()).await;
                struck += 1;
                next += STORM_EVERY;
            }
            struck
        })
    };

    // The job: one create per name. A create that comes back failed (the retries ran out on
    // 503s and dropped connections, or the 429s kept coming) is sent again as the SAME
    // request, with its Idempotency-Key, as the app's job runner does.
    let answers = join_all((0..PROJECTS).map(|i| {
        let (bulk, created, progress) = (bulk.clone(), created.clone(), progress.clone());
        async move {
            let body = format!(r#"{{"name":"bulk {i}"}}"#);
            let request = ApiRequest::post("/v1/projects", bytes::Bytes::from(body));
            let mut attempts = 0;
            loop {
                attempts += 1;
                assert!(attempts <= 20, "bulk {i} never got through");
                match bulk.send(request.clone()).await {
                    Ok(answer) if answer.status.as_u16() == 201 => {
                        created.fetch_add(1, Ordering::AcqRel);
                        progress.notify_one();
                        return answer;
                    }
                    Ok(answer) if answer.status.is_server_error() => continue,
                    Ok(answer) => panic!("bulk {i}: {}", answer.status),
                    Err(err) if err.is_banned() => panic!("the key was banned: {err}"),
                    Err(err)
                        if err.is_network() || err.is_server_error() || err.is_rate_limited() =>
                    {
                        continue;
                    }
                    Err(err) => panic!("bulk {i}: {err}"),
                }
            }
        }
    }))
    .await;
    let struck = storms.await.unwrap();
    assert_eq!(answers.len(), PROJECTS, "the job completed");
    assert!(struck >= 4, "only {struck} storms");

    // Faults off for the audit.
    service.put("/_local/faults", &Faults::default()).await;
    let limits = client.rate_limit().await.unwrap();
    assert!(limits.banned_until.is_none(), "the key was banned");
    let projects = client.projects().await.unwrap();
    let mut per_name: BTreeMap<String, usize> = BTreeMap::new();
    for project in &projects {
        *per_name.entry(project.name.clone()).or_default() += 1;
    }
    for i in 0..PROJECTS {
        assert_eq!(
            per_name.get(&format!("bulk {i}")),
            Some(&1),
            "bulk {i} created once"
        );
    }

    let log = lines.lock().unwrap().clone();
    let job: Vec<&Access> = log
        .iter()
        .filter(|a| a.method == "POST" && a.path == "/v1/projects")
        .collect();
    assert!(job.iter().all(|a| a.status != 403), "a key_banned answer");
    let dropped = job.iter().filter(|a| a.dropped).count();
    let unavailable = job.iter().filter(|a| a.status == 503 && !a.dropped).count();
    let limited: Vec<&&Access> = job.iter().filter(|a| a.status == 429).collect();
    assert!(dropped > 0, "no dropped connection was injected");
    assert!(unavailable > 0, "no 503 was injected");
    assert!(!limited.is_empty(), "the storms never limited the job");

    // Nothing of the job reached the service between a 429 it got and that 429's
    // Retry-After, once requests already on the way could have arrived.
    let slack = TimeDelta::from_std(IN_FLIGHT_SLACK).unwrap() * SPEED as i32;
    for answer in &limited {
        let at = answer.received.unwrap();
        let retry_after = TimeDelta::seconds(answer.retry_after.expect("Retry-After") as i64);
        let paused_from = at + slack;
        let paused_until = at + retry_after - TimeDelta::seconds(1);
        let sent_while_paused: Vec<&&Access> = job
            .iter()
            .filter(|a| {
                let received = a.received.unwrap();
                received > paused_from && received < paused_until
            })
            .collect();
        assert!(
            sent_while_paused.is_empty(),
            "429 at {at} (Retry-After {retry_after}), yet the job sent {sent_while_paused:#?}"
        );
    }
}

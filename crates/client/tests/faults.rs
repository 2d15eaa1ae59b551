//! The client under faults, against the real local service on loopback: every `/v1` answer
//! slowed down, a share of them 503, a share of connections closed without an answer, and
//! another program on the same key that uses up the window again and again (a 429 storm).
//! A bulk job still completes: every project created exactly once, no ban, no more of the
//! job's requests refused in a window than it can have on the wire, and nothing of the job
//! was sent or arrived while the client was paused by a 429, over the whole pause.
//!
//! Requests the client had already sent when a 429 came back may still arrive after the
//! service answered that 429; they are told apart by order, not by a grace period: the
//! service's access log and the client's transport write into one log, in the order things
//! happen, so the test knows how many requests had left when the client read each 429.
//!
//! Its own test binary: it reads the service's log through a process-wide tracing subscriber,
//! which only one of its tests may own.
//!
//! It is longer than the house's 500 lines (about 520, all tests): one run and what it needs,
//! about 275 of set-up (the access-log subscriber, the recording transport, the 429 storm),
//! 120 of the run, 120 of the pause checks and their own test, all reading one log of
//! `Happened`, and none of it used by another test. The queue's other tests are apart already,
//! in `tests/suite/` (`scheduler.rs` on the fake platform, `local_service.rs` without faults).

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Timelike, Utc};
use domain_desk_api::Plan;
use domain_desk_api::local::{ClockState, Faults};
use domain_desk_client::{
    ApiKey, ApiRequest, Client, ClientConfig, HttpTransport, Transport, TransportError,
    WireResponse,
};
use domain_desk_service::http::gate::ACCESS_LOG;
use futures::future::{BoxFuture, join_all};
use tokio::sync::RwLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Platform seconds per real second: a minute window lasts two seconds.
const SPEED: f64 = 30.0;
/// 48: when the 36th create is counted, twelve are left, at most eight on the wire and one
/// more possibly sent in the moment before the count (the queue fills a freed slot before the
/// job sees the answer that freed it), so a create is still sent after the fourth threshold
/// and the storm strikes at least four times. With 45 it struck only three times now and then.
const PROJECTS: usize = 48;
/// The storm strikes each time this many more projects were created: at 9, 18, 27 and 36
/// (and at 45 when a create is still to be sent then).
const STORM_EVERY: u64 = 9;
/// Retry-After counts whole platform seconds while a window ends within one: the pause may
/// end up to one platform second before the 429's arrival plus its Retry-After.
const RETRY_AFTER_ROUNDING: TimeDelta = TimeDelta::seconds(1);

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

/// What happened, in the order it happened: the service's access lines (written as each
/// answer is given) and the job's requests as the client's transport saw them.
#[derive(Debug, Clone)]
enum Happened {
    Access(Access),
    /// A job request handed to the transport, before any byte of it left.
    Sent {
        at: Instant,
    },
    /// The answer to a job request, before the queue reads it; `pause` is a 429's Retry-After
    /// in real time.
    Answered {
        at: Instant,
        status: Option<u16>,
        pause: Option<Duration>,
    },
}

type Events = Arc<Mutex<Vec<Happened>>>;

/// Collects the access log into the events; ignores everything else.
struct AccessLog {
    events: Events,
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
        self.events.lock().unwrap().push(Happened::Access(access));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// The client's real HTTP transport, writing the job's requests into the events, and
/// letting the storm strike before a job request when it is due.
struct Recording {
    inner: HttpTransport,
    events: Events,
    storm: Arc<Storm>,
}

impl Recording {
    fn is_job(request: &ApiRequest) -> bool {
        request.method == reqwest::Method::POST && request.path == "/v1/projects"
    }
}

impl Transport for Recording {
    fn send(
        &self,
        request: &ApiRequest,
    ) -> BoxFuture<'static, Result<WireResponse, TransportError>> {
        let job = Self::is_job(request);
        if job {
            let sent = Happened::Sent { at: Instant::now() };
            self.events.lock().unwrap().push(sent);
        }
        // Nothing leaves before this future is first polled, after the event above.
        let answer = self.inner.send(request);
        let events = self.events.clone();
        let storm = self.storm.clone();
        Box::pin(async move {
            // For the queue this request is on the wire from here on; the storm may use up the
            // window before it actually leaves, so that it meets an empty window.
            let _on_the_wire = if job {
                if storm.due() {
                    storm.strike().await;
                }
                Some(storm.gate.read().await)
            } else {
                None
            };
            let result = answer.await;
            if job {
                let status = result.as_ref().ok().map(|r| r.status.as_u16());
                let pause = result
                    .as_ref()
                    .ok()
                    .filter(|r| r.status.as_u16() == 429)
                    .and_then(|r| {
                        r.headers
                            .get("retry-after")?
                            .to_str()
                            .ok()?
                            .parse::<f64>()
                            .ok()
                    })
                    .map(|seconds| Duration::from_secs_f64(seconds / SPEED));
                events.lock().unwrap().push(Happened::Answered {
                    at: Instant::now(),
                    status,
                    pause,
                });
            }
            result
        })
    }
}

struct Running {
    base_url: String,
    key: String,
    http: reqwest::Client,
    _service: domain_desk_service::Running,
}

impl Running {
    async fn start() -> Self {
        let service = domain_desk_test_support::start().await;
        Self {
            base_url: service.base_url(),
            key: service.info().demo_keys[Plan::Free.as_str()].clone(),
            http: domain_desk_test_support::http_client(),
            _service: service,
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

/// Another program on the same key that uses up the window whenever the job has made some
/// progress. It strikes between the job's requests: it waits until none of them is on the
/// wire and holds the next ones back, learns exactly what is left from the uncounted
/// `GET /v1/rate_limit`, and spends precisely that with counted requests. So it never earns a
/// 429 (nor a share of a ban) itself, while the job's next request, sized from answers that
/// no longer hold, meets an empty window: every 429 the key gets is the job's.
struct Storm {
    http: reqwest::Client,
    base_url: String,
    key: String,
    /// Projects the job created so far.
    created: AtomicU64,
    /// The storm strikes once `created` reaches this.
    next: AtomicU64,
    struck: AtomicU64,
    /// Job requests hold it shared while on the wire; the storm holds it alone.
    gate: RwLock<()>,
}

impl Storm {
    fn new(service: &Running) -> Self {
        Self {
            http: service.http.clone(),
            base_url: service.base_url.clone(),
            key: service.key.clone(),
            created: AtomicU64::new(0),
            next: AtomicU64::new(STORM_EVERY),
            struck: AtomicU64::new(0),
            gate: RwLock::new(()),
        }
    }

    /// True once per step of progress, for the first request sent after it.
    fn due(&self) -> bool {
        let next = self.next.load(Ordering::Acquire);
        self.created.load(Ordering::Acquire) >= next
            && self
                .next
                .compare_exchange(
                    next,
                    next + STORM_EVERY,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .is_ok()
    }

    /// What the key has left, from the uncounted status query (asked again when a fault
    /// took the answer or its headers).
    async fn remaining(&self) -> u64 {
        loop {
            let answer = self
                .http
                .get(format!("{}/v1/rate_limit", self.base_url))
                .bearer_auth(&self.key)
                .send()
                .await;
            let left = answer.ok().and_then(|answer| {
                answer
                    .headers()
                    .get("x-ratelimit-remaining")?
                    .to_str()
                    .ok()?
                    .parse::<u64>()
                    .ok()
            });
            if let Some(left) = left {
                return left;
            }
        }
    }

    /// Spends what is left, until the status query says nothing is (a window that started
    /// meanwhile is spent too).
    async fn strike(&self) {
        let _alone = self.gate.write().await;
        loop {
            let left = self.remaining().await;
            if left == 0 {
                break;
            }
            let spend = (0..left).map(|_| {
                self.http
                    .get(format!("{}/v1/account", self.base_url))
                    .bearer_auth(&self.key)
                    .send()
            });
            join_all(spend).await;
        }
        self.struck.fetch_add(1, Ordering::AcqRel);
    }
}

/// The requests refused with 429 in each minute window, the storm's and the job's.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Refused {
    storm: usize,
    job: usize,
}

fn refused_per_window(events: &[Happened]) -> BTreeMap<i64, Refused> {
    let mut per_window: BTreeMap<i64, Refused> = BTreeMap::new();
    for event in events {
        let Happened::Access(access) = event else {
            continue;
        };
        if access.status != 429 {
            continue;
        }
        let window = access
            .received
            .expect("received")
            .timestamp()
            .div_euclid(60);
        let refused = per_window.entry(window).or_default();
        if access.method == "POST" {
            refused.job += 1;
        } else {
            refused.storm += 1;
        }
    }
    per_window
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bulk_job_completes_under_faults_and_429_storms_without_duplicates_or_a_ban() {
    let events: Events = Arc::new(Mutex::new(Vec::new()));
    tracing::subscriber::set_global_default(AccessLog {
        events: events.clone(),
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
    let max_in_flight = config.queue.max_in_flight;
    let storm = Arc::new(Storm::new(&service));
    let transport = Recording {
        storm: storm.clone(),
        inner: HttpTransport::new(
            &service.base_url,
            &ApiKey::new(service.key.clone()),
            Duration::from_secs(5),
        )
        .unwrap(),
        events: events.clone(),
    };
    let client = Client::with_transport(config.queue, transport).unwrap();
    let bulk = client.in_job(client.new_job()).bulk();

    // The job: one create per name. A create that comes back failed (the retries ran out on
    // 503s and dropped connections, or the 429s kept coming) is sent again as the SAME
    // request, with its Idempotency-Key, as the app's job runner does.
    let answers = join_all((0..PROJECTS).map(|i| {
        let (bulk, storm) = (bulk.clone(), storm.clone());
        async move {
            let body = format!(r#"{{"name":"bulk {i}"}}"#);
            let request = ApiRequest::post("/v1/projects", bytes::Bytes::from(body));
            let mut attempts = 0;
            loop {
                attempts += 1;
                assert!(attempts <= 20, "bulk {i} never got through");
                match bulk.send(request.clone()).await {
                    Ok(answer) if answer.status.as_u16() == 201 => {
                        storm.created.fetch_add(1, Ordering::AcqRel);
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
    let struck = storm.struck.load(Ordering::Acquire);
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

    let events = events.lock().unwrap().clone();
    let job: Vec<&Access> = events
        .iter()
        .filter_map(|event| match event {
            Happened::Access(a) if a.method == "POST" && a.path == "/v1/projects" => Some(a),
            _ => None,
        })
        .collect();
    assert!(job.iter().all(|a| a.status != 403), "a key_banned answer");
    let dropped = job.iter().filter(|a| a.dropped).count();
    let unavailable = job.iter().filter(|a| a.status == 503 && !a.dropped).count();
    let limited = job.iter().filter(|a| a.status == 429).count();
    assert!(dropped > 0, "no dropped connection was injected");
    assert!(unavailable > 0, "no 503 was injected");
    assert!(limited > 0, "the storms never limited the job");
    // After reading a 429 the queue sends nothing until the window ends: in one window only
    // the requests already on the wire can be refused, far below the ban's threshold.
    for (window, refused) in refused_per_window(&events) {
        assert_eq!(refused.storm, 0, "the storm was refused in window {window}");
        assert!(
            refused.job <= max_in_flight,
            "{} of the job's requests were refused in window {window}, more than the {max_in_flight} it may have on the wire",
            refused.job
        );
    }
    nothing_was_sent_while_paused(&events);
    nothing_arrived_while_paused(&events);
}

/// The client's side, over each whole pause: once the client read a 429, no job request left
/// before that 429's Retry-After had passed.
fn nothing_was_sent_while_paused(events: &[Happened]) {
    let rounding = RETRY_AFTER_ROUNDING.to_std().unwrap().div_f64(SPEED);
    let mut pauses = 0;
    for (index, event) in events.iter().enumerate() {
        let Happened::Answered {
            at: read,
            pause: Some(pause),
            ..
        } = event
        else {
            continue;
        };
        pauses += 1;
        let resume = *read + pause.saturating_sub(rounding);
        for later in &events[index..] {
            if let Happened::Sent { at } = later {
                assert!(
                    *at >= resume,
                    "a job request left {:?} after a 429 was read, within its Retry-After of {pause:?}",
                    at.duration_since(*read)
                );
            }
        }
    }
    assert!(pauses > 0, "the client read no 429");
}

/// The service's side, over each whole pause from the 429's arrival: every job request that
/// arrived before that 429's Retry-After passed had already left the client when the client
/// read the 429 (it was on its way, not sent while paused).
fn nothing_arrived_while_paused(events: &[Happened]) {
    let is_job_access = |event: &Happened| matches!(event, Happened::Access(a) if a.method == "POST" && a.path == "/v1/projects");
    let arrivals: Vec<DateTime<Utc>> = events
        .iter()
        .filter(|event| is_job_access(event))
        .filter_map(|event| match event {
            Happened::Access(a) => a.received,
            _ => None,
        })
        .collect();
    // The client reads the 429s in the order the service wrote them, each after it was written.
    let mut reads = events.iter().enumerate().filter(|(_, event)| {
        matches!(
            event,
            Happened::Answered {
                status: Some(429),
                ..
            }
        )
    });
    let mut checked = 0;
    for (index, event) in events.iter().enumerate() {
        let Happened::Access(access) = event else {
            continue;
        };
        if !is_job_access(event) || access.status != 429 {
            continue;
        }
        let Some((read, _)) = reads.find(|(read, _)| *read > index) else {
            panic!("the client never read the 429 written at {index}");
        };
        let sent_before_read = events[..read]
            .iter()
            .filter(|event| matches!(event, Happened::Sent { .. }))
            .count();
        let at = access.received.expect("received");
        let retry_after = TimeDelta::seconds(access.retry_after.expect("Retry-After") as i64);
        let paused_until = at + retry_after - RETRY_AFTER_ROUNDING;
        let arrived = arrivals
            .iter()
            .filter(|received| **received < paused_until)
            .count();
        assert!(
            arrived <= sent_before_read,
            "429 at {at} (Retry-After {retry_after}): {arrived} job requests arrived before \
             {paused_until}, but only {sent_before_read} had left when the client read the 429"
        );
        checked += 1;
    }
    assert!(checked > 0, "no 429 of the job was checked");
}

/// The two checks above on made-up runs: a request in flight when the 429 was read passes, a
/// request sent or arriving within the pause fails, from the pause's first moment.
#[test]
fn the_pause_checks_catch_a_request_sent_at_any_moment_of_a_pause() {
    let start = Instant::now();
    let t0 = Utc::now();
    let access = |at: DateTime<Utc>, status: u64| {
        Happened::Access(Access {
            method: "POST".into(),
            path: "/v1/projects".into(),
            status,
            dropped: false,
            received: Some(at),
            retry_after: (status == 429).then_some(30),
        })
    };
    let read_429 = Happened::Answered {
        at: start + Duration::from_millis(10),
        status: Some(429),
        pause: Some(Duration::from_secs(1)),
    };
    // Two requests leave, the first gets a 429, the second was on its way and arrives after it.
    let in_flight = vec![
        Happened::Sent { at: start },
        Happened::Sent { at: start },
        access(t0, 429),
        read_429.clone(),
        access(t0 + TimeDelta::milliseconds(300), 201),
    ];
    nothing_was_sent_while_paused(&in_flight);
    nothing_arrived_while_paused(&in_flight);

    // A third request leaves right after the 429 was read and arrives at once.
    let mut sent_at_once = in_flight.clone();
    sent_at_once.insert(
        4,
        Happened::Sent {
            at: start + Duration::from_millis(11),
        },
    );
    sent_at_once.push(access(t0 + TimeDelta::milliseconds(400), 201));
    let client_side = std::panic::catch_unwind(|| nothing_was_sent_while_paused(&sent_at_once));
    assert!(client_side.is_err(), "a send 1 ms into the pause passed");
    let service_side = std::panic::catch_unwind(|| nothing_arrived_while_paused(&sent_at_once));
    assert!(
        service_side.is_err(),
        "an arrival 0.4 s into the pause passed"
    );
}

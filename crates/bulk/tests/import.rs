//! Imports against the real local service, started in-process on loopback: what a rerun
//! reports after a lost answer, refusals before anything is sent, the platform's own
//! refusals, Ctrl-C, and faults on the wire. And a platform that goes away in the middle of a
//! run (a transport that refuses connections for a while, on paused Tokio time): the rows
//! wait for it, or give up after `reconnect_for`, or stop with Ctrl-C.

use domain_desk_api::local::{Faults, LocalInfo};
use domain_desk_api::{AddDomain, Plan};
use domain_desk_bulk::rows::{self, Format};
use domain_desk_bulk::{Error, Refusal, RunOptions, import, plan};
use domain_desk_client::{Client, ClientConfig};
use domain_desk_service::Running;
use tokio::sync::oneshot;

struct LocalService {
    info: LocalInfo,
    base_url: String,
    _running: Running,
}

impl LocalService {
    async fn start() -> Self {
        let running = domain_desk_test_support::start().await;
        Self {
            base_url: running.base_url(),
            info: running.info().clone(),
            _running: running,
        }
    }

    fn client(&self, plan: Plan) -> Client {
        let config = ClientConfig::new(&self.base_url, self.info.demo_keys[plan.as_str()].as_str())
            .plan(plan);
        Client::new(config).expect("client")
    }

    async fn set_faults(&self, faults: &Faults) {
        let answer = domain_desk_test_support::http_client()
            .put(format!("{}/_local/faults", self.base_url))
            .json(faults)
            .send()
            .await
            .expect("faults answer");
        assert!(answer.status().is_success(), "{}", answer.status());
    }
}

/// A new project with a deploy (domains need one), on `client`'s account.
async fn project(client: &Client, name: &str) -> String {
    let project = client.create_project(name).await.expect("project");
    client.deploy(&project.id, None).await.expect("deploy");
    project.id
}

fn csv_rows(text: &str) -> Vec<rows::Row> {
    rows::parse(text, Format::Csv).expect("rows")
}

#[tokio::test]
async fn a_rerun_after_a_lost_answer_acts_on_no_row_twice_and_says_what_was_done() {
    let service = LocalService::start().await;
    let client = service.client(Plan::Business);
    let project_id = project(&client, "resume").await;
    let rows = csv_rows("a.example.com\nb.example.com\nc.example.com,a.example.com\n");

    // The first run "crashed" after its request for b was acted on but before the answer
    // arrived: the platform holds b under the key the row derives.
    let account = client.account().await.unwrap();
    let key = plan::idempotency_key(&account.id, &project_id, "b.example.com", None);
    let lost = client
        .add_domain_once(
            &project_id,
            &AddDomain {
                hostname: "b.example.com".into(),
                redirect_to: None,
            },
            &key,
        )
        .await
        .unwrap();
    assert!(!lost.replayed);

    // The rerun reads the project first: b is present, a and c are sent.
    let summary = import(
        &client,
        &project_id,
        &rows,
        RunOptions::default(),
        |_| {},
        std::future::pending(),
    )
    .await
    .unwrap();
    assert_eq!(summary.created, vec!["a.example.com", "c.example.com"]);
    assert_eq!(summary.already_present.len(), 1);
    assert!(summary.complete());
    assert_eq!(summary.rate_limited, 0);

    // A row sent again under its key (the project read was before the earlier run's
    // answer landed) is replayed, not created twice.
    let plan = domain_desk_bulk::ImportPlan {
        skipped: Vec::new(),
        to_send: vec![plan::PlannedRow {
            line: 2,
            hostname: "b.example.com".into(),
            redirect_to: None,
            idempotency_key: key,
        }],
        already_present: vec![],
    };
    let summary = domain_desk_bulk::run::run(
        &client,
        &project_id,
        plan,
        RunOptions::default(),
        |_| {},
        std::future::pending(),
    )
    .await;
    assert!(summary.created.is_empty(), "{summary:?}");
    assert_eq!(summary.already_present.len(), 1);
    assert!(summary.already_present[0].added_by_earlier_run);

    let domains = client.domains(&project_id).await.unwrap();
    let mut names: Vec<&str> = domains.iter().map(|d| d.hostname.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        vec!["a.example.com", "b.example.com", "c.example.com"]
    );
    let c = domains
        .iter()
        .find(|d| d.hostname == "c.example.com")
        .unwrap();
    assert_eq!(
        c.redirect.as_ref().map(|r| r.to.as_str()),
        Some("a.example.com")
    );
}

#[tokio::test]
async fn refusals_before_sending_leave_the_project_untouched() {
    let service = LocalService::start().await;
    let business = service.client(Plan::Business);
    let project_id = project(&business, "full").await;
    let rows: Vec<rows::Row> = csv_rows(
        &(0..251)
            .map(|i| format!("d{i}.example.com\n"))
            .collect::<String>(),
    );
    match import(
        &business,
        &project_id,
        &rows,
        RunOptions::default(),
        |_| {},
        std::future::pending(),
    )
    .await
    {
        Err(Error::Refused(Refusal::TooManyDomains {
            new: 251,
            limit: 250,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
    assert!(business.domains(&project_id).await.unwrap().is_empty());

    let free = service.client(Plan::Free);
    let free_project = free.projects().await.unwrap()[0].id.clone();
    match import(
        &free,
        &free_project,
        &rows[..1],
        RunOptions::default(),
        |_| {},
        std::future::pending(),
    )
    .await
    {
        Err(Error::Refused(Refusal::NoCustomDomains { .. })) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_platforms_refusals_are_reported_per_row_and_kept_for_a_retry() {
    let service = LocalService::start().await;
    let pro = service.client(Plan::Pro);
    let business = service.client(Plan::Business);
    let theirs = project(&pro, "theirs").await;
    pro.add_domain(
        &theirs,
        &AddDomain {
            hostname: "taken.example.com".into(),
            redirect_to: None,
        },
    )
    .await
    .unwrap();
    let ours = project(&business, "ours").await;
    let rows = csv_rows("free.example.com\ntaken.example.com\n");
    let summary = import(
        &business,
        &ours,
        &rows,
        RunOptions::default(),
        |_| {},
        std::future::pending(),
    )
    .await
    .unwrap();
    assert_eq!(summary.created, vec!["free.example.com"]);
    assert_eq!(summary.refused.len(), 1);
    assert_eq!(summary.refused[0].line, 2);
    assert_eq!(
        summary.refused[0].code,
        Some(domain_desk_api::ErrorCode::DomainTaken)
    );
    let retry = summary.rows_to_retry();
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0].hostname, "taken.example.com");
    assert!(!summary.complete());
}

#[tokio::test]
async fn stopping_withdraws_the_rows_not_yet_sent() {
    let service = LocalService::start().await;
    let client = service.client(Plan::Business);
    let project_id = project(&client, "stopped").await;
    // Slow answers, so that most rows are still queued when the stop comes.
    service
        .set_faults(&Faults {
            latency_ms: 200,
            error_rate: 0.0,
            drop_rate: 0.0,
        })
        .await;
    let rows = csv_rows(
        &(0..200)
            .map(|i| format!("s{i}.example.com\n"))
            .collect::<String>(),
    );
    let (stop, stopped) = oneshot::channel::<()>();
    let mut stop = Some(stop);
    let summary = import(
        &client,
        &project_id,
        &rows,
        RunOptions::default(),
        |progress| {
            if progress.answered >= 8 {
                if let Some(stop) = stop.take() {
                    let _ = stop.send(());
                }
            }
        },
        async {
            let _ = stopped.await;
        },
    )
    .await
    .unwrap();
    assert!(summary.stopped);
    let created = summary.created.len();
    assert!((8..200).contains(&created), "{created}");
    assert_eq!(created + summary.unfinished.len(), 200);
    // What the summary says was created is exactly what the project has.
    service.set_faults(&Faults::default()).await;
    assert_eq!(client.domains(&project_id).await.unwrap().len(), created);
}

#[tokio::test]
async fn faults_on_the_wire_end_with_every_row_once_after_reruns() {
    let service = LocalService::start().await;
    let client = service.client(Plan::Business);
    let project_id = project(&client, "faulty").await;
    service
        .set_faults(&Faults {
            latency_ms: 2,
            error_rate: 0.1,
            drop_rate: 0.1,
        })
        .await;
    let rows = csv_rows(
        &(0..120)
            .map(|i| format!("f{i}.example.com\n"))
            .collect::<String>(),
    );
    let mut runs = 0;
    let mut created = 0;
    loop {
        runs += 1;
        let summary = import(
            &client,
            &project_id,
            &rows,
            RunOptions::default(),
            |_| {},
            std::future::pending(),
        )
        .await;
        let Ok(summary) = summary else {
            // The reads before sending met a fault: run again, as a user would.
            assert!(runs < 20, "{summary:?}");
            continue;
        };
        assert!(summary.refused.is_empty(), "{:?}", summary.refused);
        assert_eq!(summary.rate_limited, 0);
        created += summary.created.len();
        if summary.complete() {
            break;
        }
        assert!(runs < 20, "still not done after {runs} runs: {summary:?}");
    }
    service.set_faults(&Faults::default()).await;
    let domains = client.domains(&project_id).await.unwrap();
    assert_eq!(domains.len(), 120);
    assert!(created <= 120);
}

/// A platform that refuses connections until `back_at` on Tokio's clock (for ever when
/// `None`), then adds every domain it is sent, once per hostname.
struct Flaky {
    back_at: Option<tokio::time::Instant>,
    sent_while_down: std::sync::atomic::AtomicUsize,
    created: std::sync::Mutex<Vec<String>>,
}

impl domain_desk_client::Transport for Flaky {
    fn send(
        &self,
        request: &domain_desk_client::ApiRequest,
    ) -> futures::future::BoxFuture<
        'static,
        Result<domain_desk_client::WireResponse, domain_desk_client::TransportError>,
    > {
        use std::sync::atomic::Ordering;
        if self
            .back_at
            .is_none_or(|at| tokio::time::Instant::now() < at)
        {
            self.sent_while_down.fetch_add(1, Ordering::SeqCst);
            return Box::pin(async {
                Err(domain_desk_client::TransportError::Network(
                    "connection refused".into(),
                ))
            });
        }
        let body: AddDomain =
            serde_json::from_slice(request.body.as_deref().unwrap_or_default()).expect("a body");
        let mut created = self.created.lock().unwrap();
        let status = if created.contains(&body.hostname) {
            reqwest::StatusCode::CONFLICT
        } else {
            created.push(body.hostname.clone());
            reqwest::StatusCode::CREATED
        };
        let json = if status.is_success() {
            serde_json::json!({
                "hostname": body.hostname, "unicode_hostname": body.hostname,
                "project_id": "prj_1", "apex": false, "role": "alias", "redirect": null,
                "status": "pending_verification",
                "dns_record": {"type": "CNAME", "name": "www", "value": "t.platform.test", "ttl": 3600},
                "verification": {"checked_at": null, "error": null},
                "certificate": {"status": "none", "started_at": null, "issued_at": null,
                                "expires_at": null, "error": null},
                "created_at": "2026-01-01T00:00:00Z"
            })
        } else {
            serde_json::json!({"error": {"code": "domain_already_attached", "message": "taken"}})
        };
        let response = domain_desk_client::WireResponse {
            status,
            headers: reqwest::header::HeaderMap::new(),
            body: serde_json::to_vec(&json).unwrap().into(),
        };
        Box::pin(async move { Ok(response) })
    }
}

/// Ten rows for a client whose platform is `flaky`, and the run's outcome: its summary, every
/// progress it reported, and how long it took on Tokio's (paused) clock.
async fn run_against(
    flaky: std::sync::Arc<Flaky>,
    options: RunOptions,
    stop: impl std::future::Future<Output = ()>,
) -> (
    domain_desk_bulk::Summary,
    Vec<domain_desk_bulk::Progress>,
    std::time::Duration,
) {
    struct Shared(std::sync::Arc<Flaky>);
    impl domain_desk_client::Transport for Shared {
        fn send(
            &self,
            request: &domain_desk_client::ApiRequest,
        ) -> futures::future::BoxFuture<
            'static,
            Result<domain_desk_client::WireResponse, domain_desk_client::TransportError>,
        > {
            self.0.send(request)
        }
    }
    let queue = domain_desk_client::QueueConfig {
        limits: Plan::Business.default_limits(),
        sync_on_start: false,
        ..domain_desk_client::QueueConfig::default()
    };
    let client = Client::with_transport(queue, Shared(flaky)).expect("client");
    let to_send = (0..10)
        .map(|i| plan::PlannedRow {
            line: i + 1,
            hostname: format!("r{i}.example.com"),
            redirect_to: None,
            idempotency_key: format!("key-{i}"),
        })
        .collect();
    let plan = domain_desk_bulk::ImportPlan {
        skipped: Vec::new(),
        to_send,
        already_present: Vec::new(),
    };
    let started = tokio::time::Instant::now();
    let mut seen = Vec::new();
    let summary = domain_desk_bulk::run::run(
        &client,
        "prj_1",
        plan,
        options,
        |progress| seen.push(progress.clone()),
        stop,
    )
    .await;
    (summary, seen, started.elapsed())
}

/// The service goes away for 20 s in the middle of an import: the rows wait, one try at a
/// time with a growing pause, the progress says so with its countdown, and once it is back
/// every row is added, each once.
#[tokio::test(start_paused = true)]
async fn rows_wait_for_a_platform_that_went_away_and_go_on_when_it_is_back() {
    let flaky = std::sync::Arc::new(Flaky {
        back_at: Some(tokio::time::Instant::now() + std::time::Duration::from_secs(20)),
        sent_while_down: Default::default(),
        created: Default::default(),
    });
    let (summary, seen, took) =
        run_against(flaky.clone(), RunOptions::default(), std::future::pending()).await;
    assert_eq!(summary.created.len(), 10, "{summary:?}");
    assert!(summary.unfinished.is_empty(), "{summary:?}");
    assert_eq!(flaky.created.lock().unwrap().len(), 10);
    assert!(took >= std::time::Duration::from_secs(20), "{took:?}");
    assert!(took < std::time::Duration::from_secs(40), "{took:?}");
    // Tries while it was down: the first rows and the queue's own few retries, then one row
    // at a time after 1, 2, 4, 8 … s, not every row every time.
    let down = flaky
        .sent_while_down
        .load(std::sync::atomic::Ordering::SeqCst);
    assert!(down < 30, "{down} sends to a platform that was down");
    let waits: Vec<&domain_desk_bulk::run::Reconnecting> = seen
        .iter()
        .filter_map(|p| p.reconnecting.as_ref())
        .collect();
    assert!(
        !waits.is_empty(),
        "the progress never said it was reconnecting"
    );
    assert!(waits.iter().any(|w| w.attempts >= 3), "{waits:?}");
    assert!(
        waits
            .iter()
            .all(|w| w.gives_up_in <= std::time::Duration::from_secs(120)
                && w.error.contains("connection refused")),
        "{waits:?}"
    );
    // The countdown moves every second between tries, not only at them.
    let gaps = waits.windows(2).map(|pair| {
        pair[1]
            .unreachable_for
            .saturating_sub(pair[0].unreachable_for)
    });
    let longest = gaps.max().unwrap();
    assert!(
        longest <= std::time::Duration::from_millis(1100),
        "{longest:?} without a word"
    );
    assert_eq!(seen.last().unwrap().reconnecting, None);
}

/// A platform that stays away: after `reconnect_for` the rows are not done, and the run
/// ends then rather than trying each row again.
#[tokio::test(start_paused = true)]
async fn rows_are_not_done_once_the_platform_stayed_away_for_reconnect_for() {
    let flaky = std::sync::Arc::new(Flaky {
        back_at: None,
        sent_while_down: Default::default(),
        created: Default::default(),
    });
    let options = RunOptions {
        reconnect_for: std::time::Duration::from_secs(30),
        ..RunOptions::default()
    };
    let (summary, _, took) = run_against(flaky.clone(), options, std::future::pending()).await;
    assert_eq!(summary.unfinished.len(), 10, "{summary:?}");
    assert!(
        summary
            .unfinished
            .iter()
            .all(|r| r.reason.contains("connection refused") && !r.rate_limited),
        "{summary:?}"
    );
    assert!(took >= std::time::Duration::from_secs(30), "{took:?}");
    assert!(took < std::time::Duration::from_secs(60), "{took:?}");
    let down = flaky
        .sent_while_down
        .load(std::sync::atomic::Ordering::SeqCst);
    assert!(down < 30, "{down} sends");
}

/// Ctrl-C while rows wait for the platform ends the wait at once.
#[tokio::test(start_paused = true)]
async fn stopping_ends_the_wait_for_the_platform_at_once() {
    let flaky = std::sync::Arc::new(Flaky {
        back_at: None,
        sent_while_down: Default::default(),
        created: Default::default(),
    });
    let stop = tokio::time::sleep(std::time::Duration::from_secs(5));
    let (summary, _, took) = run_against(flaky, RunOptions::default(), stop).await;
    assert!(summary.stopped);
    assert_eq!(summary.unfinished.len(), 10, "{summary:?}");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

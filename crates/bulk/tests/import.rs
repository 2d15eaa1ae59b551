//! Imports against the real local service, started in-process on loopback: what a rerun
//! reports after a lost answer, refusals before anything is sent, the platform's own
//! refusals, Ctrl-C, and faults on the wire.

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
        let answer = reqwest::Client::new()
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

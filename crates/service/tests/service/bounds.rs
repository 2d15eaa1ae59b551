//! Bounded history: what grows with use (deploys, remembered idempotent answers) is kept only
//! up to the service's `HistoryLimits`, the oldest dropped first.

use axum::body::Body;
use axum::http::{Method, Request};
use domain_desk_api::Plan;
use domain_desk_service::store::idempotency;
use domain_desk_service::{HistoryLimits, ServiceSettings};
use serde_json::json;

use crate::common::TestService;

fn with_history(history: HistoryLimits) -> TestService {
    TestService::with_settings(ServiceSettings {
        history,
        ..ServiceSettings::default()
    })
}

#[tokio::test]
async fn a_project_keeps_only_its_newest_deploys() {
    let service = with_history(HistoryLimits {
        deploys_per_project: 3,
        ..HistoryLimits::default()
    });
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "often").await;
    let mut ids = Vec::new();
    for n in 0..6 {
        let reply = service
            .post(
                &format!("/v1/projects/{project}/deploys"),
                &key,
                json!({"files": {"index.html": format!("<h1>{n}</h1>")}}),
            )
            .await;
        reply.expect(201);
        ids.push(reply.body["id"].as_str().unwrap().to_owned());
    }
    let list = service
        .get(&format!("/v1/projects/{project}/deploys"), &key)
        .await;
    list.expect(200);
    // on a frozen clock the list's order among equal times is by id: compare as sets
    let mut kept: Vec<&str> = list.body["deploys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|deploy| deploy["id"].as_str().unwrap())
        .collect();
    kept.sort_unstable();
    let mut newest: Vec<&str> = ids[3..].iter().map(String::as_str).collect();
    newest.sort_unstable();
    assert_eq!(kept, newest);
    let project = service.get(&format!("/v1/projects/{project}"), &key).await;
    assert_eq!(project.body["last_deploy"]["id"], ids[5].as_str());
}

/// A keyed `POST /v1/projects` that is refused (an empty name): remembered, and creates nothing.
fn refused_keyed_post(key: &str, idempotency_key: &str) -> Request<Body> {
    Request::builder()
        .method(Method::POST)
        .uri("/v1/projects")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", idempotency_key)
        .body(Body::from(r#"{"name": ""}"#))
        .unwrap()
}

/// How many answers are remembered once the writer has got to the trim that runs beside the
/// request that triggered it: waits (yielding) until at most `most`, or gives up and says
/// how many.
async fn remembered_once_trimmed(service: &TestService, most: usize) -> usize {
    let mut remembered = usize::MAX;
    for _ in 0..1000 {
        remembered = service
            .state
            .store()
            .read(idempotency::count)
            .await
            .unwrap();
        if remembered <= most {
            break;
        }
        // The trim runs batch after batch on the store's writer thread: wait for the writer to
        // come round once (a busy machine can take many yields to finish one batch).
        service.state.store().write(|_| Ok(())).await.unwrap();
    }
    remembered
}

#[tokio::test]
async fn remembered_idempotent_answers_are_bounded_even_on_a_frozen_clock() {
    let bound = 5;
    let history = HistoryLimits {
        idempotency_answers: bound,
        ..HistoryLimits::default()
    };
    let trim_every = HistoryLimits::IDEMPOTENCY_TRIM_EVERY as usize;
    let service = with_history(history);
    let key = service.key(Plan::Enterprise).await;
    let sent = trim_every + 44;
    for n in 0..sent {
        // a refusal is remembered too, and creates nothing
        let reply = service
            .request(refused_keyed_post(&key, &format!("greedy-{n}")))
            .await;
        reply.expect(422);
    }
    let most = bound + trim_every;
    let remembered = remembered_once_trimmed(&service, most).await;
    assert!(
        remembered <= most,
        "{remembered} answers remembered after {sent} keyed requests, bound {bound}"
    );
}

#[tokio::test]
async fn a_large_excess_is_forgotten_batch_after_batch_from_one_check() {
    let bound = 5;
    let service = with_history(HistoryLimits {
        idempotency_answers: bound,
        ..HistoryLimits::default()
    });
    let key = service.key(Plan::Enterprise).await;
    // more than two batches' worth already remembered (say, from a run with a larger bound)
    let excess = 1_300;
    let answers = service.state.store().answers().clone();
    service
        .state
        .store()
        .write(move |tx| {
            let created_at = domain_desk_service::store::time::to_sql(chrono::Utc::now());
            for n in 0..excess {
                let answer = idempotency::NewAnswer {
                    fingerprint: &[7; 32],
                    status: 201,
                    body: b"{}",
                    created_at: &created_at,
                };
                let key = idempotency::AnswerKey::new("earlier", &format!("earlier-{n}"));
                idempotency::put(tx, &answers, &key, &answer)?;
            }
            Ok(())
        })
        .await
        .unwrap();
    // the first keyed request checks (no check has run yet)
    service
        .request(refused_keyed_post(&key, "the-one"))
        .await
        .expect(422);
    let remembered = remembered_once_trimmed(&service, bound + 1).await;
    assert!(
        remembered <= bound + 1,
        "{remembered} answers remembered after one check, bound {bound}"
    );
    // the index of answers in memory forgot the same rows (read on the writer's thread, where
    // it changes with the table)
    let answers = service.state.store().answers().clone();
    let (rows, indexed) = service
        .state
        .store()
        .write(move |tx| Ok((idempotency::count(tx)?, answers.len())))
        .await
        .unwrap();
    assert_eq!(indexed, rows);
}

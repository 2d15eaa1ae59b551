//! `Idempotency-Key` on POST: replay within 24 hours, refusal on a different request, scope
//! per API key, expiry on the service clock.

use axum::body::Body;
use axum::http::{Method, Request};
use domain_desk_api::Plan;

use crate::common::{Reply, TestService};

async fn post_with_key(service: &TestService, key: &str, idem: &str, body: &str) -> Reply {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/v1/projects")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", idem)
        .body(Body::from(body.to_owned()))
        .unwrap();
    service.request(request).await
}

async fn count_named(service: &TestService, key: &str, name: &str) -> usize {
    service.get("/v1/projects", key).await.body["projects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == name)
        .count()
}

#[tokio::test]
async fn the_same_request_gets_the_first_answer_again() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let first = post_with_key(&service, &key, "k-1", r#"{"name":"idem"}"#).await;
    first.expect(201);
    assert_eq!(first.header("idempotent-replayed"), None);
    // the same JSON written differently is the same request
    let second = post_with_key(&service, &key, "k-1", r#"{ "name" : "idem" }"#).await;
    second.expect(201);
    assert_eq!(second.body, first.body);
    assert_eq!(second.header("idempotent-replayed"), Some("true"));
    assert!(second.header("x-ratelimit-remaining").is_some());
    assert_eq!(count_named(&service, &key, "idem").await, 1);
}

#[tokio::test]
async fn errors_are_replayed_too() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let first = post_with_key(&service, &key, "bad-1", r#"{"name":""}"#).await;
    first.expect_error(422, "validation_failed");
    let again = post_with_key(&service, &key, "bad-1", r#"{"name":""}"#).await;
    again.expect_error(422, "validation_failed");
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
}

#[tokio::test]
async fn a_different_request_under_the_same_key_is_refused() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    post_with_key(&service, &key, "k-2", r#"{"name":"one"}"#)
        .await
        .expect(201);
    post_with_key(&service, &key, "k-2", r#"{"name":"two"}"#)
        .await
        .expect_error(422, "idempotency_key_reused");
    assert_eq!(count_named(&service, &key, "two").await, 0);
}

#[tokio::test]
async fn keys_are_scoped_per_api_key() {
    let service = TestService::new();
    let pro = service.key(Plan::Pro).await;
    let business = service.key(Plan::Business).await;
    let a = post_with_key(&service, &pro, "shared", r#"{"name":"scoped"}"#).await;
    let b = post_with_key(&service, &business, "shared", r#"{"name":"scoped"}"#).await;
    a.expect(201);
    b.expect(201);
    assert_ne!(a.body["id"], b.body["id"]);
}

#[tokio::test]
async fn answers_are_remembered_for_24_hours_of_the_clock() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let first = post_with_key(&service, &key, "k-3", r#"{"name":"daily"}"#).await;
    service.advance(24.0 * 3600.0 - 1.0);
    let replay = post_with_key(&service, &key, "k-3", r#"{"name":"daily"}"#).await;
    assert_eq!(replay.body["id"], first.body["id"]);
    service.advance(2.0);
    let fresh = post_with_key(&service, &key, "k-3", r#"{"name":"daily"}"#).await;
    fresh.expect(201);
    assert_ne!(fresh.body["id"], first.body["id"]);
    assert_eq!(count_named(&service, &key, "daily").await, 2);
}

#[tokio::test]
async fn a_malformed_key_is_refused() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let long = "k".repeat(256);
    for bad in ["", "  ", long.as_str(), "has space"] {
        post_with_key(&service, &key, bad, r#"{"name":"x"}"#)
            .await
            .expect_error(422, "validation_failed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn simultaneous_copies_act_once() {
    let service = std::sync::Arc::new(TestService::new());
    let key = std::sync::Arc::new(service.key(Plan::Pro).await);
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (service, key) = (service.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            let answer = post_with_key(&service, &key, "race", r#"{"name":"race"}"#).await;
            (answer.status, answer.body)
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status.as_u16() {
            201 => ids.push(body["id"].clone()),
            // a copy sent while the first still runs is told to retry, and acts not
            409 => assert_eq!(body["error"]["code"], "idempotency_key_in_use", "{body}"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert!(!ids.is_empty(), "the first copy was answered");
    ids.dedup();
    assert_eq!(ids.len(), 1, "every answer names the same project");
    assert_eq!(count_named(&service, &key, "race").await, 1);
}

#[tokio::test]
async fn a_replay_is_byte_identical_and_the_table_holds_no_api_key() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let first = post_with_key(&service, &key, "bytes-1", r#"{"name":"bytes"}"#).await;
    first.expect(201);
    let again = post_with_key(&service, &key, "bytes-1", r#"{"name":"bytes"}"#).await;
    assert_eq!(again.raw, first.raw);
    let stored: Vec<[Vec<u8>; 4]> = service
        .state
        .store()
        .read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT key, fingerprint, body, CAST(created_at AS BLOB) FROM idempotency",
            )?;
            let rows = stmt
                .query_map([], |row| {
                    Ok([row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?])
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
        .await
        .unwrap();
    assert!(!stored.is_empty());
    let in_clear = |column: &[u8]| column.windows(key.len()).any(|part| part == key.as_bytes());
    for row in stored {
        assert!(
            !row.iter().any(|column| in_clear(column)),
            "the API key is stored in clear"
        );
        assert_eq!(row[0].len(), 16, "an answer is named by 16 bytes");
    }
}

#[tokio::test]
async fn remembered_answers_are_found_again_after_a_restart() {
    // the answers' index lives in memory: a restart must build it again from the file
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let (key, created, refused) = {
        let service = TestService::with_file(&path);
        let key = service.key(Plan::Pro).await;
        let created = post_with_key(&service, &key, "before-restart", r#"{"name":"kept"}"#).await;
        created.expect(201);
        let refused = post_with_key(&service, &key, "refused-before", r#"{"name":""}"#).await;
        refused.expect_error(422, "validation_failed");
        (key, created, refused)
    };
    let service = TestService::with_file(&path);
    let again = post_with_key(&service, &key, "before-restart", r#"{"name":"kept"}"#).await;
    assert_eq!(again.raw, created.raw);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let refused_again = post_with_key(&service, &key, "refused-before", r#"{"name":""}"#).await;
    assert_eq!(refused_again.raw, refused.raw);
    assert_eq!(refused_again.header("idempotent-replayed"), Some("true"));
    post_with_key(&service, &key, "before-restart", r#"{"name":"other"}"#)
        .await
        .expect_error(422, "idempotency_key_reused");
    assert_eq!(count_named(&service, &key, "kept").await, 1);
    assert_eq!(count_named(&service, &key, "other").await, 0);
}

#[tokio::test]
async fn a_copy_sent_while_the_first_runs_gets_409_with_retry_after() {
    let service = std::sync::Arc::new(TestService::new());
    let key = service.key(Plan::Pro).await;
    // The first copy's body arrives in two parts; between them it is running.
    let (send, receive) = tokio::sync::mpsc::channel::<Result<bytes::Bytes, std::io::Error>>(1);
    let stream = futures::stream::unfold(receive, |mut receive| async move {
        receive.recv().await.map(|chunk| (chunk, receive))
    });
    let request = Request::builder()
        .method(Method::POST)
        .uri("/v1/projects")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", "slow")
        .body(Body::from_stream(stream))
        .unwrap();
    let first = {
        let service = service.clone();
        tokio::spawn(async move { service.request(request).await })
    };
    send.send(Ok(bytes::Bytes::from_static(b"{\"name\":")))
        .await
        .unwrap();
    // The first copy holds its key once its body is being read.
    let mut spins = 0u64;
    while service.state.idempotency_in_flight().is_empty() {
        spins += 1;
        assert!(spins < 50_000_000, "the first copy never started");
        tokio::task::yield_now().await;
    }
    let refused = post_with_key(&service, &key, "slow", r#"{"name":"slow"}"#).await;
    refused.expect_error(409, "idempotency_key_in_use");
    assert_eq!(refused.header("retry-after"), Some("1"));
    send.send(Ok(bytes::Bytes::from_static(b"\"slow\"}")))
        .await
        .unwrap();
    drop(send);
    let first = first.await.unwrap();
    first.expect(201);
    // once the first ended, a retry replays its answer
    let retry = post_with_key(&service, &key, "slow", r#"{"name":"slow"}"#).await;
    assert_eq!(retry.raw, first.raw);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(count_named(&service, &key, "slow").await, 1);
}

//! The read cache held to the plain path: an answer served from memory is the handler's own
//! answer at that generation (status, body and every header the handler set), for each `GET`
//! of `/v1`, and after a write the next `GET` is computed again.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::http::app;
use crate::http::state::AppState;
use crate::{Clock, ServiceSettings};

async fn send(
    router: &Router,
    method: Method,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> (StatusCode, HeaderMap, Bytes) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", "read-cache-check-1")
        .body(body.map_or_else(Body::empty, |body| Body::from(body.to_string())))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (parts.status, parts.headers, body)
}

/// The headers of an answer but the gate's, which count each request.
fn handler_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), format!("{value:?}")))
        .filter(|(name, _)| !name.contains("ratelimit") && name != "retry-after")
        .collect();
    kept.sort();
    kept
}

#[tokio::test]
async fn a_cached_answer_is_the_handlers_answer_and_a_write_makes_it_computed_again() {
    let clock = Clock::frozen_at("2026-03-02T10:00:10Z".parse().unwrap());
    let state = AppState::open(ServiceSettings::default(), clock).unwrap();
    assert!(state.settings().read_cache, "the cache is on by default");
    let (_, key) = state.demo_keys().await.unwrap().remove(0);
    let router = app(state);

    let (status, _, projects) = send(&router, Method::GET, "/v1/projects", &key, None).await;
    assert_eq!(status, StatusCode::OK);
    let projects: Value = serde_json::from_slice(&projects).unwrap();
    let id = projects["projects"][0]["id"]
        .as_str()
        .expect("a demo project");
    let paths = [
        "/v1/account".to_owned(),
        "/v1/projects?limit=100".to_owned(),
        format!("/v1/projects/{id}"),
        format!("/v1/projects/{id}/domains"),
        format!("/v1/projects/{id}/domains?limit=1000"),
        format!("/v1/projects/{id}/deploys"),
        format!("/v1/projects/{id}/domain_config"),
        format!("/v1/projects/{id}/removed_domains"),
    ];
    let mut cached = 0;
    for path in &paths {
        let computed = send(&router, Method::GET, path, &key, None).await;
        let remembered = send(&router, Method::GET, path, &key, None).await;
        assert_eq!(computed.0, remembered.0, "{path}");
        assert_eq!(computed.2, remembered.2, "{path}");
        assert_eq!(
            handler_headers(&computed.1),
            handler_headers(&remembered.1),
            "{path}"
        );
        cached += usize::from(computed.0 == StatusCode::OK);
    }
    assert!(cached >= 5, "most of these answers are kept");

    // A write moves the generation on: the next answer is computed, then kept again.
    let path = "/v1/projects?limit=100";
    let before = send(&router, Method::GET, path, &key, None).await.2;
    let body = json!({"name": "Read cache check"});
    let (status, _, _) = send(&router, Method::POST, "/v1/projects", &key, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED);
    let after = send(&router, Method::GET, path, &key, None).await.2;
    assert_ne!(before, after);
    assert!(String::from_utf8_lossy(&after).contains("Read cache check"));
    assert_eq!(send(&router, Method::GET, path, &key, None).await.2, after);
}

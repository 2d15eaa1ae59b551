//! The set-up most tests of the service and the doctor start from, written once: a project
//! with a deployed page, and hostnames attached to it. Sent through the service's own router
//! (no socket), as the API's callers would send them.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use domain_desk_service::{AppState, app};
use serde_json::{Value, json};
use tower::ServiceExt;

/// A project named `name` of `key`'s account with one deploy of a page (`<h1>hi</h1>`); its
/// id.
///
/// # Panics
/// When the service refuses a step (the message says which and why).
pub async fn deployed_project(state: &AppState, key: &str, name: &str) -> String {
    let project = post(state, key, "/v1/projects", json!({"name": name})).await;
    let id = project["id"].as_str().expect("a project id").to_owned();
    post(
        state,
        key,
        &format!("/v1/projects/{id}/deploys"),
        json!({"files": {"index.html": "<h1>hi</h1>"}}),
    )
    .await;
    id
}

/// [`deployed_project`] with each of `hostnames` attached to it; the project's id.
///
/// # Panics
/// As [`deployed_project`].
pub async fn project_with_domains(
    state: &AppState,
    key: &str,
    name: &str,
    hostnames: &[&str],
) -> String {
    let id = deployed_project(state, key, name).await;
    for hostname in hostnames {
        post(
            state,
            key,
            &format!("/v1/projects/{id}/domains"),
            json!({"hostname": hostname}),
        )
        .await;
    }
    id
}

/// `POST path` with `body` as `key`; the answer's JSON, which must be `201 Created`.
async fn post(state: &AppState, key: &str, path: &str, body: Value) -> Value {
    let request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .expect("a request");
    let response = app(state.clone())
        .oneshot(request)
        .await
        .unwrap_or_else(|error| match error {});
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("the answer's body");
    assert_eq!(
        status,
        StatusCode::CREATED,
        "POST {path}: {}",
        String::from_utf8_lossy(&bytes)
    );
    serde_json::from_slice(&bytes).expect("a JSON answer")
}

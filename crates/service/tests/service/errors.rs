//! Every failure is the contract's JSON error: bad JSON, wrong types, wrong content type, too
//! large bodies, unknown paths and methods.

use axum::body::Body;
use axum::http::{Method, Request};
use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

fn raw_post(path: &str, key: &str, content_type: Option<&str>, body: Vec<u8>) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("authorization", format!("Bearer {key}"));
    if let Some(content_type) = content_type {
        builder = builder.header("content-type", content_type);
    }
    builder.body(Body::from(body)).unwrap()
}

#[tokio::test]
async fn malformed_json_is_400_invalid_json() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    for body in [&b"{\"name\":"[..], b"not json", b"{\"name\": \"x\",}", b""] {
        let reply = service
            .request(raw_post(
                "/v1/projects",
                &key,
                Some("application/json"),
                body.to_vec(),
            ))
            .await;
        reply.expect_error(400, "invalid_json");
        assert!(reply.header("x-ratelimit-remaining").is_some());
    }
}

#[tokio::test]
async fn wrong_shapes_are_422_validation_failed() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    for body in [
        json!([]),
        json!("name"),
        json!({"name": ["a"]}),
        json!({"name": null}),
    ] {
        service
            .post("/v1/projects", &key, body)
            .await
            .expect_error(422, "validation_failed");
    }
}

#[tokio::test]
async fn a_body_needs_the_json_content_type() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        service
            .request(raw_post(
                "/v1/projects",
                &key,
                content_type,
                b"{\"name\":\"x\"}".to_vec(),
            ))
            .await
            .expect_error(415, "unsupported_media_type");
    }
    service
        .request(raw_post(
            "/v1/projects",
            &key,
            Some("application/json; charset=utf-8"),
            b"{\"name\":\"x\"}".to_vec(),
        ))
        .await
        .expect(201);
}

#[tokio::test]
async fn a_body_over_2_mb_is_413() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let big = format!("{{\"name\":\"{}\"}}", "a".repeat(3 * 1024 * 1024)).into_bytes();
    let reply = service
        .request(raw_post(
            "/v1/projects",
            &key,
            Some("application/json"),
            big.clone(),
        ))
        .await;
    reply.expect_error(413, "payload_too_large");
    assert!(reply.header("x-ratelimit-limit").is_some());
    // also without a declared length (a streamed body)
    let stream = futures::stream::iter(
        big.chunks(64 * 1024)
            .map(|chunk| Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(chunk)))
            .collect::<Vec<_>>(),
    );
    let request = Request::builder()
        .method(Method::POST)
        .uri("/v1/projects")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap();
    service
        .request(request)
        .await
        .expect_error(413, "payload_too_large");
    // and on a POST with an Idempotency-Key, which reads the body first
    let mut with_key = raw_post("/v1/projects", &key, Some("application/json"), big);
    with_key
        .headers_mut()
        .insert("idempotency-key", "big-1".parse().unwrap());
    service
        .request(with_key)
        .await
        .expect_error(413, "payload_too_large");
}

#[tokio::test]
async fn unknown_paths_are_404_json() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let reply = service.get("/v1/nothing/here", &key).await;
    reply.expect_error(404, "not_found");
    assert!(reply.header("x-ratelimit-limit").is_some());
    service
        .call(Method::GET, "/nothing", None, None)
        .await
        .expect_error(404, "not_found");
    service
        .call(Method::GET, "/_local/nothing", None, None)
        .await
        .expect_error(404, "not_found");
}

#[tokio::test]
async fn wrong_methods_are_405_json() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let reply = service
        .call(Method::DELETE, "/v1/projects", Some(&key), None)
        .await;
    reply.expect_error(405, "method_not_allowed");
    assert!(reply.header("x-ratelimit-remaining").is_some());
    service
        .call(Method::PATCH, "/v1/account", Some(&key), None)
        .await
        .expect_error(405, "method_not_allowed");
    service
        .call(Method::DELETE, "/_local/clock", None, None)
        .await
        .expect_error(405, "method_not_allowed");
}

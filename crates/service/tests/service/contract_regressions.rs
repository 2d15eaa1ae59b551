//! Answers the contract fuzzing (schemathesis, `cargo xtask contract`) found out of line with
//! the OpenAPI document, each pinned by the request that showed it.

use axum::http::Method;
use domain_desk_api::Plan;
use serde_json::json;

use crate::common::TestService;

#[tokio::test]
async fn an_array_body_is_not_read_as_the_object_it_resembles() {
    // serde reads a struct from an array of its fields; the document allows only objects.
    let service = TestService::new();
    let key = service.key(Plan::Business).await;
    let project = service.deployed_project(&key, "arrays").await;
    for (method, path, body) in [
        (Method::POST, "/v1/projects".to_owned(), json!(["shop"])),
        (
            Method::POST,
            format!("/v1/projects/{project}/deploys"),
            json!([]),
        ),
        (
            Method::POST,
            format!("/v1/projects/{project}/domains"),
            json!(["shop.example.com"]),
        ),
        (
            Method::PUT,
            format!("/v1/projects/{project}/domain_config"),
            json!([null, []]),
        ),
        // Nested: a redirect rule as the array of its fields.
        (
            Method::PUT,
            format!("/v1/projects/{project}/domain_config"),
            json!({"primary": null, "redirects": [["old.example.com", "example.com", 301]]}),
        ),
    ] {
        let reply = service
            .call(method.clone(), &path, Some(&key), Some(body))
            .await;
        reply.expect_error(422, "validation_failed");
        assert!(
            reply.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("as an array")),
            "{method} {path}: {}",
            reply.body
        );
    }
    for (method, path, body) in [
        (Method::POST, "/_local/clock/advance", json!([5])),
        (Method::PUT, "/_local/faults", json!([0, 0.5, 0])),
        (Method::POST, "/_local/dns", json!(["example.dev"])),
    ] {
        let reply = service.call(method.clone(), path, None, Some(body)).await;
        reply.expect_error(422, "validation_failed");
        assert!(
            reply.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("as an array")),
            "{method} {path}: {}",
            reply.body
        );
    }
    // Nothing was created by the refused requests.
    let projects = service.get("/v1/projects", &key).await;
    assert!(
        projects.body["projects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["name"] != "shop")
    );
}

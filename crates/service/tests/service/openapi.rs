//! `/openapi.json` describes every route the router serves, and nothing it does not; every
//! `/v1` response documents the rate-limit headers.

use std::collections::BTreeSet;

use axum::http::Method;
use domain_desk_api::Plan;
use domain_desk_service::http::routed_paths;
use serde_json::Value;

use crate::common::TestService;

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

fn concrete(path: &str) -> String {
    path.replace("{project_id}", "prj_probe")
        .replace("{hostname}", "www.example.com")
}

/// The router's paths and the document's, compared both ways: a route added without
/// documentation fails here as much as a documented path nothing serves.
#[test]
fn the_router_serves_exactly_the_documented_paths() {
    let service = TestService::new();
    let routed = routed_paths(&service.router);
    assert!(routed.contains("/v1/projects/{project_id}/domains/{hostname}"));
    assert!(routed.contains("/openapi.json"));
    let documented: BTreeSet<String> = domain_desk_service::openapi_document()
        .paths
        .paths
        .keys()
        .cloned()
        .collect();
    let undocumented: Vec<&String> = routed.difference(&documented).collect();
    let unserved: Vec<&String> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty(),
        "served but not documented: {undocumented:?}"
    );
    assert!(
        unserved.is_empty(),
        "documented but not served: {unserved:?}"
    );
}

#[tokio::test]
async fn every_route_is_documented_and_every_documented_route_is_served() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let doc = service.call(Method::GET, "/openapi.json", None, None).await;
    doc.expect(200);
    assert!(doc.body["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc.body["paths"].as_object().unwrap();
    for expected in [
        "/v1/account",
        "/v1/rate_limit",
        "/v1/projects",
        "/v1/projects/{project_id}",
        "/v1/projects/{project_id}/deploys",
        "/v1/projects/{project_id}/domains",
        "/v1/projects/{project_id}/domains/{hostname}",
        "/v1/projects/{project_id}/domains/{hostname}/verify",
        "/v1/projects/{project_id}/domain_config",
        "/_local/info",
        "/_local/clock",
        "/_local/clock/advance",
        "/_local/faults",
        "/_local/reset",
        "/openapi.json",
    ] {
        assert!(paths.contains_key(expected), "{expected} is not documented");
    }
    for (path, item) in paths {
        for method in METHODS {
            let documented = item.get(method).is_some();
            let verb = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            let body = matches!(method, "post" | "put" | "patch").then(|| serde_json::json!({}));
            // reset would wipe the probe's state; its existence is checked by documentation
            if path == "/_local/reset" && documented {
                continue;
            }
            let reply = service.call(verb, &concrete(path), Some(&key), body).await;
            let status = reply.status.as_u16();
            if documented {
                assert_ne!(status, 405, "{method} {path} is documented but not served");
                if status == 404 {
                    assert!(
                        !reply.body["error"]["message"]
                            .as_str()
                            .unwrap_or("")
                            .starts_with("No such path"),
                        "{method} {path} is documented but not routed"
                    );
                }
            } else {
                assert_eq!(status, 405, "{method} {path} is served but not documented");
            }
        }
    }
}

#[tokio::test]
async fn paths_next_to_documented_ones_are_not_served() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    for path in [
        "/v1",
        "/v1/",
        "/v1/projects/prj_probe/deploys/dep_x",
        "/v1/projects/prj_probe/domains/www.example.com/certificate",
        "/v1/accounts",
        "/_local",
        "/_local/clock/rewind",
        "/openapi.yaml",
    ] {
        let reply = service.get(path, &key).await;
        reply.expect_error(404, "not_found");
    }
}

#[tokio::test]
async fn v1_responses_document_headers_and_errors() {
    let service = TestService::new();
    let doc = service
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .body;
    let mut checked = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/v1/") {
            continue;
        }
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let responses = operation["responses"].as_object().unwrap();
            for status in ["401", "403", "404", "429", "503"] {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} lacks {status}"
                );
            }
            for (status, response) in responses {
                for header in [
                    "X-RateLimit-Limit",
                    "X-RateLimit-Remaining",
                    "X-RateLimit-Reset",
                    "RateLimit",
                    "RateLimit-Policy",
                ] {
                    assert!(
                        response["headers"].get(header).is_some(),
                        "{method} {path} {status} lacks {header}"
                    );
                }
            }
            assert!(responses["429"]["headers"].get("Retry-After").is_some());
            if method == "post" {
                let params = operation["parameters"].as_array().unwrap();
                assert!(
                    params
                        .iter()
                        .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header"),
                    "{method} {path} lacks Idempotency-Key"
                );
            }
            if operation.get("requestBody").is_some() {
                for status in ["400", "413", "415", "422"] {
                    assert!(
                        responses.contains_key(status),
                        "{method} {path} lacks {status}"
                    );
                }
            }
            assert_eq!(operation["security"][0]["bearer"], Value::Array(vec![]));
            checked.insert(path.clone());
        }
    }
    // Every /v1 path the router serves had its operations checked.
    let served: BTreeSet<String> = routed_paths(&service.router)
        .into_iter()
        .filter(|path| path.starts_with("/v1/"))
        .collect();
    assert!(!served.is_empty());
    assert_eq!(checked, served);
}

#[tokio::test]
async fn error_schema_lists_every_code() {
    let service = TestService::new();
    let doc = service
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .body;
    let codes = doc["components"]["schemas"]["ErrorCode"].to_string();
    for code in [
        "rate_limited",
        "key_banned",
        "plan_upgrade_required",
        "deploy_required",
        "domain_taken",
        "invalid_redirect",
        "unsupported_redirect_status",
        "idempotency_key_reused",
        "payload_too_large",
    ] {
        assert!(codes.contains(code), "ErrorCode lacks {code}");
    }
}

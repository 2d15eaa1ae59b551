//! The control plane: info, clock, reset.

use axum::http::Method;
use domain_desk_api::Plan;
use serde_json::json;

use crate::common::{TestService, at};

#[tokio::test]
async fn info_names_the_platform_and_the_demo_keys() {
    let service = TestService::new();
    let info = service.call(Method::GET, "/_local/info", None, None).await;
    info.expect(200);
    assert_eq!(info.body["platform_domain"], "pages.local-platform.test");
    assert_eq!(
        info.body["platform_dns_target"],
        "cname.pages.local-platform.test"
    );
    assert_eq!(info.body["ca_identity"], "letsencrypt.org");
    for plan in Plan::ALL {
        assert_eq!(
            info.body["demo_keys"][plan.as_str()],
            service.key(plan).await.as_str()
        );
    }
    assert!(
        info.header("x-ratelimit-limit").is_none(),
        "/_local is not rate limited"
    );
}

#[tokio::test]
async fn the_clock_can_be_read_set_and_advanced() {
    let service = TestService::new();
    let clock = service.call(Method::GET, "/_local/clock", None, None).await;
    assert_eq!(
        clock.body,
        json!({"now": "2026-03-02T10:00:10Z", "speed": 0.0})
    );
    let set = service
        .call(
            Method::PUT,
            "/_local/clock",
            None,
            Some(json!({"now": "2027-01-01T00:00:00Z", "speed": 0})),
        )
        .await;
    set.expect(200);
    assert_eq!(service.state.now(), at("2027-01-01T00:00:00Z"));
    let advanced = service
        .call(
            Method::POST,
            "/_local/clock/advance",
            None,
            Some(json!({"seconds": 90})),
        )
        .await;
    advanced.expect(200);
    assert_eq!(advanced.body["now"], "2027-01-01T00:01:30Z");
    for bad in [
        json!({"now": "2027-01-01T00:00:00Z", "speed": -1}),
        json!({"now": "yesterday", "speed": 1}),
    ] {
        service
            .call(Method::PUT, "/_local/clock", None, Some(bad))
            .await
            .expect_error(422, "validation_failed");
    }
    service
        .call(
            Method::POST,
            "/_local/clock/advance",
            None,
            Some(json!({"seconds": -5})),
        )
        .await
        .expect_error(422, "validation_failed");
}

#[tokio::test]
async fn reset_returns_to_the_seed_with_the_same_keys() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let created = service
        .post("/v1/projects", &key, json!({"name": "temporary"}))
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    for _ in 0..20 {
        service.get("/v1/account", &key).await;
    }
    service
        .call(
            Method::PUT,
            "/_local/faults",
            None,
            Some(json!({"latency_ms": 5})),
        )
        .await
        .expect(200);
    let reset = service
        .call(Method::POST, "/_local/reset", None, Some(json!({})))
        .await;
    reset.expect(200);
    assert_eq!(reset.body["demo_keys"]["pro"], key.as_str());
    service
        .get(&format!("/v1/projects/{id}"), &key)
        .await
        .expect_error(404, "not_found");
    // fresh windows: the 404 above and this request are the only ones counted
    let account = service.get("/v1/account", &key).await;
    assert_eq!(account.int_header("x-ratelimit-remaining"), 298);
    let faults = service
        .call(Method::GET, "/_local/faults", None, None)
        .await;
    assert_eq!(
        faults.body,
        json!({"latency_ms": 0, "error_rate": 0.0, "drop_rate": 0.0})
    );
    assert_eq!(
        service.get("/v1/projects", &key).await.body["projects"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

/// The control plane is the local user's: a page in their browser must not drive it, neither
/// by a simple cross-site POST nor by DNS rebinding (a foreign name resolving to 127.0.0.1).
#[tokio::test]
async fn the_control_plane_refuses_foreign_hosts_and_simple_posts() {
    use axum::body::Body;
    use axum::http::Request;
    let service = TestService::new();
    let request = |method: Method, path: &str, host: Option<&str>, content_type: Option<&str>| {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(host) = host {
            builder = builder.header("host", host);
        }
        if let Some(content_type) = content_type {
            builder = builder.header("content-type", content_type);
        }
        builder.body(Body::from(r#"{"seconds": 1}"#)).unwrap()
    };
    for host in [
        "evil.example",
        "evil.example:8787",
        "192.168.1.5:8787",
        "127.0.0.1.nip.io",
    ] {
        service
            .request(request(Method::GET, "/_local/info", Some(host), None))
            .await
            .expect_error(403, "forbidden_host");
        service
            .request(request(
                Method::POST,
                "/_local/reset",
                Some(host),
                Some("application/json"),
            ))
            .await
            .expect_error(403, "forbidden_host");
    }
    for host in ["localhost:8787", "127.0.0.1:8787", "[::1]:8787"] {
        service
            .request(request(Method::GET, "/_local/info", Some(host), None))
            .await
            .expect(200);
    }
    // what an HTML form or a no-cors fetch can send: refused before anything happens
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        service
            .request(request(
                Method::POST,
                "/_local/clock/advance",
                Some("localhost:8787"),
                content_type,
            ))
            .await
            .expect_error(415, "unsupported_media_type");
    }
    service
        .request(request(
            Method::POST,
            "/_local/clock/advance",
            Some("localhost:8787"),
            Some("application/json"),
        ))
        .await
        .expect(200);
    // reset takes no body, but only as JSON; a method a path does not have is still 405
    service
        .request(request(
            Method::POST,
            "/_local/reset",
            Some("localhost"),
            None,
        ))
        .await
        .expect_error(415, "unsupported_media_type");
    service
        .request(request(
            Method::PUT,
            "/_local/info",
            Some("localhost"),
            None,
        ))
        .await
        .expect(405);
    // the /v1 API keeps its own rules (a key), whatever the Host
    service
        .request(request(
            Method::GET,
            "/v1/account",
            Some("evil.example"),
            None,
        ))
        .await
        .expect_error(401, "unauthorized");
}

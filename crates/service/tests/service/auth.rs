//! Authentication: `Authorization: Bearer`, 401 with a zero budget, accounts per plan.

use axum::http::Method;
use domain_desk_api::Plan;

use crate::common::TestService;

#[tokio::test]
async fn missing_or_unknown_key_is_401_with_a_zero_budget() {
    let service = TestService::new();
    for reply in [
        service.call(Method::GET, "/v1/account", None, None).await,
        service.get("/v1/account", "dd_pro_not-a-key").await,
        service.get("/v1/projects/prj_x/domains", "nope").await,
        service.get("/v1/no-such-thing", "nope").await,
    ] {
        reply.expect_error(401, "unauthorized");
        assert_eq!(reply.int_header("x-ratelimit-limit"), 0);
        assert_eq!(reply.int_header("x-ratelimit-remaining"), 0);
        // the end of the current minute (the clock is frozen at 10:00:10)
        assert_eq!(
            reply.int_header("x-ratelimit-reset"),
            crate::common::at("2026-03-02T10:01:00Z").timestamp()
        );
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    }
}

#[tokio::test]
async fn other_schemes_are_not_accepted() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let request = axum::http::Request::builder()
        .uri("/v1/account")
        .header("authorization", format!("Basic {key}"))
        .body(axum::body::Body::empty())
        .unwrap();
    service
        .request(request)
        .await
        .expect_error(401, "unauthorized");
    let lowercase = axum::http::Request::builder()
        .uri("/v1/account")
        .header("authorization", format!("bearer {key}"))
        .body(axum::body::Body::empty())
        .unwrap();
    service.request(lowercase).await.expect(200);
}

#[tokio::test]
async fn each_demo_key_is_its_plans_account() {
    let service = TestService::new();
    for plan in Plan::ALL {
        let key = service.key(plan).await;
        let reply = service.get("/v1/account", &key).await;
        reply.expect(200);
        assert_eq!(reply.body["plan"], plan.as_str());
        let limits = plan.default_limits();
        assert_eq!(reply.body["limits"]["per_minute"], limits.per_minute);
        assert_eq!(reply.body["limits"]["per_day"], limits.per_day);
        assert_eq!(
            reply.body["limits"]["max_domains_per_project"],
            limits.max_domains_per_project
        );
    }
    let enterprise = service
        .get("/v1/account", &service.key(Plan::Enterprise).await)
        .await;
    assert_eq!(enterprise.body["limits"]["per_minute"], 100_000);
    assert_eq!(enterprise.body["limits"]["per_day"], 10_000_000);
}

#[tokio::test]
async fn demo_keys_differ_per_plan() {
    let service = TestService::new();
    let mut keys = Vec::new();
    for plan in Plan::ALL {
        keys.push(service.key(plan).await);
    }
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 4);
}

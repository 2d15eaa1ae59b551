//! The limiter through the API, with the clock frozen and advanced: exact header values, the
//! window edges, the day window, the ban and its expiry, and `GET /v1/rate_limit`.

use domain_desk_api::Plan;

use crate::common::{TestService, at};

fn minute_end() -> i64 {
    at("2026-03-02T10:01:00Z").timestamp()
}

fn day_end() -> i64 {
    at("2026-03-03T00:00:00Z").timestamp()
}

#[tokio::test]
async fn headers_count_down_exactly_then_429() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for used in 1..=60u64 {
        let reply = service.get("/v1/account", &key).await;
        reply.expect(200);
        assert_eq!(reply.int_header("x-ratelimit-limit"), 60);
        assert_eq!(reply.int_header("x-ratelimit-remaining"), 60 - used as i64);
        assert_eq!(reply.int_header("x-ratelimit-reset"), minute_end());
        assert_eq!(
            reply.header("ratelimit-policy"),
            Some("\"minute\";q=60;w=60, \"day\";q=1000;w=86400")
        );
        let ietf = reply.header("ratelimit").unwrap();
        assert!(
            ietf.starts_with(&format!(
                "\"minute\";r={};t=50, \"day\";r={};t=",
                60 - used,
                1000 - used
            )),
            "{ietf}"
        );
    }
    let limited = service.get("/v1/account", &key).await;
    limited.expect_error(429, "rate_limited");
    // 10:00:10 → 10:01:00
    assert_eq!(limited.header("retry-after"), Some("50"));
    assert_eq!(limited.body["error"]["retry_after_seconds"], 50);
    assert_eq!(limited.body["error"]["window"], "minute");
    assert_eq!(limited.int_header("x-ratelimit-remaining"), 0);
    assert_eq!(limited.int_header("x-ratelimit-limit"), 60);
    assert_eq!(limited.int_header("x-ratelimit-reset"), minute_end());
}

#[tokio::test]
async fn retry_after_rounds_up_and_the_window_opens_exactly_at_the_minute() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    service.advance(49.5); // 10:00:59.5
    let limited = service.get("/v1/account", &key).await;
    limited.expect(429);
    assert_eq!(limited.header("retry-after"), Some("1"));
    service.advance(0.4999); // a hair before 10:01:00
    service.get("/v1/account", &key).await.expect(429);
    service.advance(0.0001); // 10:01:00 exactly
    let fresh = service.get("/v1/account", &key).await;
    fresh.expect(200);
    assert_eq!(fresh.int_header("x-ratelimit-remaining"), 59);
    assert_eq!(
        fresh.int_header("x-ratelimit-reset"),
        at("2026-03-02T10:02:00Z").timestamp()
    );
}

#[tokio::test]
async fn rejected_requests_consume_nothing() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    for _ in 0..5 {
        service.get("/v1/account", &key).await.expect(429);
    }
    let status = service.get("/v1/rate_limit", &key).await;
    status.expect(200);
    assert_eq!(status.body["day"]["remaining"], 940);
    assert_eq!(status.body["minute"]["remaining"], 0);
}

#[tokio::test]
async fn the_day_window_binds_and_limits_until_midnight() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    let mut sent = 0u64;
    while sent < 1000 {
        let this_minute = 60.min(1000 - sent);
        for used_this_minute in 1..=this_minute {
            let reply = service.get("/v1/account", &key).await;
            reply.expect(200);
            sent += 1;
            // the headers describe the window with fewer left
            let expected = (60 - used_this_minute).min(1000 - sent);
            assert_eq!(reply.int_header("x-ratelimit-remaining") as u64, expected);
        }
        service.advance(60.0);
    }
    // the minute has room, the day does not
    let limited = service.get("/v1/account", &key).await;
    limited.expect_error(429, "rate_limited");
    assert_eq!(limited.body["error"]["window"], "day");
    assert_eq!(limited.int_header("x-ratelimit-limit"), 1000);
    assert_eq!(limited.int_header("x-ratelimit-remaining"), 0);
    assert_eq!(limited.int_header("x-ratelimit-reset"), day_end());
    let now = service.state.now().timestamp();
    assert_eq!(
        limited
            .header("retry-after")
            .unwrap()
            .parse::<i64>()
            .unwrap(),
        day_end() - now
    );
    // after midnight both windows are fresh
    service
        .state
        .clock()
        .set(at("2026-03-03T00:00:00Z"), 0.0)
        .unwrap();
    let fresh = service.get("/v1/account", &key).await;
    fresh.expect(200);
    assert_eq!(fresh.int_header("x-ratelimit-remaining"), 59);
}

#[tokio::test]
async fn the_headers_pick_the_window_with_fewer_left() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    // 1000 a day: after 950 spread over 16 minutes the day has 50 left, the minute 60
    for minute in 0..16 {
        for _ in 0..if minute < 15 { 60 } else { 50 } {
            service.get("/v1/account", &key).await.expect(200);
        }
        service.advance(60.0);
    }
    let reply = service.get("/v1/account", &key).await;
    reply.expect(200);
    assert_eq!(reply.int_header("x-ratelimit-limit"), 1000);
    assert_eq!(reply.int_header("x-ratelimit-remaining"), 49);
    assert_eq!(reply.int_header("x-ratelimit-reset"), day_end());
    assert!(
        reply
            .header("ratelimit")
            .unwrap()
            .starts_with("\"day\";r=49;")
    );
}

#[tokio::test]
async fn more_than_ten_requests_while_limited_ban_the_key_for_15_minutes() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/projects", &key).await.expect(200);
    }
    service.get("/v1/projects", &key).await.expect(429);
    // ten more while limited are still only limited
    for _ in 0..10 {
        service.get("/v1/projects", &key).await.expect(429);
    }
    // the eleventh is one too many
    let banned = service.get("/v1/projects", &key).await;
    banned.expect_error(403, "key_banned");
    assert_eq!(banned.header("retry-after"), Some("900"));
    assert_eq!(banned.body["error"]["retry_after_seconds"], 900);
    assert_eq!(banned.body["error"]["banned_until"], "2026-03-02T10:15:10Z");
    assert_eq!(banned.int_header("x-ratelimit-remaining"), 0);
    assert_eq!(
        banned.int_header("x-ratelimit-reset"),
        at("2026-03-02T10:15:10Z").timestamp()
    );
    // rate_limit is refused to a banned key
    service
        .get("/v1/rate_limit", &key)
        .await
        .expect_error(403, "key_banned");
    // still banned after the minute window reset
    service.advance(120.0);
    let still = service.get("/v1/projects", &key).await;
    still.expect_error(403, "key_banned");
    assert_eq!(still.header("retry-after"), Some("780"));
    // other keys are not affected
    service
        .get("/v1/projects", &service.key(Plan::Pro).await)
        .await
        .expect(200);
    // a hair before the end, then at the end
    service.advance(779.0);
    service.get("/v1/projects", &key).await.expect(403);
    service.advance(1.0);
    service.get("/v1/projects", &key).await.expect(200);
}

#[tokio::test]
async fn requests_after_the_retry_after_time_do_not_count_towards_a_ban() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    for _ in 0..10 {
        service.get("/v1/account", &key).await.expect(429);
    }
    service.advance(50.0); // the next minute: limited period over
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    // a fresh limited period starts counting from zero
    for _ in 0..11 {
        service.get("/v1/account", &key).await.expect(429);
    }
    service.get("/v1/account", &key).await.expect(403);
}

#[tokio::test]
async fn rate_limit_is_not_counted_and_reports_both_windows() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    service.get("/v1/account", &key).await.expect(200);
    for _ in 0..400 {
        let reply = service.get("/v1/rate_limit", &key).await;
        reply.expect(200);
        assert_eq!(reply.int_header("x-ratelimit-remaining"), 299);
    }
    let reply = service.get("/v1/rate_limit", &key).await;
    assert_eq!(
        reply.body,
        serde_json::json!({
            "minute": {"limit": 300, "remaining": 299, "reset": minute_end()},
            "day": {"limit": 10000, "remaining": 9999, "reset": day_end()},
            "banned_until": null
        })
    );
}

#[tokio::test]
async fn errors_are_counted_and_carry_the_headers() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    let reply = service.get("/v1/projects/prj_nope", &key).await;
    reply.expect_error(404, "not_found");
    assert_eq!(reply.int_header("x-ratelimit-remaining"), 59);
    let bad = service
        .post("/v1/projects", &key, serde_json::json!({"name": ""}))
        .await;
    bad.expect(422);
    assert_eq!(bad.int_header("x-ratelimit-remaining"), 58);
}

#[tokio::test]
async fn setting_the_clock_back_opens_a_new_window() {
    let service = TestService::new();
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    service.get("/v1/account", &key).await.expect(429);
    service
        .state
        .clock()
        .set(at("2026-03-02T09:00:00Z"), 0.0)
        .unwrap();
    service.get("/v1/account", &key).await.expect(200);
}

#[tokio::test]
async fn the_ban_threshold_and_duration_are_settings() {
    let service = TestService::with_settings(domain_desk_service::ServiceSettings {
        ban_threshold: 2,
        ban_duration: chrono::TimeDelta::seconds(90),
        ..Default::default()
    });
    let key = service.key(Plan::Free).await;
    for _ in 0..60 {
        service.get("/v1/account", &key).await.expect(200);
    }
    for _ in 0..3 {
        service.get("/v1/account", &key).await.expect(429);
    }
    let banned = service.get("/v1/account", &key).await;
    banned.expect_error(403, "key_banned");
    assert_eq!(banned.header("retry-after"), Some("90"));
    service.advance(90.0);
    service.get("/v1/account", &key).await.expect(200);
}

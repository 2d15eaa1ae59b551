//! The scheduler against the in-process platform, on paused Tokio time: pacing, the 429
//! pause and probe, Retry-After in each form, skew, priorities, coalescing, retries,
//! cancellation, bans, the state stream, and two schedulers sharing a key.
//!
//! It is longer than the house's 500 lines (about 680, all tests): 25 tests of one scheduler
//! (`src/queue.rs`), each a case of 10 to 50 lines on one set-up, the fake platform on paused
//! time and about 95 lines of helpers at the top (`queue`, `client`, `burst`, `counted`). The
//! fake platform is apart already (`fake_platform.rs`), as are the budget's unit tests
//! (`src/budget.rs`) and the tests over real processes (`processes.rs`).

use std::time::Duration;

use bytes::Bytes;
use domain_desk_api::{Limits, Plan};
use domain_desk_client::{
    ApiRequest, Client, Error, HeldBackReason, Priority, QueueConfig, RetryPolicy,
};
use futures::future::join_all;
use tokio::time::Instant;

use super::fake_platform::{FakePlatform, RetryAfterStyle, Scripted, Settings};

fn queue(plan: Plan) -> QueueConfig {
    QueueConfig {
        limits: plan.default_limits(),
        jitter_seed: Some(7),
        ..QueueConfig::default()
    }
}

fn client(platform: &FakePlatform, name: &'static str, config: QueueConfig) -> Client {
    Client::with_transport(config, platform.transport(name)).expect("inside a runtime")
}

/// Sends `count` GETs with distinct paths at `priority`, all at once; returns the answers.
async fn burst(
    client: &Client,
    priority: Priority,
    count: usize,
    prefix: &str,
) -> Vec<Result<(), Error>> {
    let client = client.with_priority(priority);
    join_all((0..count).map(|i| {
        let client = client.clone();
        let path = format!("/v1/{prefix}/{i}");
        async move {
            let response = client.send(ApiRequest::get(path)).await?;
            if response.status.is_success() {
                Ok(())
            } else {
                Err(Error::Decode(format!("status {}", response.status)))
            }
        }
    }))
    .await
}

/// Counted requests the platform received (the uncounted start-up sync left out).
fn counted(platform: &FakePlatform) -> Vec<super::fake_platform::Record> {
    platform
        .log()
        .into_iter()
        .filter(|r| r.path != "/v1/rate_limit")
        .collect()
}

/// Most requests received in any span of `span` platform seconds before platform time `until`.
fn busiest(platform: &FakePlatform, span: f64, until: f64) -> usize {
    let times: Vec<f64> = counted(platform)
        .iter()
        .map(|r| r.platform_time)
        .filter(|t| *t < until)
        .collect();
    times
        .iter()
        .map(|start| {
            times
                .iter()
                .filter(|t| **t >= *start && **t < start + span)
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[tokio::test(start_paused = true)]
async fn pacing_spreads_the_remaining_budget_up_to_the_reset() {
    // Start half-way through a minute: 60 left for 30 s, then 60 per minute.
    let mut settings = Settings::free();
    settings.start_unix = 1_900_000_020.0 + 30.0;
    let platform = FakePlatform::new(settings);
    let client = client(&platform, "a", queue(Plan::Free));
    let started = Instant::now();
    let results = burst(&client, Priority::Bulk, 150, "pace").await;
    let elapsed = started.elapsed();
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(platform.rate_limited(), 0);
    // 60 in the first 30 s, 60 in the next minute, and the last 30 at once when the minute
    // after opens (they fit in it): 90 s, the window-aligned optimum.
    assert!(
        elapsed >= Duration::from_secs(90) && elapsed <= Duration::from_millis(91_500),
        "{elapsed:?}"
    );
    // Spread, not burst, while the job outlasts the window: about the even share of any 10 s
    // (60 over the 27 s before the window's end margin early on, 22 in 10 s, give or take the
    // gap's jitter); a burst would put all 60 in the first second.
    let last_window = 1_900_000_020.0 + 120.0;
    let busiest = busiest(&platform, 10.0, last_window);
    assert!(busiest <= 26, "{busiest}");
}

/// When the last of `requests` is answered by a platform that starts `offset` seconds into
/// a fresh minute and day, sending each request as soon as both windows have room: the
/// window-aligned optimum, in seconds from the start. The last window's batch is sent
/// `in_flight` at a time, each round taking `round_trip`.
fn optimum(
    limits: domain_desk_api::Limits,
    offset: f64,
    requests: u64,
    in_flight: u64,
    round_trip: f64,
) -> f64 {
    assert!(requests <= limits.per_day, "one day's worth at most");
    let windows = requests.div_ceil(limits.per_minute) - 1;
    let last_batch = requests - windows * limits.per_minute;
    let last_opens = if windows == 0 {
        0.0
    } else {
        60.0 - offset + 60.0 * (windows - 1) as f64
    };
    last_opens + last_batch.div_ceil(in_flight) as f64 * round_trip
}

#[tokio::test(start_paused = true)]
async fn a_long_bulk_job_reaches_the_window_aligned_optimum() {
    for (plan, settings, requests) in [
        (Plan::Free, Settings::free(), 600),
        (Plan::Pro, Settings::pro(), 1_500),
    ] {
        // From a minute boundary, and from a cold start in the middle of a minute (at an odd
        // fraction of a second, which the whole-second headers only bracket).
        for offset in [0.0, 37.4] {
            let mut settings = Settings::plan(settings.per_minute, settings.per_day);
            settings.start_unix = 1_900_000_020.0 + offset;
            settings.latency = Duration::from_millis(35);
            let platform = FakePlatform::new(settings);
            let client = client(&platform, "a", queue(plan));
            let started = Instant::now();
            let results = burst(&client, Priority::Bulk, requests, "bulk").await;
            let elapsed = started.elapsed().as_secs_f64();
            let optimum = optimum(plan.default_limits(), offset, requests as u64, 8, 0.070);
            assert!(results.iter().all(Result::is_ok));
            assert_eq!(platform.rate_limited(), 0, "{plan:?}");
            assert!(
                optimum / elapsed >= 0.99,
                "{plan:?} from {offset} s: {elapsed:.2} s against an optimum of {optimum:.2} s"
            );
        }
    }
}

/// Business at 20x (the benchmark's clock): a minute is 3 s, so the even pacing gap is about
/// 3 ms, only a few timer ticks. Every one of the ten windows must be used in full, or the
/// last thousand need an eleventh window (the 89.8 % of the 2026-11-23 benchmark).
#[tokio::test(start_paused = true)]
async fn a_business_job_on_a_fast_clock_uses_every_window_in_full() {
    let speed = 20.0;
    for offset in [0.0, 37.4] {
        let mut settings = Settings::plan(1_000, 100_000);
        settings.start_unix = 1_900_000_020.0 + offset;
        settings.speed = speed;
        // Tokio's timer ticks in milliseconds: an exchange takes 2 ms.
        settings.latency = Duration::from_millis(1);
        let platform = FakePlatform::new(settings);
        let mut config = queue(Plan::Business);
        config.platform_clock_speed = speed;
        let client = client(&platform, "a", config);
        let started = Instant::now();
        let results = burst(&client, Priority::Bulk, 10_000, "business").await;
        let elapsed = started.elapsed().as_secs_f64();
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(platform.rate_limited(), 0, "from {offset} s");
        let mut per_minute = std::collections::BTreeMap::<i64, usize>::new();
        for record in counted(&platform) {
            *per_minute
                .entry((record.platform_time / 60.0).floor() as i64)
                .or_default() += 1;
        }
        assert!(
            per_minute.len() == 10 && per_minute.values().all(|n| *n == 1_000),
            "from {offset} s: {per_minute:?}"
        );
        let windows = 60.0 - offset + 60.0 * 8.0;
        let optimum = windows / speed + 1_000u64.div_ceil(8) as f64 * 0.002;
        assert!(
            optimum / elapsed >= 0.99,
            "from {offset} s: {elapsed:.3} s against an optimum of {optimum:.3} s"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_skewed_platform_clock_does_not_matter() {
    // Platform clocks hours away from the local one, with odd fractions of a second.
    for start in [2_100_000_037.37, 1_000_000_011.91] {
        let mut settings = Settings::pro();
        settings.start_unix = start;
        let platform = FakePlatform::new(settings);
        let client = client(&platform, "a", queue(Plan::Pro));
        let started = Instant::now();
        let results = burst(&client, Priority::Bulk, 900, "skew").await;
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(platform.rate_limited(), 0, "skewed start {start}");
        assert!(
            started.elapsed() < Duration::from_secs(185),
            "{:?}",
            started.elapsed()
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_sped_up_platform_clock_is_followed() {
    let mut settings = Settings::free();
    settings.speed = 60.0;
    settings.latency = Duration::from_millis(1);
    settings.start_unix = 1_900_000_020.0;
    let platform = FakePlatform::new(settings);
    let mut config = queue(Plan::Free);
    config.platform_clock_speed = 60.0;
    let client = client(&platform, "a", config);
    let started = Instant::now();
    let results = burst(&client, Priority::Bulk, 300, "fast").await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(platform.rate_limited(), 0);
    // Five platform minutes at 60x: about five seconds.
    let elapsed = started.elapsed();
    assert!(elapsed <= Duration::from_millis(5_150), "{elapsed:?}");
}

/// A platform whose minute is used up by someone else, with the client not told in advance.
fn exhausted_platform(style: RetryAfterStyle) -> FakePlatform {
    let mut settings = Settings::free();
    settings.start_unix = 1_900_000_020.0 + 15.0; // 45 s to the reset
    settings.retry_after_style = style;
    let platform = FakePlatform::new(settings);
    platform.consume(60, 60);
    platform
}

fn unsynced(plan: Plan) -> QueueConfig {
    QueueConfig {
        sync_on_start: false,
        ..queue(plan)
    }
}

#[tokio::test(start_paused = true)]
async fn after_a_429_the_key_pauses_and_one_request_probes() {
    let platform = exhausted_platform(RetryAfterStyle::Seconds);
    let client = client(&platform, "a", unsynced(Plan::Free));
    let results = burst(&client, Priority::Interactive, 5, "probe").await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    let log = counted(&platform);
    assert_eq!(platform.rate_limited(), 1, "{log:#?}");
    assert_eq!(platform.sent_while_limited(), 0);
    let limited = log.iter().find(|r| r.status == Some(429)).unwrap();
    let after: Vec<_> = log.iter().filter(|r| r.sent_at > limited.sent_at).collect();
    assert_eq!(after.len(), 5);
    // Nothing before the Retry-After time (45 s after the 429).
    assert!(
        after
            .iter()
            .all(|r| r.platform_time >= limited.platform_time.floor() + 45.0)
    );
    // The first one after the pause went alone: the next left only after its answer.
    assert!(after[1].sent_at >= after[0].answered_at);
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_honoured_in_every_form() {
    for style in [
        RetryAfterStyle::Seconds,
        RetryAfterStyle::ImfFixdate,
        RetryAfterStyle::Rfc850,
        RetryAfterStyle::Asctime,
    ] {
        let platform = exhausted_platform(style);
        let client = client(&platform, "a", unsynced(Plan::Free));
        let results = burst(&client, Priority::Interactive, 2, "form").await;
        assert!(results.iter().all(Result::is_ok), "{style:?}");
        let log = counted(&platform);
        assert_eq!(platform.rate_limited(), 1, "{style:?}");
        let limited = log.iter().position(|r| r.status == Some(429)).unwrap();
        let next = &log[limited + 1];
        let wait = next.platform_time - log[limited].platform_time;
        // 45 s to the reset (the Date has whole seconds), and not much more.
        assert!(
            (44.9..47.0).contains(&wait),
            "{style:?}: resent after {wait:.2} s"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn without_any_hint_a_429_backs_off_boundedly() {
    let platform = exhausted_platform(RetryAfterStyle::Nothing);
    let mut config = unsynced(Plan::Free);
    config.max_pause_without_hint = Duration::from_secs(8);
    config.max_rate_limited_attempts = 50;
    let client = client(&platform, "a", config);
    let results = burst(&client, Priority::Interactive, 1, "blind").await;
    assert!(results.iter().all(Result::is_ok));
    let log = counted(&platform);
    // 1 s, 2 s, 4 s, 8 s, 8 s …: about 45 s of waiting covered by a handful of probes.
    let gaps: Vec<f64> = log
        .windows(2)
        .map(|w| w[1].platform_time - w[0].platform_time)
        .collect();
    assert!(gaps.iter().all(|gap| *gap <= 8.5), "{gaps:?}");
    assert!(log.len() <= 10, "{} sends", log.len());
    assert!(!platform.was_banned());
}

#[tokio::test(start_paused = true)]
async fn priorities_are_strict_and_fifo_within_a_class() {
    let platform = FakePlatform::new(Settings::pro());
    let mut config = queue(Plan::Pro);
    config.max_in_flight = 1;
    config.sync_on_start = false;
    let client = client(&platform, "a", config);
    let blocker = tokio::spawn({
        let client = client.bulk();
        async move { client.send(ApiRequest::get("/v1/blocker")).await }
    });
    tokio::task::yield_now().await;
    let mut tasks = Vec::new();
    for (priority, name) in [
        (Priority::Bulk, "bulk"),
        (Priority::Background, "background"),
        (Priority::Interactive, "interactive"),
    ] {
        for i in 0..3 {
            let client = client.with_priority(priority);
            tasks.push(tokio::spawn(async move {
                client
                    .send(ApiRequest::get(format!("/v1/{name}/{i}")))
                    .await
            }));
            tokio::task::yield_now().await;
        }
    }
    blocker.await.unwrap().unwrap();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let order: Vec<String> = counted(&platform).into_iter().map(|r| r.path).collect();
    assert_eq!(
        order,
        [
            "/v1/blocker",
            "/v1/interactive/0",
            "/v1/interactive/1",
            "/v1/interactive/2",
            "/v1/background/0",
            "/v1/background/1",
            "/v1/background/2",
            "/v1/bulk/0",
            "/v1/bulk/1",
            "/v1/bulk/2",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn part_of_the_day_is_kept_while_interactive_work_is_recent() {
    let platform = FakePlatform::new(Settings::free());
    platform.consume(0, 960); // 40 left today; 5 % of 1000 (50) is kept back
    let client = client(&platform, "a", queue(Plan::Free));
    let mut state = client.state();
    let job = client.new_job();
    let interactive = client
        .send(ApiRequest::get("/v1/interactive"))
        .await
        .unwrap();
    assert!(interactive.status.is_success());
    let clicked = Instant::now();
    let bulk = tokio::spawn({
        let client = client.bulk().in_job(job);
        async move { client.send(ApiRequest::get("/v1/bulk")).await }
    });
    // Four minutes after the click the reserve still holds, and the meter says why.
    tokio::time::sleep(Duration::from_secs(240)).await;
    assert!(!bulk.is_finished(), "bulk work must not eat the reserve");
    let held = state
        .borrow_and_update()
        .held_back
        .expect("the reserve is shown");
    assert_eq!(held.requests, 50);
    assert_eq!(held.reason, HeldBackReason::InteractiveRecent);
    assert!(held.blocking, "{held:?}");
    let json = serde_json::to_value(state.borrow().clone()).unwrap();
    assert_eq!(json["held_back"]["reason"], "interactive_recent", "{json}");
    // Five minutes after the click it lapses on its own: the bulk request goes.
    let answer = bulk.await.unwrap().unwrap();
    assert!(answer.status.is_success());
    let waited = clicked.elapsed();
    assert!(
        waited >= Duration::from_secs(300) && waited < Duration::from_secs(301),
        "{waited:?}"
    );
    assert_eq!(state.borrow_and_update().held_back, None);
    let paths: Vec<String> = counted(&platform).into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/interactive", "/v1/bulk"]);
}

#[tokio::test(start_paused = true)]
async fn with_nobody_clicking_bulk_work_may_use_the_whole_day() {
    let platform = FakePlatform::new(Settings::free());
    platform.consume(0, 960); // 40 left today, less than the 5 % reserve
    let client = client(&platform, "a", queue(Plan::Free));
    let results = burst(&client, Priority::Bulk, 40, "bulk").await;
    assert!(results.iter().all(Result::is_ok));
    assert_eq!(counted(&platform).len(), 40);
    assert_eq!(platform.rate_limited(), 0);
    let state = client.state().borrow().clone();
    assert_eq!(state.held_back, None);
    assert_eq!(state.day.remaining, 0);
}

#[tokio::test(start_paused = true)]
async fn identical_gets_in_flight_are_sent_once() {
    let platform = FakePlatform::new(Settings::pro());
    let client = client(&platform, "a", queue(Plan::Pro));
    let background = client.background();
    let answers = join_all((0..5).map(|i| {
        let client = if i % 2 == 0 {
            client.clone()
        } else {
            background.clone()
        };
        async move { client.send(ApiRequest::get("/v1/account")).await }
    }))
    .await;
    let other = client.send(ApiRequest::get("/v1/projects")).await.unwrap();
    let bodies: Vec<Bytes> = answers.into_iter().map(|a| a.unwrap().body).collect();
    assert!(bodies.iter().all(|b| *b == bodies[0]));
    assert_ne!(other.body, bodies[0]);
    let paths: Vec<String> = counted(&platform).into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/account", "/v1/projects"]);
}

#[tokio::test(start_paused = true)]
async fn network_errors_and_5xx_are_retried_within_the_retry_budget() {
    let platform = FakePlatform::new(Settings::pro());
    platform.script([Scripted::Drop, Scripted::Status(503)]);
    let mut config = unsynced(Plan::Pro);
    config.retry = RetryPolicy {
        max_attempts: 4,
        budget_tokens: 3.0,
        budget_ratio: 0.0,
        ..RetryPolicy::default()
    };
    let client = client(&platform, "a", config);
    // Two failures, then success: the caller never sees them.
    let answer = client.send(ApiRequest::get("/v1/flaky")).await.unwrap();
    assert!(answer.status.is_success());
    assert_eq!(counted(&platform).len(), 3);
    // An outage: one retry token left, then every request fails on its first answer.
    platform.set_outage(Some(503));
    let mut failures = Vec::new();
    for i in 0..4 {
        failures.push(
            client
                .send(ApiRequest::get(format!("/v1/down/{i}")))
                .await
                .unwrap(),
        );
    }
    assert!(failures.iter().all(|r| r.status.as_u16() == 503));
    assert_eq!(
        counted(&platform).len(),
        3 + 4 + 1,
        "4 requests and the last retry token"
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_gives_up_after_its_attempts() {
    let platform = FakePlatform::new(Settings::pro());
    platform.set_outage(Some(502));
    let client = client(&platform, "a", unsynced(Plan::Pro));
    let err = client.account().await.unwrap_err();
    assert!(err.is_server_error(), "{err:?}");
    assert_eq!(counted(&platform).len(), 4, "max_attempts sends");
}

#[tokio::test(start_paused = true)]
async fn a_retried_post_creates_once() {
    let platform = FakePlatform::new(Settings::pro());
    platform.script([Scripted::LoseAnswer]);
    let client = client(&platform, "a", unsynced(Plan::Pro));
    let request = ApiRequest::post("/v1/projects", Bytes::from_static(br#"{"name":"shop"}"#));
    let answer = client.send(request).await.unwrap();
    assert_eq!(answer.status.as_u16(), 201);
    assert_eq!(counted(&platform).len(), 2, "the lost answer was retried");
    assert_eq!(
        platform.created(),
        1,
        "the retry was answered from the idempotency record"
    );
}

/// `409 idempotency_key_in_use` is asked again after its `Retry-After`, which is in the
/// platform's seconds: on a platform clock at 20x, 20 platform seconds are one real second.
#[tokio::test(start_paused = true)]
async fn a_key_in_use_is_asked_again_after_its_retry_after_in_platform_time() {
    let mut settings = Settings::pro();
    settings.speed = 20.0;
    let platform = FakePlatform::new(settings);
    platform.script([Scripted::KeyInUse { retry_after: 20 }]);
    let mut config = unsynced(Plan::Pro);
    config.platform_clock_speed = 20.0;
    let client = client(&platform, "a", config);
    let request = ApiRequest::post("/v1/projects", Bytes::from_static(br#"{"name":"shop"}"#));
    let answer = client.send(request).await.unwrap();
    assert_eq!(answer.status.as_u16(), 201);
    let log = platform.log();
    assert_eq!(log.len(), 2, "refused once, then asked again: {log:?}");
    let waited = log[1].sent_at - log[0].answered_at;
    assert!(
        waited >= Duration::from_millis(900) && waited <= Duration::from_millis(1_500),
        "20 platform seconds at 20x are a real second; waited {waited:?}"
    );
    assert_eq!(platform.created(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_post_without_an_idempotency_key_is_never_retried() {
    let platform = FakePlatform::new(Settings::pro());
    platform.script([Scripted::LoseAnswer]);
    let client = client(&platform, "a", unsynced(Plan::Pro));
    let mut request = ApiRequest::post("/v1/projects", Bytes::from_static(b"{}"));
    request.idempotency_key = None;
    let err = client.send(request).await.unwrap_err();
    assert!(err.is_network());
    assert_eq!(counted(&platform).len(), 1);
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_job_withdraws_its_queued_requests() {
    let platform = FakePlatform::new(Settings::free());
    let client = client(&platform, "a", queue(Plan::Free));
    let job = client.new_job();
    let bulk = client.bulk().in_job(job);
    // More than the minute holds, so the job is paced at about one a second.
    let runner = tokio::spawn(async move { burst(&bulk, Priority::Bulk, 100, "job").await });
    tokio::time::sleep(Duration::from_secs(5)).await;
    client.cancel_job(job).await.unwrap();
    let results = runner.await.unwrap();
    let sent = results.iter().filter(|r| r.is_ok()).count();
    let cancelled = results
        .iter()
        .filter(|r| matches!(r, Err(e) if e.is_cancelled()))
        .count();
    assert_eq!(sent + cancelled, 100);
    assert!(
        (3..=8).contains(&sent),
        "{sent} sent in 5 s at about one a second"
    );
    assert_eq!(counted(&platform).len(), sent);
}

#[tokio::test(start_paused = true)]
async fn a_caller_that_goes_away_withdraws_its_request() {
    let platform = FakePlatform::new(Settings::free());
    platform.consume(59, 0);
    let client = client(&platform, "a", queue(Plan::Free));
    let first = client.send(ApiRequest::get("/v1/first"));
    let _ = first.await.unwrap();
    // The minute is used up: this one waits for its reset, and its caller gives up first.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(100),
        client.send(ApiRequest::get("/v1/abandoned")),
    )
    .await;
    assert!(gave_up.is_err());
    let _ = client.send(ApiRequest::get("/v1/after")).await.unwrap();
    let paths: Vec<String> = counted(&platform).into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/first", "/v1/after"]);
}

#[tokio::test(start_paused = true)]
async fn a_banned_key_waits_for_the_ban_to_end() {
    let platform = FakePlatform::new(Settings::pro());
    platform.ban_for(120.0);
    let client = client(&platform, "a", unsynced(Plan::Pro));
    let err = client.account().await.unwrap_err();
    assert!(err.is_banned(), "{err:?}");
    let state = client.state().borrow().clone();
    assert!(state.banned_until.is_some() && state.paused_until.is_some());
    let before = Instant::now();
    client.projects().await.unwrap_err(); // the fake's body is not a project list
    let waited = before.elapsed();
    assert!(waited >= Duration::from_secs(119), "{waited:?}");
    assert_eq!(counted(&platform).len(), 2, "nothing sent during the ban");
}

#[tokio::test(start_paused = true)]
async fn the_state_stream_shows_budget_pause_and_queue() {
    let platform = exhausted_platform(RetryAfterStyle::Seconds);
    let client = client(&platform, "a", unsynced(Plan::Free));
    let mut state = client.state();
    let runner = tokio::spawn({
        let client = client.clone();
        async move { burst(&client, Priority::Background, 3, "meter").await }
    });
    let paused = state
        .wait_for(|s| s.paused_until.is_some())
        .await
        .unwrap()
        .clone();
    assert_eq!(paused.queued.background, 3);
    assert_eq!(paused.rate_limited_total, 1);
    assert_eq!(paused.minute.remaining, 0);
    let json = serde_json::to_value(&paused).unwrap();
    assert!(
        json["paused_until"].is_string() && json["queued"]["background"] == 3,
        "{json}"
    );
    runner.await.unwrap();
    let done = state.borrow().clone();
    assert_eq!(done.queued.total(), 0);
    assert_eq!(done.window, Some(domain_desk_api::RateWindow::Minute));
    assert_eq!(done.limit, Some(60));
}

#[tokio::test(start_paused = true)]
async fn two_schedulers_sharing_a_data_directory_share_the_key() {
    let mut settings = Settings::free();
    settings.start_unix = 1_900_000_020.0 + 7.0;
    let platform = FakePlatform::new(settings);
    let dir = tempfile::tempdir().unwrap();
    let shared = |seed| {
        let mut config = queue(Plan::Free).share_budget(
            dir.path(),
            "https://platform.test",
            &domain_desk_client::ApiKey::new("ddk_shared"),
        );
        config.jitter_seed = Some(seed);
        config
    };
    let a = client(&platform, "a", shared(1));
    let b = client(&platform, "b", shared(2));
    let started = Instant::now();
    let (ra, rb) = tokio::join!(
        burst(&a, Priority::Bulk, 150, "a"),
        burst(&b, Priority::Bulk, 150, "b")
    );
    let elapsed = started.elapsed().as_secs_f64();
    assert!(ra.iter().chain(&rb).all(Result::is_ok));
    assert_eq!(platform.rate_limited(), 0);
    assert!(!platform.was_banned());
    let log = counted(&platform);
    assert_eq!(log.iter().filter(|r| r.client == "a").count(), 150);
    assert_eq!(log.iter().filter(|r| r.client == "b").count(), 150);
    // Together as fast as one queue would be: 300 requests from 7 s into a minute.
    let optimum = optimum(Plan::Free.default_limits(), 7.0, 300, 16, 0.040);
    assert!(
        optimum / elapsed >= 0.99,
        "{elapsed:.2} s against an optimum of {optimum:.2} s"
    );
}

#[tokio::test(start_paused = true)]
async fn queue_config_limits_are_only_a_seed() {
    // Seeded with Free's 60/min; the platform says 300: the client learns and speeds up.
    let mut settings = Settings::pro();
    settings.start_unix = 1_900_000_020.0;
    let platform = FakePlatform::new(settings);
    let config = QueueConfig {
        limits: Limits {
            per_minute: 60,
            per_day: 1_000,
            max_domains_per_project: 0,
        },
        jitter_seed: Some(1),
        ..QueueConfig::default()
    };
    let client = client(&platform, "a", config);
    let started = Instant::now();
    let results = burst(&client, Priority::Bulk, 300, "learn").await;
    assert!(results.iter().all(Result::is_ok));
    assert!(
        started.elapsed() <= Duration::from_secs(61),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(platform.rate_limited(), 0);
}

/// A pause shorter than a request's time on the wire: the probe after it waits until every
/// request sent before the 429 has its answer, so that it really is the only one out.
#[tokio::test(start_paused = true)]
async fn the_probe_after_a_short_pause_waits_for_requests_still_on_the_wire() {
    let mut settings = Settings::free();
    settings.latency = Duration::from_millis(1500);
    settings.retry_after_style = RetryAfterStyle::Nothing;
    let platform = FakePlatform::new(settings);
    platform.script([Scripted::Status(429)]);
    let client = client(&platform, "a", unsynced(Plan::Free));
    let first = client.clone();
    let limited = tokio::spawn(async move { first.send(ApiRequest::get("/v1/first")).await });
    // sent while the first is on the wire: answered a while after the first's 429
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let second = client.send(ApiRequest::get("/v1/second")).await;
    assert!(second.is_ok_and(|answer| answer.status.is_success()));
    assert!(
        limited
            .await
            .unwrap()
            .is_ok_and(|answer| answer.status.is_success())
    );
    let log = platform.log();
    let rate_limited = log.iter().find(|r| r.status == Some(429)).expect("one 429");
    let still_out = log
        .iter()
        .find(|r| r.path == "/v1/second")
        .expect("the second");
    let probe = log
        .iter()
        .rfind(|r| r.path == "/v1/first" && r.status != Some(429))
        .expect("the probe");
    assert!(
        still_out.sent_at < rate_limited.answered_at,
        "the second was on the wire when the 429 came: {log:#?}"
    );
    assert!(probe.sent_at >= still_out.answered_at, "{log:#?}");
}

/// An answer reaches its caller only once the queue has taken in what it said: a caller that
/// reads the windows (`wait_for`, the state) as soon as its answer is back sees the windows
/// that answer reported. The command line's `--no-wait` once read them from before the
/// answer, found nothing to wait for, and then waited minutes in the queue for a frozen
/// window. Each round is a new queue on a runtime of two threads, where the caller's task
/// runs beside the queue's: before the fix most rounds read the state before it was learned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_reaches_its_caller_after_the_queue_has_learned_from_it() {
    for round in 0..200 {
        let platform = FakePlatform::new(Settings::free());
        let client = client(&platform, "a", queue(Plan::Free));
        client.rate_limit().await.expect("the windows");
        let state = client.state().borrow().clone();
        assert!(
            state.minute.learned && state.minute.reset.is_some(),
            "round {round}: the caller read the windows before the queue learned them: {state:?}"
        );
    }
}

/// "Would N requests have to wait" is answered from the key's windows as the queue knows them,
/// at the clock reading the caller hands in: what fits in the minute left is sent now, the
/// rest at the minute boundaries after it.
#[tokio::test(start_paused = true)]
async fn how_long_n_requests_would_wait_is_read_from_the_windows_at_the_given_time() {
    let platform = FakePlatform::new(Settings::free());
    let client = client(&platform, "a", queue(Plan::Free));
    assert!(
        burst(&client, Priority::Interactive, 50, "w")
            .await
            .iter()
            .all(Result::is_ok)
    );
    let state = client.state().borrow().clone();
    assert_eq!(state.minute.remaining, 10);
    let reset = state
        .minute
        .reset
        .expect("the platform said when the minute resets");
    let at = |seconds_before_reset: i64| {
        chrono::DateTime::from_timestamp(reset - seconds_before_reset, 0).unwrap()
    };
    assert_eq!(client.wait_for(10, at(30), 1.0), Duration::ZERO);
    assert_eq!(client.wait_for(11, at(30), 1.0), Duration::from_secs(30));
    assert_eq!(client.wait_for(71, at(30), 1.0), Duration::from_secs(90));
    // On a platform clock ten times as fast, each further minute is six local seconds.
    assert_eq!(client.wait_for(71, at(30), 10.0), Duration::from_secs(36));
    assert_eq!(counted(&platform).len(), 50, "asking sends nothing");
}

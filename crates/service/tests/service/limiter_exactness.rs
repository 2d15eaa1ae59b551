//! Admission stays exact across many windows while 64 clients hammer one key and the clock is
//! driven underneath them: every minute window admits exactly its limit, the day window binds
//! exactly when it has fewer left, and no answer's headers contradict another's or its own.
//!
//! The ban is switched off here (a huge threshold) so that every window gets its full demand;
//! the ban itself is tested in `rate_limits`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use domain_desk_api::Plan;
use domain_desk_service::ServiceSettings;
use tokio::sync::Barrier;

use crate::common::{Reply, TestService, at};

const CLIENTS: usize = 64;

fn without_ban() -> TestService {
    TestService::with_settings(ServiceSettings {
        ban_threshold: u32::MAX,
        ..ServiceSettings::default()
    })
}

/// One `/v1` answer as the headers and body describe it.
#[derive(Debug, Clone)]
struct Seen {
    status: u16,
    limit: i64,
    remaining: i64,
    reset: i64,
    /// The server's time of the answer, from the `RateLimit` field (`Reset - t`).
    server_now: i64,
    /// `minute` or `day`: the binding window named by the `RateLimit` field.
    binding: String,
}

/// Parses `"minute";r=12;t=30, "day";r=900;t=4000` into (name, r, t) triples.
fn ietf_items(value: &str) -> Vec<(String, i64, i64)> {
    value
        .split(", ")
        .map(|item| {
            let mut parts = item.split(';');
            let name = parts.next().unwrap().trim_matches('"').to_owned();
            let mut r = None;
            let mut t = None;
            for part in parts {
                let (k, v) = part.split_once('=').unwrap();
                let v: i64 = v.parse().unwrap();
                match k {
                    "r" => r = Some(v),
                    "t" => t = Some(v),
                    other => panic!("unexpected parameter {other} in {value}"),
                }
            }
            (name, r.unwrap(), t.unwrap())
        })
        .collect()
}

/// Checks one answer against itself and returns what it says. Contradictions fail here:
/// the trio against the IETF fields, `Retry-After` against the body and the reset, a
/// remaining budget on a rejection.
#[track_caller]
fn seen(reply: &Reply, limits: (i64, i64)) -> Seen {
    let status = reply.status.as_u16();
    let limit = reply.int_header("x-ratelimit-limit");
    let remaining = reply.int_header("x-ratelimit-remaining");
    let reset = reply.int_header("x-ratelimit-reset");
    assert!(
        (0..=limit).contains(&remaining),
        "remaining {remaining} of {limit}"
    );
    let items = ietf_items(reply.header("ratelimit").expect("RateLimit field"));
    assert_eq!(items.len(), 2, "both windows in RateLimit");
    let (binding, r, t) = items[0].clone();
    assert_eq!(r, remaining, "RateLimit r and X-RateLimit-Remaining differ");
    assert!(t > 0, "a window that already reset");
    let server_now = reset - t;
    let (other, other_r, other_t) = items[1].clone();
    assert_ne!(binding, other);
    // The binding window has fewer left, or as many and resets no later.
    assert!(
        r < other_r || (r == other_r && t <= other_t),
        "{binding} binds but {other} has r={other_r} t={other_t} against r={r} t={t}"
    );
    let (minute_limit, day_limit) = limits;
    let expected_limit = if binding == "minute" {
        minute_limit
    } else {
        day_limit
    };
    assert_eq!(limit, expected_limit, "Limit is not the binding window's");
    assert_eq!(
        reply.header("ratelimit-policy"),
        Some(format!("\"minute\";q={minute_limit};w=60, \"day\";q={day_limit};w=86400").as_str())
    );
    let window_length = if binding == "minute" { 60 } else { 86_400 };
    assert_eq!(reset % window_length, 0, "Reset is not at a window edge");
    match status {
        200 => assert!(reply.header("retry-after").is_none()),
        429 => {
            assert_eq!(reply.code(), "rate_limited");
            assert_eq!(remaining, 0, "a 429 with budget left");
            let retry_after = reply.int_header("retry-after");
            assert_eq!(reply.body["error"]["retry_after_seconds"], retry_after);
            assert_eq!(reply.body["error"]["window"], binding.as_str());
            assert_eq!(retry_after, t, "Retry-After is not the time to the reset");
        }
        other => panic!("unexpected status {other}: {}", reply.body),
    }
    Seen {
        status,
        limit,
        remaining,
        reset,
        server_now,
        binding,
    }
}

/// 64 clients, released together, each sending `per_client` requests on one key.
async fn storm(service: &Arc<TestService>, key: &Arc<String>, per_client: usize) -> Vec<Reply> {
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let (service, key, barrier) = (service.clone(), key.clone(), barrier.clone());
        clients.push(tokio::spawn(async move {
            barrier.wait().await;
            let mut replies = Vec::new();
            for _ in 0..per_client {
                replies.push(service.get("/v1/account", &key).await);
            }
            replies
        }));
    }
    let mut replies = Vec::new();
    for client in clients {
        replies.extend(client.await.unwrap());
    }
    replies
}

/// Within one window that had `left` units at its start and was used up, the admitted
/// answers' `Remaining` values are exactly `left-1 … 0`, each once: no unit was handed out
/// twice or skipped.
#[track_caller]
fn assert_countdown(admitted: &[Seen], left: i64) {
    let mut remaining: Vec<i64> = admitted.iter().map(|s| s.remaining).collect();
    remaining.sort_unstable();
    let expected: Vec<i64> = (0..left).collect();
    assert_eq!(remaining, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_minute_window_admits_exactly_the_limit_until_the_day_binds() {
    // Free: 60 a minute, 1000 a day. 16 full minutes use 960; the 17th has only 40 left of the
    // day, so the day binds; then nothing until midnight, and a fresh day after it.
    let service = Arc::new(without_ban());
    service
        .state
        .clock()
        .set(at("2026-03-02T23:40:10Z"), 0.0)
        .unwrap();
    let key = Arc::new(service.key(Plan::Free).await);
    let limits = (60, 1000);
    let midnight = at("2026-03-03T00:00:00Z").timestamp();

    for window in 0..18i64 {
        let replies = storm(&service, &key, 2).await;
        let seen: Vec<Seen> = replies.iter().map(|r| seen(r, limits)).collect();
        let admitted: Vec<Seen> = seen.iter().filter(|s| s.status == 200).cloned().collect();
        let minute_end = at("2026-03-02T23:41:00Z").timestamp() + 60 * window;
        match window {
            0..=15 => {
                assert_eq!(admitted.len(), 60, "window {window}");
                assert_countdown(&admitted, 60);
                assert!(admitted.iter().all(|s| s.binding == "minute"));
                assert!(seen.iter().all(|s| s.reset == minute_end));
            }
            16 => {
                assert_eq!(admitted.len(), 40, "the day's last 40");
                assert!(seen.iter().all(|s| s.binding == "day"));
                assert_countdown(&admitted, 40);
                assert!(seen.iter().all(|s| s.reset == midnight));
            }
            _ => {
                assert!(admitted.is_empty(), "admitted after the day was used up");
                assert!(
                    seen.iter()
                        .all(|s| s.binding == "day" && s.reset == midnight)
                );
            }
        }
        let status = service.get("/v1/rate_limit", &key).await;
        status.expect(200);
        let used = (60 * (window + 1)).min(1000);
        assert_eq!(status.body["day"]["remaining"], 1000 - used);
        service.advance(60.0);
    }

    // 23:58:10 → past midnight: a fresh day and a fresh minute, exactly 60 again.
    service
        .state
        .clock()
        .set(at("2026-03-03T00:00:10Z"), 0.0)
        .unwrap();
    let replies = storm(&service, &key, 2).await;
    let seen: Vec<Seen> = replies.iter().map(|r| seen(r, limits)).collect();
    let admitted: Vec<Seen> = seen.iter().filter(|s| s.status == 200).cloned().collect();
    assert_eq!(admitted.len(), 60);
    assert_countdown(&admitted, 60);
    let status = service.get("/v1/rate_limit", &key).await;
    assert_eq!(status.body["day"]["remaining"], 1000 - 60);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn windows_stay_exact_while_the_clock_moves_under_the_clients() {
    // Regression: the gate read the clock before the key lookup, so a request delayed past a
    // minute edge rolled the limiter back into the old window from zero (302 admitted).
    // Pro: 300 a minute. The clients never stop; a driver moves the clock one second at a time
    // through five minute edges, waiting for at least 40 requests per second of clock, so
    // every minute sees about 2400 requests against its 300.
    let service = Arc::new(without_ban());
    let key = Arc::new(service.key(Plan::Pro).await);
    let limits = (300, 10_000);
    let sent = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(CLIENTS + 1));
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let (service, key, sent, stop, barrier) = (
            service.clone(),
            key.clone(),
            sent.clone(),
            stop.clone(),
            barrier.clone(),
        );
        clients.push(tokio::spawn(async move {
            barrier.wait().await;
            let mut seen_here = Vec::new();
            while !stop.load(Ordering::Acquire) {
                let reply = service.get("/v1/account", &key).await;
                sent.fetch_add(1, Ordering::AcqRel);
                seen_here.push(seen(&reply, limits));
            }
            seen_here
        }));
    }
    barrier.wait().await;
    // 10:00:10 → 10:05:10: the rest of minute 10:00, four whole minutes, ten seconds of 10:05.
    for _ in 0..300 {
        let target = sent.load(Ordering::Acquire) + 40;
        while sent.load(Ordering::Acquire) < target {
            tokio::task::yield_now().await;
        }
        service.advance(1.0);
    }
    stop.store(true, Ordering::Release);
    let mut all = Vec::new();
    for client in clients {
        all.extend(client.await.unwrap());
    }

    let mut per_window: BTreeMap<i64, Vec<Seen>> = BTreeMap::new();
    for s in &all {
        assert_eq!(s.binding, "minute", "the day cannot bind at 1500 of 10000");
        // The server's time lies inside the window its Reset names.
        assert!(
            s.server_now < s.reset && s.server_now >= s.reset - 60,
            "{s:?}"
        );
        per_window.entry(s.reset).or_default().push(s.clone());
    }
    let first_end = at("2026-03-02T10:01:00Z").timestamp();
    let windows: Vec<i64> = per_window.keys().copied().collect();
    assert_eq!(
        windows,
        (0..6).map(|i| first_end + 60 * i).collect::<Vec<_>>()
    );
    let mut total_admitted = 0;
    for (reset, seen) in &per_window {
        let admitted: Vec<Seen> = seen.iter().filter(|s| s.status == 200).cloned().collect();
        assert!(seen.iter().all(|s| s.limit == 300));
        assert_eq!(
            admitted.len(),
            300,
            "window ending {reset}: {} requests",
            seen.len()
        );
        assert_countdown(&admitted, 300);
        // Every rejection in a window came after the window was used up.
        assert!(
            seen.iter()
                .filter(|s| s.status == 429)
                .all(|s| s.remaining == 0)
        );
        total_admitted += admitted.len();
    }
    let status = service.get("/v1/rate_limit", &key).await;
    status.expect(200);
    assert_eq!(
        status.body["day"]["remaining"],
        10_000 - total_admitted as i64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_ban_strikes_at_exactly_the_eleventh_request_while_limited_however_many_race() {
    // Free: 60 a minute, ban after more than 10 requests while limited. 64 clients send 3
    // requests each at once: 60 admitted, then one 429 that starts the limited period, ten
    // more 429s counted towards the ban, and every request after those is 403 key_banned.
    let service = Arc::new(TestService::new());
    let key = Arc::new(service.key(Plan::Free).await);
    let replies = storm(&service, &key, 3).await;
    let count = |status: u16| {
        replies
            .iter()
            .filter(|r| r.status.as_u16() == status)
            .count()
    };
    assert_eq!(count(200), 60);
    assert_eq!(count(429), 11);
    assert_eq!(count(403), 64 * 3 - 60 - 11);
    let ban_end = at("2026-03-02T10:15:10Z");
    for reply in replies.iter().filter(|r| r.status.as_u16() == 403) {
        assert_eq!(reply.code(), "key_banned");
        assert_eq!(reply.int_header("retry-after"), 15 * 60);
        assert_eq!(reply.int_header("x-ratelimit-remaining"), 0);
        assert_eq!(reply.int_header("x-ratelimit-reset"), ban_end.timestamp());
        assert_eq!(
            reply.body["error"]["banned_until"],
            ban_end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
    }
    // Exactly one ban was recorded, and it holds across the next windows until it ends.
    service.advance(60.0 * 14.0);
    service
        .get("/v1/account", &key)
        .await
        .expect_error(403, "key_banned");
    service.advance(60.0);
    service.get("/v1/account", &key).await.expect(200);
}

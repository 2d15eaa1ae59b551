//! What one answer from the platform teaches the queue: pure functions of the response and a
//! reading of the local clock, so the scheduler's task ([`crate::queue`]) only acts on them.
//!
//! - [`observations`]: what the rate-limit headers (and `/v1/rate_limit`'s body) say about
//!   each window, for [`crate::budget::Budget::observe`];
//! - [`classify`]: whether the answer pauses the key, bans it, asks for a retry, or is final;
//! - [`rate_limited_pause`], [`ban_wait`], [`in_use_wait`]: how long the platform asked us to
//!   wait, measured from the answer's own `Date` (a sped-up or skewed platform clock then
//!   does not matter), with the fallbacks the platform's contract allows.
//!
//! The header grammar itself lives in [`crate::headers`]; this module decides what the parsed
//! values mean.

use std::time::{Duration, SystemTime};

use domain_desk_api::{ErrorBody, ErrorCode, RateLimitStatus, RateWindow};
use reqwest::StatusCode;

use crate::budget::Observation;
use crate::headers::{self, unix_seconds};
use crate::transport::WireResponse;

/// The longest wait any answer is believed to ask for.
const LONGEST_WAIT: Duration = Duration::from_secs(86_400);

/// What the scheduler does with an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// 429: pause the whole key, then probe.
    RateLimited,
    /// 403 `key_banned`: pause the whole key until the ban ends; the caller gets the answer.
    Banned,
    /// 5xx: worth another attempt if the request is safe to repeat.
    ServerError,
    /// 409 `idempotency_key_in_use`: an earlier attempt with the same key is still running
    /// on the platform (its answer was lost to us); ask again when told and get its answer.
    KeyInUse,
    /// Anything else goes to the caller as it is.
    Final,
}

pub(crate) fn classify(response: &WireResponse) -> Outcome {
    let status = response.status;
    if status == StatusCode::TOO_MANY_REQUESTS {
        Outcome::RateLimited
    } else if status == StatusCode::FORBIDDEN && error_code(response) == Some(ErrorCode::KeyBanned)
    {
        Outcome::Banned
    } else if status.is_server_error() {
        Outcome::ServerError
    } else if status == StatusCode::CONFLICT
        && error_code(response) == Some(ErrorCode::IdempotencyKeyInUse)
    {
        Outcome::KeyInUse
    } else {
        Outcome::Final
    }
}

/// What a 429 asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pause {
    /// On the platform's clock.
    pub wait: Duration,
    /// The window the answer says is used up, when it says.
    pub window: Option<RateWindow>,
}

/// How long a 429 asks the key to pause: its `Retry-After` (either form, measured from the
/// answer's `Date`), else the body's `retry_after_seconds`, else the time to the
/// `X-RateLimit-Reset`; with none of them, 1 s, 2 s, 4 s … (the `consecutive`th 429 in a
/// row) up to `max_without_hint`. `local_now` stands in for a missing `Date`.
pub(crate) fn rate_limited_pause(
    response: &WireResponse,
    local_now: SystemTime,
    consecutive: u32,
    max_without_hint: Duration,
) -> Pause {
    let body = error_body(response);
    let server_now = server_now(response, local_now);
    let hinted = headers::parse_retry_after_header(&response.headers)
        .map(|retry_after| retry_after.delay_from(server_now))
        .or_else(|| {
            body.as_ref()
                .and_then(|b| b.error.retry_after_seconds)
                .map(Duration::from_secs)
        })
        .or_else(|| {
            let reset = headers::parse_rate_limit_headers(&response.headers)?.reset;
            let left = reset.checked_sub(unix_seconds(server_now))?;
            (left > 0).then(|| Duration::from_secs(left.unsigned_abs()))
        });
    let wait = match hinted {
        Some(wait) => wait.min(LONGEST_WAIT),
        None => Duration::from_secs(1)
            .saturating_mul(1u32 << consecutive.saturating_sub(1).min(16))
            .min(max_without_hint),
    };
    Pause {
        wait,
        window: body.and_then(|b| b.error.window),
    }
}

/// How long a ban lasts from now (platform time): the body's `banned_until`, else its
/// `Retry-After`, else `max_without_hint`; at most a day.
pub(crate) fn ban_wait(
    response: &WireResponse,
    local_now: SystemTime,
    max_without_hint: Duration,
) -> Duration {
    let server_now = server_now(response, local_now);
    let from_body = error_body(response)
        .and_then(|b| b.error.banned_until)
        .and_then(|until| SystemTime::from(until).duration_since(server_now).ok());
    from_body
        .or_else(|| {
            headers::parse_retry_after_header(&response.headers).map(|r| r.delay_from(server_now))
        })
        .unwrap_or(max_without_hint)
        .min(LONGEST_WAIT)
}

/// When to ask again after `409 idempotency_key_in_use`: its `Retry-After`, else a second.
pub(crate) fn in_use_wait(response: &WireResponse, local_now: SystemTime) -> Duration {
    headers::parse_retry_after_header(&response.headers)
        .map(|retry_after| retry_after.delay_from(server_now(response, local_now)))
        .unwrap_or(Duration::from_secs(1))
        .min(LONGEST_WAIT)
}

/// The answer's `Date`, or the local clock's reading when it has none.
fn server_now(response: &WireResponse, local_now: SystemTime) -> SystemTime {
    headers::parse_date_header(&response.headers).unwrap_or(local_now)
}

/// What a response says about the windows.
///
/// The `X-RateLimit-*` trio describes the binding window. The IETF `RateLimit` field, when
/// present, names it and gives the seconds to its reset outright (`t`), which beats
/// `Reset - Date` (a `Date` header may come from a different clock than `Reset`); its other
/// items describe the other window, whose reset is placed on that window's boundary.
/// `/v1/rate_limit`'s body reports both windows. Answers to an unknown or banned key carry
/// no budget (limit 0, or the ban's end as reset) and teach nothing. `local_now`: Unix
/// seconds on the local clock, for answers without a usable `Date`.
pub(crate) fn observations(
    response: &WireResponse,
    reports_both_windows: bool,
    local_now: i64,
) -> Vec<Observation> {
    let mut found = Vec::new();
    if response.status == StatusCode::UNAUTHORIZED
        || (response.status == StatusCode::FORBIDDEN
            && error_code(response) == Some(ErrorCode::KeyBanned))
    {
        return found;
    }
    let server_now = headers::parse_date_header(&response.headers).map(unix_seconds);
    let ietf = headers::parse_ietf_ratelimit_header(&response.headers);
    let policy = headers::parse_ietf_policy_header(&response.headers);
    let seconds_left = |kind: RateWindow| {
        ietf.iter()
            .find(|item| item.window() == Some(kind))
            .and_then(|item| item.param("t"))
            .filter(|t| *t >= 0)
            .map(|t| Duration::from_secs(t.unsigned_abs()))
    };
    if let Some(trio) =
        headers::parse_rate_limit_headers(&response.headers).filter(|trio| trio.limit > 0)
    {
        let binding = ietf
            .iter()
            .find(|item| item.window().is_some() && item.param("r") == Some(trio.remaining as i64));
        let binding_window = binding.and_then(|item| item.window());
        let binding_left = binding.and_then(|item| item.param("t")).filter(|t| *t >= 0);
        found.push(Observation {
            window: binding_window,
            limit: trio.limit,
            remaining: trio.remaining,
            reset_unix: trio.reset,
            answered_unix: server_now,
            until_reset: binding_left
                .map(|t| Duration::from_secs(t.unsigned_abs()))
                .or_else(|| until_reset(trio.reset, server_now, local_now)),
        });
        if let (Some(binding_window), Some(binding_left)) = (binding_window, binding_left) {
            let platform_now = trio.reset - binding_left;
            for item in &ietf {
                let Some(kind) = item.window().filter(|kind| *kind != binding_window) else {
                    continue;
                };
                let (Some(remaining), Some(left)) = (item.param("r"), item.param("t")) else {
                    continue;
                };
                let (Ok(remaining), Ok(left_secs)) =
                    (u64::try_from(remaining), u64::try_from(left))
                else {
                    continue;
                };
                let length = match kind {
                    RateWindow::Minute => 60,
                    RateWindow::Day => 86_400,
                };
                let limit = policy
                    .iter()
                    .find(|p| p.window() == Some(kind))
                    .and_then(|p| p.param("q"))
                    .and_then(|q| u64::try_from(q).ok())
                    .filter(|q| *q > 0);
                let Some(limit) = limit else { continue };
                let estimate = platform_now.saturating_add(left);
                let reset_unix = (estimate + length / 2).div_euclid(length) * length;
                found.push(Observation {
                    window: Some(kind),
                    limit,
                    remaining,
                    reset_unix,
                    answered_unix: server_now,
                    until_reset: Some(Duration::from_secs(left_secs)),
                });
                break;
            }
        }
    }
    if response.status.is_success()
        && reports_both_windows
        && let Ok(status) = serde_json::from_slice::<RateLimitStatus>(&response.body)
    {
        for (kind, window) in [
            (RateWindow::Minute, status.minute),
            (RateWindow::Day, status.day),
        ] {
            if window.limit == 0 {
                continue;
            }
            found.push(Observation {
                window: Some(kind),
                limit: window.limit,
                remaining: window.remaining,
                reset_unix: window.reset,
                answered_unix: server_now,
                until_reset: seconds_left(kind)
                    .or_else(|| until_reset(window.reset, server_now, local_now)),
            });
        }
    }
    found
}

/// Time left until `reset` on the platform's clock, measured from the response's `Date`.
/// A `Date` that puts the reset more than a day away (or in the past) is not believed; the
/// local clock is tried next; `None` means neither makes sense.
fn until_reset(reset: i64, server_now: Option<i64>, local_now: i64) -> Option<Duration> {
    let plausible = |now: i64| {
        let left = reset.checked_sub(now)?;
        (0..=86_400)
            .contains(&left)
            .then(|| Duration::from_secs(left.unsigned_abs()))
    };
    server_now
        .and_then(plausible)
        .or_else(|| plausible(local_now))
}

fn error_body(response: &WireResponse) -> Option<ErrorBody> {
    serde_json::from_slice(&response.body).ok()
}

fn error_code(response: &WireResponse) -> Option<ErrorCode> {
    error_body(response).map(|b| b.error.code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    use std::time::UNIX_EPOCH;

    fn response(status: u16, pairs: &[(&str, &str)], body: &str) -> WireResponse {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        WireResponse {
            status: StatusCode::from_u16(status).unwrap(),
            headers,
            body: Bytes::from(body.to_owned()),
        }
    }

    const RESET: i64 = 1_900_000_080;

    fn at(unix: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(unix)
    }

    fn date(unix: u64) -> String {
        httpdate::fmt_http_date(at(unix))
    }

    #[test]
    fn the_ietf_field_names_the_window_and_gives_both() {
        let answer = response(
            200,
            &[
                ("x-ratelimit-limit", "300"),
                ("x-ratelimit-remaining", "12"),
                ("x-ratelimit-reset", "1900000080"),
                // A Date from another clock entirely: ignored in favour of `t`.
                ("date", "Sun, 06 Nov 1994 08:49:37 GMT"),
                ("ratelimit", r#""minute";r=12;t=30, "day";r=900;t=22351"#),
                (
                    "ratelimit-policy",
                    r#""minute";q=300;w=60, "day";q=10000;w=86400"#,
                ),
            ],
            "{}",
        );
        let found = observations(&answer, false, 0);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].window, Some(RateWindow::Minute));
        assert_eq!(found[0].until_reset, Some(Duration::from_secs(30)));
        assert_eq!(found[0].reset_unix, RESET);
        assert_eq!(found[1].window, Some(RateWindow::Day));
        assert_eq!(found[1].limit, 10_000);
        assert_eq!(found[1].remaining, 900);
        // 30 s before RESET plus 22351 s (rounded up by the platform), on the day's boundary.
        assert_eq!(found[1].reset_unix, 1_900_022_400);
        assert_eq!(found[1].until_reset, Some(Duration::from_secs(22_351)));
    }

    #[test]
    fn without_the_ietf_field_the_date_header_measures_the_reset() {
        let answer = response(
            200,
            &[
                ("x-ratelimit-limit", "60"),
                ("x-ratelimit-remaining", "5"),
                ("x-ratelimit-reset", "1900000080"),
                ("date", &date(1_900_000_060)),
            ],
            "{}",
        );
        let found = observations(&answer, false, 0);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].window, None);
        assert_eq!(found[0].until_reset, Some(Duration::from_secs(20)));
        // Without a Date the local clock measures it; an implausible one measures nothing.
        let mut undated = answer.clone();
        undated.headers.remove("date");
        let found = observations(&undated, false, 1_900_000_070);
        assert_eq!(found[0].until_reset, Some(Duration::from_secs(10)));
        let found = observations(&undated, false, 1_000_000_000);
        assert_eq!(found[0].until_reset, None);
    }

    #[test]
    fn unknown_and_banned_keys_teach_nothing() {
        let headers = [
            ("x-ratelimit-limit", "0"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1900000080"),
        ];
        assert!(observations(&response(401, &headers, "{}"), false, 0).is_empty());
        let banned = response(
            403,
            &[
                ("x-ratelimit-limit", "300"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1900000777"),
            ],
            r#"{"error":{"code":"key_banned","message":"Banned."}}"#,
        );
        assert!(observations(&banned, false, 0).is_empty());
    }

    #[test]
    fn the_rate_limit_body_reports_both_windows() {
        let answer = response(
            200,
            &[("ratelimit", r#""minute";r=40;t=20, "day";r=900;t=4000"#)],
            r#"{"minute":{"limit":60,"remaining":40,"reset":1900000080},
                "day":{"limit":1000,"remaining":900,"reset":1900051200},"banned_until":null}"#,
        );
        let found = observations(&answer, true, 0);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].until_reset, Some(Duration::from_secs(20)));
        assert_eq!(found[1].window, Some(RateWindow::Day));
        assert_eq!(found[1].remaining, 900);
        // Another path's body is not read as a report.
        assert!(observations(&answer, false, 0).is_empty());
    }

    #[test]
    fn answers_are_told_apart_by_status_and_code() {
        let body = |code: &str| format!(r#"{{"error":{{"code":"{code}","message":"."}}}}"#);
        assert_eq!(
            classify(&response(429, &[], &body("rate_limited"))),
            Outcome::RateLimited
        );
        assert_eq!(
            classify(&response(403, &[], &body("key_banned"))),
            Outcome::Banned
        );
        assert_eq!(
            classify(&response(403, &[], &body("plan_upgrade_required"))),
            Outcome::Final
        );
        assert_eq!(classify(&response(503, &[], "")), Outcome::ServerError);
        assert_eq!(
            classify(&response(409, &[], &body("idempotency_key_in_use"))),
            Outcome::KeyInUse
        );
        assert_eq!(
            classify(&response(409, &[], &body("domain_taken"))),
            Outcome::Final
        );
        assert_eq!(classify(&response(200, &[], "{}")), Outcome::Final);
    }

    const NO_HINT: Duration = Duration::from_secs(60);

    #[test]
    fn a_429_pauses_for_its_retry_after_measured_from_its_date() {
        let limited = r#"{"error":{"code":"rate_limited","message":".","retry_after_seconds":9,"window":"day"}}"#;
        // Seconds: as they are.
        let pause = rate_limited_pause(
            &response(429, &[("retry-after", "17")], limited),
            at(0),
            1,
            NO_HINT,
        );
        assert_eq!(
            pause,
            Pause {
                wait: Duration::from_secs(17),
                window: Some(RateWindow::Day)
            }
        );
        // A date: from the answer's own Date, whatever the local clock says.
        let dated = response(
            429,
            &[
                ("retry-after", &date(1_900_000_045)),
                ("date", &date(1_900_000_020)),
            ],
            "{}",
        );
        assert_eq!(
            rate_limited_pause(&dated, at(5), 1, NO_HINT).wait,
            Duration::from_secs(25)
        );
        // No Date: the local clock stands in.
        let mut undated = dated.clone();
        undated.headers.remove("date");
        assert_eq!(
            rate_limited_pause(&undated, at(1_900_000_040), 1, NO_HINT).wait,
            Duration::from_secs(5)
        );
        // A Retry-After of a year is taken as a day.
        assert_eq!(
            rate_limited_pause(
                &response(429, &[("retry-after", "31536000")], "{}"),
                at(0),
                1,
                NO_HINT
            )
            .wait,
            Duration::from_secs(86_400)
        );
    }

    #[test]
    fn without_retry_after_the_body_then_the_reset_then_a_backoff() {
        let from_body = response(
            429,
            &[],
            r#"{"error":{"code":"rate_limited","message":".","retry_after_seconds":9}}"#,
        );
        assert_eq!(
            rate_limited_pause(&from_body, at(0), 1, NO_HINT),
            Pause {
                wait: Duration::from_secs(9),
                window: None
            }
        );
        let from_reset = response(
            429,
            &[
                ("x-ratelimit-limit", "60"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "1900000080"),
                ("date", &date(1_900_000_068)),
            ],
            "{}",
        );
        assert_eq!(
            rate_limited_pause(&from_reset, at(0), 1, NO_HINT).wait,
            Duration::from_secs(12)
        );
        let nothing = response(429, &[], "{}");
        let waits: Vec<u64> = (1..=8)
            .map(|n| {
                rate_limited_pause(&nothing, at(0), n, NO_HINT)
                    .wait
                    .as_secs()
            })
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(
            rate_limited_pause(&nothing, at(0), u32::MAX, NO_HINT).wait,
            NO_HINT,
            "no overflow however many in a row"
        );
    }

    #[test]
    fn a_ban_lasts_until_banned_until_else_retry_after() {
        let banned = response(
            403,
            &[("date", &date(1_900_000_000)), ("retry-after", "5")],
            r#"{"error":{"code":"key_banned","message":".","banned_until":"2030-03-17T17:48:20Z"}}"#,
        );
        // 2030-03-17T17:48:20Z is 1_900_000_100: 100 s after the Date.
        assert_eq!(ban_wait(&banned, at(0), NO_HINT), Duration::from_secs(100));
        let told = response(
            403,
            &[("retry-after", "900")],
            r#"{"error":{"code":"key_banned","message":"."}}"#,
        );
        assert_eq!(ban_wait(&told, at(0), NO_HINT), Duration::from_secs(900));
        let silent = response(403, &[], r#"{"error":{"code":"key_banned","message":"."}}"#);
        assert_eq!(ban_wait(&silent, at(0), NO_HINT), NO_HINT);
    }

    #[test]
    fn a_key_in_use_is_asked_again_when_told_else_after_a_second() {
        let told = response(409, &[("retry-after", "3")], "{}");
        assert_eq!(in_use_wait(&told, at(0)), Duration::from_secs(3));
        assert_eq!(
            in_use_wait(&response(409, &[], "{}"), at(0)),
            Duration::from_secs(1)
        );
    }
}

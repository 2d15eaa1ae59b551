//! The gate every `/v1` request passes: authentication, the rate limiter and the ban, the
//! configured faults, and the rate-limit headers on every answer, errors included.
//!
//! Order: (1) no or unknown key → `401` with a zero budget (`X-RateLimit-Limit: 0`,
//! `Remaining: 0`, `Reset` at the end of the current minute: without a key nothing is
//! admitted); (2) a banned key → `403 key_banned`; (3) the limiter admits or answers `429`
//! (`GET /v1/rate_limit` is looked at without being counted); (4) faults: added latency, a
//! dropped connection, or `503 service_unavailable` — these hit requests the limiter already
//! admitted, as an overloaded platform behind its gateway would; (5) the handler, through the
//! idempotency replay for `POST` with an `Idempotency-Key`.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use domain_desk_api::rate_limit::{
    IDEMPOTENCY_KEY, IETF_POLICY, IETF_RATELIMIT, LIMIT, REMAINING, RESET, RETRY_AFTER,
};
use domain_desk_api::{ErrorCode, RateWindow};
use rand::Rng;

use super::extract::Caller;
use super::idempotency;
use crate::Error;
use crate::http::state::AppState;
use crate::limiter::{Admission, Snapshot, seconds_until};
use crate::server::DropConnection;
use crate::store;

pub fn is_v1(path: &str) -> bool {
    path == "/v1" || path.starts_with("/v1/")
}

fn bearer_key(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, key) = value.trim().split_once(' ')?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

/// Where every `/v1` request is logged (at debug level) once it is answered: method, path,
/// status, when it arrived and, for 429 and 403, the Retry-After it got. Never the key.
pub const ACCESS_LOG: &str = "domain_desk_service::access";

pub async fn gate(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if !is_v1(req.uri().path()) {
        return next.run(req).await;
    }
    let received = state.now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let response = admit_and_run(state, req, next).await;
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    tracing::debug!(
        target: ACCESS_LOG,
        %method,
        %path,
        status = response.status().as_u16(),
        dropped = response.extensions().get::<DropConnection>().is_some(),
        received = %received.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        retry_after,
        "request"
    );
    response
}

async fn admit_and_run(state: AppState, mut req: Request, next: Next) -> Response {
    let key = bearer_key(req.headers()).map(str::to_owned);
    let account = match &key {
        Some(key) => state.account_for_key(key).await,
        None => Ok(None),
    };
    let now = state.now();
    let (account, key) = match (account, key) {
        (Ok(Some(account)), Some(key)) => (account, key),
        (Err(err), _) => {
            let mut response = err.into_response();
            zero_budget_headers(response.headers_mut(), now);
            return response;
        }
        _ => {
            let mut response = Error::unauthorized().into_response();
            zero_budget_headers(response.headers_mut(), now);
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    };

    let is_status_query =
        matches!(*req.method(), Method::GET | Method::HEAD) && req.uri().path() == "/v1/rate_limit";
    let limits = account.limits;
    // The limiter reads the clock under its own lock (not `now` from before the key lookup):
    // a request delayed past a window's edge by others must not be decided in the old window.
    let clock = || state.now();
    let (snapshot, now) = if is_status_query {
        match state.limiter().peek_now(&key, &limits, clock) {
            (Ok(snapshot), now) => (snapshot, now),
            (Err((snapshot, until)), now) => return banned(snapshot, until, now),
        }
    } else {
        let (admission, now) = state.limiter().admit_now(&key, &limits, clock);
        match admission {
            Admission::Admitted(snapshot) => (snapshot, now),
            Admission::Limited {
                snapshot,
                retry_after,
                window,
            } => return limited(snapshot, retry_after, window, now),
            Admission::Banned {
                snapshot,
                until,
                newly,
                ..
            } => {
                if newly {
                    tracing::warn!(account = %account.id, %until, "API key banned for requests while rate limited");
                    let saved_key = key.clone();
                    if let Err(err) = state
                        .store()
                        .write(move |tx| store::bans::save(tx, &saved_key, until))
                        .await
                    {
                        tracing::error!(error = %err, "could not save a ban");
                    }
                }
                return banned(snapshot, until, now);
            }
        }
    };

    let faults = state.faults();
    if faults.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(faults.latency_ms)).await;
    }
    if faults.drop_rate > 0.0 && rand::thread_rng().gen_bool(faults.drop_rate.clamp(0.0, 1.0)) {
        let mut response = StatusCode::SERVICE_UNAVAILABLE.into_response();
        response.extensions_mut().insert(DropConnection);
        return response;
    }
    if faults.error_rate > 0.0 && rand::thread_rng().gen_bool(faults.error_rate.clamp(0.0, 1.0)) {
        let mut response = Error::api(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ServiceUnavailable,
            "The service is unavailable for a moment (an injected fault); try again.",
        )
        .into_response();
        rate_headers(response.headers_mut(), &snapshot, now);
        return response;
    }

    req.extensions_mut().insert(snapshot);
    let wants_replay = req.method() == Method::POST && req.headers().contains_key(IDEMPOTENCY_KEY);
    req.extensions_mut().insert(Caller {
        account,
        api_key: key.clone(),
    });
    let mut response = if wants_replay {
        idempotency::replay_or_run(&state, &key, req, next).await
    } else {
        next.run(req).await
    };
    rate_headers(response.headers_mut(), &snapshot, now);
    response
}

fn limited(
    snapshot: Snapshot,
    retry_after: u64,
    window: RateWindow,
    now: DateTime<Utc>,
) -> Response {
    let mut response = Error::rate_limited(retry_after, window).into_response();
    let headers = response.headers_mut();
    rate_headers(headers, &snapshot, now);
    headers.insert(
        HeaderName::from_static(RETRY_AFTER),
        HeaderValue::from(retry_after),
    );
    response
}

/// `403 key_banned`. The headers say no request is admitted until the ban ends: `Remaining:
/// 0` and `Reset` at the ban's end.
fn banned(snapshot: Snapshot, until: DateTime<Utc>, now: DateTime<Utc>) -> Response {
    let retry_after = seconds_until(now, until);
    let mut response = Error::key_banned(retry_after, until).into_response();
    let headers = response.headers_mut();
    let (window, status) = snapshot.binding();
    let ban_end = now.timestamp() + retry_after as i64;
    headers.insert(
        HeaderName::from_static(LIMIT),
        HeaderValue::from(status.limit),
    );
    headers.insert(HeaderName::from_static(REMAINING), HeaderValue::from(0u64));
    headers.insert(HeaderName::from_static(RESET), HeaderValue::from(ban_end));
    insert_text(headers, IETF_POLICY, policy_field(&snapshot));
    insert_text(
        headers,
        IETF_RATELIMIT,
        format!("\"{}\";r=0;t={retry_after}", window_name(window)),
    );
    headers.insert(
        HeaderName::from_static(RETRY_AFTER),
        HeaderValue::from(retry_after),
    );
    response
}

/// Without a key nothing is admitted: limit 0, remaining 0, reset at the end of this minute.
fn zero_budget_headers(headers: &mut HeaderMap, now: DateTime<Utc>) {
    let reset = (now.timestamp().div_euclid(60) + 1) * 60;
    headers.insert(HeaderName::from_static(LIMIT), HeaderValue::from(0u64));
    headers.insert(HeaderName::from_static(REMAINING), HeaderValue::from(0u64));
    headers.insert(HeaderName::from_static(RESET), HeaderValue::from(reset));
}

fn window_name(window: RateWindow) -> &'static str {
    match window {
        RateWindow::Minute => "minute",
        RateWindow::Day => "day",
    }
}

fn policy_field(snapshot: &Snapshot) -> String {
    format!(
        "\"minute\";q={};w=60, \"day\";q={};w=86400",
        snapshot.minute.limit, snapshot.day.limit
    )
}

fn insert_text(headers: &mut HeaderMap, name: &'static str, value: String) {
    if let Ok(value) = HeaderValue::from_str(&value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

/// The `X-RateLimit-*` trio for the binding window, and the IETF draft's `RateLimit-Policy`
/// (both windows) and `RateLimit` (the binding window first, then the other).
pub fn rate_headers(headers: &mut HeaderMap, snapshot: &Snapshot, now: DateTime<Utc>) {
    let (window, binding) = snapshot.binding();
    headers.insert(
        HeaderName::from_static(LIMIT),
        HeaderValue::from(binding.limit),
    );
    headers.insert(
        HeaderName::from_static(REMAINING),
        HeaderValue::from(binding.remaining),
    );
    headers.insert(
        HeaderName::from_static(RESET),
        HeaderValue::from(binding.reset),
    );
    let item = |window: RateWindow, status: &domain_desk_api::WindowStatus| {
        let reset = DateTime::from_timestamp(status.reset, 0).unwrap_or(now);
        format!(
            "\"{}\";r={};t={}",
            window_name(window),
            status.remaining,
            seconds_until(now, reset)
        )
    };
    let (other_window, other) = match window {
        RateWindow::Minute => (RateWindow::Day, &snapshot.day),
        RateWindow::Day => (RateWindow::Minute, &snapshot.minute),
    };
    insert_text(headers, IETF_POLICY, policy_field(snapshot));
    insert_text(
        headers,
        IETF_RATELIMIT,
        format!("{}, {}", item(window, &binding), item(other_window, other)),
    );
}

//! An in-process platform that implements exactly the rate-limit rules of API v1 (two fixed
//! windows per key, 429 with Retry-After, the ban after more than N requests while limited)
//! on Tokio's clock, so scheduler tests run on paused time and are deterministic. It logs
//! every request it receives, with the platform time, so tests can check what was sent when.
//!
//! Its clock can be skewed against the local one and sped up; its `Retry-After` can be sent
//! in each of the forms HTTP allows; and it can be scripted to fail (5xx, dropped
//! connections, responses lost after the work was done).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use domain_desk_client::{ApiRequest, Transport, TransportError, WireResponse};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use tokio::time::Instant;

/// How the fake writes `Retry-After` on a 429.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterStyle {
    Seconds,
    ImfFixdate,
    Rfc850,
    Asctime,
    /// No header, no `retry_after_seconds` in the body, no rate-limit headers on the 429.
    Nothing,
}

/// A scripted answer that replaces the normal processing of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scripted {
    /// Answer with this status and an error body, without counting the request.
    Status(u16),
    /// Close the connection without an answer, without processing.
    Drop,
    /// Process the request normally, then lose the answer on the way back.
    LoseAnswer,
    /// Answer `409 idempotency_key_in_use` with `Retry-After` in platform seconds, without
    /// processing (an earlier attempt with the same key is still running).
    KeyInUse { retry_after: u64 },
}

#[derive(Debug, Clone)]
pub struct Record {
    /// Which transport sent it (several clients can share one platform and key).
    pub client: &'static str,
    pub sent_at: Instant,
    pub answered_at: Instant,
    /// Platform seconds since the Unix epoch when the request was processed.
    pub platform_time: f64,
    pub path: String,
    pub status: Option<u16>,
    /// Sent after a 429 and before its Retry-After time.
    pub while_limited: bool,
}

pub struct Settings {
    pub per_minute: u64,
    pub per_day: u64,
    /// Platform Unix time at the moment the fake is created (a minute boundary by default).
    pub start_unix: f64,
    pub speed: f64,
    /// One-way latency; an answer takes twice this.
    pub latency: Duration,
    pub ban_threshold: u32,
    pub ban_seconds: u64,
    pub retry_after_style: RetryAfterStyle,
    pub send_date: bool,
}

impl Settings {
    pub fn plan(per_minute: u64, per_day: u64) -> Self {
        Self {
            per_minute,
            per_day,
            start_unix: 1_900_000_020.0,
            speed: 1.0,
            latency: Duration::from_millis(20),
            ban_threshold: 10,
            ban_seconds: 900,
            retry_after_style: RetryAfterStyle::Seconds,
            send_date: true,
        }
    }

    pub fn free() -> Self {
        Self::plan(60, 1_000)
    }

    pub fn pro() -> Self {
        Self::plan(300, 10_000)
    }
}

struct State {
    settings: Settings,
    origin: Instant,
    minute_index: i64,
    minute_used: u64,
    day_index: i64,
    day_used: u64,
    limited_until: f64,
    sent_while_limited: u32,
    banned_until: f64,
    script: VecDeque<Scripted>,
    /// Answer every request with this status (an outage), when set.
    outage: Option<u16>,
    idempotency: HashMap<String, (StatusCode, Bytes)>,
    created: u64,
    log: Vec<Record>,
    counter: u64,
}

#[derive(Clone)]
pub struct FakePlatform {
    state: Arc<Mutex<State>>,
}

impl FakePlatform {
    pub fn new(settings: Settings) -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                settings,
                origin: Instant::now(),
                minute_index: i64::MIN,
                minute_used: 0,
                day_index: i64::MIN,
                day_used: 0,
                limited_until: f64::MIN,
                sent_while_limited: 0,
                banned_until: f64::MIN,
                script: VecDeque::new(),
                outage: None,
                idempotency: HashMap::new(),
                created: 0,
                log: Vec::new(),
                counter: 0,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A transport for one client of this platform.
    pub fn transport(&self, client: &'static str) -> FakeTransport {
        FakeTransport {
            platform: self.clone(),
            client,
        }
    }

    pub fn log(&self) -> Vec<Record> {
        self.lock().log.clone()
    }

    /// Requests the platform answered 429.
    pub fn rate_limited(&self) -> usize {
        self.log().iter().filter(|r| r.status == Some(429)).count()
    }

    pub fn sent_while_limited(&self) -> usize {
        self.log().iter().filter(|r| r.while_limited).count()
    }

    pub fn was_banned(&self) -> bool {
        self.lock().banned_until > f64::MIN
    }

    /// Resources created by POSTs (a retried POST with the same idempotency key counts once).
    pub fn created(&self) -> u64 {
        self.lock().created
    }

    pub fn script(&self, answers: impl IntoIterator<Item = Scripted>) {
        self.lock().script.extend(answers);
    }

    pub fn set_outage(&self, status: Option<u16>) {
        self.lock().outage = status;
    }

    /// Someone else used the key: `minute` and `day` requests counted now.
    pub fn consume(&self, minute: u64, day: u64) {
        let mut state = self.lock();
        let now = state.platform_now();
        state.roll(now);
        state.minute_used += minute;
        state.day_used += day;
    }

    /// Bans the key from now for `seconds` of platform time.
    pub fn ban_for(&self, seconds: f64) {
        let mut state = self.lock();
        let now = state.platform_now();
        state.banned_until = now + seconds;
    }

    pub fn platform_now(&self) -> f64 {
        self.lock().platform_now()
    }
}

impl State {
    fn platform_now(&self) -> f64 {
        self.settings.start_unix
            + Instant::now().duration_since(self.origin).as_secs_f64() * self.settings.speed
    }

    fn roll(&mut self, now: f64) {
        let minute = (now / 60.0).floor() as i64;
        if minute != self.minute_index {
            self.minute_index = minute;
            self.minute_used = 0;
        }
        let day = (now / 86_400.0).floor() as i64;
        if day != self.day_index {
            self.day_index = day;
            self.day_used = 0;
        }
    }

    /// (limit, remaining, reset) of the binding window.
    fn binding(&self) -> (u64, u64, i64, &'static str) {
        let minute = (
            self.settings.per_minute,
            self.settings.per_minute.saturating_sub(self.minute_used),
            (self.minute_index + 1) * 60,
            "minute",
        );
        let day = (
            self.settings.per_day,
            self.settings.per_day.saturating_sub(self.day_used),
            (self.day_index + 1) * 86_400,
            "day",
        );
        if (day.1, day.2) < (minute.1, minute.2) {
            day
        } else {
            minute
        }
    }

    fn headers(&self, now: f64, rate_headers: bool) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if self.settings.send_date {
            let date = UNIX_EPOCH + Duration::from_secs(now.floor() as u64);
            insert(&mut headers, "date", &httpdate::fmt_http_date(date));
        }
        if rate_headers {
            let (limit, remaining, reset, _) = self.binding();
            insert(&mut headers, "x-ratelimit-limit", &limit.to_string());
            insert(
                &mut headers,
                "x-ratelimit-remaining",
                &remaining.to_string(),
            );
            insert(&mut headers, "x-ratelimit-reset", &reset.to_string());
        }
        headers
    }

    fn handle(&mut self, request: &ApiRequest) -> (Option<Scripted>, Option<WireResponse>, bool) {
        let now = self.platform_now();
        self.roll(now);
        let while_limited = now < self.limited_until;
        if now < self.banned_until {
            let left = (self.banned_until - now).ceil() as u64;
            let mut headers = self.headers(now, true);
            insert(&mut headers, "retry-after", &left.to_string());
            let body = format!(
                r#"{{"error":{{"code":"key_banned","message":"Banned.","retry_after_seconds":{left}}}}}"#
            );
            return (None, Some(answer(403, headers, body)), while_limited);
        }
        if while_limited {
            self.sent_while_limited += 1;
            if self.sent_while_limited > self.settings.ban_threshold {
                self.banned_until = now + self.settings.ban_seconds as f64;
                return self.handle(request);
            }
        }
        let scripted = self.script.pop_front();
        match scripted {
            Some(Scripted::Drop) => return (scripted, None, while_limited),
            Some(Scripted::KeyInUse { retry_after }) => {
                let mut headers = self.headers(now, false);
                insert(&mut headers, "retry-after", &retry_after.to_string());
                let body =
                    r#"{"error":{"code":"idempotency_key_in_use","message":"Still running."}}"#;
                return (
                    scripted,
                    Some(answer(409, headers, body.into())),
                    while_limited,
                );
            }
            Some(Scripted::Status(status)) => {
                let headers = self.headers(now, false);
                let body = r#"{"error":{"code":"service_unavailable","message":"Try again."}}"#;
                return (
                    scripted,
                    Some(answer(status, headers, body.into())),
                    while_limited,
                );
            }
            _ => {}
        }
        if let Some(status) = self.outage {
            let headers = self.headers(now, false);
            let body = r#"{"error":{"code":"internal","message":"Outage."}}"#;
            return (
                scripted,
                Some(answer(status, headers, body.into())),
                while_limited,
            );
        }
        if request.path == "/v1/rate_limit" {
            let window = |limit: u64, used: u64, reset: i64| {
                format!(
                    r#"{{"limit":{limit},"remaining":{},"reset":{reset}}}"#,
                    limit.saturating_sub(used)
                )
            };
            let body = format!(
                r#"{{"minute":{},"day":{},"banned_until":null}}"#,
                window(
                    self.settings.per_minute,
                    self.minute_used,
                    (self.minute_index + 1) * 60
                ),
                window(
                    self.settings.per_day,
                    self.day_used,
                    (self.day_index + 1) * 86_400
                )
            );
            let headers = self.headers(now, false);
            return (scripted, Some(answer(200, headers, body)), while_limited);
        }
        let (_, remaining, reset, window) = self.binding();
        if remaining == 0 {
            let retry_after = (reset as f64 - now).ceil().max(1.0) as u64;
            self.limited_until = now + retry_after as f64;
            self.sent_while_limited = 0;
            let style = self.settings.retry_after_style;
            let mut headers = self.headers(now, style != RetryAfterStyle::Nothing);
            let at = UNIX_EPOCH + Duration::from_secs(now.floor() as u64 + retry_after);
            match style {
                RetryAfterStyle::Seconds => {
                    insert(&mut headers, "retry-after", &retry_after.to_string())
                }
                RetryAfterStyle::ImfFixdate => {
                    insert(&mut headers, "retry-after", &httpdate::fmt_http_date(at));
                }
                RetryAfterStyle::Rfc850 => insert(&mut headers, "retry-after", &rfc850(at)),
                RetryAfterStyle::Asctime => insert(&mut headers, "retry-after", &asctime(at)),
                RetryAfterStyle::Nothing => {}
            }
            let body = if style == RetryAfterStyle::Nothing {
                r#"{"error":{"code":"rate_limited","message":"Slow down."}}"#.to_owned()
            } else {
                format!(
                    r#"{{"error":{{"code":"rate_limited","message":"Slow down.","retry_after_seconds":{retry_after},"window":"{window}"}}}}"#
                )
            };
            return (scripted, Some(answer(429, headers, body)), while_limited);
        }
        self.minute_used += 1;
        self.day_used += 1;
        let headers = self.headers(now, true);
        let (status, body) = if request.method == Method::POST {
            let key = request.idempotency_key.clone();
            match key.as_ref().and_then(|k| self.idempotency.get(k)) {
                Some((status, body)) => (*status, body.clone()),
                None => {
                    self.created += 1;
                    self.counter += 1;
                    let created = (
                        StatusCode::CREATED,
                        Bytes::from(format!(r#"{{"created":{}}}"#, self.counter)),
                    );
                    if let Some(key) = key {
                        self.idempotency.insert(key, created.clone());
                    }
                    created
                }
            }
        } else {
            self.counter += 1;
            (
                StatusCode::OK,
                Bytes::from(format!(
                    r#"{{"path":"{}","n":{}}}"#,
                    request.path, self.counter
                )),
            )
        };
        let response = WireResponse {
            status,
            headers,
            body,
        };
        (scripted, Some(response), while_limited)
    }
}

fn answer(status: u16, headers: HeaderMap, body: String) -> WireResponse {
    WireResponse {
        status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        headers,
        body: Bytes::from(body),
    }
}

fn insert(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

const WEEKDAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Calendar parts of a time (UTC): (weekday from Thursday, year, month 0-11, day, h, m, s).
fn parts(time: SystemTime) -> (usize, i64, usize, i64, u64, u64, u64) {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        (days.rem_euclid(7)) as usize,
        year,
        (month - 1) as usize,
        day,
        rem / 3_600,
        rem / 60 % 60,
        rem % 60,
    )
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`
pub fn rfc850(time: SystemTime) -> String {
    let (weekday, year, month, day, h, m, s) = parts(time);
    format!(
        "{}, {day:02}-{}-{:02} {h:02}:{m:02}:{s:02} GMT",
        WEEKDAYS[weekday],
        MONTHS[month],
        year.rem_euclid(100)
    )
}

/// `Sun Nov  6 08:49:37 1994`
pub fn asctime(time: SystemTime) -> String {
    let (weekday, year, month, day, h, m, s) = parts(time);
    format!(
        "{} {} {day:>2} {h:02}:{m:02}:{s:02} {year}",
        &WEEKDAYS[weekday][..3],
        MONTHS[month]
    )
}

pub struct FakeTransport {
    platform: FakePlatform,
    client: &'static str,
}

impl Transport for FakeTransport {
    fn send(
        &self,
        request: &ApiRequest,
    ) -> BoxFuture<'static, Result<WireResponse, TransportError>> {
        let platform = self.platform.clone();
        let client = self.client;
        let request = request.clone();
        Box::pin(async move {
            let sent_at = Instant::now();
            let latency = platform.lock().settings.latency;
            tokio::time::sleep(latency).await;
            let platform_time = platform.platform_now();
            let (scripted, response, while_limited) = platform.lock().handle(&request);
            tokio::time::sleep(latency).await;
            let lost = matches!(scripted, Some(Scripted::LoseAnswer | Scripted::Drop));
            platform.lock().log.push(Record {
                client,
                sent_at,
                answered_at: Instant::now(),
                platform_time,
                path: request.path.clone(),
                status: response.as_ref().map(|r| r.status.as_u16()),
                while_limited,
            });
            match response {
                Some(response) if !lost => Ok(response),
                _ => Err(TransportError::Network("connection closed".into())),
            }
        })
    }
}

#[test]
fn the_fakes_date_forms_are_what_http_allows() {
    let example = UNIX_EPOCH + Duration::from_secs(784_111_777);
    assert_eq!(rfc850(example), "Sunday, 06-Nov-94 08:49:37 GMT");
    assert_eq!(asctime(example), "Sun Nov  6 08:49:37 1994");
}

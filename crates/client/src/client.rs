//! The typed client for the whole of API v1, and the handle every caller holds.
//!
//! A [`Client`] is cheap to clone: it holds the handle of its key's scheduler
//! ([`crate::queue::Handle`]) and the priority and job its requests go under.
//! `client.bulk().in_job(job)` is the same queue, just a different place in it.
//!
//! It is longer than the house's 500 lines with its tests (about 430 of code, 90 of tests): it
//! is one typed method per endpoint of API v1, each a few lines over the same `call`, `decode`
//! and `error_from`, and the paging they share (`Pages`). What is more than one call is apart
//! already: the scheduler (`crate::queue`), the transport (`crate::transport`), the errors
//! (`crate::error`), and the edits made of several calls (`domain_config.rs`, `www_pair.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use domain_desk_api::{
    Account, AddDomain, CreateDeploy, CreateProject, DANGLING_DNS_RECORD, DanglingRecord, Deploy,
    Domain, DomainConfig, DomainList, DomainRemoval, DomainRemovalList, ErrorBody, ErrorCode,
    MoveDomain, Project, ProjectList, RateLimitStatus,
};
use reqwest::StatusCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::config::{ClientConfig, QueueConfig};
use crate::error::{Error, Result};
use crate::headers;
use crate::queue::{self, JobId, RATE_LIMIT_PATH};
use crate::state::{Priority, QueueState};
use crate::transport::{ApiRequest, HttpTransport, Transport, WireResponse};
use crate::windows::WindowBudget;

#[derive(Clone)]
pub struct Client {
    queue: queue::Handle,
    priority: Priority,
    job: Option<JobId>,
    job_ids: Arc<AtomicU64>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("priority", &self.priority)
            .field("job", &self.job)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts the key's scheduler with the real HTTP transport. Must be called inside a Tokio
    /// runtime; the scheduler lives as long as any clone of the returned handle.
    pub fn new(config: ClientConfig) -> Result<Self> {
        let transport =
            HttpTransport::new(&config.base_url, &config.api_key, config.request_timeout)?
                .max_response_bytes(config.max_response_bytes);
        let mut queue = config.queue;
        if let (None, Some(dir)) = (&queue.shared_budget, &config.data_dir) {
            queue.shared_budget = Some(crate::ledger::ledger_path(
                dir,
                &config.base_url,
                &config.api_key,
            ));
        }
        Self::with_transport(queue, transport)
    }

    /// Starts a scheduler over any transport (tests, instrumented benchmarks).
    pub fn with_transport(queue: QueueConfig, transport: impl Transport) -> Result<Self> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Error::Setup(
                "the request queue needs a Tokio runtime to run on".into(),
            ));
        }
        Ok(Self {
            queue: queue::Handle::spawn(queue, Arc::new(transport))?,
            priority: Priority::Interactive,
            job: None,
            job_ids: Arc::new(AtomicU64::new(1)),
        })
    }

    /// The same queue, with requests sent at this priority.
    pub fn with_priority(&self, priority: Priority) -> Self {
        Self {
            priority,
            ..self.clone()
        }
    }

    pub fn interactive(&self) -> Self {
        self.with_priority(Priority::Interactive)
    }

    pub fn background(&self) -> Self {
        self.with_priority(Priority::Background)
    }

    pub fn bulk(&self) -> Self {
        self.with_priority(Priority::Bulk)
    }

    /// A new job id, for grouping requests that are cancelled together.
    pub fn new_job(&self) -> JobId {
        JobId(self.job_ids.fetch_add(1, Ordering::Relaxed))
    }

    /// The same queue, with requests filed under `job`.
    pub fn in_job(&self, job: JobId) -> Self {
        Self {
            job: Some(job),
            ..self.clone()
        }
    }

    /// Withdraws every queued request of `job`; their callers get [`Error::Cancelled`].
    /// Requests already sent finish normally.
    pub async fn cancel_job(&self, job: JobId) -> Result<()> {
        self.queue.cancel_job(job).await
    }

    /// Tells the queue what the platform's clock read after it was changed (the local
    /// service's clock was sped up, slowed down or moved forward): `now` on it, running at
    /// `speed` platform seconds per local second from there (1 for the real platform). The
    /// queue keeps its count and places each window's reset again on its own clock, so it
    /// knows when the budget refills; a window the clock has moved past starts over full.
    pub async fn follow_platform_clock(&self, now: DateTime<Utc>, speed: f64) -> Result<()> {
        if !(speed.is_finite() && speed > 0.0) {
            return Err(Error::InvalidInput(
                "The clock speed must be a positive number.".into(),
            ));
        }
        self.queue
            .follow_platform_clock(now.timestamp_millis(), speed)
            .await
    }

    /// Both handles feed the same queue (the same key's scheduler).
    pub fn same_queue(&self, other: &Client) -> bool {
        self.queue.same_queue(&other.queue)
    }

    /// How many handles to this queue exist, this one included (every clone, any priority or
    /// job): one means no one else can send on it.
    pub fn handles(&self) -> usize {
        self.queue.handles()
    }

    /// The queue's task still runs.
    pub fn is_running(&self) -> bool {
        self.queue.is_running()
    }

    /// The queue's state, updated as it changes (for the rate-limit meter).
    pub fn state(&self) -> watch::Receiver<QueueState> {
        self.queue.state()
    }

    /// How long from `now` until `requests` more requests (none of them on the wire yet) can
    /// all have been sent, by the key's minute and day windows as the queue knows them now
    /// ([`WindowBudget`]); zero when they fit in what is left. `now` is the caller's clock (the
    /// wall clock, or a frozen one in a test) and `clock_speed` the platform's seconds per
    /// local second (1 for the real platform). Sends nothing: a budget only the platform
    /// knows (another computer's use of the key) is not asked for.
    pub fn wait_for(&self, requests: u64, now: DateTime<Utc>, clock_speed: f64) -> Duration {
        let now = now.timestamp_millis() as f64 / 1000.0;
        let state = self.queue.state().borrow().clone();
        WindowBudget::from_queue(&state, now, clock_speed).earliest_done(requests, now)
    }

    /// Queues a raw request and waits for the platform's answer, whatever its status. Dropping
    /// the future withdraws the request if it has not been sent.
    pub async fn send(&self, request: ApiRequest) -> Result<WireResponse> {
        self.queue.submit(request, self.priority, self.job).await
    }

    async fn call<T: DeserializeOwned>(&self, request: ApiRequest) -> Result<T> {
        let response = self.send(request).await?;
        decode(&response)
    }

    async fn call_no_content(&self, request: ApiRequest) -> Result<()> {
        let response = self.send(request).await?;
        if response.status.is_success() {
            Ok(())
        } else {
            Err(error_from(&response))
        }
    }

    // ---- API v1 ----------------------------------------------------------------------

    pub async fn account(&self) -> Result<Account> {
        self.call(ApiRequest::get("/v1/account")).await
    }

    /// Both windows and any ban. The platform does not count this request.
    pub async fn rate_limit(&self) -> Result<RateLimitStatus> {
        let mut request = ApiRequest::get(RATE_LIMIT_PATH);
        request.counted = false;
        self.call(request).await
    }

    /// Every project of the account, page after page.
    pub async fn projects(&self) -> Result<Vec<Project>> {
        let mut projects = Vec::new();
        let mut pages = Pages::default();
        while let Some(path) = pages.next_path("/v1/projects")? {
            let page: ProjectList = self.call(ApiRequest::get(path)).await?;
            projects.extend(page.projects);
            pages.advance(page.next_cursor);
        }
        Ok(projects)
    }

    pub async fn create_project(&self, name: &str) -> Result<Project> {
        let body = json(&CreateProject {
            name: name.to_owned(),
        })?;
        self.call(ApiRequest::post("/v1/projects", body)).await
    }

    pub async fn project(&self, project_id: &str) -> Result<Project> {
        let path = format!("/v1/projects/{}", segment(project_id, "project id")?);
        self.call(ApiRequest::get(path)).await
    }

    /// Deploys `files` (path to text); `None` deploys the platform's placeholder page.
    pub async fn deploy(
        &self,
        project_id: &str,
        files: Option<BTreeMap<String, String>>,
    ) -> Result<Deploy> {
        let path = format!(
            "/v1/projects/{}/deploys",
            segment(project_id, "project id")?
        );
        self.call(ApiRequest::post(path, json(&CreateDeploy { files })?))
            .await
    }

    pub async fn domains(&self, project_id: &str) -> Result<Vec<Domain>> {
        let path = format!(
            "/v1/projects/{}/domains",
            segment(project_id, "project id")?
        );
        let mut domains = Vec::new();
        let mut pages = Pages::default();
        while let Some(page_path) = pages.next_path(&path)? {
            let page: DomainList = self.call(ApiRequest::get(page_path)).await?;
            domains.extend(page.domains);
            pages.advance(page.next_cursor);
        }
        Ok(domains)
    }

    pub async fn add_domain(&self, project_id: &str, domain: &AddDomain) -> Result<Domain> {
        let path = format!(
            "/v1/projects/{}/domains",
            segment(project_id, "project id")?
        );
        self.call(ApiRequest::post(path, json(domain)?)).await
    }

    /// Adds a domain under an `Idempotency-Key` the caller chose (derived from what it asks
    /// for), so that asking again after a lost answer, a crash or a rerun acts at most once.
    /// The answer says whether the platform replayed an earlier answer to the same key.
    pub async fn add_domain_once(
        &self,
        project_id: &str,
        domain: &AddDomain,
        idempotency_key: &str,
    ) -> Result<AddedDomain> {
        let path = format!(
            "/v1/projects/{}/domains",
            segment(project_id, "project id")?
        );
        let mut request = ApiRequest::post(path, json(domain)?);
        request.idempotency_key = Some(idempotency_key.to_owned());
        let response = self.send(request).await?;
        let replayed = response
            .headers
            .get("idempotent-replayed")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
        Ok(AddedDomain {
            domain: decode(&response)?,
            replayed,
        })
    }

    pub async fn domain(&self, project_id: &str, hostname: &str) -> Result<Domain> {
        self.call(ApiRequest::get(domain_path(project_id, hostname)?))
            .await
    }

    /// Verify and Re-verify: the answer says whether it passed.
    pub async fn verify_domain(&self, project_id: &str, hostname: &str) -> Result<Domain> {
        let path = format!("{}/verify", domain_path(project_id, hostname)?);
        self.call(ApiRequest::post(path, Bytes::from_static(b"{}")))
            .await
    }

    pub async fn remove_domain(&self, project_id: &str, hostname: &str) -> Result<()> {
        self.call_no_content(ApiRequest::delete(domain_path(project_id, hostname)?))
            .await
    }

    /// Moves a domain to another project of the same account without a gap: the answer is
    /// the domain in `to_project_id`, its status, certificate and validation kept, and the
    /// platform serves it from the target project from the same instant. Sent with an
    /// `Idempotency-Key` like every POST, so the queue's retry after a lost answer moves it
    /// once. A wildcard (`*.shop.example.com`) is named as it is.
    pub async fn move_domain(
        &self,
        project_id: &str,
        hostname: &str,
        to_project_id: &str,
    ) -> Result<Domain> {
        if to_project_id.is_empty() {
            return Err(Error::InvalidInput(
                "Name the project to move the domain to.".into(),
            ));
        }
        let path = format!("{}/move", domain_path(project_id, hostname)?);
        let body = json(&MoveDomain {
            to_project_id: to_project_id.to_owned(),
        })?;
        self.call(ApiRequest::post(path, body)).await
    }

    /// Removes a domain and reports what it left behind: the DNS record that still points at
    /// the platform (a name someone else could claim there), for the front end to show with
    /// the advice to delete it.
    pub async fn remove_domain_reporting(
        &self,
        project_id: &str,
        hostname: &str,
    ) -> Result<RemovedDomain> {
        let response = self
            .send(ApiRequest::delete(domain_path(project_id, hostname)?))
            .await?;
        if !response.status.is_success() {
            return Err(error_from(&response));
        }
        Ok(RemovedDomain {
            dangling_record: response
                .headers
                .get(DANGLING_DNS_RECORD)
                .and_then(|value| value.to_str().ok())
                .and_then(DanglingRecord::from_header),
        })
    }

    /// The project's domains the platform removed (another account proved control of the
    /// name), newest first, with the reason.
    pub async fn removed_domains(&self, project_id: &str) -> Result<Vec<DomainRemoval>> {
        let path = format!(
            "/v1/projects/{}/removed_domains",
            segment(project_id, "project id")?
        );
        let list: DomainRemovalList = self.call(ApiRequest::get(path)).await?;
        Ok(list.removed_domains)
    }

    pub async fn domain_config(&self, project_id: &str) -> Result<DomainConfig> {
        let path = format!(
            "/v1/projects/{}/domain_config",
            segment(project_id, "project id")?
        );
        self.call(ApiRequest::get(path)).await
    }

    pub async fn set_domain_config(
        &self,
        project_id: &str,
        config: &DomainConfig,
    ) -> Result<DomainConfig> {
        let path = format!(
            "/v1/projects/{}/domain_config",
            segment(project_id, "project id")?
        );
        self.call(ApiRequest::put(path, json(config)?)).await
    }
}

/// The answer to [`Client::add_domain_once`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedDomain {
    pub domain: Domain,
    /// `true` when the platform answered from an earlier request with the same key: the
    /// domain was added then, not now.
    pub replayed: bool,
}

/// What removing a domain left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedDomain {
    /// The record that still points at the platform, to delete at the DNS provider; `None`
    /// when the name no longer points here.
    pub dangling_record: Option<DanglingRecord>,
}

fn domain_path(project_id: &str, hostname: &str) -> Result<String> {
    Ok(format!(
        "/v1/projects/{}/domains/{}",
        segment(project_id, "project id")?,
        segment(hostname, "hostname")?
    ))
}

/// Percent-encodes one path segment (RFC 3986 unreserved characters stay as they are).
fn segment(value: &str, what: &str) -> Result<String> {
    if value.is_empty() {
        return Err(Error::InvalidInput(format!("The {what} is empty.")));
    }
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if encoded == "." || encoded == ".." {
        return Err(Error::InvalidInput(format!("The {what} is not valid.")));
    }
    Ok(encoded)
}

fn json<T: Serialize>(body: &T) -> Result<Bytes> {
    serde_json::to_vec(body)
        .map(Bytes::from)
        .map_err(|err| Error::InvalidInput(format!("The request could not be encoded: {err}")))
}

/// A 2xx body as `T`, anything else as the matching error.
pub(crate) fn decode<T: DeserializeOwned>(response: &WireResponse) -> Result<T> {
    if !response.status.is_success() {
        return Err(error_from(response));
    }
    serde_json::from_slice(&response.body).map_err(|err| {
        Error::Decode(format!(
            "a {} answer did not have the expected shape: {err}",
            response.status.as_u16()
        ))
    })
}

/// Turns a non-2xx answer into the error its status and body describe.
pub(crate) fn error_from(response: &WireResponse) -> Error {
    let body: Option<ErrorBody> = serde_json::from_slice(&response.body).ok();
    match (response.status, body) {
        (StatusCode::TOO_MANY_REQUESTS, body) => {
            let detail = body.map(|b| b.error);
            let server_now = headers::parse_date_header(&response.headers)
                .unwrap_or_else(std::time::SystemTime::now);
            let retry_after = headers::parse_retry_after_header(&response.headers)
                .map(|r| r.delay_from(server_now))
                .or_else(|| {
                    detail
                        .as_ref()
                        .and_then(|d| d.retry_after_seconds)
                        .map(Duration::from_secs)
                });
            Error::RateLimited {
                retry_after,
                window: detail.and_then(|d| d.window),
            }
        }
        (StatusCode::FORBIDDEN, Some(body)) if body.error.code == ErrorCode::KeyBanned => {
            Error::Banned {
                until: body.error.banned_until,
            }
        }
        (status, Some(body)) => Error::Api {
            status: status.as_u16(),
            detail: Box::new(body.error),
        },
        (status, None) => Error::Decode(format!(
            "the platform answered {} without an error body",
            status.as_u16()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;

    fn response(status: u16, body: &str) -> WireResponse {
        WireResponse {
            status: StatusCode::from_u16(status).unwrap(),
            headers: HeaderMap::new(),
            body: Bytes::from(body.to_owned()),
        }
    }

    #[test]
    fn path_segments_are_percent_encoded() {
        assert_eq!(
            segment("shop.example.com", "hostname").unwrap(),
            "shop.example.com"
        );
        assert_eq!(segment("a/b?c", "project id").unwrap(), "a%2Fb%3Fc");
        assert_eq!(segment("bücher.de", "hostname").unwrap(), "b%C3%BCcher.de");
        assert!(
            segment("", "project id")
                .unwrap_err()
                .to_string()
                .contains("project id")
        );
        assert!(segment("..", "project id").is_err());
    }

    #[test]
    fn error_answers_become_errors_with_predicates() {
        let not_found = error_from(&response(
            404,
            r#"{"error":{"code":"not_found","message":"No such project."}}"#,
        ));
        assert!(not_found.is_not_found());
        let limited = error_from(&response(
            429,
            r#"{"error":{"code":"rate_limited","message":"Slow down.","retry_after_seconds":12,"window":"minute"}}"#,
        ));
        assert!(limited.is_rate_limited());
        assert_eq!(limited.retry_after(), Some(Duration::from_secs(12)));
        let banned = error_from(&response(
            403,
            r#"{"error":{"code":"key_banned","message":"Banned.","banned_until":"2030-01-01T00:15:00Z"}}"#,
        ));
        assert!(banned.is_banned());
        let upgrade = error_from(&response(
            403,
            r#"{"error":{"code":"plan_upgrade_required","message":"Upgrade."}}"#,
        ));
        assert!(!upgrade.is_banned());
        assert_eq!(upgrade.code(), Some(ErrorCode::PlanUpgradeRequired));
        let unauthorized = error_from(&response(
            401,
            r#"{"error":{"code":"unauthorized","message":"Who?"}}"#,
        ));
        assert!(unauthorized.is_unauthorized());
        let bare = error_from(&response(502, "<html>bad gateway</html>"));
        assert!(matches!(bare, Error::Decode(_)));
    }

    #[test]
    fn success_bodies_of_the_wrong_shape_are_decode_errors() {
        let err = decode::<Account>(&response(200, r#"{"id": 5}"#)).unwrap_err();
        assert!(matches!(err, Error::Decode(_)));
    }
}

/// Walks a paginated list: the largest pages the contract allows (fewest requests against the
/// rate limit), following `next_cursor` until it is null. A server that hands back a cursor it
/// already gave, or pages without end, is an error rather than a loop.
#[derive(Debug, Default)]
struct Pages {
    cursor: Option<String>,
    seen: std::collections::HashSet<String>,
    done: bool,
    pages: usize,
}

/// Items asked for per page: the contract's maximum.
const PAGE_LIMIT: u32 = 1000;
/// More pages than any real list has (10 million items).
const MAX_PAGES: usize = 10_000;

impl Pages {
    fn next_path(&mut self, base: &str) -> Result<Option<String>> {
        if self.done {
            return Ok(None);
        }
        self.pages += 1;
        if self.pages > MAX_PAGES {
            return Err(Error::Decode(format!(
                "{base} returned more than {MAX_PAGES} pages"
            )));
        }
        Ok(Some(match &self.cursor {
            None => format!("{base}?limit={PAGE_LIMIT}"),
            Some(cursor) => format!(
                "{base}?limit={PAGE_LIMIT}&cursor={}",
                percent_encode(cursor)
            ),
        }))
    }

    fn advance(&mut self, next: Option<String>) {
        match next {
            Some(cursor) if self.seen.insert(cursor.clone()) => self.cursor = Some(cursor),
            Some(_) => {
                tracing::warn!("the platform repeated a page cursor; stopping");
                self.done = true;
            }
            None => self.done = true,
        }
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod pages_tests {
    use super::*;

    #[test]
    fn pages_follow_cursors_and_stop_on_null_or_a_repeat() {
        let mut pages = Pages::default();
        assert_eq!(
            pages.next_path("/v1/projects").unwrap().unwrap(),
            "/v1/projects?limit=1000"
        );
        pages.advance(Some("abc.d+e/f".into()));
        assert_eq!(
            pages.next_path("/v1/projects").unwrap().unwrap(),
            "/v1/projects?limit=1000&cursor=abc.d%2Be%2Ff"
        );
        pages.advance(Some("second".into()));
        assert!(pages.next_path("/v1/projects").unwrap().is_some());
        // a cursor handed out twice would loop for ever
        pages.advance(Some("second".into()));
        assert!(pages.next_path("/v1/projects").unwrap().is_none());

        let mut last = Pages::default();
        last.next_path("/x").unwrap();
        last.advance(None);
        assert!(last.next_path("/x").unwrap().is_none());
    }
}

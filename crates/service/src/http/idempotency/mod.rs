//! `Idempotency-Key` on `POST`: the same key with the same request within the remembered time
//! (24 h of the service clock by default) gets the first answer again — same status, same
//! bytes, with `Idempotent-Replayed: true` — instead of acting twice. The same key with a
//! different request is refused with `422 idempotency_key_reused`; a second copy sent while
//! the first still runs gets `409 idempotency_key_in_use` with `Retry-After: 1`. Keys are
//! scoped per API key. "The same request" is the method, the path and the body as JSON (so
//! whitespace and key order do not matter).
//!
//! Crash safety: a handler that changes something commits the change and the answer it sends
//! in **one** transaction ([`commit_answer`]), so a process killed at any moment either did
//! both (a retry replays the answer) or neither (a retry acts, once). Answers that changed
//! nothing (a `4xx`) are remembered afterwards; `5xx` answers are not remembered, so a retry
//! after a failure acts again.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use domain_desk_api::ErrorCode;
use domain_desk_api::rate_limit::{IDEMPOTENCY_KEY, RETRY_AFTER};
use rusqlite::Transaction;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::extract::read_body;
use crate::http::state::AppState;
use crate::store::idempotency::{self, AnswerIndex, AnswerKey, Fingerprint, NewAnswer, key_hash};
use crate::store::time::to_sql;
use crate::{Error, Result};

pub(super) mod in_flight;

pub const REPLAYED: &str = "idempotent-replayed";

/// Longest accepted `Idempotency-Key`.
pub const MAX_KEY_LEN: usize = 255;

/// Most answers one trip to the writer forgets: about a millisecond of deleting, so keyed
/// requests queued behind it wait no longer than that. Twice the answers that arrive between
/// two checks ([`crate::HistoryLimits::IDEMPOTENCY_TRIM_EVERY`]), so a check catches up.
const FORGET_BATCH: usize = 2 * crate::HistoryLimits::IDEMPOTENCY_TRIM_EVERY as usize;

/// What a handler needs to remember its answer together with its change: put in the request's
/// extensions by the gate for a `POST` with an `Idempotency-Key`.
#[derive(Debug, Clone)]
pub struct PendingAnswer {
    key: AnswerKey,
    /// Where the store's remembered answers are (the table has no index of names).
    answers: Arc<AnswerIndex>,
    fingerprint: Fingerprint,
    /// When the request came, as the table stores it (formatted here, not on the writer's
    /// thread).
    at: String,
    not_before: DateTime<Utc>,
}

impl PendingAnswer {
    /// The answer already remembered for this key, if any: `Ok(Some)` to replay it, or `422
    /// idempotency_key_reused` when it was given to a different request.
    fn earlier(&self, conn: &rusqlite::Connection) -> Result<Option<Answer>> {
        let Some(stored) = idempotency::get(conn, &self.answers, &self.key, self.not_before)?
        else {
            return Ok(None);
        };
        if stored.fingerprint != self.fingerprint {
            return Err(Error::api(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IdempotencyKeyReused,
                "This Idempotency-Key was already used with a different request; use a new key.",
            ));
        }
        Ok(Some(Answer {
            status: StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK),
            body: stored.body,
            kind: AnswerKind::Replayed,
        }))
    }
}

/// How an answer came about, for the middleware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnswerKind {
    /// Made now; not remembered (no Idempotency-Key).
    Fresh,
    /// Made now and remembered in the transaction of its change.
    Recorded,
    /// The answer remembered for an earlier request with the same key.
    Replayed,
}

/// Commits `work`'s change and, for a request with an `Idempotency-Key`, the answer it makes
/// (`status` and `work`'s value as JSON) in one transaction; answers with exactly those bytes.
/// A key that already has an answer gets that answer, and `work` does not run.
pub async fn commit_answer<T, F>(
    state: &AppState,
    pending: Option<PendingAnswer>,
    status: StatusCode,
    work: F,
) -> Result<Response>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&Transaction<'_>) -> Result<T> + Send + 'static,
{
    let (response, _) = commit_answer_with(state, pending, status, move |tx| {
        work(tx).map(|value| (value, ()))
    })
    .await?;
    Ok(response)
}

/// Like [`commit_answer`], when the caller needs something more from the transaction than the
/// answer (`work` returns the answer's value and that; `None` when the answer was replayed and
/// `work` did not run).
pub async fn commit_answer_with<T, X, F>(
    state: &AppState,
    pending: Option<PendingAnswer>,
    status: StatusCode,
    work: F,
) -> Result<(Response, Option<X>)>
where
    T: Serialize + Send + 'static,
    X: Send + 'static,
    F: FnOnce(&Transaction<'_>) -> Result<(T, X)> + Send + 'static,
{
    let (answer, extra) = state
        .store()
        .write(move |tx| {
            if let Some(earlier) = Answer::earlier(tx, pending.as_ref())? {
                return Ok((earlier, None));
            }
            let (value, extra) = work(tx)?;
            Ok((
                Answer::record(tx, pending.as_ref(), status, &value)?,
                Some(extra),
            ))
        })
        .await?;
    Ok((answer.into_response(), extra))
}

/// An answer serialised inside the transaction of the change it reports, and remembered
/// there when the request carried an `Idempotency-Key` — or the answer remembered earlier.
#[derive(Debug)]
pub struct Answer {
    status: StatusCode,
    body: Vec<u8>,
    kind: AnswerKind,
}

impl Answer {
    /// The answer an earlier request with this key got, read in `tx` (so the check and the
    /// change it guards are one transaction); see [`PendingAnswer`].
    pub fn earlier(tx: &Transaction<'_>, pending: Option<&PendingAnswer>) -> Result<Option<Self>> {
        match pending {
            Some(pending) => pending.earlier(tx),
            None => Ok(None),
        }
    }

    /// Serialises `value` and, with `pending`, stores it in `tx` as the request's answer.
    pub fn record<T: Serialize>(
        tx: &Transaction<'_>,
        pending: Option<&PendingAnswer>,
        status: StatusCode,
        value: &T,
    ) -> Result<Self> {
        let body = serde_json::to_vec(value)?;
        if let Some(pending) = pending {
            remember(tx, pending, status, &body)?;
        }
        Ok(Self {
            status,
            body,
            kind: if pending.is_some() {
                AnswerKind::Recorded
            } else {
                AnswerKind::Fresh
            },
        })
    }

    /// The response with exactly the recorded bytes.
    pub fn into_response(self) -> Response {
        let mut response = json_response(self.status, self.body);
        if self.kind == AnswerKind::Replayed {
            response
                .headers_mut()
                .insert(REPLAYED, HeaderValue::from_static("true"));
        }
        response.extensions_mut().insert(self.kind);
        response
    }
}

fn remember(
    tx: &Transaction<'_>,
    pending: &PendingAnswer,
    status: StatusCode,
    body: &[u8],
) -> Result<()> {
    idempotency::put(
        tx,
        &pending.answers,
        &pending.key,
        &NewAnswer {
            fingerprint: &pending.fingerprint,
            status: status.as_u16(),
            body,
            created_at: &pending.at,
        },
    )
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (status, Body::from(body)).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn idempotency_key(req: &Request) -> Result<&str> {
    let invalid = || {
        Error::validation(
            "Idempotency-Key",
            format!("An Idempotency-Key must be 1 to {MAX_KEY_LEN} visible ASCII characters."),
        )
    };
    let value = req
        .headers()
        .get(IDEMPOTENCY_KEY)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .ok_or_else(invalid)?;
    if value.is_empty() || value.len() > MAX_KEY_LEN || !value.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(invalid());
    }
    Ok(value)
}

/// Feeds what is written to it to a SHA-256: the canonical body is hashed as it is written,
/// not written to a buffer first.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn fingerprint(method: &str, path: &str, body: &[u8]) -> Fingerprint {
    let mut hasher = Sha256::new();
    hasher.update(method.as_bytes());
    hasher.update(b" ");
    hasher.update(path.as_bytes());
    hasher.update(b"\n");
    let mut writer = HashWriter(hasher);
    // JSON is hashed as serde_json writes it back (keys sorted, no whitespace); anything else
    // as it came. Writing to a hasher cannot fail, so a JSON body is never half hashed.
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(value) if serde_json::to_writer(&mut writer, &value).is_ok() => {}
        _ => writer.0.update(body),
    }
    writer.0.finalize().into()
}

pub async fn replay_or_run(state: &AppState, api_key: &str, req: Request, next: Next) -> Response {
    match run(state, api_key, req, next).await {
        Ok(response) => response,
        Err(err) => err.into_response(),
    }
}

fn in_use() -> Response {
    let mut response = Error::api(
        StatusCode::CONFLICT,
        ErrorCode::IdempotencyKeyInUse,
        "A request with this Idempotency-Key is still running; retry in a moment.",
    )
    .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

async fn run(state: &AppState, api_key: &str, req: Request, next: Next) -> Result<Response> {
    let answer_key = AnswerKey::new(&key_hash(api_key), idempotency_key(&req)?);
    // Claimed before the body is read: a copy that arrives while the first is still being
    // received is refused as surely as one that arrives while it acts.
    let Some(_running) = state.idempotency_in_flight().start(answer_key) else {
        return Ok(in_use());
    };
    let (parts, body) = req.into_parts();
    let limit = state.settings().max_body_bytes;
    let bytes = read_body(body, limit).await?;
    let print = fingerprint(parts.method.as_str(), parts.uri.path(), &bytes);
    let now = state.now();
    let not_before = now - state.settings().idempotency_ttl;
    let history = state.settings().history;
    let in_flight = state.idempotency_in_flight();
    if in_flight.purge_due(now, crate::HistoryLimits::IDEMPOTENCY_TRIM_EVERY)
        && !in_flight
            .purging
            .swap(true, std::sync::atomic::Ordering::AcqRel)
    {
        let store = state.store().clone();
        let in_flight = in_flight.clone();
        let keep = history.idempotency_answers;
        let answers = store.answers().clone();
        tokio::spawn(async move {
            // batch after batch, each its own trip to the writer, until one comes back short
            loop {
                let answers = answers.clone();
                let forgotten = store
                    .write(move |tx| {
                        Ok(idempotency::purge(tx, &answers, not_before, FORGET_BATCH)?
                            + idempotency::keep_newest(tx, &answers, keep, FORGET_BATCH)?)
                    })
                    .await;
                match forgotten {
                    Ok(n) if n >= FORGET_BATCH => continue,
                    Ok(_) => break,
                    Err(error) => {
                        tracing::warn!(%error, "could not forget expired idempotency answers");
                        break;
                    }
                }
            }
            in_flight
                .purging
                .store(false, std::sync::atomic::Ordering::Release);
        });
    }
    let pending = PendingAnswer {
        key: answer_key,
        answers: state.store().answers().clone(),
        fingerprint: print,
        at: to_sql(now),
        not_before,
    };
    // The handler looks for an earlier answer inside the transaction of its change (one trip
    // to the writer, and no gap between the check and the act).
    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(pending.clone());
    let response = next.run(request).await;
    let kind = response.extensions().get::<AnswerKind>().copied();
    if matches!(kind, Some(AnswerKind::Recorded | AnswerKind::Replayed))
        || response.status().is_server_error()
    {
        return Ok(response);
    }
    // A refusal (the handler stopped before its transaction, or inside it): the key's earlier
    // answer if it has one, else this refusal, remembered so a retry gets it again. Losing it
    // to a crash only means the retry is judged again.
    let (parts, body) = response.into_parts();
    let body = read_body(body, usize::MAX).await?;
    let status = parts.status;
    let refusal = body.to_vec();
    let earlier = state
        .store()
        .write(move |tx| {
            if let Some(earlier) = pending.earlier(tx)? {
                return Ok(Some(earlier));
            }
            remember(tx, &pending, status, &refusal)?;
            Ok(None)
        })
        .await?;
    Ok(match earlier {
        Some(earlier) => earlier.into_response(),
        None => Response::from_parts(parts, Body::from(body)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_json_in_another_layout_is_the_same_request() {
        let a = fingerprint("POST", "/v1/projects", br#"{"name":"x","b":1}"#);
        let b = fingerprint("POST", "/v1/projects", b"{ \"b\": 1, \"name\": \"x\" }");
        let c = fingerprint("POST", "/v1/projects", br#"{"name":"y","b":1}"#);
        let d = fingerprint("POST", "/v1/other", br#"{"name":"x","b":1}"#);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn the_fingerprint_is_the_hash_answers_were_remembered_under_before() {
        // until migration 10 the table kept the hex of this digest of a buffered copy
        let body = br#"{ "name": "x", "files": {"b": 1, "a": [1, 2.5, "\u00e9"]} }"#;
        let canonical =
            serde_json::to_vec(&serde_json::from_slice::<serde_json::Value>(body).unwrap())
                .unwrap();
        let mut before = Sha256::new();
        before.update(b"POST /v1/projects\n");
        before.update(&canonical);
        assert_eq!(
            fingerprint("POST", "/v1/projects", body)[..],
            before.finalize()[..]
        );
        // not JSON: the bytes as they came
        let mut raw = Sha256::new();
        raw.update(b"POST /v1/projects\nnot json");
        assert_eq!(
            fingerprint("POST", "/v1/projects", b"not json")[..],
            raw.finalize()[..]
        );
    }
}

//! `Idempotency-Key` on `POST`: the same key with the same request within the remembered time
//! (24 h of the service clock by default) gets the first answer again — same status, same
//! body, with `Idempotent-Replayed: true` — instead of acting twice. The same key with a
//! different request is refused with `422 idempotency_key_reused`. Keys are scoped per API
//! key. "The same request" is the method, the path and the body as JSON (so whitespace and
//! key order do not matter). Answers with a 5xx status are not remembered, so a retry after a
//! failure acts again.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain_desk_api::ErrorCode;
use domain_desk_api::rate_limit::IDEMPOTENCY_KEY;
use sha2::{Digest, Sha256};

use super::extract::read_body;
use crate::state::AppState;
use crate::store::idempotency::{self, StoredResponse};
use crate::{Error, Result};

pub const REPLAYED: &str = "idempotent-replayed";

/// Longest accepted `Idempotency-Key`.
pub const MAX_KEY_LEN: usize = 255;

fn idempotency_key(req: &Request) -> Result<String> {
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
    Ok(value.to_owned())
}

fn fingerprint(method: &str, path: &str, body: &[u8]) -> String {
    let canonical = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|value| serde_json::to_vec(&value).ok())
        .unwrap_or_else(|| body.to_vec());
    let mut hasher = Sha256::new();
    hasher.update(method.as_bytes());
    hasher.update(b" ");
    hasher.update(path.as_bytes());
    hasher.update(b"\n");
    hasher.update(&canonical);
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

pub async fn replay_or_run(state: &AppState, api_key: &str, req: Request, next: Next) -> Response {
    match run(state, api_key, req, next).await {
        Ok(response) => response,
        Err(err) => err.into_response(),
    }
}

async fn run(state: &AppState, api_key: &str, req: Request, next: Next) -> Result<Response> {
    let idem_key = idempotency_key(&req)?;
    let (parts, body) = req.into_parts();
    let limit = state.settings().max_body_bytes;
    let bytes = read_body(body, limit).await?;
    let print = fingerprint(parts.method.as_str(), parts.uri.path(), &bytes);

    let _one_at_a_time = state.idempotency_lock().lock().await;
    let now = state.now();
    let not_before = now - state.settings().idempotency_ttl;
    let (lookup_key, lookup_idem) = (api_key.to_owned(), idem_key.clone());
    let stored = state
        .store()
        .run(move |conn| idempotency::get(conn, &lookup_key, &lookup_idem, not_before))
        .await?;
    if let Some(stored) = stored {
        if stored.fingerprint != print {
            return Err(Error::api(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IdempotencyKeyReused,
                "This Idempotency-Key was already used with a different request; use a new key.",
            ));
        }
        let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
        let mut response = (status, Body::from(stored.body)).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(REPLAYED, HeaderValue::from_static("true"));
        return Ok(response);
    }

    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if response.status().is_server_error() {
        return Ok(response);
    }
    let (parts, body) = response.into_parts();
    let body = read_body(body, usize::MAX).await?;
    let record = StoredResponse {
        fingerprint: print,
        status: parts.status.as_u16(),
        body: body.to_vec(),
        created_at: now,
    };
    let (save_key, save_idem) = (api_key.to_owned(), idem_key);
    state
        .store()
        .write(move |tx| {
            idempotency::purge(tx, not_before)?;
            idempotency::put(tx, &save_key, &save_idem, &record)
        })
        .await?;
    Ok(Response::from_parts(parts, Body::from(body)))
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
}

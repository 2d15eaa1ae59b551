//! Answers to repeated `GET`s from memory while the data they were read from is unchanged.
//!
//! Every committed write moves the store's generation on ([`crate::store::Store::generation`]);
//! an answer is kept with the generation read *before* its handler ran, and served again only
//! while the generation is still the same. A write that lands while a handler reads makes the
//! kept answer stale at once, so a cached answer is never older than the last commit. Nothing
//! a `GET` shows is computed from the clock at read time (lifecycle changes are written by the
//! world before the handler runs), so the generation is the whole story.
//!
//! Keys are the caller's account and the full URI; `/v1/rate_limit` (limiter state, not data)
//! is never cached. The cache is small and cleared when full.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;

pub(in crate::http) mod answers;
#[cfg(test)]
mod tests;

use crate::http::extract::{Caller, read_body};
use crate::http::state::AppState;

/// Largest answer kept (a page of 1,000 domains is about 1 MB).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// Middleware for `/v1` routes, inside the gate (which authenticated the caller and owns the
/// rate-limit headers) and after the world's lifecycle step.
pub async fn serve_cached(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let cacheable = request.method() == Method::GET
        && state.settings().read_cache
        && request.uri().path() != "/v1/rate_limit";
    let caller = request
        .extensions()
        .get::<Caller>()
        .map(|c| c.account.id.clone());
    let (true, Some(account)) = (cacheable, caller) else {
        return next.run(request).await;
    };
    let key = (account, request.uri().to_string());
    let cache = state.read_cache();
    let generation = state.store().generation();
    if let Some(body) = cache.get(&key, generation) {
        return json(body);
    }
    let response = next.run(request).await;
    if response.status() != StatusCode::OK {
        return response;
    }
    let (parts, body) = response.into_parts();
    match read_body(body, MAX_BODY).await {
        Ok(bytes) => {
            cache.put(key, generation, bytes.clone());
            Response::from_parts(parts, Body::from(bytes))
        }
        Err(error) => {
            tracing::error!(%error, "an answer could not be read for the cache");
            axum::response::IntoResponse::into_response(error)
        }
    }
}

fn json(body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

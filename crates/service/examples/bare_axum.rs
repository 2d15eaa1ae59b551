//! The ceiling for the service benchmark: a bare axum server on the same machine that does
//! only what the benchmark's two routes need — the same Bearer check and the same stored
//! bytes — with no database, limiter, idempotency or world behind it.
//!
//! ```text
//! bare_axum ADDR KEY GET_BODY_FILE POST_BODY_FILE
//! ```
//! `GET /v1/projects` answers 200 with the first file, `POST /v1/projects/{id}/domains` 201
//! with the second; a missing or wrong key is 401.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

/// The allocator of the `domain-desk` binary it is the ceiling for.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Bodies {
    expected: String,
    list: Bytes,
    created: Bytes,
}

fn authorised(headers: &HeaderMap, bodies: &Bodies) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value == bodies.expected)
}

fn json(status: StatusCode, body: Bytes) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn list(State(bodies): State<Arc<Bodies>>, headers: HeaderMap) -> Response {
    if !authorised(&headers, &bodies) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    json(StatusCode::OK, bodies.list.clone())
}

async fn create(State(bodies): State<Arc<Bodies>>, headers: HeaderMap, _body: Bytes) -> Response {
    if !authorised(&headers, &bodies) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    json(StatusCode::CREATED, bodies.created.clone())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, key, list_file, created_file] = args.as_slice() else {
        return Err("usage: bare_axum ADDR KEY GET_BODY_FILE POST_BODY_FILE".into());
    };
    let bodies = Arc::new(Bodies {
        expected: format!("Bearer {key}"),
        list: Bytes::from(std::fs::read(list_file)?),
        created: Bytes::from(std::fs::read(created_file)?),
    });
    let app = Router::new()
        .route("/v1/projects", get(list))
        .route("/v1/projects/{project_id}/domains", post(create))
        .with_state(bodies);
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

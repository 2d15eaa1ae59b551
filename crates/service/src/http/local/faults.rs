//! `GET|PUT /_local/faults`: trouble injected into `/v1` (only), to exercise clients:
//! `latency_ms` added before each admitted request is handled, `error_rate` (0–1) of admitted
//! requests answered `503 service_unavailable`, `drop_rate` (0–1) of admitted requests whose
//! connection is closed without an answer.

use axum::Json;
use axum::extract::State;
use domain_desk_api::ErrorBody;
use domain_desk_api::local::Faults;

use crate::http::extract::ApiJson;
use crate::http::state::AppState;
use crate::{Error, Result};

/// The most latency that can be injected: a minute.
pub const MAX_LATENCY_MS: u64 = 60_000;

#[utoipa::path(
    get,
    path = "/_local/faults",
    tag = "local",
    summary = "The faults injected into /v1",
    responses((status = 200, description = "The faults", body = Faults)),
)]
pub async fn get_faults(State(state): State<AppState>) -> Json<Faults> {
    Json(state.faults())
}

#[utoipa::path(
    put,
    path = "/_local/faults",
    tag = "local",
    summary = "Set the faults injected into /v1 (all zero turns them off)",
    request_body = Faults,
    responses(
        (status = 200, description = "The faults now in effect", body = Faults),
        (status = 422, description = "`validation_failed`: a rate outside 0–1 or too much latency", body = ErrorBody),
    ),
)]
pub async fn put_faults(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<Faults>,
) -> Result<Json<Faults>> {
    for (field, rate) in [
        ("error_rate", body.error_rate),
        ("drop_rate", body.drop_rate),
    ] {
        if !(0.0..=1.0).contains(&rate) {
            return Err(Error::validation(
                field,
                format!("{field} is a share of requests from 0 to 1."),
            ));
        }
    }
    if body.latency_ms > MAX_LATENCY_MS {
        return Err(Error::validation(
            "latency_ms",
            format!("latency_ms can be at most {MAX_LATENCY_MS}."),
        ));
    }
    state.set_faults(body);
    tracing::info!(?body, "faults set");
    Ok(Json(body))
}

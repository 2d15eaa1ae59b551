//! `GET|PUT /_local/clock` and `POST /_local/clock/advance`: read, set (speed 0 freezes) and
//! advance the virtual clock every timing of the service reads.

use axum::Json;
use axum::extract::State;
use domain_desk_api::ErrorBody;
use domain_desk_api::local::{ClockAdvance, ClockState};

use crate::Result;
use crate::http::extract::ApiJson;
use crate::http::state::AppState;

fn state_of(state: &AppState) -> ClockState {
    ClockState {
        now: state.clock().now(),
        speed: state.clock().speed(),
    }
}

#[utoipa::path(
    get,
    path = "/_local/clock",
    tag = "local",
    summary = "The virtual time and its speed",
    responses((status = 200, description = "The clock", body = ClockState)),
)]
pub async fn get_clock(State(state): State<AppState>) -> Json<ClockState> {
    Json(state_of(&state))
}

#[utoipa::path(
    put,
    path = "/_local/clock",
    tag = "local",
    summary = "Set the virtual time and speed (0 freezes, 60 makes a minute pass in a second)",
    request_body = ClockState,
    responses(
        (status = 200, description = "The clock as set", body = ClockState),
        (status = 422, description = "`validation_failed`: speed out of range", body = ErrorBody),
    ),
)]
pub async fn put_clock(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<ClockState>,
) -> Result<Json<ClockState>> {
    state.clock().set(body.now, body.speed)?;
    tracing::info!(now = %body.now, speed = body.speed, "clock set");
    Ok(Json(state_of(&state)))
}

#[utoipa::path(
    post,
    path = "/_local/clock/advance",
    tag = "local",
    summary = "Move the virtual clock forward",
    request_body = ClockAdvance,
    responses(
        (status = 200, description = "The clock after the move", body = ClockState),
        (status = 422, description = "`validation_failed`: negative or absurd seconds", body = ErrorBody),
    ),
)]
pub async fn advance_clock(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<ClockAdvance>,
) -> Result<Json<ClockState>> {
    state.clock().advance_seconds(body.seconds)?;
    Ok(Json(state_of(&state)))
}

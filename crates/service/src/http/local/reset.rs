//! `POST /_local/reset`: back to the seed data (the demo keys stay the same), with fresh rate
//! limits, no bans and no faults. The clock is left as it is.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use domain_desk_api::local::LocalInfo;

use super::info::local_info;
use crate::Result;
use crate::http::extract::{is_json_content_type, unsupported_media_type};
use crate::http::state::AppState;

#[utoipa::path(
    post,
    path = "/_local/reset",
    tag = "local",
    summary = "Back to the seed data; answers the service's facts as after a fresh start",
    responses(
        (status = 200, description = "Reset done", body = LocalInfo),
        (status = 415, description = "`unsupported_media_type`: send it with `Content-Type: application/json`", body = domain_desk_api::ErrorBody),
    ),
)]
pub async fn post_reset(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<LocalInfo>> {
    // It takes no body, but only as JSON: a web page cannot send that without a preflight.
    if !is_json_content_type(&headers) {
        return Err(unsupported_media_type());
    }
    state.reset().await?;
    tracing::info!("reset to the seed data");
    Ok(Json(local_info(&state).await?))
}

//! `POST /_local/reset`: back to the seed data (the demo keys stay the same), with fresh rate
//! limits, no bans and no faults. The clock is left as it is.

use axum::Json;
use axum::extract::State;
use domain_desk_api::local::LocalInfo;

use super::info::local_info;
use crate::Result;
use crate::state::AppState;

#[utoipa::path(
    post,
    path = "/_local/reset",
    tag = "local",
    summary = "Back to the seed data; answers the service's facts as after a fresh start",
    responses((status = 200, description = "Reset done", body = LocalInfo)),
)]
pub async fn post_reset(State(state): State<AppState>) -> Result<Json<LocalInfo>> {
    state.reset().await?;
    tracing::info!("reset to the seed data");
    Ok(Json(local_info(&state).await?))
}

//! `GET /v1/rate_limit`: both windows of the caller's key. Not counted against the limit, but
//! refused (`403 key_banned`) to a banned key.

use axum::{Extension, Json};
use domain_desk_api::RateLimitStatus;

use crate::limiter::Snapshot;

#[utoipa::path(
    get,
    path = "/v1/rate_limit",
    tag = "account",
    summary = "The key's minute and day windows (not counted)",
    responses((status = 200, description = "Both windows; `banned_until` is null unless banned", body = RateLimitStatus)),
)]
pub async fn get_rate_limit(Extension(snapshot): Extension<Snapshot>) -> Json<RateLimitStatus> {
    Json(RateLimitStatus {
        minute: snapshot.minute,
        day: snapshot.day,
        banned_until: None,
    })
}

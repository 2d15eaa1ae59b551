//! The middleware that keeps the world current for the API: certificate lifecycles are
//! reconciled before each request and after each change, so the API never answers with a
//! state the clock has already moved past.
//!
//! It lives with the HTTP layer that installs it (`app` in `http/mod.rs`), not in `world/`,
//! so the world knows nothing of axum; it only calls [`LocalWorld::reconcile`], which is cheap
//! when nothing is due.
//!
//! [`LocalWorld::reconcile`]: crate::world::LocalWorld::reconcile

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

use crate::http::state::AppState;

/// Middleware for the API router: before each request and after each change, bring
/// certificate lifecycles up to date when the clock was changed or a deadline is due, so a
/// read right after a clock jump shows the state the jump led to. (The edge and the platform
/// zone read the database at every handshake and query, so they need no such step.)
pub async fn keep_world_current(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let world = state.world();
    if let Some(world) = &world {
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificate lifecycles failed");
        }
    }
    let may_change = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let response = next.run(request).await;
    // After a change (a clock jump above all), again: the edge must serve what the jump made
    // live before the next handshake. Cheap when nothing is due.
    if let (Some(world), true) = (&world, may_change) {
        if let Err(error) = world.reconcile(false).await {
            tracing::error!(%error, "reconciling certificate lifecycles failed");
        }
    }
    response
}

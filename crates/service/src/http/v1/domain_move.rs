//! `POST /v1/projects/{project_id}/domains/{hostname}/move`: a domain moves to another project
//! of the same account without a gap.
//!
//! The move is one transaction: the domain's row changes project with its status, its
//! certificate and its validation kept, and the old project's redirects that pointed at it
//! re-point to that project's current address. The edge reads a name's route from the
//! database at every handshake and request, so from the commit on it serves the target
//! project's newest deploy under the name, with the same certificate: nothing stops being
//! served. The target must allow it as an add would (`403 plan_upgrade_required`, `409
//! deploy_required`, `409 domain_limit_reached`). A primary domain moves as the target's
//! primary when the target has none, else as an alias; an alias stays an alias; a redirect
//! (which led to a name of the old project) moves as an alias. The change and its answer
//! commit together, so an `Idempotency-Key` replays it.

use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use domain_desk_api::{Domain, DomainRole, ErrorBody, ErrorCode, MoveDomain};

use super::domains::require_domain;
use super::path_hostname;
use crate::http::extract::{ApiJson, ApiPath, Caller};
use crate::http::idempotency::{PendingAnswer, commit_answer_with};
use crate::http::state::AppState;
use crate::store::{deploys, domains, ownership as removals, projects};
use crate::{Error, Result};

#[utoipa::path(
    post,
    path = "/v1/projects/{project_id}/domains/{hostname}/move",
    tag = "domains",
    summary = "Move a domain to another project of the account, without a gap: status, certificate and validation kept, the edge serving the target project's newest deploy under the name from the same instant",
    params(
        ("project_id" = String, Path, description = "The project that holds the domain"),
        ("hostname" = String, Path, description = "The domain, as A-labels or Unicode (a wildcard too)"),
    ),
    request_body = MoveDomain,
    responses(
        (status = 200, description = "The domain, now in the target project. A primary domain is the target's primary when the target had none, else an alias; a redirect becomes an alias. Redirects of the old project that pointed at it now point at that project's current address", body = Domain),
        (status = 403, description = "`plan_upgrade_required` (the account's plan has no custom domains) or `key_banned`", body = ErrorBody),
        (status = 404, description = "`not_found`: no such project in this account (either one), or no such domain in the project", body = ErrorBody),
        (status = 409, description = "`deploy_required` (the target has no successful deploy), `domain_limit_reached` (the target has the plan's maximum of domains) or `domain_already_attached` (the target is the project that holds it)", body = ErrorBody),
        (status = 422, description = "`validation_failed` (no `to_project_id`)", body = ErrorBody),
    ),
)]
pub async fn move_domain(
    State(state): State<AppState>,
    caller: Caller,
    pending: Option<Extension<PendingAnswer>>,
    ApiPath((project_id, hostname)): ApiPath<(String, String)>,
    ApiJson(body): ApiJson<MoveDomain>,
) -> Result<Response> {
    let hostname = path_hostname(&hostname)?;
    let account = caller.account;
    let pending = pending.map(|Extension(pending)| pending);
    let name = hostname.as_str().to_owned();
    let (response, moved) = commit_answer_with(&state, pending, StatusCode::OK, move |tx| {
        let from = projects::require(tx, &account.id, &project_id)?;
        if !account.plan.allows_custom_domains() {
            return Err(Error::api(
                StatusCode::FORBIDDEN,
                ErrorCode::PlanUpgradeRequired,
                "Custom domains need a paid plan (Pro or above); upgrade the account to move one.",
            ));
        }
        let domain = require_domain(tx, &from.id, &name)?;
        let to = projects::require(tx, &account.id, body.to_project_id.trim())?;
        if to.id == from.id {
            return Err(Error::conflict(
                ErrorCode::DomainAlreadyAttached,
                format!("{name} is already a domain of project {}.", to.id),
            ));
        }
        if deploys::current_succeeded(tx, &to.id)?.is_none() {
            return Err(Error::conflict(
                ErrorCode::DeployRequired,
                format!(
                    "Deploy project {} successfully before moving a domain to it: the edge would have nothing to serve.",
                    to.id
                ),
            ));
        }
        let limit = account.limits.max_domains_per_project;
        if domains::count_of_project(tx, &to.id)? >= limit {
            return Err(Error::conflict(
                ErrorCode::DomainLimitReached,
                format!(
                    "Project {} has the plan's maximum of {limit} domains; remove one there first.",
                    to.id
                ),
            ));
        }
        let role = match domain.role {
            DomainRole::Primary if domains::primary(tx, &to.id)?.is_none() => DomainRole::Primary,
            _ => DomainRole::Alias,
        };
        domains::move_to_project(tx, &domain.hostname, &to.id, role)?;
        removals::forget_removal(tx, &to.id, &domain.hostname)?;
        let current = projects::current_address(tx, &from)?;
        domains::repoint_redirects(tx, &from.id, &domain.hostname, &current)?;
        let moved: Domain = domains::require_in_project(tx, &to.id, &domain.hostname)?;
        let logged = (moved.hostname.clone(), from.id.clone(), to.id.clone());
        Ok((moved, logged))
    })
    .await?;
    // logged here, not on the writer's thread
    if let Some((hostname, from, to)) = moved {
        tracing::info!(%hostname, %from, %to, "domain moved");
    }
    Ok(response)
}

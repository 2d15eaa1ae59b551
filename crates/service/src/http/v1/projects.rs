//! Projects: list, create, get. Another account's project answers `404` like an unknown one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use domain_desk_api::{CreateProject, Project, ProjectList};

use crate::http::extract::{ApiJson, ApiPath, Caller, ListParams};
use crate::http::idempotency::{PendingAnswer, commit_answer_with};
use crate::http::state::AppState;
use crate::store::fast::project_json;
use crate::store::page::ListScope;
use crate::store::projects;
use crate::{Error, Result};

/// Longest project name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

#[utoipa::path(
    get,
    path = "/v1/projects",
    tag = "projects",
    summary = "The account's projects, oldest first, a page at a time",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "Items per page (default 100)"),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of projects; `next_cursor` is null on the last page", body = ProjectList),
        (status = 422, description = "`invalid_limit`, `invalid_cursor` or `validation_failed` (an unknown query parameter)", body = domain_desk_api::ErrorBody),
    ),
)]
pub async fn list_projects(
    State(state): State<AppState>,
    caller: Caller,
    list: ListParams,
) -> Result<Response> {
    let account_id = caller.account.id;
    let scope = ListScope {
        list: "projects",
        owner: &account_id,
    };
    let owner = account_id.clone();
    // Written as JSON on the reader's side, straight from the rows (`ProjectList`'s bytes).
    let (projects, next_cursor) = list
        .read_page(&state, scope, move |conn, request| {
            project_json::page_of_account(conn, &owner, request)
        })
        .await?;
    super::list_response("projects", projects.0, next_cursor.as_deref())
}

pub(crate) fn validate_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::validation(
            "name",
            format!("A project name needs 1 to {MAX_NAME_CHARS} characters."),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::validation(
            "name",
            "A project name cannot contain control characters.",
        ));
    }
    Ok(name.to_owned())
}

#[utoipa::path(
    post,
    path = "/v1/projects",
    tag = "projects",
    summary = "Create a project; it gets a default address under the platform domain",
    request_body = CreateProject,
    responses((status = 201, description = "The new project", body = Project)),
)]
pub async fn create_project(
    State(state): State<AppState>,
    caller: Caller,
    pending: Option<Extension<PendingAnswer>>,
    ApiJson(body): ApiJson<CreateProject>,
) -> Result<Response> {
    let name = validate_name(&body.name)?;
    let now = state.now();
    let platform_domain = state.settings().platform_domain.clone();
    let account_id = caller.account.id;
    let pending = pending.map(|Extension(pending)| pending);
    let (response, default_address) =
        commit_answer_with(&state, pending, StatusCode::CREATED, move |tx| {
            let row = projects::create(tx, &account_id, &name, &platform_domain, now)?;
            tracing::info!(project = %row.id, "project created");
            Ok((projects::to_api(tx, &row)?, row.default_address))
        })
        .await?;
    if let (Some(world), Some(default_address)) = (state.world(), default_address) {
        world.project_created(&default_address);
    }
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}",
    tag = "projects",
    summary = "One project",
    params(("project_id" = String, Path, description = "The project's id")),
    responses((status = 200, description = "The project", body = Project)),
)]
pub async fn get_project(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
) -> Result<Json<Project>> {
    let account_id = caller.account.id;
    let project = state
        .store()
        .read(move |conn| {
            let row = projects::require(conn, &account_id, &project_id)?;
            projects::to_api(conn, &row)
        })
        .await?;
    Ok(Json(project))
}

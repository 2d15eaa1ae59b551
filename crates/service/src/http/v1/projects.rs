//! Projects: list, create, get. Another account's project answers `404` like an unknown one.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain_desk_api::{CreateProject, Project, ProjectList};

use crate::http::extract::{ApiJson, ApiPath, Caller};
use crate::state::AppState;
use crate::store::projects;
use crate::{Error, Result};

/// Longest project name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

#[utoipa::path(
    get,
    path = "/v1/projects",
    tag = "projects",
    summary = "The account's projects, oldest first",
    responses((status = 200, description = "The projects", body = ProjectList)),
)]
pub async fn list_projects(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<ProjectList>> {
    let account_id = caller.account.id;
    let projects = state
        .store()
        .run(move |conn| {
            projects::rows_of_account(conn, &account_id)?
                .iter()
                .map(|row| projects::to_api(conn, row))
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    Ok(Json(ProjectList { projects }))
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
    ApiJson(body): ApiJson<CreateProject>,
) -> Result<(StatusCode, Json<Project>)> {
    let name = validate_name(&body.name)?;
    let now = state.now();
    let platform_domain = state.settings().platform_domain.clone();
    let account_id = caller.account.id;
    let project = state
        .store()
        .write(move |tx| {
            let row = projects::create(tx, &account_id, &name, &platform_domain, now)?;
            projects::to_api(tx, &row)
        })
        .await?;
    tracing::info!(project = %project.id, "project created");
    Ok((StatusCode::CREATED, Json(project)))
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
        .run(move |conn| {
            let row = projects::require(conn, &account_id, &project_id)?;
            projects::to_api(conn, &row)
        })
        .await?;
    Ok(Json(project))
}

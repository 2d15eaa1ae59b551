//! `POST /v1/projects/{project_id}/deploys`: publish files. The edge serves the files of the
//! latest successful deploy; a deploy without files publishes a placeholder page.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use domain_desk_api::{CreateDeploy, Deploy, DeployList, DeployStatus};

use crate::http::extract::{ApiPath, Caller, ListParams, OptionalJson};
use crate::http::idempotency::{PendingAnswer, commit_answer};
use crate::http::state::AppState;
use crate::store::page::ListScope;
use crate::store::{deploys, projects};
use crate::{Error, Result};

pub const MAX_FILES: usize = 1000;
pub const MAX_PATH_LEN: usize = 512;

/// Checks and normalises file paths: relative, `/`-separated, no `.` or `..` segments.
fn normalise_files(files: BTreeMap<String, String>) -> Result<BTreeMap<String, String>> {
    if files.len() > MAX_FILES {
        return Err(Error::validation(
            "files",
            format!("A deploy can carry at most {MAX_FILES} files."),
        ));
    }
    let mut normalised = BTreeMap::new();
    for (path, content) in files {
        let clean = path.trim_start_matches('/');
        let bad = clean.is_empty()
            || clean.len() > MAX_PATH_LEN
            || clean.ends_with('/')
            || clean.contains('\\')
            || clean.chars().any(char::is_control)
            || clean
                .split('/')
                .any(|segment| segment.is_empty() || segment == "." || segment == "..");
        if bad {
            return Err(Error::validation(
                "files",
                format!(
                    "{path:?} is not a file path: use relative paths like \"index.html\" or \
                     \"css/site.css\", without \"..\", at most {MAX_PATH_LEN} characters."
                ),
            ));
        }
        if normalised.insert(clean.to_owned(), content).is_some() {
            return Err(Error::validation(
                "files",
                format!("The file {clean:?} is given twice."),
            ));
        }
    }
    Ok(normalised)
}

#[utoipa::path(
    post,
    path = "/v1/projects/{project_id}/deploys",
    tag = "projects",
    summary = "Deploy files (path → text); the edge serves the latest successful deploy",
    params(("project_id" = String, Path, description = "The project's id")),
    request_body(content = Option<CreateDeploy>, description = "Optional: without files a placeholder page is published"),
    responses((status = 201, description = "The deploy", body = Deploy)),
)]
pub async fn create_deploy(
    State(state): State<AppState>,
    caller: Caller,
    pending: Option<Extension<PendingAnswer>>,
    ApiPath(project_id): ApiPath<String>,
    OptionalJson(body): OptionalJson<CreateDeploy>,
) -> Result<Response> {
    let files = normalise_files(body.files.unwrap_or_default())?;
    let now = state.now();
    let account_id = caller.account.id;
    let pending = pending.map(|Extension(pending)| pending);
    let keep = state.settings().history.deploys_per_project;
    commit_answer(&state, pending, StatusCode::CREATED, move |tx| {
            let project = projects::require(tx, &account_id, &project_id)?;
            let files = if files.is_empty() {
                BTreeMap::from([(
                    "index.html".to_owned(),
                    format!(
                        "<!doctype html><title>{0}</title><h1>{0}</h1>\n",
                        html_escape(&project.name)
                    ),
                )])
            } else {
                files
            };
            let deploy = deploys::create(tx, &project.id, DeployStatus::Succeeded, &files, now)?;
            deploys::keep_newest(tx, &project.id, keep)?;
            tracing::info!(deploy = %deploy.id, project = %deploy.project_id, files = deploy.file_count, "deployed");
            Ok(deploy)
    })
    .await
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}/deploys",
    tag = "projects",
    summary = "The project's deploys, oldest first, a page at a time",
    params(
        ("project_id" = String, Path, description = "The project's id"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "Items per page (default 100)"),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of deploys; `next_cursor` is null on the last page", body = DeployList),
        (status = 422, description = "`invalid_limit`, `invalid_cursor` or `validation_failed` (an unknown query parameter)", body = domain_desk_api::ErrorBody),
    ),
)]
pub async fn list_deploys(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
    list: ListParams,
) -> Result<Json<DeployList>> {
    let account_id = caller.account.id;
    let scope = ListScope {
        list: "deploys",
        owner: &project_id,
    };
    let owner = project_id.clone();
    let (deploys, next_cursor) = list
        .read_page(&state, scope, move |conn, request| {
            let project = projects::require(conn, &account_id, &owner)?;
            deploys::page_of_project(conn, &project.id, request)
        })
        .await?;
    Ok(Json(DeployList {
        deploys,
        next_cursor,
    }))
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_are_checked_and_normalised() {
        let ok = normalise_files(BTreeMap::from([
            ("/index.html".to_owned(), "a".to_owned()),
            ("css/site.css".to_owned(), "b".to_owned()),
        ]))
        .unwrap();
        assert!(ok.contains_key("index.html"));
        for bad in ["", "/", "../etc/passwd", "a//b", "a/./b", "dir/", "a\\b"] {
            assert!(
                normalise_files(BTreeMap::from([(bad.to_owned(), String::new())])).is_err(),
                "{bad:?}"
            );
        }
        let twice = BTreeMap::from([
            ("/a.html".to_owned(), String::new()),
            ("a.html".to_owned(), String::new()),
        ]);
        assert!(normalise_files(twice).is_err());
    }
}

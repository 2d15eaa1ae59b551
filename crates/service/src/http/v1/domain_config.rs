//! `GET|PUT /v1/projects/{project_id}/domain_config`: the primary domain and the redirects in
//! one object. `PUT` replaces both in one step: the named primary becomes primary, each
//! redirect's `from` becomes a 301 redirect to its `to`, and every other domain of the project
//! becomes an alias. Rules: status 301 only (`unsupported_redirect_status`); both ends must be
//! this project's (a `to` may also be the project's default address); no self-redirect, no
//! chain (a `to` that itself redirects), hence no loop; the primary cannot redirect
//! (`invalid_redirect`). A wildcard domain is neither the primary (`validation_failed`) nor
//! either end of a redirect (`invalid_redirect`): it stays an alias.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain_desk_api::{DomainConfig, DomainRole, ErrorBody, ErrorCode, Hostname, RedirectRule};
use rusqlite::Connection;

use crate::http::extract::{ApiJson, ApiPath, Caller};
use crate::http::state::AppState;
use crate::store::{domains, projects};
use crate::{Error, Result};

fn current_config(conn: &Connection, project_id: &str) -> Result<DomainConfig> {
    let all = domains::of_project(conn, project_id)?;
    Ok(DomainConfig {
        primary: all
            .iter()
            .find(|d| d.role == DomainRole::Primary)
            .map(|d| d.hostname.clone()),
        redirects: all
            .iter()
            .filter_map(|d| {
                d.redirect.as_ref().map(|r| RedirectRule {
                    from: d.hostname.clone(),
                    to: r.to.clone(),
                    status: r.status,
                })
            })
            .collect(),
    })
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}/domain_config",
    tag = "domains",
    summary = "The primary domain and the redirects",
    params(("project_id" = String, Path, description = "The project's id")),
    responses((status = 200, description = "The configuration", body = DomainConfig)),
)]
pub async fn get_domain_config(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
) -> Result<Json<DomainConfig>> {
    let account_id = caller.account.id;
    let config = state
        .store()
        .read(move |conn| {
            let project = projects::require(conn, &account_id, &project_id)?;
            current_config(conn, &project.id)
        })
        .await?;
    Ok(Json(config))
}

fn attached(conn: &Connection, project_id: &str, hostname: &Hostname) -> Result<bool> {
    Ok(domains::get(conn, hostname.as_str())?.is_some_and(|d| d.project_id == project_id))
}

#[utoipa::path(
    put,
    path = "/v1/projects/{project_id}/domain_config",
    tag = "domains",
    summary = "Set the primary domain and the redirects in one step",
    params(("project_id" = String, Path, description = "The project's id")),
    request_body = DomainConfig,
    responses(
        (status = 200, description = "The configuration now in effect", body = DomainConfig),
        (status = 422, description = "`unsupported_redirect_status`, `invalid_redirect` (also a wildcard as a redirect's `from` or `to`), `invalid_hostname` or `validation_failed` (also a wildcard as `primary`)", body = ErrorBody),
    ),
)]
pub async fn put_domain_config(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
    ApiJson(body): ApiJson<DomainConfig>,
) -> Result<Json<DomainConfig>> {
    let account_id = caller.account.id;
    let config = state
        .store()
        .write(move |tx| {
            let project = projects::require(tx, &account_id, &project_id)?;
            let primary = match &body.primary {
                None => None,
                Some(raw) => {
                    let name = Hostname::parse_domain(raw)
                        .map_err(|err| Error::invalid_hostname("primary", err.to_string()))?;
                    if name.is_wildcard() {
                        return Err(Error::validation(
                            "primary",
                            format!(
                                "{name} is a wildcard; the primary domain is one name the project is served at."
                            ),
                        ));
                    }
                    if !attached(tx, &project.id, &name)? {
                        return Err(Error::validation(
                            "primary",
                            format!("{name} is not a domain of this project; add it first."),
                        ));
                    }
                    Some(name.as_str().to_owned())
                }
            };
            let mut redirects: BTreeMap<String, String> = BTreeMap::new();
            for rule in &body.redirects {
                if rule.status != domains::REDIRECT_STATUS {
                    return Err(Error::api(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        ErrorCode::UnsupportedRedirectStatus,
                        format!("Redirects use status 301 only, not {}.", rule.status),
                    ));
                }
                let from = Hostname::parse_domain(&rule.from)
                    .map_err(|err| Error::invalid_hostname("redirects", err.to_string()))?;
                if from.is_wildcard() {
                    return Err(Error::invalid_redirect(format!(
                        "{from} is a wildcard, which cannot redirect."
                    )));
                }
                if !attached(tx, &project.id, &from)? {
                    return Err(Error::invalid_redirect(format!(
                        "{from} is not a domain of this project; add it first."
                    )));
                }
                if primary.as_deref() == Some(from.as_str()) {
                    return Err(Error::invalid_redirect(format!(
                        "{from} is the primary domain; the primary cannot redirect."
                    )));
                }
                let to = config_target(tx, &project, from.as_str(), &rule.to)?;
                if redirects.insert(from.as_str().to_owned(), to).is_some() {
                    return Err(Error::invalid_redirect(format!(
                        "{from} is given two redirects."
                    )));
                }
            }
            for (from, to) in &redirects {
                if redirects.contains_key(to) {
                    return Err(Error::invalid_redirect(format!(
                        "{from} redirects to {to}, which redirects too; point both at the final domain (no chains or loops)."
                    )));
                }
            }
            for domain in domains::of_project(tx, &project.id)? {
                let (role, to) = if primary.as_deref() == Some(domain.hostname.as_str()) {
                    (DomainRole::Primary, None)
                } else if let Some(to) = redirects.get(&domain.hostname) {
                    (DomainRole::Redirect, Some(to.as_str()))
                } else {
                    (DomainRole::Alias, None)
                };
                domains::set_role(tx, &domain.hostname, role, to)?;
            }
            current_config(tx, &project.id)
        })
        .await?;
    Ok(Json(config))
}

/// A redirect's target in a whole new configuration: this project's default address or one of
/// its domains (whether that one redirects is checked against the new rules, not the old).
fn config_target(
    conn: &Connection,
    project: &projects::ProjectRow,
    from: &str,
    to: &str,
) -> Result<String> {
    let lowered = to.trim().trim_end_matches('.').to_ascii_lowercase();
    if lowered == project.default_address {
        return Ok(lowered);
    }
    if lowered.contains('*') {
        return Err(Error::invalid_redirect(format!(
            "The redirect target {to:?} is a wildcard; a redirect leads to one name."
        )));
    }
    let target = Hostname::parse(to).map_err(|_| {
        Error::invalid_redirect(format!("The redirect target {to:?} is not a hostname."))
    })?;
    if target.as_str() == from {
        return Err(Error::invalid_redirect(
            "A domain cannot redirect to itself.",
        ));
    }
    if !attached(conn, &project.id, &target)? {
        return Err(Error::invalid_redirect(format!(
            "The redirect target {target} is not a domain of this project; add it first."
        )));
    }
    Ok(target.as_str().to_owned())
}

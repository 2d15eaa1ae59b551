//! A project's custom domains: list, add, get, verify, remove.
//!
//! Adding needs a paid plan and a successful deploy. The first domain added without
//! `redirect_to` while the project has no primary becomes primary, later ones are aliases; with
//! `redirect_to` the domain 301-redirects to another domain of the project (or to its default
//! address), never to itself and never to a domain that redirects (no chains).
//! A wildcard (`*.shop.example.com`) is added like any name but never becomes primary (it is
//! an alias even as a project's first domain) and cannot redirect or be redirected to.
//! Removing is always allowed; redirects that pointed at the removed domain re-point to the
//! project's current address (its live primary domain, else its default address). When the
//! removed name still points at the platform, the `204` names the record to delete
//! (`Dangling-Dns-Record`): a record left pointing at a shared platform is a takeover waiting.
//! A name another account holds can be taken over by proving control of it ([`super::ownership`]);
//! the project that lost it answers `404` for it with the removal's reason, and lists it
//! under `removed_domains`.

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use domain_desk_api::{
    AddDomain, DANGLING_DNS_RECORD, DanglingRecord, DnsRecordType, Domain, DomainList,
    DomainRemovalList, DomainRole, ErrorBody, ErrorCode, Hostname,
};
use rusqlite::Connection;

use super::ownership;
use super::path_hostname;
use crate::http::extract::{ApiJson, ApiPath, Caller, ListParams};
use crate::http::idempotency::{Answer, PendingAnswer, commit_answer_with};
use crate::http::state::AppState;
use crate::store::fast::domain_json;
use crate::store::page::ListScope;
use crate::store::{deploys, domains, ownership as removals, projects};
use crate::{Error, Result, world};

/// A domain of this project, or `404 not_found` — with the reason when the platform removed it.
pub(crate) fn require_domain(
    conn: &Connection,
    project_id: &str,
    hostname: &str,
) -> Result<Domain> {
    domains::require_in_project(conn, project_id, hostname).map_err(
        |error| match removals::removal(conn, project_id, hostname) {
            Ok(Some(removal)) => {
                let mut detail =
                    domain_desk_api::ErrorDetail::new(ErrorCode::NotFound, removal.message.clone());
                detail.removal = Some(removal);
                Error::from_detail(StatusCode::NOT_FOUND, detail)
            }
            Ok(None) => error,
            Err(lookup) => lookup,
        },
    )
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}/domains",
    tag = "domains",
    summary = "The project's domains in the order they were added, a page at a time",
    params(
        ("project_id" = String, Path, description = "The project's id"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "Items per page (default 100)"),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page"),
    ),
    responses(
        (status = 200, description = "A page of domains; `next_cursor` is null on the last page", body = DomainList),
        (status = 422, description = "`invalid_limit`, `invalid_cursor` or `validation_failed` (an unknown query parameter)", body = ErrorBody),
    ),
)]
pub async fn list_domains(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
    list: ListParams,
) -> Result<Response> {
    let account_id = caller.account.id;
    let scope = ListScope {
        list: "domains",
        owner: &project_id,
    };
    let owner = project_id.clone();
    // Written as JSON on the reader's thread, straight from the rows (`DomainList`'s bytes).
    let (domains, next_cursor) = list
        .read_page(&state, scope, move |conn, request| {
            let project = projects::require(conn, &account_id, &owner)?;
            domain_json::page_of_project(conn, &project.id, request)
        })
        .await?;
    super::list_response("domains", domains.0, next_cursor.as_deref())
}

/// Resolves a redirect target: the project's default address, or a domain of this project
/// that does not itself redirect.
pub(crate) fn redirect_target(
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
    match domains::get(conn, target.as_str())? {
        Some(domain) if domain.project_id == project.id => {
            if domain.role == DomainRole::Redirect {
                Err(Error::invalid_redirect(format!(
                    "{} redirects itself; point the redirect at the domain it leads to (no chains).",
                    domain.hostname
                )))
            } else {
                Ok(domain.hostname)
            }
        }
        _ => Err(Error::invalid_redirect(format!(
            "The redirect target {} is not a domain of this project; add it first.",
            target.as_str()
        ))),
    }
}

#[utoipa::path(
    post,
    path = "/v1/projects/{project_id}/domains",
    tag = "domains",
    summary = "Add a domain: primary if the project has none, else an alias, or a 301 redirect with `redirect_to`",
    params(("project_id" = String, Path, description = "The project's id")),
    request_body = AddDomain,
    responses(
        (status = 201, description = "The new domain, pending verification, with the DNS record to create (the routing record) and `certificate.validation.dns_record` (the delegation that lets the certificate be issued before traffic moves). `hostname` may be a wildcard (`*.example.com`, `*.shop.example.com`: a single `*` as the leftmost label, not directly under a public suffix); a wildcard is never primary (an alias even as the first domain) and its certificate is validated by DNS only", body = Domain),
        (status = 403, description = "`plan_upgrade_required` (Free plan) or `key_banned`", body = ErrorBody),
        (status = 409, description = "`deploy_required`, `domain_already_attached`, `domain_taken` or `domain_limit_reached`. When a project of another account holds the name, `domain_taken` carries `ownership_challenge`: the TXT record (`name`, `fqdn`, `value`, `expires_at`) that proves control of it; once the platform's resolver sees it, adding again moves the domain here (the other project loses it at once and lists it under `removed_domains`)", body = ErrorBody),
        (status = 422, description = "`invalid_hostname` (also any other wildcard form), `invalid_redirect` (also a wildcard with `redirect_to`, or a wildcard as `redirect_to`) or `validation_failed`", body = ErrorBody),
    ),
)]
pub async fn add_domain(
    State(state): State<AppState>,
    caller: Caller,
    pending: Option<Extension<PendingAnswer>>,
    ApiPath(project_id): ApiPath<String>,
    ApiJson(body): ApiJson<AddDomain>,
) -> Result<Response> {
    let now = state.now();
    let platform_domain = state.settings().platform_domain.clone();
    let platform_target = state.settings().platform_dns_target.clone();
    let validation_zone = state.settings().validation_zone();
    let account = caller.account;
    let pending = pending.map(|Extension(pending)| pending);
    // A name another account holds may be taken over with a proof in DNS, looked up before
    // the transaction (see `ownership`).
    // Parsed once, here: IDNA and the Public Suffix List are work the writer's thread, which
    // every write waits for, need not do. Its error is still reported at its place below.
    let parsed = Hostname::parse_domain(&body.hostname);
    let prepared = match &parsed {
        Ok(hostname) if account.plan.allows_custom_domains() => {
            ownership::prepare(&state, &account.id, hostname).await?
        }
        _ => None,
    };
    let (response, added) = commit_answer_with(&state, pending, StatusCode::CREATED, move |tx| {
        let project = projects::require(tx, &account.id, &project_id)?;
        if !account.plan.allows_custom_domains() {
            return Err(Error::api(
                StatusCode::FORBIDDEN,
                ErrorCode::PlanUpgradeRequired,
                "Custom domains need a paid plan (Pro or above); upgrade the account to add one.",
            ));
        }
        if deploys::current_succeeded(tx, &project.id)?.is_none() {
            return Err(Error::conflict(
                ErrorCode::DeployRequired,
                "Deploy the project successfully before adding a domain.",
            ));
        }
        let hostname = parsed?;
        if hostname.is_within(&platform_domain) {
            return Err(Error::invalid_hostname(
                "hostname",
                format!("Names under the platform's own domain {platform_domain} cannot be added."),
            ));
        }
        if hostname.is_wildcard() && body.redirect_to.is_some() {
            return Err(Error::invalid_redirect(format!(
                "{hostname} is a wildcard, which cannot redirect; add it without redirect_to."
            )));
        }
        let redirect_to = body
            .redirect_to
            .as_deref()
            .map(|to| redirect_target(tx, &project, hostname.as_str(), to))
            .transpose()?;
        match domains::get(tx, hostname.as_str())? {
            Some(existing) if existing.project_id == project.id => {
                return Err(Error::conflict(
                    ErrorCode::DomainAlreadyAttached,
                    format!("{hostname} is already a domain of this project."),
                ));
            }
            Some(existing) => ownership::take_over_or_refuse(
                tx,
                &account.id,
                &hostname,
                &existing,
                prepared.as_ref(),
                now,
            )?,
            None => {}
        }
        let limit = account.limits.max_domains_per_project;
        if domains::count_of_project(tx, &project.id)? >= limit {
            return Err(Error::conflict(
                ErrorCode::DomainLimitReached,
                format!(
                    "This project has the plan's maximum of {limit} domains; remove one first."
                ),
            ));
        }
        let role = if redirect_to.is_some() {
            DomainRole::Redirect
        } else if hostname.is_wildcard() {
            // a wildcard is never the name a project is served at
            DomainRole::Alias
        } else if domains::primary(tx, &project.id)?.is_none() {
            DomainRole::Primary
        } else {
            DomainRole::Alias
        };
        let domain = domains::new_domain(
            &hostname,
            &project.id,
            role,
            redirect_to,
            &platform_target,
            &validation_zone,
            now,
        );
        domains::insert(tx, &domain)?;
        removals::forget_removal(tx, &project.id, &domain.hostname)?;
        let added = (domain.hostname.clone(), domain.project_id.clone());
        Ok((domain, added))
    })
    .await?;
    // logged here, not on the writer's thread (a log line is a write to a file)
    if let Some((hostname, project)) = added {
        tracing::info!(%hostname, %project, "domain added");
    }
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}/domains/{hostname}",
    tag = "domains",
    summary = "One domain with its DNS record, verification and certificate",
    params(
        ("project_id" = String, Path, description = "The project's id"),
        ("hostname" = String, Path, description = "The domain, as A-labels or Unicode"),
    ),
    responses((status = 200, description = "The domain", body = Domain)),
)]
pub async fn get_domain(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath((project_id, hostname)): ApiPath<(String, String)>,
) -> Result<Json<Domain>> {
    let hostname = path_hostname(&hostname)?;
    let account_id = caller.account.id;
    let domain = state
        .store()
        .read(move |conn| {
            let project = projects::require(conn, &account_id, &project_id)?;
            require_domain(conn, &project.id, hostname.as_str())
        })
        .await?;
    Ok(Json(domain))
}

#[utoipa::path(
    post,
    path = "/v1/projects/{project_id}/domains/{hostname}/verify",
    tag = "domains",
    summary = "Verify (or Re-verify) the domain's DNS; on success certificate issuance starts. When the routing record does not pass yet but the `_acme-challenge` CNAME (`certificate.validation.dns_record`) does, the certificate is issued by DNS validation while the domain stays `pending_verification` (not served); the first Verify whose routing record passes makes it `live` at once",
    params(
        ("project_id" = String, Path, description = "The project's id"),
        ("hostname" = String, Path, description = "The domain, as A-labels or Unicode"),
    ),
    responses(
        (status = 200, description = "The domain after the check; `verification.error` says why it failed", body = Domain),
        (status = 501, description = "`internal`: this service runs without its DNS world", body = ErrorBody),
    ),
)]
pub async fn verify_domain(
    State(state): State<AppState>,
    caller: Caller,
    pending: Option<Extension<PendingAnswer>>,
    ApiPath((project_id, hostname)): ApiPath<(String, String)>,
) -> Result<Response> {
    let hostname = path_hostname(&hostname)?;
    let account = caller.account;
    {
        let (account_id, project_id, hostname) =
            (account.id.clone(), project_id.clone(), hostname.clone());
        state
            .store()
            .read(move |conn| {
                let project = projects::require(conn, &account_id, &project_id)?;
                require_domain(conn, &project.id, hostname.as_str())
            })
            .await?;
    }
    let world = state.require_world()?;
    let pending = pending.map(|Extension(pending)| pending);
    let name = hostname.as_str().to_owned();
    let answer = world
        .verify(&hostname, move |tx, outcome, now| {
            if let Some(earlier) = Answer::earlier(tx, pending.as_ref())? {
                return Ok((earlier, false));
            }
            let domain = domains::require_in_project(tx, &project_id, &name)?;
            let fresh_attempt = world::record_verification(tx, &domain, &outcome, now)?;
            // The answer is the domain as this change left it, committed with the change.
            let verified = domains::require_in_project(tx, &project_id, &name)?;
            let answer = Answer::record(tx, pending.as_ref(), StatusCode::OK, &verified)?;
            Ok((answer, fresh_attempt))
        })
        .await?;
    Ok(answer.into_response())
}

#[utoipa::path(
    delete,
    path = "/v1/projects/{project_id}/domains/{hostname}",
    tag = "domains",
    summary = "Remove a domain; serving stops at once and redirects to it re-point to the project's current address",
    params(
        ("project_id" = String, Path, description = "The project's id"),
        ("hostname" = String, Path, description = "The domain, as A-labels or Unicode"),
    ),
    responses((status = 204, description = "Removed. When the name still points at the platform (as the platform's resolver sees it), the `Dangling-Dns-Record` header names the record to delete at the DNS provider, so nobody else can claim the name here", headers(
        ("Dangling-Dns-Record" = String, description = "Only while the removed name still points at the platform: a structured-field dictionary (RFC 8941) `type=\"CNAME\", name=\"shop\", fqdn=\"shop.example.com\", value=\"<platform DNS target>\"` (`ALIAS` and `@` for an apex)"),
    ))),
)]
pub async fn remove_domain(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath((project_id, hostname)): ApiPath<(String, String)>,
) -> Result<Response> {
    let hostname = path_hostname(&hostname)?;
    let account_id = caller.account.id;
    let name = hostname.as_str().to_owned();
    let removed = state
        .store()
        .write(move |tx| {
            let project = projects::require(tx, &account_id, &project_id)?;
            let domain = require_domain(tx, &project.id, &name)?;
            domains::delete(tx, &domain.hostname)?;
            let current = projects::current_address(tx, &project)?;
            domains::repoint_redirects(tx, &project.id, &domain.hostname, &current)?;
            Ok(domain)
        })
        .await?;
    tracing::info!(hostname = %removed.hostname, "domain removed");
    let mut response = StatusCode::NO_CONTENT.into_response();
    // Serving has stopped; a record that still points here is what a takeover needs.
    if let Some(world) = state.world() {
        if world.points_here(&hostname).await {
            let dangling = DanglingRecord {
                record_type: match removed.dns_record.record_type {
                    DnsRecordType::Cname => "CNAME",
                    DnsRecordType::Alias => "ALIAS",
                }
                .to_owned(),
                name: removed.dns_record.name.clone(),
                fqdn: removed.hostname.clone(),
                value: removed.dns_record.value.clone(),
            };
            if let Ok(value) = HeaderValue::from_str(&dangling.to_header()) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static(DANGLING_DNS_RECORD), value);
            }
        }
    }
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/v1/projects/{project_id}/removed_domains",
    tag = "domains",
    summary = "Domains the platform removed from the project (another account proved control of the name), newest first, at most 100",
    params(("project_id" = String, Path, description = "The project's id")),
    responses((status = 200, description = "The removals with their reason", body = DomainRemovalList)),
)]
pub async fn list_removed_domains(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(project_id): ApiPath<String>,
) -> Result<Json<DomainRemovalList>> {
    let account_id = caller.account.id;
    let removed_domains = state
        .store()
        .read(move |conn| {
            let project = projects::require(conn, &account_id, &project_id)?;
            removals::removals(conn, &project.id)
        })
        .await?;
    Ok(Json(DomainRemovalList { removed_domains }))
}

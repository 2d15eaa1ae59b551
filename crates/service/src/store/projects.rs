//! Projects: each has an auto-generated default address under the platform domain
//! (`<slug>-<random>.<platform domain>`) and is served there until its primary domain is live.

use chrono::{DateTime, Utc};
use domain_desk_api::{DomainStatus, Project};
use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::page::{self, After, Page, PageRequest};
use super::time::{from_sql, to_sql};
use super::{deploys, domains, new_id, random_token};
use crate::{Error, Result};

/// Longest slug taken from a project's name, so the label stays well under 63 characters.
const MAX_SLUG: usize = 40;

/// The first label's readable part: lowercase letters and digits, other runs become one `-`.
pub fn slug(name: &str) -> String {
    let mut slug = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= MAX_SLUG {
            break;
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "project".to_owned()
    } else {
        slug.to_owned()
    }
}

/// The raw row of a project, before its domains and deploys are joined in.
#[derive(Debug, Clone)]
pub struct ProjectRow {
    pub id: String,
    pub account_id: String,
    pub name: String,
    pub default_address: String,
    pub created_at: DateTime<Utc>,
}

pub fn create(
    conn: &Connection,
    account_id: &str,
    name: &str,
    platform_domain: &str,
    now: DateTime<Utc>,
) -> Result<ProjectRow> {
    let id = new_id("prj");
    let base = slug(name);
    // Six random characters make a collision unlikely; the UNIQUE column makes it impossible.
    for _ in 0..8 {
        let default_address = format!("{base}-{}.{platform_domain}", random_token(6));
        let inserted = execute_cached(
            conn,
            "INSERT OR IGNORE INTO projects (id, account_id, name, default_address, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, account_id, name, default_address, to_sql(now)],
        )?;
        if inserted == 1 {
            return Ok(ProjectRow {
                id,
                account_id: account_id.to_owned(),
                name: name.to_owned(),
                default_address,
                created_at: now,
            });
        }
    }
    Err(Error::Internal(
        "could not find a free default address in 8 tries".into(),
    ))
}

const COLUMNS: &str = "id, account_id, name, default_address, created_at";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, String, String, String)> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
    ))
}

fn to_project_row(raw: (String, String, String, String, String)) -> Result<ProjectRow> {
    let (id, account_id, name, default_address, created_at) = raw;
    Ok(ProjectRow {
        id,
        account_id,
        name,
        default_address,
        created_at: from_sql(&created_at)?,
    })
}

/// A project of this account; another account's project is `None`, like an unknown one.
pub fn row(conn: &Connection, account_id: &str, project_id: &str) -> Result<Option<ProjectRow>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM projects WHERE id = ?1 AND account_id = ?2"),
        params![project_id, account_id],
        from_row,
    )
    .optional()?
    .map(to_project_row)
    .transpose()
}

/// Like [`row`], with the contract's `404 not_found` when missing.
pub fn require(conn: &Connection, account_id: &str, project_id: &str) -> Result<ProjectRow> {
    row(conn, account_id, project_id)?
        .ok_or_else(|| Error::not_found(format!("No project {project_id} in this account.")))
}

/// Any account's project by id (for the edge and the verifier).
pub fn row_by_id(conn: &Connection, project_id: &str) -> Result<Option<ProjectRow>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM projects WHERE id = ?1"),
        params![project_id],
        from_row,
    )
    .optional()?
    .map(to_project_row)
    .transpose()
}

/// The id of this account's project named `name`, if it has one (the demo's seeded stories
/// find their project so).
pub fn id_by_name(conn: &Connection, account_id: &str, name: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT id FROM projects WHERE account_id = ?1 AND name = ?2",
            params![account_id, name],
            |row| row.get(0),
        )
        .optional()?)
}

/// The project whose default address is `hostname` (for the edge).
pub fn row_by_default_address(conn: &Connection, hostname: &str) -> Result<Option<ProjectRow>> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM projects WHERE default_address = ?1"),
        params![hostname],
        from_row,
    )
    .optional()?
    .map(to_project_row)
    .transpose()
}

pub fn rows_of_account(conn: &Connection, account_id: &str) -> Result<Vec<ProjectRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM projects WHERE account_id = ?1 ORDER BY created_at, id"
    ))?;
    let raws = stmt
        .query_map(params![account_id], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(to_project_row).collect()
}

/// A page of an account's projects with what the contract shows of each: columns `id, name,
/// default_address, created_at`, the primary domain's `hostname, status` and the last deploy's
/// `id, status, created_at` (NULL when there is none), all from the project's row and all in
/// the `projects_page` index (migration 9 keeps the copies); parameters: the account, the
/// creation time and id the page starts after, and how many rows.
pub(crate) const PAGE_OF_ACCOUNT: &str = "SELECT id, name, default_address, created_at,
        primary_hostname, primary_status,
        last_deploy_id, last_deploy_status, last_deploy_at
 FROM projects
 WHERE account_id = ?1 AND (created_at, id) > (?2, ?3)
 ORDER BY created_at, id
 LIMIT ?4";

/// One page of the account's projects, oldest first, as the contract shows them — in one
/// query, whatever the page's length: the primary domain and the last deploy are on the row.
pub fn page_of_account(
    conn: &Connection,
    account_id: &str,
    request: &PageRequest,
) -> Result<Page<Vec<Project>>> {
    let (after_time, after_id) = page::after_params(&request.after);
    let mut stmt = conn.prepare_cached(PAGE_OF_ACCOUNT)?;
    type Raw = (
        String,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let raws = stmt
        .query_map(
            params![account_id, after_time, after_id, request.limit + 1],
            |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                    row.get(6)?,
                    row.get(7)?,
                    row.get(8)?,
                ))
            },
        )?
        .collect::<rusqlite::Result<Vec<Raw>>>()?;
    let mut keyed = Vec::with_capacity(raws.len());
    for (
        id,
        name,
        default_address,
        created_at,
        primary,
        primary_status,
        deploy_id,
        deploy_status,
        deploy_at,
    ) in raws
    {
        let live = primary_status.as_deref() == Some(domains::status_to_sql(DomainStatus::Live));
        let url_host = match (&primary, live) {
            (Some(primary), true) => primary.clone(),
            _ => default_address.clone(),
        };
        let last_deploy = match (deploy_id, deploy_status, deploy_at) {
            (Some(id), Some(status), Some(at)) => Some(deploys::summary(id, &status, &at)?),
            _ => None,
        };
        let project = Project {
            id: id.clone(),
            name,
            default_address,
            primary_domain: primary,
            url: format!("https://{url_host}"),
            last_deploy,
            created_at: from_sql(&created_at)?,
        };
        keyed.push((After { created_at, id }, project));
    }
    let page = Page::from_rows(keyed, request.limit, |(after, _)| after.clone());
    Ok(Page {
        items: page.items.into_iter().map(|(_, project)| project).collect(),
        next: page.next,
    })
}

/// Every project's default address (what the platform zone answers for).
pub fn default_addresses(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT default_address FROM projects")?;
    let names = stmt
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(names)
}

/// Where the project is served now, as a hostname: the primary domain once it is live, else
/// the default address.
pub fn current_address(conn: &Connection, project: &ProjectRow) -> Result<String> {
    Ok(match domains::primary(conn, &project.id)? {
        Some(primary) if primary.status == DomainStatus::Live => primary.hostname,
        _ => project.default_address.clone(),
    })
}

/// The contract's Project object.
pub fn to_api(conn: &Connection, project: &ProjectRow) -> Result<Project> {
    let primary = domains::primary(conn, &project.id)?;
    let url_host = match &primary {
        Some(primary) if primary.status == DomainStatus::Live => primary.hostname.clone(),
        _ => project.default_address.clone(),
    };
    Ok(Project {
        id: project.id.clone(),
        name: project.name.clone(),
        default_address: project.default_address.clone(),
        primary_domain: primary.map(|domain| domain.hostname),
        url: format!("https://{url_host}"),
        last_deploy: deploys::last(conn, &project.id)?,
        created_at: project.created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_dns_labels() {
        assert_eq!(slug("Bar's Site!"), "bar-s-site");
        assert_eq!(slug("  --  "), "project");
        assert_eq!(slug("Café 2"), "caf-2");
        assert!(slug(&"x".repeat(200)).len() <= MAX_SLUG);
        assert!(!slug(&format!("{}-tail", "a".repeat(39))).ends_with('-'));
    }
}

//! A page of an account's projects written as the contract's JSON straight from the rows.
//!
//! `GET /v1/projects` is what the app polls. Read from the database (`--no-read-cache`, or
//! after every write), building a [`Project`](domain_desk_api::Project) per row — seven
//! strings, two instants parsed from text and formatted back through `collect_str` — and
//! serializing it was half of the request's time (perf, `wrk -c32` against `serve --memory
//! --no-read-cache`). This writer reads each row's columns where SQLite keeps them and writes
//! exactly the bytes `serde_json` writes for `Project`, with the helpers of
//! [`super::domain_json`]. A test compares the two over projects in every state and at every
//! page boundary, so they cannot drift apart unnoticed.

use domain_desk_api::DomainStatus;
use rusqlite::Connection;

use super::domain_json::{optional, required, string, timestamp, value, write_page};
use crate::Result;
use crate::store::page::{self, After, Page, PageRequest};
use crate::store::projects::PAGE_OF_ACCOUNT;
use crate::store::{deploys, domains};

/// A JSON array of projects, as the contract writes `Project` objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectsJson(pub Vec<u8>);

/// Bytes a project takes as JSON, roughly: the buffer is sized once for the page.
const BYTES_PER_PROJECT: usize = 384;

/// One page of the account's projects in list order, as a JSON array, in one query: the same
/// rows and cursor as [`crate::store::projects::page_of_account`].
pub fn page_of_account(
    conn: &Connection,
    account_id: &str,
    request: &PageRequest,
) -> Result<Page<ProjectsJson>> {
    let (after_time, after_id) = page::after_params(&request.after);
    let mut stmt = conn.prepare_cached(PAGE_OF_ACCOUNT)?;
    let mut rows = stmt.query(rusqlite::params![
        account_id,
        after_time,
        after_id,
        request.limit + 1
    ])?;
    let (out, next) = write_page(&mut rows, request.limit, BYTES_PER_PROJECT, write_project)?;
    Ok(Page {
        items: ProjectsJson(out),
        next,
    })
}

/// Writes one row (columns in [`PAGE_OF_ACCOUNT`] order) as a `Project` object; returns where
/// the next page would start if this row ends the page.
fn write_project(out: &mut Vec<u8>, row: &rusqlite::Row<'_>) -> Result<After> {
    let id = required(row, 0, "project id")?;
    let default_address = required(row, 2, "default address")?;
    let created_at = required(row, 3, "creation time")?;
    let primary = optional(row, 4)?;
    let live = optional(row, 5)? == Some(domains::status_to_sql(DomainStatus::Live));

    out.extend_from_slice(b"{\"id\":");
    string(out, id)?;
    out.extend_from_slice(b",\"name\":");
    string(out, required(row, 1, "project name")?)?;
    out.extend_from_slice(b",\"default_address\":");
    string(out, default_address)?;
    out.extend_from_slice(b",\"primary_domain\":");
    match primary {
        Some(hostname) => string(out, hostname)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"url\":");
    let url_host = match (primary, live) {
        (Some(primary), true) => primary,
        _ => default_address,
    };
    // `"https://` and the host as JSON without its opening quote: no string built for it
    let host_at = out.len();
    string(out, url_host)?;
    out.splice(host_at..=host_at, b"\"https://".iter().copied());
    out.extend_from_slice(b",\"last_deploy\":");
    match (optional(row, 6)?, optional(row, 7)?, optional(row, 8)?) {
        (Some(deploy), Some(status), Some(at)) => {
            out.extend_from_slice(b"{\"id\":");
            string(out, deploy)?;
            out.extend_from_slice(b",\"status\":");
            value(out, &deploys::status_from_sql(status)?)?;
            out.extend_from_slice(b",\"created_at\":");
            timestamp(out, at)?;
            out.push(b'}');
        }
        _ => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"created_at\":");
    timestamp(out, created_at)?;
    out.push(b'}');
    Ok(After {
        created_at: created_at.to_owned(),
        id: id.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use chrono::{DateTime, Duration, Utc};
    use domain_desk_api::{Certificate, CertificateStatus, DeployStatus, DomainRole, Hostname};

    use super::*;
    use crate::Error;
    use crate::store::migrations::{MIGRATIONS, migrate};
    use crate::store::projects;

    fn store() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, MIGRATIONS).unwrap();
        conn.execute(
            "INSERT INTO accounts (id, name, plan, per_minute, per_day, max_domains_per_project, created_at)
             VALUES ('acc', 'a', 'pro', 1, 1, 50, '2026-01-01T00:00:00Z')",
            [],
        )
        .unwrap();
        conn
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn project(conn: &Connection, name: &str, created: &str) -> String {
        projects::create(conn, "acc", name, "pages.example", at(created))
            .unwrap()
            .id
    }

    fn deploy(conn: &Connection, project: &str, status: DeployStatus, created: &str) {
        let files = BTreeMap::from([("index.html".to_owned(), "<h1>hi</h1>".to_owned())]);
        deploys::create(conn, project, status, &files, at(created)).unwrap();
    }

    fn primary(conn: &Connection, project: &str, name: &str, live: bool) {
        let hostname = Hostname::parse(name).unwrap();
        let domain = domains::new_domain(
            &hostname,
            project,
            DomainRole::Primary,
            None,
            "cname.pages.example",
            "acme.pages.example",
            at("2026-01-03T00:00:00Z"),
        );
        domains::insert(conn, &domain).unwrap();
        if live {
            let issued = at("2026-01-03T00:01:00Z");
            domains::set_certificate(
                conn,
                name,
                DomainStatus::Live,
                &Certificate {
                    status: CertificateStatus::Issued,
                    started_at: Some(issued),
                    issued_at: Some(issued),
                    expires_at: Some(issued + Duration::days(90)),
                    error: None,
                    renews_at: None,
                    validation: Default::default(),
                },
            )
            .unwrap();
        }
    }

    /// Projects in every state the contract shows: no deploy, a failed and a succeeded last
    /// deploy, a primary domain not yet live and a live one (the `url` follows it), names
    /// that need escaping, timestamps with 0, 3 and 6 sub-second digits.
    fn every_state(conn: &Connection) {
        project(conn, "Empty \"quoted\" \\ name", "2026-01-02T03:04:05Z");
        let failed = project(conn, "Café ☕\n", "2026-01-02T03:04:05.120Z");
        deploy(
            conn,
            &failed,
            DeployStatus::Failed,
            "2026-01-02T04:00:00.5Z",
        );
        let pending = project(conn, "pending", "2026-01-02T03:04:05.123456Z");
        deploy(
            conn,
            &pending,
            DeployStatus::Succeeded,
            "2026-01-02T04:00:00Z",
        );
        primary(conn, &pending, "www.pending.example.com", false);
        let live = project(conn, "live", "2026-01-02T03:04:06.654321Z");
        deploy(conn, &live, DeployStatus::Failed, "2026-01-02T04:00:00Z");
        deploy(
            conn,
            &live,
            DeployStatus::Succeeded,
            "2026-01-02T05:00:00.000001Z",
        );
        primary(conn, &live, "www.live.example.com", true);
    }

    fn request(limit: u32, after: Option<After>) -> PageRequest {
        PageRequest { limit, after }
    }

    #[test]
    fn writes_the_bytes_serde_writes_for_every_state_of_a_project() {
        let conn = store();
        every_state(&conn);
        let typed = projects::page_of_account(&conn, "acc", &request(100, None)).unwrap();
        assert_eq!(typed.items.len(), 4);
        let live = &typed.items[3];
        assert_eq!(live.url, "https://www.live.example.com", "{live:?}");
        assert_eq!(
            live.last_deploy.as_ref().map(|deploy| deploy.status),
            Some(DeployStatus::Succeeded)
        );
        assert!(typed.items[2].url.contains("pages.example"));
        assert!(typed.items[2].primary_domain.is_some());
        assert!(typed.items[0].last_deploy.is_none());
        let written = page_of_account(&conn, "acc", &request(100, None)).unwrap();
        let expected = serde_json::to_vec(&typed.items).unwrap();
        assert_eq!(
            String::from_utf8(written.items.0).unwrap(),
            String::from_utf8(expected).unwrap()
        );
        assert_eq!(written.next, None);
    }

    #[test]
    fn pages_end_and_continue_where_the_typed_pages_do() {
        let conn = store();
        every_state(&conn);
        for limit in 1..=5 {
            let mut typed_after = None;
            let mut json_after = None;
            loop {
                let typed =
                    projects::page_of_account(&conn, "acc", &request(limit, typed_after)).unwrap();
                let json = page_of_account(&conn, "acc", &request(limit, json_after)).unwrap();
                assert_eq!(json.items.0, serde_json::to_vec(&typed.items).unwrap());
                assert_eq!(json.next, typed.next, "limit {limit}");
                match typed.next {
                    Some(next) => {
                        typed_after = Some(next);
                        json_after = json.next;
                    }
                    None => break,
                }
            }
        }
        let empty = page_of_account(&store(), "acc", &request(10, None)).unwrap();
        assert_eq!((empty.items.0.as_slice(), empty.next), (&b"[]"[..], None));
    }

    #[test]
    fn a_page_is_read_from_the_project_index_alone() {
        let conn = store();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {PAGE_OF_ACCOUNT}"))
            .unwrap()
            .query_map(rusqlite::params!["acc", "", "", 101], |row| row.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        // one step: no lookup of a domain or a deploy per project
        assert_eq!(plan.len(), 1, "{plan:#?}");
        assert!(
            plan[0].starts_with("SEARCH projects USING COVERING INDEX projects_page"),
            "{plan:#?}"
        );
    }

    #[test]
    fn a_corrupt_row_is_an_error_not_a_page() {
        let conn = store();
        every_state(&conn);
        conn.execute("UPDATE deploys SET status = 'lost'", [])
            .unwrap();
        assert!(matches!(
            page_of_account(&conn, "acc", &request(100, None)),
            Err(Error::Corrupt(_))
        ));
    }
}

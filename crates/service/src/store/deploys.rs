//! Deploys and the files they carry: the edge serves the files of a project's latest
//! successful deploy.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain_desk_api::{Deploy, DeployStatus, DeploySummary};
use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::new_id;
use super::page::{self, After, Page, PageRequest};
use super::time::{from_sql, to_sql};
use crate::{Error, Result};

pub fn status_to_sql(status: DeployStatus) -> &'static str {
    match status {
        DeployStatus::Succeeded => "succeeded",
        DeployStatus::Failed => "failed",
    }
}

pub(crate) fn status_from_sql(text: &str) -> Result<DeployStatus> {
    match text {
        "succeeded" => Ok(DeployStatus::Succeeded),
        "failed" => Ok(DeployStatus::Failed),
        other => Err(Error::Corrupt(format!("deploy status {other:?}"))),
    }
}

pub fn create(
    conn: &Connection,
    project_id: &str,
    status: DeployStatus,
    files: &BTreeMap<String, String>,
    now: DateTime<Utc>,
) -> Result<Deploy> {
    let id = new_id("dep");
    execute_cached(
        conn,
        "INSERT INTO deploys (id, project_id, status, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![id, project_id, status_to_sql(status), to_sql(now)],
    )?;
    let mut insert =
        conn.prepare("INSERT INTO deploy_files (deploy_id, path, content) VALUES (?1, ?2, ?3)")?;
    for (path, content) in files {
        insert.execute(params![id, path, content])?;
    }
    Ok(Deploy {
        id,
        project_id: project_id.to_owned(),
        status,
        file_count: files.len() as u64,
        created_at: now,
    })
}

/// Drops the project's deploys (and their files) beyond its newest `keep`: a project deployed
/// on every save must not fill the disk. The newest deploy is never dropped (`keep` is at
/// least 1), and it is the one the edge serves.
pub fn keep_newest(conn: &Connection, project_id: &str, keep: usize) -> Result<usize> {
    let keep = keep.max(1) as i64;
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM deploys WHERE project_id = ?1 ORDER BY rowid DESC LIMIT -1 OFFSET ?2",
    )?;
    let old = stmt
        .query_map(params![project_id, keep], |row| row.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    let mut files = conn.prepare_cached("DELETE FROM deploy_files WHERE deploy_id = ?1")?;
    let mut deploys = conn.prepare_cached("DELETE FROM deploys WHERE id = ?1")?;
    for id in &old {
        files.execute(params![id])?;
        deploys.execute(params![id])?;
    }
    Ok(old.len())
}

/// A deploy summary from its stored columns.
pub fn summary(id: String, status: &str, created_at: &str) -> Result<DeploySummary> {
    Ok(DeploySummary {
        id,
        status: status_from_sql(status)?,
        created_at: from_sql(created_at)?,
    })
}

/// One page of the project's deploys, oldest first, in one query.
pub fn page_of_project(
    conn: &Connection,
    project_id: &str,
    request: &PageRequest,
) -> Result<Page<Vec<Deploy>>> {
    let (after_time, after_id) = page::after_params(&request.after);
    let mut stmt = conn.prepare_cached(
        "SELECT d.id, d.status, d.created_at,
                (SELECT COUNT(*) FROM deploy_files f WHERE f.deploy_id = d.id)
         FROM deploys d
         WHERE d.project_id = ?1 AND (d.created_at, d.id) > (?2, ?3)
         ORDER BY d.created_at, d.id
         LIMIT ?4",
    )?;
    let raws = stmt
        .query_map(
            params![project_id, after_time, after_id, request.limit + 1],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                ))
            },
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut keyed = Vec::with_capacity(raws.len());
    for (id, status, created_at, files) in raws {
        let deploy = Deploy {
            id: id.clone(),
            project_id: project_id.to_owned(),
            status: status_from_sql(&status)?,
            file_count: u64::try_from(files).unwrap_or(0),
            created_at: from_sql(&created_at)?,
        };
        keyed.push((After { created_at, id }, deploy));
    }
    let page = Page::from_rows(keyed, request.limit, |(after, _)| after.clone());
    Ok(Page {
        items: page.items.into_iter().map(|(_, deploy)| deploy).collect(),
        next: page.next,
    })
}

/// The project's most recent deploy, whatever its status.
pub fn last(conn: &Connection, project_id: &str) -> Result<Option<DeploySummary>> {
    conn.query_row(
        "SELECT id, status, created_at FROM deploys WHERE project_id = ?1
         ORDER BY rowid DESC LIMIT 1",
        params![project_id],
        |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        },
    )
    .optional()?
    .map(|(id, status, created_at)| {
        Ok(DeploySummary {
            id,
            status: status_from_sql(&status)?,
            created_at: from_sql(&created_at)?,
        })
    })
    .transpose()
}

/// The id of the latest successful deploy: what the edge serves.
pub fn current_succeeded(conn: &Connection, project_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT id FROM deploys WHERE project_id = ?1 AND status = 'succeeded'
             ORDER BY rowid DESC LIMIT 1",
            params![project_id],
            |row| row.get(0),
        )
        .optional()?)
}

/// The files the edge serves for a project: those of its latest successful deploy.
pub fn served_files(
    conn: &Connection,
    project_id: &str,
) -> Result<Option<BTreeMap<String, String>>> {
    let Some(deploy_id) = current_succeeded(conn, project_id)? else {
        return Ok(None);
    };
    let mut stmt = conn.prepare("SELECT path, content FROM deploy_files WHERE deploy_id = ?1")?;
    let files = stmt
        .query_map(params![deploy_id], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<BTreeMap<String, String>>>()?;
    Ok(Some(files))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_count(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM deploy_files", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn old_deploys_go_with_their_files() {
        let store = super::super::Store::open_in_memory().unwrap();
        store
            .write_blocking(|tx| {
                let now = DateTime::<Utc>::UNIX_EPOCH;
                super::super::seed::seed(tx, "pages.test", now)?;
                let account = super::super::seed::account_id(domain_desk_api::Plan::Pro);
                let project =
                    super::super::projects::create(tx, &account, "site", "pages.test", now)?.id;
                let before = file_count(tx);
                let files = BTreeMap::from([
                    ("index.html".to_owned(), "<h1>a</h1>".to_owned()),
                    ("about.html".to_owned(), "<h1>b</h1>".to_owned()),
                ]);
                let mut ids = Vec::new();
                for minute in 0..5 {
                    let now = DateTime::<Utc>::UNIX_EPOCH + chrono::TimeDelta::minutes(minute);
                    ids.push(create(tx, &project, DeployStatus::Succeeded, &files, now)?.id);
                }
                keep_newest(tx, &project, 2)?;
                let kept: Vec<String> = tx
                    .prepare("SELECT id FROM deploys WHERE project_id = ?1 ORDER BY rowid")?
                    .query_map(params![project], |row| row.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
                assert_eq!(kept, ids[3..].to_vec());
                assert_eq!(current_succeeded(tx, &project)?.as_deref(), Some(ids[4].as_str()));
                assert_eq!(file_count(tx), before + 4, "files of dropped deploys remain");
                let orphans: i64 = tx.query_row(
                    "SELECT count(*) FROM deploy_files WHERE deploy_id NOT IN (SELECT id FROM deploys)",
                    [],
                    |row| row.get(0),
                )?;
                assert_eq!(orphans, 0);
                Ok(())
            })
            .unwrap();
    }
}

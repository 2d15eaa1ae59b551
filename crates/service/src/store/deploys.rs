//! Deploys and the files they carry: the edge serves the files of a project's latest
//! successful deploy.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain_desk_api::{Deploy, DeployStatus, DeploySummary};
use rusqlite::{Connection, OptionalExtension, params};

use super::new_id;
use super::time::{from_sql, to_sql};
use crate::{Error, Result};

pub fn status_to_sql(status: DeployStatus) -> &'static str {
    match status {
        DeployStatus::Succeeded => "succeeded",
        DeployStatus::Failed => "failed",
    }
}

fn status_from_sql(text: &str) -> Result<DeployStatus> {
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
    conn.execute(
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

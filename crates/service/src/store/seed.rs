//! The seed data: one account and API key per plan, and for each account a project with a
//! successful deploy, one without any deploy, and one whose only deploy failed.
//!
//! Demo keys are random when a database is created and kept in it (table `meta`), so they stay
//! the same across restarts and resets of that database.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain_desk_api::{Account, DeployStatus, Plan};
use rusqlite::{Connection, OptionalExtension, params};

use super::{accounts, deploys, projects, random_token};
use crate::Result;

/// Tables holding API data, children first; [`reset`] empties them.
const DATA_TABLES: &[&str] = &[
    "ownership_challenges",
    "domain_removals",
    "idempotency",
    "bans",
    "deploy_files",
    "domains",
    "deploys",
    "projects",
    "api_keys",
    "accounts",
];

pub fn account_id(plan: Plan) -> String {
    format!("acc_{}", plan.as_str())
}

/// The demo key of each plan, created (and stored) the first time it is asked for.
pub fn demo_keys(conn: &Connection) -> Result<Vec<(Plan, String)>> {
    let mut keys = Vec::new();
    for plan in Plan::ALL {
        let name = format!("demo_key.{}", plan.as_str());
        let existing: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                params![name],
                |row| row.get(0),
            )
            .optional()?;
        let key = match existing {
            Some(key) => key,
            None => {
                let key = format!("dd_{}_{}", plan.as_str(), random_token(32));
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                    params![name, key],
                )?;
                key
            }
        };
        keys.push((plan, key));
    }
    Ok(keys)
}

/// True once the seed has been written to this database.
pub fn is_seeded(conn: &Connection) -> Result<bool> {
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM accounts", [], |row| row.get(0))?;
    Ok(count > 0)
}

/// Writes the seed data into an empty database.
pub fn seed(conn: &Connection, platform_domain: &str, now: DateTime<Utc>) -> Result<()> {
    let keys = demo_keys(conn)?;
    for plan in Plan::ALL {
        let title = match plan {
            Plan::Free => "Free",
            Plan::Pro => "Pro",
            Plan::Business => "Business",
            Plan::Enterprise => "Enterprise",
        };
        let account = Account {
            id: account_id(plan),
            name: format!("{title} demo account"),
            plan,
            limits: plan.default_limits(),
        };
        accounts::insert(conn, &account, now)?;
        if let Some((_, key)) = keys.iter().find(|(p, _)| *p == plan) {
            accounts::insert_key(conn, key, &account.id, now)?;
        }
        // A second apart, so the list (by creation time, then id) shows them in this order
        // after every reset rather than in the order of their random ids.
        let created = |nth: i64| now - chrono::Duration::seconds(2 - nth);
        let site = projects::create(
            conn,
            &account.id,
            &format!("{title} site"),
            platform_domain,
            created(0),
        )?;
        let files = BTreeMap::from([(
            "index.html".to_owned(),
            format!("<!doctype html><title>{title} site</title><h1>{title} site</h1>\n"),
        )]);
        deploys::create(conn, &site.id, DeployStatus::Succeeded, &files, now)?;
        projects::create(
            conn,
            &account.id,
            &format!("{title} draft"),
            platform_domain,
            created(1),
        )?;
        let broken = projects::create(
            conn,
            &account.id,
            &format!("{title} broken build"),
            platform_domain,
            created(2),
        )?;
        deploys::create(
            conn,
            &broken.id,
            DeployStatus::Failed,
            &BTreeMap::new(),
            now,
        )?;
    }
    Ok(())
}

/// Empties every API table (keeping the demo keys) and writes the seed again.
pub fn reset(conn: &Connection, platform_domain: &str, now: DateTime<Utc>) -> Result<()> {
    for table in DATA_TABLES {
        conn.execute(&format!("DELETE FROM {table}"), [])?;
    }
    seed(conn, platform_domain, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accounts_projects_are_listed_in_the_same_order_after_every_seed() {
        for _ in 0..5 {
            let store = super::super::Store::open_in_memory().unwrap();
            let names = store
                .write_blocking(|tx| {
                    seed(tx, "pages.test", DateTime::<Utc>::UNIX_EPOCH)?;
                    let rows = projects::rows_of_account(tx, &account_id(Plan::Pro))?;
                    Ok(rows.into_iter().map(|row| row.name).collect::<Vec<_>>())
                })
                .unwrap();
            assert_eq!(names, ["Pro site", "Pro draft", "Pro broken build"]);
        }
    }
}

//! Accounts and their API keys. An account's limits are stored with it: the plan's published
//! limits for Free, Pro and Business, and the agreed ones for an Enterprise account.

use chrono::{DateTime, Utc};
use domain_desk_api::{Account, Limits, Plan};
use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::time::to_sql;
use crate::{Error, Result};

pub fn plan_from_sql(text: &str) -> Result<Plan> {
    Plan::ALL
        .into_iter()
        .find(|plan| plan.as_str() == text)
        .ok_or_else(|| Error::Corrupt(format!("plan {text:?}")))
}

pub fn insert(conn: &Connection, account: &Account, created_at: DateTime<Utc>) -> Result<()> {
    execute_cached(conn,
        "INSERT INTO accounts (id, name, plan, per_minute, per_day, max_domains_per_project, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            account.id,
            account.name,
            account.plan.as_str(),
            account.limits.per_minute as i64,
            account.limits.per_day as i64,
            account.limits.max_domains_per_project as i64,
            to_sql(created_at),
        ],
    )?;
    Ok(())
}

pub fn insert_key(
    conn: &Connection,
    key: &str,
    account_id: &str,
    created_at: DateTime<Utc>,
) -> Result<()> {
    execute_cached(
        conn,
        "INSERT INTO api_keys (key, account_id, created_at) VALUES (?1, ?2, ?3)",
        params![key, account_id, to_sql(created_at)],
    )?;
    Ok(())
}

/// The account an API key belongs to, or `None` for an unknown key.
pub fn by_key(conn: &Connection, key: &str) -> Result<Option<Account>> {
    let row = conn
        .query_row(
            "SELECT a.id, a.name, a.plan, a.per_minute, a.per_day, a.max_domains_per_project
             FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key = ?1",
            params![key],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, i64>(5)?,
                ))
            },
        )
        .optional()?;
    row.map(|(id, name, plan, per_minute, per_day, max_domains)| {
        Ok(Account {
            id,
            name,
            plan: plan_from_sql(&plan)?,
            limits: Limits {
                per_minute: non_negative(per_minute),
                per_day: non_negative(per_day),
                max_domains_per_project: non_negative(max_domains),
            },
        })
    })
    .transpose()
}

fn non_negative(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

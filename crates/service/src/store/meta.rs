//! The `meta` table: single values the service keeps beside its data under a name (the seed's
//! version, the cursor key, a demo event's due time).

use rusqlite::{Connection, OptionalExtension, params};

use crate::Result;

/// The value kept under `key`, if any.
pub fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            params![key],
            |row| row.get::<_, String>(0),
        )
        .optional()?)
}

/// Keeps `value` under `key`, replacing what was there.
pub fn set(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        params![key, value],
    )?;
    Ok(())
}

/// Forgets what is kept under `key` (nothing when there is nothing).
pub fn delete(conn: &Connection, key: &str) -> Result<()> {
    conn.execute("DELETE FROM meta WHERE key = ?1", params![key])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_kept_replaced_and_forgotten() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            .unwrap();
        assert_eq!(get(&conn, "k").unwrap(), None);
        set(&conn, "k", "1").unwrap();
        set(&conn, "k", "2").unwrap();
        assert_eq!(get(&conn, "k").unwrap().as_deref(), Some("2"));
        delete(&conn, "k").unwrap();
        delete(&conn, "k").unwrap();
        assert_eq!(get(&conn, "k").unwrap(), None);
    }
}

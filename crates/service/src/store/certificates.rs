//! The local CA's key pair and the certificates it issued (migration 2), so a restart keeps
//! what TLS clients already trust and what the edge serves.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::time::{from_sql, to_sql};
use crate::Result;
use crate::ca::{CaMaterial, IssuedCertificate};

pub fn read_ca(conn: &Connection) -> Result<Option<CaMaterial>> {
    Ok(conn
        .query_row(
            "SELECT certificate_pem, key_pem FROM local_ca WHERE id = 1",
            [],
            |row| {
                Ok(CaMaterial {
                    certificate_pem: row.get(0)?,
                    key_pem: row.get(1)?,
                })
            },
        )
        .optional()?)
}

pub fn write_ca(conn: &Connection, material: &CaMaterial) -> Result<()> {
    execute_cached(
        conn,
        "INSERT OR REPLACE INTO local_ca (id, certificate_pem, key_pem) VALUES (1, ?1, ?2)",
        params![material.certificate_pem, material.key_pem],
    )?;
    Ok(())
}

pub fn write_certificate(
    conn: &Connection,
    hostname: &str,
    issued: &IssuedCertificate,
) -> Result<()> {
    execute_cached(conn,
        "INSERT OR REPLACE INTO certificates (hostname, certificate_pem, key_pem, issued_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            hostname,
            issued.certificate_pem,
            issued.key_pem,
            to_sql(issued.issued_at),
            to_sql(issued.expires_at),
        ],
    )?;
    Ok(())
}

pub fn read_certificates(conn: &Connection) -> Result<HashMap<String, IssuedCertificate>> {
    let mut stmt = conn.prepare(
        "SELECT hostname, certificate_pem, key_pem, issued_at, expires_at FROM certificates",
    )?;
    let rows = stmt
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, String>(4)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut certificates = HashMap::with_capacity(rows.len());
    for (hostname, certificate_pem, key_pem, issued_at, expires_at) in rows {
        certificates.insert(
            hostname.clone(),
            IssuedCertificate {
                certificate_pem,
                key_pem,
                names: vec![hostname],
                issued_at: from_sql(&issued_at)?,
                expires_at: from_sql(&expires_at)?,
            },
        );
    }
    Ok(certificates)
}

/// Forgets certificates of names that are neither a domain nor a default address any more.
pub fn prune_certificates(conn: &Connection) -> Result<()> {
    execute_cached(
        conn,
        "DELETE FROM certificates WHERE hostname NOT IN (SELECT hostname FROM domains)
             AND hostname NOT IN (SELECT default_address FROM projects)",
        [],
    )?;
    Ok(())
}

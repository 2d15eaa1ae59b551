//! The schema as an ordered list of steps. The database records how many it has applied in
//! SQLite's `user_version`; opening a database applies the rest, each in its own transaction.
//!
//! To change the schema, append a step with the next version; never edit a step that shipped.
//! The world behind the API (zones, CA, certificates) keeps its tables here too.
//!
//! It is longer than the house's 500 lines only with its tests (about 360 of code, 490 of
//! tests): each upgrade that moves data is tested on a database written before it, beside the
//! list of steps.

use rusqlite::Connection;

use crate::{Error, Result};

#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// 1, 2, 3, … without gaps.
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "accounts, keys, projects, deploys, domains, idempotency, bans",
        sql: r#"
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE accounts (
            id                      TEXT PRIMARY KEY,
            name                    TEXT NOT NULL,
            plan                    TEXT NOT NULL,
            per_minute              INTEGER NOT NULL,
            per_day                 INTEGER NOT NULL,
            max_domains_per_project INTEGER NOT NULL,
            created_at              TEXT NOT NULL
        );
        CREATE TABLE api_keys (
            key        TEXT PRIMARY KEY,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE projects (
            id              TEXT PRIMARY KEY,
            account_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            name            TEXT NOT NULL,
            default_address TEXT NOT NULL UNIQUE,
            created_at      TEXT NOT NULL
        );
        CREATE INDEX projects_by_account ON projects(account_id);
        CREATE TABLE deploys (
            id         TEXT PRIMARY KEY,
            project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            status     TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX deploys_by_project ON deploys(project_id);
        CREATE TABLE deploy_files (
            deploy_id TEXT NOT NULL REFERENCES deploys(id) ON DELETE CASCADE,
            path      TEXT NOT NULL,
            content   TEXT NOT NULL,
            PRIMARY KEY (deploy_id, path)
        );
        CREATE TABLE domains (
            hostname                TEXT PRIMARY KEY,
            project_id              TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            apex                    INTEGER NOT NULL,
            role                    TEXT NOT NULL,
            redirect_to             TEXT,
            status                  TEXT NOT NULL,
            dns_type                TEXT NOT NULL,
            dns_name                TEXT NOT NULL,
            dns_value               TEXT NOT NULL,
            dns_ttl                 INTEGER NOT NULL,
            verification_checked_at TEXT,
            verification_error      TEXT,
            certificate_status      TEXT NOT NULL,
            certificate_started_at  TEXT,
            certificate_issued_at   TEXT,
            certificate_expires_at  TEXT,
            certificate_error       TEXT,
            created_at              TEXT NOT NULL
        );
        CREATE INDEX domains_by_project ON domains(project_id);
        CREATE TABLE idempotency (
            api_key     TEXT NOT NULL,
            idem_key    TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status      INTEGER NOT NULL,
            body        BLOB NOT NULL,
            created_at  TEXT NOT NULL,
            PRIMARY KEY (api_key, idem_key)
        );
        CREATE TABLE bans (
            api_key      TEXT PRIMARY KEY,
            banned_until TEXT NOT NULL
        );
    "#,
    },
    Migration {
        version: 2,
        name: "demo DNS zones with record history, the local CA, issued certificates",
        sql: WORLD_TABLES,
    },
    Migration {
        version: 3,
        name: "idempotency keyed by a hash of the API key, list order indexes, cursor key",
        // Remembered answers are kept for a day and named the key in clear; they are dropped
        // rather than rewritten (SQL has no SHA-256), so a retry of a request sent before the
        // upgrade acts again.
        sql: r#"
        DROP TABLE idempotency;
        CREATE TABLE idempotency (
            key_hash    TEXT NOT NULL,
            idem_key    TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status      INTEGER NOT NULL,
            body        BLOB NOT NULL,
            created_at  TEXT NOT NULL,
            PRIMARY KEY (key_hash, idem_key)
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_by_age ON idempotency(created_at);
        CREATE INDEX projects_in_list_order ON projects(account_id, created_at, id);
        CREATE INDEX domains_in_list_order ON domains(project_id, created_at, hostname);
        CREATE INDEX deploys_in_list_order ON deploys(project_id, created_at, id);
        CREATE INDEX domains_by_role ON domains(project_id, role);
        INSERT OR IGNORE INTO meta (key, value) VALUES ('cursor_key', lower(hex(randomblob(32))));
    "#,
    },
    Migration {
        version: 4,
        name: "ownership challenges for names another account holds, removals by the platform",
        sql: r#"
        CREATE TABLE ownership_challenges (
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            hostname   TEXT NOT NULL,
            token      TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            PRIMARY KEY (account_id, hostname)
        ) WITHOUT ROWID;
        CREATE TABLE domain_removals (
            project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            hostname   TEXT NOT NULL,
            reason     TEXT NOT NULL,
            message    TEXT NOT NULL,
            removed_at TEXT NOT NULL,
            PRIMARY KEY (project_id, hostname)
        ) WITHOUT ROWID;
        CREATE INDEX domain_removals_by_time ON domain_removals(project_id, removed_at);
    "#,
    },
    Migration {
        version: 5,
        name: "remembered answers in a rowid table: appended, not spliced into a clustered key",
        // An answer's body (a domain's JSON, about a kilobyte) made each row of the clustered
        // WITHOUT ROWID table a quarter of a page, so every keyed POST split and shifted pages
        // in key order. As a rowid table new answers are appended; the unique index on
        // (key_hash, idem_key) stays small. Remembered answers are copied over.
        sql: r#"
        CREATE TABLE idempotency_answers (
            id          INTEGER PRIMARY KEY,
            key_hash    TEXT NOT NULL,
            idem_key    TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status      INTEGER NOT NULL,
            body        BLOB NOT NULL,
            created_at  TEXT NOT NULL
        );
        INSERT INTO idempotency_answers (key_hash, idem_key, fingerprint, status, body, created_at)
            SELECT key_hash, idem_key, fingerprint, status, body, created_at
            FROM idempotency ORDER BY created_at;
        DROP TABLE idempotency;
        ALTER TABLE idempotency_answers RENAME TO idempotency;
        CREATE UNIQUE INDEX idempotency_by_key ON idempotency(key_hash, idem_key);
        CREATE INDEX idempotency_by_age ON idempotency(created_at);
    "#,
    },
    Migration {
        version: 6,
        name: "each project's domain count, kept by triggers",
        // Adding a domain checks the plan's per-project limit. Counting the project's rows
        // for that walked its index on every add, a cost that grew with the project (at
        // thousands of domains, a larger share of an add than the insert itself); the
        // triggers keep the count on every path that inserts, deletes or moves a domain.
        sql: r#"
        ALTER TABLE projects ADD COLUMN domain_count INTEGER NOT NULL DEFAULT 0;
        UPDATE projects SET domain_count =
            (SELECT COUNT(*) FROM domains WHERE domains.project_id = projects.id);
        CREATE TRIGGER domain_counted AFTER INSERT ON domains BEGIN
            UPDATE projects SET domain_count = domain_count + 1 WHERE id = NEW.project_id;
        END;
        CREATE TRIGGER domain_uncounted AFTER DELETE ON domains BEGIN
            UPDATE projects SET domain_count = domain_count - 1 WHERE id = OLD.project_id;
        END;
        CREATE TRIGGER domain_counted_moved AFTER UPDATE OF project_id ON domains
            WHEN OLD.project_id IS NOT NEW.project_id BEGIN
            UPDATE projects SET domain_count = domain_count - 1 WHERE id = OLD.project_id;
            UPDATE projects SET domain_count = domain_count + 1 WHERE id = NEW.project_id;
        END;
    "#,
    },
    Migration {
        version: 7,
        name: "remembered answers without an index of their age",
        // Expired answers are found in insertion order (`idempotency::purge`): the index was
        // one more B-tree every keyed POST inserted into, and every forgotten answer deleted
        // from, on the single writer.
        sql: r#"
        DROP INDEX idempotency_by_age;
    "#,
    },
    Migration {
        version: 8,
        name: "a page of projects read from its index alone",
        // `GET /v1/projects` (what the app polls) found each project in the list-order index,
        // then looked its name and default address up in the table: one B-tree lookup of the
        // five a listed project costs. Projects change rarely (a domain added updates only
        // their domain count, which no index holds), so the index carries both.
        sql: r#"
        CREATE INDEX projects_page ON projects(account_id, created_at, id, name, default_address);
        DROP INDEX projects_in_list_order;
    "#,
    },
    Migration {
        version: 9,
        name: "each project's primary domain and last deploy, kept on its row by triggers",
        sql: PROJECT_SUMMARY,
    },
    Migration {
        version: 10,
        name: "remembered answers named by 16 bytes, their fingerprint in 32",
        sql: COMPACT_ANSWERS,
    },
    Migration {
        version: 11,
        name: "remembered answers found by an index in memory, not in the table",
        sql: ANSWERS_WITHOUT_INDEX,
    },
    Migration {
        version: 12,
        name: "each domain's certificate validation: its method and the delegation's target",
        sql: CERTIFICATE_VALIDATION,
    },
];

/// Migration 12. `certificate.validation` of every Domain: how the current or last
/// certificate was validated (NULL, `http` or `dns`) and the value of the `_acme-challenge`
/// CNAME that delegates DNS validation, `<name without *.>.<validation zone>`. The zone is
/// `acme.<platform domain>`, which SQL does not know; existing rows take it from their DNS
/// target (`<label>.<platform domain>`, as every target the service made so far), and the
/// world, which knows the settings, corrects any that differ when it starts
/// (`domains::set_validation_zone`).
const CERTIFICATE_VALIDATION: &str = r#"
    ALTER TABLE domains ADD COLUMN validation_method TEXT;
    ALTER TABLE domains ADD COLUMN validation_target TEXT NOT NULL DEFAULT '';
    UPDATE domains SET validation_target =
        (CASE WHEN substr(hostname, 1, 2) = '*.' THEN substr(hostname, 3) ELSE hostname END)
        || '.acme.' || substr(dns_value, instr(dns_value, '.') + 1);
"#;

/// Migration 11. A keyed `POST` inserted into the unique index of answers' names, at a random
/// leaf, and (past the bound) deleted from it at another, on the single writer: pages found,
/// read, journaled and written back that the same `POST` without a key does not touch. The
/// service now finds an answer's row through [`crate::store::fast::answer_index::AnswerIndex`], a
/// map from name to row id built from this table when the store opens and changed with it,
/// so the table needs no index: rows are only appended, and trimmed at the oldest end.
const ANSWERS_WITHOUT_INDEX: &str = r#"
    DROP INDEX idempotency_by_key;
"#;

/// Migration 10. A keyed `POST` looks its key up in the answers' unique index, inserts into it,
/// and (past the bound) deletes from it, at random places, on the single writer. The index
/// held the API key's hash in hex (64 bytes, the same in every entry of one key) and the
/// client's key, 72–100 bytes an entry: at 100,000 answers several times the writer's page
/// cache, so those random places were mostly pages read anew. Each answer is now named by
/// [`crate::store::answer_key::AnswerKey`] (16 bytes of SHA-256 over both), so an entry is
/// about 20 bytes, and the fingerprint is kept as its 32 bytes rather than 64 hex digits.
/// Remembered answers are carried over under their new names (`idempotency_answer_key`,
/// registered by [`migrate`]), in the same order, so purging by insertion order still holds.
const COMPACT_ANSWERS: &str = r#"
    CREATE TABLE idempotency_answers (
        id          INTEGER PRIMARY KEY,
        key         BLOB NOT NULL,
        fingerprint BLOB NOT NULL,
        status      INTEGER NOT NULL,
        body        BLOB NOT NULL,
        created_at  TEXT NOT NULL
    );
    INSERT INTO idempotency_answers (id, key, fingerprint, status, body, created_at)
        SELECT id, idempotency_answer_key(key_hash, idem_key),
               coalesce(unhex(fingerprint), CAST(fingerprint AS BLOB)), status, body, created_at
        FROM idempotency ORDER BY id;
    DROP TABLE idempotency;
    ALTER TABLE idempotency_answers RENAME TO idempotency;
    CREATE UNIQUE INDEX idempotency_by_key ON idempotency(key);
"#;

/// Migration 9. `GET /v1/projects` (what the app polls) looked up each listed project's
/// primary domain and last deploy: four B-tree lookups a project (an index and a table each),
/// most of the query's time when read from the database. The project's row now carries a copy
/// of both (the primary domain's hostname and status, the last deploy's id, status and
/// creation time), and the list's index carries the copy, so a page is one walk of one index.
/// Triggers keep the copy on every path that inserts, deletes or changes a domain or a deploy,
/// in the same transaction as the change, as the domain count of migration 6 is kept. They
/// recompute rather than copy `NEW`: "primary" is whichever row has the role (by rowid, as the
/// index of roles finds it), "last" the deploy with the highest rowid, whatever order rows
/// come and go in. Writes that touch neither (an alias added, a redirect's status) pay only
/// the triggers' `WHEN`.
const PROJECT_SUMMARY: &str = r#"
    ALTER TABLE projects ADD COLUMN primary_hostname TEXT;
    ALTER TABLE projects ADD COLUMN primary_status TEXT;
    ALTER TABLE projects ADD COLUMN last_deploy_id TEXT;
    ALTER TABLE projects ADD COLUMN last_deploy_status TEXT;
    ALTER TABLE projects ADD COLUMN last_deploy_at TEXT;
    UPDATE projects SET (primary_hostname, primary_status) =
        (SELECT hostname, status FROM domains
         WHERE project_id = projects.id AND role = 'primary' ORDER BY rowid LIMIT 1);
    UPDATE projects SET (last_deploy_id, last_deploy_status, last_deploy_at) =
        (SELECT id, status, created_at FROM deploys
         WHERE project_id = projects.id ORDER BY rowid DESC LIMIT 1);

    CREATE TRIGGER primary_added AFTER INSERT ON domains WHEN NEW.role = 'primary' BEGIN
        UPDATE projects SET (primary_hostname, primary_status) =
            (SELECT hostname, status FROM domains
             WHERE project_id = projects.id AND role = 'primary' ORDER BY rowid LIMIT 1)
        WHERE id = NEW.project_id;
    END;
    CREATE TRIGGER primary_removed AFTER DELETE ON domains WHEN OLD.role = 'primary' BEGIN
        UPDATE projects SET (primary_hostname, primary_status) =
            (SELECT hostname, status FROM domains
             WHERE project_id = projects.id AND role = 'primary' ORDER BY rowid LIMIT 1)
        WHERE id = OLD.project_id;
    END;
    CREATE TRIGGER primary_changed AFTER UPDATE OF hostname, project_id, role, status ON domains
        WHEN OLD.role = 'primary' OR NEW.role = 'primary' BEGIN
        UPDATE projects SET (primary_hostname, primary_status) =
            (SELECT hostname, status FROM domains
             WHERE project_id = projects.id AND role = 'primary' ORDER BY rowid LIMIT 1)
        WHERE id IN (OLD.project_id, NEW.project_id);
    END;

    CREATE TRIGGER last_deploy_added AFTER INSERT ON deploys BEGIN
        UPDATE projects SET (last_deploy_id, last_deploy_status, last_deploy_at) =
            (SELECT id, status, created_at FROM deploys
             WHERE project_id = projects.id ORDER BY rowid DESC LIMIT 1)
        WHERE id = NEW.project_id;
    END;
    CREATE TRIGGER last_deploy_removed AFTER DELETE ON deploys BEGIN
        UPDATE projects SET (last_deploy_id, last_deploy_status, last_deploy_at) =
            (SELECT id, status, created_at FROM deploys
             WHERE project_id = projects.id ORDER BY rowid DESC LIMIT 1)
        WHERE id = OLD.project_id;
    END;
    CREATE TRIGGER last_deploy_changed AFTER UPDATE OF id, project_id, status, created_at
        ON deploys BEGIN
        UPDATE projects SET (last_deploy_id, last_deploy_status, last_deploy_at) =
            (SELECT id, status, created_at FROM deploys
             WHERE project_id = projects.id ORDER BY rowid DESC LIMIT 1)
        WHERE id IN (OLD.project_id, NEW.project_id);
    END;

    DROP INDEX projects_page;
    CREATE INDEX projects_page ON projects(account_id, created_at, id, name, default_address,
        primary_hostname, primary_status, last_deploy_id, last_deploy_status, last_deploy_at);
"#;

/// Migration 2: the demo zones with their record history, the local CA, the certificates.
const WORLD_TABLES: &str = r#"
    CREATE TABLE dns_zones (
        name       TEXT PRIMARY KEY,
        created_at TEXT NOT NULL
    );
    CREATE TABLE dns_records (
        id         TEXT PRIMARY KEY,
        zone       TEXT NOT NULL,
        name       TEXT NOT NULL,
        type       TEXT NOT NULL,
        value      TEXT NOT NULL,
        ttl        INTEGER NOT NULL,
        added_at   TEXT NOT NULL,
        removed_at TEXT
    );
    CREATE INDEX dns_records_by_zone ON dns_records(zone);
    CREATE TABLE local_ca (
        id              INTEGER PRIMARY KEY CHECK (id = 1),
        certificate_pem TEXT NOT NULL,
        key_pem         TEXT NOT NULL
    );
    CREATE TABLE certificates (
        hostname        TEXT PRIMARY KEY,
        certificate_pem TEXT NOT NULL,
        key_pem         TEXT NOT NULL,
        issued_at       TEXT NOT NULL,
        expires_at      TEXT NOT NULL
    );
"#;

/// Applies the steps of `migrations` the database has not seen yet.
pub fn migrate(conn: &mut Connection, migrations: &[Migration]) -> Result<()> {
    for (index, step) in migrations.iter().enumerate() {
        if step.version as usize != index + 1 {
            return Err(Error::Schema(format!(
                "migration {:?} has version {}, expected {}",
                step.name,
                step.version,
                index + 1
            )));
        }
    }
    // the Rust functions steps call
    crate::store::answer_key::register_answer_key_function(conn)?;
    let current: u32 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    let latest = migrations.len() as u32;
    if current > latest {
        return Err(Error::Schema(format!(
            "the database has schema version {current}, newer than this build's {latest}; \
             use a newer Domain Desk or another database file"
        )));
    }
    for step in &migrations[current as usize..] {
        let tx = conn.transaction()?;
        tx.execute_batch(step.sql).map_err(|err| {
            Error::Schema(format!(
                "step {} ({}) failed: {err}",
                step.version, step.name
            ))
        })?;
        // PRAGMA takes no bound parameters; the version is a number we control.
        tx.execute_batch(&format!("PRAGMA user_version = {}", step.version))?;
        tx.commit()?;
        tracing::info!(
            version = step.version,
            name = step.name,
            "database migrated"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(conn: &Connection) -> u32 {
        conn.query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn applies_every_step_once() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, MIGRATIONS).unwrap();
        assert_eq!(version(&conn), MIGRATIONS.len() as u32);
        migrate(&mut conn, MIGRATIONS).unwrap();
        assert_eq!(version(&conn), MIGRATIONS.len() as u32);
    }

    #[test]
    fn applies_only_the_new_steps() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, &MIGRATIONS[..1]).unwrap();
        conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')", [])
            .unwrap();
        let mut longer = MIGRATIONS.to_vec();
        longer.push(Migration {
            version: MIGRATIONS.len() as u32 + 1,
            name: "test step",
            sql: "CREATE TABLE added_later (x INTEGER);",
        });
        migrate(&mut conn, &longer).unwrap();
        assert_eq!(version(&conn), longer.len() as u32);
        let kept: String = conn
            .query_row("SELECT value FROM meta WHERE key = 'kept'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(kept, "yes");
    }

    /// Whether the database has migration 12's columns.
    fn domains_have_validation(conn: &Connection) -> bool {
        version(conn) >= 12
    }

    /// Inserts `domain` as the schema before migration 12 holds it (no validation columns).
    fn insert_before_validation(conn: &Connection, domain: &domain_desk_api::Domain) {
        use crate::store::domains::{certificate_status_to_sql, role_to_sql, status_to_sql};
        conn.execute(
            "INSERT INTO domains (hostname, project_id, apex, role, redirect_to, status, dns_type,
                 dns_name, dns_value, dns_ttl, certificate_status, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            rusqlite::params![
                domain.hostname,
                domain.project_id,
                domain.apex,
                role_to_sql(domain.role),
                domain.redirect.as_ref().map(|r| r.to.clone()),
                status_to_sql(domain.status),
                match domain.dns_record.record_type {
                    domain_desk_api::DnsRecordType::Cname => "CNAME",
                    domain_desk_api::DnsRecordType::Alias => "ALIAS",
                },
                domain.dns_record.name,
                domain.dns_record.value,
                domain.dns_record.ttl,
                certificate_status_to_sql(domain.certificate.status),
                crate::store::time::to_sql(domain.created_at),
            ],
        )
        .unwrap();
    }

    #[test]
    fn each_domain_gets_its_delegation_from_the_upgrade_on() {
        use crate::store::domains;
        use domain_desk_api::{DomainRole, Hostname, ValidationMethod};
        let now = chrono::Utc::now();
        let (mut conn, first, _) = two_projects_after(11, now);
        for name in ["shop.example.com", "example.com", "*.a.example.com"] {
            let hostname = Hostname::parse_domain(name).unwrap();
            let domain = domains::new_domain(
                &hostname,
                &first,
                DomainRole::Alias,
                None,
                "cname.pages.example",
                "unused.example",
                now,
            );
            insert_before_validation(&conn, &domain);
        }
        migrate(&mut conn, MIGRATIONS).unwrap();
        let record = |name: &str| {
            let domain = domains::get(&conn, name).unwrap().unwrap();
            assert_eq!(domain.certificate.validation.method, None);
            let record = domain.certificate.validation.dns_record;
            (record.name, record.fqdn, record.value)
        };
        assert_eq!(
            record("shop.example.com"),
            (
                "_acme-challenge.shop".to_owned(),
                "_acme-challenge.shop.example.com".to_owned(),
                "shop.example.com.acme.pages.example".to_owned()
            )
        );
        assert_eq!(record("example.com").0, "_acme-challenge", "an apex's name");
        assert_eq!(
            record("*.a.example.com"),
            (
                "_acme-challenge.a".to_owned(),
                "_acme-challenge.a.example.com".to_owned(),
                "a.example.com.acme.pages.example".to_owned()
            )
        );
        // a world with other settings points them at its own zone, once
        assert_eq!(
            domains::set_validation_zone(&conn, "acme.other.test").unwrap(),
            3
        );
        assert_eq!(
            domains::set_validation_zone(&conn, "acme.other.test").unwrap(),
            0
        );
        assert_eq!(record("example.com").2, "example.com.acme.other.test");
        let mut certificate = domains::get(&conn, "example.com")
            .unwrap()
            .unwrap()
            .certificate;
        certificate.validation.method = Some(ValidationMethod::Dns);
        domains::set_certificate(
            &conn,
            "example.com",
            domain_desk_api::DomainStatus::PendingVerification,
            &certificate,
        )
        .unwrap();
        assert_eq!(
            domains::get(&conn, "example.com")
                .unwrap()
                .unwrap()
                .certificate
                .validation
                .method,
            Some(ValidationMethod::Dns)
        );
    }

    /// A database migrated through the first `steps` steps, with one account and two projects
    /// in it (their ids), for the upgrade tests.
    fn two_projects_after(
        steps: usize,
        now: chrono::DateTime<chrono::Utc>,
    ) -> (Connection, String, String) {
        use crate::store::projects;
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        migrate(&mut conn, &MIGRATIONS[..steps]).unwrap();
        conn.execute(
            "INSERT INTO accounts (id, name, plan, per_minute, per_day, max_domains_per_project, created_at)
             VALUES ('acc', 'a', 'pro', 1, 1, 50, '2026-01-01T00:00:00Z')",
            [],
        )
        .unwrap();
        let first = projects::create(&conn, "acc", "one", "p.example", now)
            .unwrap()
            .id;
        let second = projects::create(&conn, "acc", "two", "p.example", now)
            .unwrap()
            .id;
        (conn, first, second)
    }

    #[test]
    fn each_project_counts_its_domains_from_the_upgrade_on() {
        use crate::store::domains;
        use domain_desk_api::{DomainRole, Hostname};
        let now = chrono::Utc::now();
        let add = |conn: &Connection, project: &str, name: &str| {
            let hostname = Hostname::parse(name).unwrap();
            let domain = domains::new_domain(
                &hostname,
                project,
                DomainRole::Alias,
                None,
                "t.example",
                "acme.example",
                now,
            );
            if domains_have_validation(conn) {
                domains::insert(conn, &domain).unwrap();
            } else {
                insert_before_validation(conn, &domain);
            }
        };
        let (mut conn, first, second) = two_projects_after(5, now);
        for name in ["a.example.com", "b.example.com", "c.example.com"] {
            add(&conn, &first, name);
        }
        // the upgrade counts what is there
        migrate(&mut conn, MIGRATIONS).unwrap();
        let count = |project: &str| domains::count_of_project(&conn, project).unwrap();
        assert_eq!((count(&first), count(&second)), (3, 0));
        add(&conn, &second, "d.example.com");
        assert_eq!((count(&first), count(&second)), (3, 1));
        assert!(domains::delete(&conn, "a.example.com").unwrap());
        assert_eq!((count(&first), count(&second)), (2, 1));
        conn.execute(
            "UPDATE domains SET project_id = ?1 WHERE hostname = 'b.example.com'",
            [&second],
        )
        .unwrap();
        assert_eq!((count(&first), count(&second)), (1, 2));
        conn.execute("UPDATE domains SET status = 'live'", [])
            .unwrap();
        assert_eq!((count(&first), count(&second)), (1, 2));
        conn.execute("DELETE FROM projects WHERE id = ?1", [&first])
            .unwrap();
        assert_eq!((count(&first), count(&second)), (0, 2));
    }

    /// What migration 9's copies on a project's row must read, computed from the tables as
    /// the list did before it: `(id, primary hostname, its status, last deploy's id, status,
    /// creation time)` for every project.
    type Summary = (
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );

    fn summaries(conn: &Connection, sql: &str) -> Vec<Summary> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    /// Asserts the copies agree with the tables, and returns them.
    fn copies_agree(conn: &Connection) -> Vec<Summary> {
        let joined = summaries(
            conn,
            "SELECT p.id, d.hostname, d.status, l.id, l.status, l.created_at
             FROM projects p
             LEFT JOIN domains d ON d.project_id = p.id AND d.role = 'primary'
             LEFT JOIN deploys l ON l.rowid =
                 (SELECT rowid FROM deploys WHERE project_id = p.id ORDER BY rowid DESC LIMIT 1)
             ORDER BY p.id",
        );
        let copied = summaries(
            conn,
            "SELECT id, primary_hostname, primary_status,
                    last_deploy_id, last_deploy_status, last_deploy_at
             FROM projects ORDER BY id",
        );
        assert_eq!(copied, joined);
        copied
    }

    #[test]
    fn each_project_carries_its_primary_domain_and_last_deploy_from_the_upgrade_on() {
        use std::collections::BTreeMap;

        use crate::store::{deploys, domains};
        use domain_desk_api::{
            Certificate, CertificateStatus, DeployStatus, DomainRole, DomainStatus, Hostname,
        };
        let now = chrono::Utc::now();
        let add = |conn: &Connection, project: &str, name: &str, role: DomainRole| {
            let hostname = Hostname::parse(name).unwrap();
            let domain = domains::new_domain(
                &hostname,
                project,
                role,
                None,
                "t.example",
                "acme.example",
                now,
            );
            if domains_have_validation(conn) {
                domains::insert(conn, &domain).unwrap();
            } else {
                insert_before_validation(conn, &domain);
            }
        };
        let files = BTreeMap::from([("index.html".to_owned(), "hi".to_owned())]);
        let deploy = |conn: &Connection, project: &str, status: DeployStatus| {
            deploys::create(conn, project, status, &files, now)
                .unwrap()
                .id
        };
        let (mut conn, first, second) = two_projects_after(8, now);
        add(&conn, &first, "a.example.com", DomainRole::Primary);
        add(&conn, &first, "b.example.com", DomainRole::Alias);
        deploy(&conn, &first, DeployStatus::Failed);
        let kept = deploy(&conn, &first, DeployStatus::Succeeded);

        // the upgrade copies what is there
        migrate(&mut conn, MIGRATIONS).unwrap();
        let copies = copies_agree(&conn);
        let of = |copies: &[Summary], project: &str| {
            copies
                .iter()
                .find(|summary| summary.0 == project)
                .cloned()
                .unwrap()
        };
        assert_eq!(
            of(&copies, &first).1.as_deref(),
            Some("a.example.com"),
            "{copies:?}"
        );
        assert_eq!(of(&copies, &first).3, Some(kept));
        assert_eq!(of(&copies, &second).1, None);

        // then every write keeps them: a deploy, a primary added, made live, demoted, another
        // promoted, moved to another project, removed; deploys trimmed and removed
        let newest = deploy(&conn, &second, DeployStatus::Failed);
        assert_eq!(of(&copies_agree(&conn), &second).3, Some(newest));
        add(&conn, &second, "c.example.com", DomainRole::Alias);
        assert_eq!(of(&copies_agree(&conn), &second).1, None);
        add(&conn, &second, "d.example.com", DomainRole::Primary);
        let issued = Certificate {
            status: CertificateStatus::Issued,
            started_at: Some(now),
            issued_at: Some(now),
            expires_at: Some(now),
            error: None,
            renews_at: None,
            validation: Default::default(),
        };
        domains::set_certificate(&conn, "d.example.com", DomainStatus::Live, &issued).unwrap();
        assert_eq!(of(&copies_agree(&conn), &second).2.as_deref(), Some("live"));
        domains::set_role(&conn, "d.example.com", DomainRole::Alias, None).unwrap();
        assert_eq!(of(&copies_agree(&conn), &second).1, None);
        domains::set_role(&conn, "c.example.com", DomainRole::Primary, None).unwrap();
        assert_eq!(
            of(&copies_agree(&conn), &second).1.as_deref(),
            Some("c.example.com")
        );
        assert!(domains::delete(&conn, "a.example.com").unwrap());
        assert_eq!(of(&copies_agree(&conn), &first).1, None);
        conn.execute(
            "UPDATE domains SET project_id = ?1 WHERE hostname = 'c.example.com'",
            [&first],
        )
        .unwrap();
        let copies = copies_agree(&conn);
        assert_eq!(
            (of(&copies, &first).1.as_deref(), of(&copies, &second).1),
            (Some("c.example.com"), None)
        );
        deploy(&conn, &first, DeployStatus::Succeeded);
        assert_eq!(deploys::keep_newest(&conn, &first, 1).unwrap(), 2);
        copies_agree(&conn);
        conn.execute("DELETE FROM deploys WHERE project_id = ?1", [&first])
            .unwrap();
        assert_eq!(of(&copies_agree(&conn), &first).3, None);
        conn.execute("DELETE FROM projects WHERE id = ?1", [&second])
            .unwrap();
        assert_eq!(copies_agree(&conn).len(), 1);
    }

    #[test]
    fn remembered_answers_still_answer_after_the_upgrade_to_compact_names() {
        use crate::store::idempotency::{self, AnswerKey};
        use sha2::{Digest, Sha256};
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, &MIGRATIONS[..9]).unwrap();
        let alice = idempotency::key_hash("dd_live_alice");
        let bob = idempotency::key_hash("dd_live_bob");
        let print = Sha256::digest(b"POST /v1/projects\n{}");
        // as version 9 stored them: the key's hash and the client's key in clear, the
        // fingerprint in hex; the same client key under two API keys, one answer expired
        let remembered = [
            (
                &alice,
                "retry-1",
                201,
                "{\"id\":\"a\"}",
                "2026-01-02T00:00:00.000000Z",
            ),
            (
                &bob,
                "retry-1",
                422,
                "{\"error\":{}}",
                "2026-01-02T00:00:01.000000Z",
            ),
            (&alice, "old", 201, "{}", "2025-12-01T00:00:00.000000Z"),
        ];
        for (key_hash, idem_key, status, body, at) in remembered {
            conn.execute(
                "INSERT INTO idempotency (key_hash, idem_key, fingerprint, status, body, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                rusqlite::params![
                    key_hash,
                    idem_key,
                    idempotency::hex(&print),
                    status,
                    body.as_bytes(),
                    at
                ],
            )
            .unwrap();
        }
        migrate(&mut conn, &MIGRATIONS[..10]).unwrap();
        // the index of names as version 10 kept it: the 16-byte name alone, names unique
        let indexed: Vec<String> = conn
            .prepare("SELECT name FROM pragma_index_info('idempotency_by_key')")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(indexed, ["key"]);
        let duplicate = conn.execute(
            "INSERT INTO idempotency (key, fingerprint, status, body, created_at)
             SELECT key, fingerprint, status, body, created_at FROM idempotency LIMIT 1",
            [],
        );
        assert!(duplicate.is_err(), "two answers under one name");
        // from version 11 on, answers are found through the index in memory
        migrate(&mut conn, MIGRATIONS).unwrap();
        let answers = idempotency::AnswerIndex::load(&conn).unwrap();
        assert_eq!(answers.len(), 3);

        let not_before = "2026-01-01T00:00:00Z".parse().unwrap();
        for (key_hash, idem_key, status, body, at) in &remembered[..2] {
            let stored = idempotency::get(
                &conn,
                &answers,
                &AnswerKey::new(key_hash, idem_key),
                not_before,
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{idem_key} of {key_hash} lost in the upgrade"));
            assert_eq!(stored.status, *status);
            assert_eq!(stored.body, body.as_bytes());
            assert_eq!(stored.fingerprint[..], print[..]);
            assert_eq!(
                stored.created_at,
                at.parse::<chrono::DateTime<chrono::Utc>>().unwrap()
            );
        }
        assert!(
            idempotency::get(&conn, &answers, &AnswerKey::new(&alice, "old"), not_before)
                .unwrap()
                .is_none(),
            "still expired"
        );
        // insertion order kept: the oldest by insertion is forgotten first
        assert_eq!(idempotency::keep_newest(&conn, &answers, 2, 10).unwrap(), 1);
        let oldest = "2020-01-01T00:00:00Z".parse().unwrap();
        assert!(
            idempotency::get(&conn, &answers, &AnswerKey::new(&alice, "retry-1"), oldest)
                .unwrap()
                .is_none()
        );
        assert!(
            idempotency::get(&conn, &answers, &AnswerKey::new(&alice, "old"), oldest)
                .unwrap()
                .is_some()
        );
        // every name is 16 bytes, and the table keeps no index to insert into and delete from
        let indexes: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotency'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 0);
        let widths: Vec<i64> = conn
            .prepare("SELECT length(key) FROM idempotency")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(widths, [16, 16]);
    }

    #[test]
    fn refuses_a_newer_database() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("PRAGMA user_version = 999").unwrap();
        assert!(matches!(
            migrate(&mut conn, MIGRATIONS),
            Err(Error::Schema(_))
        ));
    }

    #[test]
    fn refuses_gaps_in_the_list() {
        let mut conn = Connection::open_in_memory().unwrap();
        let gap = [Migration {
            version: 2,
            name: "gap",
            sql: "",
        }];
        assert!(migrate(&mut conn, &gap).is_err());
    }

    #[test]
    fn a_failed_step_leaves_the_version_unchanged() {
        let mut conn = Connection::open_in_memory().unwrap();
        let broken = [Migration {
            version: 1,
            name: "broken",
            sql: "CREATE TABLE ok (x); THIS IS NOT SQL;",
        }];
        assert!(migrate(&mut conn, &broken).is_err());
        assert_eq!(version(&conn), 0);
    }
}

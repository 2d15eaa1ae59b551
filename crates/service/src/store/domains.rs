//! Custom domains as stored: every field of the contract's Domain object has a column, so the
//! verifier and the CA only update them ([`set_verification`], [`set_certificate`]).
//!
//! It is longer than the house's 500 lines (about 520 of code, tested through the store's and
//! the service's tests): it holds every statement on the `domains` table, one short function
//! each (insert, get, pages, the verifier's and the CA's updates, roles, moves), and the
//! columns' enums. The store keeps one file per table, so each table's SQL is read in one
//! place; the hand-written JSON page of the same rows is its fast path, `fast/domain_json.rs`.

use chrono::{DateTime, Utc};
use domain_desk_api::hostname::ACME_CHALLENGE_LABEL;
use domain_desk_api::{
    Certificate, CertificateError, CertificateStatus, CertificateValidation, DnsRecord,
    DnsRecordType, Domain, DomainRole, DomainStatus, Redirect, ValidationMethod, ValidationRecord,
    Verification, VerificationError,
};
use rusqlite::{Connection, OptionalExtension, params};

use super::execute_cached;
use super::page::{self, After, Page, PageRequest};
use super::time::{from_sql, opt_from_sql, to_sql};
use crate::{Error, Result};

/// Domains keep the TTL the contract asks customers to use.
pub const DNS_TTL: u32 = 3600;

/// The only redirect status the platform supports.
pub const REDIRECT_STATUS: u16 = 301;

pub fn role_to_sql(role: DomainRole) -> &'static str {
    match role {
        DomainRole::Primary => "primary",
        DomainRole::Alias => "alias",
        DomainRole::Redirect => "redirect",
    }
}

pub(super) fn role_from_sql(text: &str) -> Result<DomainRole> {
    match text {
        "primary" => Ok(DomainRole::Primary),
        "alias" => Ok(DomainRole::Alias),
        "redirect" => Ok(DomainRole::Redirect),
        other => Err(Error::Corrupt(format!("domain role {other:?}"))),
    }
}

pub fn status_to_sql(status: DomainStatus) -> &'static str {
    match status {
        DomainStatus::PendingVerification => "pending_verification",
        DomainStatus::Verified => "verified",
        DomainStatus::Live => "live",
    }
}

pub(super) fn status_from_sql(text: &str) -> Result<DomainStatus> {
    match text {
        "pending_verification" => Ok(DomainStatus::PendingVerification),
        "verified" => Ok(DomainStatus::Verified),
        "live" => Ok(DomainStatus::Live),
        other => Err(Error::Corrupt(format!("domain status {other:?}"))),
    }
}

pub fn certificate_status_to_sql(status: CertificateStatus) -> &'static str {
    match status {
        CertificateStatus::None => "none",
        CertificateStatus::Issuing => "issuing",
        CertificateStatus::Issued => "issued",
        CertificateStatus::Failed => "failed",
    }
}

pub(super) fn certificate_status_from_sql(text: &str) -> Result<CertificateStatus> {
    match text {
        "none" => Ok(CertificateStatus::None),
        "issuing" => Ok(CertificateStatus::Issuing),
        "issued" => Ok(CertificateStatus::Issued),
        "failed" => Ok(CertificateStatus::Failed),
        other => Err(Error::Corrupt(format!("certificate status {other:?}"))),
    }
}

fn record_type_to_sql(record_type: DnsRecordType) -> &'static str {
    match record_type {
        DnsRecordType::Cname => "CNAME",
        DnsRecordType::Alias => "ALIAS",
    }
}

pub(super) fn record_type_from_sql(text: &str) -> Result<DnsRecordType> {
    match text {
        "CNAME" => Ok(DnsRecordType::Cname),
        "ALIAS" => Ok(DnsRecordType::Alias),
        other => Err(Error::Corrupt(format!("dns record type {other:?}"))),
    }
}

pub fn validation_method_to_sql(method: Option<ValidationMethod>) -> Option<&'static str> {
    method.map(|method| match method {
        ValidationMethod::Http => "http",
        ValidationMethod::Dns => "dns",
        // Never made here (the service knows both of its methods); kept as written if read.
        ValidationMethod::Unknown => "unknown",
    })
}

pub(super) fn validation_method_from_sql(text: Option<&str>) -> Result<Option<ValidationMethod>> {
    match text {
        None => Ok(None),
        Some("http") => Ok(Some(ValidationMethod::Http)),
        Some("dns") => Ok(Some(ValidationMethod::Dns)),
        Some("unknown") => Ok(Some(ValidationMethod::Unknown)),
        Some(other) => Err(Error::Corrupt(format!("validation method {other:?}"))),
    }
}

/// The `_acme-challenge` CNAME of a domain, from its stored columns: `dns_name` is the
/// routing record's name relative to the registrable domain (`shop`, `*.shop`, `@`, `*`),
/// `target` the delegation's value. No IDNA or Public Suffix List on the way.
pub(super) fn validation_record(hostname: &str, dns_name: &str, target: &str) -> ValidationRecord {
    let relative = match dns_name {
        "@" | "*" => None,
        name => Some(name.strip_prefix("*.").unwrap_or(name)),
    };
    ValidationRecord {
        record_type: "CNAME".to_owned(),
        name: match relative {
            None => ACME_CHALLENGE_LABEL.to_owned(),
            Some(relative) => format!("{ACME_CHALLENGE_LABEL}.{relative}"),
        },
        fqdn: format!(
            "{ACME_CHALLENGE_LABEL}.{}",
            hostname.strip_prefix("*.").unwrap_or(hostname)
        ),
        value: target.to_owned(),
    }
}

/// The delegation's value for `hostname` under `validation_zone`: the name without a
/// wildcard's `*.`, then the zone (`shop.example.com.acme.<platform domain>` for
/// `shop.example.com` and `*.shop.example.com` alike, as both are validated at
/// `_acme-challenge.shop.example.com`).
pub fn validation_target(hostname: &str, validation_zone: &str) -> String {
    format!(
        "{}.{}",
        hostname.strip_prefix("*.").unwrap_or(hostname),
        validation_zone.trim_end_matches('.')
    )
}

pub(super) const COLUMNS: &str = "hostname, project_id, apex, role, redirect_to, status, dns_type, dns_name, \
    dns_value, dns_ttl, verification_checked_at, verification_error, certificate_status, \
    certificate_started_at, certificate_issued_at, certificate_expires_at, certificate_error, \
    created_at, validation_method, validation_target";

/// The text columns of one row, read before they are parsed (parsing can fail with our
/// error type, which `query_map` cannot carry).
struct RawDomain {
    text: [Option<String>; 18],
    apex: bool,
    ttl: u32,
}

fn raw(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawDomain> {
    let mut text: [Option<String>; 18] = Default::default();
    // Columns 0,1,3..8,10..19 are text; 2 is apex and 9 is the TTL.
    for (slot, column) in [
        0, 1, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]
    .into_iter()
    .enumerate()
    {
        text[slot] = row.get(column)?;
    }
    Ok(RawDomain {
        text,
        apex: row.get(2)?,
        ttl: row.get(9)?,
    })
}

/// A hostname's Unicode form. Only A-labels (`xn--`) have another; IDNA is skipped for the rest.
pub(super) fn unicode_form(hostname: &str) -> std::borrow::Cow<'_, str> {
    if hostname.contains("xn--") {
        std::borrow::Cow::Owned(idna::domain_to_unicode(hostname).0)
    } else {
        std::borrow::Cow::Borrowed(hostname)
    }
}

fn parse(raw: RawDomain) -> Result<Domain> {
    let [
        hostname,
        project_id,
        role,
        redirect_to,
        status,
        dns_type,
        dns_name,
        dns_value,
        checked_at,
        verification_error,
        certificate_status,
        started_at,
        issued_at,
        expires_at,
        certificate_error,
        created_at,
        validation_method,
        validation_target,
    ] = raw.text;
    let required = |value: Option<String>, what: &str| {
        value.ok_or_else(|| Error::Corrupt(format!("domain without {what}")))
    };
    let hostname = required(hostname, "hostname")?;
    let role = role_from_sql(&required(role, "role")?)?;
    let verification_error: Option<VerificationError> = verification_error
        .as_deref()
        .map(serde_json::from_str)
        .transpose()?;
    let certificate_error: Option<CertificateError> = certificate_error
        .as_deref()
        .map(serde_json::from_str)
        .transpose()?;
    let dns_name = required(dns_name, "record name")?;
    let validation = CertificateValidation {
        method: validation_method_from_sql(validation_method.as_deref())?,
        dns_record: validation_record(
            &hostname,
            &dns_name,
            &required(validation_target, "validation target")?,
        ),
    };
    Ok(Domain {
        // Only A-labels (`xn--`) have another Unicode form; skip IDNA for the rest.
        unicode_hostname: unicode_form(&hostname).into_owned(),
        hostname,
        project_id: required(project_id, "project")?,
        apex: raw.apex,
        role,
        redirect: match (role, redirect_to) {
            (DomainRole::Redirect, Some(to)) => Some(Redirect {
                to,
                status: REDIRECT_STATUS,
            }),
            _ => None,
        },
        status: status_from_sql(&required(status, "status")?)?,
        dns_record: DnsRecord {
            record_type: record_type_from_sql(&required(dns_type, "record type")?)?,
            name: dns_name,
            value: required(dns_value, "record value")?,
            ttl: raw.ttl,
        },
        verification: Verification {
            checked_at: opt_from_sql(checked_at)?,
            error: verification_error,
        },
        certificate: {
            let status =
                certificate_status_from_sql(&required(certificate_status, "certificate status")?)?;
            let expires_at = opt_from_sql(expires_at)?;
            Certificate {
                status,
                started_at: opt_from_sql(started_at)?,
                issued_at: opt_from_sql(issued_at)?,
                expires_at,
                error: certificate_error,
                renews_at: crate::ca::renews_at(status, expires_at),
                validation,
            }
        },
        created_at: from_sql(&required(created_at, "creation time")?)?,
    })
}

pub fn insert(conn: &Connection, domain: &Domain) -> Result<()> {
    execute_cached(
        conn,
        &format!(
            "INSERT INTO domains ({COLUMNS}) VALUES \
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
              ?19, ?20)"
        ),
        params![
            domain.hostname,
            domain.project_id,
            domain.apex,
            role_to_sql(domain.role),
            domain.redirect.as_ref().map(|r| r.to.clone()),
            status_to_sql(domain.status),
            record_type_to_sql(domain.dns_record.record_type),
            domain.dns_record.name,
            domain.dns_record.value,
            domain.dns_record.ttl,
            domain.verification.checked_at.map(to_sql),
            domain
                .verification
                .error
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
            certificate_status_to_sql(domain.certificate.status),
            domain.certificate.started_at.map(to_sql),
            domain.certificate.issued_at.map(to_sql),
            domain.certificate.expires_at.map(to_sql),
            domain
                .certificate
                .error
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
            to_sql(domain.created_at),
            validation_method_to_sql(domain.certificate.validation.method),
            domain.certificate.validation.dns_record.value,
        ],
    )?;
    Ok(())
}

/// A domain by hostname, whichever project holds it.
pub fn get(conn: &Connection, hostname: &str) -> Result<Option<Domain>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM domains WHERE hostname = ?1"
    ))?
    .query_row(params![hostname], raw)
    .optional()?
    .map(parse)
    .transpose()
}

/// A domain of this project, or the contract's `404 not_found`.
pub fn require_in_project(conn: &Connection, project_id: &str, hostname: &str) -> Result<Domain> {
    match get(conn, hostname)? {
        Some(domain) if domain.project_id == project_id => Ok(domain),
        _ => Err(Error::not_found(format!(
            "No domain {hostname} on project {project_id}."
        ))),
    }
}

/// One page of the project's domains as typed values, in list order (creation time, then
/// hostname), in one query: the reference that [`super::fast::domain_json::page_of_project`], which
/// the API serves, must match byte for byte once serialized.
pub fn page_of_project(
    conn: &Connection,
    project_id: &str,
    request: &PageRequest,
) -> Result<Page<Vec<Domain>>> {
    let (after_time, after_name) = page::after_params(&request.after);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM domains
         WHERE project_id = ?1 AND (created_at, hostname) > (?2, ?3)
         ORDER BY created_at, hostname
         LIMIT ?4"
    ))?;
    let raws = stmt
        .query_map(
            params![project_id, after_time, after_name, request.limit + 1],
            raw,
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let domains = raws.into_iter().map(parse).collect::<Result<Vec<_>>>()?;
    Ok(Page::from_rows(domains, request.limit, |domain| After {
        created_at: to_sql(domain.created_at),
        id: domain.hostname.clone(),
    }))
}

/// The project's domains in the order they were added.
pub fn of_project(conn: &Connection, project_id: &str) -> Result<Vec<Domain>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM domains WHERE project_id = ?1 ORDER BY created_at, hostname"
    ))?;
    let raws = stmt
        .query_map(params![project_id], raw)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(parse).collect()
}

/// Every domain in a given status (for the verifier and the CA's background work).
pub fn with_status(conn: &Connection, status: DomainStatus) -> Result<Vec<Domain>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM domains WHERE status = ?1 ORDER BY rowid"
    ))?;
    let raws = stmt
        .query_map(params![status_to_sql(status)], raw)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(parse).collect()
}

/// Every domain whose certificate is in a given status.
pub fn with_certificate_status(
    conn: &Connection,
    status: CertificateStatus,
) -> Result<Vec<Domain>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM domains WHERE certificate_status = ?1 ORDER BY rowid"
    ))?;
    let raws = stmt
        .query_map(params![certificate_status_to_sql(status)], raw)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(parse).collect()
}

pub fn primary(conn: &Connection, project_id: &str) -> Result<Option<Domain>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM domains WHERE project_id = ?1 AND role = 'primary'"
    ))?
    .query_row(params![project_id], raw)
    .optional()?
    .map(parse)
    .transpose()
}

/// How many domains the project has: the count the triggers of migration 6 keep, so this
/// costs the same at ten domains as at ten thousand.
pub fn count_of_project(conn: &Connection, project_id: &str) -> Result<u64> {
    let count: Option<i64> = conn
        .prepare_cached("SELECT domain_count FROM projects WHERE id = ?1")?
        .query_row(params![project_id], |row| row.get(0))
        .optional()?;
    Ok(count
        .and_then(|count| u64::try_from(count).ok())
        .unwrap_or(0))
}

pub fn set_role(
    conn: &Connection,
    hostname: &str,
    role: DomainRole,
    redirect_to: Option<&str>,
) -> Result<()> {
    execute_cached(
        conn,
        "UPDATE domains SET role = ?2, redirect_to = ?3 WHERE hostname = ?1",
        params![hostname, role_to_sql(role), redirect_to],
    )?;
    Ok(())
}

/// Points every redirect of the project that targets `from` at `to` instead.
pub fn repoint_redirects(conn: &Connection, project_id: &str, from: &str, to: &str) -> Result<()> {
    execute_cached(
        conn,
        "UPDATE domains SET redirect_to = ?3
         WHERE project_id = ?1 AND role = 'redirect' AND redirect_to = ?2",
        params![project_id, from, to],
    )?;
    Ok(())
}

pub fn delete(conn: &Connection, hostname: &str) -> Result<bool> {
    Ok(execute_cached(
        conn,
        "DELETE FROM domains WHERE hostname = ?1",
        params![hostname],
    )? == 1)
}

/// Records a verification result and the domain's resulting status.
pub fn set_verification(
    conn: &Connection,
    hostname: &str,
    status: DomainStatus,
    verification: &Verification,
) -> Result<()> {
    execute_cached(
        conn,
        "UPDATE domains SET status = ?2, verification_checked_at = ?3, verification_error = ?4
         WHERE hostname = ?1",
        params![
            hostname,
            status_to_sql(status),
            verification.checked_at.map(to_sql),
            verification
                .error
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
        ],
    )?;
    Ok(())
}

/// Records the certificate's state (with its validation method; the delegation record is
/// the domain's own) and the domain's resulting status.
pub fn set_certificate(
    conn: &Connection,
    hostname: &str,
    status: DomainStatus,
    certificate: &Certificate,
) -> Result<()> {
    execute_cached(
        conn,
        "UPDATE domains SET status = ?2, certificate_status = ?3, certificate_started_at = ?4,
             certificate_issued_at = ?5, certificate_expires_at = ?6, certificate_error = ?7,
             validation_method = ?8
         WHERE hostname = ?1",
        params![
            hostname,
            status_to_sql(status),
            certificate_status_to_sql(certificate.status),
            certificate.started_at.map(to_sql),
            certificate.issued_at.map(to_sql),
            certificate.expires_at.map(to_sql),
            certificate
                .error
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?,
            validation_method_to_sql(certificate.validation.method),
        ],
    )?;
    Ok(())
}

/// Points every domain's delegation at `validation_zone` (the world's, from its settings)
/// where it names another: rows written before migration 12 took the zone from their DNS
/// target, which a platform with its own settings may not match.
pub fn set_validation_zone(conn: &Connection, validation_zone: &str) -> Result<usize> {
    execute_cached(
        conn,
        "UPDATE domains SET validation_target = (CASE WHEN substr(hostname, 1, 2) = '*.'
             THEN substr(hostname, 3) ELSE hostname END) || '.' || ?1
         WHERE validation_target IS NOT ((CASE WHEN substr(hostname, 1, 2) = '*.'
             THEN substr(hostname, 3) ELSE hostname END) || '.' || ?1)",
        params![validation_zone.trim_end_matches('.')],
    )
}

/// Moves a domain to another project with `role` (status, certificate and validation stay):
/// the triggers of migrations 6 and 9 keep both projects' counts and primaries.
pub fn move_to_project(
    conn: &Connection,
    hostname: &str,
    project_id: &str,
    role: DomainRole,
) -> Result<()> {
    execute_cached(
        conn,
        "UPDATE domains SET project_id = ?2, role = ?3, redirect_to = NULL WHERE hostname = ?1",
        params![hostname, project_id, role_to_sql(role)],
    )?;
    Ok(())
}

/// The wildcard domain that covers `name` (`*.shop.example.com` for `a.shop.example.com`),
/// whichever project holds it; `None` when there is none or `name` has no parent.
pub fn wildcard_covering(conn: &Connection, name: &str) -> Result<Option<Domain>> {
    match name.split_once('.') {
        Some((label, parent)) if !label.is_empty() && parent.contains('.') => {
            get(conn, &format!("*.{parent}"))
        }
        _ => Ok(None),
    }
}

/// A new domain as the contract creates it: pending verification, no certificate, its
/// delegation under `validation_zone`.
pub fn new_domain(
    hostname: &domain_desk_api::Hostname,
    project_id: &str,
    role: DomainRole,
    redirect_to: Option<String>,
    platform_dns_target: &str,
    validation_zone: &str,
    now: DateTime<Utc>,
) -> Domain {
    let apex = hostname.is_apex();
    Domain {
        hostname: hostname.as_str().to_owned(),
        unicode_hostname: hostname.unicode(),
        project_id: project_id.to_owned(),
        apex,
        role,
        redirect: redirect_to.map(|to| Redirect {
            to,
            status: REDIRECT_STATUS,
        }),
        status: DomainStatus::PendingVerification,
        dns_record: DnsRecord {
            record_type: if apex {
                DnsRecordType::Alias
            } else {
                DnsRecordType::Cname
            },
            name: hostname.relative_name().to_owned(),
            value: platform_dns_target.to_owned(),
            ttl: DNS_TTL,
        },
        verification: Verification::default(),
        certificate: Certificate {
            validation: CertificateValidation {
                method: None,
                dns_record: ValidationRecord {
                    record_type: "CNAME".to_owned(),
                    name: hostname.acme_challenge_name(),
                    fqdn: hostname.acme_challenge_fqdn(),
                    value: validation_target(hostname.as_str(), validation_zone),
                },
            },
            ..Certificate::default()
        },
        created_at: now,
    }
}

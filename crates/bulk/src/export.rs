//! A project's domains written out: CSV for a spreadsheet, JSON in the API's own shapes for
//! scripts, and a BIND zone-file fragment a DNS admin can paste.
//!
//! Values come from the platform. The CSV is opened in spreadsheets, so a cell that would run
//! as a formula is written inert (JSON and the zone fragment keep every value exact). The zone
//! fragment is pasted into a DNS admin's configuration: any name that is not plainly a DNS
//! name is written as an inert comment rather than as a record.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use domain_desk_api::{Domain, DomainList, DomainRole, DomainStatus, wire_name};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The formats of `domains export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Csv,
    Json,
    Zone,
}

impl ExportFormat {
    pub fn parse(name: &str) -> Option<ExportFormat> {
        match name.to_ascii_lowercase().as_str() {
            "csv" => Some(ExportFormat::Csv),
            "json" => Some(ExportFormat::Json),
            "zone" | "bind" => Some(ExportFormat::Zone),
            _ => None,
        }
    }
}

/// The domains in `format`; `label` names the project in the zone fragment's header.
pub fn export(domains: &[Domain], format: ExportFormat, label: &str) -> Result<String> {
    match format {
        ExportFormat::Csv => Ok(csv(domains)),
        ExportFormat::Json => {
            let list = DomainList {
                domains: domains.to_vec(),
                next_cursor: None,
            };
            let mut text = serde_json::to_string_pretty(&list).map_err(Error::Json)?;
            text.push('\n');
            Ok(text)
        }
        ExportFormat::Zone => Ok(zone(domains, label)),
    }
}

fn role(role: DomainRole) -> &'static str {
    match role {
        DomainRole::Primary => "primary",
        DomainRole::Alias => "alias",
        DomainRole::Redirect => "redirect",
    }
}

fn status(status: DomainStatus) -> &'static str {
    match status {
        DomainStatus::PendingVerification => "pending_verification",
        DomainStatus::Verified => "verified",
        DomainStatus::Live => "live",
    }
}

/// The columns an import reads first (`hostname,redirect_to`), then what a person checks. A
/// cell a spreadsheet would run as a formula is written inert ([`crate::cells`]).
fn csv(domains: &[Domain]) -> String {
    let mut out = crate::cells::line([
        "hostname",
        "redirect_to",
        "unicode_hostname",
        "role",
        "status",
        "record_type",
        "record_name",
        "record_value",
        "ttl",
        "certificate",
        "problem",
    ]);
    for d in domains {
        let problem = d
            .verification
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .or_else(|| d.certificate.error.as_ref().map(|e| e.message.clone()))
            .unwrap_or_default();
        let certificate = wire_name(&d.certificate.status);
        out.push_str(&crate::cells::line([
            d.hostname.as_str(),
            d.redirect.as_ref().map_or("", |r| r.to.as_str()),
            d.unicode_hostname.as_str(),
            role(d.role),
            status(d.status),
            &wire_name(&d.dns_record.record_type),
            d.dns_record.name.as_str(),
            d.dns_record.value.as_str(),
            &d.dns_record.ttl.to_string(),
            &certificate,
            &problem,
        ]));
    }
    out
}

/// A name a zone file can hold as it is: LDH labels (and `_`), nothing that could end a line
/// or start a comment.
fn plain_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|l| !l.is_empty() && l.len() <= 63)
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
}

/// Text for a comment: printable ASCII only, everything else as `\u{…}`.
fn comment_text(value: &str) -> String {
    value.escape_default().to_string()
}

fn zone(domains: &[Domain], label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "; Custom domains of {}", comment_text(label));
    let _ = writeln!(
        out,
        "; Create these records at the DNS provider of each domain, then verify in Domain Desk."
    );
    let mut delegated = BTreeSet::new();
    for d in domains {
        let owner = format!("{}.", d.hostname);
        let target = format!("{}.", d.dns_record.value.trim_end_matches('.'));
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "; {} ({}, {})",
            comment_text(&d.unicode_hostname),
            role(d.role),
            status(d.status)
        );
        // A wildcard's owner is `*.` over a plain name (RFC 4592), which a zone holds as is.
        let owner_name = d.hostname.strip_prefix("*.").unwrap_or(&d.hostname);
        if !plain_dns_name(owner_name) || !plain_dns_name(d.dns_record.value.trim_end_matches('.'))
        {
            let _ = writeln!(
                out,
                "; skipped: {} -> {} is not a plain DNS name",
                comment_text(&d.hostname),
                comment_text(&d.dns_record.value)
            );
            continue;
        }
        if d.apex {
            let _ = writeln!(
                out,
                "; An apex cannot hold a CNAME. Create an ALIAS record (called ANAME, or CNAME flattening"
            );
            let _ = writeln!(
                out,
                "; at the apex, by some providers; Route 53 calls it an Alias record). Without one,"
            );
            let _ = writeln!(
                out,
                "; make www.{} the primary domain and redirect the apex to it.",
                d.hostname
            );
            let _ = writeln!(out, ";{owner}\t{}\tIN\tALIAS\t{target}", d.dns_record.ttl);
        } else {
            let _ = writeln!(out, "{owner}\t{}\tIN\tCNAME\t{target}", d.dns_record.ttl);
        }
        delegation(&mut out, d, &mut delegated);
    }
    out
}

/// The `_acme-challenge` CNAME that lets the platform's CA validate `d` by DNS: before the
/// routing record moves traffic, for a wildcard at all, and for each renewal of a certificate
/// validated that way. Written once per owner (`shop.example.com` and `*.shop.example.com`
/// share one); nothing for a domain whose platform names none.
fn delegation(out: &mut String, d: &Domain, delegated: &mut BTreeSet<String>) {
    let record = &d.certificate.validation.dns_record;
    let (fqdn, value) = (
        record.fqdn.trim_end_matches('.'),
        record.value.trim_end_matches('.'),
    );
    if fqdn.is_empty() || value.is_empty() || !delegated.insert(fqdn.to_owned()) {
        return;
    }
    if !plain_dns_name(fqdn)
        || !plain_dns_name(value)
        || !record.record_type.eq_ignore_ascii_case("CNAME")
    {
        let _ = writeln!(
            out,
            "; skipped: the delegation {} -> {} is not a plain DNS name",
            comment_text(fqdn),
            comment_text(value)
        );
        return;
    }
    let _ = writeln!(
        out,
        "; lets the certificate be issued before you switch, and renewed (DNS validation)"
    );
    let _ = writeln!(out, "{fqdn}.\t{}\tIN\tCNAME\t{value}.", d.dns_record.ttl);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domain(hostname: &str, apex: bool, value: &str) -> Domain {
        serde_json::from_value(serde_json::json!({
            "hostname": hostname, "unicode_hostname": hostname,
            "project_id": "prj_1", "apex": apex, "role": "alias", "redirect": null,
            "status": "pending_verification",
            "dns_record": {"type": if apex {"ALIAS"} else {"CNAME"}, "name": if apex {"@"} else {"shop"},
                           "value": value, "ttl": 3600},
            "verification": {"checked_at": null, "error": null},
            "certificate": {"status": "none", "started_at": null, "issued_at": null, "expires_at": null, "error": null},
            "created_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn zone_has_a_cname_per_subdomain_and_the_apex_alias_as_a_comment() {
        let text = zone(
            &[
                domain("shop.example.com", false, "cname.platform.test"),
                domain("example.com", true, "cname.platform.test"),
            ],
            "Shop",
        );
        let records: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(';') && !l.is_empty())
            .collect();
        assert_eq!(
            records,
            vec!["shop.example.com.\t3600\tIN\tCNAME\tcname.platform.test."]
        );
        assert!(text.contains(";example.com.\t3600\tIN\tALIAS\tcname.platform.test."));
        assert!(text.contains("make www.example.com the primary"));
    }

    fn delegated(mut domain: Domain, name: &str, fqdn: &str, value: &str) -> Domain {
        let record = &mut domain.certificate.validation.dns_record;
        record.name = name.into();
        record.fqdn = fqdn.into();
        record.value = value.into();
        domain
    }

    #[test]
    fn zone_writes_a_wildcards_cname_and_each_delegation_once() {
        let mut wildcard = domain("*.shop.example.com", false, "cname.platform.test");
        wildcard.dns_record.name = "*.shop".into();
        let text = zone(
            &[
                delegated(
                    wildcard,
                    "_acme-challenge.shop",
                    "_acme-challenge.shop.example.com",
                    "shop.example.com.acme.platform.test",
                ),
                delegated(
                    domain("shop.example.com", false, "cname.platform.test"),
                    "_acme-challenge.shop",
                    "_acme-challenge.shop.example.com",
                    "shop.example.com.acme.platform.test",
                ),
                delegated(
                    domain("example.com", true, "cname.platform.test"),
                    "_acme-challenge",
                    "_acme-challenge.example.com",
                    "example.com.acme.platform.test.",
                ),
                delegated(
                    domain("odd.example.com", false, "cname.platform.test"),
                    "_acme-challenge.odd",
                    "_acme-challenge.odd.example.com",
                    "x.test.\nexample.com. IN A 6.6.6.6",
                ),
            ],
            "Shop",
        );
        let records: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(';') && !l.is_empty())
            .collect();
        assert_eq!(
            records,
            vec![
                "*.shop.example.com.\t3600\tIN\tCNAME\tcname.platform.test.",
                "_acme-challenge.shop.example.com.\t3600\tIN\tCNAME\tshop.example.com.acme.platform.test.",
                "shop.example.com.\t3600\tIN\tCNAME\tcname.platform.test.",
                "_acme-challenge.example.com.\t3600\tIN\tCNAME\texample.com.acme.platform.test.",
                "odd.example.com.\t3600\tIN\tCNAME\tcname.platform.test.",
            ],
            "{text}"
        );
        assert!(text.contains("; skipped: the delegation _acme-challenge.odd.example.com"));
    }

    #[test]
    fn a_value_that_is_not_a_dns_name_stays_a_comment() {
        let text = zone(
            &[domain(
                "shop.example.com",
                false,
                "evil.test.\nexample.com. IN A 6.6.6.6",
            )],
            "x\ny",
        );
        assert!(
            text.lines().all(|l| l.is_empty() || l.starts_with(';')),
            "{text}"
        );
        assert!(text.contains("skipped"));
    }

    /// A platform's message that a spreadsheet would run as a formula is written inert in the
    /// CSV (a single quote first, the cell quoted, as OWASP advises); JSON and the zone
    /// fragment keep it exact.
    #[test]
    fn a_csv_export_holds_no_cell_a_spreadsheet_would_run() {
        let mut shop = domain("shop.example.com", false, "t.platform.test");
        shop.verification.error = serde_json::from_value(serde_json::json!({
            "code": "record_missing", "message": "=cmd|' /C calc'!A0", "found": []
        }))
        .unwrap();
        let mut other = domain("other.example.com", false, "t.platform.test");
        other.unicode_hostname = "@other".into();
        let text = export(&[shop.clone(), other.clone()], ExportFormat::Csv, "Shop").unwrap();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        for record in reader.records() {
            for cell in &record.unwrap() {
                assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                    "{cell:?} in {text}"
                );
            }
        }
        assert!(text.contains(",\"'=cmd|' /C calc'!A0\"\n"), "{text}");
        assert!(text.contains("other.example.com,,\"'@other\","), "{text}");
        let json = export(&[shop, other], ExportFormat::Json, "Shop").unwrap();
        assert!(
            json.contains("\"message\": \"=cmd|' /C calc'!A0\""),
            "{json}"
        );
        assert!(json.contains("\"unicode_hostname\": \"@other\""), "{json}");
    }

    #[test]
    fn csv_starts_with_the_import_columns() {
        let text = csv(&[domain("shop.example.com", false, "t.platform.test")]);
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("hostname,redirect_to,"));
        assert!(lines.next().unwrap().starts_with("shop.example.com,,"));
    }
}

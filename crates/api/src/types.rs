//! Request and response bodies of `/v1`, exactly as `api-v1.md` shapes them.
//!
//! It is longer than the house's 500 lines (about 450 of code, 90 of tests): every body of the
//! contract is here, so it is read in one place as `api-v1.md` writes it; each type is a few
//! lines, and the local control plane's are apart (`local.rs`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The plan an account is on; it decides the rate limits and whether custom domains exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    Free,
    Pro,
    Business,
    Enterprise,
}

impl Plan {
    pub const ALL: [Plan; 4] = [Plan::Free, Plan::Pro, Plan::Business, Plan::Enterprise];

    /// The contract's published limits. Enterprise limits are agreed per account; the values
    /// here are the seeded demo account's.
    pub fn default_limits(self) -> Limits {
        let (per_minute, per_day, max_domains_per_project) = match self {
            Plan::Free => (60, 1_000, 0),
            Plan::Pro => (300, 10_000, 50),
            Plan::Business => (1_000, 100_000, 250),
            Plan::Enterprise => (100_000, 10_000_000, 10_000),
        };
        Limits {
            per_minute,
            per_day,
            max_domains_per_project,
        }
    }

    pub fn allows_custom_domains(self) -> bool {
        self != Plan::Free
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Business => "business",
            Plan::Enterprise => "enterprise",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Limits {
    pub per_minute: u64,
    pub per_day: u64,
    pub max_domains_per_project: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub plan: Plan,
    pub limits: Limits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeployStatus {
    Succeeded,
    Failed,
}

/// A deploy as it appears inside a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DeploySummary {
    pub id: String,
    pub status: DeployStatus,
    pub created_at: DateTime<Utc>,
}

/// The answer to creating a deploy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Deploy {
    pub id: String,
    pub project_id: String,
    pub status: DeployStatus,
    /// How many files the deploy carries; the edge serves them.
    pub file_count: u64,
    pub created_at: DateTime<Utc>,
}

/// A page of a project's deploys, newest last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DeployList {
    pub deploys: Vec<Deploy>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Project {
    pub id: String,
    pub name: String,
    /// The auto-generated platform subdomain, `<slug>-<random>.<platform domain>`.
    pub default_address: String,
    pub primary_domain: Option<String>,
    /// Where the project is served now: the primary domain once it is live, else the default
    /// address.
    pub url: String,
    pub last_deploy: Option<DeploySummary>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProjectList {
    pub projects: Vec<Project>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CreateProject {
    /// 1 to 100 characters once spaces around it are dropped, without control characters.
    #[schema(min_length = 1)]
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CreateDeploy {
    /// Path to text content, e.g. `{"index.html": "<h1>Hi</h1>"}`.
    #[serde(default)]
    pub files: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DomainRole {
    Primary,
    Alias,
    Redirect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DomainStatus {
    PendingVerification,
    Verified,
    Live,
}

/// The record type the customer creates: CNAME for a subdomain, ALIAS (or ANAME) for an apex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum DnsRecordType {
    #[serde(rename = "CNAME")]
    Cname,
    #[serde(rename = "ALIAS", alias = "ANAME")]
    Alias,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DnsRecord {
    #[serde(rename = "type")]
    pub record_type: DnsRecordType,
    /// Relative to the registrable domain: `shop`, `a.b`, or `@` for an apex.
    pub name: String,
    /// The platform DNS target.
    pub value: String,
    pub ttl: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Redirect {
    pub to: String,
    /// Always 301.
    pub status: u16,
}

/// A DNS record the verifier found, reported with a failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FoundRecord {
    #[serde(rename = "type")]
    pub record_type: String,
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerificationErrorCode {
    RecordMissing,
    CnameMismatch,
    ConflictingRecord,
    /// The resolver could not get an answer (timeout or SERVFAIL); trying again may pass.
    DnsLookupFailed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VerificationError {
    pub code: VerificationErrorCode,
    pub message: String,
    pub found: Vec<FoundRecord>,
    /// With `record_missing` from a platform whose resolver keeps negative answers (RFC
    /// 2308): when it cached the "no such name" or "no such record" it answered. Absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_at: Option<DateTime<Utc>>,
    /// With `cached_at`: when the platform's resolver asks again. A record created since is
    /// seen only from then on (after the propagation delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_until: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Verification {
    pub checked_at: Option<DateTime<Utc>>,
    pub error: Option<VerificationError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CertificateStatus {
    None,
    Issuing,
    Issued,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CertificateErrorCode {
    CaaForbidsIssuance,
    DnsChanged,
    DnsLookupFailed,
    /// The name's zone is signed and its DNSSEC answers do not validate (for example,
    /// expired signatures): a validating CA cannot trust what DNS says about the name.
    DnssecInvalid,
    /// Validation by DNS was needed (a wildcard, the renewal of a certificate validated by
    /// DNS, a name whose routing record does not pass yet) and the `_acme-challenge` CNAME is
    /// missing, has another value, or the CA's token is not visible through it yet.
    DelegationMissing,
    /// A code a newer platform added: the certificate's `message` says what it means, and a
    /// listing with it still reads.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CertificateError {
    pub code: CertificateErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Certificate {
    pub status: CertificateStatus,
    pub started_at: Option<DateTime<Utc>>,
    pub issued_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    /// Why the certificate failed (`failed`), or, on an `issued` certificate, why the last
    /// renewal attempt failed: the certificate still serves until `expires_at` and the
    /// platform keeps retrying; a passing attempt clears it.
    pub error: Option<CertificateError>,
    /// When the platform starts renewing an `issued` certificate (its renewal window opens);
    /// `null` for any other status.
    #[serde(default)]
    pub renews_at: Option<DateTime<Utc>>,
    /// How the current or last certificate was validated, and the delegation record that lets
    /// the platform validate by DNS before traffic moves.
    #[serde(default)]
    pub validation: CertificateValidation,
}

impl Default for Certificate {
    fn default() -> Self {
        Self {
            status: CertificateStatus::None,
            started_at: None,
            issued_at: None,
            expires_at: None,
            error: None,
            renews_at: None,
            validation: CertificateValidation::default(),
        }
    }
}

/// How a certificate's control of the name was proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ValidationMethod {
    /// Through the routing record: the name already pointed at the platform.
    Http,
    /// Through the delegation: `_acme-challenge.<name>` CNAME to the platform's validation
    /// zone, where the CA publishes its DNS-01 token (ACME DNS-01 through a CNAME).
    Dns,
    /// A method a newer platform names that this version does not know: the listing is read
    /// all the same.
    #[serde(other)]
    Unknown,
}

/// `certificate.validation` of a Domain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CertificateValidation {
    /// How the current or last certificate was validated; `null` before any was issued.
    pub method: Option<ValidationMethod>,
    /// The delegation record: with it in DNS, the certificate is issued before the routing
    /// record moves traffic (and a wildcard's certificate can be issued at all).
    pub dns_record: ValidationRecord,
}

/// The `_acme-challenge` CNAME that delegates DNS validation to the platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ValidationRecord {
    /// Always `CNAME`.
    #[serde(rename = "type")]
    pub record_type: String,
    /// Relative to the registrable domain, as DNS providers ask for it: `_acme-challenge.shop`
    /// for `shop.example.com` and for `*.shop.example.com`, `_acme-challenge` for an apex.
    pub name: String,
    /// The whole name (`_acme-challenge.shop.example.com`).
    pub fqdn: String,
    /// The CNAME's target, exactly: `<name without *.>.<the platform's validation zone>`.
    pub value: String,
}

impl Default for ValidationRecord {
    fn default() -> Self {
        Self {
            record_type: "CNAME".to_owned(),
            name: String::new(),
            fqdn: String::new(),
            value: String::new(),
        }
    }
}

/// The body of `POST /v1/projects/{project_id}/domains/{hostname}/move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MoveDomain {
    /// A project of the same account.
    pub to_project_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Domain {
    /// Lowercase A-label form.
    pub hostname: String,
    pub unicode_hostname: String,
    pub project_id: String,
    pub apex: bool,
    pub role: DomainRole,
    pub redirect: Option<Redirect>,
    pub status: DomainStatus,
    pub dns_record: DnsRecord,
    pub verification: Verification,
    pub certificate: Certificate,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DomainList {
    pub domains: Vec<Domain>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AddDomain {
    pub hostname: String,
    /// Makes the new domain a 301 redirect to this hostname of the same project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_to: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RedirectRule {
    pub from: String,
    pub to: String,
    /// Only 301 is supported.
    pub status: u16,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DomainConfig {
    pub primary: Option<String>,
    #[serde(default)]
    pub redirects: Vec<RedirectRule>,
}

/// One rate-limit window as `GET /v1/rate_limit` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WindowStatus {
    pub limit: u64,
    pub remaining: u64,
    /// Unix timestamp (seconds) at which the window resets.
    pub reset: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RateLimitStatus {
    pub minute: WindowStatus,
    pub day: WindowStatus,
    pub banned_until: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RateWindow {
    Minute,
    Day,
}

/// Every error code the API answers with. Codes a newer platform adds arrive as `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidJson,
    Unauthorized,
    KeyBanned,
    PlanUpgradeRequired,
    NotFound,
    MethodNotAllowed,
    DeployRequired,
    DomainAlreadyAttached,
    DomainTaken,
    DomainLimitReached,
    PayloadTooLarge,
    UnsupportedMediaType,
    InvalidHostname,
    ValidationFailed,
    UnsupportedRedirectStatus,
    InvalidRedirect,
    IdempotencyKeyReused,
    /// A request with this `Idempotency-Key` is still running; retry after `Retry-After`.
    IdempotencyKeyInUse,
    /// A list's `cursor` is malformed, forged, or from another list.
    InvalidCursor,
    /// A list's `limit` is outside 1 to 1000.
    InvalidLimit,
    /// The local control plane was asked under a name that is not the loopback.
    ForbiddenHost,
    /// The demo DNS provider refuses a CNAME beside other records at one name, or the reverse.
    RecordConflict,
    /// The demo DNS provider already has this zone.
    ZoneExists,
    RateLimited,
    Internal,
    ServiceUnavailable,
    #[serde(other)]
    Unknown,
}

/// The body of every error: `{"error": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorDetail {
    pub code: ErrorCode,
    /// One sentence for a person.
    pub message: String,
    /// With `rate_limited` and `key_banned`: seconds until a request may be sent again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
    /// With `rate_limited`: which window is exhausted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<RateWindow>,
    /// With `key_banned`: when the ban ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banned_until: Option<DateTime<Utc>>,
    /// With `validation_failed` and `invalid_hostname`: the field at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// With `domain_taken` when another account holds the name: the TXT record that proves
    /// the caller controls it. Once it is in DNS, adding the domain again moves it here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ownership_challenge: Option<OwnershipChallenge>,
    /// With `not_found` for a domain the project no longer has because the platform removed
    /// it: when and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removal: Option<DomainRemoval>,
}

/// The TXT record that proves control of a hostname another account holds. One per account
/// and hostname; the same record is offered again until it expires, then a new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OwnershipChallenge {
    /// Always `TXT`.
    #[serde(rename = "type")]
    pub record_type: String,
    /// Relative to the registrable domain, as DNS providers ask for it
    /// (`_domain-desk-challenge.shop` for `shop.example.com`).
    pub name: String,
    /// The whole name (`_domain-desk-challenge.shop.example.com`).
    pub fqdn: String,
    /// The TXT value, exactly (`domain-desk-challenge=…`).
    pub value: String,
    /// After this the record proves nothing; adding again offers a new one.
    pub expires_at: DateTime<Utc>,
}

/// Why a domain left a project without its owner removing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RemovalReason {
    /// Another account proved control of the name in DNS and took it over.
    OwnershipTransferred,
    #[serde(other)]
    Unknown,
}

/// A domain the platform removed from a project, as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DomainRemoval {
    pub hostname: String,
    pub reason: RemovalReason,
    /// One sentence for a person.
    pub message: String,
    pub removed_at: DateTime<Utc>,
}

/// The header on `204` to `DELETE /v1/projects/{project_id}/domains/{hostname}` when the removed
/// name still points at the platform: the record to delete at the DNS provider, so nobody else
/// can claim the name on the platform. A structured-field dictionary (RFC 8941):
/// `type="CNAME", name="shop", fqdn="shop.example.com", value="cname.<platform domain>"`.
pub const DANGLING_DNS_RECORD: &str = "dangling-dns-record";

/// A DNS record left pointing at the platform after its domain was removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DanglingRecord {
    /// `CNAME` for a subdomain, `ALIAS` for an apex.
    #[serde(rename = "type")]
    pub record_type: String,
    /// Relative to the registrable domain, as DNS providers show it (`@` for an apex).
    pub name: String,
    pub fqdn: String,
    /// The platform DNS target it points at.
    pub value: String,
}

impl DanglingRecord {
    /// The [`DANGLING_DNS_RECORD`] header value.
    pub fn to_header(&self) -> String {
        let quoted = |text: &str| text.replace('\\', "\\\\").replace('"', "\\\"");
        format!(
            "type=\"{}\", name=\"{}\", fqdn=\"{}\", value=\"{}\"",
            quoted(&self.record_type),
            quoted(&self.name),
            quoted(&self.fqdn),
            quoted(&self.value)
        )
    }

    /// Reads a [`DANGLING_DNS_RECORD`] header value; `None` when it is not one.
    pub fn from_header(value: &str) -> Option<Self> {
        let mut fields = BTreeMap::new();
        let mut rest = value.trim();
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=')?;
            let after = after.strip_prefix('"')?;
            let mut text = String::new();
            let mut chars = after.char_indices();
            let end = loop {
                match chars.next()? {
                    (_, '\\') => text.push(chars.next()?.1),
                    (at, '"') => break at,
                    (_, c) => text.push(c),
                }
            };
            fields.insert(key.trim().to_owned(), text);
            rest = after[end + 1..].trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        }
        Some(Self {
            record_type: fields.remove("type")?,
            name: fields.remove("name")?,
            fqdn: fields.remove("fqdn")?,
            value: fields.remove("value")?,
        })
    }
}

/// The project's domains the platform removed (newest first, at most 100).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DomainRemovalList {
    pub removed_domains: Vec<DomainRemoval>,
}

impl ErrorDetail {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            retry_after_seconds: None,
            window: None,
            banned_until: None,
            field: None,
            ownership_challenge: None,
            removal: None,
        }
    }
}

/// The name a unit enum value has on the wire (`pending_verification`, `CNAME`), for text
/// output that must match the JSON; empty for a value that does not serialise to a string.
pub fn wire_name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_the_json_strings() {
        assert_eq!(
            wire_name(&DomainStatus::PendingVerification),
            "pending_verification"
        );
        assert_eq!(wire_name(&DnsRecordType::Cname), "CNAME");
        assert_eq!(wire_name(&Plan::Enterprise), "enterprise");
        assert_eq!(wire_name(&3), "");
    }

    #[test]
    fn record_types_accept_aname_as_alias() {
        let t: DnsRecordType = serde_json::from_str("\"ANAME\"").unwrap();
        assert_eq!(t, DnsRecordType::Alias);
        assert_eq!(
            serde_json::to_string(&DnsRecordType::Cname).unwrap(),
            "\"CNAME\""
        );
    }

    #[test]
    fn the_dangling_record_header_round_trips() {
        let record = DanglingRecord {
            record_type: "CNAME".into(),
            name: "shop".into(),
            fqdn: "shop.example.com".into(),
            value: "cname.pages.local-platform.test".into(),
        };
        let header = record.to_header();
        assert_eq!(
            header,
            r#"type="CNAME", name="shop", fqdn="shop.example.com", value="cname.pages.local-platform.test""#
        );
        assert_eq!(DanglingRecord::from_header(&header), Some(record.clone()));
        let odd = DanglingRecord {
            value: r#"a"b\c"#.into(),
            ..record
        };
        assert_eq!(DanglingRecord::from_header(&odd.to_header()), Some(odd));
        assert_eq!(DanglingRecord::from_header("type=CNAME"), None);
        assert_eq!(DanglingRecord::from_header(r#"type="CNAME""#), None);
    }

    #[test]
    fn unknown_error_codes_do_not_break_the_client() {
        let body: ErrorBody =
            serde_json::from_str(r#"{"error":{"code":"brand_new","message":"x"}}"#).unwrap();
        assert_eq!(body.error.code, ErrorCode::Unknown);
    }

    #[test]
    fn a_new_certificate_error_code_does_not_break_a_listing() {
        let mut domain = serde_json::json!({
            "hostname": "shop.example.com", "unicode_hostname": "shop.example.com",
            "project_id": "prj_1", "apex": false, "role": "alias", "redirect": null,
            "status": "live",
            "dns_record": {"type": "CNAME", "name": "shop", "value": "cname.example.net", "ttl": 3600},
            "verification": {"checked_at": null, "error": null},
            "certificate": {"status": "issued", "started_at": null, "issued_at": null,
                            "expires_at": null, "renews_at": null,
                            "error": {"code": "ct_log_unavailable", "message": "Try later."}},
            "created_at": "2026-01-01T00:00:00Z"
        });
        let list: DomainList =
            serde_json::from_value(serde_json::json!({"domains": [domain.clone()]})).unwrap();
        let error = list.domains[0].certificate.error.as_ref().unwrap();
        assert_eq!(error.code, CertificateErrorCode::Unknown);
        assert_eq!(error.message, "Try later.");
        // A validation method a newer platform adds does not break the listing either.
        domain["certificate"]["validation"] = serde_json::json!({"method": "tls_alpn", "dns_record": {
                "type": "CNAME", "name": "_acme-challenge.shop",
                "fqdn": "_acme-challenge.shop.example.com",
                "value": "shop.example.com.acme.example.net"}});
        let newer: Domain = serde_json::from_value(domain.clone()).unwrap();
        assert_eq!(
            newer.certificate.validation.method,
            Some(ValidationMethod::Unknown)
        );
        domain["certificate"]["error"]["code"] = "delegation_missing".into();
        let known: Domain = serde_json::from_value(domain).unwrap();
        assert_eq!(
            known.certificate.error.unwrap().code,
            CertificateErrorCode::DelegationMissing
        );
    }

    #[test]
    fn error_extras_are_left_out_when_empty() {
        let body = ErrorBody {
            error: ErrorDetail::new(ErrorCode::NotFound, "No such project."),
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"error": {"code": "not_found", "message": "No such project."}})
        );
    }
}

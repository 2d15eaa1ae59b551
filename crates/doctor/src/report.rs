//! The doctor's report: one structure for the app's Diagnose panel, the JSON output and the
//! Markdown that pastes into a support ticket, so all three always say the same thing.

use chrono::{DateTime, Utc};
use domain_desk_api::caa::CaaDecision;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::clock::RunClock;
use crate::dns::{AnswerStatus, DnsRecord};

/// The result of diagnosing one or more hostnames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Report {
    /// When the run started, by [`Report::clock`].
    pub generated_at: DateTime<Utc>,
    /// The clock every time in the report was judged by (signature validity, certificate
    /// expiry, this report's timestamp).
    #[serde(default)]
    pub clock: RunClock,
    /// The platform DNS target customers must point their names at.
    pub target: String,
    /// What CAA records must name for the platform's CA to issue.
    pub ca_identity: String,
    /// True when only the servers the caller named were asked.
    pub offline: bool,
    /// The servers asked for every hostname (authoritative servers found per hostname are
    /// listed in each hostname's views).
    pub sources: Vec<Source>,
    pub hosts: Vec<HostReport>,
    pub errors: usize,
    pub warnings: usize,
    pub elapsed_ms: u64,
}

impl Report {
    /// True when any finding is an error: the exit status of the command line.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }
}

/// Who a server is to the doctor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// Named by the caller (`--resolver`).
    Given,
    /// From the system's resolver configuration.
    System,
    /// A public resolver.
    Public,
    /// One of the zone's own nameservers, asked without recursion.
    Authoritative,
}

/// A DNS server the doctor asks.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub struct Source {
    /// For a person: `Cloudflare 1.1.1.1`, `ns1.example.com (authoritative)`.
    pub label: String,
    /// `address:port`.
    pub address: String,
    pub kind: SourceKind,
    /// Whether questions to it ask for recursion.
    pub recursive: bool,
}

/// Everything found about one hostname.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HostReport {
    /// As the caller gave it.
    pub input: String,
    /// Lowercase A-label form (the input, trimmed, when it is not a valid hostname).
    pub hostname: String,
    pub unicode_hostname: String,
    /// Apex or subdomain, and which record it needs; absent when the name is invalid.
    pub name: Option<NameKind>,
    /// The record the platform asks for, as the DNS provider asks for it.
    pub expected_record: Option<RecordChange>,
    /// The zone's nameservers (NS records).
    pub nameservers: Vec<String>,
    /// The DNS provider those nameservers belong to, when the doctor knows it.
    #[serde(default)]
    pub provider: Option<ProviderMatch>,
    /// What each server says the name resolves to.
    pub views: Vec<SourceView>,
    pub caa: Option<CaaClimb>,
    /// The connection to the edge the name is judged by (the first address).
    pub tls: Option<TlsProbe>,
    /// One connection per address the name reaches, when it reaches more than one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tls_addresses: Vec<TlsProbe>,
    /// The zone's delegation from its parent, and what each of its nameservers said; absent
    /// in a run that asks only the servers it was given.
    #[serde(default)]
    pub delegation: Option<Delegation>,
    /// Sorted: errors first.
    pub findings: Vec<Finding>,
    pub elapsed_ms: u64,
}

impl HostReport {
    pub fn worst_severity(&self) -> Severity {
        self.findings
            .iter()
            .map(|finding| finding.severity)
            .min()
            .unwrap_or(Severity::Ok)
    }
}

/// What kind of name it is, and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NameKind {
    /// True when the name needs an ALIAS/ANAME record instead of a CNAME.
    pub apex: bool,
    /// The Public Suffix List says the name is a registrable domain (`example.co.uk`).
    pub registrable_apex: bool,
    /// The name has its own SOA: it is the apex of a DNS zone (possibly a delegated one).
    /// Absent when no server answered.
    pub zone_apex: Option<bool>,
    pub public_suffix: String,
    pub registrable_domain: String,
    /// The zone the name lives in, from the SOA servers return (the registrable domain when
    /// no server said).
    pub zone: String,
    /// The name relative to its zone, as DNS providers ask for it (`@` for the apex).
    pub relative_name: String,
}

/// One server's view of the hostname's addresses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SourceView {
    pub source: Source,
    pub status: AnswerStatus,
    pub error: Option<String>,
    /// The A and AAAA answers, CNAME chain included.
    pub records: Vec<DnsRecord>,
    /// Seconds until this server's cached answer expires (the largest TTL it returned, or
    /// its negative-caching time for a missing name).
    pub cache_expires_in_seconds: Option<u32>,
    /// Whether it says the same as the zone's authoritative answer about the name itself (its
    /// CNAME, or its own addresses; the chain beyond a CNAME is not compared); absent when
    /// that is unknown.
    pub agrees: Option<bool>,
    /// The answer link by link: the name, each CNAME, and how the chain ends.
    #[serde(default)]
    pub chain: Option<AnswerChain>,
    pub elapsed_ms: u64,
}

/// An answer as the chain it is: `name → CNAME → … → addresses`, or the response code at the
/// end, so that a "no such name" stays on the link it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AnswerChain {
    /// Each CNAME on the way, in order, starting at the name asked.
    pub links: Vec<ChainLink>,
    pub end: ChainEnd,
}

/// One CNAME: `name` is an alias of `target`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChainLink {
    pub name: String,
    pub target: String,
    pub ttl: u32,
}

/// How a chain ends, at its last name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChainEnd {
    /// The last name's A and AAAA records.
    Addresses {
        name: String,
        addresses: Vec<String>,
    },
    /// NXDOMAIN at the last name.
    NoSuchName { name: String },
    /// The last name exists but has no address.
    NoAddress { name: String },
    /// An authoritative server stops at a CNAME out of its zone: the rest is another zone's.
    OutOfZone { name: String },
    /// No answer: the server failed (its status says how).
    Failed { name: String, status: AnswerStatus },
}

impl ChainEnd {
    /// The name the chain ends at.
    pub fn name(&self) -> &str {
        match self {
            ChainEnd::Addresses { name, .. }
            | ChainEnd::NoSuchName { name }
            | ChainEnd::NoAddress { name }
            | ChainEnd::OutOfZone { name }
            | ChainEnd::Failed { name, .. } => name,
        }
    }
}

/// The zone's delegation as its parent (the registry) publishes it, and each nameserver
/// asked directly, without recursion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Delegation {
    pub zone: String,
    pub parent_zone: String,
    /// The parent's servers that were asked for the delegation (labels).
    pub parent_servers: Vec<String>,
    /// The NS set the parent publishes, sorted; empty when no parent server answered.
    pub registry_nameservers: Vec<String>,
    /// The addresses the parent gives for nameservers inside the zone (glue).
    pub glue: Vec<DnsRecord>,
    /// The NS set the zone's own servers publish, sorted.
    pub zone_nameservers: Vec<String>,
    /// Every nameserver of either set, sorted by name.
    pub nameservers: Vec<NameserverCheck>,
}

/// One nameserver of the zone, asked directly for the zone's SOA.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NameserverCheck {
    pub name: String,
    /// `address:port` asked; absent when the name has no address.
    pub address: Option<String>,
    /// Listed by the parent (the registry).
    pub in_registry: bool,
    /// Listed by the zone's own NS records.
    pub in_zone: bool,
    pub state: NameserverState,
    /// What it answered, for a person: `authoritative, serial 7`, `REFUSED`, `no answer over
    /// UDP or TCP`.
    pub answered: String,
    /// The zone's SOA serial it serves, when it serves the zone.
    pub serial: Option<u32>,
    /// The SOA's primary server name, when it serves the zone.
    pub soa_primary: Option<String>,
    /// The DNS provider the name belongs to, when the doctor knows it.
    pub provider: Option<String>,
}

/// Whether a nameserver serves the zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NameserverState {
    /// It answers authoritatively (AA) with the zone's SOA.
    Serves,
    /// It answers, but not for this zone: REFUSED, SERVFAIL, no AA bit, or a referral.
    Lame,
    /// Silence over UDP and TCP.
    Silent,
    /// Its name has no address.
    NoAddress,
}

/// The RFC 8659 CAA climb from the name towards the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CaaClimb {
    /// Server asked.
    pub server: String,
    /// Each name asked, in order, up to the one that decided.
    pub steps: Vec<CaaStep>,
    /// The name whose CAA records decide (`None` when no CAA exists on the climb).
    pub deciding_name: Option<String>,
    /// The verdict; absent when a lookup on the climb failed (a CA then refuses to issue).
    pub decision: Option<CaaDecision>,
}

/// One name on the CAA climb.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CaaStep {
    pub name: String,
    pub status: AnswerStatus,
    /// CAA records found for the name (after following its CNAME, when it has one).
    pub records: Vec<DnsRecord>,
    /// Where the name's CNAME chain led, when it has one.
    pub via_cname: Option<String>,
    pub note: Option<String>,
}

/// A TLS connection to the edge that serves the hostname.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TlsProbe {
    /// `address:port` connected to.
    pub address: String,
    pub connected: bool,
    pub error: Option<String>,
    pub certificate: Option<CertificateInfo>,
    /// The answer to `GET /` over the connection.
    pub http_status: Option<u16>,
    pub location: Option<String>,
}

/// The certificate the edge served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CertificateInfo {
    pub subject: String,
    pub issuer: String,
    pub names: Vec<String>,
    pub not_before: Option<DateTime<Utc>>,
    pub not_after: Option<DateTime<Utc>>,
    /// Whether one of the certificate's names covers the hostname.
    pub covers_hostname: bool,
    /// Whether it chains to a trusted root (the public roots, plus any extra given).
    pub trusted: bool,
    pub trust_error: Option<String>,
}

/// How bad a finding is. Ordered worst first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Verification or the certificate will fail until it is fixed.
    Error,
    /// Probably fine in time, or worth a look.
    Warning,
    /// Context.
    Info,
    /// A check that passed.
    Ok,
}

/// Stable identifiers of findings, for the UI and for scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FindingCode {
    InvalidHostname,
    NameKind,
    DoubledZoneName,
    DomainNotRegistered,
    NotServed,
    RecordMissing,
    CnameMismatch,
    CnameTargetDoubled,
    ConflictingRecord,
    CnameAtApex,
    ApexAddressMismatch,
    RecordCorrect,
    TargetUnresolvable,
    PropagationPending,
    ServerTimeout,
    ServerRefused,
    Servfail,
    DnssecFailure,
    NoServerAnswered,
    CaaForbidsIssuance,
    CaaLookupFailed,
    CaaAllowsIssuance,
    TlsUnreachable,
    TlsCertificateOk,
    TlsNameMismatch,
    TlsExpired,
    TlsExpiringSoon,
    TlsUntrusted,
    Redirect,
    ZoneAppended,
    ProxiedByCloudflare,
    AaaaMismatch,
    WildcardShadow,
    DanglingCname,
    DnssecValid,
    DnssecUnsignedOk,
    DnssecBogus,
    /// A name the platform already serves over HTTPS whose DNS would make the CA refuse its
    /// next certificate: the renewal will fail.
    RenewalAtRisk,
    /// The parent's NS set and the zone's own differ.
    DelegationMismatch,
    /// A nameserver of the zone that does not serve it.
    LameNameserver,
    /// The zone's servers give different answers for the name.
    NameserversDisagree,
    /// A resolver keeps a negative answer for a name the zone's servers answer.
    NegativeCached,
    /// One of the addresses the name reaches serves the wrong certificate, or none.
    TlsAddressMismatch,
    /// A challenge record (ownership TXT, `_acme-challenge`) at the wrong name.
    ChallengeAtWrongName,
    /// The fix would remove other records at the name (mail, verification TXT, CAA).
    RecordsAtName,
    /// The name is served today by another host: its records point there, not at the
    /// platform. Not a mistake to fix now: switch once the certificate is ready.
    LiveElsewhere,
    /// The `_acme-challenge` CNAME is there with the platform's exact value: the certificate
    /// can be issued by DNS validation before the switch (and a wildcard's at all).
    AcmeDelegationCorrect,
    /// The `_acme-challenge` CNAME is needed (a wildcard, a name live elsewhere) and missing.
    AcmeDelegationMissing,
    /// The `_acme-challenge` CNAME names another target than the platform's.
    AcmeDelegationWrong,
    /// A wildcard's routing, checked at a label no one created under it.
    WildcardProbe,
}

/// One thing found, with its evidence and the fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Finding {
    pub code: FindingCode,
    pub severity: Severity,
    /// One line for a person.
    pub title: String,
    /// One or two sentences: what is wrong and why it matters.
    pub detail: String,
    pub evidence: Vec<Evidence>,
    pub fix: Option<Fix>,
    /// When a cached answer this finding is about expires at the server that holds it
    /// (RFC 2308 for a negative answer): the time to wait until.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_until: Option<DateTime<Utc>>,
}

/// What a server said, as proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Evidence {
    /// Who said it: a source label.
    pub server: String,
    /// `name TYPE`.
    pub question: String,
    pub status: AnswerStatus,
    pub records: Vec<DnsRecord>,
    pub note: Option<String>,
}

/// What to change at the DNS provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Fix {
    pub summary: String,
    pub changes: Vec<RecordChange>,
    /// The changes as clicks at the zone's DNS provider, when the doctor knows it: which
    /// field takes what, and any switch to flip (Cloudflare's proxy).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeAction {
    Add,
    Remove,
    Keep,
}

/// A record as a DNS provider's form asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RecordChange {
    pub action: ChangeAction,
    pub zone: String,
    /// Relative to the zone: `shop`, `a.b`, or `@` for the apex.
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: String,
    pub value: String,
    pub ttl: Option<u32>,
}

// The provider types are the report's vocabulary (the table and its detection are in
// `crate::providers`, which re-exports them).

/// What a provider's record form takes in its Name field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordNameField {
    /// Only the part before the zone (`shop`, `@`); the zone is appended to whatever is typed,
    /// so a full hostname becomes `shop.example.com.example.com`.
    Relative,
    /// `shop` or `shop.example.com` alike.
    RelativeOrFull,
}

/// A DNS provider as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DnsProvider {
    /// Stable identifier (`cloudflare`, `route53` …).
    pub id: String,
    pub name: String,
    pub record_name: RecordNameField,
    /// The record type it offers at the apex for a hostname target (`ALIAS`, `ANAME`, or
    /// `CNAME` with flattening); `None` when it has none.
    pub apex_alias: Option<String>,
    /// What it offers at the apex, in a few words.
    pub apex_alias_note: String,
    /// Its own web redirect feature, if any.
    pub apex_redirect: Option<String>,
    /// The switch that puts its proxy in front of a record, if it has one.
    pub proxy: Option<String>,
}

/// The provider a zone's nameservers point to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProviderMatch {
    pub provider: DnsProvider,
    /// The nameservers that matched its patterns.
    pub matched_nameservers: Vec<String>,
}

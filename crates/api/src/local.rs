//! The local service's control plane under `/_local`: not part of the platform's API, but
//! shared so the desktop app's Demo DNS panel and the tests speak it with types.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The zones every local service's demo DNS provider is seeded with, in the order it lists
/// them: here so that a control-plane client can name them without the service.
pub const DEMO_ZONES: [&str; 4] = ["example.com", "example.net", "example.org", "example.co.uk"];

/// `GET /_local/info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LocalInfo {
    /// `host:port` of the HTTP API.
    pub api: String,
    /// `host:port` of the DNS server (UDP and TCP); null until it runs.
    pub dns: Option<String>,
    /// `host:port` (loopback, UDP and TCP) of the platform's resolver view: the zones as
    /// the verifier and the CA see them, after the propagation delay and through the
    /// resolver's negative cache. Null until it runs, and from a service that does not say.
    #[serde(default)]
    pub platform_resolver: Option<String>,
    pub edge_https: Option<String>,
    pub edge_http: Option<String>,
    pub platform_domain: String,
    pub platform_dns_target: String,
    /// What CAA records must name for the local CA to issue.
    pub ca_identity: String,
    pub ca_certificate_pem: Option<String>,
    /// One API key per plan: `free`, `pro`, `business`, `enterprise`.
    pub demo_keys: BTreeMap<String, String>,
    /// With `serve --sign-zones`: the key that signs every zone, as DNSKEY records in
    /// zone-file form (one per zone), for `domain-desk doctor --trust-anchor`. Null when the
    /// zones are not signed.
    #[serde(default)]
    pub dnssec_trust_anchor: Option<String>,
    /// How long, in seconds of the service's clock, the platform's resolver keeps serving a
    /// zone's old answers after a change: what Verify and the CA see lags the zone by this
    /// much. Null from a service that does not say.
    #[serde(default)]
    pub propagation_delay_seconds: Option<u64>,
    /// The zone the platform's DNS server serves for DNS validation (`acme.<platform
    /// domain>`): every `certificate.validation.dns_record.value` is a name under it, where the
    /// CA publishes its DNS-01 TXT token. Null from a service that does not say.
    #[serde(default)]
    pub validation_zone: Option<String>,
}

/// `PUT /_local/dns/{zone}/dnssec` (with `serve --sign-zones`): the signatures a zone gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ZoneDnssec {
    /// `valid`, or `expired`: signatures that ended a day ago, so validators call the zone
    /// bogus (a DNSSEC problem for the demo).
    pub signatures: ZoneSignatures,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ZoneSignatures {
    Valid,
    Expired,
}

/// `GET|PUT /_local/clock`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ClockState {
    pub now: DateTime<Utc>,
    /// 0 freezes the clock, 1 is real time, 60 makes a minute pass in a second.
    pub speed: f64,
}

/// `POST /_local/clock/advance`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ClockAdvance {
    pub seconds: f64,
}

/// `GET|PUT /_local/faults`: applied to `/v1` only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Faults {
    /// Added to every `/v1` answer, at most a minute.
    #[serde(default)]
    #[schema(maximum = 60_000)]
    pub latency_ms: u64,
    /// Share of requests answered 503, 0 to 1.
    #[serde(default)]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub error_rate: f64,
    /// Share of connections closed without an answer, 0 to 1.
    #[serde(default)]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub drop_rate: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum ZoneRecordType {
    A,
    #[serde(rename = "AAAA")]
    Aaaa,
    #[serde(rename = "CNAME")]
    Cname,
    #[serde(rename = "ALIAS", alias = "ANAME")]
    Alias,
    #[serde(rename = "CAA")]
    Caa,
    #[serde(rename = "TXT")]
    Txt,
}

impl ZoneRecordType {
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneRecordType::A => "A",
            ZoneRecordType::Aaaa => "AAAA",
            ZoneRecordType::Cname => "CNAME",
            ZoneRecordType::Alias => "ALIAS",
            ZoneRecordType::Caa => "CAA",
            ZoneRecordType::Txt => "TXT",
        }
    }
}

/// A record in a demo zone, as the demo DNS provider lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ZoneRecord {
    pub id: String,
    /// Relative to the zone: `shop`, or `@` for the apex.
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: ZoneRecordType,
    /// Presentation form: an address, a hostname, `0 issue "letsencrypt.org"`, text.
    pub value: String,
    pub ttl: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NewZoneRecord {
    /// Relative to the zone (`shop`, `@` for the apex), or the whole name. A wildcard record
    /// (RFC 4592) has a single `*` as its leftmost label (`*`, `*.shop`): it answers for names
    /// under its parent that have no records of their own.
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: ZoneRecordType,
    pub value: String,
    #[serde(default)]
    pub ttl: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ZoneRecordList {
    pub zone: String,
    pub records: Vec<ZoneRecord>,
    /// With `serve --sign-zones`: the signatures the zone gets now; absent when the service
    /// does not sign its zones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signatures: Option<ZoneSignatures>,
}

/// `GET /_local/dns`: the demo DNS provider's zones, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ZoneList {
    pub zones: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NewZone {
    pub zone: String,
}

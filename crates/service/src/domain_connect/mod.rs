//! The local DNS provider speaks Domain Connect (draft-ietf-dconn-domainconnect), so that the
//! step where customers fail — creating the record at their DNS provider — can be done for
//! them, and tried offline: `_domainconnect` TXT at each zone's apex names this service's API,
//! which answers the settings document, the template support query, and the synchronous
//! flow's consent page; applying writes the template's records into the zones the DNS server
//! answers from, then sends the browser back to `redirect_uri`.
//!
//! This module decides what a request may do ([`check_request`]) and does it ([`apply`]);
//! `http::domain_connect` turns the outcome into pages and redirects. Templates are the standard's
//! JSON: the platform's own (bundled under `data/domainconnect`) and any the settings add.

mod refusal;
pub mod signature;
pub mod template;

use std::collections::HashMap;

use axum::http::Uri;
use chrono::{DateTime, Utc};
use domain_desk_api::domain_connect::ProviderSettings;
use domain_desk_api::local::{NewZoneRecord, ZoneRecord, ZoneRecordType};
use domain_desk_api::txt::txt_text;
use hickory_proto::rr::{RData, RecordType};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::dns::{Resolution, ZoneStore};
use crate::{Error, Result};
pub use refusal::Refusal;
pub use template::{PlannedRecord, Template};

/// This DNS provider's identity in Domain Connect.
pub const PROVIDER_ID: &str = "dns.local-platform.test";
/// Its name for people: the one the window gives the demo's DNS (its Demo DNS button and
/// dialog, and the doctor's table of providers), so the demo's provider has one name.
pub const PROVIDER_NAME: &str = "Demo DNS";

/// The platform's own templates, as bundled.
const BUNDLED: &[&str] = &[
    include_str!("../../data/domainconnect/local-platform.test.custom-domain.json"),
    include_str!("../../data/domainconnect/local-platform.test.custom-domain-apex.json"),
];

/// Query parameters of the synchronous flow that are not template variables.
const RESERVED: &[&str] = &[
    "domain",
    "host",
    "redirect_uri",
    "state",
    "sig",
    "key",
    "providername",
    "servicename",
    "groupid",
    "force",
];

/// The templates this provider supports and the key that binds a consent form to its request.
pub struct Provider {
    templates: HashMap<(String, String), Template>,
    consent_key: [u8; 32],
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("templates", &self.templates.len())
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// The bundled templates (writing `platform_target`) and `extra` ones (JSON).
    pub fn new(platform_target: &str, extra: &[String]) -> Result<Self> {
        let mut templates = HashMap::new();
        for json in BUNDLED
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            let template = Template::parse(json, platform_target)
                .map_err(|error| Error::Internal(format!("a Domain Connect template: {error}")))?;
            templates.insert(
                (
                    template.provider_id.to_ascii_lowercase(),
                    template.service_id.to_ascii_lowercase(),
                ),
                template,
            );
        }
        Ok(Self {
            templates,
            consent_key: rand::random(),
        })
    }

    pub fn template(&self, provider_id: &str, service_id: &str) -> Option<&Template> {
        self.templates.get(&(
            provider_id.to_ascii_lowercase(),
            service_id.to_ascii_lowercase(),
        ))
    }

    fn mac(&self, query: &str) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.consent_key)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(query.as_bytes());
        mac
    }

    /// The token the consent form carries: only a page this service served for exactly this
    /// request can apply it.
    pub fn consent_token(&self, query: &str) -> String {
        crate::store::idempotency::hex(&self.mac(query).finalize().into_bytes())
    }

    pub fn consent_token_matches(&self, query: &str, token: &str) -> bool {
        let Some(bytes) = decode_hex(token) else {
            return false;
        };
        self.mac(query).verify_slice(&bytes).is_ok()
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

/// The settings document for one of the zones this provider serves.
pub fn settings(api_base: &str, platform_domain: &str) -> ProviderSettings {
    ProviderSettings {
        provider_id: PROVIDER_ID.to_owned(),
        provider_name: PROVIDER_NAME.to_owned(),
        provider_display_name: Some(PROVIDER_NAME.to_owned()),
        url_sync_ux: api_base.to_owned(),
        url_api: api_base.to_owned(),
        width: Some(750),
        height: Some(750),
        name_servers: vec![format!("ns1.{platform_domain}")],
    }
}

/// A synchronous request that may be applied, with everything the consent page shows.
#[derive(Debug, Clone)]
pub struct CheckedRequest {
    pub provider_name: String,
    pub service_name: String,
    pub zone: String,
    /// The name the template is applied to (`host.zone`, or the zone).
    pub fqdn: String,
    pub add: Vec<PlannedRecord>,
    /// Records that would conflict with the new ones, deleted first.
    pub remove: Vec<ZoneRecord>,
    pub redirect_uri: Option<String>,
    pub state: Option<String>,
    /// True when the request carried a signature that verified.
    pub signed: bool,
}

/// Checks a synchronous apply request (`raw_query` as sent, `pairs` decoded) against the
/// template and the zones: the template exists, the zone is here, the signature verifies
/// when the template asks for one, the redirect goes where the template allows.
pub fn check_request(
    provider: &Provider,
    zones: &ZoneStore,
    provider_id: &str,
    service_id: &str,
    raw_query: &str,
    pairs: &[(String, String)],
) -> std::result::Result<CheckedRequest, Refusal> {
    let template = provider.template(provider_id, service_id).ok_or_else(|| {
        Refusal::not_supported(format!(
            "The local DNS provider does not support the template {provider_id}/{service_id}."
        ))
    })?;
    if template.sync_block {
        return Err(Refusal::bad_request(
            "This template may only be applied through the asynchronous flow.",
        ));
    }
    let param = |name: &str| {
        pairs
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim().to_owned())
    };
    let zone = param("domain")
        .map(|domain| domain.trim_end_matches('.').to_ascii_lowercase())
        .filter(|domain| !domain.is_empty())
        .ok_or_else(|| Refusal::bad_request("The request names no domain."))?;
    if !zones.zone_names().contains(&zone) {
        return Err(Refusal::not_supported(format!(
            "The local DNS provider holds no zone {zone}."
        )));
    }
    let host = param("host")
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let host_ok = host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    if !host.is_empty() && !host_ok {
        return Err(Refusal::bad_request(format!(
            "The host {host:?} is not a name under {zone}."
        )));
    }
    let signed = match &template.sync_pub_key_domain {
        Some(key_domain) => {
            check_signature(zones, key_domain, raw_query, &param("sig"), &param("key"))?;
            true
        }
        None => false,
    };
    let redirect_uri = param("redirect_uri").filter(|uri| !uri.is_empty());
    if let Some(uri) = &redirect_uri {
        check_redirect(template, uri, signed)?;
    }
    let variables: HashMap<String, String> = pairs
        .iter()
        .map(|(key, value)| (key.to_ascii_lowercase(), value.clone()))
        .filter(|(key, _)| !RESERVED.contains(&key.as_str()))
        .collect();
    let planned = template.plan(&zone, &host, &variables)?;
    let existing = zones
        .records(&zone)
        .map_err(|error| Refusal::not_supported(error.to_string()))?;
    let mut add = Vec::new();
    let mut remove: Vec<ZoneRecord> = Vec::new();
    for record in planned {
        let same = |other: &ZoneRecord| {
            other.name == record.name
                && other.record_type == record.record_type
                && other.value.eq_ignore_ascii_case(&record.value)
        };
        if existing.iter().any(same) {
            continue;
        }
        for other in existing.iter().filter(|other| conflicts(&record, other)) {
            if !remove.iter().any(|removed| removed.id == other.id) {
                remove.push(other.clone());
            }
        }
        add.push(record);
    }
    Ok(CheckedRequest {
        provider_name: template.provider_name.clone(),
        service_name: template.service_name.clone(),
        fqdn: if host.is_empty() {
            zone.clone()
        } else {
            format!("{host}.{zone}")
        },
        zone,
        add,
        remove,
        redirect_uri,
        state: param("state"),
        signed,
    })
}

/// Whether `other` must go for `new` to be written: a CNAME stands alone; an address or
/// ALIAS record cannot stand beside a CNAME, and an ALIAS replaces the apex's addresses.
fn conflicts(new: &PlannedRecord, other: &ZoneRecord) -> bool {
    if other.name != new.name {
        return false;
    }
    match new.record_type {
        ZoneRecordType::Cname => true,
        ZoneRecordType::A | ZoneRecordType::Aaaa => other.record_type == ZoneRecordType::Cname,
        ZoneRecordType::Alias => matches!(
            other.record_type,
            ZoneRecordType::Cname
                | ZoneRecordType::A
                | ZoneRecordType::Aaaa
                | ZoneRecordType::Alias
        ),
        ZoneRecordType::Txt | ZoneRecordType::Caa => other.record_type == ZoneRecordType::Cname,
    }
}

fn check_signature(
    zones: &ZoneStore,
    key_domain: &str,
    raw_query: &str,
    sig: &Option<String>,
    key: &Option<String>,
) -> std::result::Result<(), Refusal> {
    let (Some(sig), Some(key)) = (sig.as_deref(), key.as_deref()) else {
        return Err(Refusal::forbidden(
            "The template asks for signed requests, and this request carries no signature (sig and key).",
        ));
    };
    let key_ok = !key.is_empty()
        && key.len() <= 63
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !key_ok {
        return Err(Refusal::forbidden(format!(
            "The key name {key:?} is not a DNS label."
        )));
    }
    let name = format!("{key}.{key_domain}");
    let values: Vec<String> = match zones.resolve(&name, RecordType::TXT, None) {
        Ok(Resolution::Answer { answers, .. }) => answers
            .iter()
            .filter_map(|record| match &record.data {
                RData::TXT(txt) => Some(txt_text(txt.txt_data.iter())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let public_key = signature::public_key_from_txt(&values).ok_or_else(|| {
        Refusal::forbidden(format!(
            "No public key is published at {name}, so the signature cannot be checked."
        ))
    })?;
    signature::verify(&signature::signed_message(raw_query), sig, &public_key)
        .map_err(|why| Refusal::forbidden(format!("The signature was refused: {why}.")))
}

fn check_redirect(
    template: &Template,
    uri: &str,
    signed: bool,
) -> std::result::Result<(), Refusal> {
    let parsed: Uri = uri
        .parse()
        .map_err(|_| Refusal::bad_request("The redirect_uri is not a URL."))?;
    if !matches!(parsed.scheme_str(), Some("http" | "https")) {
        return Err(Refusal::bad_request(
            "The redirect_uri must be an http or https URL.",
        ));
    }
    let host = parsed
        .host()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    match &template.sync_redirect_domain {
        Some(allowed) => {
            let fits = allowed.split(',').map(str::trim).any(|domain| {
                let domain = domain.to_ascii_lowercase();
                !domain.is_empty() && (host == domain || host.ends_with(&format!(".{domain}")))
            });
            if fits {
                Ok(())
            } else {
                Err(Refusal::bad_request(format!(
                    "The template allows redirects only to {allowed}, not to {host}."
                )))
            }
        }
        None if signed => Ok(()),
        None => Err(Refusal::bad_request(
            "The template names no redirect domain, so only a signed request may redirect.",
        )),
    }
}

/// Writes a checked request into the zones: conflicting records out, the new ones in.
pub fn apply(zones: &ZoneStore, checked: &CheckedRequest, now: DateTime<Utc>) -> Result<()> {
    for record in &checked.remove {
        zones.delete_record(&checked.zone, &record.id, now)?;
    }
    for record in &checked.add {
        zones.add_record(
            &checked.zone,
            &NewZoneRecord {
                name: record.name.clone(),
                record_type: record.record_type,
                value: record.value.clone(),
                ttl: Some(record.ttl),
            },
            now,
        )?;
    }
    tracing::info!(zone = %checked.zone, added = checked.add.len(), removed = checked.remove.len(), "Domain Connect template applied");
    Ok(())
}

/// `uri` with `extra` query parameters appended (values percent-encoded).
pub fn with_query(uri: &str, extra: &[(&str, &str)]) -> String {
    let mut out = uri.to_owned();
    for (name, value) in extra {
        out.push(if out.contains('?') { '&' } else { '?' });
        out.push_str(name);
        out.push('=');
        for byte in value.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

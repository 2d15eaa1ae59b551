//! Domain Connect templates (the standard's JSON format) and what applying one writes.
//!
//! Only the fields the local DNS provider acts on are read; the rest of a template is kept
//! out of the way. Record types the demo zones cannot hold (MX, SRV, NS, SPFM, redirects) make
//! a template unsupported rather than half-applied.

use std::collections::HashMap;

use domain_desk_api::local::ZoneRecordType;
use serde::Deserialize;

use super::refusal::Refusal;

/// The default platform DNS target written in the bundled templates.
pub const BUNDLED_TARGET: &str = "cname.pages.local-platform.test";

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Template {
    pub provider_id: String,
    pub provider_name: String,
    pub service_id: String,
    pub service_name: String,
    #[serde(default)]
    pub version: Option<i64>,
    #[serde(default)]
    pub sync_pub_key_domain: Option<String>,
    #[serde(default)]
    pub sync_redirect_domain: Option<String>,
    #[serde(default)]
    pub host_required: bool,
    #[serde(default)]
    pub sync_block: bool,
    pub records: Vec<TemplateRecord>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRecord {
    #[serde(rename = "type")]
    pub record_type: String,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub points_to: Option<String>,
    #[serde(default)]
    pub data: Option<String>,
    #[serde(default)]
    pub ttl: Option<serde_json::Value>,
}

/// One record an apply writes, relative to its zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRecord {
    pub record_type: ZoneRecordType,
    /// Relative to the zone, `@` for its apex.
    pub name: String,
    pub value: String,
    pub ttl: u32,
}

impl Template {
    /// Parses a template; `platform_target` replaces the bundled default target.
    pub fn parse(json: &str, platform_target: &str) -> Result<Self, serde_json::Error> {
        let mut template: Template = serde_json::from_str(json)?;
        for record in &mut template.records {
            if record.points_to.as_deref() == Some(BUNDLED_TARGET) {
                record.points_to = Some(platform_target.to_owned());
            }
        }
        Ok(template)
    }

    /// The records applying this template to `domain` (a zone) at `host` writes, with
    /// `%variable%` values from `variables` (lowercase names) and the built-ins `%domain%`,
    /// `%host%` and `%fqdn%`.
    pub fn plan(
        &self,
        domain: &str,
        host: &str,
        variables: &HashMap<String, String>,
    ) -> Result<Vec<PlannedRecord>, Refusal> {
        if self.host_required && host.is_empty() {
            return Err(Refusal::bad_request(format!(
                "The template {} needs a host (a subdomain of {domain}); the request has none.",
                self.service_id
            )));
        }
        let fqdn = if host.is_empty() {
            domain.to_owned()
        } else {
            format!("{host}.{domain}")
        };
        let substitute = |text: &str| -> Result<String, Refusal> {
            let mut out = String::new();
            let mut rest = text;
            while let Some(start) = rest.find('%') {
                out.push_str(&rest[..start]);
                let after = &rest[start + 1..];
                let end = after.find('%').ok_or_else(|| {
                    Refusal::bad_request(format!(
                        "The template has an unclosed variable in {text:?}."
                    ))
                })?;
                let name = after[..end].to_ascii_lowercase();
                let value = match name.as_str() {
                    "domain" => domain.to_owned(),
                    "host" => host.to_owned(),
                    "fqdn" => fqdn.clone(),
                    _ => variables.get(&name).cloned().ok_or_else(|| {
                        Refusal::bad_request(format!(
                            "The request lacks the template variable {name}."
                        ))
                    })?,
                };
                out.push_str(&value);
                rest = &after[end + 1..];
            }
            out.push_str(rest);
            Ok(out)
        };
        // A record's host is relative to the applied name (`host.domain`); `@` is that name.
        let relative = |record_host: &str| -> Result<String, Refusal> {
            let record_host = substitute(record_host)?;
            let record_host = record_host.trim().trim_end_matches('.');
            let under_host = match (record_host, host.is_empty()) {
                ("" | "@", true) => "@".to_owned(),
                ("" | "@", false) => host.to_owned(),
                (name, true) => name.to_owned(),
                (name, false) => format!("{name}.{host}"),
            };
            Ok(under_host.to_ascii_lowercase())
        };
        self.records
            .iter()
            .map(|record| {
                let ttl = match &record.ttl {
                    Some(serde_json::Value::Number(n)) => n.as_u64(),
                    Some(serde_json::Value::String(text)) => substitute(text)?.parse().ok(),
                    _ => Some(3600),
                }
                .and_then(|ttl| u32::try_from(ttl).ok())
                .ok_or_else(|| {
                    Refusal::bad_request("A record of the template has no usable TTL.")
                })?;
                let points_to = || {
                    record
                        .points_to
                        .as_deref()
                        .map(substitute)
                        .transpose()?
                        .map(|value| value.trim_end_matches('.').to_ascii_lowercase())
                        .ok_or_else(|| {
                            Refusal::bad_request("A record of the template has no pointsTo.")
                        })
                };
                let host = record.host.as_deref().unwrap_or("@");
                let (record_type, name, value) = match record.record_type.as_str() {
                    "CNAME" => (ZoneRecordType::Cname, relative(host)?, points_to()?),
                    "A" => (ZoneRecordType::A, relative(host)?, points_to()?),
                    "AAAA" => (ZoneRecordType::Aaaa, relative(host)?, points_to()?),
                    "APEXCNAME" => (ZoneRecordType::Alias, relative("@")?, points_to()?),
                    "TXT" => (
                        ZoneRecordType::Txt,
                        relative(host)?,
                        substitute(record.data.as_deref().unwrap_or_default())?,
                    ),
                    other => {
                        return Err(Refusal::not_supported(format!(
                            "The local DNS provider cannot write {other} records."
                        )));
                    }
                };
                Ok(PlannedRecord {
                    record_type,
                    name,
                    value,
                    ttl,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBDOMAIN: &str =
        include_str!("../../data/domainconnect/local-platform.test.custom-domain.json");
    const APEX: &str =
        include_str!("../../data/domainconnect/local-platform.test.custom-domain-apex.json");

    #[test]
    fn the_platform_templates_write_a_cname_or_an_alias() {
        let none = HashMap::new();
        let sub = Template::parse(SUBDOMAIN, "cname.other.test").unwrap();
        assert_eq!(
            sub.plan("example.com", "shop", &none).unwrap(),
            vec![PlannedRecord {
                record_type: ZoneRecordType::Cname,
                name: "shop".into(),
                value: "cname.other.test".into(),
                ttl: 3600
            }]
        );
        assert!(sub.plan("example.com", "", &none).is_err(), "host required");
        let apex = Template::parse(APEX, BUNDLED_TARGET).unwrap();
        let planned = apex.plan("example.com", "", &none).unwrap();
        assert_eq!(planned[0].record_type, ZoneRecordType::Alias);
        assert_eq!(planned[0].name, "@");
        assert_eq!(planned[0].value, BUNDLED_TARGET);
    }

    #[test]
    fn variables_are_filled_in_and_a_missing_one_is_refused() {
        let template = Template::parse(
            r#"{"providerId":"p","providerName":"P","serviceId":"s","serviceName":"S",
                "records":[{"type":"TXT","host":"_v.%sub%","data":"v=%token%","ttl":"%ttl%"}]}"#,
            BUNDLED_TARGET,
        )
        .unwrap();
        let mut vars = HashMap::new();
        vars.insert("sub".to_owned(), "a".to_owned());
        vars.insert("token".to_owned(), "xyz".to_owned());
        assert!(template.plan("example.com", "www", &vars).is_err());
        vars.insert("ttl".to_owned(), "120".to_owned());
        let planned = template.plan("example.com", "www", &vars).unwrap();
        assert_eq!(planned[0].name, "_v.a.www");
        assert_eq!(planned[0].value, "v=xyz");
        assert_eq!(planned[0].ttl, 120);
    }
}

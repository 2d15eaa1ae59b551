//! Which DNS provider hosts a zone, told from its NS records, and each fix worded for it.
//!
//! Most support tickets about custom domains come from a provider's form rather than from
//! DNS itself: a Name field that appends the zone, an apex that takes no ALIAS, a proxy
//! switched on. Knowing the provider lets a fix say which field takes `shop` and which record
//! the apex can hold. The providers and their nameserver patterns are data
//! (`data/providers.json`, embedded at build time); a zone whose nameservers match none is
//! simply of an unknown provider, and its fixes stay generic.

use std::sync::LazyLock;

use serde::Deserialize;

use crate::report::{ChangeAction, Fix, NameKind, RecordChange};
pub use crate::report::{DnsProvider, ProviderMatch, RecordNameField};

/// The embedded provider table (see the file's `about` for its fields).
const PROVIDERS_JSON: &str = include_str!("../data/providers.json");

#[derive(Debug, Deserialize)]
struct ProviderTable {
    format: String,
    version: u32,
    providers: Vec<ProviderEntry>,
}

#[derive(Debug, Deserialize)]
struct ProviderEntry {
    nameservers: Vec<String>,
    #[serde(flatten)]
    provider: DnsProvider,
}

static PROVIDERS: LazyLock<Vec<ProviderEntry>> = LazyLock::new(|| {
    // A unit test proves the embedded table parses; should it ever not, every zone is of
    // an unknown provider rather than the doctor failing.
    match serde_json::from_str::<ProviderTable>(PROVIDERS_JSON) {
        Ok(table) if table.format == "domain-desk-doctor-providers" && table.version == 1 => {
            table.providers
        }
        Ok(_) => Vec::new(),
        Err(error) => {
            tracing::error!(%error, "the embedded provider table does not parse");
            Vec::new()
        }
    }
});

/// The provider most of `nameservers` belong to (the first listed on a tie), if any.
pub fn detect(nameservers: &[String]) -> Option<ProviderMatch> {
    let mut best: Option<(usize, Vec<String>)> = None;
    for (index, entry) in PROVIDERS.iter().enumerate() {
        let matched: Vec<String> = nameservers
            .iter()
            .filter(|nameserver| {
                entry
                    .nameservers
                    .iter()
                    .any(|pattern| matches_suffix(nameserver, pattern))
            })
            .cloned()
            .collect();
        let better = best
            .as_ref()
            .is_none_or(|(_, found)| matched.len() > found.len());
        if !matched.is_empty() && better {
            best = Some((index, matched));
        }
    }
    best.map(|(index, matched_nameservers)| ProviderMatch {
        provider: PROVIDERS[index].provider.clone(),
        matched_nameservers,
    })
}

/// True when `name` ends in the labels of `pattern`, a label of the pattern holding at most
/// one `*` that stands for any characters (`awsdns-*.com` matches `ns-1.awsdns-01.com`).
fn matches_suffix(name: &str, pattern: &str) -> bool {
    // label by label from the right, in any case, without copying: each set of nameservers
    // is matched against every pattern of the table
    let mut labels = name.trim_end_matches('.').rsplit('.');
    pattern.trim_end_matches('.').rsplit('.').all(|pattern| {
        let Some(label) = labels.next() else {
            return false;
        };
        match pattern.split_once('*') {
            Some((head, tail)) => {
                label.len() >= head.len() + tail.len()
                    && label
                        .get(..head.len())
                        .is_some_and(|start| start.eq_ignore_ascii_case(head))
                    && label
                        .get(label.len() - tail.len()..)
                        .is_some_and(|end| end.eq_ignore_ascii_case(tail))
            }
            None => label.eq_ignore_ascii_case(pattern),
        }
    })
}

/// The record changes of a fix as steps at `provider`.
pub fn steps(provider: &DnsProvider, kind: &NameKind, changes: &[RecordChange]) -> Vec<String> {
    changes
        .iter()
        .filter_map(|change| step(provider, kind, change))
        .collect()
}

fn step(provider: &DnsProvider, kind: &NameKind, change: &RecordChange) -> Option<String> {
    let at = &provider.name;
    let name = name_field(provider, change);
    match change.action {
        ChangeAction::Keep => None,
        ChangeAction::Remove => Some(format!(
            "At {at}, delete the {} record {} with the value {}.",
            change.record_type,
            if change.name == "@" {
                "at @"
            } else {
                change.name.as_str()
            },
            change.value
        )),
        ChangeAction::Add => {
            let record_type = if change.record_type == "ALIAS" {
                match &provider.apex_alias {
                    Some(alias) if alias == "CNAME" => {
                        format!("CNAME (at the apex; {})", provider.apex_alias_note)
                    }
                    Some(alias) => alias.clone(),
                    None => "ALIAS".to_owned(),
                }
            } else {
                change.record_type.clone()
            };
            let value_field = match change.record_type.as_str() {
                "A" | "AAAA" => "IPv4/IPv6 address",
                "TXT" | "CAA" => "Content",
                _ => "Target",
            };
            let proxy = match (&provider.proxy, change.record_type.as_str()) {
                (Some(proxy), "A" | "AAAA" | "CNAME" | "ALIAS") => format!(" {proxy}."),
                _ => String::new(),
            };
            Some(format!(
                "At {at}, add {} {record_type} record: Name {name}, {value_field} {}.{proxy}",
                if record_type.starts_with('A') {
                    "an"
                } else {
                    "a"
                },
                change.value
            ))
        }
    }
    .map(|text| {
        if change.zone == kind.zone {
            text
        } else {
            format!("{text} (zone {})", change.zone)
        }
    })
}

/// What to type in the provider's Name field for `change`, said so that the zone cannot be
/// appended twice.
fn name_field(provider: &DnsProvider, change: &RecordChange) -> String {
    if change.name == "@" {
        return "@ (the apex; some forms want it left empty)".to_owned();
    }
    let full = format!("{}.{}", change.name, change.zone);
    match provider.record_name {
        RecordNameField::Relative => format!(
            "\"{}\" only ({} appends .{} itself: typing {full} would create {full}.{})",
            change.name, provider.name, change.zone, change.zone
        ),
        RecordNameField::RelativeOrFull => format!("\"{}\" (or {full})", change.name),
    }
}

/// For an apex at a provider without ALIAS or flattening: `fix`'s ALIAS change replaced by
/// the www plan — `www` as the primary name (a CNAME to the target) and the apex redirected
/// to it, through the platform (A/AAAA records at `@` to the target's current addresses, the
/// apex attached as a redirect domain) or the provider's own forwarding.
pub fn apex_without_alias(
    provider: &DnsProvider,
    kind: &NameKind,
    target: &str,
    target_addresses: &[(String, String)],
    fix: &mut Fix,
) {
    if provider.apex_alias.is_some() || !kind.apex {
        return;
    }
    let Some(position) = fix.changes.iter().position(|change| {
        change.action == ChangeAction::Add && change.record_type == "ALIAS" && change.name == "@"
    }) else {
        return;
    };
    let zone = kind.zone.clone();
    let mut plan = vec![RecordChange {
        action: ChangeAction::Add,
        zone: zone.clone(),
        name: "www".to_owned(),
        record_type: "CNAME".to_owned(),
        value: target.to_owned(),
        ttl: Some(3600),
    }];
    plan.extend(
        target_addresses
            .iter()
            .map(|(record_type, address)| RecordChange {
                action: ChangeAction::Add,
                zone: zone.clone(),
                name: "@".to_owned(),
                record_type: record_type.clone(),
                value: address.clone(),
                ttl: Some(3600),
            }),
    );
    fix.changes.splice(position..=position, plan);
    let forwarding = provider
        .apex_redirect
        .as_ref()
        .map(|feature| format!(", or redirect it with {}'s {feature}", provider.name))
        .unwrap_or_default();
    fix.summary = format!(
        "{} has no ALIAS or CNAME flattening at the apex ({}). Make www.{zone} the primary \
         domain (a CNAME www to {target}) and redirect {zone} to it: attach {zone} to the \
         project as a redirect to www.{zone} and point @ at the platform's current addresses \
         with the A/AAAA records below{forwarding}.",
        provider.name, provider.apex_alias_note
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detected(nameservers: &[&str]) -> Option<String> {
        let names: Vec<String> = nameservers.iter().map(|name| (*name).to_owned()).collect();
        detect(&names).map(|found| found.provider.id)
    }

    #[test]
    fn the_embedded_table_parses_and_every_provider_has_patterns() {
        let table: ProviderTable = serde_json::from_str(PROVIDERS_JSON).unwrap();
        assert_eq!(table.version, 1);
        assert_eq!(PROVIDERS.len(), table.providers.len());
        // Google Cloud DNS and Squarespace Domains share nameservers: one entry.
        assert!(PROVIDERS.len() >= 14);
        for entry in PROVIDERS.iter() {
            assert!(!entry.nameservers.is_empty(), "{}", entry.provider.id);
        }
    }

    #[test]
    fn providers_are_told_from_their_nameservers() {
        for (nameservers, wanted) in [
            (
                &["amy.ns.cloudflare.com", "bob.ns.cloudflare.com."][..],
                "cloudflare",
            ),
            (
                &[
                    "ns-1536.awsdns-00.co.uk",
                    "ns-0.awsdns-00.com",
                    "ns-1024.awsdns-00.org",
                ][..],
                "route53",
            ),
            (&["ns-cloud-a1.googledomains.com"][..], "google_cloud_dns"),
            (
                &["ns1-01.azure-dns.com", "ns2-01.azure-dns.net"][..],
                "azure",
            ),
            (&["NS01.DOMAINCONTROL.COM"][..], "godaddy"),
            (&["dns1.registrar-servers.com"][..], "namecheap"),
            (&["ns1045.ui-dns.de"][..], "ionos"),
            (&["dns10.ovh.net", "ns10.ovh.net"][..], "ovh"),
            (&["ns-155-a.gandi.net"][..], "gandi"),
            (&["curitiba.porkbun.com"][..], "porkbun"),
            (&["hydrogen.ns.hetzner.com"][..], "hetzner"),
            (&["ns1.digitalocean.com"][..], "digitalocean"),
            (&["ns0.wixdns.net"][..], "wix"),
            (&["ns1.pages.local-platform.test"][..], "domain_desk_local"),
        ] {
            assert_eq!(
                detected(nameservers).as_deref(),
                Some(wanted),
                "{nameservers:?}"
            );
        }
    }

    #[test]
    fn unknown_and_lookalike_nameservers_match_nothing() {
        assert_eq!(detected(&["ns1.example.com"]), None);
        assert_eq!(detected(&[]), None);
        // whole labels only: not a suffix of a label
        assert_eq!(detected(&["ns.evilcloudflare.com"]), None);
        assert_eq!(detected(&["ns.notdomaincontrol.com"]), None);
        assert_eq!(detected(&["awsdns-01.com.example"]), None);
    }

    #[test]
    fn the_provider_most_nameservers_belong_to_wins() {
        assert_eq!(
            detected(&[
                "ns1.example.com",
                "a.ns.cloudflare.com",
                "b.ns.cloudflare.com",
                "dns1.registrar-servers.com"
            ])
            .as_deref(),
            Some("cloudflare")
        );
    }
}

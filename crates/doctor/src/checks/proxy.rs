//! A name answered by Cloudflare's proxy: its addresses are Cloudflare's, not the platform
//! target's. With the proxy on, Cloudflare hides the CNAME and answers with its own
//! addresses, so the platform's verification sees no CNAME and the CA's validation reaches
//! Cloudflare instead of the platform. Without this check the doctor would blame an A record
//! the customer never made.
//!
//! The ranges are Cloudflare's published list, shipped as data with its date
//! (`data/cloudflare-ips.json`).

use std::net::IpAddr;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::checks::evidence;
use crate::dns::{Answer, DnsRecord};
use crate::providers::DnsProvider;
use crate::report::{ChangeAction, Finding, FindingCode, Fix, NameKind, RecordChange, Severity};

const RANGES_JSON: &str = include_str!("../../data/cloudflare-ips.json");

#[derive(Debug, Deserialize)]
struct RangeTable {
    as_of: String,
    ipv4: Vec<String>,
    ipv6: Vec<String>,
}

/// A network in CIDR form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    pub text: String,
    address: IpAddr,
    prefix: u8,
}

impl Network {
    fn parse(text: &str) -> Option<Self> {
        let (address, prefix) = text.split_once('/')?;
        let address: IpAddr = address.parse().ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let bits = if address.is_ipv4() { 32 } else { 128 };
        (prefix <= bits).then(|| Self {
            text: text.to_owned(),
            address,
            prefix,
        })
    }

    pub fn contains(&self, candidate: IpAddr) -> bool {
        match (self.address, candidate) {
            (IpAddr::V4(network), IpAddr::V4(candidate)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(network) & mask == u32::from(candidate) & mask
            }
            (IpAddr::V6(network), IpAddr::V6(candidate)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(network) & mask == u128::from(candidate) & mask
            }
            _ => false,
        }
    }
}

struct Ranges {
    as_of: String,
    networks: Vec<Network>,
}

static RANGES: LazyLock<Ranges> = LazyLock::new(|| {
    // A unit test proves the embedded list parses; should it not, nothing counts as proxied.
    match serde_json::from_str::<RangeTable>(RANGES_JSON) {
        Ok(table) => Ranges {
            as_of: table.as_of,
            networks: table
                .ipv4
                .iter()
                .chain(table.ipv6.iter())
                .filter_map(|text| Network::parse(text))
                .collect(),
        },
        Err(error) => {
            tracing::error!(%error, "the embedded Cloudflare ranges do not parse");
            Ranges {
                as_of: String::new(),
                networks: Vec::new(),
            }
        }
    }
});

/// The Cloudflare network `value` (an address) falls in, if any.
pub fn cloudflare_network(value: &str) -> Option<&'static Network> {
    let address: IpAddr = value.parse().ok()?;
    RANGES
        .networks
        .iter()
        .find(|network| network.contains(address))
}

/// What the proxy check needs, all from the server whose answer is judged.
pub struct ProxyAnswers<'a> {
    pub server_label: &'a str,
    pub a: &'a Answer,
    pub aaaa: &'a Answer,
    pub target_a: &'a Answer,
    pub target_aaaa: &'a Answer,
}

/// A finding when every address the name itself holds is Cloudflare's and the target's are
/// not.
pub fn check(
    hostname: &str,
    kind: &NameKind,
    target: &str,
    expected: &RecordChange,
    provider: Option<&DnsProvider>,
    answers: &ProxyAnswers<'_>,
) -> Option<Finding> {
    let own: Vec<&DnsRecord> = answers
        .a
        .records(hostname, "A")
        .chain(answers.aaaa.records(hostname, "AAAA"))
        .collect();
    if own.is_empty()
        || !own
            .iter()
            .all(|record| cloudflare_network(&record.value).is_some())
    {
        return None;
    }
    let target_is_cloudflare = answers
        .target_a
        .records_of_type("A")
        .chain(answers.target_aaaa.records_of_type("AAAA"))
        .any(|record| cloudflare_network(&record.value).is_some());
    if target_is_cloudflare {
        return None;
    }
    let networks: Vec<String> = own
        .iter()
        .filter_map(|record| {
            cloudflare_network(&record.value)
                .map(|network| format!("{} in {}", record.value, network.text))
        })
        .collect();
    let at_cloudflare = provider.is_some_and(|provider| provider.id == "cloudflare");
    let relative = &kind.relative_name;
    let (summary, changes, steps) = if at_cloudflare {
        (
            format!(
                "Turn Cloudflare's proxy off for the record {relative} (Proxy status: DNS only, \
                 the grey cloud). The {} record to {target} can stay as it is.",
                expected.record_type
            ),
            vec![RecordChange {
                action: ChangeAction::Keep,
                ..expected.clone()
            }],
            vec![format!(
                "At Cloudflare, DNS > Records: edit the record {relative} and set Proxy status \
                 to DNS only (grey cloud); its target must be {target}."
            )],
        )
    } else {
        let mut changes: Vec<RecordChange> = own
            .iter()
            .map(|record| RecordChange {
                action: ChangeAction::Remove,
                zone: kind.zone.clone(),
                name: crate::checks::apex_or_subdomain::relative_name(&record.name, &kind.zone),
                record_type: record.record_type.to_string(),
                value: record.value.clone(),
                ttl: Some(record.ttl),
            })
            .collect();
        changes.push(expected.clone());
        (
            format!(
                "The zone is not at Cloudflare, so these addresses were copied from a \
                 Cloudflare-proxied site. Replace them with the {} record to {target}.",
                expected.record_type
            ),
            changes,
            Vec::new(),
        )
    };
    Some(Finding {
        code: FindingCode::ProxiedByCloudflare,
        severity: Severity::Error,
        title: format!("{hostname} is answered by Cloudflare's proxy, not by {target}"),
        detail: format!(
            "Its addresses are in Cloudflare's published ranges (list of {}): {}. The proxy \
             hides the record behind it, so the platform cannot verify the domain and the CA's \
             validation reaches Cloudflare instead of the platform.",
            RANGES.as_of,
            networks.join(", ")
        ),
        evidence: vec![
            evidence(answers.server_label, answers.a, None),
            evidence(answers.server_label, answers.aaaa, None),
        ],
        fix: Some(Fix {
            summary,
            changes,
            steps,
        }),
        cached_until: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_ranges_parse_with_their_date() {
        let table: RangeTable = serde_json::from_str(RANGES_JSON).unwrap();
        assert_eq!(RANGES.networks.len(), table.ipv4.len() + table.ipv6.len());
        assert!(RANGES.as_of.starts_with("20"));
    }

    #[test]
    fn addresses_inside_and_outside_the_ranges() {
        assert_eq!(
            cloudflare_network("104.16.132.229").map(|network| network.text.as_str()),
            Some("104.16.0.0/13")
        );
        assert!(cloudflare_network("104.24.0.1").is_some());
        assert!(cloudflare_network("104.28.0.1").is_none());
        assert!(cloudflare_network("2606:4700::6810:84e5").is_some());
        assert!(cloudflare_network("2a06:98c7:ffff::1").is_some());
        assert!(cloudflare_network("2a06:98c8::1").is_none());
        assert!(cloudflare_network("192.0.2.1").is_none());
        assert!(cloudflare_network("not an address").is_none());
        assert!(Network::parse("10.0.0.0/33").is_none());
        assert!(
            Network::parse("0.0.0.0/0")
                .unwrap()
                .contains("8.8.8.8".parse().unwrap())
        );
    }
}

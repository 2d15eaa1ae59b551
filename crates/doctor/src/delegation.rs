//! The path from the registry down: the parent zone's servers are asked for the delegation
//! itself (NS and glue, without recursion), and every nameserver either the parent or the
//! zone itself names is asked directly for the zone's SOA. A server that does not serve the
//! zone is lame; a registry whose NS set differs from the zone's own is a mismatch. Only the
//! servers that serve the zone are asked for the hostname's records afterwards, so a silent
//! server costs one timeout, not one per question.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures::future::join_all;
use hickory_proto::rr::RecordType;

use crate::checks::evidence;
use crate::dns::presentation::normalise_name;
use crate::dns::{Answer, AnswerStatus, DnsRecord, QueryEngine};
use crate::report::{
    Delegation, Finding, FindingCode, Fix, NameserverCheck, NameserverState, Severity, SourceKind,
};
use crate::servers::Server;

/// How many of the parent's servers are asked for the delegation.
const PARENT_SERVERS: usize = 3;
/// How many nameservers of the zone are asked directly.
const MAX_NAMESERVERS: usize = 8;

/// The delegation, and the servers that serve the zone (to be asked for the hostname).
pub(crate) struct Found {
    pub delegation: Delegation,
    /// The nameservers that serve the zone, sorted by name, as servers to ask.
    pub serving: Vec<Server>,
    /// Each serving server's SOA answer, in the same order (its serial and primary).
    pub soa: Vec<Arc<Answer>>,
    /// Every nameserver's SOA answer, by its name: the findings' evidence.
    pub answers: Vec<(String, Arc<Answer>)>,
}

/// The zone's parent (`com` for `example.com`, the root for `com`).
fn parent_of(zone: &str) -> Option<&str> {
    if zone.is_empty() || zone == "." {
        return None;
    }
    Some(zone.split_once('.').map_or(".", |(_, parent)| parent))
}

/// Follows the delegation of `zone` from its parent, through `resolver` for the names'
/// addresses; servers are asked on `port` (53, or a test's).
pub(crate) async fn examine(
    engine: &QueryEngine,
    resolver: &Server,
    zone: &str,
    port: u16,
) -> Option<Found> {
    let zone = normalise_name(zone);
    let parent = parent_of(&zone)?.to_owned();
    let ask_resolver = |name: String, record_type: RecordType| async move {
        engine
            .ask(resolver.address, resolver.recursive(), &name, record_type)
            .await
    };
    let (zone_ns, parent_ns) = tokio::join!(
        ask_resolver(zone.clone(), RecordType::NS),
        ask_resolver(parent.clone(), RecordType::NS),
    );
    let parent_names: Vec<String> = sorted_names(parent_ns.records(&normalise_name(&parent), "NS"));
    let parent_servers: Vec<(String, SocketAddr)> = join_all(
        parent_names
            .iter()
            .take(PARENT_SERVERS)
            .map(|name| async move {
                let address = address_of(engine, resolver, name, &[]).await?;
                Some((name.clone(), SocketAddr::new(address, port)))
            }),
    )
    .await
    .into_iter()
    .flatten()
    .collect();

    // The delegation as each parent server gives it; the first one with an NS set decides.
    let referrals = join_all(
        parent_servers
            .iter()
            .map(|(_, address)| engine.ask(*address, false, &zone, RecordType::NS)),
    )
    .await;
    let referral = referrals.iter().find(|answer| {
        answer
            .authority
            .iter()
            .chain(answer.answers.iter())
            .any(|record| record.is(&zone, "NS"))
    });
    let registry: Vec<String> = referral.map_or_else(Vec::new, |answer| {
        sorted_names(
            answer
                .authority
                .iter()
                .chain(answer.answers.iter())
                .filter(|record| record.is(&zone, "NS")),
        )
    });
    let glue: Vec<DnsRecord> = referral.map_or_else(Vec::new, |answer| {
        answer
            .additional
            .iter()
            .filter(|record| registry.contains(&record.name))
            .cloned()
            .collect()
    });
    let resolver_set = sorted_names(zone_ns.records(&zone, "NS"));

    // Every name either side lists (the resolver's answer stands in for the zone's own set
    // until the zone's servers are asked).
    let mut names: BTreeSet<String> = registry.iter().cloned().collect();
    names.extend(resolver_set.iter().cloned());
    if names.is_empty() {
        return None;
    }
    let asked = join_all(names.iter().take(MAX_NAMESERVERS).map(|name| {
        let (glue, zone) = (&glue, &zone);
        async move {
            let Some(ip) = address_of(engine, resolver, name, glue).await else {
                return (name.clone(), None, None, None);
            };
            let address = SocketAddr::new(ip, port);
            let (soa, ns) = tokio::join!(
                engine.ask(address, false, zone, RecordType::SOA),
                engine.ask(address, false, zone, RecordType::NS),
            );
            (name.clone(), Some(address), Some(soa), Some(ns))
        }
    }))
    .await;

    // The zone's own set: what the servers that serve it publish.
    let mut zone_set: BTreeSet<String> = BTreeSet::new();
    for (_, _, soa, ns) in &asked {
        if let (Some(soa), Some(ns)) = (soa, ns)
            && serves(soa, &zone)
        {
            zone_set.extend(sorted_names(ns.records(&zone, "NS")));
        }
    }
    let zone_set: Vec<String> = if zone_set.is_empty() {
        resolver_set
    } else {
        zone_set.into_iter().collect()
    };

    let mut nameservers = Vec::new();
    let mut serving = Vec::new();
    let mut serving_soa = Vec::new();
    let mut answers = Vec::new();
    for (name, address, soa, _) in asked {
        if let Some(soa) = &soa {
            answers.push((name.clone(), Arc::clone(soa)));
        }
        let (state, answered, serial, primary) = match (&address, &soa) {
            (None, _) | (_, None) => (
                NameserverState::NoAddress,
                format!("{name} has no address"),
                None,
                None,
            ),
            (Some(_), Some(soa)) => judge(soa, &zone),
        };
        let provider =
            crate::providers::detect(std::slice::from_ref(&name)).map(|found| found.provider.name);
        if let (NameserverState::Serves, Some(address), Some(soa)) = (state, address, soa) {
            serving.push(Server::new(
                format!("{name} (authoritative)"),
                address,
                SourceKind::Authoritative,
                false,
            ));
            serving_soa.push(soa);
        }
        nameservers.push(NameserverCheck {
            in_registry: registry.contains(&name),
            in_zone: zone_set.contains(&name),
            name,
            address: address.map(|address| address.to_string()),
            state,
            answered,
            serial,
            soa_primary: primary,
            provider,
        });
    }
    Some(Found {
        delegation: Delegation {
            zone,
            parent_zone: parent,
            parent_servers: parent_servers.into_iter().map(|(name, _)| name).collect(),
            registry_nameservers: registry,
            glue,
            zone_nameservers: zone_set,
            nameservers,
        },
        serving,
        soa: serving_soa,
        answers,
    })
}

/// NS record values, lowercase without the final dot, sorted and once each.
fn sorted_names<'a>(records: impl Iterator<Item = &'a DnsRecord>) -> Vec<String> {
    let names: BTreeSet<String> = records
        .map(|record| normalise_name(&record.value))
        .collect();
    names.into_iter().collect()
}

/// A nameserver's address: its glue, else its A record through the resolver.
async fn address_of(
    engine: &QueryEngine,
    resolver: &Server,
    name: &str,
    glue: &[DnsRecord],
) -> Option<IpAddr> {
    if let Some(ip) = glue
        .iter()
        .filter(|record| record.name == name && record.record_type == "A")
        .find_map(|record| record.value.parse().ok())
    {
        return Some(ip);
    }
    let answer = engine
        .ask(resolver.address, resolver.recursive(), name, RecordType::A)
        .await;
    answer
        .records_of_type("A")
        .find_map(|record| record.value.parse().ok())
}

/// Whether `soa` is an authoritative answer with the zone's SOA.
fn serves(soa: &Answer, zone: &str) -> bool {
    soa.status == AnswerStatus::NoError
        && soa.authoritative
        && soa.records(zone, "SOA").next().is_some()
}

/// What a server's SOA answer says about it: its state, in words, and the SOA's serial and
/// primary when it serves the zone.
fn judge(soa: &Answer, zone: &str) -> (NameserverState, String, Option<u32>, Option<String>) {
    if serves(soa, zone) {
        let record = soa.records(zone, "SOA").next();
        let fields: Vec<&str> = record
            .map(|record| record.value.split_whitespace().collect())
            .unwrap_or_default();
        let serial = fields.get(2).and_then(|field| field.parse().ok());
        let primary = fields.first().map(|field| normalise_name(field));
        let words = match serial {
            Some(serial) => format!("serves the zone (serial {serial})"),
            None => "serves the zone".to_owned(),
        };
        return (NameserverState::Serves, words, serial, primary);
    }
    let lame = |words: String| (NameserverState::Lame, words, None, None);
    match soa.status {
        AnswerStatus::Timeout => (
            NameserverState::Silent,
            "no answer over UDP or TCP".to_owned(),
            None,
            None,
        ),
        AnswerStatus::Refused => lame("REFUSED: it does not have the zone".to_owned()),
        AnswerStatus::ServFail => lame("SERVFAIL: it cannot load the zone".to_owned()),
        AnswerStatus::NxDomain => lame("says the zone does not exist (NXDOMAIN)".to_owned()),
        AnswerStatus::NoError => {
            let referral = soa
                .authority
                .iter()
                .find(|record| record.record_type == "NS")
                .map(|record| record.name.clone());
            match referral {
                Some(owner) => lame(format!(
                    "a referral to {} instead of the zone",
                    if owner.is_empty() { "the root" } else { &owner }
                )),
                None => lame("answers without authority (no AA bit)".to_owned()),
            }
        }
        AnswerStatus::OtherRcode | AnswerStatus::Failed => lame(
            soa.error
                .clone()
                .unwrap_or_else(|| "an answer that is not the zone's".to_owned()),
        ),
    }
}

/// The delegation's findings: a registry whose NS set differs from the zone's own, and each
/// nameserver that does not serve the zone.
pub(crate) fn findings(found: &Found) -> Vec<Finding> {
    let soa_answers = &found.answers;
    let delegation = &found.delegation;
    let zone = &delegation.zone;
    let mut findings = Vec::new();
    let registry = &delegation.registry_nameservers;
    let own = &delegation.zone_nameservers;
    if !registry.is_empty() && !own.is_empty() && registry != own {
        let only_registry: Vec<&str> = registry
            .iter()
            .filter(|name| !own.contains(name))
            .map(String::as_str)
            .collect();
        let only_zone: Vec<&str> = own
            .iter()
            .filter(|name| !registry.contains(name))
            .map(String::as_str)
            .collect();
        let mut steps = Vec::new();
        if !only_zone.is_empty() {
            steps.push(format!(
                "At the registrar of {zone}, add the nameservers {} (or remove their NS records \
                 from the zone).",
                only_zone.join(", ")
            ));
        }
        if !only_registry.is_empty() {
            steps.push(format!(
                "At the registrar of {zone}, remove {} if they no longer serve it (or add their \
                 NS records to the zone).",
                only_registry.join(", ")
            ));
        }
        findings.push(Finding {
            code: FindingCode::DelegationMismatch,
            severity: Severity::Warning,
            title: format!("The registry and the zone list different nameservers for {zone}"),
            detail: format!(
                "The {} registry delegates {zone} to {}; the zone itself lists {}. Resolvers \
                 find the zone through the registry's set; once there, many keep the zone's own \
                 set, so which servers a visitor's resolver asks depends on the resolver.",
                if delegation.parent_zone == "." {
                    "root".to_owned()
                } else {
                    delegation.parent_zone.clone()
                },
                registry.join(", "),
                own.join(", ")
            ),
            evidence: soa_answers
                .iter()
                .map(|(label, answer)| evidence(label, answer, None))
                .collect(),
            fix: Some(Fix {
                summary: format!(
                    "Make the nameservers at the registrar and the zone's NS records the same \
                     set for {zone}."
                ),
                changes: Vec::new(),
                steps,
            }),
            cached_until: None,
        });
    }
    let registry_serves = delegation.nameservers.iter().any(|server| {
        (server.in_registry || registry.is_empty()) && server.state == NameserverState::Serves
    });
    for server in delegation
        .nameservers
        .iter()
        .filter(|server| server.state != NameserverState::Serves)
    {
        let listed = match (server.in_registry, server.in_zone) {
            (true, true) => "the registry and the zone list it",
            (true, false) => "the registry lists it",
            _ => "the zone's NS records list it",
        };
        let at = server.provider.as_deref().map_or_else(
            || format!("the provider that runs {}", server.name),
            str::to_owned,
        );
        let summary = if server.in_registry {
            format!(
                "Remove {} from {zone}'s nameservers at the registrar, or add the zone {zone} \
                 at {at}.",
                server.name
            )
        } else {
            format!(
                "Remove the NS record for {} from the zone {zone}, or add the zone at {at}.",
                server.name
            )
        };
        findings.push(Finding {
            code: FindingCode::LameNameserver,
            severity: if registry_serves {
                Severity::Warning
            } else {
                Severity::Error
            },
            title: format!("{} does not serve {zone}", server.name),
            detail: format!(
                "{} ({listed}) was asked for {zone}'s SOA: {}. Resolvers that pick it get no \
                 answer for the zone and try another server, or fail{}.",
                server.name,
                server.answered,
                if registry_serves {
                    ""
                } else {
                    "; no server the registry names serves the zone, so nothing under it resolves"
                }
            ),
            evidence: soa_answers
                .iter()
                .filter(|(name, _)| *name == server.name)
                .map(|(label, answer)| evidence(label, answer, None))
                .collect(),
            fix: Some(Fix {
                summary,
                changes: Vec::new(),
                steps: Vec::new(),
            }),
            cached_until: None,
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_of_a_zone() {
        assert_eq!(parent_of("example.com"), Some("com"));
        assert_eq!(parent_of("example.co.uk"), Some("co.uk"));
        assert_eq!(parent_of("com"), Some("."));
        assert_eq!(parent_of("."), None);
    }
}

//! Which servers a run asks: the caller's (offline), or the system's and public resolvers
//! plus, per hostname, the zone's own nameservers found through NS records.

use std::net::SocketAddr;

use hickory_proto::rr::RecordType;
use hickory_resolver::config::ProtocolConfig;

use crate::dns::{AnswerStatus, QueryEngine};
use crate::options::DoctorOptions;
use crate::report::{Source, SourceKind};
use crate::{Error, Result};

/// How many of a zone's nameservers are asked directly.
const MAX_AUTHORITATIVE: usize = 3;

/// A server the doctor asks, with its address parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Server {
    pub source: Source,
    pub address: SocketAddr,
}

impl Server {
    pub fn new(label: String, address: SocketAddr, kind: SourceKind, recursive: bool) -> Self {
        Self {
            source: Source {
                label,
                address: address.to_string(),
                kind,
                recursive,
            },
            address,
        }
    }

    pub fn recursive(&self) -> bool {
        self.source.recursive
    }
}

/// The servers a capture names, as they were asked.
pub(crate) fn captured_servers(sources: &[Source]) -> Result<Vec<Server>> {
    sources
        .iter()
        .map(|source| {
            let address = source.address.parse().map_err(|_| {
                Error::CaptureCorrupt(format!(
                    "the server address {:?} is not an address",
                    source.address
                ))
            })?;
            Ok(Server {
                source: source.clone(),
                address,
            })
        })
        .collect()
}

/// The servers asked for every hostname, the preferred one first.
pub(crate) fn fixed_servers(options: &DoctorOptions) -> Result<Vec<Server>> {
    if options.is_offline() {
        let mut servers: Vec<Server> = Vec::new();
        for address in &options.resolvers {
            if servers.iter().all(|server| server.address != *address) {
                let label = options
                    .resolver_labels
                    .get(address)
                    .cloned()
                    .unwrap_or_else(|| address.to_string());
                servers.push(Server::new(label, *address, SourceKind::Given, true));
            }
        }
        return Ok(servers);
    }
    let mut servers: Vec<Server> = Vec::new();
    if options.use_system_resolver {
        match hickory_resolver::system_conf::read_system_conf() {
            Ok((config, _)) => {
                for name_server in &config.name_servers {
                    // The port of its UDP connection: the one the doctor asks over.
                    let port = name_server
                        .connections
                        .iter()
                        .find(|connection| matches!(connection.protocol, ProtocolConfig::Udp))
                        .map_or(53, |connection| connection.port);
                    let address = SocketAddr::new(name_server.ip, port);
                    if servers.iter().all(|server| server.address != address) {
                        servers.push(Server::new(
                            format!("system resolver {address}"),
                            address,
                            SourceKind::System,
                            true,
                        ));
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, "could not read the system resolver configuration");
            }
        }
    }
    for (label, address) in &options.public_resolvers {
        if servers.iter().all(|server| server.address != *address) {
            servers.push(Server::new(
                format!("{label} {}", address.ip()),
                *address,
                SourceKind::Public,
                true,
            ));
        }
    }
    if servers.is_empty() {
        return Err(Error::InvalidOptions(
            "No DNS server to ask: give one with --resolver, or allow the system or public resolvers."
                .to_owned(),
        ));
    }
    Ok(servers)
}

/// The zone's nameservers (NS names) and, for an online run, those of them that can be
/// asked directly, found through `resolver`.
pub(crate) async fn authoritative_servers(
    engine: &QueryEngine,
    resolver: &Server,
    zone: &str,
    online: bool,
    port: u16,
) -> (Vec<String>, Vec<Server>) {
    let answer = engine
        .ask(resolver.address, resolver.recursive(), zone, RecordType::NS)
        .await;
    let mut names: Vec<String> = answer
        .records(zone, "NS")
        .map(|record| record.value.clone())
        .collect();
    names.sort();
    names.dedup();
    if !online {
        return (names, Vec::new());
    }
    let lookups = names.iter().take(MAX_AUTHORITATIVE).map(|name| async move {
        let answer = engine
            .ask(resolver.address, resolver.recursive(), name, RecordType::A)
            .await;
        if answer.status != AnswerStatus::NoError {
            return None;
        }
        answer
            .records_of_type("A")
            .find_map(|record| record.value.parse().ok())
            .map(|ip: std::net::Ipv4Addr| {
                Server::new(
                    format!("{name} (authoritative)"),
                    SocketAddr::from((ip, port)),
                    SourceKind::Authoritative,
                    false,
                )
            })
    });
    let servers = futures::future::join_all(lookups)
        .await
        .into_iter()
        .flatten()
        .collect();
    (names, servers)
}

//! The first phase: the zone the name lives in, what kind of name it is and which record it
//! needs, the zone's delegation from the registry down (online), its nameservers and their
//! provider.

use std::sync::Arc;

use domain_desk_api::Hostname;
use hickory_proto::rr::RecordType;

use super::run::Run;
use crate::checks::apex_or_subdomain;
use crate::delegation;
use crate::dns::Answer;
use crate::report::{NameKind, ProviderMatch, RecordChange};
use crate::servers::{self, Server};

/// The zone and its servers, as the later phases read them.
pub(crate) struct Zone {
    pub kind: NameKind,
    pub expected: RecordChange,
    /// The registrable domain's SOA answer: NXDOMAIN when it is not registered.
    pub registrable_soa: Arc<Answer>,
    pub delegation: Option<delegation::Found>,
    /// The zone's nameservers (NS names).
    pub nameservers: Vec<String>,
    pub provider: Option<ProviderMatch>,
    /// The zone's nameservers that serve it, to be asked directly.
    pub authoritative: Vec<Server>,
}

impl Zone {
    /// Every server asked about the name: the zone's own first, then the run's. Never empty:
    /// it holds the run's servers (see `Run::primary`).
    pub fn servers<'a>(&'a self, run: &'a Run) -> Vec<&'a Server> {
        self.authoritative
            .iter()
            .chain(run.servers.iter())
            .collect()
    }
}

pub(crate) async fn find(run: &Run, hostname: &Hostname) -> Zone {
    let name = hostname.as_str();
    let primary = run.primary();
    let engine = &run.engine;
    let offline = run.options.is_offline();
    let (soa, registrable_soa, _) = tokio::join!(
        engine.ask(primary.address, primary.recursive(), name, RecordType::SOA),
        engine.ask(
            primary.address,
            primary.recursive(),
            hostname.registrable_domain(),
            RecordType::SOA
        ),
        run.target_answers(),
    );
    let soa_zone = soa.soa().map(|record| record.name.clone());
    let kind = apex_or_subdomain::classify(hostname, soa_zone.as_deref());
    let expected = apex_or_subdomain::expected_record(&kind, &run.target);

    // The delegation from the registry down, in an online run; a run that asks only the
    // servers it was given learns the zone's nameservers' names alone.
    let delegation = if offline {
        None
    } else {
        delegation::examine(engine, primary, &kind.zone, run.options.nameserver_port).await
    };
    let (nameservers, authoritative) = match &delegation {
        Some(found) => {
            let listed = &found.delegation;
            let names = if listed.zone_nameservers.is_empty() {
                listed.registry_nameservers.clone()
            } else {
                listed.zone_nameservers.clone()
            };
            (names, found.serving.clone())
        }
        None => {
            servers::authoritative_servers(
                engine,
                primary,
                &kind.zone,
                !offline,
                run.options.nameserver_port,
            )
            .await
        }
    };
    let provider = run.provider(&nameservers);
    Zone {
        kind,
        expected,
        registrable_soa,
        delegation,
        nameservers,
        provider,
        authoritative,
    }
}

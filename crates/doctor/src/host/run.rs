//! What every hostname of one run shares: the query engine, the TLS and DNSSEC sources, the
//! run's clock and options, the servers asked for every name, and the answers asked once per
//! run (the platform target's addresses, each nameserver set's provider).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use hickory_proto::rr::RecordType;
use tokio::sync::OnceCell;

use crate::checks::dnssec::recording::DnssecSource;
use crate::dns::{Answer, QueryEngine};
use crate::options::DoctorOptions;
use crate::report::ProviderMatch;
use crate::servers::Server;
use crate::tls_probe::TlsSource;

/// What every hostname of one run shares.
pub(crate) struct Run {
    pub engine: QueryEngine,
    /// Where the TLS probe's connections come from (the edge, or a capture).
    pub tls: TlsSource,
    /// Where DNSSEC verdicts come from; `None` when the run does not validate.
    pub dnssec: Option<DnssecSource>,
    /// The run's clock: certificate expiry is judged at this instant (a replay's is the
    /// capture's).
    pub now: DateTime<Utc>,
    pub options: DoctorOptions,
    /// Never empty: `diagnose` refuses to start without a server.
    pub servers: Vec<Server>,
    /// The platform target, lowercase, without the final dot.
    pub target: String,
    target_answers: OnceCell<(Arc<Answer>, Arc<Answer>)>,
    /// The provider found for each set of nameservers: the hostnames of a batch share a few
    /// zones, and matching a set against every provider's patterns cost a tenth of the
    /// analysis when it was done for each hostname.
    providers:
        std::sync::Mutex<HashMap<Vec<String>, Option<ProviderMatch>, foldhash::fast::RandomState>>,
}

impl Run {
    pub fn new(
        engine: QueryEngine,
        tls: TlsSource,
        dnssec: Option<DnssecSource>,
        now: DateTime<Utc>,
        options: DoctorOptions,
        servers: Vec<Server>,
    ) -> Self {
        let target = crate::dns::presentation::normalise_name(&options.target);
        Self {
            engine,
            tls,
            dnssec,
            now,
            options,
            servers,
            target,
            target_answers: OnceCell::new(),
            providers: std::sync::Mutex::default(),
        }
    }

    /// The DNS provider of `nameservers` ([`crate::providers::detect`]), found once per set.
    pub(super) fn provider(&self, nameservers: &[String]) -> Option<ProviderMatch> {
        let mut known = self
            .providers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = known.get(nameservers) {
            return found.clone();
        }
        let found = crate::providers::detect(nameservers);
        known.insert(nameservers.to_vec(), found.clone());
        found
    }

    pub(super) fn primary(&self) -> &Server {
        // `diagnose` checked that there is at least one server.
        &self.servers[0]
    }

    /// The target's A and AAAA answers, asked once per run.
    pub(super) async fn target_answers(&self) -> &(Arc<Answer>, Arc<Answer>) {
        self.target_answers
            .get_or_init(|| async {
                let primary = self.primary();
                let (a, aaaa) = tokio::join!(
                    self.engine.ask(
                        primary.address,
                        primary.recursive(),
                        &self.target,
                        RecordType::A
                    ),
                    self.engine.ask(
                        primary.address,
                        primary.recursive(),
                        &self.target,
                        RecordType::AAAA
                    ),
                );
                (a, aaaa)
            })
            .await
    }
}

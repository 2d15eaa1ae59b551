//! The second phase: every server's answers for the name (A and AAAA from each, its other
//! records from the first), the CAA climb alongside, and a failing server asked again with
//! DNSSEC checking disabled.

use std::sync::Arc;

use futures::future::join_all;
use hickory_proto::rr::RecordType;

use super::run::Run;
use super::zone::Zone;
use crate::checks;
use crate::dns::{Answer, AnswerStatus};
use crate::report::{CaaClimb, Finding};

/// What the servers answered.
pub(crate) struct Answers {
    /// Each server's A and AAAA answers, in the order of [`Zone::servers`].
    pub address: Vec<(Arc<Answer>, Arc<Answer>)>,
    /// CNAME, TXT and MX from the first server.
    pub detail: Vec<Arc<Answer>>,
    /// A server's A answer asked again with checking disabled, where it failed.
    pub unchecked: Vec<Option<Arc<Answer>>>,
    pub caa: CaaClimb,
    pub caa_findings: Vec<Finding>,
}

/// `name`'s answers; the CAA climb is for `domain`, which is `name` except for a wildcard
/// (asked at its probe name, its CAA judged as a wildcard's).
pub(crate) async fn ask(run: &Run, name: &str, domain: &str, zone: &Zone) -> Answers {
    let primary = run.primary();
    let engine = &run.engine;
    let offline = run.options.is_offline();
    let kind = &zone.kind;
    let servers = zone.servers(run);
    let reference = servers[0];

    let address_answers = join_all(servers.iter().map(|server| async move {
        tokio::join!(
            engine.ask(server.address, server.recursive(), name, RecordType::A),
            engine.ask(server.address, server.recursive(), name, RecordType::AAAA),
        )
    }));
    let detail_answers = join_all([RecordType::CNAME, RecordType::TXT, RecordType::MX].map(
        |record_type| engine.ask(reference.address, reference.recursive(), name, record_type),
    ));
    let caa_check = checks::caa::check(
        engine,
        primary,
        domain,
        kind,
        &run.options.ca_identity,
        offline,
    );
    let (address_answers, detail_answers, (caa, caa_findings)) =
        tokio::join!(address_answers, detail_answers, caa_check);

    // Ask failing servers again with checking disabled, to tell DNSSEC trouble apart.
    let unchecked = join_all(servers.iter().zip(address_answers.iter()).map(
        |(server, (a, _))| async move {
            if a.status == AnswerStatus::ServFail {
                Some(
                    engine
                        .ask_with(
                            server.address,
                            server.recursive(),
                            true,
                            name,
                            RecordType::A,
                        )
                        .await,
                )
            } else {
                None
            }
        },
    ))
    .await;
    Answers {
        address: address_answers,
        detail: detail_answers,
        unchecked,
        caa,
        caa_findings,
    }
}

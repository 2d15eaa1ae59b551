//! The CAA check: the full RFC 8659 climb from the name to the top-level domain, following
//! CNAMEs, judged with the shared evaluator, naming the label that decides and the record to
//! add. Existing tools stop at the public suffix or check one parent; CAs climb all the way.

use std::sync::Arc;

use domain_desk_api::caa::{self, CaaProperty, CaaReason, CaaRecord};
use hickory_proto::rr::RecordType;

use crate::checks::apex_or_subdomain::{is_within, relative_name};
use crate::checks::evidence;
use crate::dns::{Answer, AnswerStatus, DnsRecord, QueryEngine};
use crate::report::{
    CaaClimb, CaaStep, ChangeAction, Evidence, Finding, FindingCode, Fix, NameKind, RecordChange,
    Severity,
};
use crate::servers::Server;

/// Longest CNAME chain followed from one name on the climb.
const MAX_CNAME_HOPS: usize = 8;

/// Climbs from `hostname` asking `server`, and judges what it finds for `ca_identity`.
pub(crate) async fn check(
    engine: &QueryEngine,
    server: &Server,
    hostname: &str,
    kind: &NameKind,
    ca_identity: &str,
    offline: bool,
) -> (CaaClimb, Vec<Finding>) {
    let names = caa::climb(hostname);
    // Every name is asked at once: the climb usually ends at the top-level domain anyway, and
    // answers for shared parents come from the run's cache.
    let answers = futures::future::join_all(
        names
            .iter()
            .map(|name| engine.ask(server.address, server.recursive(), name, RecordType::CAA)),
    )
    .await;

    let label = server.source.label.as_str();
    let mut steps = Vec::new();
    let mut shown: Vec<Evidence> = Vec::new();
    let mut relevant: Vec<DnsRecord> = Vec::new();
    let mut deciding_name = None;
    let mut via_cname = None;
    for (name, answer) in names.iter().zip(&answers) {
        match answer.status {
            AnswerStatus::NoError => {
                let (records, via, chain) = follow(engine, server, name, answer).await;
                let found = !records.is_empty();
                if found {
                    shown.push(evidence(label, answer, None));
                    shown.extend(chain.iter().map(|hop| evidence(label, hop, None)));
                }
                steps.push(CaaStep {
                    name: name.clone(),
                    status: answer.status,
                    records: records.clone(),
                    via_cname: via.clone(),
                    note: None,
                });
                if found {
                    relevant = records;
                    deciding_name = Some(name.clone());
                    via_cname = via;
                    break;
                }
            }
            AnswerStatus::NxDomain => steps.push(CaaStep {
                name: name.clone(),
                status: answer.status,
                records: Vec::new(),
                via_cname: None,
                note: Some("the name does not exist; the climb goes on".to_owned()),
            }),
            AnswerStatus::Refused if offline && !is_within(name, &kind.registrable_domain) => {
                steps.push(CaaStep {
                    name: name.clone(),
                    status: answer.status,
                    records: Vec::new(),
                    via_cname: None,
                    note: Some(
                        "not served by the server asked; counted as holding no CAA".to_owned(),
                    ),
                });
            }
            _ => {
                steps.push(CaaStep {
                    name: name.clone(),
                    status: answer.status,
                    records: Vec::new(),
                    via_cname: None,
                    note: answer.error.clone(),
                });
                let finding = Finding {
                    code: FindingCode::CaaLookupFailed,
                    severity: Severity::Error,
                    title: format!("The CAA lookup for {name} fails"),
                    detail: format!(
                        "Asking {label} for CAA records at {name} ended in {}. A CA must be \
                         able to look CAA up at every name from {hostname} to the top-level \
                         domain and refuses to issue when a lookup fails.",
                        answer.status
                    ),
                    evidence: vec![evidence(label, answer, None)],
                    fix: Some(Fix {
                        summary: format!(
                            "Make the nameservers of {name} answer CAA questions (with an empty \
                             answer if there are no CAA records); some old DNS servers answer \
                             SERVFAIL or nothing for unknown record types."
                        ),
                        changes: Vec::new(),
                        steps: Vec::new(),
                    }),
                    cached_until: None,
                };
                let climb = CaaClimb {
                    server: server.source.label.clone(),
                    steps,
                    deciding_name: None,
                    decision: None,
                };
                return (climb, vec![finding]);
            }
        }
    }

    let records: Vec<CaaRecord> = relevant.iter().filter_map(DnsRecord::caa).collect();
    // A wildcard's certificate is decided by `issuewild` when its parent has one (RFC 8659
    // §4.3); the climb itself drops the `*.`.
    let decision = caa::evaluate(&records, ca_identity, hostname.starts_with("*."));
    let finding = if decision.allowed {
        Finding {
            code: FindingCode::CaaAllowsIssuance,
            severity: Severity::Ok,
            title: format!("CAA allows {ca_identity} to issue for {hostname}"),
            detail: match &deciding_name {
                Some(name) => format!("At {name}, {}.", decision.reason),
                None => format!(
                    "No CAA records from {hostname} up to the top-level domain: {}.",
                    decision.reason
                ),
            },
            evidence: shown,
            fix: None,
            cached_until: None,
        }
    } else {
        let decided_at = deciding_name.clone().unwrap_or_else(|| hostname.to_owned());
        forbidden(
            hostname,
            kind,
            ca_identity,
            &decided_at,
            via_cname.as_deref(),
            &decision.reason,
            &decision.deciding_records,
            &relevant,
            shown,
        )
    };
    let climb = CaaClimb {
        server: server.source.label.clone(),
        steps,
        deciding_name,
        decision: Some(decision),
    };
    (climb, vec![finding])
}

/// The CAA records for `name`: from its answer, or by following its CNAME chain when the
/// server did not (an authoritative server does not leave its zone). Returns the records,
/// where the chain led, and the extra answers asked on the way.
async fn follow(
    engine: &QueryEngine,
    server: &Server,
    name: &str,
    answer: &Answer,
) -> (Vec<DnsRecord>, Option<String>, Vec<Arc<Answer>>) {
    let records: Vec<DnsRecord> = answer.records_of_type("CAA").cloned().collect();
    if answer.cname_of(name).is_none() {
        return (records, None, Vec::new());
    }
    let mut end = answer.chain_end();
    if !records.is_empty() {
        return (records, Some(end), Vec::new());
    }
    let mut chain = Vec::new();
    for _ in 0..MAX_CNAME_HOPS {
        let hop = engine
            .ask(server.address, server.recursive(), &end, RecordType::CAA)
            .await;
        let found: Vec<DnsRecord> = hop.records_of_type("CAA").cloned().collect();
        let next = hop.chain_end();
        let done = !found.is_empty() || next == end || hop.status != AnswerStatus::NoError;
        chain.push(hop);
        if done {
            return (found, Some(end), chain);
        }
        end = next;
    }
    (Vec::new(), Some(end), chain)
}

#[allow(clippy::too_many_arguments)]
fn forbidden(
    hostname: &str,
    kind: &NameKind,
    ca_identity: &str,
    decided_at: &str,
    via_cname: Option<&str>,
    reason: &CaaReason,
    deciding: &[CaaRecord],
    relevant: &[DnsRecord],
    shown: Vec<Evidence>,
) -> Finding {
    let authorizing = CaaRecord::authorizing(ca_identity, false).to_presentation();
    let record_owner = |record: &CaaRecord| {
        relevant
            .iter()
            .find(|found| found.caa().as_ref() == Some(record))
            .map(|found| found.name.clone())
            .unwrap_or_else(|| decided_at.to_owned())
    };
    let change = |action, name: &str, value: String| RecordChange {
        action,
        zone: kind.zone.clone(),
        name: relative_name(name, &kind.zone),
        record_type: "CAA".to_owned(),
        value,
        ttl: Some(3600),
    };
    let within_customer_zone = is_within(decided_at, &kind.zone);
    let (summary, changes) = if let Some(end) = via_cname {
        (
            format!(
                "{decided_at} is a CNAME to {end}, whose CAA records decide. Only the owner of \
                 {end} can change them (a CNAME name cannot carry its own CAA)."
            ),
            Vec::new(),
        )
    } else if let CaaReason::UnknownCriticalProperty { .. } = reason {
        let changes = deciding
            .iter()
            .filter(|_| within_customer_zone)
            .map(|record| {
                change(
                    ChangeAction::Remove,
                    &record_owner(record),
                    record.to_presentation(),
                )
            })
            .collect();
        (
            format!(
                "Remove the critical CAA record that no CA understands at {decided_at} \
                 ({}), or clear its critical flag (128 → 0).",
                deciding
                    .iter()
                    .map(CaaRecord::to_presentation)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            changes,
        )
    } else if within_customer_zone {
        let mut changes: Vec<RecordChange> = deciding
            .iter()
            .filter(|record| {
                matches!(
                    record.property(),
                    CaaProperty::Issue(value) | CaaProperty::IssueWild(value)
                        if value.issuer.is_none()
                )
            })
            .map(|record| {
                change(
                    ChangeAction::Remove,
                    &record_owner(record),
                    record.to_presentation(),
                )
            })
            .collect();
        changes.push(change(ChangeAction::Add, decided_at, authorizing.clone()));
        (
            format!(
                "Add the CAA record {authorizing} at {} in the zone {}; the other CAs it lists \
                 may stay.",
                relative_name(decided_at, &kind.zone),
                kind.zone
            ),
            changes,
        )
    } else {
        (
            format!(
                "The deciding CAA records sit at {decided_at}, above your domain. Add \
                 {authorizing} at @ in {}: the climb stops at the first name with CAA records.",
                kind.zone
            ),
            vec![change(ChangeAction::Add, &kind.zone, authorizing.clone())],
        )
    };
    Finding {
        code: FindingCode::CaaForbidsIssuance,
        severity: Severity::Error,
        title: format!("CAA at {decided_at} forbids {ca_identity} from issuing for {hostname}"),
        detail: format!(
            "Climbing from {hostname} towards the root, the first CAA records are at \
             {decided_at}{}: {reason}. The certificate will not be issued.",
            via_cname
                .map(|end| format!(" (through its CNAME to {end})"))
                .unwrap_or_default()
        ),
        evidence: shown,
        fix: Some(Fix {
            summary,
            changes,
            steps: Vec::new(),
        }),
        cached_until: None,
    }
}

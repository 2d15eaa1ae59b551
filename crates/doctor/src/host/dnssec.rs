//! The fourth phase: DNSSEC, validated by the doctor when the run asks for it or when a
//! resolver's SERVFAIL is cured by checking disabled (then only its one cause is named).

use hickory_proto::rr::RecordType;

use super::run::Run;
use crate::checks;
use crate::report::{Finding, FindingCode};

pub(crate) async fn judge(run: &Run, name: &str, findings: &mut Vec<Finding>) {
    let primary = run.primary();
    let engine = &run.engine;
    // A resolver's SERVFAIL that checking disabled cures: validated even in a run that does
    // not validate every name, to name the one cause.
    let resolver_failed = findings
        .iter()
        .any(|finding| finding.code == FindingCode::DnssecFailure);
    if let Some(source) = run
        .dnssec
        .as_ref()
        .filter(|_| run.options.dnssec || resolver_failed)
    {
        // Validation climbs from the trust anchor's keys (the root's, or the first owner's in
        // the caller's file): a server that does not hand them out (an authoritative server
        // such as the local service's, asked for the root) cannot be validated through, and
        // hickory would call every answer bogus.
        let anchor_owner =
            checks::dnssec::anchors::anchor_owner(run.options.trust_anchor.as_deref());
        let anchor_keys = engine
            .ask(
                primary.address,
                primary.recursive(),
                &anchor_owner,
                RecordType::DNSKEY,
            )
            .await;
        let verdict = if anchor_keys.records_of_type("DNSKEY").next().is_some() {
            source
                .verdict(primary.address, name, run.options.timeout, run.now)
                .await
        } else {
            checks::dnssec::DnssecVerdict::Unknown(format!(
                "{} does not give the DNSKEY records of {anchor_owner}, where the trust \
                 anchor is",
                primary.source.label
            ))
        };
        // A name with no records yet has only a negative answer to validate, and the record
        // it needs is what the CA will look up: DNSSEC is judged on that answer once it
        // exists. (A zone signed without proofs of non-existence, as the demo's, has every
        // missing name called bogus, with a fix at the registrar that is not the fix.)
        let record_missing = findings
            .iter()
            .any(|finding| finding.code == FindingCode::RecordMissing);
        let verdict = match verdict {
            checks::dnssec::DnssecVerdict::Bogus(_) if record_missing => {
                checks::dnssec::DnssecVerdict::Unknown(format!(
                    "{name} has no records yet; DNSSEC is judged on its answer once it has"
                ))
            }
            verdict => verdict,
        };
        if !run.options.dnssec {
            // Only the cause is wanted: it replaces the failure's list of possible ones.
            if let checks::dnssec::DnssecVerdict::Broken(cause) = &verdict
                && !matches!(cause, checks::dnssec::BrokenChain::UntrustedKeys { .. })
                && let Some(failure) = findings
                    .iter_mut()
                    .find(|finding| finding.code == FindingCode::DnssecFailure)
            {
                let resolver = failure
                    .evidence
                    .first()
                    .map_or("A validating resolver", |shown| shown.server.as_str());
                failure.title = cause.title(name);
                failure.detail = format!(
                    "{} {resolver} answers SERVFAIL, but answers with validation turned off.",
                    cause.detail(name)
                );
                failure.fix = cause.fix();
            }
        } else {
            findings.extend(checks::dnssec::finding(
                name,
                &primary.source.label,
                &verdict,
            ));
        }
        // The doctor's own verdict and a resolver's SERVFAIL that CD cures are one cause:
        // one finding, with the resolver's answers as evidence. Only what the resolver did is
        // added: the doctor's verdict has named the cause, which the resolver's failure alone
        // could not.
        if let Some(failure) = findings
            .iter()
            .position(|finding| finding.code == FindingCode::DnssecFailure)
            .filter(|_| {
                findings
                    .iter()
                    .any(|finding| finding.code == FindingCode::DnssecBogus)
            })
        {
            let failure = findings.remove(failure);
            if let Some(bogus) = findings
                .iter_mut()
                .find(|finding| finding.code == FindingCode::DnssecBogus)
            {
                let resolver = failure
                    .evidence
                    .first()
                    .map_or("A validating resolver", |shown| shown.server.as_str());
                bogus.detail = format!(
                    "{} {resolver} answers SERVFAIL, but answers with validation turned off.",
                    bogus.detail
                );
                bogus.evidence.extend(failure.evidence);
            }
        }
    }
}

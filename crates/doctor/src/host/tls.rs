//! The sixth phase: TLS once the DNS is right — at the edge the caller named, or at every
//! address the name reaches, each on its own.

use super::answers::Answers;
use super::run::Run;
use super::zone::Zone;
use crate::report::{Finding, Severity, TlsProbe};

/// The probe the name is judged by, and one probe per address when it reaches several.
pub(crate) async fn judge(
    run: &Run,
    name: &str,
    zone: &Zone,
    answers: &Answers,
    findings: &mut Vec<Finding>,
) -> (Option<TlsProbe>, Vec<TlsProbe>) {
    let dns_is_right = !findings
        .iter()
        .any(|finding| finding.severity == Severity::Error);
    if !run.options.tls_probe || !dns_is_right {
        return (None, Vec::new());
    }
    let probes = crate::checks::tls::probe_all(
        name,
        Some(&zone.kind),
        &answers.address,
        &run.options,
        &run.tls,
        run.now,
    )
    .await;
    findings.extend(probes.findings);
    (Some(probes.edge), probes.addresses)
}

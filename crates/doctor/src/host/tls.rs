//! The sixth phase: TLS at the edge, once the DNS is right.

use super::Run;
use super::answers::Answers;
use crate::report::{Finding, Severity, TlsProbe};

pub(crate) async fn judge(
    run: &Run,
    name: &str,
    answers: &Answers,
    findings: &mut Vec<Finding>,
) -> Option<TlsProbe> {
    let dns_is_right = !findings
        .iter()
        .any(|finding| finding.severity == Severity::Error);
    if !run.options.tls_probe || !dns_is_right {
        return None;
    }
    let (probe, tls_findings) =
        crate::checks::tls::probe(name, &answers.address, &run.options, &run.tls, run.now).await;
    findings.extend(tls_findings);
    Some(probe)
}

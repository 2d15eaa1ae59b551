//! Servers that do not answer properly: timeouts, REFUSED, SERVFAIL, and SERVFAIL that goes
//! away with checking disabled (a DNSSEC failure: the CA's resolvers will fail the same way).

use crate::checks::evidence;
use crate::dns::{Answer, AnswerStatus};
use crate::report::{Finding, FindingCode, Fix, Severity};

/// One server's answer to the hostname's A question, and, after a SERVFAIL, its answer to
/// the same question with checking disabled.
pub struct ServerAnswer<'a> {
    pub label: &'a str,
    pub answer: &'a Answer,
    pub checking_disabled: Option<&'a Answer>,
}

pub fn check(hostname: &str, offline: bool, answers: &[ServerAnswer<'_>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !answers.is_empty()
        && answers
            .iter()
            .all(|server| !server.answer.status.is_answer())
    {
        findings.push(Finding {
            code: FindingCode::NoServerAnswered,
            severity: Severity::Error,
            title: format!("No DNS server gave an answer for {hostname}"),
            detail: "Every server asked timed out, refused or failed, so nothing about the \
                     records can be said. The CA and the platform will fail the same way."
                .to_owned(),
            evidence: answers
                .iter()
                .map(|server| evidence(server.label, server.answer, None))
                .collect(),
            fix: None,
            cached_until: None,
        });
    }
    // Servers that could not be reached are said once, together: offline or behind a
    // firewall, that is every public resolver, and it is one fact, not one per server.
    let silent: Vec<&ServerAnswer<'_>> = answers
        .iter()
        .filter(|server| {
            matches!(
                server.answer.status,
                AnswerStatus::Timeout | AnswerStatus::Failed
            )
        })
        .collect();
    if silent.len() > 1 && silent.len() < answers.len() {
        let labels: Vec<&str> = silent.iter().map(|server| server.label).collect();
        let (last, rest) = labels.split_last().unwrap_or((&"", &[]));
        findings.push(Finding {
            code: FindingCode::ServerTimeout,
            severity: Severity::Warning,
            title: format!("{} and {last} could not be reached", rest.join(", ")),
            detail: format!(
                "They gave no usable answer ({}): this computer may be offline for them, or a \
                 firewall is in the way. The rest of the report is what the other servers \
                 said; nothing in it is judged broken because these were silent.",
                silent[0].answer.error.as_deref().unwrap_or("no answer")
            ),
            evidence: silent
                .iter()
                .map(|server| evidence(server.label, server.answer, None))
                .collect(),
            fix: None,
            cached_until: None,
        });
    }
    let said_together = silent.len() > 1 && silent.len() < answers.len();
    for server in answers {
        let answer = server.answer;
        match answer.status {
            AnswerStatus::Timeout | AnswerStatus::Failed if said_together => {}
            AnswerStatus::Timeout | AnswerStatus::Failed => findings.push(Finding {
                code: FindingCode::ServerTimeout,
                severity: Severity::Warning,
                title: format!("{} did not answer", server.label),
                detail: format!(
                    "The question {} {} got no usable answer: {}.",
                    answer.question,
                    answer.question_type,
                    answer.error.as_deref().unwrap_or("no answer")
                ),
                evidence: vec![evidence(server.label, answer, None)],
                fix: None,
                cached_until: None,
            }),
            AnswerStatus::Refused => findings.push(if offline {
                Finding {
                    code: FindingCode::NotServed,
                    severity: Severity::Error,
                    title: format!("{} does not serve {hostname}", server.label),
                    detail: format!(
                        "The server refused the question: it holds no zone for {hostname}. \
                         Add the zone to this server, or diagnose a name it serves."
                    ),
                    evidence: vec![evidence(server.label, answer, None)],
                    fix: None,
                    cached_until: None,
                }
            } else {
                Finding {
                    code: FindingCode::ServerRefused,
                    severity: Severity::Warning,
                    title: format!("{} refused to answer", server.label),
                    detail: "The server refused the question; it may not offer recursion to \
                             this network."
                        .to_owned(),
                    evidence: vec![evidence(server.label, answer, None)],
                    fix: None,
                    cached_until: None,
                }
            }),
            AnswerStatus::ServFail => {
                let dnssec = server
                    .checking_disabled
                    .is_some_and(|unchecked| unchecked.status.is_answer());
                let mut shown = vec![evidence(server.label, answer, None)];
                if let Some(unchecked) = server.checking_disabled {
                    shown.push(evidence(
                        server.label,
                        unchecked,
                        Some("asked again with DNSSEC checking disabled (CD)".to_owned()),
                    ));
                }
                findings.push(if dnssec {
                    Finding {
                        code: FindingCode::DnssecFailure,
                        severity: Severity::Error,
                        title: format!("DNSSEC validation fails for {hostname}"),
                        detail: format!(
                            "{} answers SERVFAIL, but answers with validation turned off: the \
                             zone's signatures or its DS record at the registrar are wrong. \
                             Validating resolvers, and the CA, cannot resolve the name.",
                            server.label
                        ),
                        evidence: shown,
                        fix: Some(Fix {
                            summary: "Make the DS record at the registrar match the zone's \
                                      current key, or remove the DS record to turn DNSSEC off, \
                                      then wait for the DS TTL to pass."
                                .to_owned(),
                            changes: Vec::new(),
                            steps: Vec::new(),
                        }),
                        cached_until: None,
                    }
                } else {
                    Finding {
                        code: FindingCode::Servfail,
                        severity: Severity::Error,
                        title: format!("{} answers SERVFAIL for {hostname}", server.label),
                        detail: "The server could not resolve the name: a broken delegation \
                                 (nameservers that do not answer for the zone) is the usual \
                                 cause. The CA treats a failed lookup as a refusal."
                            .to_owned(),
                        evidence: shown,
                        fix: Some(Fix {
                            summary: "Check that the nameservers listed at the registrar are \
                                      the ones hosting the zone, and that each of them answers."
                                .to_owned(),
                            changes: Vec::new(),
                            steps: Vec::new(),
                        }),
                        cached_until: None,
                    }
                });
            }
            AnswerStatus::OtherRcode => findings.push(Finding {
                code: FindingCode::Servfail,
                severity: Severity::Error,
                title: format!("{} answers with an error for {hostname}", server.label),
                detail: answer
                    .error
                    .clone()
                    .unwrap_or_else(|| "The server answered with an error.".to_owned()),
                evidence: vec![evidence(server.label, answer, None)],
                fix: None,
                cached_until: None,
            }),
            AnswerStatus::NoError | AnswerStatus::NxDomain => {}
        }
    }
    findings
}

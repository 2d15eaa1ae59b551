//! DNSSEC validated by the doctor itself, from a trust anchor down to the name: after a move
//! between providers the DS record at the registrar often names the old provider's key, and a
//! validating CA then sees SERVFAIL and never issues.
//!
//! The questions go to the run's recursive resolver with checking disabled (CD), so that a
//! validating resolver hands over even data it judges bogus, and hickory's DNSSEC handle
//! checks every signature, DNSKEY and DS from the trust anchor (IANA's root keys, or the
//! caller's) down. The verdict is hickory's proof for the name's A answer.
//!
//! This file is the check: the validation and its finding. The trust anchors a run starts
//! from are read in `anchors.rs`; where a run's verdicts come from (validation now, recorded
//! for a capture, or replayed from one) is `recording.rs`; the TCP exchange with checking
//! disabled that both validation and anchors use is `tcp.rs`.

pub mod anchors;
pub mod recording;
mod tcp;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hickory_proto::dnssec::{DnssecDnsHandle, Proof, TrustAnchors};
use hickory_proto::op::Query;
use hickory_proto::rr::{Name, RecordType};
use hickory_proto::xfer::{DnsHandle, DnsRequestOptions};
use serde::{Deserialize, Serialize};

use self::tcp::{CheckingDisabled, connect};
use crate::report::{Finding, FindingCode, Fix, Severity};

/// What validation found for a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "snake_case")]
pub enum DnssecVerdict {
    /// A chain of signatures from the trust anchor to the answer.
    Secure,
    /// A proven gap in the chain (no DS at a parent): the zone is not signed.
    Insecure,
    /// The chain should exist but does not hold: an expired or missing signature, a DS that
    /// matches no key.
    Bogus(String),
    /// Validation could not be done (the resolver did not answer, say).
    Unknown(String),
}

/// Validates `hostname`'s A answer through `resolver` (over TCP: signed answers are large).
pub async fn validate(
    resolver: SocketAddr,
    hostname: &str,
    anchors: Arc<TrustAnchors>,
    timeout: Duration,
) -> DnssecVerdict {
    let outcome = tokio::time::timeout(timeout * 4, async {
        let name = Name::from_ascii(format!("{hostname}."))
            .map_err(|error| format!("{hostname} is not a DNS name: {error}"))?;
        let (exchange, background) = connect(resolver, timeout).await?;
        let validating = DnssecDnsHandle::with_trust_anchor(CheckingDisabled(exchange), anchors);
        let answer = validating
            .lookup(
                Query::query(name, RecordType::A),
                DnsRequestOptions::default(),
            )
            .next()
            .await;
        background.abort();
        Ok::<_, String>(answer)
    })
    .await;
    let answer = match outcome {
        Err(_) => return DnssecVerdict::Unknown("validation took too long".to_owned()),
        Ok(Err(error)) => return DnssecVerdict::Unknown(error),
        Ok(Ok(None)) => return DnssecVerdict::Unknown("no answer".to_owned()),
        Ok(Ok(Some(answer))) => answer,
    };
    match answer {
        Ok(response) => {
            let proofs: Vec<Proof> = response
                .answers()
                .iter()
                .map(|record| record.proof())
                .collect();
            if proofs.iter().any(|proof| proof.is_bogus()) {
                DnssecVerdict::Bogus("a signature in the answer does not validate".to_owned())
            } else if !proofs.is_empty() && proofs.iter().all(|proof| proof.is_secure()) {
                DnssecVerdict::Secure
            } else if proofs.iter().any(|proof| proof.is_insecure()) {
                DnssecVerdict::Insecure
            } else {
                DnssecVerdict::Unknown("the answer carries no proof either way".to_owned())
            }
        }
        // A proof error says bogus in its message; anything else is a failure to validate.
        Err(error) => {
            let message = error.to_string();
            if message.to_ascii_lowercase().contains("bogus") {
                DnssecVerdict::Bogus(message)
            } else {
                DnssecVerdict::Unknown(message)
            }
        }
    }
}

/// The finding for `verdict`.
pub fn finding(hostname: &str, resolver_label: &str, verdict: &DnssecVerdict) -> Option<Finding> {
    let finding = |code, severity, title: String, detail: String, fix: Option<Fix>| Finding {
        code,
        severity,
        title,
        detail,
        evidence: Vec::new(),
        fix,
    };
    match verdict {
        DnssecVerdict::Secure => Some(finding(
            FindingCode::DnssecValid,
            Severity::Ok,
            format!("DNSSEC validates for {hostname}"),
            format!(
                "Every signature from the trust anchor down to {hostname} checks out (asked \
                 {resolver_label} with checking disabled): validating resolvers and the CA \
                 get the answer."
            ),
            None,
        )),
        DnssecVerdict::Insecure => Some(finding(
            FindingCode::DnssecUnsignedOk,
            Severity::Info,
            format!("{hostname} is not signed with DNSSEC, and that is fine"),
            "A parent zone proves that there is no DS record below it, so resolvers accept \
             the answer unsigned; the CA will too."
                .to_owned(),
            None,
        )),
        DnssecVerdict::Bogus(reason) => Some(finding(
            FindingCode::DnssecBogus,
            Severity::Error,
            format!("DNSSEC is broken for {hostname}"),
            format!(
                "The chain of trust should reach {hostname} but does not ({reason}): an \
                 expired or missing signature, or a DS record at the registrar that matches \
                 no key of the zone (the classic after moving DNS providers). A validating CA \
                 sees SERVFAIL and will not issue the certificate."
            ),
            Some(Fix {
                summary: "At the registrar, remove the DS record (turning DNSSEC off) or \
                          replace it with the DS of the zone's current key from the DNS \
                          provider; if the signatures expired, have the provider sign the zone \
                          again. Then wait for the DS TTL to pass."
                    .to_owned(),
                changes: Vec::new(),
                steps: Vec::new(),
            }),
        )),
        DnssecVerdict::Unknown(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verdict_has_its_finding() {
        let code = |verdict: &DnssecVerdict| {
            finding("www.example.com", "resolver", verdict)
                .map(|found| (found.code, found.severity))
        };
        assert_eq!(
            code(&DnssecVerdict::Secure),
            Some((FindingCode::DnssecValid, Severity::Ok))
        );
        assert_eq!(
            code(&DnssecVerdict::Insecure),
            Some((FindingCode::DnssecUnsignedOk, Severity::Info))
        );
        assert_eq!(
            code(&DnssecVerdict::Bogus("expired".into())),
            Some((FindingCode::DnssecBogus, Severity::Error))
        );
        assert_eq!(code(&DnssecVerdict::Unknown("no answer".into())), None);
    }
}

//! DNSSEC validated by the doctor itself, from a trust anchor down to the name: after a move
//! between providers the DS record at the registrar often names the old provider's key, and a
//! validating CA then sees SERVFAIL and never issues.
//!
//! The questions go to the run's recursive resolver with checking disabled (CD), so that a
//! validating resolver hands over even data it judges bogus. The doctor walks the chain itself
//! (`walk.rs`): every signature, DNSKEY and DS from the trust anchor (IANA's root keys, or the
//! caller's) down, each signature dated against the run's clock (the platform's, against the
//! local service), and a broken chain named by its one cause (`cause.rs`). hickory's DNSSEC
//! handle decides only what the walk cannot prove (NSEC3 denials, answers without records).
//!
//! This file is the check: the validation and its finding. The trust anchors a run starts
//! from are read in `anchors.rs`; where a run's verdicts come from (validation now, recorded
//! for a capture, or replayed from one) is `recording.rs`; the TCP exchange with checking
//! disabled that the walk, hickory's handle and the anchors use is `tcp.rs`.

pub mod anchors;
pub mod cause;
pub mod recording;
mod tcp;
mod walk;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use futures::StreamExt;
use hickory_net::dnssec::DnssecDnsHandle;
use hickory_net::xfer::DnsHandle;
use hickory_proto::dnssec::{Proof, TrustAnchors};
use hickory_proto::op::{DnsRequestOptions, Query};
use hickory_proto::rr::{Name, RecordType};
use serde::{Deserialize, Serialize};

pub use self::cause::BrokenChain;
use self::tcp::{CheckingDisabled, connect};
use crate::report::{Finding, FindingCode, Fix, Severity};

/// What validation found for a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "snake_case")]
pub enum DnssecVerdict {
    /// A chain of signatures from the trust anchor to the answer.
    Secure,
    /// The name's own records validate, and its CNAME leads into a zone proven unsigned
    /// (which resolvers and CAs accept).
    SignedToUnsigned {
        /// The first name of the answer not signed.
        target: String,
        /// Its zone, when known.
        zone: Option<String>,
    },
    /// A proven gap in the chain (no DS at a parent): the zone is not signed.
    Insecure,
    /// The chain should exist but does not hold, for this one cause.
    Broken(BrokenChain),
    /// The chain should exist but does not hold, as hickory's validator says (for what the
    /// doctor's own walk leaves to it).
    Bogus(String),
    /// Validation could not be done (the resolver did not answer, say).
    Unknown(String),
}

/// Validates `hostname`'s A answer through `resolver` (over TCP: signed answers are large),
/// judging signatures at `now`: the doctor's own walk (`walk.rs`), and hickory's validator
/// for what the walk leaves unproven.
pub async fn validate(
    resolver: SocketAddr,
    hostname: &str,
    anchors: Arc<TrustAnchors>,
    timeout: Duration,
    now: DateTime<Utc>,
) -> DnssecVerdict {
    let walked = tokio::time::timeout(timeout * 8, async {
        let name = Name::from_ascii(format!("{hostname}."))
            .map_err(|error| format!("{hostname} is not a DNS name: {error}"))?;
        let (exchange, background) = connect(resolver, timeout).await?;
        let walked = walk::Walk::new(exchange, Arc::clone(&anchors), now, timeout)
            .name(&name)
            .await;
        background.abort();
        Ok::<_, String>(walked)
    })
    .await;
    match walked {
        Err(_) => DnssecVerdict::Unknown("validation took too long".to_owned()),
        Ok(Err(error)) => DnssecVerdict::Unknown(error),
        Ok(Ok(walk::Walked::Secure)) => DnssecVerdict::Secure,
        Ok(Ok(walk::Walked::SignedToUnsigned { target, zone })) => {
            DnssecVerdict::SignedToUnsigned {
                target,
                zone: Some(zone),
            }
        }
        Ok(Ok(walk::Walked::Insecure)) => DnssecVerdict::Insecure,
        Ok(Ok(walk::Walked::Broken(cause))) => DnssecVerdict::Broken(cause),
        Ok(Ok(walk::Walked::Unknown(why))) => DnssecVerdict::Unknown(why),
        Ok(Ok(walk::Walked::Unproven(why))) => {
            tracing::debug!(hostname, why, "left to hickory's validator");
            validate_with_hickory(resolver, hostname, anchors, timeout).await
        }
    }
}

/// hickory's verdict for `hostname`'s A answer: signatures judged by this computer's clock.
async fn validate_with_hickory(
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
            let proofs: Vec<Proof> = response.answers.iter().map(|record| record.proof).collect();
            if proofs.iter().any(|proof| proof.is_bogus()) {
                DnssecVerdict::Bogus("a signature in the answer does not validate".to_owned())
            } else if !proofs.is_empty() && proofs.iter().all(|proof| proof.is_secure()) {
                DnssecVerdict::Secure
            } else if let (Some(_), Some(unsigned)) = (
                proofs.first().filter(|proof| proof.is_secure()),
                response
                    .answers
                    .iter()
                    .find(|record| record.proof.is_insecure()),
            ) {
                DnssecVerdict::SignedToUnsigned {
                    target: walk::display(&unsigned.name),
                    zone: None,
                }
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
        cached_until: None,
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
        DnssecVerdict::SignedToUnsigned { target, zone } => Some(finding(
            FindingCode::DnssecValid,
            Severity::Ok,
            format!("DNSSEC validates for {hostname}; its target {target} is not signed"),
            format!(
                "The records of {hostname} are signed and every signature from the trust \
                 anchor down checks out (asked {resolver_label} with checking disabled). Its \
                 CNAME leads to {target}, {}: its parent proves there is no DS record for it, \
                 so validating resolvers and the CA accept its answer unsigned.",
                match zone {
                    Some(zone) if zone != target => {
                        format!("in {zone}, a zone that is not signed")
                    }
                    _ => "whose zone is not signed".to_owned(),
                }
            ),
            None,
        )),
        DnssecVerdict::Broken(cause) => Some(finding(
            FindingCode::DnssecBogus,
            Severity::Error,
            cause.title(hostname),
            cause.detail(hostname),
            cause.fix(),
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

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
//! The verdict is per link: the name's own records (its CNAME, or its addresses) are judged
//! in its own zone, and each name its CNAME chain leads to in its own. A signed name whose
//! CNAME leads into an unsigned zone is valid for itself, with the target's zone said to be
//! unsigned (resolvers and CAs accept that); a link that breaks anywhere on the chain makes
//! the name bogus, and the cause names that link.
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
    /// The name's own records validate in its zone, and its CNAME leads into a zone proven
    /// unsigned (which resolvers and CAs accept).
    SignedToUnsigned {
        /// The first name of the answer not signed.
        target: String,
        /// Its zone, when known.
        zone: Option<String>,
        /// The zone that signs the name's own records, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signed_zone: Option<String>,
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
/// judging signatures at `now`, link by link: the name's own RRset in its zone, then each
/// name of its CNAME chain in its own. The doctor's own walk (`walk.rs`) judges each link;
/// hickory's validator judges a link the walk leaves unproven (an NSEC3 denial of a DS), or
/// the whole answer when it holds no records to walk.
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
            .links(&name)
            .await;
        background.abort();
        Ok::<_, String>(walked)
    })
    .await;
    let mut links = match walked {
        Err(_) => return DnssecVerdict::Unknown("validation took too long".to_owned()),
        Ok(Err(error)) => return DnssecVerdict::Unknown(error),
        Ok(Ok(Err(walk::Walked::Unknown(why)))) => return DnssecVerdict::Unknown(why),
        Ok(Ok(Err(walk::Walked::Unproven(why)))) => {
            tracing::debug!(hostname, why, "left to hickory's validator");
            return validate_with_hickory(resolver, hostname, anchors, timeout).await;
        }
        Ok(Ok(Ok(links))) => links,
    };
    for link in &mut links {
        if let walk::LinkState::Unproven(why) = &link.state {
            tracing::debug!(
                hostname,
                link.owner,
                link.record_type,
                why,
                "left to hickory"
            );
            link.state = link_with_hickory(
                resolver,
                &link.owner,
                &link.record_type,
                Arc::clone(&anchors),
                timeout,
            )
            .await;
        }
    }
    verdict_of(&links)
}

/// The name's verdict from its links (the name's own first): a link that breaks anywhere on
/// the chain makes it bogus, naming that link; otherwise the name's own link decides, and a
/// later link in an unsigned zone is said beside it.
fn verdict_of(links: &[walk::Link]) -> DnssecVerdict {
    use walk::LinkState;
    if let Some(cause) = links.iter().find_map(|link| match &link.state {
        LinkState::Broken(cause) => Some(cause),
        _ => None,
    }) {
        return DnssecVerdict::Broken(cause.clone());
    }
    if let Some((link, reason)) = links.iter().find_map(|link| match &link.state {
        LinkState::Bogus(reason) => Some((link, reason)),
        _ => None,
    }) {
        return DnssecVerdict::Bogus(format!("{} {}: {reason}", link.owner, link.record_type));
    }
    if let Some(why) = links.iter().find_map(|link| match &link.state {
        LinkState::Unknown(why) | LinkState::Unproven(why) => Some(why),
        _ => None,
    }) {
        return DnssecVerdict::Unknown(why.clone());
    }
    let Some(own) = links.first() else {
        return DnssecVerdict::Unknown("the answer holds no records".to_owned());
    };
    if own.state != LinkState::Secure {
        return DnssecVerdict::Insecure;
    }
    match links.iter().find(|link| link.state == LinkState::Insecure) {
        None => DnssecVerdict::Secure,
        Some(unsigned) => DnssecVerdict::SignedToUnsigned {
            target: unsigned.owner.clone(),
            zone: unsigned.zone.clone(),
            signed_zone: own.zone.clone(),
        },
    }
}

/// hickory's verdict for one link: `owner`'s `record_type` RRset, asked alone (a CNAME asked
/// as CNAME), with signatures judged by this computer's clock.
async fn link_with_hickory(
    resolver: SocketAddr,
    owner: &str,
    record_type: &str,
    anchors: Arc<TrustAnchors>,
    timeout: Duration,
) -> walk::LinkState {
    use walk::LinkState;
    let Ok(kind) = record_type.parse::<RecordType>() else {
        return LinkState::Unknown(format!("{record_type} is not a record type"));
    };
    let outcome = tokio::time::timeout(timeout * 4, async {
        let name = Name::from_ascii(format!("{owner}."))
            .map_err(|error| format!("{owner} is not a DNS name: {error}"))?;
        let (exchange, background) = connect(resolver, timeout).await?;
        let validating = DnssecDnsHandle::with_trust_anchor(CheckingDisabled(exchange), anchors);
        let answer = validating
            .lookup(
                Query::query(name.clone(), kind),
                DnsRequestOptions::default(),
            )
            .next()
            .await;
        background.abort();
        Ok::<_, String>((name, answer))
    })
    .await;
    let (name, answer) = match outcome {
        Err(_) => return LinkState::Unknown("validation took too long".to_owned()),
        Ok(Err(error)) => return LinkState::Unknown(error),
        Ok(Ok((_, None))) => return LinkState::Unknown("no answer".to_owned()),
        Ok(Ok((name, Some(answer)))) => (name, answer),
    };
    match answer {
        Ok(response) => {
            let proofs: Vec<Proof> = response
                .answers
                .iter()
                .filter(|record| record.name == name && record.record_type() == kind)
                .map(|record| record.proof)
                .collect();
            if proofs.iter().any(|proof| proof.is_bogus()) {
                LinkState::Bogus("its signature does not validate".to_owned())
            } else if !proofs.is_empty() && proofs.iter().all(|proof| proof.is_secure()) {
                LinkState::Secure
            } else if !proofs.is_empty() && proofs.iter().all(|proof| proof.is_insecure()) {
                LinkState::Insecure
            } else {
                LinkState::Unknown(format!(
                    "the answer for {owner} {record_type} carries no proof either way"
                ))
            }
        }
        Err(error) => {
            let message = error.to_string();
            if message.to_ascii_lowercase().contains("bogus") {
                LinkState::Bogus(message)
            } else {
                LinkState::Unknown(message)
            }
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
            // The name's own records decide, wherever they come in the answer (hickory gives
            // the RRsets back in no set order).
            let own_secure = response
                .answers
                .iter()
                .filter(|record| walk::display(&record.name) == hostname)
                .map(|record| record.proof)
                .reduce(|left, right| if left.is_secure() { right } else { left })
                .is_some_and(|proof| proof.is_secure());
            if proofs.iter().any(|proof| proof.is_bogus()) {
                DnssecVerdict::Bogus("a signature in the answer does not validate".to_owned())
            } else if !proofs.is_empty() && proofs.iter().all(|proof| proof.is_secure()) {
                DnssecVerdict::Secure
            } else if let (true, Some(unsigned)) = (
                own_secure,
                response
                    .answers
                    .iter()
                    .find(|record| record.proof.is_insecure()),
            ) {
                DnssecVerdict::SignedToUnsigned {
                    target: walk::display(&unsigned.name),
                    zone: None,
                    signed_zone: None,
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
        DnssecVerdict::SignedToUnsigned {
            target,
            zone,
            signed_zone,
        } => Some(finding(
            FindingCode::DnssecValid,
            Severity::Ok,
            format!("DNSSEC validates for {hostname}; its target {target} is not signed"),
            format!(
                "{} every signature from the trust anchor down to {hostname} checks out (asked \
                 {resolver_label} with checking disabled). Its CNAME leads to {target}, {}: its \
                 parent proves there is no DS record for it, so validating resolvers and the CA \
                 accept its answer unsigned.",
                match signed_zone {
                    Some(signed) => format!("{signed} is signed and its records validate:"),
                    None => format!("The records of {hostname} are signed and validate:"),
                },
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

    fn link(owner: &str, record_type: &str, state: walk::LinkState, zone: &str) -> walk::Link {
        walk::Link {
            owner: owner.to_owned(),
            record_type: record_type.to_owned(),
            state,
            zone: Some(zone.to_owned()),
        }
    }

    /// The name's own link decides, a later unsigned link is said beside it, and a link that
    /// breaks anywhere makes the name bogus.
    #[test]
    fn the_verdict_is_the_names_own_link_and_any_broken_one() {
        use walk::LinkState::{Bogus, Broken, Insecure, Secure, Unknown};
        let cname = |state| link("www.good.com", "CNAME", state, "good.com");
        let end = |state| link("www.shop.net", "A", state, "shop.net");
        assert_eq!(
            verdict_of(&[cname(Secure), end(Secure)]),
            DnssecVerdict::Secure
        );
        let into_unsigned = verdict_of(&[cname(Secure), end(Insecure)]);
        assert_eq!(
            into_unsigned,
            DnssecVerdict::SignedToUnsigned {
                target: "www.shop.net".to_owned(),
                zone: Some("shop.net".to_owned()),
                signed_zone: Some("good.com".to_owned()),
            }
        );
        // an unsigned name is unsigned, however well signed its target
        assert_eq!(
            verdict_of(&[cname(Insecure), end(Secure)]),
            DnssecVerdict::Insecure
        );
        let expired = BrokenChain::SignatureMissing {
            owner: "www.shop.net".to_owned(),
            record_type: "A".to_owned(),
            zone: "shop.net".to_owned(),
        };
        assert_eq!(
            verdict_of(&[cname(Secure), end(Broken(expired.clone()))]),
            DnssecVerdict::Broken(expired)
        );
        assert_eq!(
            verdict_of(&[cname(Insecure), end(Bogus("no".to_owned()))]),
            DnssecVerdict::Bogus("www.shop.net A: no".to_owned())
        );
        assert_eq!(
            verdict_of(&[cname(Secure), end(Unknown("silence".to_owned()))]),
            DnssecVerdict::Unknown("silence".to_owned())
        );
        assert!(matches!(verdict_of(&[]), DnssecVerdict::Unknown(_)));

        let valid = finding("www.good.com", "the resolver", &into_unsigned).unwrap();
        assert_eq!(
            valid.detail,
            "good.com is signed and its records validate: every signature from the trust \
             anchor down to www.good.com checks out (asked the resolver with checking \
             disabled). Its CNAME leads to www.shop.net, in shop.net, a zone that is not \
             signed: its parent proves there is no DS record for it, so validating resolvers \
             and the CA accept its answer unsigned."
        );
        // a capture written before the name's zone was kept reads, and says it without it
        let older: DnssecVerdict = serde_json::from_str(
            r#"{"verdict":"signed_to_unsigned","reason":{"target":"www.shop.net","zone":null}}"#,
        )
        .unwrap();
        let said = finding("www.good.com", "the resolver", &older).unwrap();
        assert!(
            said.detail
                .starts_with("The records of www.good.com are signed and validate: every"),
            "{}",
            said.detail
        );
        assert!(
            said.detail
                .contains("leads to www.shop.net, whose zone is not signed")
        );
    }
}

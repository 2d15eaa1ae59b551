//! DNSSEC validated by the doctor itself, from a trust anchor down to the name: after a move
//! between providers the DS record at the registrar often names the old provider's key, and a
//! validating CA then sees SERVFAIL and never issues.
//!
//! The questions go to the run's recursive resolver with checking disabled (CD), so that a
//! validating resolver hands over even data it judges bogus, and hickory's DNSSEC handle
//! checks every signature, DNSKEY and DS from the trust anchor (IANA's root keys, or the
//! caller's) down. The verdict is hickory's proof for the name's A answer.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use futures::StreamExt;
use hickory_proto::dnssec::{DnssecDnsHandle, Proof, TrustAnchors};
use hickory_proto::op::Query;
use hickory_proto::rr::{Name, RecordType};
use hickory_proto::runtime::{TokioRuntimeProvider, TokioTime};
use hickory_proto::tcp::TcpClientStream;
use hickory_proto::xfer::{DnsExchange, DnsHandle, DnsMultiplexer, DnsRequest, DnsRequestOptions};
use serde::{Deserialize, Serialize};

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

/// One validation, as a capture keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DnssecExchange {
    pub hostname: String,
    /// The resolver asked (with checking disabled).
    pub resolver: SocketAddr,
    pub checked_at: DateTime<Utc>,
    #[serde(flatten)]
    pub verdict: DnssecVerdict,
}

/// Where verdicts come from: validation now, validation recorded for a capture, or a capture.
pub(crate) enum DnssecSource {
    Network(Arc<TrustAnchors>),
    Recording(Arc<TrustAnchors>, Mutex<Vec<DnssecExchange>>),
    Replay(Vec<DnssecExchange>),
}

impl DnssecSource {
    pub(crate) async fn verdict(
        &self,
        resolver: SocketAddr,
        hostname: &str,
        timeout: Duration,
    ) -> DnssecVerdict {
        match self {
            DnssecSource::Network(anchors) => {
                validate(resolver, hostname, Arc::clone(anchors), timeout).await
            }
            DnssecSource::Recording(anchors, log) => {
                let checked_at = Utc::now();
                let verdict = validate(resolver, hostname, Arc::clone(anchors), timeout).await;
                log.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(DnssecExchange {
                        hostname: hostname.to_owned(),
                        resolver,
                        checked_at,
                        verdict: verdict.clone(),
                    });
                verdict
            }
            DnssecSource::Replay(exchanges) => exchanges
                .iter()
                .find(|exchange| exchange.hostname == hostname && exchange.resolver == resolver)
                .map(|exchange| exchange.verdict.clone())
                .unwrap_or_else(|| {
                    DnssecVerdict::Unknown("the capture holds no DNSSEC validation".to_owned())
                }),
        }
    }

    pub(crate) fn recorded(&self) -> Vec<DnssecExchange> {
        match self {
            DnssecSource::Recording(_, log) => {
                log.lock().unwrap_or_else(PoisonError::into_inner).clone()
            }
            DnssecSource::Network(_) | DnssecSource::Replay(_) => Vec::new(),
        }
    }
}

/// Reads trust anchors in zone-file form (DNSKEY records, `;` comments allowed). Each line
/// is checked and written canonically before hickory's parser sees it, which asserts on
/// some malformed input instead of returning an error.
pub fn trust_anchors(text: Option<&str>) -> Result<TrustAnchors, String> {
    let Some(text) = text else {
        return Ok(TrustAnchors::default());
    };
    let mut canonical = String::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        canonical
            .push_str(&dnskey_line(line).map_err(|problem| {
                format!("line {} of the trust anchor: {problem}", number + 1)
            })?);
        canonical.push('\n');
    }
    if canonical.is_empty() {
        return Err("the trust anchor holds no DNSKEY record".to_owned());
    }
    canonical
        .parse()
        .map_err(|error| format!("the trust anchor is not DNSKEY records: {error}"))
}

/// `owner [ttl] [IN] DNSKEY flags protocol algorithm key…` as `owner IN DNSKEY flags protocol
/// algorithm key`.
fn dnskey_line(line: &str) -> Result<String, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens
        .iter()
        .position(|token| token.eq_ignore_ascii_case("DNSKEY"))
        .ok_or("not a DNSKEY record (DS records are not supported as anchors)")?;
    let (head, tail) = (&tokens[..at], &tokens[at + 1..]);
    let owner = head.first().ok_or("the record has no owner name")?;
    let fits_name = owner.ends_with('.')
        && owner
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_'));
    if !fits_name {
        return Err(format!("{owner:?} is not a fully qualified owner name"));
    }
    for token in &head[1..] {
        let ttl = token.bytes().all(|byte| byte.is_ascii_digit());
        if !ttl && !token.eq_ignore_ascii_case("IN") {
            return Err(format!("unexpected {token:?} before DNSKEY"));
        }
    }
    let [flags, protocol, algorithm, key @ ..] = tail else {
        return Err("a DNSKEY needs flags, protocol, algorithm and key".to_owned());
    };
    for (what, value) in [
        ("flags", flags),
        ("protocol", protocol),
        ("algorithm", algorithm),
    ] {
        value
            .parse::<u16>()
            .map_err(|_| format!("the {what} {value:?} is not a number"))?;
    }
    // hickory asserts that the algorithm is one it supports: ask first.
    let number: u8 = algorithm
        .parse()
        .map_err(|_| format!("the algorithm {algorithm:?} is not a number"))?;
    if !hickory_proto::dnssec::Algorithm::from_u8(number).is_supported() {
        return Err(format!(
            "algorithm {number} is not one the doctor can verify"
        ));
    }
    if *protocol != "3" {
        return Err(format!("the protocol must be 3, not {protocol}"));
    }
    let key = key.concat();
    let base64 = !key.is_empty()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'='));
    if !base64 {
        return Err("the key is not base64".to_owned());
    }
    Ok(format!(
        "{} IN DNSKEY {flags} {protocol} {algorithm} {key}",
        owner.to_ascii_lowercase()
    ))
}

/// Sends every question with the CD flag, below hickory's validating handle (which clears
/// it): the resolver's own verdict must not hide the data the doctor judges.
#[derive(Clone)]
struct CheckingDisabled<H>(H);

impl<H: DnsHandle> DnsHandle for CheckingDisabled<H> {
    type Response = H::Response;

    fn send<R: Into<DnsRequest> + Unpin + Send + 'static>(&self, request: R) -> Self::Response {
        let mut request: DnsRequest = request.into();
        request.set_checking_disabled(true);
        self.0.send(request)
    }
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
        let (stream, handle) = TcpClientStream::new(
            resolver,
            None,
            Some(timeout),
            TokioRuntimeProvider::default(),
        );
        let multiplexer = DnsMultiplexer::with_timeout(stream, handle, timeout, None);
        let (exchange, background) = DnsExchange::connect::<_, _, TokioTime>(multiplexer)
            .await
            .map_err(|error| format!("cannot reach {resolver} over TCP: {error}"))?;
        let background = tokio::spawn(background);
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
    fn trust_anchors_are_dnskey_records_or_the_root_keys() {
        assert_eq!(trust_anchors(None).unwrap().len(), 2);
        let key = ". IN DNSKEY 257 3 13 E8YqmMDyI37QeXB7H3ZZfst4ez+/9DvWZC7JFUXmGISWzkKQB3p/9TVzpj7iF3mPBxqlWBh6yBZcUe70JyRixw==";
        assert_eq!(trust_anchors(Some(key)).unwrap().len(), 1);
        // as ldns-keygen writes it: lowercase class, a comment after the key
        let ldns = format!(
            "{} ;{{id = 43349 (ksk), size = 256b}}",
            key.replace(" IN ", " in 3600 ")
        );
        assert_eq!(trust_anchors(Some(&ldns)).unwrap().len(), 1);
        assert!(matches!(trust_anchors(Some("")), Err(message) if message.contains("no DNSKEY")));
        for (bad, why) in [
            ("not a record", "not a DNSKEY record"),
            (
                ". IN DS 43349 13 2 bbe4a7dc",
                "DS records are not supported",
            ),
            ("example.com IN DNSKEY 257 3 13 abc=", "fully qualified"),
            (". IN DNSKEY 257 3 thirteen abc=", "algorithm"),
            (". IN DNSKEY 257 3 13 ***", "not base64"),
            (". ch DNSKEY 257 3 13 abc=", "unexpected \"ch\""),
        ] {
            match trust_anchors(Some(&format!("; anchors\n{bad}\n"))) {
                Err(message) => {
                    assert!(
                        message.contains(why) && message.contains("line 2"),
                        "{bad}: {message}"
                    )
                }
                Ok(_) => panic!("{bad} was accepted"),
            }
        }
        // well-formed but not a usable key: an answer either way, never a panic
        for odd in [
            ". IN DNSKEY 257 3 13 abc=",
            ". IN DNSKEY 257 3 250 AAAA",
            ". IN DNSKEY 99999 3 13 AAAA",
        ] {
            let _ = trust_anchors(Some(odd)).map(|anchors| anchors.len());
        }
    }

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

//! DNSSEC for the demo's zones (`serve --sign-zones`), so that the offline demo can show the
//! doctor's `dnssec_valid` and, once a zone's signatures are made to expire, `dnssec_bogus`.
//!
//! One ECDSA P-256 key, made when the service starts and never stored, signs every zone the
//! server answers for: each zone's apex answers DNSKEY with it, and each RRset of an answer to
//! a question with the DO bit gets its RRSIG, made at the moment of the answer (hickory's
//! signer; no crypto of ours). There is no DS at a parent (the service has no parent zones):
//! the trust anchor is the key itself, published as DNSKEY records in zone-file form
//! (`/_local/info`'s `dnssec_trust_anchor`), which `domain-desk doctor --trust-anchor` reads.
//! There are no NSEC records, so a negative answer cannot be proven: only positive answers
//! validate.
//!
//! Signatures are valid from a day before the service clock's now to 30 days after; a zone
//! marked expired (`POST /_local/dns/zones/{zone}/dnssec`) gets signatures that ended a day
//! ago, as when a provider stops re-signing.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{PoisonError, RwLock};

use base64::Engine;
use hickory_proto::dnssec::crypto::EcdsaSigningKey;
use hickory_proto::dnssec::rdata::{DNSKEY, DNSSECRData, RRSIG, SigInput};
use hickory_proto::dnssec::{Algorithm, DnssecSigner, PublicKey, SigningKey, TBS};
use hickory_proto::rr::{DNSClass, Name, RData, Record, RecordSet, RecordType};
use rustls::pki_types::PrivatePkcs8KeyDer;

use crate::clock::Clock;
use crate::{Error, Result};

/// How long before now a signature starts to be valid (clocks differ).
const VALID_BEFORE: chrono::TimeDelta = chrono::TimeDelta::days(1);
/// How long after now a fresh signature is valid.
const VALID_FOR: chrono::TimeDelta = chrono::TimeDelta::days(30);
/// The TTL of the DNSKEY records.
const DNSKEY_TTL: u32 = 3600;

/// The signatures a zone gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signatures {
    /// Valid now.
    Valid,
    /// Ended a day ago: validators call the zone bogus.
    Expired,
}

/// The service's zone-signing key and each zone's state.
pub struct ZoneSigning {
    /// The private key, from which each zone's hickory signer is made (a signer names one
    /// zone and owns its key).
    pkcs8: PrivatePkcs8KeyDer<'static>,
    dnskey: DNSKEY,
    clock: Clock,
    expired: RwLock<BTreeSet<String>>,
}

impl std::fmt::Debug for ZoneSigning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneSigning").finish_non_exhaustive()
    }
}

fn dnssec_error(error: impl std::fmt::Display) -> Error {
    Error::Dns(format!("DNSSEC signing: {error}"))
}

impl ZoneSigning {
    /// A new key; signature times read `clock`.
    pub fn generate(clock: Clock) -> Result<Self> {
        let algorithm = Algorithm::ECDSAP256SHA256;
        let pkcs8 = EcdsaSigningKey::generate_pkcs8(algorithm).map_err(dnssec_error)?;
        let key = EcdsaSigningKey::from_pkcs8(&pkcs8, algorithm).map_err(dnssec_error)?;
        let public = key.to_public_key().map_err(dnssec_error)?;
        // A zone key that is also the secure entry point (flags 257): one key signs all.
        let dnskey = DNSKEY::with_flags(257, public);
        Ok(Self {
            pkcs8,
            dnskey,
            clock,
            expired: RwLock::new(BTreeSet::new()),
        })
    }

    /// Sets the signatures `zone` gets from now on.
    pub fn set(&self, zone: &str, signatures: Signatures) {
        let zone = zone.trim_end_matches('.').to_ascii_lowercase();
        let mut expired = self.expired.write().unwrap_or_else(PoisonError::into_inner);
        match signatures {
            Signatures::Valid => expired.remove(&zone),
            Signatures::Expired => expired.insert(zone),
        };
    }

    /// The signatures `zone` gets.
    pub fn signatures(&self, zone: &str) -> Signatures {
        let zone = zone.trim_end_matches('.').to_ascii_lowercase();
        let expired = self.expired.read().unwrap_or_else(PoisonError::into_inner);
        if expired.contains(&zone) {
            Signatures::Expired
        } else {
            Signatures::Valid
        }
    }

    /// The trust anchor for `zones`: one DNSKEY record per zone in zone-file form.
    pub fn trust_anchor(&self, zones: &[String]) -> String {
        let key = base64::engine::general_purpose::STANDARD
            .encode(self.dnskey.public_key().public_bytes());
        let algorithm = u8::from(self.dnskey.public_key().algorithm());
        let mut text =
            String::from("; the local service's zone-signing key (serve --sign-zones)\n");
        for zone in zones {
            text.push_str(&format!(
                "{}. IN DNSKEY {} 3 {algorithm} {key}\n",
                zone.trim_end_matches('.'),
                self.dnskey.flags()
            ));
        }
        text
    }

    /// The DNSKEY record of `zone`'s apex.
    pub fn dnskey_record(&self, zone: &str) -> Result<Record> {
        let name =
            Name::from_ascii(format!("{}.", zone.trim_end_matches('.'))).map_err(dnssec_error)?;
        Ok(Record::from_rdata(
            name,
            DNSKEY_TTL,
            RData::DNSSEC(DNSSECRData::DNSKEY(self.dnskey.clone())),
        ))
    }

    /// An RRSIG for each RRset in `records`, signed for the zone `zone_of` names (records of
    /// no zone are left unsigned).
    pub fn sign(
        &self,
        records: &[Record],
        zone_of: impl Fn(&Name) -> Option<String>,
    ) -> Vec<Record> {
        let mut sets: BTreeMap<(Name, RecordType), RecordSet> = BTreeMap::new();
        for record in records {
            if record.record_type() == RecordType::RRSIG {
                continue;
            }
            sets.entry((record.name.clone(), record.record_type()))
                .or_insert_with(|| {
                    RecordSet::with_ttl(record.name.clone(), record.record_type(), record.ttl)
                })
                .insert(record.clone(), 0);
        }
        let mut signatures = Vec::new();
        for ((name, record_type), set) in sets {
            let Some(zone) = zone_of(&name) else {
                continue;
            };
            match self.rrsig(&set, &zone) {
                Ok(rrsig) => signatures.push(rrsig),
                Err(error) => tracing::warn!(%error, %name, %record_type, "could not sign"),
            }
        }
        signatures
    }

    fn key(&self) -> Result<EcdsaSigningKey> {
        EcdsaSigningKey::from_pkcs8(&self.pkcs8, Algorithm::ECDSAP256SHA256).map_err(dnssec_error)
    }

    fn rrsig(&self, set: &RecordSet, zone: &str) -> Result<Record> {
        let signer_name =
            Name::from_ascii(format!("{}.", zone.trim_end_matches('.'))).map_err(dnssec_error)?;
        let now = self.clock.now();
        let (inception, expiration) = match self.signatures(zone) {
            Signatures::Valid => (now - VALID_BEFORE, now + VALID_FOR),
            Signatures::Expired => (now - VALID_FOR, now - VALID_BEFORE),
        };
        let to_time = |at: chrono::DateTime<chrono::Utc>| {
            time::OffsetDateTime::from_unix_timestamp(at.timestamp()).map_err(dnssec_error)
        };
        // hickory's signer names its zone: one per zone, sharing the key. The RRSIG's fields
        // (type, algorithm, labels, original TTL, window, key tag, signer) come from the set and
        // the signer; the window is given here, so the signer's own duration is unused.
        let signer = DnssecSigner::new(
            self.dnskey.clone(),
            Box::new(self.key()?),
            signer_name,
            std::time::Duration::ZERO,
        );
        let input = SigInput::from_rrset(set, to_time(expiration)?, to_time(inception)?, &signer)
            .map_err(dnssec_error)?;
        let tbs = TBS::from_input(
            set.name(),
            DNSClass::IN,
            &input,
            set.records_without_rrsigs(),
        )
        .map_err(dnssec_error)?;
        let signature = signer.sign(&tbs).map_err(dnssec_error)?;
        Ok(Record::from_rdata(
            set.name().clone(),
            set.ttl(),
            RData::DNSSEC(DNSSECRData::RRSIG(RRSIG::from_sig(input, signature))),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use hickory_proto::rr::rdata::{A, CNAME};

    use super::*;

    fn name(text: &str) -> Name {
        Name::from_ascii(text).unwrap()
    }

    #[test]
    fn each_rrset_gets_one_signature_from_its_zone_with_the_zones_window() {
        let clock = Clock::frozen_at("2026-11-23T12:00:00Z".parse().unwrap());
        let signing = ZoneSigning::generate(clock.clone()).unwrap();
        let answers = [
            Record::from_rdata(
                name("www.example.com."),
                300,
                RData::CNAME(CNAME(name("edge.platform.test."))),
            ),
            Record::from_rdata(
                name("edge.platform.test."),
                60,
                RData::A(A(Ipv4Addr::LOCALHOST)),
            ),
            Record::from_rdata(
                name("edge.platform.test."),
                60,
                RData::A(A(Ipv4Addr::new(127, 0, 0, 2))),
            ),
            Record::from_rdata(name("elsewhere.org."), 60, RData::A(A(Ipv4Addr::LOCALHOST))),
        ];
        let zone_of = |owner: &Name| {
            let owner = owner.to_ascii();
            ["example.com", "platform.test"]
                .into_iter()
                .find(|zone| owner.ends_with(&format!("{zone}.")))
                .map(str::to_owned)
        };
        signing.set("Example.COM.", Signatures::Expired);
        assert_eq!(signing.signatures("example.com"), Signatures::Expired);
        let signatures = signing.sign(&answers, zone_of);
        let rrsigs: Vec<(String, RecordType, String, u32, u32)> = signatures
            .iter()
            .map(|record| match &record.data {
                RData::DNSSEC(DNSSECRData::RRSIG(rrsig)) => (
                    record.name.to_ascii(),
                    rrsig.input().type_covered,
                    rrsig.input().signer_name.to_ascii(),
                    rrsig.input().sig_inception.get(),
                    rrsig.input().sig_expiration.get(),
                ),
                other => panic!("not an RRSIG: {other:?}"),
            })
            .collect();
        let now = clock.now().timestamp() as u32;
        let day = 86_400;
        assert_eq!(
            rrsigs,
            [
                (
                    "www.example.com.".to_owned(),
                    RecordType::CNAME,
                    "example.com.".to_owned(),
                    now - 30 * day,
                    now - day
                ),
                (
                    "edge.platform.test.".to_owned(),
                    RecordType::A,
                    "platform.test.".to_owned(),
                    now - day,
                    now + 30 * day
                ),
            ]
        );
        signing.set("example.com", Signatures::Valid);
        assert_eq!(signing.signatures("example.com"), Signatures::Valid);

        let anchor = signing.trust_anchor(&["example.com".to_owned(), "platform.test".to_owned()]);
        let lines: Vec<&str> = anchor
            .lines()
            .filter(|line| !line.starts_with(';'))
            .collect();
        assert_eq!(lines.len(), 2, "{anchor}");
        assert!(
            lines[0].starts_with("example.com. IN DNSKEY 257 3 13 "),
            "{anchor}"
        );
        assert!(
            lines[1].starts_with("platform.test. IN DNSKEY 257 3 13 "),
            "{anchor}"
        );
        let dnskey = signing.dnskey_record("example.com").unwrap();
        assert_eq!(dnskey.record_type(), RecordType::DNSKEY);
        assert_eq!(dnskey.name, name("example.com."));
    }
}

//! Why a chain of trust breaks, named once with its evidence: an expired signature and a DS
//! that matches no key need different fixes (re-signing at the DNS provider, a new DS at the
//! registrar), and a finding that lists every possible cause leaves the customer to guess.
//! Each cause has its finding's detail and the fix for that cause alone.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::clock::{human_time, relative};
use crate::report::Fix;

/// The one reason the walk found why `hostname`'s chain of trust does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum BrokenChain {
    /// A signature that verifies but whose validity ended before the run's time.
    SignatureExpired {
        owner: String,
        record_type: String,
        signer: String,
        key_tag: u16,
        inception: DateTime<Utc>,
        expiration: DateTime<Utc>,
        /// The run's time the signature was judged at.
        judged_at: DateTime<Utc>,
    },
    /// A signature that verifies but whose validity starts after the run's time.
    SignatureNotYetValid {
        owner: String,
        record_type: String,
        signer: String,
        key_tag: u16,
        inception: DateTime<Utc>,
        expiration: DateTime<Utc>,
        judged_at: DateTime<Utc>,
    },
    /// The parent's DS records name no key the zone publishes.
    DsMatchesNoKey {
        zone: String,
        parent: String,
        ds_key_tags: Vec<u16>,
        dnskey_key_tags: Vec<u16>,
    },
    /// An RRset of a signed zone without its RRSIG.
    SignatureMissing {
        owner: String,
        record_type: String,
        zone: String,
    },
    /// A signature by a published key that does not verify (records changed after signing).
    SignatureInvalid {
        owner: String,
        record_type: String,
        signer: String,
        key_tag: u16,
    },
    /// A signature by a key its zone does not publish.
    NoKeyForSignature {
        owner: String,
        record_type: String,
        signer: String,
        key_tag: u16,
        dnskey_key_tags: Vec<u16>,
    },
    /// The top of the chain holds none of the trust anchor's keys.
    UntrustedKeys {
        zone: String,
        dnskey_key_tags: Vec<u16>,
        anchor_key_tags: Vec<u16>,
    },
}

/// `12345`, `12345 and 6789`, `1, 2 and 3`; `none` for no tag.
fn tag_list(tags: &[u16]) -> String {
    let tags: Vec<String> = tags.iter().map(u16::to_string).collect();
    match tags.as_slice() {
        [] => "none".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        one.to_owned()
    } else {
        many.to_owned()
    }
}

fn fix(summary: String) -> Option<Fix> {
    Some(Fix {
        summary,
        changes: Vec::new(),
        steps: Vec::new(),
    })
}

impl BrokenChain {
    /// The finding's title for `hostname`.
    pub fn title(&self, hostname: &str) -> String {
        match self {
            BrokenChain::SignatureExpired {
                owner, record_type, ..
            } => {
                format!(
                    "DNSSEC is broken for {hostname}: the signature over {owner} {record_type} has expired"
                )
            }
            BrokenChain::SignatureNotYetValid {
                owner, record_type, ..
            } => format!(
                "DNSSEC is broken for {hostname}: the signature over {owner} {record_type} is not valid yet"
            ),
            BrokenChain::DsMatchesNoKey { zone, .. } => {
                format!(
                    "DNSSEC is broken for {hostname}: the DS record of {zone} matches none of its keys"
                )
            }
            BrokenChain::SignatureMissing {
                owner, record_type, ..
            } => {
                format!("DNSSEC is broken for {hostname}: {owner} {record_type} has no signature")
            }
            BrokenChain::SignatureInvalid {
                owner, record_type, ..
            } => format!(
                "DNSSEC is broken for {hostname}: the signature over {owner} {record_type} does not verify"
            ),
            BrokenChain::NoKeyForSignature {
                owner, record_type, ..
            } => format!(
                "DNSSEC is broken for {hostname}: {owner} {record_type} is signed with a key its zone does not publish"
            ),
            BrokenChain::UntrustedKeys { zone, .. } => {
                format!(
                    "DNSSEC does not validate for {hostname}: the keys of {zone} are not the trust anchor"
                )
            }
        }
    }

    /// What is wrong, with the evidence, and what it means for the certificate.
    pub fn detail(&self, hostname: &str) -> String {
        let consequence = "Validating resolvers answer SERVFAIL for the name, and a validating CA \
                           will not issue its certificate.";
        match self {
            BrokenChain::SignatureExpired {
                owner,
                record_type,
                signer,
                key_tag,
                expiration,
                judged_at,
                ..
            } => format!(
                "The signature (RRSIG) over {owner} {record_type}, made by {signer} with key \
                 {key_tag}, expired on {} ({}): the zone has not been signed again since. \
                 {consequence}",
                human_time(*expiration),
                relative(*expiration, *judged_at)
            ),
            BrokenChain::SignatureNotYetValid {
                owner,
                record_type,
                signer,
                key_tag,
                inception,
                judged_at,
                ..
            } => format!(
                "The signature (RRSIG) over {owner} {record_type}, made by {signer} with key \
                 {key_tag}, is valid only from {} ({}): the signing server's clock is ahead. \
                 {consequence}",
                human_time(*inception),
                relative(*inception, *judged_at)
            ),
            BrokenChain::DsMatchesNoKey {
                zone,
                parent,
                ds_key_tags,
                dnskey_key_tags,
            } => format!(
                "{parent} holds a DS record for {zone} naming key {} {}, but {zone} publishes \
                 {} {}: no DS matches a key, the classic after moving DNS providers (the DS \
                 still names the old provider's key). {consequence}",
                plural(ds_key_tags.len(), "tag", "tags"),
                tag_list(ds_key_tags),
                plural(
                    dnskey_key_tags.len(),
                    "the key with tag",
                    "the keys with tags"
                ),
                tag_list(dnskey_key_tags),
            ),
            BrokenChain::SignatureMissing {
                owner,
                record_type,
                zone,
            } => format!(
                "{zone} is signed (its parent's DS names its key), but {owner} {record_type} \
                 comes without its signature (RRSIG): a record changed or added outside the \
                 DNS provider's signing. {consequence}"
            ),
            BrokenChain::SignatureInvalid {
                owner,
                record_type,
                signer,
                key_tag,
            } => format!(
                "The signature (RRSIG) over {owner} {record_type}, by {signer} with key \
                 {key_tag}, does not match the records: they were changed after signing. \
                 {consequence}"
            ),
            BrokenChain::NoKeyForSignature {
                owner,
                record_type,
                signer,
                key_tag,
                dnskey_key_tags,
            } => format!(
                "{owner} {record_type} is signed by {signer} with key {key_tag}, but {signer} \
                 publishes {} {}: the key was replaced before the signatures made with it \
                 were. {consequence}",
                plural(
                    dnskey_key_tags.len(),
                    "the key with tag",
                    "the keys with tags"
                ),
                tag_list(dnskey_key_tags),
            ),
            BrokenChain::UntrustedKeys {
                zone,
                dnskey_key_tags,
                anchor_key_tags,
            } => format!(
                "Validation of {hostname} starts from the trust anchor (key {} {}), but \
                 {zone} publishes {} {}: this DNS hierarchy is not the one the anchor is for.",
                plural(anchor_key_tags.len(), "tag", "tags"),
                tag_list(anchor_key_tags),
                plural(
                    dnskey_key_tags.len(),
                    "the key with tag",
                    "the keys with tags"
                ),
                tag_list(dnskey_key_tags),
            ),
        }
    }

    /// The fix for this cause alone.
    pub fn fix(&self) -> Option<Fix> {
        match self {
            BrokenChain::SignatureExpired { signer, .. } => fix(format!(
                "Have the DNS provider of {signer} sign the zone again (its automatic re-signing \
                 has stopped); the new signatures reach resolvers once the old answers' TTL \
                 has passed."
            )),
            BrokenChain::SignatureNotYetValid { signer, .. } => fix(format!(
                "Set the clock of the server that signs {signer} right and sign the zone again."
            )),
            BrokenChain::DsMatchesNoKey {
                zone,
                ds_key_tags,
                dnskey_key_tags,
                ..
            } => fix(format!(
                "At the registrar of {zone}, replace the DS record (key {} {}) with the DS of \
                 the zone's current key ({} {}) from the DNS provider, or remove the DS record \
                 to turn DNSSEC off. Then wait for the DS TTL to pass.",
                plural(ds_key_tags.len(), "tag", "tags"),
                tag_list(ds_key_tags),
                plural(dnskey_key_tags.len(), "tag", "tags"),
                tag_list(dnskey_key_tags),
            )),
            BrokenChain::SignatureMissing { zone, .. } => fix(format!(
                "Have the DNS provider of {zone} sign the zone again so that every record set \
                 has its signature."
            )),
            BrokenChain::SignatureInvalid { signer, .. } => fix(format!(
                "Have the DNS provider of {signer} sign the zone again."
            )),
            BrokenChain::NoKeyForSignature {
                signer, key_tag, ..
            } => fix(format!(
                "Have the DNS provider of {signer} sign the zone again with its current keys, \
                 or publish key {key_tag} again until the old signatures have expired."
            )),
            BrokenChain::UntrustedKeys { .. } => fix(
                "Validate from this hierarchy's own trust anchor (`--trust-anchor`), or ask a \
                 resolver of the public DNS."
                    .to_owned(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_says_its_evidence_and_its_fix_alone() {
        let judged_at: DateTime<Utc> = "2026-11-26T10:00:00Z".parse().unwrap();
        let expired = BrokenChain::SignatureExpired {
            owner: "expired.com".into(),
            record_type: "DNSKEY".into(),
            signer: "expired.com".into(),
            key_tag: 4242,
            inception: "2019-01-01T00:00:00Z".parse().unwrap(),
            expiration: "2020-01-01T00:00:00Z".parse().unwrap(),
            judged_at,
        };
        let detail = expired.detail("www.expired.com");
        assert!(
            detail.contains("expired on 1 Jan 2020, 00:00 UTC (6 years ago)")
                && detail.contains("made by expired.com with key 4242"),
            "{detail}"
        );
        assert!(!detail.contains("DS record"), "{detail}");
        let fix = expired.fix().unwrap().summary;
        assert!(
            fix.contains("sign the zone again") && !fix.contains("DS"),
            "{fix}"
        );

        let mismatch = BrokenChain::DsMatchesNoKey {
            zone: "wrongds.com".into(),
            parent: "com".into(),
            ds_key_tags: vec![111],
            dnskey_key_tags: vec![222, 333],
        };
        let detail = mismatch.detail("www.wrongds.com");
        assert!(
            detail.contains("com holds a DS record for wrongds.com naming key tag 111")
                && detail.contains("the keys with tags 222 and 333"),
            "{detail}"
        );
        assert!(!detail.contains("expired"), "{detail}");
        let fix = mismatch.fix().unwrap().summary;
        assert!(
            fix.contains("replace the DS record (key tag 111)")
                && fix.contains("(tags 222 and 333)")
                && !fix.contains("sign the zone"),
            "{fix}"
        );

        let missing = BrokenChain::SignatureMissing {
            owner: "www.missing.com".into(),
            record_type: "CNAME".into(),
            zone: "missing.com".into(),
        };
        assert_eq!(
            missing.title("www.missing.com"),
            "DNSSEC is broken for www.missing.com: www.missing.com CNAME has no signature"
        );
        // the JSON a capture keeps
        let json = serde_json::to_value(&mismatch).unwrap();
        assert_eq!(json["cause"], "ds_matches_no_key");
        assert_eq!(
            serde_json::from_value::<BrokenChain>(json).unwrap(),
            mismatch
        );
    }
}

//! What DNS validation asks of the platform's resolver view: the `_acme-challenge` CNAME that
//! delegates a name's DNS-01 challenge to the platform's validation zone, the CA's token seen
//! through it, and a wildcard's routing record, checked at a random label under it (a
//! wildcard CNAME answers for any name that has no records of its own).
//!
//! It sits beside the routing checks of the parent module and asks DNS through the same
//! resolver, so the propagation delay (and whatever the resolver view caches) applies alike.

use domain_desk_api::txt::txt_text;
use domain_desk_api::{Hostname, VerificationError};
use hickory_proto::rr::{RData, RecordType};
use rand::Rng;

use super::{LookupFailed, Verifier, hostname_text, owned_by};

/// Why a delegation does not pass: the CNAME is missing or names something else (with a
/// message for a person), or the resolver could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DelegationProblem {
    Missing(String),
    LookupFailed(String),
}

impl DelegationProblem {
    pub fn message(&self) -> &str {
        match self {
            DelegationProblem::Missing(message) | DelegationProblem::LookupFailed(message) => {
                message
            }
        }
    }
}

/// The prefix of the random label a wildcard's routing is checked at.
const WILDCARD_PROBE_PREFIX: &str = "dd-check-";

fn lowercase(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl Verifier {
    /// The CNAME targets at `_acme-challenge.<name>` (a wildcard's `*.` aside), as the
    /// platform's resolver sees them.
    async fn challenge_cnames(&self, hostname: &Hostname) -> Result<Vec<String>, LookupFailed> {
        let fqdn = hostname.acme_challenge_fqdn();
        Ok(self
            .lookup(&fqdn, RecordType::CNAME)
            .await?
            .iter()
            .filter(|record| owned_by(record, &fqdn))
            .filter_map(|record| match &record.data {
                RData::CNAME(target) => Some(hostname_text(&target.0)),
                _ => None,
            })
            .collect())
    }

    /// Checks that `_acme-challenge.<name>` is a CNAME to `expected` (case and the final dot
    /// aside), as the platform's resolver sees it: the delegation that lets the CA validate
    /// the name by DNS before its traffic moves.
    pub async fn delegation(
        &self,
        hostname: &Hostname,
        expected: &str,
    ) -> Result<(), DelegationProblem> {
        let fqdn = hostname.acme_challenge_fqdn();
        let expected = lowercase(expected);
        let found = self.challenge_cnames(hostname).await.map_err(|failed| {
            DelegationProblem::LookupFailed(format!(
                "The platform's resolver got no answer for {fqdn} ({}); try again in a moment.",
                failed.0
            ))
        })?;
        match found.first() {
            Some(target) if *target == expected => Ok(()),
            Some(target) => Err(DelegationProblem::Missing(format!(
                "{fqdn} has a CNAME to {target}, but it must point to {expected} exactly."
            ))),
            None => Err(DelegationProblem::Missing(format!(
                "{fqdn} has no CNAME record yet; add a CNAME to {expected}."
            ))),
        }
    }

    /// The TXT values the CA sees for the DNS-01 challenge of `hostname`: those at
    /// `expected` (the delegation's target), reached through `_acme-challenge.<name>`'s CNAME.
    pub async fn challenge_txt(
        &self,
        hostname: &Hostname,
        expected: &str,
    ) -> Result<Vec<String>, LookupFailed> {
        let expected = lowercase(expected);
        Ok(self
            .lookup(&hostname.acme_challenge_fqdn(), RecordType::TXT)
            .await?
            .iter()
            .filter(|record| owned_by(record, &expected))
            .filter_map(|record| match &record.data {
                RData::TXT(txt) => Some(txt_text(txt.txt_data.iter())),
                _ => None,
            })
            .collect())
    }

    /// A wildcard's routing record, checked as a visitor's name would find it: a random label
    /// under the wildcard must CNAME to the target with nothing beside it. The error names the
    /// wildcard and the label it was asked at.
    pub(super) async fn verify_wildcard(
        &self,
        hostname: &Hostname,
    ) -> Result<Result<(), VerificationError>, LookupFailed> {
        let label: String = {
            let mut rng = rand::thread_rng();
            (0..10)
                .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.gen_range(0..36)]))
                .collect()
        };
        let probe = format!(
            "{WILDCARD_PROBE_PREFIX}{label}.{}",
            hostname.wildcard_base()
        );
        Ok(self.verify_subdomain(&probe).await?.map_err(|mut error| {
            error.message = format!(
                "{} (asked at {probe}, a name under it)",
                error
                    .message
                    .trim_end_matches('.')
                    .replace(&probe, hostname.as_str())
            );
            error
        }))
    }
}

//! Before a name is added: the doctor's quick look (DNS questions only — no TLS probe, no
//! DNSSEC walk of its own, no API request) and the warnings it has for what will happen
//! next: a CAA record that would refuse the platform's CA, a proxy in front of the name,
//! DNSSEC that fails, the name live on another host today, a stale AAAA record. Nothing here
//! blocks adding the name; the window and `domain-desk domains add` show the same warnings,
//! from this one function.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::report::{Finding, FindingCode, HostReport, Severity};
use crate::{DoctorOptions, Result};

/// What the quick look found for one name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Preflight {
    pub hostname: String,
    /// The warnings, worst first; empty when nothing stands in the way.
    pub warnings: Vec<Finding>,
    /// The addresses the name serves today when they are not the platform's: it is live on
    /// another host, and the switch can wait until the certificate is ready.
    pub live_elsewhere: Vec<String>,
}

/// `base` as the quick look runs it: DNS only.
pub fn options(mut base: DoctorOptions) -> DoctorOptions {
    base.tls_probe = false;
    base.dnssec = false;
    base.attached_hostnames = None;
    base.live_certificates = None;
    base
}

/// The quick look at `hostname` with `options` (made quick by [`options`]).
pub async fn check(hostname: &str, options: &DoctorOptions) -> Result<Preflight> {
    let options = self::options(options.clone());
    let report = crate::diagnose(&[hostname], &options).await?;
    let host = report
        .hosts
        .into_iter()
        .next()
        .ok_or_else(|| crate::Error::InvalidOptions("no hostname to look at".to_owned()))?;
    Ok(of(&host))
}

/// The warnings a report holds for a name about to be added.
pub fn of(host: &HostReport) -> Preflight {
    let live_elsewhere = live_elsewhere(host);
    let mut warnings: Vec<Finding> = host
        .findings
        .iter()
        .filter(|finding| matters_before_adding(finding.code))
        .cloned()
        .map(|mut finding| {
            // Nothing blocks the Add: the record the user is about to create is not
            // missing, and a name live elsewhere is not a mistake yet.
            if finding.severity == Severity::Error
                && matches!(
                    finding.code,
                    FindingCode::ConflictingRecord | FindingCode::ApexAddressMismatch
                )
            {
                finding.severity = Severity::Warning;
            }
            finding
        })
        .collect();
    warnings.sort_by_key(|finding| finding.severity);
    Preflight {
        hostname: host.hostname.clone(),
        warnings,
        live_elsewhere,
    }
}

fn matters_before_adding(code: FindingCode) -> bool {
    matches!(
        code,
        FindingCode::CaaForbidsIssuance
            | FindingCode::CaaLookupFailed
            | FindingCode::ProxiedByCloudflare
            | FindingCode::DnssecFailure
            | FindingCode::DnssecBogus
            | FindingCode::AaaaMismatch
            | FindingCode::ConflictingRecord
            | FindingCode::ApexAddressMismatch
            | FindingCode::DomainNotRegistered
            | FindingCode::NameserversDisagree
            | FindingCode::LameNameserver
            | FindingCode::LiveElsewhere
            | FindingCode::AcmeDelegationWrong
    )
}

/// The addresses the name reaches today (at the end of its CNAME chain, if it has one), when
/// the doctor found that it is served by another host.
fn live_elsewhere(host: &HostReport) -> Vec<String> {
    let said = host
        .findings
        .iter()
        .any(|finding| finding.code == FindingCode::LiveElsewhere);
    if !said {
        return Vec::new();
    }
    crate::checks::live_elsewhere::addresses_reached(&host.views)
}

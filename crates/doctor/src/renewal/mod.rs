//! Renewal readiness: for the names the platform holds certificates for, whether the renewal
//! the CA will make weeks from now would pass with DNS as it is today.
//!
//! This is the core both front ends share (the app's daily watch, `domain-desk domains list`
//! and `inspect`): it asks DNS only, through the doctor's engine (the same questions and
//! judgements as a diagnosis, without the TLS probe), and sends no API request; the caller
//! hands in what it already knows of each certificate. Each name's answer is a [`Readiness`]:
//! ready, at risk (with the dated finding and its fix, worded for the DNS provider), or
//! unknown when DNS could not be asked. [`watch`] decides when to check again and which
//! results deserve a notification.
//!
//! It lives in the doctor rather than the API client because its substance is the doctor's
//! checks and engine; the client knows nothing of DNS, and the doctor already speaks the
//! contract's types.

pub mod watch;

pub use crate::live_certificate::{DEFAULT_RENEW_BEFORE, LiveCertificate};

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain_desk_api::Domain;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::report::{Finding, FindingCode, HostReport, Severity};
use crate::{DoctorOptions, Result};

/// The live certificates among `domains`, by hostname: the doctor's
/// [`DoctorOptions::live_certificates`].
pub fn live_certificates<'a>(
    domains: impl IntoIterator<Item = &'a Domain>,
) -> BTreeMap<String, LiveCertificate> {
    domains
        .into_iter()
        .filter_map(|domain| Some((domain.hostname.clone(), LiveCertificate::of(domain)?)))
        .collect()
}

/// Whether a renewal would pass today.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RenewalState {
    /// DNS lets the CA renew.
    Ready,
    /// DNS would make the renewal fail.
    AtRisk,
    /// DNS could not be asked (no server answered); nothing is known.
    Unknown,
}

/// One name's renewal readiness at one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Readiness {
    pub hostname: String,
    pub state: RenewalState,
    pub expires_at: DateTime<Utc>,
    /// When the platform starts renewing.
    pub renews_at: DateTime<Utc>,
    /// The clock of the check (the platform's, for the local service).
    pub checked_at: DateTime<Utc>,
    /// Why the renewal will fail, in a clause ("the CAA record at example.com now allows only
    /// other-ca.example"); when at risk.
    pub cause: Option<String>,
    /// `renewal_at_risk`, dated, with the fix; when at risk.
    pub finding: Option<Finding>,
    /// What kept the check from an answer; when unknown.
    pub note: Option<String>,
}

impl Readiness {
    /// What identifies the problem, so that the same problem found again is not news: its
    /// cause (not the dates around it, which move as the renewal comes closer).
    pub fn problem(&self) -> Option<&str> {
        self.cause.as_deref()
    }
}

/// Reads `report` (a diagnosis run with [`DoctorOptions::live_certificates`] naming the host)
/// as renewal readiness.
pub fn readiness_of(
    host: &HostReport,
    certificate: &LiveCertificate,
    checked_at: DateTime<Utc>,
) -> Readiness {
    let finding = host
        .findings
        .iter()
        .find(|finding| finding.code == FindingCode::RenewalAtRisk)
        .cloned();
    let unanswered = host.findings.iter().find(|finding| {
        finding.severity == Severity::Error
            && matches!(
                finding.code,
                FindingCode::NoServerAnswered
                    | FindingCode::ServerTimeout
                    | FindingCode::ServerRefused
                    | FindingCode::Servfail
                    | FindingCode::TargetUnresolvable
                    | FindingCode::InvalidHostname
            )
    });
    let (state, note) = match (&finding, unanswered) {
        (Some(_), _) => (RenewalState::AtRisk, None),
        (None, Some(why)) => (RenewalState::Unknown, Some(why.title.clone())),
        (None, None) => (RenewalState::Ready, None),
    };
    let cause = finding.as_ref().and_then(|_| {
        crate::checks::renewal::blocking(&host.findings).map(|blocking| {
            crate::checks::renewal::cause(&host.hostname, blocking, host.caa.as_ref())
        })
    });
    Readiness {
        hostname: host.hostname.clone(),
        state,
        cause,
        expires_at: certificate.expires_at,
        renews_at: certificate.renews_at(),
        checked_at,
        finding,
        note,
    }
}

/// Checks the renewal readiness of every name in `certificates` at `now` (the platform's
/// clock), asking DNS as `options` say (the TLS probe is left out: the CA does not make it).
/// Results in the order of `certificates`.
pub async fn check_renewals(
    certificates: &BTreeMap<String, LiveCertificate>,
    options: &DoctorOptions,
    now: DateTime<Utc>,
) -> Result<Vec<Readiness>> {
    if certificates.is_empty() {
        return Ok(Vec::new());
    }
    let mut options = options.clone();
    options.tls_probe = false;
    options.live_certificates = Some(certificates.clone());
    let hostnames: Vec<&String> = certificates.keys().collect();
    let report = crate::diagnose_at(&hostnames, &options, now).await?;
    Ok(report
        .hosts
        .iter()
        .zip(certificates.values())
        .map(|(host, certificate)| readiness_of(host, certificate, now))
        .collect())
}

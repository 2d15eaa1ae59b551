//! What the platform says of a live name's certificate (when it expires, when its renewal
//! starts): what the caller hands the doctor in `DoctorOptions::live_certificates`, and what
//! the renewal check dates its finding by. A file of its own so that the options and the
//! check read it without importing the renewal core, which runs the diagnosis.

use chrono::{DateTime, TimeDelta, Utc};
use domain_desk_api::{CertificateStatus, Domain, DomainStatus, ValidationMethod};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// When platforms start renewing when they do not say (`certificate.renews_at`): 30 days
/// before expiry, as ACME clients do with 90-day certificates.
pub const DEFAULT_RENEW_BEFORE: TimeDelta = TimeDelta::days(30);

/// What the platform says of a name's current certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LiveCertificate {
    pub expires_at: DateTime<Utc>,
    /// When the platform starts renewing it, when it says (`certificate.renews_at`).
    pub renews_at: Option<DateTime<Utc>>,
    /// It was validated through the `_acme-challenge` delegation
    /// (`certificate.validation.method` `dns`), so its renewal needs that record again.
    #[serde(default)]
    pub validated_by_dns: bool,
}

impl LiveCertificate {
    /// The certificate of a live domain with an issued certificate; `None` for any other.
    pub fn of(domain: &Domain) -> Option<Self> {
        let certificate = &domain.certificate;
        (domain.status == DomainStatus::Live && certificate.status == CertificateStatus::Issued)
            .then_some(certificate.expires_at)
            .flatten()
            .map(|expires_at| Self {
                expires_at,
                renews_at: certificate.renews_at,
                validated_by_dns: certificate.validation.method == Some(ValidationMethod::Dns),
            })
    }

    /// When the renewal starts: as the platform says, or [`DEFAULT_RENEW_BEFORE`] before expiry.
    pub fn renews_at(&self) -> DateTime<Utc> {
        self.renews_at
            .unwrap_or(self.expires_at - DEFAULT_RENEW_BEFORE)
    }
}

//! The local certificate authority: a root created once and kept, and leaf certificates for the
//! hostnames the edge serves, so a TLS client that trusts only this root can check every name.
//!
//! Certificate *validity* is written so that real TLS clients accept it whatever the virtual
//! clock says: it spans both the wall clock and the virtual issuance period. The lifecycle
//! (issued, expires, renew) follows the virtual clock through the dates kept beside the PEMs.

use chrono::{DateTime, TimeDelta, Utc};
use rand::RngCore;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SerialNumber,
};
use time::OffsetDateTime;

use crate::{Error, Result};

/// How long an issued certificate is valid for (virtual time), as with Let's Encrypt.
pub const CERTIFICATE_LIFETIME: TimeDelta = TimeDelta::days(90);

/// Renew a certificate this long before it expires (as ACME clients do at a third of 90 days).
pub const RENEW_BEFORE: TimeDelta = TimeDelta::days(30);

/// When the CA starts renewing a certificate in `status` that expires at `expires_at`: the
/// contract's `certificate.renews_at`, set for an issued certificate only.
pub fn renews_at(
    status: domain_desk_api::CertificateStatus,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    (status == domain_desk_api::CertificateStatus::Issued)
        .then_some(expires_at)
        .flatten()
        .map(|expires_at| expires_at - RENEW_BEFORE)
}

/// The common name of the root; fixed so the root can be rebuilt from its stored key.
const ROOT_NAME: &str = "Domain Desk Local CA";

/// A root certificate and key as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaMaterial {
    pub certificate_pem: String,
    pub key_pem: String,
}

/// A leaf certificate for one or more names.
#[derive(Clone, PartialEq, Eq)]
pub struct IssuedCertificate {
    pub certificate_pem: String,
    pub key_pem: String,
    pub names: Vec<String>,
    /// Virtual issuance time.
    pub issued_at: DateTime<Utc>,
    /// Virtual expiry: `issued_at + CERTIFICATE_LIFETIME`.
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for IssuedCertificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the private key stays out of logs
        f.debug_struct("IssuedCertificate")
            .field("names", &self.names)
            .field("issued_at", &self.issued_at)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// The local CA. `identity` is the issuer domain CAA records must name (`letsencrypt.org`).
pub struct CertificateAuthority {
    identity: String,
    material: CaMaterial,
    issuer: rcgen::Certificate,
    key: KeyPair,
}

impl std::fmt::Debug for CertificateAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CertificateAuthority")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

fn root_params() -> Result<CertificateParams> {
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, ROOT_NAME);
    name.push(DnType::OrganizationName, "Domain Desk offline platform");
    params.distinguished_name = name;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.not_before = rcgen::date_time_ymd(2000, 1, 1);
    params.not_after = rcgen::date_time_ymd(2099, 12, 31);
    params.serial_number = Some(SerialNumber::from_slice(&[1]));
    Ok(params)
}

fn ca_error(error: rcgen::Error) -> Error {
    Error::Certificate(error.to_string())
}

impl CertificateAuthority {
    /// Creates a new root (first start).
    pub fn generate(identity: &str) -> Result<Self> {
        let key = KeyPair::generate().map_err(ca_error)?;
        let issuer = root_params()?.self_signed(&key).map_err(ca_error)?;
        let material = CaMaterial {
            certificate_pem: issuer.pem(),
            key_pem: key.serialize_pem(),
        };
        Ok(Self {
            identity: normalise_identity(identity),
            material,
            issuer,
            key,
        })
    }

    /// Loads the root kept from an earlier start. The signing certificate is rebuilt from the
    /// stored key and the fixed subject, so leaves chain to the stored root certificate.
    pub fn load(identity: &str, material: CaMaterial) -> Result<Self> {
        let key = KeyPair::from_pem(&material.key_pem).map_err(ca_error)?;
        let issuer = root_params()?.self_signed(&key).map_err(ca_error)?;
        Ok(Self {
            identity: normalise_identity(identity),
            material,
            issuer,
            key,
        })
    }

    /// What CAA `issue` records must name for this CA to issue.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    pub fn material(&self) -> &CaMaterial {
        &self.material
    }

    pub fn certificate_pem(&self) -> &str {
        &self.material.certificate_pem
    }

    /// Issues a leaf certificate for `names` at virtual time `now`.
    pub fn issue(&self, names: &[String], now: DateTime<Utc>) -> Result<IssuedCertificate> {
        if names.is_empty() {
            return Err(Error::Internal(
                "a certificate needs at least one name".to_owned(),
            ));
        }
        let expires_at = now + CERTIFICATE_LIFETIME;
        let real_now = Utc::now();
        // Valid from a day before the earlier of the two clocks to the later expiry, so a TLS
        // client on the wall clock accepts it even after the virtual clock was moved.
        let not_before = now.min(real_now) - TimeDelta::days(1);
        let not_after = expires_at.max(real_now + CERTIFICATE_LIFETIME);

        let mut params = CertificateParams::new(names.to_vec()).map_err(ca_error)?;
        let mut subject = DistinguishedName::new();
        subject.push(DnType::CommonName, names[0].as_str());
        params.distinguished_name = subject;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        params.not_before = to_offset(not_before)?;
        params.not_after = to_offset(not_after)?;
        let mut serial = [0u8; 16];
        rand::thread_rng().fill_bytes(&mut serial);
        serial[0] &= 0x7f; // a positive serial number
        params.serial_number = Some(SerialNumber::from_slice(&serial));

        let key = KeyPair::generate().map_err(ca_error)?;
        let certificate = params
            .signed_by(&key, &self.issuer, &self.key)
            .map_err(ca_error)?;
        Ok(IssuedCertificate {
            certificate_pem: certificate.pem(),
            key_pem: key.serialize_pem(),
            names: names.to_vec(),
            issued_at: now,
            expires_at,
        })
    }
}

fn normalise_identity(identity: &str) -> String {
    identity.trim().trim_end_matches('.').to_ascii_lowercase()
}

fn to_offset(at: DateTime<Utc>) -> Result<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp(at.timestamp()).map_err(|error| {
        Error::Certificate(format!("time out of range for a certificate: {error}"))
    })
}

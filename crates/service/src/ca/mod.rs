//! The local certificate authority and the certificate lifecycle: a root created on first
//! start and kept, issuance after a passed verification (with the CAA check of RFC 8659 through
//! the platform resolver), the 30-minute deadline, and renewal before expiry.

pub mod authority;

pub use authority::{
    CERTIFICATE_LIFETIME, CaMaterial, CertificateAuthority, IssuedCertificate, RENEW_BEFORE,
    renews_at,
};

//! The platform API `/v1`, one resource per file.

pub mod account;
pub mod deploys;
pub mod domain_config;
pub mod domains;
pub mod ownership;
pub mod projects;
pub mod rate_limit;

use domain_desk_api::Hostname;

use crate::Error;

/// A hostname from a URL path: one that cannot be valid names no domain, so `404`.
pub(crate) fn path_hostname(raw: &str) -> Result<Hostname, Error> {
    Hostname::parse(raw).map_err(|_| Error::not_found(format!("No domain {raw} here.")))
}

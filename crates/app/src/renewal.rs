//! Renewal readiness as both front ends run it (the window's watch and `domain-desk domains
//! list` / `inspect`): which DNS servers the doctor asks and what time it is on the platform.
//!
//! The check itself is the doctor's (`domain_desk_doctor::renewal`); this module only knows
//! where the account lives. In the offline demo the doctor asks what `/_local/info` names
//! (`doctor_options::from_info`: the demo's DNS server, target and CA, DNSSEC from the
//! demo's key when its zones are signed) and dates everything by the demo's clock
//! (`GET /_local/clock`), which may run 600 times faster than the wall's; against a real
//! platform it asks the usual resolvers and dates by the computer's clock. No API request: the caller hands in the domains it already has.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain_desk_api::Domain;
use domain_desk_client::LocalControl;
use domain_desk_doctor::DoctorOptions;
use domain_desk_doctor::renewal::{LiveCertificate, Readiness, check_renewals, live_certificates};

use crate::Result;

/// Where the readiness check asks DNS, and the platform's clock.
#[derive(Debug, Clone)]
pub struct Platform {
    pub options: DoctorOptions,
    pub now: DateTime<Utc>,
}

/// The platform of `domains`: the local service behind `local`, or the real one, whose DNS
/// target the domains' records name.
pub async fn platform(local: Option<&LocalControl>, domains: &[Domain]) -> Result<Platform> {
    if let Some(local) = local {
        let info = local.info().await?;
        let options = crate::doctor_options::from_info(&info)?.with_tls_probe(false);
        let now = local.clock().await?.now;
        return Ok(Platform { options, now });
    }
    let target = domains
        .iter()
        .find(|domain| LiveCertificate::of(domain).is_some())
        .or(domains.first())
        .map(|domain| domain.dns_record.value.trim_end_matches('.').to_owned())
        .unwrap_or_default();
    let mut options = DoctorOptions::new(if target.is_empty() {
        "unknown.invalid".to_owned()
    } else {
        target
    })
    .with_tls_probe(false);
    options.validation_zone = domains.iter().find_map(validation_zone);
    Ok(Platform {
        options,
        now: Utc::now(),
    })
}

/// The platform's validation zone as a domain's `_acme-challenge` value shows it: the value is
/// `<name without *.>.<validation zone>`.
fn validation_zone(domain: &Domain) -> Option<String> {
    let base = domain
        .hostname
        .strip_prefix("*.")
        .unwrap_or(&domain.hostname);
    let value = domain
        .certificate
        .validation
        .dns_record
        .value
        .trim_end_matches('.')
        .to_ascii_lowercase();
    value
        .strip_prefix(&format!("{base}."))
        .filter(|zone| !zone.is_empty())
        .map(str::to_owned)
}

/// The readiness of every live domain among `domains`, by hostname, at the platform's now.
pub async fn readiness(
    local: Option<&LocalControl>,
    domains: &[Domain],
) -> Result<BTreeMap<String, Readiness>> {
    let live = live_certificates(domains);
    if live.is_empty() {
        return Ok(BTreeMap::new());
    }
    let platform = platform(local, domains).await?;
    let results = check_renewals(&live, &platform.options, platform.now).await?;
    Ok(results
        .into_iter()
        .map(|ready| (ready.hostname.clone(), ready))
        .collect())
}

/// The words for a renewal state in a table.
pub fn state_word(readiness: Option<&Readiness>) -> &'static str {
    use domain_desk_doctor::renewal::RenewalState;
    match readiness.map(|ready| ready.state) {
        None => "—",
        Some(RenewalState::Ready) => "ready",
        Some(RenewalState::AtRisk) => "will fail",
        Some(RenewalState::Unknown) => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validation_zone_is_read_off_a_domains_delegation() {
        let mut domain: Domain = serde_json::from_value(serde_json::json!({
            "hostname": "*.shop.example.com", "unicode_hostname": "*.shop.example.com",
            "project_id": "prj_1", "apex": false, "role": "alias", "redirect": null,
            "status": "pending_verification",
            "dns_record": {"type": "CNAME", "name": "*.shop", "value": "cname.platform.test", "ttl": 3600},
            "verification": {"checked_at": null, "error": null},
            "certificate": {"status": "none", "started_at": null, "issued_at": null,
                            "expires_at": null, "error": null},
            "created_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap();
        assert_eq!(validation_zone(&domain), None, "no delegation named");
        domain.certificate.validation.dns_record.value =
            "Shop.Example.com.acme.platform.test.".into();
        assert_eq!(
            validation_zone(&domain).as_deref(),
            Some("acme.platform.test")
        );
        domain.certificate.validation.dns_record.value = "elsewhere.example.net".into();
        assert_eq!(validation_zone(&domain), None);
    }
}

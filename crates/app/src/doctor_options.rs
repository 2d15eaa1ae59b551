//! The DNS doctor's options for a run against the local service, built in one place for both
//! front ends: the window's Diagnose panel in the offline demo and `domain-desk doctor
//! --resolver` next to `domain-desk serve`.
//!
//! The doctor knows nothing of the service; this module tells it what the service says. From
//! `/_local/info`: ask only its DNS server, the target names must point at, the CA that CAA
//! records must name, where its TLS edge listens and the CA certificate to trust there, and
//! the DNSSEC key of a service started with `--sign-zones`. Through the API client: which
//! hostnames its demo projects attach, so a CNAME to it that none claims is named dangling,
//! and which of them are live, so a live name whose DNS would refuse issuance is named
//! `renewal_at_risk`. From `/_local/clock`: the platform's time, which every judgement of
//! time in the run uses (signature validity, certificate expiry, the report's timestamp): the
//! demo's clock runs fast or is moved forward, and a healthy zone signed at its time is not
//! yet valid by this computer's clock.
//! Anything else the doctor should learn from the local service belongs here as well. The
//! command line then lays its flags over what this returns.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_api::Hostname;
use domain_desk_api::local::LocalInfo;
use domain_desk_client::{ClientPool, LocalControl};
use domain_desk_doctor::{DoctorOptions, RunClock};

use crate::{Error, Result};

/// What the report calls the local service's platform resolver view.
pub const PLATFORM_RESOLVER_LABEL: &str = "the platform's resolver";

/// How long the doctor waits for the list of attached hostnames. The list is a nicety (a
/// warning more or less), so the doctor does not wait out a demo key's rate limit for it.
const ATTACHED_HOSTNAMES_WAIT: Duration = Duration::from_secs(5);

/// The options of a run against the service `control` speaks to, whose `/_local/info` is
/// `info`; API calls go through `clients`, so they share each demo key's budget with the rest
/// of the process. With a trust anchor published, DNSSEC is validated from it.
pub async fn for_local_service(
    control: &LocalControl,
    info: &LocalInfo,
    clients: &ClientPool,
) -> Result<DoctorOptions> {
    let mut options = from_info(info)?;
    // After the service's own server, the platform's resolver view: what the verifier and the
    // CA see, late by the propagation delay and with the negative answers it keeps, so a
    // "no such name" it cached before the record existed is `negative_cached`.
    if let Some(resolver) = address(info.platform_resolver.as_deref(), "platform resolver")? {
        options.resolvers.push(resolver);
        options = options.with_resolver_label(resolver, PLATFORM_RESOLVER_LABEL);
    }
    options.clock = platform_clock(control).await?;
    let attached = attached_domains(control, info, clients).await;
    options.attached_hostnames = attached.as_ref().map(|domains| {
        domains
            .iter()
            .map(|domain| domain.hostname.clone())
            .collect()
    });
    // Which of them are live: such a name whose DNS would refuse issuance is renewal_at_risk.
    options.live_certificates = attached
        .as_deref()
        .map(domain_desk_doctor::renewal::live_certificates);
    Ok(options)
}

/// `options` keeping, of what the service said about every account, only what diagnosing
/// `hostnames` needs: whether each of them is attached, and its live certificate. A capture
/// goes to support, so it must not list the names (nor the certificates) that other accounts,
/// or other projects, attach.
pub fn scoped_to<S: AsRef<str>>(mut options: DoctorOptions, hostnames: &[S]) -> DoctorOptions {
    // As the doctor names them: lowercase A-labels.
    let wanted: BTreeSet<String> = hostnames
        .iter()
        .map(|hostname| match Hostname::parse_domain(hostname.as_ref()) {
            Ok(name) => name.as_str().to_owned(),
            Err(_) => hostname.as_ref().trim().to_ascii_lowercase(),
        })
        .collect();
    if let Some(attached) = options.attached_hostnames.as_mut() {
        attached.retain(|hostname| wanted.contains(hostname));
    }
    if let Some(live) = options.live_certificates.as_mut() {
        live.retain(|hostname, _| wanted.contains(hostname));
    }
    options
}

/// The local service's clock as the doctor's run clock: its time now, carried forward at its
/// speed during the run.
pub async fn platform_clock(control: &LocalControl) -> Result<RunClock> {
    let clock = control.clock().await?;
    Ok(RunClock::platform(clock.now, clock.speed))
}

/// What `/_local/info` alone tells the doctor (no API request): its DNS server, target, CA,
/// edge and CA certificate, and the DNSSEC key of a signing service. The renewal watch runs
/// on this, handing in the live certificates it already knows.
pub fn from_info(info: &LocalInfo) -> Result<DoctorOptions> {
    let dns = address(info.dns.as_deref(), "DNS")?.ok_or_else(|| {
        Error::InvalidInput(
            "The local service's DNS server is not running, so there is nothing to ask.".into(),
        )
    })?;
    let mut options = DoctorOptions::new(info.platform_dns_target.clone())
        .with_resolvers([dns])
        .with_ca_identity(info.ca_identity.clone())
        .with_edge(address(info.edge_https.as_deref(), "TLS edge")?);
    options.extra_roots_pem = info.ca_certificate_pem.clone();
    // Where `_acme-challenge` CNAMEs must lead, so the doctor judges their value exactly.
    options.validation_zone = info.validation_zone.clone();
    if let Some(anchor) = &info.dnssec_trust_anchor {
        options.dnssec = true;
        options.trust_anchor = Some(anchor.clone());
    }
    Ok(options)
}

/// The domains the service's demo projects attach; `None` (not judged) when it cannot say
/// in time.
async fn attached_domains(
    control: &LocalControl,
    info: &LocalInfo,
    clients: &ClientPool,
) -> Option<Vec<domain_desk_api::Domain>> {
    let asked = control.attached_domains(info, clients);
    match tokio::time::timeout(ATTACHED_HOSTNAMES_WAIT, asked).await {
        Ok(Ok(attached)) => Some(attached),
        Ok(Err(err)) => {
            tracing::warn!(%err, "the local service did not list its attached hostnames; dangling CNAMEs are not judged");
            None
        }
        Err(_) => {
            tracing::warn!(
                "the local service's attached hostnames took too long; dangling CNAMEs are not judged"
            );
            None
        }
    }
}

fn address(text: Option<&str>, what: &str) -> Result<Option<SocketAddr>> {
    text.map(|text| {
        text.parse().map_err(|_| {
            Error::InvalidInput(format!(
                "The local service's {what} address {text} is not host:port."
            ))
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use domain_desk_service::{ServiceSettings, Storage};

    use super::*;

    async fn options_of(sign_zones: bool) -> (DoctorOptions, LocalInfo) {
        options_and_clock(sign_zones).await.0
    }

    /// The options, and the service's clock as `/_local/clock` reads right after.
    async fn options_and_clock(
        sign_zones: bool,
    ) -> (
        (DoctorOptions, LocalInfo),
        domain_desk_api::local::ClockState,
    ) {
        let running = domain_desk_test_support::start_with(ServiceSettings {
            storage: Storage::Memory,
            clock_speed: 0.0,
            sign_zones,
            ..domain_desk_test_support::loopback_settings()
        })
        .await;
        let control = LocalControl::new(&running.base_url()).unwrap();
        // the platform three days ahead of this computer, as after an afternoon at 600×
        control.advance_clock(259_200.0).await.unwrap();
        let info = control.info().await.unwrap();
        let options = for_local_service(&control, &info, &ClientPool::new())
            .await
            .unwrap();
        let clock = control.clock().await.unwrap();
        ((options, info), clock)
    }

    /// Everything the doctor learns from a signing service, for both front ends.
    #[tokio::test]
    async fn the_options_say_what_the_local_service_says() {
        let (options, info) = options_of(true).await;
        // the service's DNS server, then the platform's resolver view with its caches
        assert_eq!(
            options.resolvers,
            [
                info.dns.as_deref().unwrap().parse::<SocketAddr>().unwrap(),
                info.platform_resolver
                    .as_deref()
                    .unwrap()
                    .parse::<SocketAddr>()
                    .unwrap()
            ]
        );
        assert!(options.is_offline());
        assert_eq!(options.target, info.platform_dns_target);
        assert_eq!(options.ca_identity, info.ca_identity);
        assert_eq!(
            options.edge,
            Some(info.edge_https.as_deref().unwrap().parse().unwrap())
        );
        assert_eq!(options.extra_roots_pem, info.ca_certificate_pem);
        assert!(info.ca_certificate_pem.is_some());
        // the demo's seeded live domain, attached and live from the start
        let seeded = domain_desk_service::world::renewal_demo::HOSTNAME.to_owned();
        assert_eq!(
            options.attached_hostnames,
            Some(BTreeSet::from([seeded.clone()]))
        );
        assert_eq!(
            options
                .live_certificates
                .as_ref()
                .map(|live| live.keys().cloned().collect::<Vec<_>>()),
            Some(vec![seeded])
        );
        assert!(options.dnssec);
        assert_eq!(options.trust_anchor, info.dnssec_trust_anchor);
        assert!(options.trust_anchor.is_some());

        // every time is judged by the platform's clock (stopped in this test)
        let ((options, _), clock) = options_and_clock(true).await;
        assert!(options.clock.is_platform());
        assert_eq!(options.clock.now(), clock.now);
        assert!(clock.now > chrono::Utc::now() + chrono::Duration::days(2));

        let (unsigned, _) = options_of(false).await;
        assert!(!unsigned.dnssec);
        assert_eq!(unsigned.trust_anchor, None);
    }

    /// Diagnose in the demo asks the platform's resolver too: a name asked before its CNAME
    /// existed is still "no such name" there, cached, while the service's server has it.
    #[tokio::test]
    async fn the_platform_resolver_is_asked_after_the_dns_server_and_its_cache_is_reported() {
        let running = domain_desk_test_support::start_with(ServiceSettings {
            storage: Storage::Memory,
            clock_speed: 0.0,
            ..domain_desk_test_support::loopback_settings()
        })
        .await;
        let control = LocalControl::new(&running.base_url()).unwrap();
        let info = control.info().await.unwrap();
        let options = for_local_service(&control, &info, &ClientPool::new())
            .await
            .unwrap()
            .with_tls_probe(false);
        let dns: SocketAddr = info.dns.as_deref().unwrap().parse().unwrap();
        let resolver: SocketAddr = info.platform_resolver.as_deref().unwrap().parse().unwrap();
        assert_eq!(options.resolvers, [dns, resolver]);
        assert_eq!(
            options.resolver_labels.get(&resolver).map(String::as_str),
            Some(PLATFORM_RESOLVER_LABEL)
        );

        // asked before the record exists: the platform's resolver caches "no such name"
        let before = domain_desk_doctor::diagnose(&["late.example.com"], &options)
            .await
            .unwrap();
        assert!(
            before.hosts[0]
                .findings
                .iter()
                .any(|finding| finding.code == domain_desk_doctor::FindingCode::RecordMissing),
            "{:?}",
            before.hosts[0].findings
        );
        control
            .add_record(
                "example.com",
                &domain_desk_api::local::NewZoneRecord {
                    name: "late".to_owned(),
                    record_type: domain_desk_api::local::ZoneRecordType::Cname,
                    value: info.platform_dns_target.clone(),
                    ttl: None,
                },
            )
            .await
            .unwrap();
        // past the propagation delay, inside the demo zones' SOA minimum (300 s)
        control.advance_clock(120.0).await.unwrap();
        let options = for_local_service(&control, &info, &ClientPool::new())
            .await
            .unwrap()
            .with_tls_probe(false);
        let after = domain_desk_doctor::diagnose(&["late.example.com"], &options)
            .await
            .unwrap();
        let findings = &after.hosts[0].findings;
        let cached = findings
            .iter()
            .find(|finding| finding.code == domain_desk_doctor::FindingCode::NegativeCached)
            .unwrap_or_else(|| panic!("negative_cached: {findings:?}"));
        assert!(
            cached.title.contains(PLATFORM_RESOLVER_LABEL),
            "{}",
            cached.title
        );
        let now = control.clock().await.unwrap().now;
        assert_eq!(
            cached.cached_until,
            Some(now + chrono::TimeDelta::seconds(180))
        );
        assert!(
            findings
                .iter()
                .all(|finding| finding.code != domain_desk_doctor::FindingCode::RecordMissing),
            "{findings:?}"
        );
    }

    #[test]
    fn an_address_that_is_not_host_and_port_is_a_clear_error() {
        assert_eq!(address(None, "DNS").unwrap(), None);
        let err = address(Some("nowhere"), "DNS").unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");
    }
}

//! The doctor against the local service's own DNS server and TLS edge, in-process on
//! loopback: its seed zones hold the typical mistakes, and a domain taken live through the
//! API shows its certificate and redirect.
//!
//! It is longer than the house's 500 lines (about 625, all tests): seven tests on one set-up,
//! the local service in-process and about 135 lines of helpers (`Running`, `start_with`, its
//! zones and API calls, `take_live`), each test a story of its seed zones (mistakes, signed
//! zones, a live domain, a dangling CNAME, a capture, a clock jump, Demo DNS's name field). The
//! doctor against servers built in code is apart already (`support.rs` and its users).

use std::net::SocketAddr;
use std::time::Duration;

use domain_desk_api::local::LocalInfo;
use domain_desk_doctor::{DoctorOptions, FindingCode, Severity, diagnose, diagnose_logged};
use domain_desk_service::{ServiceSettings, Storage};
use domain_desk_test_support::project_with_domains;
use serde_json::{Value, json};

use crate::{codes, finding, host};

struct Running {
    info: LocalInfo,
    http: reqwest::Client,
    service: domain_desk_service::Running,
}

async fn start() -> Running {
    start_with(|_| {}).await
}

async fn start_with(change: impl FnOnce(&mut ServiceSettings)) -> Running {
    let mut settings = ServiceSettings {
        storage: Storage::Memory,
        clock_speed: 0.0,
        ..domain_desk_test_support::loopback_settings()
    };
    change(&mut settings);
    let service = domain_desk_test_support::start_with(settings).await;
    Running {
        info: service.info().clone(),
        http: domain_desk_test_support::http_client_builder()
            .no_proxy()
            .build()
            .unwrap(),
        service,
    }
}

impl Running {
    fn dns(&self) -> SocketAddr {
        self.info.dns.as_deref().unwrap().parse().unwrap()
    }

    fn options(&self) -> DoctorOptions {
        let mut options = DoctorOptions::new(&self.info.platform_dns_target)
            .with_resolvers([self.dns()])
            .with_ca_identity(&self.info.ca_identity)
            .with_timeout(Duration::from_secs(2))
            .with_edge(
                self.info
                    .edge_https
                    .as_deref()
                    .map(|edge| edge.parse().unwrap()),
            );
        options.extra_roots_pem = self.info.ca_certificate_pem.clone();
        options
    }

    /// `GET /_local/dns/{zone}/records` as JSON.
    async fn zone_records(&self, zone: &str) -> Value {
        self.http
            .get(format!(
                "http://{}/_local/dns/{zone}/records",
                self.info.api
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        key: Option<&str>,
        body: Value,
    ) -> Value {
        let mut request = self
            .http
            .request(method, format!("http://{}{path}", self.info.api));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.json(&body).send().await.unwrap();
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        response.json().await.unwrap_or(Value::Null)
    }
}

#[tokio::test]
async fn the_seed_zones_mistakes_are_each_found() {
    let service = start().await;
    let names = [
        "www.example.com",
        "shop.example.com",
        "blog.example.net",
        "example.net",
        "www.locked.example.org",
        "example.co.uk",
        "www.example.co.uk",
        "example.org",
    ];
    let (report, questions) = diagnose_logged(&names, &service.options().with_tls_probe(false))
        .await
        .unwrap();
    // offline: the service's DNS server is the only one asked
    assert!(
        questions
            .iter()
            .all(|question| question.server == service.dns())
    );

    for fine in ["www.example.com", "www.example.co.uk"] {
        let fine = host(&report, fine);
        assert!(
            codes(fine, Severity::Error).is_empty(),
            "{:#?}",
            fine.findings
        );
        finding(fine, FindingCode::RecordCorrect);
    }
    let shop = finding(
        host(&report, "shop.example.com"),
        FindingCode::LiveElsewhere,
    );
    assert!(shop.detail.contains("192.0.2.10"));
    finding(
        host(&report, "blog.example.net"),
        FindingCode::CnameTargetDoubled,
    );
    finding(host(&report, "example.net"), FindingCode::LiveElsewhere);
    let couk = host(&report, "example.co.uk");
    assert!(couk.name.as_ref().unwrap().registrable_apex);
    finding(couk, FindingCode::LiveElsewhere);
    // The demo zones are the local service's own: its nameserver names it, and its ALIAS
    // is offered at the apex.
    for name in names {
        let provider = host(&report, name)
            .provider
            .as_ref()
            .map(|found| found.provider.id.as_str());
        assert_eq!(provider, Some("domain_desk_local"), "{name}");
    }
    // The service's DNS server is authoritative, not a resolver: DNSSEC cannot be validated
    // through it, and the doctor says nothing rather than calling its zones bogus.
    let mut dnssec = service.options().with_tls_probe(false);
    dnssec.dnssec = true;
    let checked = diagnose(&["example.net"], &dnssec).await.unwrap();
    assert!(
        !host(&checked, "example.net")
            .findings
            .iter()
            .any(|found| matches!(
                found.code,
                FindingCode::DnssecBogus | FindingCode::DnssecValid | FindingCode::DnssecUnsignedOk
            )),
        "{}",
        checked.to_text()
    );
    let missing = finding(host(&report, "example.org"), FindingCode::RecordMissing);
    assert!(
        missing.fix.as_ref().unwrap().steps[0].contains("add an ALIAS record: Name @"),
        "{:#?}",
        missing.fix
    );
    assert_eq!(
        missing.fix.as_ref().unwrap().changes[0].record_type,
        "ALIAS"
    );

    let locked = host(&report, "www.locked.example.org");
    finding(locked, FindingCode::RecordCorrect);
    let caa = finding(locked, FindingCode::CaaForbidsIssuance);
    assert!(caa.title.contains("locked.example.org"));
    assert_eq!(
        locked.caa.as_ref().unwrap().deciding_name.as_deref(),
        Some("locked.example.org")
    );
    let allowed = host(&report, "example.org");
    assert_eq!(
        allowed.caa.as_ref().unwrap().deciding_name.as_deref(),
        Some("example.org")
    );
    finding(allowed, FindingCode::CaaAllowsIssuance);
}

/// `serve --sign-zones`: the service signs its demo zones with hickory and publishes the key
/// in `/_local/info`. From that anchor the doctor, asking only the service, validates a demo
/// name (its CNAME in `example.com` and the target's A in the platform zone); once
/// `example.com`'s signatures are made to expire it reports `dnssec_bogus`, and valid again
/// after. Without `--sign-zones` there is no anchor and the switch answers 404.
#[tokio::test]
async fn signed_demo_zones_validate_and_expired_signatures_are_bogus() {
    let service = start_with(|settings| settings.sign_zones = true).await;
    let anchor = service
        .info
        .dnssec_trust_anchor
        .clone()
        .expect("a signing service publishes its trust anchor");
    assert!(
        anchor.contains("example.com. IN DNSKEY 257 3 13 "),
        "{anchor}"
    );
    let mut options = service.options().with_tls_probe(false);
    options.dnssec = true;
    options.trust_anchor = Some(anchor);
    let verdict = |report: &domain_desk_doctor::Report| {
        host(report, "www.example.com")
            .findings
            .iter()
            .filter(|found| {
                matches!(
                    found.code,
                    FindingCode::DnssecValid
                        | FindingCode::DnssecBogus
                        | FindingCode::DnssecUnsignedOk
                )
            })
            .map(|found| (found.code, found.severity))
            .collect::<Vec<_>>()
    };
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    assert_eq!(
        verdict(&report),
        [(FindingCode::DnssecValid, Severity::Ok)],
        "{}",
        report.to_text()
    );
    // A name with no record yet: the service proves no non-existence, and the record the name
    // needs is the one finding; DNSSEC is judged once it exists.
    let report = diagnose(&["nosuch.example.com"], &options).await.unwrap();
    let missing = host(&report, "nosuch.example.com");
    assert!(
        missing
            .findings
            .iter()
            .any(|found| found.code == FindingCode::RecordMissing),
        "{}",
        report.to_text()
    );
    assert!(
        !missing.findings.iter().any(|found| matches!(
            found.code,
            FindingCode::DnssecBogus | FindingCode::DnssecValid
        )),
        "{}",
        report.to_text()
    );

    let expired = service
        .call(
            reqwest::Method::PUT,
            "/_local/dns/example.com/dnssec",
            None,
            json!({"signatures": "expired"}),
        )
        .await;
    assert_eq!(expired, json!({"signatures": "expired"}));
    assert_eq!(
        service.zone_records("example.com").await["signatures"],
        json!("expired")
    );
    assert_eq!(
        service.zone_records("example.net").await["signatures"],
        json!("valid")
    );
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    assert_eq!(
        verdict(&report),
        [(FindingCode::DnssecBogus, Severity::Error)],
        "{}",
        report.to_text()
    );
    // one cause, with its evidence: which signature, by whom, expired when
    let bogus = finding(host(&report, "www.example.com"), FindingCode::DnssecBogus);
    assert!(
        bogus.title.ends_with("has expired")
            && bogus.detail.contains("made by example.com with key")
            && bogus.detail.contains("(24 hours ago)")
            && !bogus.detail.contains("DS record"),
        "{}",
        report.to_text()
    );

    service
        .call(
            reqwest::Method::PUT,
            "/_local/dns/example.com/dnssec",
            None,
            json!({"signatures": "valid"}),
        )
        .await;
    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    assert_eq!(
        verdict(&report),
        [(FindingCode::DnssecValid, Severity::Ok)],
        "{}",
        report.to_text()
    );

    let unsigned = start().await;
    assert_eq!(unsigned.info.dnssec_trust_anchor, None);
    let refused = unsigned
        .http
        .put(format!(
            "http://{}/_local/dns/example.com/dnssec",
            unsigned.info.api
        ))
        .json(&json!({"signatures": "expired"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
    let list = unsigned.zone_records("example.com").await;
    assert!(
        list.get("signatures").is_none(),
        "an unsigned service says nothing of signatures: {list}"
    );
}

#[tokio::test]
async fn a_live_domain_shows_its_certificate_and_a_redirect_its_301() {
    let service = start().await;
    let key = service.info.demo_keys["pro"].clone();
    let post = reqwest::Method::POST;
    let project = project_with_domains(
        service.service.state(),
        &key,
        "doctor",
        &["www.example.com"],
    )
    .await;
    let domains = format!("/v1/projects/{project}/domains");
    service
        .call(
            post.clone(),
            &domains,
            Some(&key),
            json!({"hostname": "www.example.co.uk", "redirect_to": "www.example.com"}),
        )
        .await;

    // Before it is live the edge does not serve the name: a warning, not an error.
    let before = diagnose(&["www.example.com"], &service.options())
        .await
        .unwrap();
    let www = host(&before, "www.example.com");
    finding(www, FindingCode::TlsUnreachable);
    assert!(codes(www, Severity::Error).is_empty());

    // Past the propagation delay, verify, then past the issuance time (virtual clock).
    let mut live = false;
    for _ in 0..10 {
        service
            .call(
                post.clone(),
                "/_local/clock/advance",
                None,
                json!({"seconds": 3600}),
            )
            .await;
        let mut statuses = Vec::new();
        for name in ["www.example.com", "www.example.co.uk"] {
            let domain = service
                .call(
                    post.clone(),
                    &format!("{domains}/{name}/verify"),
                    Some(&key),
                    json!({}),
                )
                .await;
            statuses.push(domain["status"].as_str().unwrap_or_default().to_owned());
        }
        if statuses.iter().all(|status| status == "live") {
            live = true;
            break;
        }
    }
    assert!(live, "the domains did not go live");

    let report = diagnose(
        &["www.example.com", "www.example.co.uk"],
        &service.options(),
    )
    .await
    .unwrap();
    assert!(!report.has_errors(), "{}", report.to_markdown());
    let www = host(&report, "www.example.com");
    finding(www, FindingCode::TlsCertificateOk);
    let certificate = www.tls.as_ref().unwrap().certificate.as_ref().unwrap();
    assert!(certificate.names.contains(&"www.example.com".to_owned()));
    assert!(certificate.trusted && certificate.covers_hostname);
    let redirect = finding(host(&report, "www.example.co.uk"), FindingCode::Redirect);
    assert!(redirect.title.contains("301"));
    assert!(redirect.title.contains("www.example.com"));
}

/// The attached hostnames, as the platform's API lists them for `key`.
async fn attached_hostnames(service: &Running, key: &str) -> std::collections::BTreeSet<String> {
    let mut attached = std::collections::BTreeSet::new();
    let projects = service
        .call(reqwest::Method::GET, "/v1/projects", Some(key), Value::Null)
        .await;
    for project in projects["projects"].as_array().unwrap() {
        let id = project["id"].as_str().unwrap();
        let domains = service
            .call(
                reqwest::Method::GET,
                &format!("/v1/projects/{id}/domains"),
                Some(key),
                Value::Null,
            )
            .await;
        for domain in domains["domains"].as_array().unwrap() {
            attached.insert(domain["hostname"].as_str().unwrap().to_owned());
        }
    }
    attached
}

#[tokio::test]
async fn a_cname_to_the_platform_that_no_project_claims_is_dangling() {
    let service = start().await;
    let key = service.info.demo_keys["pro"].clone();
    project_with_domains(
        service.service.state(),
        &key,
        "claims",
        &["www.example.com"],
    )
    .await;
    let attached = attached_hostnames(&service, &key).await;
    assert_eq!(attached.len(), 1, "{attached:?}");

    // Both seed names have the CNAME the platform asks for; only one is attached.
    let names = ["www.example.com", "www.example.co.uk"];
    let mut options = service.options().with_tls_probe(false);
    options.attached_hostnames = Some(attached);
    let report = diagnose(&names, &options).await.unwrap();
    let claimed = host(&report, "www.example.com");
    assert!(
        !claimed
            .findings
            .iter()
            .any(|found| found.code == FindingCode::DanglingCname),
        "{:#?}",
        claimed.findings
    );
    let dangling = finding(
        host(&report, "www.example.co.uk"),
        FindingCode::DanglingCname,
    );
    assert_eq!(dangling.severity, Severity::Warning);
    assert!(
        dangling
            .fix
            .as_ref()
            .unwrap()
            .summary
            .contains("Attach www.example.co.uk")
    );

    // Without the platform's list DNS alone cannot say: nothing is claimed.
    let unknown = diagnose(&names, &service.options().with_tls_probe(false))
        .await
        .unwrap();
    assert!(
        unknown
            .hosts
            .iter()
            .flat_map(|host| &host.findings)
            .all(|found| found.code != FindingCode::DanglingCname)
    );
}

/// Attaches `hostname` to a new project and advances the virtual clock until it is live.
async fn take_live(service: &Running, hostname: &str) {
    let key = service.info.demo_keys["pro"].clone();
    let post = reqwest::Method::POST;
    let project = project_with_domains(service.service.state(), &key, "live", &[hostname]).await;
    let domains = format!("/v1/projects/{project}/domains");
    for _ in 0..10 {
        service
            .call(
                post.clone(),
                "/_local/clock/advance",
                None,
                json!({"seconds": 3600}),
            )
            .await;
        let domain = service
            .call(
                post.clone(),
                &format!("{domains}/{hostname}/verify"),
                Some(&key),
                json!({}),
            )
            .await;
        if domain["status"] == "live" {
            return;
        }
    }
    panic!("{hostname} did not go live");
}

#[tokio::test]
async fn a_capture_holds_the_certificate_chain_and_replays_without_the_service() {
    let service = start().await;
    take_live(&service, "www.example.com").await;
    let names = ["www.example.com", "shop.example.com"];
    let (report, capture) = domain_desk_doctor::diagnose_capturing(&names, &service.options())
        .await
        .unwrap();
    finding(
        host(&report, "www.example.com"),
        FindingCode::TlsCertificateOk,
    );
    let connection = capture
        .tls
        .iter()
        .find(|exchange| exchange.hostname == "www.example.com")
        .expect("the TLS connection is in the capture");
    match &connection.outcome {
        domain_desk_doctor::tls_probe::TlsOutcome::Connected { chain, .. } => {
            assert!(!chain.is_empty())
        }
        other => panic!("{other:?}"),
    }
    drop(service);

    let replayed = domain_desk_doctor::replay(&capture).await.unwrap();
    assert_eq!(replayed, report);

    // The certificate is judged at the capture's instant: the same file read as if captured
    // a year later shows it expired, from the chain alone.
    let mut later = capture.clone();
    later.captured_at += chrono::Duration::days(400);
    let aged = domain_desk_doctor::replay(&later).await.unwrap();
    finding(host(&aged, "www.example.com"), FindingCode::TlsExpired);
}

/// `serve --sign-zones` with the platform's clock moved three days ahead, as the demo's 600×
/// clock does in an afternoon: the zones are signed at the platform's time, so judged by the
/// platform's clock (`GET /_local/clock`) the live name validates and its certificate is
/// judged at the platform's time too; judged by this computer's clock the same signatures
/// are not valid yet. The report says which clock it used.
#[tokio::test]
async fn after_a_clock_jump_the_platforms_clock_judges_signatures_and_certificates() {
    let service = start_with(|settings| settings.sign_zones = true).await;
    take_live(&service, "www.example.com").await;
    service
        .call(
            reqwest::Method::POST,
            "/_local/clock/advance",
            None,
            json!({"seconds": 259_200}),
        )
        .await;
    let clock: domain_desk_api::local::ClockState = service
        .http
        .get(format!("http://{}/_local/clock", service.info.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let platform = domain_desk_doctor::RunClock::platform(clock.now, clock.speed);
    let mut options = service.options().with_clock(platform);
    options.dnssec = true;
    options.trust_anchor = service.info.dnssec_trust_anchor.clone();

    let report = diagnose(&["www.example.com"], &options).await.unwrap();
    let text = report.to_text();
    let www = host(&report, "www.example.com");
    assert_eq!(
        finding(www, FindingCode::DnssecValid).severity,
        Severity::Ok,
        "{text}"
    );
    assert!(!report.has_errors(), "{text}");
    // the report's own time is the platform's (its clock is stopped in this test)
    assert_eq!(report.generated_at, clock.now);
    assert_eq!(report.clock, platform);
    assert!(text.contains("by the platform's clock, stopped"), "{text}");
    assert!(
        report
            .to_markdown()
            .contains("(by the platform's clock, stopped)"),
        "{}",
        report.to_markdown()
    );
    // the certificate's days left are counted from the platform's time
    let certificate = www.tls.as_ref().unwrap().certificate.clone().unwrap();
    assert!(certificate.trusted, "{text}");
    let days_left = (certificate.not_after.unwrap() - clock.now).num_days();
    assert!(
        finding(www, FindingCode::TlsCertificateOk)
            .detail
            .ends_with(&format!("valid for {days_left} more days.")),
        "{text}"
    );

    // By this computer's clock the signatures made at the platform's time are not valid yet.
    let wall = options
        .clone()
        .with_clock(domain_desk_doctor::RunClock::Wall);
    let report = diagnose(&["www.example.com"], &wall).await.unwrap();
    let bogus = finding(host(&report, "www.example.com"), FindingCode::DnssecBogus);
    assert!(
        bogus.title.ends_with("is not valid yet") && bogus.detail.contains("is valid only from"),
        "{}",
        report.to_text()
    );
    assert!(report.to_text().contains("by this computer's clock"));

    // The TLS probe's trust is judged at the run's time, not at this computer's: a platform
    // clock past the certificate's end finds it expired and not trusted.
    let mut later = options
        .clone()
        .with_clock(domain_desk_doctor::RunClock::platform(
            certificate.not_after.unwrap() + chrono::Duration::days(1),
            0.0,
        ));
    later.dnssec = false;
    let report = diagnose(&["www.example.com"], &later).await.unwrap();
    let www = host(&report, "www.example.com");
    finding(www, FindingCode::TlsExpired);
    let seen = www.tls.as_ref().unwrap().certificate.as_ref().unwrap();
    assert!(
        !seen.trusted
            && seen
                .trust_error
                .as_deref()
                .is_some_and(|error| error.to_ascii_lowercase().contains("expired")),
        "{seen:?}"
    );
}

/// What the doctor tells a user to type at Demo DNS is what Demo DNS does with it: its Name
/// field takes `shop` or the full `shop.example.com` alike (the zone is not appended twice),
/// so the fix says so instead of warning of a doubled name the demo never makes.
#[tokio::test]
async fn the_fix_at_demo_dns_says_what_its_name_field_does_with_a_full_name() {
    let service = start().await;
    let report = diagnose(
        &["shop.example.com"],
        &service.options().with_tls_probe(false),
    )
    .await
    .unwrap();
    let conflict = finding(
        host(&report, "shop.example.com"),
        FindingCode::LiveElsewhere,
    );
    let steps = &conflict.fix.as_ref().unwrap().steps;
    let add = steps
        .iter()
        .find(|step| step.contains("add a CNAME record"))
        .unwrap_or_else(|| panic!("a step adds the CNAME: {steps:?}"));
    assert!(
        add.contains("Name \"shop\" (or shop.example.com)") && !add.contains("appends"),
        "{add}"
    );

    // Typed as the full name, the record is `shop` in the zone, not shop.example.com.example.com.
    service
        .call(
            reqwest::Method::POST,
            "/_local/dns/example.com/records",
            None,
            json!({"name": "shop.example.com", "type": "TXT", "value": "typed in full", "ttl": 300}),
        )
        .await;
    let records = service.zone_records("example.com").await;
    let names: Vec<&str> = records["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["type"] == "TXT")
        .map(|record| record["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shop"], "{records}");
}

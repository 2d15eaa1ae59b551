//! The world behind the API, end to end: the router with the DNS server, the platform resolver
//! view, the CA and the TLS edge running on 127.0.0.1 port 0, on a frozen clock moved by hand.
//!
//! It is longer than the house's 500 lines: its tests share one set-up (the servers, the clock
//! moved by hand, the helpers that ask the edge), and each tells one domain's life step by
//! step (records fixed, live, renewed, removed); the switch-over and moves are in
//! `world/switch.rs`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::Method;
use domain_desk_api::Plan;
use domain_desk_service::ServiceSettings;
use domain_desk_service::verify::Verifier;
use domain_desk_service::world::{LocalWorld, WorldAddresses};
use hickory_proto::rr::RecordType;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::common::{Reply, TestService};

struct WorldService {
    service: TestService,
    world: Arc<LocalWorld>,
    key: String,
    target: String,
    ca_pem: String,
}

impl Drop for WorldService {
    fn drop(&mut self) {
        self.world.stop();
    }
}

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

async fn with_world(service: TestService) -> WorldService {
    let world = service
        .state
        .start_world(WorldAddresses {
            dns: loopback(),
            edge_https: loopback(),
            edge_http: loopback(),
        })
        .await
        .expect("the world starts");
    let key = service.key(Plan::Pro).await;
    let info = service.call(Method::GET, "/_local/info", None, None).await;
    info.expect(200);
    WorldService {
        key,
        target: info.body["platform_dns_target"]
            .as_str()
            .unwrap()
            .to_owned(),
        ca_pem: info.body["ca_certificate_pem"].as_str().unwrap().to_owned(),
        service,
        world,
    }
}

async fn started() -> WorldService {
    with_world(TestService::with_settings(ServiceSettings::default())).await
}

/// [`started`] with a platform resolver that keeps no negative answers, for a flow timed by
/// the propagation delay alone: with the cache, a record created after a check that found
/// nothing waits for the zone's SOA minimum (300 s) too (`negative_cache.rs`).
async fn started_without_negative_cache() -> WorldService {
    with_world(TestService::with_settings(ServiceSettings {
        dns_negative_cache: false,
        ..ServiceSettings::default()
    }))
    .await
}

impl WorldService {
    async fn dns_add(&self, zone: &str, record: Value) -> Reply {
        self.service
            .call(
                Method::POST,
                &format!("/_local/dns/{zone}/records"),
                None,
                Some(record),
            )
            .await
    }

    async fn dns_delete(&self, zone: &str, id: &str) {
        self.service
            .call(
                Method::DELETE,
                &format!("/_local/dns/{zone}/records/{id}"),
                None,
                None,
            )
            .await
            .expect(204);
    }

    async fn cname(&self, zone: &str, name: &str) -> String {
        let added = self
            .dns_add(
                zone,
                json!({"name": name, "type": "CNAME", "value": self.target, "ttl": 60}),
            )
            .await;
        added.expect(201);
        added.body["id"].as_str().unwrap().to_owned()
    }

    async fn add(&self, project: &str, body: Value) -> Reply {
        self.service.add_domain(&self.key, project, body).await
    }

    async fn verify(&self, project: &str, hostname: &str) -> Reply {
        let reply = self
            .service
            .post(
                &format!("/v1/projects/{project}/domains/{hostname}/verify"),
                &self.key,
                json!({}),
            )
            .await;
        reply.expect(200);
        reply
    }

    async fn domain(&self, project: &str, hostname: &str) -> Reply {
        let reply = self
            .service
            .get(
                &format!("/v1/projects/{project}/domains/{hostname}"),
                &self.key,
            )
            .await;
        reply.expect(200);
        reply
    }

    /// Moves the clock by `seconds` the way `POST /_local/clock/advance` does.
    async fn advance(&self, seconds: f64) {
        self.service
            .call(
                Method::POST,
                "/_local/clock/advance",
                None,
                Some(json!({"seconds": seconds})),
            )
            .await
            .expect(200);
    }

    async fn edge(&self, name: &str, path: &str) -> std::io::Result<String> {
        https_get(self.world.addresses().edge_https, &self.ca_pem, name, path).await
    }
}

/// GET over TLS with a client that trusts only `root_pem`; the raw answer or the handshake error.
async fn https_get(
    edge: SocketAddr,
    root_pem: &str,
    name: &str,
    path: &str,
) -> std::io::Result<String> {
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(root_pem.as_bytes()) {
        roots.add(certificate.unwrap()).unwrap();
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let tcp = TcpStream::connect(edge).await?;
    let server_name = ServerName::try_from(name.to_owned()).unwrap();
    let mut tls = TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await?;
    tls.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await?;
    let mut answer = String::new();
    tls.read_to_string(&mut answer).await?;
    Ok(answer)
}

fn text<'a>(reply: &'a Reply, pointer: &str) -> &'a str {
    reply
        .body
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

#[tokio::test]
async fn conflicting_record_then_fix_then_live_then_redirect_then_removal() {
    let world = started_without_negative_cache().await;
    let project = world.service.deployed_project(&world.key, "world").await;
    let project_reply = world
        .service
        .get(&format!("/v1/projects/{project}"), &world.key)
        .await;
    let default_address = text(&project_reply, "/default_address").to_owned();
    // the platform zone answers for the new project's default address at once
    let dns = Verifier::new(world.world.addresses().dns, &world.target);
    let answers = dns.lookup(&default_address, RecordType::A).await.unwrap();
    assert_eq!(answers.len(), 1, "{answers:?}");
    let unknown = format!(
        "no-such-project.{}",
        default_address.split_once('.').unwrap().1
    );
    assert!(
        dns.lookup(&unknown, RecordType::A)
            .await
            .unwrap()
            .is_empty()
    );
    let served = world.edge(&default_address, "/").await.unwrap();
    assert!(
        served.starts_with("HTTP/1.1 200") && served.ends_with("<h1>hi</h1>"),
        "{served}"
    );

    let a_record = world
        .dns_add(
            "example.com",
            json!({"name": "bars1", "type": "A", "value": "192.0.2.10", "ttl": 60}),
        )
        .await;
    a_record.expect(201);
    world
        .dns_add(
            "example.com",
            json!({"name": "bars1", "type": "CNAME", "value": world.target}),
        )
        .await
        .expect_error(409, "record_conflict");
    world
        .add(&project, json!({"hostname": "bars1.example.com"}))
        .await
        .expect(201);
    world.advance(61.0).await;
    let failed = world.verify(&project, "bars1.example.com").await;
    assert_eq!(text(&failed, "/status"), "pending_verification");
    assert_eq!(
        text(&failed, "/verification/error/code"),
        "conflicting_record"
    );
    assert_eq!(
        text(&failed, "/verification/error/found/0/value"),
        "192.0.2.10"
    );

    world
        .dns_delete("example.com", text(&a_record, "/id"))
        .await;
    world.cname("example.com", "bars1").await;
    // the platform's resolver still sees the old records for the propagation delay
    let too_soon = world.verify(&project, "bars1.example.com").await;
    assert_eq!(
        text(&too_soon, "/verification/error/code"),
        "conflicting_record"
    );
    world.advance(61.0).await;
    let verified = world.verify(&project, "bars1.example.com").await;
    assert_eq!(text(&verified, "/status"), "verified");
    assert_eq!(text(&verified, "/certificate/status"), "issuing");
    assert!(verified.body["verification"]["error"].is_null());

    world.advance(119.0).await;
    assert_eq!(
        text(
            &world.domain(&project, "bars1.example.com").await,
            "/certificate/status"
        ),
        "issuing"
    );
    assert!(
        world.edge("bars1.example.com", "/").await.is_err(),
        "no certificate yet"
    );
    world.advance(1.0).await;
    let live = world.domain(&project, "bars1.example.com").await;
    assert_eq!(text(&live, "/status"), "live");
    assert_eq!(text(&live, "/certificate/status"), "issued");
    let issued_at: chrono::DateTime<chrono::Utc> =
        text(&live, "/certificate/issued_at").parse().unwrap();
    let expires_at: chrono::DateTime<chrono::Utc> =
        text(&live, "/certificate/expires_at").parse().unwrap();
    assert_eq!(expires_at - issued_at, chrono::TimeDelta::days(90));
    let started_at: chrono::DateTime<chrono::Utc> =
        text(&live, "/certificate/started_at").parse().unwrap();
    assert_eq!(issued_at - started_at, chrono::TimeDelta::minutes(2));
    let served = world.edge("bars1.example.com", "/").await.unwrap();
    assert!(served.starts_with("HTTP/1.1 200") && served.ends_with("<h1>hi</h1>"));
    let project_reply = world
        .service
        .get(&format!("/v1/projects/{project}"), &world.key)
        .await;
    assert_eq!(text(&project_reply, "/url"), "https://bars1.example.com");

    world.cname("example.com", "old1").await;
    world
        .add(
            &project,
            json!({"hostname": "old1.example.com", "redirect_to": "bars1.example.com"}),
        )
        .await
        .expect(201);
    world.advance(61.0).await;
    world.verify(&project, "old1.example.com").await;
    world.advance(120.0).await;
    let redirect = world.edge("old1.example.com", "/a/b?c=1").await.unwrap();
    assert!(redirect.starts_with("HTTP/1.1 301"), "{redirect}");
    assert!(
        redirect.contains("location: https://bars1.example.com/a/b?c=1"),
        "{redirect}"
    );

    world
        .service
        .delete(
            &format!("/v1/projects/{project}/domains/bars1.example.com"),
            &world.key,
        )
        .await
        .expect(204);
    assert!(
        world.edge("bars1.example.com", "/").await.is_err(),
        "served after removal"
    );
}

#[tokio::test]
async fn caa_on_a_parent_fails_the_certificate_at_the_deadline_and_reverify_recovers() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "caa").await;
    // seed: locked.example.org has CAA `0 issue "other-ca.example"`, www.locked a correct CNAME
    world
        .add(&project, json!({"hostname": "www.locked.example.org"}))
        .await
        .expect(201);
    let verified = world.verify(&project, "www.locked.example.org").await;
    assert_eq!(text(&verified, "/certificate/status"), "issuing");
    let started_at = text(&verified, "/certificate/started_at").to_owned();

    world.advance(600.0).await;
    let waiting = world.domain(&project, "www.locked.example.org").await;
    assert_eq!(text(&waiting, "/certificate/status"), "issuing");
    world.advance(1199.0).await;
    assert_eq!(
        text(
            &world.domain(&project, "www.locked.example.org").await,
            "/certificate/status"
        ),
        "issuing"
    );
    world.advance(1.0).await;
    let failed = world.domain(&project, "www.locked.example.org").await;
    assert_eq!(text(&failed, "/status"), "verified");
    assert_eq!(text(&failed, "/certificate/status"), "failed");
    assert_eq!(
        text(&failed, "/certificate/error/code"),
        "caa_forbids_issuance"
    );
    assert!(text(&failed, "/certificate/error/message").contains("locked.example.org"));
    assert!(world.edge("www.locked.example.org", "/").await.is_err());

    world.dns_delete("example.org", "seed-org-locked-caa").await;
    let fresh = world.verify(&project, "www.locked.example.org").await;
    assert_eq!(text(&fresh, "/certificate/status"), "issuing");
    assert_ne!(text(&fresh, "/certificate/started_at"), started_at);
    assert!(fresh.body["certificate"]["error"].is_null());
    world.advance(120.0).await;
    let live = world.domain(&project, "www.locked.example.org").await;
    assert_eq!(text(&live, "/status"), "live", "{}", live.body);
    assert!(
        world
            .edge("www.locked.example.org", "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn a_name_that_stops_pointing_at_the_platform_fails_with_dns_changed() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "moved").await;
    let cname = world.cname("example.net", "moved").await;
    world
        .add(&project, json!({"hostname": "moved.example.net"}))
        .await
        .expect(201);
    world.advance(61.0).await;
    assert_eq!(
        text(
            &world.verify(&project, "moved.example.net").await,
            "/status"
        ),
        "verified"
    );
    world.dns_delete("example.net", &cname).await;
    world.advance(1800.0).await;
    let failed = world.domain(&project, "moved.example.net").await;
    assert_eq!(text(&failed, "/certificate/status"), "failed");
    assert_eq!(text(&failed, "/certificate/error/code"), "dns_changed");
    assert_eq!(text(&failed, "/status"), "verified");
}

#[tokio::test]
async fn an_apex_with_alias_goes_live() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "apex").await;
    world.dns_delete("example.co.uk", "seed-couk-apex-a").await;
    world
        .dns_add(
            "example.co.uk",
            json!({"name": "@", "type": "ALIAS", "value": world.target}),
        )
        .await
        .expect(201);
    let added = world
        .add(&project, json!({"hostname": "example.co.uk"}))
        .await;
    added.expect(201);
    assert_eq!(text(&added, "/dns_record/type"), "ALIAS");
    world.advance(61.0).await;
    assert_eq!(
        text(&world.verify(&project, "example.co.uk").await, "/status"),
        "verified"
    );
    world.advance(120.0).await;
    assert_eq!(
        text(&world.domain(&project, "example.co.uk").await, "/status"),
        "live"
    );
    assert!(
        world
            .edge("example.co.uk", "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn certificates_renew_before_they_expire() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "renew").await;
    world
        .add(&project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    world.verify(&project, "www.example.com").await;
    world.advance(120.0).await;
    let first = world.domain(&project, "www.example.com").await;
    assert_eq!(text(&first, "/status"), "live");
    let first_expiry: chrono::DateTime<chrono::Utc> =
        text(&first, "/certificate/expires_at").parse().unwrap();

    world.advance(59.0 * 86_400.0).await;
    let same = world.domain(&project, "www.example.com").await;
    assert_eq!(
        text(&same, "/certificate/expires_at"),
        text(&first, "/certificate/expires_at")
    );
    world.advance(2.0 * 86_400.0).await;
    let renewed = world.domain(&project, "www.example.com").await;
    assert_eq!(text(&renewed, "/status"), "live");
    assert_eq!(text(&renewed, "/certificate/status"), "issued");
    let renewed_expiry: chrono::DateTime<chrono::Utc> =
        text(&renewed, "/certificate/expires_at").parse().unwrap();
    assert!(
        renewed_expiry > first_expiry,
        "{first_expiry} -> {renewed_expiry}"
    );
    assert!(
        world
            .edge("www.example.com", "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn verify_without_a_world_is_501_and_the_provider_too() {
    let service = TestService::new();
    let key = service.key(Plan::Pro).await;
    let project = service.deployed_project(&key, "alone").await;
    service
        .add_domain(&key, &project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    service
        .post(
            &format!("/v1/projects/{project}/domains/www.example.com/verify"),
            &key,
            json!({}),
        )
        .await
        .expect(501);
    service
        .call(Method::GET, "/_local/dns/example.com/records", None, None)
        .await
        .expect(501);
}

#[tokio::test]
async fn the_provider_lists_adds_zones_and_refuses_bad_records() {
    let world = started().await;
    let listed = world
        .service
        .call(Method::GET, "/_local/dns/example.com/records", None, None)
        .await;
    listed.expect(200);
    assert!(
        listed.body["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "shop")
    );
    world
        .service
        .call(Method::GET, "/_local/dns/example.edu/records", None, None)
        .await
        .expect_error(404, "not_found");
    world
        .dns_add(
            "example.com",
            json!({"name": "bad", "type": "A", "value": "not-an-address"}),
        )
        .await
        .expect_error(422, "validation_failed");
    world
        .dns_add(
            "example.com",
            json!({"name": "bad", "type": "MX", "value": "x"}),
        )
        .await
        .expect(422);
    world
        .service
        .call(
            Method::POST,
            "/_local/dns",
            None,
            Some(json!({"zone": "example.io"})),
        )
        .await
        .expect(201);
    world
        .service
        .call(
            Method::POST,
            "/_local/dns",
            None,
            Some(json!({"zone": "example.io"})),
        )
        .await
        .expect_error(409, "zone_exists");
    world
        .dns_add(
            "example.io",
            json!({"name": "www", "type": "CNAME", "value": world.target}),
        )
        .await
        .expect(201);
    let zones = world
        .service
        .call(Method::GET, "/_local/dns", None, None)
        .await;
    zones.expect(200);
    assert_eq!(
        zones.body["zones"],
        json!([
            "example.co.uk",
            "example.com",
            "example.io",
            "example.net",
            "example.org"
        ])
    );
}

#[tokio::test]
async fn reset_brings_the_seed_zones_back_and_keeps_the_ca() {
    let world = started().await;
    world
        .dns_add(
            "example.com",
            json!({"name": "extra", "type": "A", "value": "192.0.2.99"}),
        )
        .await
        .expect(201);
    world.dns_delete("example.com", "seed-com-shop-a").await;
    world
        .service
        .call(Method::POST, "/_local/reset", None, Some(json!({})))
        .await
        .expect(200);
    let records = world
        .service
        .call(Method::GET, "/_local/dns/example.com/records", None, None)
        .await;
    let names: Vec<&str> = records.body["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|record| record["name"].as_str())
        .collect();
    assert!(
        names.contains(&"shop") && !names.contains(&"extra"),
        "{names:?}"
    );
    let info = world
        .service
        .call(Method::GET, "/_local/info", None, None)
        .await;
    assert_eq!(
        info.body["ca_certificate_pem"].as_str(),
        Some(world.ca_pem.as_str())
    );
}

#[tokio::test]
async fn a_restart_keeps_the_ca_zones_domains_and_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("platform.sqlite");
    let (ca_pem, project, expires_at) = {
        let world = with_world(TestService::with_file(&path)).await;
        let project = world.service.deployed_project(&world.key, "kept").await;
        world.cname("example.net", "kept").await;
        world
            .add(&project, json!({"hostname": "kept.example.net"}))
            .await
            .expect(201);
        world.advance(61.0).await;
        world.verify(&project, "kept.example.net").await;
        world.advance(120.0).await;
        let live = world.domain(&project, "kept.example.net").await;
        assert_eq!(text(&live, "/status"), "live");
        (
            world.ca_pem.clone(),
            project,
            text(&live, "/certificate/expires_at").to_owned(),
        )
    };

    let again = with_world(TestService::with_file(&path)).await;
    assert_eq!(again.ca_pem, ca_pem, "the CA is kept");
    let records = again
        .service
        .call(Method::GET, "/_local/dns/example.net/records", None, None)
        .await;
    assert!(
        records.body["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "kept")
    );
    let live = again.domain(&project, "kept.example.net").await;
    assert_eq!(text(&live, "/status"), "live");
    assert_eq!(text(&live, "/certificate/expires_at"), expires_at);
    let served = https_get(
        again.world.addresses().edge_https,
        &ca_pem,
        "kept.example.net",
        "/",
    )
    .await
    .unwrap();
    assert!(served.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_clock_jump_goes_live_in_the_background_without_any_request() {
    let world = started().await;
    let project = world
        .service
        .deployed_project(&world.key, "background")
        .await;
    world
        .add(&project, json!({"hostname": "www.example.com"}))
        .await
        .expect(201);
    assert_eq!(
        text(
            &world.verify(&project, "www.example.com").await,
            "/certificate/status"
        ),
        "issuing"
    );
    let mut reconciled = world.world.reconciliations();
    reconciled.mark_unchanged();
    // moved directly, not through the API: only the background task notices
    world.service.state.clock().advance_seconds(120.0).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), reconciled.changed())
        .await
        .expect("the background task reconciles after a clock change")
        .unwrap();
    let status = world
        .service
        .state
        .store()
        .read(|conn| domain_desk_service::store::domains::get(conn, "www.example.com"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.status, domain_desk_api::DomainStatus::Live);
    assert!(
        world
            .edge("www.example.com", "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );
}

/// Live on `project` of the world's (Pro) key: CNAME, propagation, verify, issuance.
async fn make_live(world: &WorldService, project: &str, zone: &str, name: &str) -> String {
    let hostname = format!("{name}.{zone}");
    world
        .add(project, json!({"hostname": hostname}))
        .await
        .expect(201);
    world.cname(zone, name).await;
    world.advance(61.0).await;
    world.verify(project, &hostname).await;
    world.advance(180.0).await;
    assert_eq!(
        text(&world.domain(project, &hostname).await, "/status"),
        "live"
    );
    hostname
}

#[tokio::test]
async fn a_name_another_account_holds_moves_once_its_challenge_is_in_dns() {
    let world = started_without_negative_cache().await;
    let mine = world.service.deployed_project(&world.key, "holder").await;
    let hostname = make_live(&world, &mine, "example.com", "moved").await;
    assert!(
        world
            .edge(&hostname, "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );

    let business = world.service.key(Plan::Business).await;
    let theirs = world.service.deployed_project(&business, "claimer").await;
    let claim = || {
        world
            .service
            .add_domain(&business, &theirs, json!({"hostname": hostname}))
    };
    let refused = claim().await;
    refused.expect_error(409, "domain_taken");
    let challenge = refused.body["error"]["ownership_challenge"].clone();
    assert_eq!(challenge["type"], "TXT");
    assert_eq!(challenge["name"], "_domain-desk-challenge.moved");
    assert_eq!(
        challenge["fqdn"],
        "_domain-desk-challenge.moved.example.com"
    );
    let value = challenge["value"].as_str().unwrap().to_owned();
    assert!(value.starts_with("domain-desk-challenge="), "{value}");
    assert!(challenge["expires_at"].is_string());
    let again = claim().await;
    again.expect_error(409, "domain_taken");
    assert_eq!(
        again.body["error"]["ownership_challenge"], challenge,
        "the same record is offered again"
    );

    // A wrong value proves nothing; the right one counts once the platform's resolver sees it.
    world
        .dns_add(
            "example.com",
            json!({"name": "_domain-desk-challenge.moved", "type": "TXT", "value": "domain-desk-challenge=guess"}),
        )
        .await
        .expect(201);
    world
        .dns_add(
            "example.com",
            json!({"name": "_domain-desk-challenge.moved", "type": "TXT", "value": value}),
        )
        .await
        .expect(201);
    claim().await.expect_error(409, "domain_taken");
    world.advance(61.0).await;
    let moved = claim().await;
    moved.expect(201);
    assert_eq!(moved.body["project_id"], theirs.as_str());
    assert_eq!(moved.body["status"], "pending_verification");

    // The old project stops serving it at once, and its owner sees why.
    assert!(
        world.edge(&hostname, "/").await.is_err(),
        "still served after the move"
    );
    let gone = world
        .service
        .get(
            &format!("/v1/projects/{mine}/domains/{hostname}"),
            &world.key,
        )
        .await;
    gone.expect_error(404, "not_found");
    assert_eq!(
        gone.body["error"]["removal"]["reason"],
        "ownership_transferred"
    );
    assert_eq!(gone.body["error"]["removal"]["hostname"], hostname.as_str());
    let listed = world
        .service
        .get(&format!("/v1/projects/{mine}/domains"), &world.key)
        .await;
    assert_eq!(listed.body["domains"], json!([]));
    let removed = world
        .service
        .get(&format!("/v1/projects/{mine}/removed_domains"), &world.key)
        .await;
    removed.expect(200);
    assert_eq!(
        removed.body["removed_domains"][0]["hostname"],
        hostname.as_str()
    );
    assert_eq!(
        removed.body["removed_domains"][0]["reason"],
        "ownership_transferred"
    );

    // The new holder is an ordinary domain there: it verifies and goes live.
    let verified = world
        .service
        .post(
            &format!("/v1/projects/{theirs}/domains/{hostname}/verify"),
            &business,
            json!({}),
        )
        .await;
    verified.expect(200);
    assert_eq!(verified.body["status"], "verified");
}

#[tokio::test]
async fn an_expired_challenge_proves_nothing_and_a_new_one_is_offered() {
    let world = with_world(TestService::with_settings(ServiceSettings {
        ownership_challenge_ttl: chrono::TimeDelta::hours(1),
        ..ServiceSettings::default()
    }))
    .await;
    let mine = world.service.deployed_project(&world.key, "holder").await;
    let hostname = "kept.example.com";
    world
        .add(&mine, json!({"hostname": hostname}))
        .await
        .expect(201);
    let business = world.service.key(Plan::Business).await;
    let theirs = world.service.deployed_project(&business, "late").await;
    let claim = || {
        world
            .service
            .add_domain(&business, &theirs, json!({"hostname": hostname}))
    };
    let first = claim().await;
    first.expect_error(409, "domain_taken");
    let value = first.body["error"]["ownership_challenge"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    world
        .dns_add(
            "example.com",
            json!({"name": "_domain-desk-challenge.kept", "type": "TXT", "value": value}),
        )
        .await
        .expect(201);
    world.advance(3600.0).await;
    let late = claim().await;
    late.expect_error(409, "domain_taken");
    let renewed = late.body["error"]["ownership_challenge"]["value"]
        .as_str()
        .unwrap();
    assert_ne!(renewed, value, "an expired challenge is replaced");
    world.domain(&mine, hostname).await;
}

#[tokio::test]
async fn removing_a_domain_that_still_points_here_names_the_record_to_delete() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "leaver").await;
    let hostname = make_live(&world, &project, "example.com", "left").await;
    world
        .add(&project, json!({"hostname": "never.example.com"}))
        .await
        .expect(201);

    let removed = world
        .service
        .delete(
            &format!("/v1/projects/{project}/domains/{hostname}"),
            &world.key,
        )
        .await;
    removed.expect(204);
    assert!(removed.raw.is_empty(), "204 has no body");
    let header = removed
        .header("dangling-dns-record")
        .expect("the CNAME still points at the platform");
    let record = domain_desk_api::DanglingRecord::from_header(header).unwrap();
    assert_eq!(record.record_type, "CNAME");
    assert_eq!(record.name, "left");
    assert_eq!(record.fqdn, hostname);
    assert_eq!(record.value, world.target);
    assert!(world.edge(&hostname, "/").await.is_err(), "serving stopped");

    let clean = world
        .service
        .delete(
            &format!("/v1/projects/{project}/domains/never.example.com"),
            &world.key,
        )
        .await;
    clean.expect(204);
    assert_eq!(clean.header("dangling-dns-record"), None);
}

fn time(reply: &Reply, pointer: &str) -> chrono::DateTime<chrono::Utc> {
    text(reply, pointer)
        .parse()
        .unwrap_or_else(|_| panic!("{pointer} is a time in {}", reply.body))
}

#[tokio::test]
async fn a_renewal_caa_forbids_shows_its_cause_keeps_serving_and_succeeds_once_fixed() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "renewal").await;
    let hostname = make_live(&world, &project, "example.com", "renewing").await;
    let first = world.domain(&project, &hostname).await;
    let expires_at = time(&first, "/certificate/expires_at");
    assert_eq!(
        time(&first, "/certificate/renews_at"),
        expires_at - chrono::TimeDelta::days(30),
        "renews_at is 30 days before expiry: {}",
        first.body
    );
    assert!(first.body["certificate"]["error"].is_null());

    // weeks before the renewal, someone names another CA at the parent
    let caa = world
        .dns_add(
            "example.com",
            json!({"name": "@", "type": "CAA", "value": "0 issue \"other-ca.example\""}),
        )
        .await;
    caa.expect(201);
    world.advance(40.0 * 86_400.0).await;
    let before = world.domain(&project, &hostname).await;
    assert!(
        before.body["certificate"]["error"].is_null(),
        "no attempt before the renewal window: {}",
        before.body
    );

    // the renewal window opens: the attempt fails, visibly, and the old certificate serves on
    world.advance(21.0 * 86_400.0).await;
    let failing = world.domain(&project, &hostname).await;
    assert_eq!(text(&failing, "/status"), "live");
    assert_eq!(text(&failing, "/certificate/status"), "issued");
    assert_eq!(
        text(&failing, "/certificate/error/code"),
        "caa_forbids_issuance"
    );
    assert!(
        text(&failing, "/certificate/error/message").contains("other-ca.example")
            || text(&failing, "/certificate/error/message").contains("example.com"),
        "{}",
        failing.body
    );
    assert_eq!(time(&failing, "/certificate/expires_at"), expires_at);
    assert!(
        world
            .edge(&hostname, "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );

    // the fix: the next hourly attempt renews
    world
        .dns_delete("example.com", caa.body["id"].as_str().unwrap())
        .await;
    world.advance(30.0 * 60.0).await;
    assert_eq!(
        text(
            &world.domain(&project, &hostname).await,
            "/certificate/error/code"
        ),
        "caa_forbids_issuance",
        "no attempt before the hour is up"
    );
    world.advance(31.0 * 60.0).await;
    let renewed = world.domain(&project, &hostname).await;
    assert_eq!(text(&renewed, "/certificate/status"), "issued");
    assert!(
        renewed.body["certificate"]["error"].is_null(),
        "{}",
        renewed.body
    );
    assert!(time(&renewed, "/certificate/expires_at") > expires_at);
    assert_eq!(text(&renewed, "/status"), "live");
}

#[tokio::test]
async fn a_renewal_that_keeps_failing_fails_the_certificate_at_expiry() {
    let world = started().await;
    let project = world.service.deployed_project(&world.key, "expiry").await;
    let hostname = make_live(&world, &project, "example.net", "lapsed").await;
    let expires_at = time(
        &world.domain(&project, &hostname).await,
        "/certificate/expires_at",
    );
    world
        .dns_add(
            "example.net",
            json!({"name": "@", "type": "CAA", "value": "0 issue \"other-ca.example\""}),
        )
        .await
        .expect(201);
    world.advance(89.0 * 86_400.0).await;
    assert_eq!(
        text(
            &world.domain(&project, &hostname).await,
            "/certificate/status"
        ),
        "issued"
    );
    world.advance(86_400.0).await;
    let lapsed = world.domain(&project, &hostname).await;
    assert!(
        world.service.state.now() >= expires_at,
        "the clock is past the expiry"
    );
    assert_eq!(text(&lapsed, "/certificate/status"), "failed");
    assert_eq!(
        text(&lapsed, "/certificate/error/code"),
        "caa_forbids_issuance"
    );
    assert_eq!(text(&lapsed, "/status"), "verified");
    assert!(lapsed.body["certificate"]["renews_at"].is_null());
}

#[tokio::test]
async fn a_renewal_checks_dnssec_when_the_zones_are_signed() {
    let world = with_world(TestService::with_settings(ServiceSettings {
        sign_zones: true,
        ..ServiceSettings::default()
    }))
    .await;
    let project = world.service.deployed_project(&world.key, "signed").await;
    let hostname = make_live(&world, &project, "example.org", "signed").await;
    world
        .service
        .call(
            Method::PUT,
            "/_local/dns/example.org/dnssec",
            None,
            Some(json!({"signatures": "expired"})),
        )
        .await
        .expect(200);
    world.advance(61.0 * 86_400.0).await;
    let failing = world.domain(&project, &hostname).await;
    assert_eq!(text(&failing, "/certificate/status"), "issued");
    assert_eq!(text(&failing, "/certificate/error/code"), "dnssec_invalid");
    assert!(text(&failing, "/certificate/error/message").contains("example.org"));

    world
        .service
        .call(
            Method::PUT,
            "/_local/dns/example.org/dnssec",
            None,
            Some(json!({"signatures": "valid"})),
        )
        .await
        .expect(200);
    world.advance(3600.0).await;
    let renewed = world.domain(&project, &hostname).await;
    assert!(
        renewed.body["certificate"]["error"].is_null(),
        "{}",
        renewed.body
    );
}

/// The demo's own renewal story, as seeded: a live domain, a CAA event three days later, the
/// renewal failing on its day, and the fix renewing at the next hourly attempt.
#[tokio::test]
async fn the_seeded_demo_domain_is_live_meets_its_caa_event_and_renews_once_fixed() {
    use domain_desk_service::world::renewal_demo;
    let world = started().await;
    let business = world.service.key(Plan::Business).await;
    let projects = world.service.get("/v1/projects", &business).await;
    projects.expect(200);
    let project = projects.body["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|project| project["name"] == renewal_demo::PROJECT_NAME)
        .and_then(|project| project["id"].as_str())
        .unwrap()
        .to_owned();
    let path = format!("/v1/projects/{project}/domains/{}", renewal_demo::HOSTNAME);
    let caa_records = || async {
        let listed = world
            .service
            .call(
                Method::GET,
                &format!("/_local/dns/{}/records", renewal_demo::EVENT_ZONE),
                None,
                None,
            )
            .await;
        listed.expect(200);
        listed.body["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|record| record["type"] == "CAA")
            .cloned()
            .collect::<Vec<Value>>()
    };

    let first = world.service.get(&path, &business).await;
    first.expect(200);
    assert_eq!(text(&first, "/status"), "live", "{}", first.body);
    assert_eq!(text(&first, "/certificate/status"), "issued");
    let expires_at = time(&first, "/certificate/expires_at");
    assert!(caa_records().await.is_empty(), "no CAA before the event");
    assert!(
        world
            .edge(renewal_demo::HOSTNAME, "/")
            .await
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );

    // the event: a day short of it nothing, then the record
    world.advance(2.0 * 86_400.0).await;
    world.service.get(&path, &business).await.expect(200);
    assert!(caa_records().await.is_empty(), "not before its day");
    world.advance(86_400.0 + 60.0).await;
    world.service.get(&path, &business).await.expect(200);
    let caa = caa_records().await;
    assert_eq!(caa.len(), 1, "{caa:?}");
    assert_eq!(caa[0]["value"], renewal_demo::EVENT_CAA);

    // the renewal date: the attempt fails with the CAA cause, the certificate serves on
    world.advance(58.0 * 86_400.0).await;
    let failing = world.service.get(&path, &business).await;
    assert_eq!(text(&failing, "/status"), "live");
    assert_eq!(
        text(&failing, "/certificate/error/code"),
        "caa_forbids_issuance",
        "{}",
        failing.body
    );
    assert_eq!(time(&failing, "/certificate/expires_at"), expires_at);

    // the fix: the next hourly attempt renews
    world
        .dns_delete(renewal_demo::EVENT_ZONE, caa[0]["id"].as_str().unwrap())
        .await;
    world.advance(61.0 * 60.0).await;
    let renewed = world.service.get(&path, &business).await;
    assert!(
        renewed.body["certificate"]["error"].is_null(),
        "{}",
        renewed.body
    );
    assert!(time(&renewed, "/certificate/expires_at") > expires_at);

    // a reset tells the story again from the start
    world
        .service
        .call(Method::POST, "/_local/reset", None, None)
        .await;
    let again = world.service.get(&path, &business).await;
    assert_eq!(text(&again, "/status"), "live", "{}", again.body);
    assert!(caa_records().await.is_empty());
}

/// The contract's second part: certificates before the switch, wildcards, moving a domain.
mod switch;

//! "Set up automatically" end to end over real loopback: the client discovers the local
//! service's DNS provider through `_domainconnect` TXT and the settings call, checks template
//! support, builds the apply URL; the consent page is fetched and its form posted like a
//! browser would; the record is then answered by the DNS server over UDP and the domain
//! verifies. And the refusals: Cancel, an unsupported template, missing or bad signatures, a
//! forged form, markup in the request.
//!
//! It is longer than the house's 500 lines (about 610, all tests): eight tests of one flow on
//! one set-up, about 150 lines of it (the service with its signed template, `Running`'s form
//! posting like a browser's, the DNS answers, `signed` URLs). The client's own unit tests (the
//! apply URL, the refused addresses) are apart already in `src/domain_connect.rs`, and the
//! signed template and its key in `domain_desk_test_support::domain_connect`.

use std::net::SocketAddr;

use base64::Engine;
use domain_desk_api::local::LocalInfo;
use domain_desk_api::txt::txt_text;
use domain_desk_api::{AddDomain, DomainStatus, Plan};
use domain_desk_client::domain_connect::{
    Discovery, DomainConnect, SyncApply, Targets, sync_apply_url,
};
use domain_desk_client::{Client, ClientConfig};
use domain_desk_service::ServiceSettings;
use domain_desk_test_support::domain_connect::{SIGNED_TEMPLATE, signing_key_txt};
use hickory_resolver::Resolver;
use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::{RData, RecordType};

const PLATFORM: &str = "local-platform.test";
const SUBDOMAIN: &str = "custom-domain";
const REDIRECT: &str = "http://localhost:9/done";

const SIGNING_KEY: &[u8] = include_bytes!("../data/dc-test-signing-key.pk8");
const OTHER_KEY: &[u8] = include_bytes!("../data/dc-other-key.pk8");

struct Running {
    info: LocalInfo,
    base: String,
    http: reqwest::Client,
    _service: domain_desk_service::Running,
}

impl Running {
    async fn start() -> Self {
        let service = domain_desk_test_support::start_with(ServiceSettings {
            clock_speed: 0.0,
            domain_connect_templates: vec![SIGNED_TEMPLATE.to_owned()],
            ..domain_desk_test_support::loopback_settings()
        })
        .await;
        Self {
            base: service.base_url(),
            info: service.info().clone(),
            http: domain_desk_test_support::http_client_builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            _service: service,
        }
    }

    fn dns(&self) -> SocketAddr {
        self.info
            .dns
            .as_deref()
            .unwrap()
            .parse()
            .expect("the DNS address")
    }

    fn client(&self) -> Client {
        let key = self.info.demo_keys["pro"].clone();
        Client::new(ClientConfig::new(&self.base, key).plan(Plan::Pro)).expect("client")
    }

    async fn local(&self, path: &str, body: serde_json::Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    async fn discover(&self, hostname: &str) -> Discovery {
        DomainConnect::with_name_server(self.dns(), Targets::Demo)
            .unwrap()
            .discover(hostname)
            .await
            .unwrap()
            .expect("the local provider supports Domain Connect")
    }

    async fn get(&self, url: &str) -> (u16, String) {
        let response = self.http.get(url).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Posts the consent page's form with `action`, as the browser would.
    async fn submit(&self, url: &str, page: &str, action: &str) -> reqwest::Response {
        let form_url = url.split('?').next().unwrap();
        self.http
            .post(form_url)
            .form(&[
                ("query", hidden(page, "query")),
                ("token", hidden(page, "token")),
                ("action", action.to_owned()),
            ])
            .send()
            .await
            .unwrap()
    }
}

/// A hidden input's value in the consent page, unescaped.
fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).expect("the hidden field") + marker.len();
    let end = start + page[start..].find('"').unwrap();
    page[start..end]
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

async fn answers(dns: SocketAddr, name: &str, record_type: RecordType) -> Vec<String> {
    let mut udp = ConnectionConfig::udp();
    udp.port = dns.port();
    let config =
        ResolverConfig::from_name_servers(vec![NameServerConfig::new(dns.ip(), true, vec![udp])]);
    let mut options = ResolverOpts::default();
    options.cache_size = 0;
    let resolver = Resolver::builder_with_config(config, TokioRuntimeProvider::default())
        .with_options(options)
        .build()
        .unwrap();
    match resolver.lookup(name, record_type).await {
        Ok(lookup) => lookup
            .answers()
            .iter()
            .filter_map(|record| match &record.data {
                RData::CNAME(target) => Some(target.0.to_ascii()),
                RData::TXT(txt) => Some(txt_text(txt.txt_data.iter())),
                _ => None,
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Appends `sig` and `key` to `url`, signing its query with the PKCS #8 key `der`.
fn signed(url: &str, der: &[u8]) -> String {
    let query = url.split_once('?').unwrap().1;
    let pair = ring::signature::RsaKeyPair::from_pkcs8(der).unwrap();
    let mut signature = vec![0; pair.public().modulus_len()];
    pair.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        query.as_bytes(),
        &mut signature,
    )
    .unwrap();
    let sig = base64::engine::general_purpose::STANDARD.encode(signature);
    let sig: String = sig
        .bytes()
        .map(|b| match b {
            b'+' => "%2B".to_owned(),
            b'/' => "%2F".to_owned(),
            b'=' => "%3D".to_owned(),
            b => char::from(b).to_string(),
        })
        .collect();
    format!("{url}&sig={sig}&key=_dck1")
}

#[tokio::test]
async fn set_up_automatically_writes_the_record_and_the_domain_verifies() {
    let service = Running::start().await;
    let client = service.client();
    let project = client.create_project("auto").await.unwrap();
    client.deploy(&project.id, None).await.unwrap();
    let hostname = "auto.example.com";
    client
        .add_domain(
            &project.id,
            &AddDomain {
                hostname: hostname.into(),
                redirect_to: None,
            },
        )
        .await
        .unwrap();

    let discovery = service.discover(hostname).await;
    assert_eq!(discovery.domain, "example.com");
    assert_eq!(discovery.host, "auto");
    assert_eq!(discovery.settings.provider_id, "dns.local-platform.test");
    let dc = DomainConnect::with_name_server(service.dns(), Targets::Demo).unwrap();
    assert!(
        dc.supports_template(&discovery.settings, PLATFORM, SUBDOMAIN)
            .await
            .unwrap()
    );
    assert!(
        !dc.supports_template(&discovery.settings, PLATFORM, "mail")
            .await
            .unwrap()
    );
    assert_eq!(
        DomainConnect::with_name_server(service.dns(), Targets::Demo)
            .unwrap()
            .discover("shop.unserved-zone.com")
            .await
            .unwrap(),
        None,
        "a zone without _domainconnect"
    );

    let url = sync_apply_url(
        &discovery,
        PLATFORM,
        SUBDOMAIN,
        &SyncApply {
            redirect_uri: Some(REDIRECT),
            state: Some("st-1"),
            ..SyncApply::default()
        },
    )
    .unwrap();
    let (status, page) = service.get(&url).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("<td>CNAME</td><td>auto.example.com</td>"),
        "{page}"
    );
    assert!(page.contains(&service.info.platform_dns_target));
    assert!(page.contains(">Apply</button>") && page.contains(">Cancel</button>"));
    assert!(
        answers(service.dns(), "auto.example.com.", RecordType::CNAME)
            .await
            .is_empty()
    );

    let applied = service.submit(&url, &page, "apply").await;
    assert_eq!(applied.status(), 303);
    assert_eq!(
        applied.headers()["location"].to_str().unwrap(),
        format!("{REDIRECT}?state=st-1")
    );
    assert_eq!(
        answers(service.dns(), "auto.example.com.", RecordType::CNAME).await,
        vec![format!("{}.", service.info.platform_dns_target)]
    );

    // The platform's resolver sees it after the propagation delay; then Verify passes.
    service
        .local("/_local/clock/advance", serde_json::json!({"seconds": 61}))
        .await;
    let verified = client.verify_domain(&project.id, hostname).await.unwrap();
    assert_eq!(
        verified.status,
        DomainStatus::Verified,
        "{:?}",
        verified.verification
    );
}

#[tokio::test]
async fn cancel_unsupported_and_forged_requests_change_nothing() {
    let service = Running::start().await;
    let discovery = service.discover("cancel.example.com").await;
    let apply = SyncApply {
        redirect_uri: Some(REDIRECT),
        state: Some("st-2"),
        ..SyncApply::default()
    };
    let url = sync_apply_url(&discovery, PLATFORM, SUBDOMAIN, &apply).unwrap();
    let (_, page) = service.get(&url).await;

    let cancelled = service.submit(&url, &page, "cancel").await;
    assert_eq!(cancelled.status(), 303);
    assert_eq!(
        cancelled.headers()["location"].to_str().unwrap(),
        format!("{REDIRECT}?state=st-2&error=access_denied&error_description=user_cancel")
    );
    assert!(
        answers(service.dns(), "cancel.example.com.", RecordType::CNAME)
            .await
            .is_empty()
    );

    // A form this service did not serve for this request.
    let other_url = sync_apply_url(
        &service.discover("other.example.com").await,
        PLATFORM,
        SUBDOMAIN,
        &apply,
    )
    .unwrap();
    let forged = service
        .http
        .post(url.split('?').next().unwrap())
        .form(&[
            ("query", other_url.split_once('?').unwrap().1),
            ("token", hidden(&page, "token").as_str()),
            ("action", "apply"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);
    assert!(
        answers(service.dns(), "other.example.com.", RecordType::CNAME)
            .await
            .is_empty()
    );

    let unsupported = sync_apply_url(&discovery, PLATFORM, "mail", &apply).unwrap();
    let (status, page) = service.get(&unsupported).await;
    assert_eq!(status, 404);
    assert!(page.contains("does not support the template"), "{page}");

    let elsewhere = sync_apply_url(
        &discovery,
        PLATFORM,
        SUBDOMAIN,
        &SyncApply {
            redirect_uri: Some("https://evil.example/steal"),
            ..SyncApply::default()
        },
    )
    .unwrap();
    let (status, page) = service.get(&elsewhere).await;
    assert_eq!(status, 400);
    assert!(
        page.contains("allows redirects only to localhost"),
        "{page}"
    );

    let markup = format!(
        "{}/v2/domainTemplates/providers/{PLATFORM}/services/{SUBDOMAIN}/apply?domain=example.com&host=%3Cscript%3Ex%3C%2Fscript%3E",
        service.base
    );
    let (status, page) = service.get(&markup).await;
    assert_eq!(status, 400);
    assert!(!page.contains("<script>x"), "{page}");
    assert!(page.contains("&lt;script&gt;x"), "{page}");
}

#[tokio::test]
async fn a_signed_template_needs_a_signature_that_verifies() {
    let service = Running::start().await;
    for value in signing_key_txt() {
        let added = service
            .local(
                "/_local/dns/example.net/records",
                serde_json::json!({"name": "_dck1", "type": "TXT", "value": value}),
            )
            .await;
        assert_eq!(added.status(), 201);
    }
    let discovery = service.discover("www.example.com").await;
    let url = sync_apply_url(
        &discovery,
        "signed.example",
        "site",
        &SyncApply {
            variables: vec![("token", "t-123")],
            redirect_uri: Some(REDIRECT),
            state: None,
        },
    )
    .unwrap();

    let (status, page) = service.get(&url).await;
    assert_eq!(status, 403);
    assert!(page.contains("carries no signature"), "{page}");
    let (status, page) = service.get(&signed(&url, OTHER_KEY)).await;
    assert_eq!(status, 403);
    assert!(page.contains("does not match"), "{page}");
    let tampered = signed(&url, SIGNING_KEY).replace("t-123", "t-999");
    let (status, _) = service.get(&tampered).await;
    assert_eq!(status, 403, "a changed variable breaks the signature");

    let good = signed(&url, SIGNING_KEY);
    let (status, page) = service.get(&good).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("site=t-123"), "{page}");
    let applied = service.submit(&good, &page, "apply").await;
    assert_eq!(applied.status(), 303);
    assert_eq!(
        answers(service.dns(), "_site.www.example.com.", RecordType::TXT).await,
        vec!["site=t-123".to_owned()]
    );
}

#[tokio::test]
async fn the_apex_template_replaces_the_old_address_with_an_alias() {
    let service = Running::start().await;
    let client = service.client();
    let project = client.create_project("apex").await.unwrap();
    client.deploy(&project.id, None).await.unwrap();
    client
        .add_domain(
            &project.id,
            &AddDomain {
                hostname: "example.net".into(),
                redirect_to: None,
            },
        )
        .await
        .unwrap();
    let discovery = service.discover("example.net").await;
    assert_eq!(discovery.host, "");
    let url = sync_apply_url(
        &discovery,
        PLATFORM,
        "custom-domain-apex",
        &SyncApply::default(),
    )
    .unwrap();
    let (status, page) = service.get(&url).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("<td>ALIAS</td><td>example.net</td>"),
        "{page}"
    );
    assert!(page.contains("Records to delete"), "{page}");
    assert!(
        page.contains("<td>A</td><td>example.net</td><td>192.0.2.20</td>"),
        "{page}"
    );

    let applied = service.submit(&url, &page, "apply").await;
    assert_eq!(
        applied.status(),
        200,
        "no redirect_uri: a page says it is done"
    );
    assert!(applied.text().await.unwrap().contains("Applied"));
    service
        .local("/_local/clock/advance", serde_json::json!({"seconds": 61}))
        .await;
    let verified = client
        .verify_domain(&project.id, "example.net")
        .await
        .unwrap();
    assert_eq!(
        verified.status,
        DomainStatus::Verified,
        "{:?}",
        verified.verification
    );
}

/// A browser for `set_up`: fetches the consent page, presses `action`, and follows the
/// provider's redirect back to the loopback port the flow listens on.
fn browser(service: &Running, action: &'static str) -> impl FnOnce(&str) -> Result<(), String> {
    let http = service.http.clone();
    move |url: &str| {
        let url = url.to_owned();
        tokio::spawn(async move {
            let page = http.get(&url).send().await.unwrap().text().await.unwrap();
            let form_url = url.split('?').next().unwrap().to_owned();
            let answer = http
                .post(form_url)
                .form(&[
                    ("query", hidden(&page, "query")),
                    ("token", hidden(&page, "token")),
                    ("action", action.to_owned()),
                ])
                .send()
                .await
                .unwrap();
            let back = answer.headers()["location"].to_str().unwrap().to_owned();
            // The provider sends the browser to the loopback IP literal the flow gave it.
            assert!(back.starts_with("http://127.0.0.1:"), "{back}");
            http.get(back).send().await.unwrap();
        });
        Ok(())
    }
}

#[tokio::test]
async fn set_up_runs_the_whole_flow_through_a_browser_and_its_loopback_redirect() {
    use domain_desk_client::domain_connect::{AutoSetup, SyncOutcome};
    use std::time::Duration;
    let service = Running::start().await;
    let dc = DomainConnect::with_name_server(service.dns(), Targets::Demo).unwrap();
    // The local provider's pages are on the service's own address.
    let approved = service.base.trim_start_matches("http://").to_owned();

    let applied = dc
        .set_up(
            "flow.example.com",
            &approved,
            browser(&service, "apply"),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
    assert!(
        matches!(
            &applied,
            AutoSetup::Finished {
                outcome: SyncOutcome::Applied,
                ..
            }
        ),
        "{applied:?}"
    );
    assert_eq!(
        answers(service.dns(), "flow.example.com.", RecordType::CNAME).await,
        vec![format!("{}.", service.info.platform_dns_target)]
    );

    let cancelled = dc
        .set_up(
            "cancel.example.com",
            &approved,
            browser(&service, "cancel"),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
    assert!(
        matches!(&cancelled, AutoSetup::Finished { outcome: SyncOutcome::Refused { error, .. }, .. } if error == "access_denied"),
        "{cancelled:?}"
    );
    assert!(
        answers(service.dns(), "cancel.example.com.", RecordType::CNAME)
            .await
            .is_empty()
    );

    let unserved = dc
        .set_up(
            "shop.unserved-zone.com",
            &approved,
            |_: &str| Ok(()),
            Duration::from_secs(1),
        )
        .await
        .unwrap();
    assert!(
        matches!(unserved, AutoSetup::NotOffered { .. }),
        "{unserved:?}"
    );
}

#[tokio::test]
async fn set_up_opens_nothing_when_the_consent_page_is_not_on_the_approved_host() {
    let service = Running::start().await;
    let dc = DomainConnect::with_name_server(service.dns(), Targets::Demo).unwrap();
    let opened = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = opened.clone();
    let refused = dc
        .set_up(
            "moved.example.com",
            "dc.provider.example",
            move |_: &str| {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                Ok(())
            },
            std::time::Duration::from_secs(1),
        )
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("not at dc.provider.example"),
        "{refused}"
    );
    assert!(!opened.load(std::sync::atomic::Ordering::SeqCst));
}

/// A discovery whose consent page is at `url`, for the target checks.
fn at(url: &str) -> Discovery {
    Discovery {
        domain: "example.net".into(),
        host: "shop".into(),
        settings: domain_desk_api::domain_connect::ProviderSettings {
            provider_id: "p".into(),
            provider_name: "P".into(),
            provider_display_name: None,
            url_sync_ux: url.into(),
            url_api: url.into(),
            width: None,
            height: None,
            name_servers: vec![],
        },
    }
}

#[tokio::test]
async fn outside_the_demo_a_provider_on_this_computer_or_a_private_network_is_refused() {
    let service = Running::start().await;
    for (name, value) in [
        ("dc-private", "10.1.2.3"),
        ("dc-mixed", "192.0.2.7"),
        ("dc-mixed", "172.16.5.5"),
        ("dc-public", "192.0.2.8"),
    ] {
        let added = service
            .local(
                "/_local/dns/example.net/records",
                serde_json::json!({"name": name, "type": "A", "value": value}),
            )
            .await;
        assert_eq!(added.status(), 201);
    }
    let public = DomainConnect::with_name_server(service.dns(), Targets::Public).unwrap();

    // The local provider's `_domainconnect` record names 127.0.0.1: nothing is sent there.
    let refused = public.offer("x.example.com").await.unwrap_err();
    assert!(refused.to_string().contains("127.0.0.1"), "{refused}");
    for (url, address) in [
        ("https://dc-private.example.net/", "10.1.2.3"),
        // Every address counts, not only the first.
        ("https://dc-mixed.example.net/", "172.16.5.5"),
        ("https://localhost:8443/", "localhost"),
        ("https://shop.localhost/", "shop.localhost"),
        ("https://[::1]:8443/", "::1"),
        ("https://169.254.169.254/", "169.254.169.254"),
        ("https://100.64.0.9/", "100.64.0.9"),
        ("http://127.0.0.1:9/", "127.0.0.1"),
    ] {
        let refused = public.consent(&at(url)).await.unwrap_err();
        assert!(refused.to_string().contains(address), "{url}: {refused}");
    }
    let fine = public
        .consent(&at("https://dc-public.example.net/dc"))
        .await
        .unwrap();
    assert_eq!(fine.host, "dc-public.example.net");

    // The demo's account may use the demo's own provider, and is shown where it is.
    let demo = DomainConnect::with_name_server(service.dns(), Targets::Demo).unwrap();
    let offered = demo.offer("x.example.com").await.unwrap().unwrap();
    assert_eq!(
        offered.consent.host,
        service.base.trim_start_matches("http://")
    );
    assert!(demo.consent(&at("https://10.1.2.3/")).await.is_err());
}

/// The provider's API is asked at the addresses its check found, not looked up again by the
/// HTTP client: a DNS answer that changed in between (rebinding) would otherwise reach what
/// the check refused. The name here exists only in the local DNS, which the system's resolver
/// does not ask, so a connection reaches the listener only through the checked address (the
/// TLS handshake then fails: the listener is no provider, and that is not what is tested).
#[tokio::test]
async fn the_provider_is_asked_at_the_address_its_check_found() {
    let service = Running::start().await;
    let added = service
        .local(
            "/_local/dns/example.net/records",
            serde_json::json!({"name": "dc-api", "type": "A", "value": "127.0.0.1"}),
        )
        .await;
    assert_eq!(added.status(), 201);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Takes one connection and closes it at once, so the handshake fails without a wait.
    let (reached, reaches) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Ok((stream, _)) = listener.accept() {
            // told before the stream closes, so the answer is known when the client fails
            let _ = reached.send(());
            drop(stream);
        }
    });
    let mut settings = service.discover("x.example.com").await.settings;
    settings.url_api = format!("https://dc-api.example.net:{port}");
    let dc = DomainConnect::with_name_server(service.dns(), Targets::Demo).unwrap();
    let asked = dc.supports_template(&settings, PLATFORM, SUBDOMAIN).await;
    assert!(asked.is_err(), "the listener speaks no TLS: {asked:?}");
    assert!(
        reaches.try_recv().is_ok(),
        "no connection reached the address the check found ({asked:?})"
    );
}

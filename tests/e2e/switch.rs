//! Issue 60, a live site attached without a gap, at the demo's 600× clock: the seeded
//! `shop.example.org` (served today by 192.0.2.77, another host) is added with "Keep the site
//! up while you switch" — step 1 the `_acme-challenge` record, created through the dialog's
//! Open Demo DNS, until the row reads "Certificate ready"; step 2 the routing record — and is
//! live at the next check. From then on a TLS client probes the demo's edge for the name
//! without pause (trusting only the demo's CA, on the platform's clock, as the doctor judges a
//! certificate): every answer is a valid certificate and a page, through the move to another
//! project from the row's menu, after which the page is that project's. Screenshots of each
//! step at 1400×900 and 900×600, light and dark.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::harness::{App, Deadline, WAIT};
use super::{PRO_SITE, open_project, resize, row, start_demo};

const SHOP: &str = "shop.example.org";
const OLD_HOST: &str = "192.0.2.77";
/// The page the move's target project serves once it is deployed here.
const DRAFT_PAGE: &str = "<h1>Pro draft serves shop.example.org now</h1>";

/// The demo service the window runs: its API's base URL (from the lock file the window keeps
/// in its data folder) and what `/_local/info` says of it.
struct Demo {
    base_url: String,
    info: serde_json::Value,
    http: reqwest::Client,
}

impl Demo {
    async fn find(app: &App) -> Demo {
        let lock = app.home().join("data/dev.domaindesk.app/demo-service.lock");
        let base_url = std::fs::read_to_string(&lock)
            .unwrap_or_else(|err| panic!("{}: {err}", lock.display()))
            .trim()
            .to_owned();
        let http = domain_desk_test_support::http_client();
        let info = http
            .get(format!("{base_url}/_local/info"))
            .send()
            .await
            .expect("the demo's /_local/info")
            .json::<serde_json::Value>()
            .await
            .expect("its JSON");
        Demo {
            base_url,
            info,
            http,
        }
    }

    fn edge(&self) -> SocketAddr {
        self.info["edge_https"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .expect("the edge's HTTPS address")
    }

    /// The platform's clock now (the demo's, at its speed).
    async fn now(&self) -> UnixTime {
        let clock: serde_json::Value = self
            .http
            .get(format!("{}/_local/clock", self.base_url))
            .send()
            .await
            .expect("the demo's clock")
            .json()
            .await
            .expect("its JSON");
        let now = chrono::DateTime::parse_from_rfc3339(clock["now"].as_str().unwrap_or_default())
            .expect("the clock's time");
        UnixTime::since_unix_epoch(Duration::from_secs(
            u64::try_from(now.timestamp()).unwrap_or_default(),
        ))
    }

    /// A deploy of `files` to the Pro account's project `name`, through the public API.
    async fn deploy(&self, name: &str, page: &str) {
        let key = self.info["demo_keys"]["pro"].as_str().expect("the pro key");
        let projects: serde_json::Value = self
            .http
            .get(format!("{}/v1/projects", self.base_url))
            .bearer_auth(key)
            .send()
            .await
            .expect("the projects")
            .json()
            .await
            .expect("their JSON");
        let id = projects["projects"]
            .as_array()
            .and_then(|all| all.iter().find(|p| p["name"] == name))
            .and_then(|p| p["id"].as_str())
            .expect("the project")
            .to_owned();
        let deployed = self
            .http
            .post(format!("{}/v1/projects/{id}/deploys", self.base_url))
            .bearer_auth(key)
            .json(&serde_json::json!({"files": {"index.html": page}}))
            .send()
            .await
            .expect("the deploy");
        assert_eq!(deployed.status(), 201, "the deploy of {name}");
    }
}

/// A fixed time for the certificate check: the platform's, read just before the handshake.
#[derive(Debug)]
struct At(UnixTime);

impl rustls::time_provider::TimeProvider for At {
    fn current_time(&self) -> Option<UnixTime> {
        Some(self.0)
    }
}

/// One HTTPS request to the edge for `name`, trusting only the demo's CA, the certificate
/// judged at `now`: the answer's status line and body, or why there was none.
async fn probe(
    edge: SocketAddr,
    ca_pem: &str,
    now: UnixTime,
    name: &str,
) -> Result<String, String> {
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots
            .add(certificate.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    let config = rustls::ClientConfig::builder_with_details(
        Arc::new(rustls::crypto::ring::default_provider()),
        Arc::new(At(now)),
    )
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(edge)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let server = ServerName::try_from(name.to_owned()).map_err(|e| e.to_string())?;
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(server, tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let request = format!("GET / HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n");
    tls.write_all(request.as_bytes())
        .await
        .map_err(|e| format!("request: {e}"))?;
    let mut answer = String::new();
    // A peer that closes without close_notify still gave its whole answer here.
    let _ = tls.read_to_string(&mut answer).await;
    let status = answer.lines().next().unwrap_or_default().to_owned();
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!("answer: {status:?}"));
    }
    let body = answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    Ok(body)
}

/// What the prober saw: each probe's time since it started and its answer.
type Probes = Vec<(Duration, Result<String, String>)>;

/// Probes the edge for `name` without pause until `stop` is set.
fn start_prober(demo: &Demo, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<Probes> {
    let edge = demo.edge();
    let ca = demo.info["ca_certificate_pem"]
        .as_str()
        .expect("the demo CA")
        .to_owned();
    let demo = Demo {
        base_url: demo.base_url.clone(),
        info: demo.info.clone(),
        http: demo.http.clone(),
    };
    tokio::spawn(async move {
        let started = Instant::now();
        let mut seen = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let now = demo.now().await;
            seen.push((started.elapsed(), probe(edge, &ca, now, SHOP).await));
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        seen
    })
}

/// The step's screenshots: 1400×900 and 900×600, light and dark; the window is left at
/// 1400×900 in the light theme.
async fn shots(app: &App, step: &str) {
    for (width, height) in [(1400, 900), (900, 600)] {
        resize(app, width, height).await;
        for theme in ["light", "dark"] {
            app.script(&format!(
                "document.documentElement.dataset.theme = '{theme}'; return true;"
            ))
            .await;
            app.screenshot(&format!("60-{step}-{width}x{height}-{theme}"))
                .await;
        }
    }
    app.script("document.documentElement.dataset.theme = 'light'; return true;")
        .await;
    resize(app, 1400, 900).await;
}

/// Waits until the form control `css` holds `expected`.
async fn wait_value(app: &App, css: &str, expected: &str) {
    let deadline = Deadline::after(WAIT);
    loop {
        let value = app.value(css).await;
        if value == expected {
            return;
        }
        if deadline.passed() {
            app.fail(format!("{css} holds {value:?}, not {expected:?}"))
                .await;
        }
        Deadline::next_look().await;
    }
}

/// Waits (up to `timeout`) until `css`'s `attribute` reads `expected`.
async fn wait_attr_long(app: &App, css: &str, attribute: &str, expected: &str, timeout: Duration) {
    app.wait_attr_for(css, attribute, expected, timeout).await;
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_live_site_switches_and_moves_without_a_gap_at_600x() {
    let app = App::launch("switch_without_a_gap").await;
    start_demo(&app).await;
    app.choose("#clock-speed", "600").await;
    app.wait_contains("#toasts", "Demo clock: 600×").await;
    let demo = Demo::find(&app).await;
    // The move's target needs a site of its own to serve the name.
    demo.deploy("Pro draft", DRAFT_PAGE).await;
    resize(&app, 1400, 900).await;
    open_project(&app, PRO_SITE, "Pro site").await;

    // Add: the pre-flight sees the old host, and the dialog says so plainly.
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", SHOP).await;
    app.wait_contains("#add-hostname-message", "subdomain of example.org")
        .await;
    let warned = app
        .wait_contains(
            "#add-preflight-warnings",
            &format!("served today by {OLD_HOST}"),
        )
        .await;
    assert!(
        !warned.to_lowercase().contains("browsers may warn"),
        "{warned}"
    );
    assert!(
        !app.is_displayed("#add-companion").await,
        "no www offer for a subdomain"
    );
    shots(&app, "1-add-live-elsewhere").await;
    app.click("#add-submit").await;

    // Step 1 and step 2, each with its state; the record to copy first is step 1's.
    app.wait_attr("#add-step-delegation", "data-state", "todo")
        .await;
    app.wait_attr("#add-step-routing", "data-state", "waiting")
        .await;
    assert_eq!(app.text("#add-acme-name").await, "_acme-challenge.shop");
    let validation_value = app.text("#add-acme-value").await;
    assert!(
        validation_value.starts_with("shop.example.org.acme."),
        "{validation_value}"
    );
    assert_eq!(
        app.script("return document.activeElement.closest('.rec-field')?.querySelector('code')?.id ?? null;")
            .await,
        serde_json::json!("add-acme-value"),
        "the first value to copy has the focus"
    );
    let dialog = app.text("#add-domain-dialog").await;
    assert!(
        dialog.contains("Keep the site up while you switch")
            && !dialog.to_lowercase().contains("browsers may warn"),
        "{dialog}"
    );
    shots(&app, "2-two-steps").await;

    // Step 1 in Demo DNS, opened from the dialog: the delegation CNAME.
    app.click("#add-open-demo-dns").await;
    wait_value(&app, "#dns-zone", "example.org").await;
    app.type_into("#dns-new-name", "_acme-challenge.shop").await;
    app.choose_label("#dns-new-type", "CNAME").await;
    app.type_into("#dns-new-value", &validation_value).await;
    app.click("#dns-add").await;
    app.wait_contains(
        r#"#dns-records tr[data-name="_acme-challenge.shop"][data-type="CNAME"]"#,
        &validation_value,
    )
    .await;
    app.click("#demo-dns-close").await;

    // The window's own checks find it: the certificate is issued while the old host serves.
    app.find(&row(SHOP)).await;
    wait_attr_long(
        &app,
        &row(SHOP),
        "data-status",
        "cert_ready",
        Duration::from_secs(90),
    )
    .await;
    let ready = app.text(&row(SHOP)).await;
    assert!(
        ready.contains("Certificate ready")
            && ready
                .to_lowercase()
                .contains("switch your dns when you are ready"),
        "the row: {ready}"
    );
    app.click(&row(SHOP)).await;
    app.wait_attr("#detail-step-delegation", "data-state", "done")
        .await;
    app.wait_attr("#detail-step-routing", "data-state", "todo")
        .await;
    // At a glance, at the top of the details: step 1 done, step 2 to do.
    let glance = app.text("#detail-steps-line").await;
    assert!(
        glance.contains("Step 1 certificate Done") && glance.contains("Step 2 switch To do"),
        "{glance}"
    );
    let panel = app.text("#detail-panel").await;
    assert!(
        !panel.to_lowercase().contains("browsers may warn"),
        "nothing says browsers may warn once the certificate is ready: {panel}"
    );
    shots(&app, "3-certificate-ready").await;

    // Step 2: the A record of the old host replaced by the routing CNAME.
    let target = app.text("#detail-route-value").await;
    app.click("#detail-open-demo-dns").await;
    wait_value(&app, "#dns-zone", "example.org").await;
    let seed_a = r#"#dns-records tr[data-record-id="seed-org-shop-a"]"#;
    app.click(&format!("{seed_a} .dns-delete")).await;
    app.wait_gone(seed_a).await;
    app.type_into("#dns-new-name", "shop").await;
    app.choose_label("#dns-new-type", "CNAME").await;
    app.type_into("#dns-new-value", &target).await;
    app.click("#dns-add").await;
    app.wait_contains(
        r#"#dns-records tr[data-name="shop"][data-type="CNAME"]"#,
        &target,
    )
    .await;
    app.click("#demo-dns-close").await;

    // Live at the next check, with its certificate.
    wait_attr_long(
        &app,
        &row(SHOP),
        "data-status",
        "live",
        Duration::from_secs(90),
    )
    .await;
    let first = probe(
        demo.edge(),
        demo.info["ca_certificate_pem"].as_str().unwrap(),
        demo.now().await,
        SHOP,
    )
    .await;
    assert!(
        first.as_ref().is_ok_and(|body| body.contains("<h1>")),
        "the edge serves the site with a valid certificate once live: {first:?}"
    );
    let stop = Arc::new(AtomicBool::new(false));
    let prober = start_prober(&demo, stop.clone());
    // The record the certificate is renewed through stays in sight, to keep.
    app.wait_contains("#detail-acme-title", "Certificate record in place")
        .await;
    shots(&app, "4-live").await;

    // Move to Pro draft from the row's menu: the dialog says nothing stops being served.
    app.click(&format!(r#"[data-testid="row-menu-{SHOP}"]"#))
        .await;
    app.click("#menu-move").await;
    app.wait_displayed("#move-dialog").await;
    app.choose_label("#move-target", "Pro draft").await;
    let summary = app
        .wait_contains("#move-summary", "nothing stops being served")
        .await;
    assert!(summary.contains("Pro draft"), "{summary}");
    assert_eq!(
        app.try_attr("#move-submit", "class").await.as_deref(),
        Some("primary"),
        "a harmless step is not red"
    );
    shots(&app, "5-move-dialog").await;
    app.click("#move-submit").await;
    app.wait_contains("#toasts", "Moved shop.example.org to Pro draft")
        .await;
    app.wait_gone(&row(SHOP)).await;
    // The focus is back in the window, not lost on the page.
    let focus = app
        .script("return document.activeElement && document.activeElement !== document.body;")
        .await;
    assert_eq!(focus, serde_json::json!(true), "focus after the move");

    // The edge serves the draft's page under the name, and never stopped.
    let deadline = Deadline::after(WAIT);
    loop {
        let now = probe(
            demo.edge(),
            demo.info["ca_certificate_pem"].as_str().unwrap(),
            demo.now().await,
            SHOP,
        )
        .await;
        if now.as_ref().is_ok_and(|body| body.contains(DRAFT_PAGE)) {
            break;
        }
        if deadline.passed() {
            app.fail(format!("the edge does not serve Pro draft's page: {now:?}"))
                .await;
        }
        Deadline::next_look().await;
    }
    // And at a check later on the platform's clock, from the project it moved to.
    app.click("#back-to-projects").await;
    app.click(r#"[data-testid="project-pro-draft"]"#).await;
    app.wait_contains("#project-title", "Pro draft — settings")
        .await;
    app.find(&row(SHOP)).await;
    app.wait_attr(&row(SHOP), "data-status", "live").await;
    app.click(&row(SHOP)).await;
    app.wait_attr("#detail-panel", "data-hostname", SHOP).await;
    shots(&app, "6-moved").await;
    add_apex_with_www_and_a_wildcard(&app).await;
    stop.store(true, Ordering::Relaxed);
    let probes = prober.await.expect("the prober");
    let failed: Vec<_> = probes.iter().filter(|(_, r)| r.is_err()).collect();
    let draft = probes
        .iter()
        .filter(|(_, r)| r.as_ref().is_ok_and(|b| b.contains(DRAFT_PAGE)))
        .count();
    assert!(
        failed.is_empty() && probes.len() > 20 && draft > 0,
        "{} probes from live through the move, {draft} of them the draft's page; failed: {failed:?}",
        probes.len()
    );
    app.close().await;
}

/// In the project the name moved to: an apex added with its www name in one click (the www
/// redirecting to the apex), and a wildcard added like any name, shown with its two records;
/// each dialog gives the focus back to Add domain.
async fn add_apex_with_www_and_a_wildcard(app: &App) {
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", "example.net").await;
    app.wait_contains("#add-hostname-message", "apex domain")
        .await;
    app.wait_displayed("#add-companion").await;
    assert_eq!(
        app.text("#add-companion-label").await,
        "Also add www.example.net, redirecting to example.net"
    );
    assert!(
        app.find("#add-companion-check")
            .await
            .is_selected()
            .await
            .expect("the checkbox"),
        "checked by default"
    );
    // The old host serves the www name too (the demo's `www.example.net A 192.0.2.20`): the
    // www name gets its own look, said under the offer.
    app.wait_contains(
        "#add-companion-warnings",
        "www.example.net is served today by 192.0.2.20",
    )
    .await;
    shots(app, "7-apex-offers-www").await;
    app.click("#add-submit").await;
    app.wait_displayed("#add-second").await;
    let second = app.text("#add-second").await;
    assert!(
        second.contains("www.example.net") && second.contains("redirects to example.net"),
        "{second}"
    );
    // Both names keep the site up while they switch: each has its two steps, the www name's
    // certificate record its own.
    app.wait_displayed("#add-switch").await;
    app.wait_displayed("#add-second-switch").await;
    assert_eq!(
        app.text("#add-second-acme-name").await,
        "_acme-challenge.www"
    );
    assert_eq!(app.text("#add-second-record-name").await, "www");
    shots(app, "8-apex-and-www-records").await;
    app.script("document.getElementById('add-second').scrollIntoView(); return true;")
        .await;
    shots(app, "8b-www-two-steps").await;
    app.click("#add-done").await;
    let focus = app
        .script("return document.activeElement?.id ?? null;")
        .await;
    assert_eq!(
        focus,
        serde_json::json!("add-domain-button"),
        "focus after Done"
    );
    app.find(&row("example.net")).await;
    let www = app.text(&row("www.example.net")).await;
    assert!(
        www.contains("example.net") && www.contains('→'),
        "the www row redirects: {www}"
    );

    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", "*.shop.example.net").await;
    app.wait_contains(
        "#add-hostname-message",
        "covers every name one label under shop.example.net",
    )
    .await;
    assert!(
        !app.is_enabled("#add-role-primary").await,
        "a wildcard is never primary"
    );
    app.click("#add-submit").await;
    app.wait_contains("#add-switch-title", "Two records for a wildcard")
        .await;
    assert_eq!(app.text("#add-acme-name").await, "_acme-challenge.shop");
    assert_eq!(app.text("#add-record-name").await, "*.shop");
    let dialog = app.text("#add-domain-dialog").await;
    assert!(
        !dialog.to_lowercase().contains("browsers may warn"),
        "{dialog}"
    );
    shots(app, "9-wildcard-records").await;
    app.click("#add-done").await;
    app.find(&row("*.shop.example.net")).await;
}

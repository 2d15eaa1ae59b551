//! Diagnose for anyone: a fresh profile with no account diagnoses a name from the welcome
//! screen and from a `domain-desk://diagnose/…` link, against a DNS server the settings name
//! (a local service's, as `domain-desk doctor --resolver` would ask it); and Add domain's
//! pre-flight warns of a CAA record that refuses the platform's CA before the name is added,
//! and no longer once the record is gone.

use std::sync::Arc;

use domain_desk_service::ServiceSettings;

use super::harness::{self, App};
use super::{PRO_SITE, open_project, platform_target, row, start_demo};

/// A profile whose settings send Diagnose-without-an-account to `dns` only.
fn profile_asking(dns: &str) -> Arc<tempfile::TempDir> {
    let home = harness::new_home();
    let folder = home.path().join("data/dev.domaindesk.app");
    std::fs::create_dir_all(&folder).expect("the data folder");
    let settings = serde_json::json!({
        "settings": {
            "diagnose_resolvers": [dns],
            "diagnose_target": platform_target(),
        },
        "accounts": [],
    });
    std::fs::write(folder.join("settings.json"), settings.to_string()).expect("the settings");
    home
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_fresh_profile_diagnoses_a_name_without_an_account() {
    let service = domain_desk_test_support::start_with(ServiceSettings {
        clock_speed: 0.0,
        ..domain_desk_test_support::loopback_settings()
    })
    .await;
    let dns = service
        .info()
        .dns
        .clone()
        .expect("the service's DNS address");
    let app = App::launch_in("diagnose_without_account", profile_asking(&dns), &[]).await;
    app.wait_contains("#first-run-title", "Welcome to Domain Desk")
        .await;
    app.screenshot("62-welcome-diagnose").await;
    shots(&app, "62-welcome").await;

    app.type_into("#diagnose-hostname", "https://shop.example.com/cart")
        .await;
    app.click("#diagnose-submit").await;
    app.wait_contains("#diagnose-title", "Diagnose shop.example.com")
        .await;
    // The demo zone's A record blocks the CNAME: the doctor says so, as it would in the demo.
    let summary = app.wait_contains("#diagnose-summary", "").await;
    let body = app.text("#diagnose-body").await;
    assert!(
        body.contains("192.0.2.10"),
        "the report shows the record it found: {summary}\n{body}"
    );
    assert!(
        !body.contains("Not signed in"),
        "no account is needed: {body}"
    );
    app.screenshot("62-diagnose-without-account").await;
    shots(&app, "62-diagnose-without-account").await;
    super::resize(&app, 1200, 780).await;
    // Save diagnostics… from the panel, with no account: the capture support replays.
    let saved = home_file(&app, "shop-diagnostics.json");
    app.pick_in_file_dialog(
        "document.querySelector('#diagnose-save').click(); return true;",
        &saved,
    )
    .await;
    let notice = app.wait_contains("#toasts", "shop-diagnostics").await;
    // GTK's save dialog keeps the suggested name's extension when a name is typed over its
    // stem: the file is the one the notice names.
    let path = notice
        .split(" to ")
        .nth(1)
        .and_then(|rest| rest.split(" (the doctor").next())
        .unwrap_or_else(|| panic!("the notice names the file: {notice}"));
    assert!(
        path.starts_with(&*saved.parent().expect("the home").to_string_lossy()),
        "saved where the dialog was pointed: {notice}"
    );
    let capture = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("the diagnostics file {path}: {err}; {notice}"));
    assert!(
        capture.contains("domain-desk-doctor-capture") && capture.contains("shop.example.com"),
        "the file is the doctor's capture of the run"
    );
    app.click("#diagnose-close").await;

    // A support reply's link, opened with no account: that name's diagnosis.
    let status = std::process::Command::new(harness::app_binary())
        .arg("domain-desk://diagnose/www.example.com")
        .envs(harness::xdg_env(app.home()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("the second launch runs");
    assert!(
        status.success(),
        "the second launch hands the link over: {status}"
    );
    app.wait_contains("#diagnose-title", "Diagnose www.example.com")
        .await;
    let body = app.wait_contains("#diagnose-body", "www.example.com").await;
    assert!(!body.contains("Not signed in"), "{body}");
    app.wait_contains("#diagnose-summary", "").await;
    app.screenshot("62-link-without-account").await;
    app.close().await;
    drop(service);
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn add_domain_warns_of_a_forbidding_caa_before_the_name_is_added() {
    let app = App::launch("preflight").await;
    start_demo(&app).await;
    open_project(&app, PRO_SITE, "Pro site").await;
    app.click("#add-domain-button").await;
    // The demo seeds `locked.example.org CAA 0 issue "other-ca.example"`.
    app.type_into("#add-hostname", "www.locked.example.org")
        .await;
    let warning = app
        .wait_contains("#add-preflight-warnings", "locked.example.org")
        .await;
    assert!(
        warning.contains("Before you create the record"),
        "the warning says when it matters: {warning}"
    );
    app.screenshot("62-preflight-caa").await;
    shots(&app, "62-preflight").await;
    super::resize(&app, 1200, 780).await;
    // Nothing blocks the Add, and the warning stays on the new row and in its details.
    app.wait_enabled("#add-submit").await;
    app.click("#add-submit").await;
    app.click("#add-done").await;
    let locked = row("www.locked.example.org");
    let reason = app
        .wait_contains(&format!("{locked} .reason"), "Warning: ")
        .await;
    assert!(
        reason.contains("locked.example.org"),
        "the row keeps the pre-flight's warning: {reason}"
    );
    app.click(&locked).await;
    app.wait_contains("#detail-preflight-warnings", "forbids")
        .await;
    app.screenshot("62-preflight-row").await;

    // The CAA record is removed, as Demo DNS removes it; at the next look (a Re-verify) the
    // warning goes from the row and the details.
    app.script_async(
        "const done = arguments[arguments.length - 1];
         window.__TAURI__.core.invoke('demo_dns_delete', { zone: 'example.org', id: 'seed-org-locked-caa' })
           .then(() => done(true), (e) => done(String(e)));",
    )
    .await;
    app.click("#verify-button").await;
    app.wait_gone("#detail-preflight-warnings").await;
    app.wait_text(&format!("{locked} .reason"), "no warning", |text| {
        !text.contains("Warning: ")
    })
    .await;

    // And a new name under it is added with a clear pre-flight.
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", "api.locked.example.org")
        .await;
    app.wait_contains("#add-hostname-message", "subdomain of example.org")
        .await;
    app.wait_attr("#add-preflight", "data-state", "clear").await;
    assert!(
        !app.exists("#add-preflight-warnings").await,
        "the warning stayed after the CAA record was removed"
    );
    app.close().await;
}

/// A path in the test's home folder, where the save dialog is pointed.
fn home_file(app: &App, name: &str) -> std::path::PathBuf {
    app.home().join(name)
}

/// Sets the window's theme as the Appearance setting does, without saving it.
async fn theme(app: &App, theme: &str) {
    app.script(&format!(
        "document.documentElement.dataset.theme = '{theme}'; return true;"
    ))
    .await;
}

/// Screenshots `{name}-{width}x{height}-{light|dark}` of what is shown, at the largest and
/// the smallest size the window keeps its rules at; the window is left at 900×600, light.
async fn shots(app: &App, name: &str) {
    shots_of(app, name, None).await;
}

/// [`shots`], with `scroll_to` scrolled into view at each size, as a reader would.
async fn shots_of(app: &App, name: &str, scroll_to: Option<&str>) {
    for (width, height) in [(1400, 900), (900, 600)] {
        super::resize(app, width, height).await;
        if let Some(css) = scroll_to {
            app.script(&format!(
                "document.querySelector('{css}').scrollIntoView(); return true;"
            ))
            .await;
        }
        for shade in ["dark", "light"] {
            theme(app, shade).await;
            app.screenshot(&format!("{name}-{width}x{height}-{shade}"))
                .await;
        }
    }
}

/// One truth about a certificate the CA will refuse: once Diagnose has found the CAA record
/// that forbids the platform's CA, the row and the details say "Issuing — will fail" with the
/// fix, not "usually takes a couple of minutes"; and the Diagnose panel's picture of the path
/// and that row read at 1400×900 and 900×600, light and dark (screenshots `58-*`).
#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_certificate_diagnose_knows_will_be_refused_reads_will_fail_in_the_row() {
    const LOCKED: &str = "www.locked.example.org";
    let app = App::launch("will_fail").await;
    start_demo(&app).await;
    // Stopped, the platform's clock holds the certificate in issuing while the window is read.
    app.choose("#clock-speed", "0").await;
    app.wait_contains("#toasts", "Demo clock: Stopped.").await;
    open_project(&app, PRO_SITE, "Pro site").await;
    // The demo seeds www.locked.example.org's CNAME to the platform: the first check passes.
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", LOCKED).await;
    app.wait_attr("#add-preflight", "data-state", "warned")
        .await;
    app.wait_enabled("#add-submit").await;
    app.click("#add-submit").await;
    app.click("#add-done").await;
    let locked = row(LOCKED);
    app.click(&locked).await;
    app.click("#verify-button").await;
    app.wait_attr("#detail-status", "data-status", "issuing")
        .await;

    app.click("#detail-diagnose").await;
    app.wait_contains("#diagnose-findings", "forbids").await;
    app.wait_displayed("#diagnose-picture svg").await;
    // The picture, scrolled to as a reader would, below the findings.
    shots_of(&app, "58-picture", Some("#diagnose-picture")).await;
    app.click("#diagnose-close").await;

    let badge = app
        .wait_contains(&format!("{locked} .badge"), "will fail")
        .await;
    assert_eq!(badge, "Issuing — will fail");
    let reason = app.text(&format!("{locked} .reason")).await;
    assert!(
        reason.contains("locked.example.org") && !reason.contains("couple of minutes"),
        "the row says why, not that it is coming: {reason}"
    );
    let status = app.wait_contains("#detail-status", "will fail").await;
    let detail = app.text("#domain-reason").await;
    assert!(
        !detail.contains("couple of minutes") && !detail.contains("browsers may warn"),
        "the details say the same as the row ({status}): {detail}"
    );
    shots(&app, "58-will-fail").await;

    // Signed in, the header's "Diagnose a domain…" diagnoses any name.
    app.click("#diagnose-any-button").await;
    app.wait_contains("#diagnose-title", "Diagnose a domain")
        .await;
    app.type_into("#diagnose-ask-hostname", "shop.example.com")
        .await;
    app.click("#diagnose-ask-submit").await;
    app.wait_contains("#diagnose-title", "Diagnose shop.example.com")
        .await;
    app.wait_contains("#diagnose-summary", "").await;
    app.click("#diagnose-close").await;
    app.close().await;
}

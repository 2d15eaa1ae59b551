//! Updates against a feed served on loopback, through the window's `update_check` command on
//! the mock runtime with the real updater plugin: a correctly signed newer version is offered
//! once; a tampered signature, a package signed for another version, a downgrade and a feed
//! that does not answer are passed over quietly and the app goes on working.
//!
//! Each test makes its own minisign key pair and signs its packages as the release does
//! (`tauri signer sign --app-version`: the version in the signature's trusted comment).

use std::net::TcpListener;

use serde_json::{Value, json};

use feed::PACKAGE;

#[path = "support/feed.rs"]
mod feed;

use feed::{Feed, Keys, feed};

#[path = "support/mock_app.rs"]
mod mock_app;

use mock_app::MockApp;

/// The app on the mock runtime, its updater pointed at a loopback feed.
struct Harness(MockApp);

impl std::ops::Deref for Harness {
    type Target = MockApp;
    fn deref(&self) -> &MockApp {
        &self.0
    }
}

impl Harness {
    /// The app with the updater pointed at `endpoint` and trusting `pubkey`.
    fn new(endpoint: &str, pubkey: &str) -> Harness {
        let mut context = tauri::generate_context!();
        let updater = json!({
            "pubkey": pubkey,
            "endpoints": [endpoint],
            "requireSignedVersion": true,
            // The loopback feed is plain HTTP; the real one is HTTPS.
            "dangerousInsecureTransportProtocol": true,
        });
        context
            .config_mut()
            .plugins
            .0
            .insert("updater".into(), updater);
        Harness(MockApp::start(context))
    }

    fn check(&self) -> Value {
        self.invoke("update_check", json!({}))
            .unwrap_or_else(|err| panic!("update_check should never fail loudly: {err}"))
    }

    /// The app still answers its other commands.
    fn still_works(&self) {
        let info = self.invoke("app_info", json!({})).expect("app_info");
        assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    }
}

#[test]
fn a_correctly_signed_newer_version_is_offered_once_with_its_notes() {
    let keys = Keys::new();
    let feed = feed("0.2.0", &keys.sign(PACKAGE, "0.2.0"), PACKAGE);
    let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
    let notice = app.check();
    assert_eq!(notice["version"], "0.2.0", "{notice}");
    assert!(
        notice["notes"]
            .as_str()
            .unwrap()
            .contains("Faster Diagnose.")
    );
    // This build is not a package or an installer: the release page.
    assert_eq!(notice["how"]["kind"], "download");
    // Once: the next start says nothing of 0.2.0.
    assert_eq!(app.check(), Value::Null);
    app.still_works();
}

#[test]
fn a_tampered_signature_is_refused_quietly() {
    let keys = Keys::new();
    let mut tampered = PACKAGE.to_vec();
    tampered[0] ^= 1;
    // The signature is for the genuine package; the feed serves a changed one.
    let signature = keys.sign(PACKAGE, "0.2.0");
    let feed = feed("0.2.0", &signature, &tampered);
    let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
    assert_eq!(app.check(), Value::Null);
    app.still_works();
}

#[test]
fn a_package_signed_by_another_key_is_refused_quietly() {
    let keys = Keys::new();
    let stranger = Keys::new();
    let feed = feed("0.2.0", &stranger.sign(PACKAGE, "0.2.0"), PACKAGE);
    let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
    assert_eq!(app.check(), Value::Null);
    app.still_works();
}

#[test]
fn an_older_package_announced_as_newer_is_refused() {
    // A genuine, validly signed 0.0.9 package, announced as 0.2.0: its signature says 0.0.9.
    let keys = Keys::new();
    let feed = feed("0.2.0", &keys.sign(PACKAGE, "0.0.9"), PACKAGE);
    let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
    assert_eq!(app.check(), Value::Null);
    app.still_works();
}

#[test]
fn a_downgrade_or_the_same_version_is_not_offered() {
    let keys = Keys::new();
    for version in ["0.0.9", env!("CARGO_PKG_VERSION")] {
        let feed = feed(version, &keys.sign(PACKAGE, version), PACKAGE);
        let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
        assert_eq!(app.check(), Value::Null, "{version}");
        app.still_works();
    }
}

#[test]
fn a_feed_that_does_not_answer_is_passed_over() {
    let keys = Keys::new();
    // Nothing listens on this port.
    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let app = Harness::new(
        &format!("http://127.0.0.1:{port}/latest.json"),
        &keys.config_pubkey(),
    );
    assert_eq!(app.check(), Value::Null);
    app.still_works();
    // A feed that is not JSON.
    let garbage = Feed::start(|_| vec![("/latest.json", b"<html>maintenance</html>".to_vec())]);
    let app = Harness::new(&garbage.url("/latest.json"), &keys.config_pubkey());
    assert_eq!(app.check(), Value::Null);
    app.still_works();
}

#[test]
fn the_setting_turns_the_check_off() {
    let keys = Keys::new();
    let feed = feed("0.2.0", &keys.sign(PACKAGE, "0.2.0"), PACKAGE);
    let app = Harness::new(&feed.url("/latest.json"), &keys.config_pubkey());
    let mut settings = app.invoke("settings_get", json!({})).expect("settings");
    settings["check_updates"] = false.into();
    app.invoke("settings_set", json!({ "settings": settings }))
        .expect("settings_set");
    assert_eq!(app.check(), Value::Null);
}

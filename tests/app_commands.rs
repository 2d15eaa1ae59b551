//! The window's commands through Tauri's IPC on the mock runtime, with the real capabilities
//! (`tauri.conf.json` and `capabilities/`), against the local service embedded in-process —
//! exactly what the window does, without a display.
//!
//! It is longer than the house's 500 lines (about 1,090, all tests): 25 tests of the window's
//! commands, each through the one `Harness` (about 80 lines, over `support/mock_app.rs`, which
//! the updater's tests share), plus a keyring kept for the whole process (`memory_keyring`).
//! What is not a window command is apart already: the command line (`cli_*.rs`), the real
//! window (`e2e.rs`, `e2e/`) and the updater (`updater.rs`).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use tauri::Listener;

#[path = "support/mock_app.rs"]
mod mock_app;

use mock_app::MockApp;

/// The app on the mock runtime, with the calls these tests make of it.
struct Harness(MockApp);

impl std::ops::Deref for Harness {
    type Target = MockApp;
    fn deref(&self) -> &MockApp {
        &self.0
    }
}

impl Harness {
    fn new() -> Self {
        Self(MockApp::start(tauri::generate_context!()))
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.invoke(cmd, args)
            .unwrap_or_else(|err| panic!("{cmd} failed: {err}"))
    }

    fn err(&self, cmd: &str, args: Value) -> Value {
        match self.invoke(cmd, args) {
            Ok(value) => panic!("{cmd} should have failed, answered {value}"),
            Err(err) => err,
        }
    }

    /// Starts the demo and returns its base URL and its Free plan's key.
    fn demo_free_key(&self) -> (String, String) {
        let demo = self.ok("demo_start", json!({}));
        let base_url = demo["base_url"].as_str().unwrap().to_owned();
        let info: Value = tokio::runtime::Runtime::new()
            .expect("a runtime for one request")
            .block_on(async {
                domain_desk_test_support::http_client()
                    .get(format!("{base_url}/_local/info"))
                    .send()
                    .await?
                    .json()
                    .await
            })
            .expect("the demo's /_local/info");
        let free_key = info["demo_keys"]["free"].as_str().unwrap().to_owned();
        (base_url, free_key)
    }

    /// An import of `file`, as `domains_import` makes once the system's dialog has given it
    /// (the window never names a file); `Err` holds the serialised error.
    fn import_file(
        &self,
        project_id: &str,
        file: &Path,
        skip_invalid: bool,
    ) -> Result<Value, Value> {
        use tauri::Manager as _;
        let state = self.app.state::<domain_desk::state::AppState>();
        let running = self
            .app
            .state::<domain_desk::commands::bulk::RunningImport>();
        tauri::async_runtime::block_on(domain_desk::commands::bulk::import_file(
            &state,
            &running,
            project_id,
            file,
            skip_invalid,
            |_| {},
        ))
        .map(|result| serde_json::to_value(result).expect("an import's result is JSON"))
        .map_err(|err| serde_json::to_value(err).expect("errors are JSON"))
    }

    fn project_with_deploy(&self, status: Option<&str>) -> Value {
        let projects = self.ok("projects_list", json!({}));
        projects
            .as_array()
            .expect("a list of projects")
            .iter()
            .find(|p| p["last_deploy"]["status"].as_str() == status)
            .cloned()
            .unwrap_or_else(|| panic!("a seeded project with last deploy {status:?}: {projects}"))
    }
}

#[test]
fn before_signing_in_there_is_no_session_and_commands_say_so() {
    let h = Harness::new();
    assert_eq!(h.ok("session_get", json!({})), Value::Null);
    let err = h.err("projects_list", json!({}));
    assert_eq!(err["kind"], "not_signed_in");
    assert_eq!(err["message"], "Not signed in.");
    assert_eq!(h.err("demo_dns_zones", json!({}))["kind"], "not_signed_in");
}

#[test]
fn the_about_flow_still_reports_the_version() {
    let h = Harness::new();
    let info = h.ok("app_info", json!({}));
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn the_window_cannot_call_what_its_capability_does_not_grant() {
    let h = Harness::new();
    // The store plugin is registered but not granted to the window: settings go through the
    // app's own commands, which never accept a key.
    let err = h.err("plugin:store|load", json!({"path": "settings.json"}));
    assert!(err.to_string().contains("not allowed"), "{err}");
}

/// The page listens for the app's events and stops listening; it never emits one, so the
/// window is not granted to: a script in the page cannot pose as the app to its listeners.
#[test]
fn the_window_may_listen_to_events_but_not_emit_them() {
    let h = Harness::new();
    let id = h.ok(
        "plugin:event|listen",
        json!({"event": "queue://changed", "target": {"kind": "Any"}, "handler": 3}),
    );
    h.ok(
        "plugin:event|unlisten",
        json!({"event": "queue://changed", "eventId": id}),
    );
    for (cmd, args) in [
        (
            "plugin:event|emit",
            json!({"event": "queue://changed", "payload": {}}),
        ),
        (
            "plugin:event|emit_to",
            json!({"target": {"kind": "Any"}, "event": "queue://changed", "payload": {}}),
        ),
    ] {
        let err = h.err(cmd, args);
        assert!(err.to_string().contains("not allowed"), "{cmd}: {err}");
    }
}

#[test]
fn hostnames_are_checked_with_the_public_suffix_list() {
    let h = Harness::new();
    let sub = h.ok("hostname_check", json!({"hostname": "Shop.Example.co.uk."}));
    assert_eq!(
        sub,
        json!({"ascii": "shop.example.co.uk", "unicode": "shop.example.co.uk", "apex": false,
               "wildcard": false, "relative_name": "shop", "registrable_domain": "example.co.uk"})
    );
    let apex = h.ok("hostname_check", json!({"hostname": "bücher.de"}));
    assert_eq!(apex["ascii"], "xn--bcher-kva.de");
    assert_eq!(apex["apex"], true);
    assert_eq!(apex["relative_name"], "@");
    let err = h.err("hostname_check", json!({"hostname": "co.uk"}));
    assert_eq!(err["kind"], "invalid_input");
    assert!(
        err["message"].as_str().unwrap().contains("public suffix"),
        "{err}"
    );
    // A wildcard one label below the registrable domain is added like any name; one for the
    // whole registrable domain is not (docs/api-v1-additions.md).
    let wildcard = h.ok("hostname_check", json!({"hostname": "*.Shop.example.com"}));
    assert_eq!(
        wildcard,
        json!({"ascii": "*.shop.example.com", "unicode": "*.shop.example.com", "apex": false,
               "wildcard": true, "relative_name": "*.shop", "registrable_domain": "example.com"})
    );
    let whole = h.err("hostname_check", json!({"hostname": "*.example.com"}));
    assert_eq!(whole["kind"], "invalid_input");
    assert!(
        whole["message"]
            .as_str()
            .unwrap()
            .contains("*.shop.example.com"),
        "{whole}"
    );
}

#[test]
fn settings_persist_and_never_take_a_key() {
    let h = Harness::new();
    let saved = h.ok(
        "settings_set",
        json!({"settings": {"theme": "dark", "polling": false, "last_project": "prj_1", "api_key": "dd_pro_secret"}}),
    );
    assert_eq!(saved["theme"], "dark");
    assert_eq!(saved["polling"], false);
    let loaded = h.ok("settings_get", json!({}));
    assert_eq!(loaded, saved);
    let file = h.data_dir().join("settings.json");
    let text = std::fs::read_to_string(&file).expect("the settings file");
    assert!(!text.contains("dd_pro_secret"), "{text}");
    assert!(
        text.contains("\"theme\": \"dark\"") || text.contains("\"theme\":\"dark\""),
        "{text}"
    );
}

#[test]
fn the_offline_demo_signs_in_with_its_pro_key_and_manages_domains() {
    let h = Harness::new();
    let (events, received) = mpsc::channel::<String>();
    h.app.listen_any("queue://changed", move |event| {
        let _ = events.send(event.payload().to_owned());
    });

    let session = h.ok("demo_start", json!({}));
    assert_eq!(session["mode"], "demo");
    assert_eq!(session["account"]["plan"], "pro");
    assert_eq!(session["account_id"], "offline-demo:pro");
    assert!(
        session["platform_domain"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
    let session_text = session.to_string();
    assert!(
        !session_text.contains("dd_pro_"),
        "the session must not carry the key: {session_text}"
    );
    // Signing in again on the next start goes to the same account.
    assert_eq!(
        h.ok("session_get", json!({}))["account_id"],
        "offline-demo:pro"
    );

    // Every demo plan can be switched to.
    let accounts = h.ok("accounts_list", json!({}));
    let ids: Vec<&str> = accounts
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    for plan in ["free", "pro", "business", "enterprise"] {
        assert!(
            ids.contains(&format!("offline-demo:{plan}").as_str()),
            "{ids:?}"
        );
    }

    let project = h.project_with_deploy(Some("succeeded"));
    let project_id = project["id"].as_str().unwrap().to_owned();
    assert_eq!(
        h.ok("project_get", json!({"projectId": project_id}))["id"],
        project["id"]
    );

    let added = h.ok(
        "domain_add",
        json!({"projectId": project_id, "hostname": "Shop.Example.com", "redirectTo": null}),
    );
    assert_eq!(added["hostname"], "shop.example.com");
    assert_eq!(added["status"], "pending_verification");
    assert_eq!(added["role"], "primary");
    assert_eq!(added["dns_record"]["type"], "CNAME");
    assert_eq!(added["dns_record"]["name"], "shop");
    assert_eq!(added["dns_record"]["ttl"], 3600);

    let apex = h.ok(
        "domain_add",
        json!({"projectId": project_id, "hostname": "example.com"}),
    );
    assert_eq!(apex["role"], "alias");
    assert_eq!(apex["dns_record"]["type"], "ALIAS");
    assert_eq!(apex["dns_record"]["name"], "@");

    // Make the apex primary, then redirect the old primary to it.
    let config = h.ok(
        "domain_make_primary",
        json!({"projectId": project_id, "hostname": "example.com"}),
    );
    assert_eq!(config["primary"], "example.com");
    let config = h.ok(
        "domain_redirect",
        json!({"projectId": project_id, "hostname": "shop.example.com", "to": "example.com"}),
    );
    assert_eq!(
        config["redirects"],
        json!([{"from": "shop.example.com", "to": "example.com", "status": 301}])
    );
    let shop = h.ok(
        "domain_get",
        json!({"projectId": project_id, "hostname": "shop.example.com", "background": true}),
    );
    assert_eq!(shop["role"], "redirect");
    assert_eq!(
        shop["redirect"],
        json!({"to": "example.com", "status": 301})
    );
    // The primary cannot redirect: the window is told what to do instead.
    let err = h.err(
        "domain_redirect",
        json!({"projectId": project_id, "hostname": "example.com", "to": "shop.example.com"}),
    );
    assert_eq!(err["kind"], "invalid_input");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("Make another domain primary first")
    );

    // Adding the same name twice is the platform's refusal, by its code.
    let err = h.err(
        "domain_add",
        json!({"projectId": project_id, "hostname": "shop.example.com"}),
    );
    assert_eq!(err["kind"], "domain_already_attached", "{err}");

    let err = h.err(
        "domain_add",
        json!({"projectId": project_id, "hostname": "*.example.com"}),
    );
    assert_eq!(err["kind"], "invalid_hostname", "{err}");

    // Move: the platform's refusal reaches the window by its code (the draft has no deploy
    // to serve the name), and the domain stays where it was.
    let draft = h
        .ok("projects_list", json!({}))
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Pro draft")
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .expect("the demo's Pro draft");
    let err = h.err(
        "domain_move",
        json!({"projectId": project_id, "hostname": "shop.example.com", "toProjectId": draft}),
    );
    assert_eq!(err["kind"], "deploy_required", "{err}");
    assert_eq!(
        h.ok(
            "domain_get",
            json!({"projectId": project_id, "hostname": "shop.example.com", "background": false}),
        )["project_id"],
        project_id.as_str()
    );

    h.ok(
        "domain_remove",
        json!({"projectId": project_id, "hostname": "shop.example.com"}),
    );
    let domains = h.ok(
        "domains_list",
        json!({"projectId": project_id, "background": false}),
    );
    let names: Vec<&str> = domains
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["hostname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["example.com"]);
    assert_eq!(
        h.ok("domain_config_get", json!({"projectId": project_id}))["redirects"],
        json!([])
    );

    // The meter knows the budget after these requests, and the window was told.
    let queue = h.ok("rate_limit_state", json!({}));
    assert_eq!(queue["limit"], 300, "{queue}");
    assert!(queue["remaining"].as_u64().unwrap() < 300, "{queue}");
    let event = received
        .recv_timeout(Duration::from_secs(5))
        .expect("a queue://changed event");
    let event: Value = serde_json::from_str(&event).unwrap();
    assert!(event.get("queued").is_some(), "{event}");
}

#[test]
fn the_free_plan_cannot_add_domains_and_a_project_without_deploy_says_so() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let never_deployed = h.project_with_deploy(None);
    let err = h.err(
        "domain_add",
        json!({"projectId": never_deployed["id"], "hostname": "new.example.org"}),
    );
    assert_eq!(err["kind"], "deploy_required", "{err}");

    let free = h.ok("account_switch", json!({"id": "offline-demo:free"}));
    assert_eq!(free["account"]["plan"], "free");
    let project = h.project_with_deploy(Some("succeeded"));
    let err = h.err(
        "domain_add",
        json!({"projectId": project["id"], "hostname": "free.example.org"}),
    );
    assert_eq!(err["kind"], "plan_upgrade_required", "{err}");
    assert!(!err["message"].as_str().unwrap().is_empty());
}

#[test]
fn the_demo_clock_can_be_sped_up() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let asked = chrono::Utc::now().timestamp_millis();
    let before = h.ok("clock_get", json!({}));
    let answered = chrono::Utc::now().timestamp_millis();
    // when the reading was taken, on this computer's clock, for the window to anchor it
    let read_at = before["read_at_ms"].as_i64().expect("read_at_ms");
    assert!((asked..=answered).contains(&read_at), "{before}");
    let clock = h.ok("clock_set_speed", json!({"speed": 60.0}));
    assert_eq!(clock["speed"], 60.0);
    assert!(clock["now"].as_str().unwrap() >= before["now"].as_str().unwrap());
    assert_eq!(h.ok("clock_get", json!({}))["speed"], 60.0);
    // Still signed in to the same account, with a queue that follows the clock.
    assert_eq!(h.ok("session_get", json!({}))["account"]["plan"], "pro");
    let err = h.err("clock_set_speed", json!({"speed": -1.0}));
    assert_eq!(err["kind"], "invalid_input");
}

/// The meter's budget follows the demo's clock: moved past the minute, the minute has
/// refilled on the platform and in the meter; sped up, the refill comes as much sooner.
#[test]
fn the_budget_refills_when_the_demo_clock_passes_its_minute() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    h.ok("projects_list", json!({}));
    h.ok("projects_list", json!({}));
    let used = h.ok("rate_limit_state", json!({}));
    assert_eq!(used["window"], "minute", "{used}");
    assert!(used["remaining"].as_u64().unwrap() < 300, "{used}");

    h.ok("clock_advance", json!({"seconds": 120.0}));
    let moved = h.ok("rate_limit_state", json!({}));
    // Full again, less whatever the app itself sent since (its watches run in the background).
    assert!(
        moved["remaining"].as_u64().unwrap() > used["remaining"].as_u64().unwrap(),
        "{used} then {moved}"
    );

    h.ok("projects_list", json!({}));
    h.ok("clock_set_speed", json!({"speed": 600.0}));
    let fast = h.ok("rate_limit_state", json!({}));
    let now = chrono::Utc::now().timestamp();
    // A platform minute is a tenth of a second at 600×: the refill is due at once, and the
    // meter knows when.
    let reset = fast["reset"]
        .as_i64()
        .unwrap_or_else(|| panic!("a reset: {fast}"));
    assert!(
        (now..=now + 1).contains(&reset),
        "reset {reset}, now {now}: {fast}"
    );
}

/// Changed from outside the window (the command line, the control plane), the demo's clock
/// is followed at the window's next reading of it.
#[test]
fn the_budget_follows_a_clock_changed_from_outside_at_the_next_reading() {
    let h = Harness::new();
    let demo = h.ok("demo_start", json!({}));
    let base_url = demo["base_url"].as_str().unwrap().to_owned();
    h.ok("projects_list", json!({}));
    let used = h.ok("rate_limit_state", json!({}));
    assert!(used["remaining"].as_u64().unwrap() < 300, "{used}");
    tokio::runtime::Runtime::new()
        .expect("a runtime for one request")
        .block_on(async {
            domain_desk_test_support::http_client()
                .post(format!("{base_url}/_local/clock/advance"))
                .json(&json!({"seconds": 120.0}))
                .send()
                .await?
                .error_for_status()
        })
        .expect("the clock moved from outside");
    h.ok("clock_get", json!({}));
    let after = h.ok("rate_limit_state", json!({}));
    assert!(
        after["remaining"].as_u64().unwrap() > used["remaining"].as_u64().unwrap(),
        "{used} then {after}"
    );
}

#[test]
fn open_in_browser_refuses_demo_names_with_a_reason() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let err = h.err("open_in_browser", json!({"hostname": "shop.example.com"}));
    assert_eq!(err["kind"], "invalid_input");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("only inside the offline demo")
    );
}

/// The seeded mistake at shop.example.com (an A record) fails verification with the record
/// named; fixing it in Demo DNS and letting the demo's time pass makes the domain live; the
/// doctor reports on it.
#[test]
fn demo_dns_fixes_a_conflicting_record_and_the_domain_goes_live() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let project = h.project_with_deploy(Some("succeeded"));
    let pid = project["id"].as_str().unwrap().to_owned();
    let added = h.ok(
        "domain_add",
        json!({"projectId": pid, "hostname": "shop.example.com"}),
    );
    let target = added["dns_record"]["value"].as_str().unwrap().to_owned();

    let failed = h.ok(
        "domain_verify",
        json!({"projectId": pid, "hostname": "shop.example.com"}),
    );
    assert_eq!(failed["status"], "pending_verification");
    assert_eq!(
        failed["verification"]["error"]["code"], "conflicting_record",
        "{failed}"
    );
    assert_eq!(
        failed["verification"]["error"]["found"][0],
        json!({"type": "A", "value": "192.0.2.10"})
    );

    let zones = h.ok("demo_dns_zones", json!({}));
    assert!(
        zones.as_array().unwrap().iter().any(|z| z == "example.com"),
        "{zones}"
    );
    let records = h.ok("demo_dns_records", json!({"zone": "example.com"}));
    let a = records["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "shop" && r["type"] == "A")
        .cloned()
        .expect("the seeded A record at shop");

    // A CNAME beside the A record is refused, as real providers do.
    let err = h.err(
        "demo_dns_add",
        json!({"zone": "example.com", "record": {"name": "shop", "type": "CNAME", "value": target}}),
    );
    assert_eq!(err["kind"], "record_conflict", "{err}");

    h.ok(
        "demo_dns_delete",
        json!({"zone": "example.com", "id": a["id"]}),
    );
    let cname = h.ok(
        "demo_dns_add",
        json!({"zone": "example.com", "record": {"name": "shop", "type": "CNAME", "value": target, "ttl": 3600}}),
    );
    assert_eq!(cname["type"], "CNAME");

    // Past the propagation delay the platform sees the CNAME.
    h.ok("clock_advance", json!({"seconds": 600.0}));
    let verified = h.ok(
        "domain_verify",
        json!({"projectId": pid, "hostname": "shop.example.com"}),
    );
    assert_eq!(verified["status"], "verified", "{verified}");
    assert_eq!(verified["certificate"]["status"], "issuing");

    // The certificate arrives after a few minutes of demo time.
    h.ok("clock_advance", json!({"seconds": 600.0}));
    let mut live = Value::Null;
    for _ in 0..50 {
        live = h.ok(
            "domain_get",
            json!({"projectId": pid, "hostname": "shop.example.com", "background": true}),
        );
        if live["status"] == "live" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(live["status"], "live", "{live}");
    assert_eq!(live["certificate"]["status"], "issued");
    assert!(live["certificate"]["expires_at"].is_string());

    let diagnosis = h.ok(
        "diagnose",
        json!({"hostname": "shop.example.com", "target": null}),
    );
    let host = &diagnosis["report"]["hosts"][0];
    assert_eq!(host["hostname"], "shop.example.com");
    assert_eq!(
        diagnosis["report"]["offline"], true,
        "the demo asks only its own DNS server"
    );
    let codes: Vec<&str> = host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"record_correct"), "{codes:?}");
    assert!(
        diagnosis["markdown"]
            .as_str()
            .unwrap()
            .contains("shop.example.com"),
        "{diagnosis}"
    );
}

/// The window's watch re-verifies several domains in one call: each answer comes back in the
/// order asked, and the first check that fails ends the call with its error, the answers
/// before it kept and the domains after it not checked.
#[test]
fn reverify_answers_for_each_domain_and_stops_at_the_first_failure() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let project = h.project_with_deploy(Some("succeeded"));
    let pid = project["id"].as_str().unwrap().to_owned();
    for hostname in ["shop.example.com", "blog.example.com", "docs.example.com"] {
        h.ok(
            "domain_add",
            json!({"projectId": pid, "hostname": hostname}),
        );
    }

    let all = h.ok(
        "domains_reverify",
        json!({"projectId": pid, "hostnames": ["shop.example.com", "blog.example.com"]}),
    );
    assert_eq!(all["stopped"], Value::Null, "{all}");
    let answered: Vec<&str> = all["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["hostname"].as_str().unwrap())
        .collect();
    assert_eq!(answered, ["shop.example.com", "blog.example.com"]);
    // The seeded A record at shop is what its check found.
    assert_eq!(
        all["domains"][0]["verification"]["error"]["code"], "conflicting_record",
        "{all}"
    );
    assert!(
        all["domains"][0]["verification"]["checked_at"].is_string(),
        "{all}"
    );

    let stopped = h.ok(
        "domains_reverify",
        json!({"projectId": pid, "hostnames": ["blog.example.com", "gone.example.com", "docs.example.com"]}),
    );
    assert_eq!(stopped["domains"].as_array().unwrap().len(), 1, "{stopped}");
    assert_eq!(stopped["domains"][0]["hostname"], "blog.example.com");
    assert_eq!(stopped["stopped"]["kind"], "not_found", "{stopped}");
    // docs was never checked: it still reads as never verified.
    let docs = h.ok(
        "domain_get",
        json!({"projectId": pid, "hostname": "docs.example.com"}),
    );
    assert_eq!(docs["verification"]["checked_at"], Value::Null, "{docs}");
}

#[test]
fn the_doctor_names_the_blocking_a_record_and_its_fix() {
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let diagnosis = h.ok("diagnose", json!({"hostname": "shop.example.com"}));
    let host = &diagnosis["report"]["hosts"][0];
    // The old host's address is all the name reaches: it is served there today, a warning
    // whose fix (the A record out, the CNAME in) is for the switch.
    let conflict = host["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "live_elsewhere")
        .unwrap_or_else(|| panic!("a live_elsewhere finding: {host}"));
    assert_eq!(conflict["severity"], "warning");
    let changes = conflict["fix"]["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["action"] == "remove" && c["type"] == "A" && c["value"] == "192.0.2.10"),
        "{conflict}"
    );
    // www.example.com has the right CNAME, but no demo project has it attached.
    let diagnosis = h.ok("diagnose", json!({"hostname": "www.example.com"}));
    let host = &diagnosis["report"]["hosts"][0];
    assert!(
        host["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "dangling_cname" && f["severity"] == "warning"),
        "{host}"
    );
    assert_eq!(
        host["provider"]["provider"]["id"], "domain_desk_local",
        "{host}"
    );
}

/// A settings file this version cannot read is kept beside (`settings.json.bad-<time>`), the
/// window starts with defaults and is told so; the next save does not touch the kept file.
#[test]
fn an_unreadable_settings_file_is_kept_and_the_window_is_told() {
    let h = Harness::new();
    let data = h.data_dir();
    std::fs::create_dir_all(&data).unwrap();
    let broken = r#"{"settings": {"theme": "dark", "last_account": "acc_1@api.example.com"}, "accounts": [{"id": "acc_1@api.ex"#;
    std::fs::write(data.join("settings.json"), broken).unwrap();

    let loaded = h.ok("settings_get", json!({}));
    assert_eq!(loaded["theme"], "system", "{loaded}");
    let kept_at = loaded["notice"]["kept_at"]
        .as_str()
        .expect("a notice")
        .to_owned();
    assert!(kept_at.contains("settings.json.bad-"), "{kept_at}");
    assert!(
        loaded["notice"]["message"]
            .as_str()
            .unwrap()
            .contains(&kept_at),
        "{loaded}"
    );
    assert_eq!(std::fs::read_to_string(&kept_at).unwrap(), broken);
    assert_eq!(h.ok("accounts_list", json!({})), json!([]));

    h.ok(
        "settings_set",
        json!({"settings": {"theme": "light", "polling": true}}),
    );
    assert_eq!(std::fs::read_to_string(&kept_at).unwrap(), broken);
    let text = std::fs::read_to_string(data.join("settings.json")).unwrap();
    assert!(text.contains("light"), "{text}");
}

/// Settings and accounts written by a newer version keep the fields this one does not know
/// when this one saves.
#[test]
fn a_newer_versions_fields_survive_an_older_app() {
    let h = Harness::new();
    let data = h.data_dir();
    std::fs::create_dir_all(&data).unwrap();
    let newer = json!({
        "settings": {"theme": "dark", "polling": false, "compact_rows": true},
        "accounts": [{"id": "acc_1@api.example.com", "label": "Shop", "mode": "connected",
                      "base_url": "https://api.example.com", "team": "tm_9"}],
        "window_state": {"width": 1200}
    });
    std::fs::write(data.join("settings.json"), newer.to_string()).unwrap();

    let loaded = h.ok("settings_get", json!({}));
    assert!(loaded.get("notice").is_none(), "{loaded}");
    assert_eq!(loaded["theme"], "dark");
    h.ok(
        "settings_set",
        json!({"settings": {"theme": "light", "polling": true}}),
    );

    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(written["settings"]["theme"], "light");
    assert_eq!(written["settings"]["compact_rows"], true, "{written}");
    assert_eq!(written["accounts"][0]["team"], "tm_9", "{written}");
    assert_eq!(written["window_state"]["width"], 1200, "{written}");
}

/// Connecting with a base URL and a key (here the demo service's Free key, over loopback):
/// the session is the key's account, the account is kept for switching, and the key is in
/// the keyring (the keyring crate's in-memory store in this test) and nowhere in the files.
#[test]
fn connect_keeps_the_key_out_of_the_settings() {
    memory_keyring::install();
    let h = Harness::new();
    let (base_url, free_key) = h.demo_free_key();

    let err = h.err(
        "connect",
        json!({"baseUrl": "api.example.com", "apiKey": free_key}),
    );
    assert_eq!(err["kind"], "invalid_input");
    assert!(!err.to_string().contains(&free_key), "{err}");
    let err = h.err(
        "connect",
        json!({"baseUrl": base_url, "apiKey": "dd_free_wrong"}),
    );
    assert_eq!(err["kind"], "unauthorized", "{err}");
    assert!(!err.to_string().contains("dd_free_wrong"), "{err}");

    let session = h.ok(
        "connect",
        json!({"baseUrl": format!("{base_url}/"), "apiKey": free_key}),
    );
    assert_eq!(session["mode"], "connected");
    assert_eq!(session["account"]["plan"], "free");
    assert_eq!(session["base_url"], base_url);
    let id = session["account_id"].as_str().unwrap().to_owned();
    let accounts = h.ok("accounts_list", json!({}));
    assert!(
        accounts
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == id.as_str() && a["mode"] == "connected"),
        "{accounts}"
    );
    let settings = h.ok("settings_get", json!({}));
    assert_eq!(settings["base_url"], base_url);
    let text = std::fs::read_to_string(h.data_dir().join("settings.json")).unwrap();
    assert!(
        !text.contains(&free_key),
        "the key leaked into the settings: {text}"
    );

    h.ok("account_forget", json!({"id": id}));
    assert!(
        !h.ok("accounts_list", json!({})).to_string().contains(&id),
        "a forgotten account is gone"
    );
    assert_eq!(h.err("projects_list", json!({}))["kind"], "not_signed_in");
}

/// A keyring that keeps what is stored for the whole test process (the keyring crate's mock
/// forgets a key as soon as its entry is dropped), so that a key `connect` stored can be read
/// back by `account_switch`.
mod memory_keyring {
    use std::any::Any;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use keyring::credential::{Credential, CredentialApi, CredentialBuilderApi};

    static KEYS: Mutex<BTreeMap<(String, String), Vec<u8>>> = Mutex::new(BTreeMap::new());

    #[derive(Debug)]
    struct Builder;

    #[derive(Debug)]
    struct Entry(String, String);

    impl Entry {
        fn id(&self) -> (String, String) {
            (self.0.clone(), self.1.clone())
        }
    }

    impl CredentialApi for Entry {
        fn set_secret(&self, secret: &[u8]) -> keyring::Result<()> {
            KEYS.lock().unwrap().insert(self.id(), secret.to_vec());
            Ok(())
        }
        fn get_secret(&self) -> keyring::Result<Vec<u8>> {
            KEYS.lock()
                .unwrap()
                .get(&self.id())
                .cloned()
                .ok_or(keyring::Error::NoEntry)
        }
        fn delete_credential(&self) -> keyring::Result<()> {
            KEYS.lock()
                .unwrap()
                .remove(&self.id())
                .map(drop)
                .ok_or(keyring::Error::NoEntry)
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    impl CredentialBuilderApi for Builder {
        fn build(
            &self,
            _target: Option<&str>,
            service: &str,
            user: &str,
        ) -> keyring::Result<Box<Credential>> {
            Ok(Box::new(Entry(service.into(), user.into())))
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    pub fn install() {
        keyring::set_default_credential_builder(Box::new(Builder));
    }
}

/// A kept account whose entry in the settings file now names another address (edited or
/// damaged): switching to it refuses before the key leaves the keyring, and nothing reaches
/// the other address. Switching while the entry is intact still works.
#[test]
fn a_kept_accounts_key_is_not_sent_where_its_entry_was_moved() {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    use tauri_plugin_store::StoreExt;

    memory_keyring::install();
    let h = Harness::new();
    let (base_url, free_key) = h.demo_free_key();
    let session = h.ok("connect", json!({"baseUrl": base_url, "apiKey": free_key}));
    let id = session["account_id"].as_str().unwrap().to_owned();
    h.ok("demo_start", json!({}));
    let back = h.ok("account_switch", json!({"id": id}));
    assert_eq!(back["account_id"], id.as_str(), "{back}");

    // Another program on this computer, recording whatever is sent to it.
    let rogue = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let rogue_url = format!("http://{}", rogue.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = received.clone();
    std::thread::spawn(move || {
        for stream in rogue.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut buf = vec![0u8; 8192];
            let n = stream.read(&mut buf).unwrap_or(0);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
    });

    let store = h
        .app
        .store(h.data_dir().join("settings.json"))
        .expect("the app's settings store");
    let mut accounts = store.get("accounts").expect("kept accounts");
    for account in accounts.as_array_mut().unwrap() {
        if account["id"] == id.as_str() {
            account["base_url"] = json!(rogue_url);
        }
    }
    store.set("accounts", accounts);
    // On disk, as another program would have edited it (the window reads the file again).
    store.save().expect("saved");

    h.ok("demo_start", json!({}));
    let err = h.err("account_switch", json!({"id": id}));
    assert_eq!(err["kind"], "key_destination_mismatch", "{err}");
    assert!(
        err["message"].as_str().unwrap().contains(&rogue_url),
        "{err}"
    );
    assert!(!err.to_string().contains(&free_key), "{err}");
    assert!(
        received.lock().unwrap().is_empty(),
        "the key went to the moved address: {:?}",
        received.lock().unwrap()
    );
}

/// Connecting over plain http:// to another computer is refused before anything is sent; the
/// error names the address and never the key.
#[test]
fn connect_refuses_plain_http_to_another_computer() {
    let h = Harness::new();
    let err = h.err(
        "connect",
        json!({"baseUrl": "http://api.example.com", "apiKey": "dd_pro_plain_http_secret"}),
    );
    assert_eq!(err["kind"], "insecure_url", "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("http://api.example.com"), "{message}");
    assert!(!message.contains("plain_http_secret"), "{message}");
    assert_eq!(h.ok("accounts_list", json!({})), json!([]));
}

/// On start, the last account's entry and the settings' last base URL disagree (the file was
/// edited): the app does not sign in with the key and says why instead of starting silently
/// signed out.
#[test]
fn resume_refuses_when_the_last_base_url_is_not_the_accounts() {
    let h = Harness::new();
    let data = h.data_dir();
    std::fs::create_dir_all(&data).unwrap();
    let edited = json!({
        "settings": {"last_account": "acc_1@127.0.0.1:9", "base_url": "http://127.0.0.1:10"},
        "accounts": [{"id": "acc_1@127.0.0.1:9", "label": "Shop", "mode": "connected",
                      "base_url": "http://127.0.0.1:9"}]
    });
    std::fs::write(data.join("settings.json"), edited.to_string()).unwrap();
    let err = h.err("session_get", json!({}));
    assert_eq!(err["kind"], "key_destination_mismatch", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("http://127.0.0.1:10"),
        "{err}"
    );
}

#[test]
fn import_and_export_run_through_the_windows_commands() {
    let harness = Harness::new();
    harness.ok("demo_start", json!({}));
    let project = harness.project_with_deploy(Some("succeeded"));
    let project_id = project["id"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("domains.csv");
    std::fs::write(
        &file,
        "hostname,redirect_to\nimport-a.example.com\nimport-b.example.com,import-a.example.com\n",
    )
    .unwrap();
    let result = harness.import_file(project_id, &file, false).unwrap();
    assert_eq!(
        result["summary"]["created"],
        json!(["import-a.example.com", "import-b.example.com"]),
        "{result}"
    );
    assert_eq!(result["retry_file"], Value::Null);

    // Again: nothing is sent twice, both are reported as already there.
    let again = harness.import_file(project_id, &file, false).unwrap();
    assert_eq!(again["summary"]["created"], json!([]));
    assert_eq!(
        again["summary"]["already_present"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A bad file is refused with every line named, before anything is sent.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "*.example.com\n").unwrap();
    let err = harness.import_file(project_id, &bad, false).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("line 1"), "{err}");
    // A line that cannot be read and a row the plan refuses: named together, in one refusal.
    std::fs::write(&bad, "a,b,c\n*.example.com\nok.example.com\n").unwrap();
    let err = harness.import_file(project_id, &bad, false).unwrap_err();
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("2 line(s) cannot be imported")
            && message.contains("line 1: a: 3 columns")
            && message.contains("line 2: *.example.com"),
        "{err}"
    );

    let out = dir.path().join("domains.zone");
    use tauri::Manager as _;
    let state = harness.app.state::<domain_desk::state::AppState>();
    let export = tauri::async_runtime::block_on(domain_desk::commands::bulk::export(
        &state, project_id, "zone",
    ))
    .unwrap();
    assert!(export.suggested_name.ends_with(".zone"), "{export:?}");
    let written = domain_desk::commands::bulk::save_export(&out, &export).unwrap();
    assert_eq!(written, out.display().to_string());
    let zone = std::fs::read_to_string(&out).unwrap();
    assert!(
        zone.contains("import-a.example.com.\t3600\tIN\tCNAME\t"),
        "{zone}"
    );
    assert!(
        !harness
            .ok("domains_import_cancel", json!({}))
            .as_bool()
            .unwrap()
    );
}

#[test]
fn the_windows_import_names_each_invalid_row_and_can_import_the_valid_ones() {
    let harness = Harness::new();
    harness.ok("demo_start", json!({}));
    let project = harness.project_with_deploy(Some("succeeded"));
    let project_id = project["id"].as_str().unwrap();
    let before = harness
        .ok("domains_list", json!({"projectId": project_id}))
        .as_array()
        .map(Vec::len)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // 30 rows, 4 of them bad: not a host (line 8), a wildcard (line 14), a duplicate
    // (line 20), no hostname (line 26).
    let mut text = String::from("hostname,redirect_to\n");
    for i in 0..26 {
        text.push_str(&format!("host{i}.window.example.com,\n"));
        match i {
            5 => text.push_str("not a host,\n"),
            // A wildcard for a whole registrable domain is refused (`*.shop.…` is not).
            10 => text.push_str("*.example.com,\n"),
            15 => text.push_str("host3.window.example.com,\n"),
            20 => text.push_str(",host1.window.example.com\n"),
            _ => {}
        }
    }
    let file = dir.path().join("mixed.csv");
    std::fs::write(&file, text).unwrap();
    let retry = dir.path().join("mixed.csv.failed.csv");

    // Importing the refused file again before any refusal: there is none to read.
    let none = harness.err(
        "domains_import",
        json!({"projectId": project_id, "again": true, "skipInvalid": true, "onProgress": "__CHANNEL__:6"}),
    );
    assert_eq!(none["kind"], "invalid_input", "{none}");
    let err = harness.import_file(project_id, &file, false).unwrap_err();
    assert_eq!(err["kind"], "import_refused", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("4 line(s) cannot be imported"),
        "{err}"
    );
    let refusal = &err["refusal"];
    assert_eq!(refusal["valid"], 26, "{err}");
    assert_eq!(refusal["file"], file.display().to_string());
    assert_eq!(refusal["retry_file"], retry.display().to_string());
    let problems = refusal["problems"].as_array().unwrap();
    let lines: Vec<_> = problems
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [8, 14, 20, 26], "{err}");
    let values: Vec<_> = problems
        .iter()
        .map(|p| p["value"].as_str().unwrap())
        .collect();
    assert_eq!(values[0], "not a host");
    assert_eq!(values[1], "*.example.com");
    assert_eq!(values[2], "host3.window.example.com");
    assert!(
        problems
            .iter()
            .all(|p| !p["message"].as_str().unwrap().is_empty()),
        "{err}"
    );
    let listed = |h: &Harness| {
        h.ok("domains_list", json!({"projectId": project_id}))
            .as_array()
            .map(Vec::len)
            .unwrap()
    };
    assert_eq!(listed(&harness), before, "nothing is sent on a refusal");
    assert!(!retry.exists());

    // "Import the 26 valid rows": the window names no file, the refused one is read again.
    let result = harness.ok(
        "domains_import",
        json!({"projectId": project_id, "again": true, "skipInvalid": true, "onProgress": "__CHANNEL__:8"}),
    );
    assert_eq!(result["file"], file.display().to_string(), "{result}");
    assert_eq!(
        result["summary"]["created"].as_array().unwrap().len(),
        26,
        "{result}"
    );
    assert_eq!(result["summary"]["skipped"].as_array().unwrap().len(), 4);
    assert_eq!(result["retry_file"], retry.display().to_string());
    assert_eq!(listed(&harness), before + 26);
    let left = std::fs::read_to_string(&retry).expect("the retry file");
    assert_eq!(
        left.lines()
            .filter(|l| l.trim_start_matches('"').starts_with("# line "))
            .count(),
        4,
        "{left}"
    );
    assert!(left.contains("*.example.com"), "{left}");
}

#[test]
fn set_up_automatically_is_offered_for_the_demos_own_dns_provider_only() {
    let harness = Harness::new();
    harness.ok("demo_start", json!({}));
    let offered = harness.ok(
        "domain_connect_offer",
        json!({"hostname": "auto.example.com"}),
    );
    assert_eq!(offered["offered"], true, "{offered}");
    assert!(offered["provider"].as_str().is_some());
    let elsewhere = harness.ok(
        "domain_connect_offer",
        json!({"hostname": "shop.unserved-zone.com"}),
    );
    assert_eq!(elsewhere["offered"], false, "{elsewhere}");
    assert!(elsewhere["reason"].as_str().unwrap().contains("by hand"));
}

/// Save diagnostics… (below the command, with a file instead of the save dialog's): the
/// doctor runs against the demo with capture on, the file replays offline into the report the
/// window would have seen, and a name that is not a hostname is refused before anything is
/// asked or written.
#[test]
fn save_diagnostics_writes_a_capture_that_replays_offline() {
    use domain_desk::commands::diagnose::DiagnosticsRun;
    use tauri::Manager as _;
    let h = Harness::new();
    h.ok("demo_start", json!({}));
    let state = h.app.state::<domain_desk::state::AppState>();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("diagnostics.json");
    let saved = tauri::async_runtime::block_on(async {
        let run = DiagnosticsRun::prepare(h.app.handle(), &state, "shop.example.com", None).await?;
        assert!(
            run.suggested_name
                .starts_with("diagnostics-shop.example.com-"),
            "{}",
            run.suggested_name
        );
        run.save(&file).await
    })
    .unwrap();
    let saved = serde_json::to_value(saved).unwrap();
    assert_eq!(saved["path"], file.display().to_string(), "{saved}");
    assert!(saved["warnings"].as_u64().unwrap() >= 1, "{saved}");
    let capture = domain_desk_doctor::Capture::load(&file).unwrap();
    assert_eq!(capture.hostnames, ["shop.example.com"]);
    // Only what this name's diagnosis needed: not the names other accounts of the demo attach
    // (the Business account's live app.example.co.uk), nor their certificates.
    let seeded = domain_desk_service::world::renewal_demo::HOSTNAME;
    let attached = capture.options.attached_hostnames.as_ref().unwrap();
    assert!(
        attached.iter().all(|h| h == "shop.example.com"),
        "{attached:?}"
    );
    let live = capture.options.live_certificates.as_ref().unwrap();
    assert!(!live.contains_key(seeded), "{live:?}");
    assert!(!capture.exchanges.is_empty());
    let report = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(domain_desk_doctor::replay(&capture))
        .unwrap();
    assert_eq!(report.errors as u64, saved["errors"].as_u64().unwrap());
    assert_eq!(report.warnings as u64, saved["warnings"].as_u64().unwrap());
    assert!(
        report.hosts[0]
            .findings
            .iter()
            .any(|f| f.code == domain_desk_doctor::FindingCode::LiveElsewhere),
        "{}",
        report.to_text()
    );

    let err = tauri::async_runtime::block_on(DiagnosticsRun::prepare(
        h.app.handle(),
        &state,
        "not a name",
        None,
    ))
    .unwrap_err();
    assert_eq!(serde_json::to_value(err).unwrap()["kind"], "invalid_input");
}

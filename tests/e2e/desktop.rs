//! The window as a desktop program, met as a user meets it: a second launch hands over to
//! the first, a `domain-desk://` link opened by the system shows what it names, closing the
//! window while a domain waits keeps watching from the tray, and the window comes back where
//! it was.
//!
//! It is longer than the house's 500 lines (about 580, all tests): seven tests of what the
//! desktop around the window sees (a second launch, `xdg-open`, the tray, quitting, where the
//! window comes back, the update notice, no GL driver), sharing the helpers that read that
//! desktop (X windows and their geometry through `xdotool`, the session bus, `/proc`). The
//! launching and waiting are apart already (`harness.rs`), and so are the journeys inside it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::harness::{self, App, Deadline, NotificationServer, WAIT};
use super::{PRO_SITE, WWW, fill_add_dialog, open_project, start_demo, submit_add_dialog};

/// Runs the app's binary as the system would for a second launch (same user session, same
/// folders as `app`), and returns its exit status once it has ended.
fn launch_again<S: AsRef<std::ffi::OsStr>>(
    app: &App,
    args: &[S],
) -> (std::process::ExitStatus, Duration) {
    let mut command = Command::new(harness::app_binary());
    command
        .args(args)
        .envs(harness::xdg_env(app.home()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    let started = Instant::now();
    let mut child = command.spawn().expect("the app's binary starts");
    loop {
        if let Some(status) = child.try_wait().expect("wait for the second launch") {
            return (status, started.elapsed());
        }
        if started.elapsed() > WAIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "a second launch should hand over and end at once; it was still running after {WAIT:?} (a second window?)"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The X windows titled "Domain Desk"; `visible` only the ones on screen.
fn windows(visible: bool) -> Vec<String> {
    let mut command = Command::new("xdotool");
    command.arg("search");
    if visible {
        command.arg("--onlyvisible");
    }
    let out = command
        .args(["--name", "^Domain Desk$"])
        .output()
        .expect("xdotool (apt-get install xdotool)");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn settings_file(app: &App) -> PathBuf {
    app.home().join("data/dev.domaindesk.app/settings.json")
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("the settings file exists")
}

/// Asks the window to close the way the window manager's close button does (a close
/// request the app may refuse).
async fn close_window(app: &App) {
    // The app may be gone before the answer comes back: the answer is not needed.
    let _ = app
        .client
        .execute(
            "window.__TAURI__.window.getCurrentWindow().close(); return true;",
            Vec::new(),
        )
        .await;
}

/// Waits until `check` holds, polling; fails with `what` at the deadline.
async fn wait_until(app: &App, what: &str, timeout: Duration, check: impl Fn() -> bool) {
    let deadline = Deadline::after(timeout);
    while !check() {
        if deadline.passed() {
            app.fail(format!("{what} within {timeout:?}")).await;
        }
        Deadline::next_look().await;
    }
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_second_launch_hands_its_link_to_the_first_window_and_writes_nothing() {
    let app = App::launch("single_instance").await;
    start_demo(&app).await;
    let settings = settings_file(&app);
    let before = modified(&settings);
    let shown = windows(false).len();

    // A link to diagnose a hostname, as the system passes it to a second launch.
    let (status, took) = launch_again(&app, &["domain-desk://diagnose/www.example.com"]);
    assert!(status.success(), "the second launch ends well: {status}");
    app.wait_contains("#diagnose-title", "Diagnose www.example.com")
        .await;
    assert_eq!(
        windows(false).len(),
        shown,
        "the second launch opened no window of its own"
    );
    assert_eq!(
        modified(&settings),
        before,
        "the second launch did not write the settings"
    );
    assert!(took < WAIT, "the second launch took {took:?}");
    app.screenshot("single-instance-diagnose-link").await;
    app.click("#diagnose-close").await;

    // A hostile link is refused with a notice, and nothing of it reaches the page.
    let (status, _) = launch_again(
        &app,
        &["domain-desk://diagnose/<img src=x id=injected onerror=alert(1)>"],
    );
    assert!(status.success());
    app.wait_contains("#toasts", "hostname that is not valid")
        .await;
    assert!(
        !app.exists("#injected").await,
        "the link's markup reached the page"
    );
    let toasts = app.text("#toasts").await;
    assert!(
        !toasts.contains("onerror"),
        "the notice quotes the link: {toasts}"
    );

    // A link that is not UTF-8 (the desktop hands over bytes): refused with a notice, and
    // the window is still there to show it.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let link = std::ffi::OsStr::from_bytes(b"domain-desk://diagnose/www.\xff.example");
        let (status, _) = launch_again(&app, &[link]);
        assert!(status.success());
        app.wait_contains("#toasts", "not text (UTF-8)").await;
    }

    // The command line is not a second window: it runs beside the first.
    let info = Command::new(harness::app_binary())
        .arg("info")
        .envs(harness::xdg_env(app.home()))
        .output()
        .expect("domain-desk info");
    assert!(info.status.success());
    assert!(String::from_utf8_lossy(&info.stdout).contains(env!("CARGO_PKG_VERSION")));
    app.close().await;
}

/// What the `.deb` and `.rpm` install for links: the packages' desktop entry, rendered from
/// the same template the bundler fills (`src-tauri/linux/domain-desk.desktop`: its `Exec` line
/// must pass the link, `%u`), pointed at the binary under test and made the default handler
/// as the system does. `cargo xtask deb-check` does the same with the real package installed.
fn register_desktop_entry(home: &Path) {
    let applications = home.join("data/applications");
    std::fs::create_dir_all(&applications).expect("applications folder");
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/linux/domain-desk.desktop"),
    )
    .expect("the packages' desktop entry template");
    let binary = harness::app_binary().display().to_string();
    let entry: String = template
        .lines()
        .filter(|line| !line.starts_with("{{#if") && !line.starts_with("{{/if"))
        .map(|line| {
            line.replace("{{exec}}", &binary)
                .replace("{{name}}", "Domain Desk")
                .replace("{{icon}}", "domain-desk")
                .replace("{{categories}}", "Development;")
                .replace("{{comment}}", "Attach custom domains to hosted projects")
                .replace("{{mime_type}}", "x-scheme-handler/domain-desk")
                + "\n"
        })
        .collect();
    std::fs::write(applications.join("domain-desk.desktop"), entry).expect("the desktop entry");
    let status = Command::new("xdg-mime")
        .args([
            "default",
            "domain-desk.desktop",
            "x-scheme-handler/domain-desk",
        ])
        .envs(harness::xdg_env(home))
        .status()
        .expect("xdg-mime (apt-get install xdg-utils)");
    assert!(status.success(), "xdg-mime default");
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn xdg_open_of_a_link_shows_that_domain_in_the_running_window() {
    let app = App::launch("deep_link").await;
    register_desktop_entry(app.home());
    start_demo(&app).await;
    let project_id = app
        .try_attr(PRO_SITE, "data-project-id")
        .await
        .expect("the project's id");
    open_project(&app, PRO_SITE, "Pro site").await;
    fill_add_dialog(&app, WWW).await;
    submit_add_dialog(&app, WWW).await;
    app.click("#add-done").await;
    app.click("#back-to-projects").await;
    app.find(PRO_SITE).await;

    // First as GNOME opens links (`gio open`, GLib's launcher, which passes the link only
    // where the entry's Exec line asks for it with %u), then with plain `xdg-open`, which
    // appends it whatever the Exec line says.
    let link = format!("domain-desk://project/{project_id}/domain/{WWW}");
    let status = Command::new("gio")
        .args(["open", &link])
        .envs(harness::xdg_env(app.home()))
        .stdout(Stdio::null())
        .status()
        .expect("gio (apt-get install libglib2.0-bin)");
    assert!(status.success(), "gio open {link}: {status}");
    app.wait_contains("#project-title", "Pro site — settings")
        .await;
    app.wait_contains("#domain-detail", WWW).await;
    app.screenshot("deep-link-domain").await;

    // A link for a project the account does not have shows a notice and changes nothing.
    let status = Command::new("xdg-open")
        .arg("domain-desk://project/prj_nope/domain/www.example.com")
        .envs(harness::xdg_env(app.home()))
        .stdout(Stdio::null())
        .status()
        .expect("xdg-open");
    assert!(status.success());
    app.wait_contains("#toasts", "project this account does not have")
        .await;
    app.close().await;
}

/// An XEmbed system tray on the test's display (trayer, `apt-get install trayer`), for the
/// tray icon to dock in and its menu to be photographed (`target/e2e/tray-menu.png`).
///
/// Only with `DOMAIN_DESK_E2E_TRAY=1`: after trayer has run on the display, a window opened
/// by a later test and then placed by the window-state plugin loses its WebDriver session
/// (seen every time, not understood yet), so the default run leaves it out.
struct Tray(std::process::Child);

impl Tray {
    fn start() -> Option<Tray> {
        std::env::var_os("DOMAIN_DESK_E2E_TRAY")?;
        let child = Command::new("trayer")
            .args([
                "--edge",
                "top",
                "--align",
                "right",
                "--widthtype",
                "pixel",
                "--width",
                "120",
                "--height",
                "32",
                "--transparent",
                "false",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        Some(Tray(child))
    }
}

impl Drop for Tray {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The second domain the background watch waits for: the demo zone's correct CNAME.
const WWW_UK: &str = "www.example.co.uk";

/// Waits until the server has shown `count` notifications with `summary`, and returns them.
async fn wait_for_count(
    notifications: &NotificationServer,
    app: &App,
    summary: &str,
    count: usize,
) -> Vec<harness::Shown> {
    let deadline = Deadline::after(WAIT);
    loop {
        let shown: Vec<_> = notifications
            .shown()
            .into_iter()
            .filter(|s| s.summary == summary)
            .collect();
        if shown.len() >= count {
            return shown;
        }
        if deadline.passed() {
            app.fail(format!(
                "{count} notifications “{summary}” should have been shown within {WAIT:?}; the \
                 server showed {:?}",
                notifications.shown()
            ))
            .await;
        }
        Deadline::next_look().await;
    }
}

/// Closing the window while two domains wait, on a desktop with no tray host (this session's
/// bus has no StatusNotifierWatcher, as GNOME without the AppIndicator extension): the window
/// hides, one notification says how to come back, and a "Domain live" notification arrives
/// for each of the two domains that go live meanwhile.
#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn closing_the_window_while_a_domain_waits_keeps_watching_from_the_tray() {
    let notifications = NotificationServer::start();
    let tray = Tray::start();
    let app = App::launch("background_watch").await;
    start_demo(&app).await;
    // A stopped clock: the certificate arrives only when the test moves time on.
    app.choose("#clock-speed", "0").await;
    app.wait_contains("#toasts", "Demo clock: Stopped.").await;
    open_project(&app, PRO_SITE, "Pro site").await;
    fill_add_dialog(&app, WWW).await;
    submit_add_dialog(&app, WWW).await;
    app.click("#add-verify-now").await;
    app.wait_attr("#detail-status", "data-status", "issuing")
        .await;
    app.click("#add-domain-button").await;
    app.type_into("#add-hostname", WWW_UK).await;
    app.wait_contains("#add-hostname-message", "CNAME named “www”")
        .await;
    super::decline_companion(&app).await;
    app.click("#add-submit").await;
    app.wait_contains("#add-record-type", "CNAME").await;
    app.click("#add-verify-now").await;
    app.wait_attr(&super::row(WWW_UK), "data-status", "issuing")
        .await;
    app.wait_attr(&super::row(WWW), "data-status", "issuing")
        .await;
    assert_eq!(windows(true).len(), 1, "the window shows");

    close_window(&app).await;
    wait_until(&app, "the window should hide, not close", WAIT, || {
        windows(true).is_empty() && !windows(false).is_empty()
    })
    .await;
    // No tray host on this bus: told once how to come back.
    let told = notifications
        .wait_for(&app, "Domain Desk is still running")
        .await;
    // The project's seeded domains that wait are watched too: at least the two added here.
    let watching = told
        .body
        .strip_prefix("Domain Desk keeps watching ")
        .and_then(|rest| rest.split_once(" domains and tells you when each is live."))
        .and_then(|(count, rest)| Some((count.parse::<usize>().ok()?, rest)));
    assert!(
        matches!(watching, Some((count, " Open it from the menu to stop.")) if count >= 2),
        "{told:?}"
    );
    if let Some(tray) = tray {
        // The tray icon in trayer, clicked: its menu, for the screenshot. Then the menu is
        // dismissed, the pointer put back and the tray host ended, so that nothing of it
        // reaches the tests after this one.
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("xdotool")
            .args(["mousemove", "1264", "16", "click", "1"])
            .status();
        std::thread::sleep(Duration::from_millis(500));
        notifications.screenshot("tray-menu");
        let _ = Command::new("xdotool").args(["key", "Escape"]).status();
        let _ = Command::new("xdotool")
            .args(["mousemove", "0", "799"])
            .status();
        drop(tray);
    }

    // Time passes on the platform: the hidden window's watch sees both certificates arrive,
    // and each domain's notification comes.
    app.script("window.__TAURI__.core.invoke('clock_advance', { seconds: 600 }); return true;")
        .await;
    let live = wait_for_count(&notifications, &app, "Domain live", 2).await;
    notifications.screenshot("background-watch-notifications");
    for hostname in [WWW, WWW_UK] {
        assert_eq!(
            live.iter().filter(|s| s.body.contains(hostname)).count(),
            1,
            "one “Domain live” for {hostname}: {live:?}"
        );
    }
    assert!(windows(true).is_empty(), "the window stayed hidden");
    assert_eq!(
        notifications
            .shown()
            .iter()
            .filter(|s| s.summary == "Domain Desk is still running")
            .count(),
        1,
        "told once"
    );

    // Launching the app again brings the window back; with nothing left to watch, closing
    // it now quits.
    let (status, _) = launch_again::<&str>(&app, &[]);
    assert!(status.success());
    wait_until(&app, "a second launch should show the window", WAIT, || {
        windows(true).len() == 1
    })
    .await;
    app.wait_attr(&super::row(WWW), "data-status", "live").await;
    app.wait_attr(&super::row(WWW_UK), "data-status", "live")
        .await;
    close_window(&app).await;
    wait_until(&app, "the app should quit", WAIT, || {
        windows(false).is_empty()
    })
    .await;
    let home = app.home().to_owned();
    wait_released(&home).await;
    app.kill();
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn closing_the_window_with_nothing_pending_quits() {
    let app = App::launch("close_quits").await;
    start_demo(&app).await;
    assert!(!windows(false).is_empty());
    close_window(&app).await;
    wait_until(&app, "the app should quit", WAIT, || {
        windows(false).is_empty()
    })
    .await;
    app.kill();
}

/// The window's position and size as X sees them: `(x, y, width, height)`.
fn geometry() -> (i64, i64, i64, i64) {
    let id = windows(true).into_iter().next().expect("a shown window");
    let out = Command::new("xdotool")
        .args(["getwindowgeometry", "--shell", &id])
        .output()
        .expect("xdotool getwindowgeometry");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in {text}"))
    };
    (field("X"), field("Y"), field("WIDTH"), field("HEIGHT"))
}

/// Waits until the app that used `home` has ended: its single-instance name on the session
/// bus is free (its window may close a moment before the process ends, and a launch in
/// that moment would hand itself over to the ending one).
async fn wait_released(home: &Path) {
    let name = instance_name(home);
    let deadline = Deadline::after(WAIT);
    while harness::name_has_owner(&name) {
        assert!(!deadline.passed(), "the app did not end within {WAIT:?}");
        Deadline::next_look().await;
    }
}

/// The single-instance name on the session bus of the app whose folders are in `home`.
fn instance_name(home: &Path) -> String {
    format!(
        "{}.SingleInstance",
        domain_desk::desktop::instance_id(&home.join("data/dev.domaindesk.app"))
    )
}

fn window_state_file(home: &Path) -> PathBuf {
    home.join("config/dev.domaindesk.app/.window-state.json")
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn the_window_comes_back_where_it_was_and_never_off_screen() {
    let home = harness::new_home();
    let app = App::launch_in("window_state", home.clone(), &[]).await;
    app.find("#first-run-title").await;
    assert!(
        harness::name_has_owner(&instance_name(home.path())),
        "the running app holds its single-instance name"
    );
    let id = windows(true).into_iter().next().expect("the window");
    // Moved and resized as a person would; below the minimum size it stops at 900×600.
    for args in [
        vec!["windowsize", id.as_str(), "500", "400"],
        vec!["windowmove", id.as_str(), "40", "30"],
    ] {
        Command::new("xdotool")
            .args(&args)
            .status()
            .expect("xdotool");
    }
    wait_until(
        &app,
        "the window should stop at its minimum size",
        WAIT,
        || {
            let (_, _, w, h) = geometry();
            w == 900 && h == 600
        },
    )
    .await;
    Command::new("xdotool")
        .args(["windowsize", &id, "1000", "700"])
        .status()
        .expect("xdotool");
    wait_until(&app, "the window should take its new size", WAIT, || {
        let (x, y, w, h) = geometry();
        (x, y, w, h) == (40, 30, 1000, 700)
    })
    .await;
    close_window(&app).await;
    wait_until(&app, "the app should quit", WAIT, || {
        windows(false).is_empty()
    })
    .await;
    app.kill();
    wait_released(home.path()).await;
    let state = std::fs::read_to_string(window_state_file(home.path()))
        .expect("the window's state was saved");
    let saved: serde_json::Value = serde_json::from_str(&state).expect("the state is JSON");
    assert_eq!(
        (
            saved["main"]["width"].as_i64(),
            saved["main"]["height"].as_i64()
        ),
        (Some(1000), Some(700)),
        "the saved size: {state}"
    );

    let app = App::launch_in("window_state", home.clone(), &[]).await;
    app.find("#first-run-title").await;
    wait_until(
        &app,
        "the window should come back at 40,30 and 1000×700",
        WAIT,
        || geometry() == (40, 30, 1000, 700),
    )
    .await;
    close_window(&app).await;
    wait_until(&app, "the app should quit", WAIT, || {
        windows(false).is_empty()
    })
    .await;
    app.kill();
    wait_released(home.path()).await;

    // A monitor that is gone: the saved place lies far outside the screen (1280×800).
    let file = window_state_file(home.path());
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("state")).expect("JSON");
    saved["main"]["x"] = 5000.into();
    saved["main"]["y"] = 4000.into();
    std::fs::write(&file, saved.to_string()).expect("write the state");
    let app = App::launch_in("window_state", home, &[]).await;
    app.find("#first-run-title").await;
    let (x, y, w, h) = geometry();
    assert!(
        x >= 0 && y >= 0 && x + w <= 1280 && y + h <= 800,
        "the window opens on screen: {x},{y} {w}×{h}"
    );
    app.screenshot("window-state-on-screen").await;
    app.kill();
}

#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn a_newer_signed_version_is_announced_once_with_what_changed() {
    use super::feed::{Keys, PACKAGE, feed};
    let keys = Keys::new();
    let served = feed("0.2.0", &keys.sign(PACKAGE, "0.2.0"), PACKAGE);
    let url = served.url("/latest.json");
    let pubkey = keys.config_pubkey();
    // Debug builds only: the feed and its key from the environment.
    let env = [
        ("DOMAIN_DESK_TEST_UPDATE_FEED", url.as_str()),
        ("DOMAIN_DESK_TEST_UPDATE_PUBKEY", pubkey.as_str()),
    ];
    let home = harness::new_home();
    let app = App::launch_in("update_notice", home.clone(), &env).await;
    app.wait_contains("#update-title", "Domain Desk 0.2.0 is available")
        .await;
    let notes = app.text("#update-notes").await;
    assert!(notes.contains("Faster Diagnose."), "{notes}");
    // Neither an installer nor a package: the release page.
    assert!(app.text("#update-how").await.contains("release page"));
    assert!(!app.exists("#update-install").await);
    // The first screen still works under the notice.
    app.wait_contains("#first-run-title", "Welcome to Domain Desk")
        .await;
    app.screenshot("update-notice").await;
    app.click("#update-dismiss").await;
    assert!(!app.is_displayed("#update-notice-host").await);
    app.kill();
    wait_released(home.path()).await;

    // The next start says nothing more of 0.2.0.
    let app = App::launch_in("update_notice", home, &env).await;
    app.wait_contains("#first-run-title", "Welcome to Domain Desk")
        .await;
    app.wait_attr("#update-notice-host", "data-checked", "nothing-new")
        .await;
    assert!(!app.is_displayed("#update-notice-host").await);
    app.kill();
}

/// Whether process `pid` has a file whose path contains `needle` mapped.
#[cfg(target_os = "linux")]
fn maps(pid: u32, needle: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .is_ok_and(|maps| maps.lines().any(|line| line.contains(needle)))
}

/// Without compositing, the window's own process draws with cairo and loads no GL driver
/// (Mesa's software driver brought LLVM and about 30 MB with it); the web process, which
/// needs EGL to run at all, still finds it and draws the page. With compositing asked for,
/// both load it as before.
#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "needs a display and tauri-driver: run `cargo xtask e2e`"]
async fn without_compositing_the_windows_process_loads_no_gl_driver() {
    for compositing in ["off", "on"] {
        let app =
            App::launch_with_env("no_gl_driver", &[("DOMAIN_DESK_COMPOSITING", compositing)]).await;
        start_demo(&app).await;
        open_project(&app, PRO_SITE, "Pro site").await;
        app.screenshot(&format!("compositing-{compositing}")).await;
        let processes = app.processes();
        let of = |name: &str| {
            processes
                .iter()
                .filter(|(_, comm)| comm.starts_with(name))
                .map(|(pid, _)| *pid)
                .collect::<Vec<_>>()
        };
        let (window, web) = (of("domain-desk"), of("WebKitWebProces"));
        assert!(
            window.len() == 1 && !web.is_empty(),
            "the app and its web process among {processes:?}"
        );
        let driver_in = |pid: u32| {
            ["dri/", "libEGL_mesa", "libGLX_mesa"]
                .into_iter()
                .filter(|needle| maps(pid, needle))
                .collect::<Vec<_>>()
        };
        let in_window = driver_in(window[0]);
        if compositing == "off" {
            assert!(
                in_window.is_empty(),
                "the window's process mapped {in_window:?}"
            );
        } else {
            assert!(
                !in_window.is_empty(),
                "compositing on: the window's process uses GL"
            );
        }
        assert!(
            web.iter().all(|&pid| maps(pid, "libEGL_mesa")),
            "the web process found EGL (compositing {compositing})"
        );
        app.kill();
    }
}

//! The harness of the end-to-end tests: one tauri-driver (and so one app) per test, each with
//! its own data, settings and cache folders so that no test sees another's demo, and waits
//! that poll what the window shows until a deadline, then save a screenshot and fail.
//!
//! tauri-driver runs in its own process group, so dropping the [`App`] also ends the
//! WebKitWebDriver and the app it started, even when a test fails half-way.
//!
//! It is longer than the house's 500 lines (about 720, all test support): about 170 start
//! tauri-driver and its session in a home of its own, about 380 are `App`'s 34 methods, most a
//! few lines over the same poll until a deadline then screenshot and fail, which every e2e file
//! speaks, and about 150 the desktop notifications' stand-in five journeys read. The user's
//! browser is apart already (`browser.rs`), as are the steps through the demo (`tests/e2e.rs`).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

/// How long a step may take before the test gives up: the window answers in well under a
/// second, but a loaded CI machine compiles other things at the same time.
pub const WAIT: Duration = Duration::from_secs(20);

/// How often a wait looks again.
const POLL_EVERY: Duration = Duration::from_millis(100);

struct Driver {
    child: Child,
    port: u16,
    /// The app's XDG data, config and cache folders, removed after the driver has stopped.
    home: Arc<tempfile::TempDir>,
}

/// A fresh folder for an app's XDG data, config and cache folders; share it between
/// launches to start the app again on the same data.
pub fn new_home() -> Arc<tempfile::TempDir> {
    Arc::new(
        tempfile::Builder::new()
            .prefix("domain-desk-e2e-app-")
            .tempdir()
            .expect("a temporary folder for the app's data"),
    )
}

/// The XDG variables that point an app at `home`'s folders.
pub fn xdg_env(home: &Path) -> Vec<(&'static str, PathBuf)> {
    [
        ("XDG_DATA_HOME", "data"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
    ]
    .into_iter()
    .map(|(var, sub)| (var, home.join(sub)))
    .collect()
}

impl Driver {
    /// Starts tauri-driver with `env` added to what the app inherits, the app's folders in
    /// `home`.
    fn start(home: Arc<tempfile::TempDir>, env: &[(&str, &str)]) -> Driver {
        let port = free_port();
        let native_port = free_port();
        let mut command = Command::new(find_tauri_driver());
        // Its own process group, so dropping the driver also ends the WebKitWebDriver and
        // the app it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        for (var, path) in xdg_env(home.path()) {
            std::fs::create_dir_all(&path).expect("the app's XDG folder");
            command.env(var, path);
        }
        command.envs(env.iter().copied());
        let child = command
            .args(["--port", &port.to_string()])
            .args(["--native-port", &native_port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tauri-driver starts (cargo install tauri-driver --locked)");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "tauri-driver did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver { child, port, home }
    }

    async fn session(&self) -> Client {
        let app = app_binary();
        assert!(app.exists(), "build the app first: {}", app.display());
        let mut caps = serde_json::Map::new();
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": app }),
        );
        caps.insert("browserName".into(), "wry".into());
        // tauri-driver listens before WebKitWebDriver behind it is ready; a session asked
        // for in that moment is cut off, so it is asked for again until a deadline.
        let deadline = Deadline::after(WAIT);
        loop {
            let connected = ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{}", self.port))
                .await;
            match connected {
                Ok(client) => return client,
                Err(err) if deadline.passed() => panic!("WebDriver session with the app: {err}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // `--` before the negative group id: procps kill otherwise reads `-<pid>` as options
        // and signals `-<first digit>` instead, which for a pid starting with 1 is every
        // process on the machine.
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port below the kernel's ephemeral range (see
/// [`domain_desk_test_support::free_loopback_port`]): tauri-driver and WebKitWebDriver bind
/// theirs seconds after they are chosen.
pub fn free_port() -> u16 {
    domain_desk_test_support::free_loopback_port().expect("a free loopback port")
}

fn find_tauri_driver() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("tauri-driver"))
        .find(|p| p.is_file())
        .expect("tauri-driver on PATH or in ~/.cargo/bin")
}

pub fn app_binary() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/debug")
        .join(format!("domain-desk{}", std::env::consts::EXE_SUFFIX))
}

/// The last `lines` lines of the app's log (Tauri's log folder under the app's data folder in
/// `home`), headed by its path, or a line saying why there are none.
fn app_log_tail(home: &Path, lines: usize) -> String {
    let log = home.join("data/dev.domaindesk.app/logs/domain-desk.log");
    let text = match std::fs::read_to_string(&log) {
        Ok(text) => text,
        Err(err) => return format!("(no app log at {}: {err})", log.display()),
    };
    let all: Vec<&str> = text.lines().collect();
    let tail = &all[all.len().saturating_sub(lines)..];
    format!(
        "---- the last {} lines of {} ----\n{}",
        tail.len(),
        log.display(),
        tail.join("\n")
    )
}

/// Saves the window as `target/e2e/<name>.png`, once the page has painted its latest state
/// (two animation frames: the one pending and the one after it).
///
/// WebKitGTK runs animation frames, and WebDriver's screenshot waits for one, only when
/// something on the page changed: a page at rest (the first-run page, whose meter writes
/// nothing while no figure changes) would hold the test forever. So a 1 px mark in the
/// bottom-right corner, nearly transparent, changes every 50 ms while the picture is taken,
/// and is removed after it.
pub async fn screenshot(client: &Client, name: &str) {
    let taken = tokio::time::timeout(Duration::from_secs(60), async {
        client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const mark = document.createElement('div');
                 mark.id = 'e2e-frame-mark';
                 mark.setAttribute('aria-hidden', 'true');
                 mark.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;' +
                   'pointer-events:none;z-index:2147483647;opacity:.02;background:#000';
                 document.documentElement.append(mark);
                 let on = false;
                 window.__e2eFrameMark = setInterval(() => {
                   on = !on;
                   mark.style.background = on ? '#fff' : '#000';
                 }, 50);
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                Vec::new(),
            )
            .await
            .expect("an animation frame before the screenshot");
        let png = client.screenshot().await.expect("screenshot");
        client
            .execute(
                "clearInterval(window.__e2eFrameMark);
                 document.getElementById('e2e-frame-mark')?.remove();
                 return true;",
                Vec::new(),
            )
            .await
            .expect("remove the frame mark");
        png
    })
    .await;
    let Ok(png) = taken else {
        panic!("the window drew no frame for the screenshot {name} within 60 s");
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
    std::fs::create_dir_all(&dir).expect("target/e2e");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
}

/// A point in time after which a wait gives up.
pub struct Deadline(Instant);

impl Deadline {
    pub fn after(timeout: Duration) -> Self {
        Self(Instant::now() + timeout)
    }

    pub fn passed(&self) -> bool {
        Instant::now() >= self.0
    }

    /// The pause between two looks of a polling loop (the loop itself has the deadline).
    pub async fn next_look() {
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// The app in its window, driven through WebDriver, with a fresh demo of its own.
pub struct App {
    pub client: Client,
    /// Names the screenshot saved when a wait fails.
    test: &'static str,
    _driver: Driver,
}

impl App {
    /// Starts tauri-driver and the app with empty data folders: the window opens on the
    /// first-run screen.
    pub async fn launch(test: &'static str) -> App {
        App::launch_with_env(test, &[]).await
    }

    /// As [`App::launch`], with `env` set for the app.
    pub async fn launch_with_env(test: &'static str, env: &[(&str, &str)]) -> App {
        App::launch_in(test, new_home(), env).await
    }

    /// As [`App::launch_with_env`], on the data in `home` (a second launch finds what the
    /// first left).
    pub async fn launch_in(
        test: &'static str,
        home: Arc<tempfile::TempDir>,
        env: &[(&str, &str)],
    ) -> App {
        let driver = Driver::start(home, env);
        let client = driver.session().await;
        let app = App {
            client,
            test,
            _driver: driver,
        };
        app.wait_for_the_window_code().await;
        app
    }

    /// Waits until the window's code has run (`index.js` marks `dd:modules-loaded` in the same
    /// task that defines the elements and wires the header's buttons). The page's HTML is
    /// shown first: a click on the header's About button before then went nowhere, and the
    /// first test of a cold run once failed so.
    async fn wait_for_the_window_code(&self) {
        let started = Instant::now();
        loop {
            let loaded = self
                .client
                .execute(
                    "return performance.getEntriesByName('dd:modules-loaded').length > 0;",
                    Vec::new(),
                )
                .await;
            if matches!(loaded, Ok(serde_json::Value::Bool(true))) {
                return;
            }
            if started.elapsed() > WAIT {
                self.fail(format!("the window's code did not load: {loaded:?}"))
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The folder holding the app's XDG data, config and cache folders.
    pub fn home(&self) -> &Path {
        self._driver.home.path()
    }

    /// Ends tauri-driver and the app it started, now.
    pub fn kill(self) {
        drop(self);
    }

    pub async fn screenshot(&self, name: &str) {
        screenshot(&self.client, name).await;
    }

    /// Answers the system's file dialog (GTK's, native: WebDriver cannot reach it) with
    /// `file`, as a person would: once a new window shows, Ctrl+L and the path typed into its
    /// location field, then Enter. `open` is the script that opens the dialog; the window
    /// itself never names a file.
    pub async fn pick_in_file_dialog(&self, open: &str, file: &Path) {
        let visible = || {
            Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", ""])
                .output()
                .map(|out| {
                    String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .map(str::to_owned)
                        .collect::<std::collections::BTreeSet<_>>()
                })
                .expect("xdotool (apt-get install xdotool)")
        };
        let before = visible();
        self.client
            .execute(open, Vec::new())
            .await
            .expect("the script that opens the dialog");
        let deadline = Deadline::after(WAIT);
        // GTK's dialog maps a 1×1 helper window beside itself: the dialog is the new window
        // that has a title.
        let titled = |id: &String| {
            Command::new("xdotool")
                .args(["getwindowname", id])
                .output()
                .is_ok_and(|out| !String::from_utf8_lossy(&out.stdout).trim().is_empty())
        };
        let dialog = loop {
            if let Some(new) = visible().difference(&before).find(|id| titled(id)).cloned() {
                break new;
            }
            if deadline.passed() {
                self.fail("no file dialog showed".into()).await;
            }
            Deadline::next_look().await;
        };
        let xdotool = |args: &[&str]| {
            let status = Command::new("xdotool").args(args).status();
            assert!(status.is_ok_and(|s| s.success()), "xdotool {args:?}");
        };
        // Keys go through XTEST to the focused dialog, as a keyboard's would: GTK ignores the
        // synthetic events `--window` sends. Each step gives GTK a moment to map what the key
        // opened (the location entry, then its completion).
        xdotool(&["windowfocus", "--sync", &dialog]);
        std::thread::sleep(Duration::from_millis(300));
        xdotool(&["key", "ctrl+l"]);
        std::thread::sleep(Duration::from_millis(500));
        xdotool(&["type", "--delay", "5", &file.display().to_string()]);
        std::thread::sleep(Duration::from_millis(500));
        xdotool(&["key", "Return"]);
    }

    /// The processes tauri-driver started, the app and WebKit's helpers among them, as (pid,
    /// name), read from `/proc` (Linux): all share the driver's process group.
    #[cfg(target_os = "linux")]
    pub fn processes(&self) -> Vec<(u32, String)> {
        let group = self._driver.child.id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                // `pid (comm) state ppid pgrp …`: the name may hold spaces and parentheses.
                let (name, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
                let pgrp = rest.split_whitespace().nth(2)?;
                (pgrp == group).then(|| (pid, name.to_owned()))
            })
            .collect()
    }

    /// Saves what the window shows as `failed-<test>.png`, then fails the test with the end of
    /// the app's log in the message (what it was doing while the wait ran out: a CI machine's
    /// failure is read from its output alone).
    pub async fn fail(&self, message: String) -> ! {
        screenshot(&self.client, &format!("failed-{}", self.test)).await;
        panic!("{message}\n{}", app_log_tail(self.home(), 80));
    }

    pub async fn close(self) {
        self.client.close().await.expect("close the session");
    }

    /// The element `css` matches, once it exists.
    pub async fn find(&self, css: &str) -> Element {
        match self
            .client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(element) => element,
            Err(err) => self.fail(format!("{css} did not appear: {err}")).await,
        }
    }

    /// Whether `css` matches anything right now.
    pub async fn exists(&self, css: &str) -> bool {
        self.client.find(Locator::Css(css)).await.is_ok()
    }

    /// The text of `css` as rendered (`innerText`; empty when it is not rendered) right
    /// now, or `None` when nothing matches.
    ///
    /// WebDriver's own element text leaves out table cells that clip with an ellipsis,
    /// although the window shows them, so the page's rendering is asked instead.
    pub async fn try_text(&self, css: &str) -> Option<String> {
        let value = self
            .client
            .execute(
                "const element = document.querySelector(arguments[0]);
                 if (!element) return null;
                 return element.getClientRects().length === 0 ? '' : element.innerText;",
                vec![serde_json::Value::from(css)],
            )
            .await
            .ok()?;
        value.as_str().map(|text| text.trim().to_owned())
    }

    /// The rendered text of `css`, once it exists.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await;
        match self.try_text(css).await {
            Some(text) => text,
            None => self.fail(format!("{css} went away while being read")).await,
        }
    }

    /// An attribute of `css` right now, or `None`.
    pub async fn try_attr(&self, css: &str, attribute: &str) -> Option<String> {
        let element = self.client.find(Locator::Css(css)).await.ok()?;
        element.attr(attribute).await.ok().flatten()
    }

    /// Waits until the visible text of `css` satisfies `accept` (described by `what`) and
    /// returns it.
    pub async fn wait_text(&self, css: &str, what: &str, accept: impl Fn(&str) -> bool) -> String {
        self.wait_text_for(css, what, WAIT, accept).await
    }

    /// [`App::wait_text`] with its own timeout, for steps that wait on the demo's clock.
    pub async fn wait_text_for(
        &self,
        css: &str,
        what: &str,
        timeout: Duration,
        accept: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Deadline::after(timeout);
        let mut last = None;
        loop {
            if let Some(text) = self.try_text(css).await {
                if accept(&text) {
                    return text;
                }
                last = Some(text);
            }
            if deadline.passed() {
                self.fail(format!(
                    "{css} should show {what} within {timeout:?}; it showed {last:?}"
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until `css` contains `needle` in its visible text.
    pub async fn wait_contains(&self, css: &str, needle: &str) -> String {
        self.wait_text(css, &format!("“{needle}”"), |text| {
            text.contains(needle)
        })
        .await
    }

    /// Waits until an attribute of `css` is `expected`.
    pub async fn wait_attr(&self, css: &str, attribute: &str, expected: &str) {
        self.wait_attr_for(css, attribute, expected, WAIT).await;
    }

    pub async fn wait_attr_for(
        &self,
        css: &str,
        attribute: &str,
        expected: &str,
        timeout: Duration,
    ) {
        let deadline = Deadline::after(timeout);
        let mut last = None;
        loop {
            let value = self.try_attr(css, attribute).await;
            if value.as_deref() == Some(expected) {
                return;
            }
            last = value.or(last);
            if deadline.passed() {
                self.fail(format!(
                    "{css} should have {attribute}=“{expected}” within {timeout:?}; it had {last:?}"
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until nothing matches `css`.
    pub async fn wait_gone(&self, css: &str) {
        let deadline = Deadline::after(WAIT);
        while self.exists(css).await {
            if deadline.passed() {
                self.fail(format!("{css} should have gone within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until `attribute` of `css` reads other than `from` (what it read before the step
    /// that changes it): a later check's time in the details is the sign that an answer
    /// arrived, whether or not it changed anything else in the panel.
    pub async fn wait_attr_changed(
        &self,
        css: &str,
        attribute: &str,
        from: &Option<String>,
        what: &str,
        timeout: Duration,
    ) {
        let deadline = Deadline::after(timeout);
        while self.try_attr(css, attribute).await == *from {
            if deadline.passed() {
                self.fail(format!(
                    "{what} should have come within {timeout:?} ({css} [{attribute}] still {from:?})"
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Waits until `css` exists and is enabled.
    pub async fn wait_enabled(&self, css: &str) -> Element {
        let deadline = Deadline::after(WAIT);
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await {
                if element.is_enabled().await.unwrap_or(false) {
                    return element;
                }
            }
            if deadline.passed() {
                self.fail(format!("{css} should be enabled within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    pub async fn is_enabled(&self, css: &str) -> bool {
        let element = self.find(css).await;
        match element.is_enabled().await {
            Ok(enabled) => enabled,
            Err(err) => {
                self.fail(format!("reading whether {css} is enabled: {err}"))
                    .await
            }
        }
    }

    /// Waits until `css` exists and is shown.
    pub async fn wait_displayed(&self, css: &str) {
        let deadline = Deadline::after(WAIT);
        while !self.is_displayed(css).await {
            if deadline.passed() {
                self.fail(format!("{css} should be shown within {WAIT:?}"))
                    .await;
            }
            Deadline::next_look().await;
        }
    }

    pub async fn is_displayed(&self, css: &str) -> bool {
        let element = self.find(css).await;
        match element.is_displayed().await {
            Ok(shown) => shown,
            Err(err) => {
                self.fail(format!("reading whether {css} shows: {err}"))
                    .await
            }
        }
    }

    /// Clicks `css` once it exists and is enabled. A click that lands on something in front
    /// of it (a notice sliding in) or on an element the page just replaced is tried again
    /// until the deadline.
    pub async fn click(&self, css: &str) {
        let deadline = Deadline::after(WAIT);
        loop {
            let element = self.wait_enabled(css).await;
            match element.click().await {
                Ok(()) => return,
                Err(err) if deadline.passed() => {
                    self.fail(format!("clicking {css}: {err}")).await;
                }
                Err(_) => Deadline::next_look().await,
            }
        }
    }

    /// Sends keys to `css` (focusing it first), trying again while the page replaces it.
    pub async fn press(&self, css: &str, keys: &str) {
        let deadline = Deadline::after(WAIT);
        loop {
            let element = self.find(css).await;
            match element.send_keys(keys).await {
                Ok(()) => return,
                Err(err) if deadline.passed() => {
                    self.fail(format!("pressing keys on {css}: {err}")).await;
                }
                Err(_) => Deadline::next_look().await,
            }
        }
    }

    /// Types `text` into the field `css` (key by key, as a person types).
    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.wait_enabled(css).await;
        if let Err(err) = element.clear().await {
            self.fail(format!("clearing {css}: {err}")).await;
        }
        if let Err(err) = element.send_keys(text).await {
            self.fail(format!("typing into {css}: {err}")).await;
        }
    }

    /// Picks the option whose value is `value` in the select `css`.
    ///
    /// A select that the window draws again meanwhile (a dialog filling its list as its answer
    /// comes) leaves the element found first stale: it is found again and tried for up to 10 s.
    pub async fn choose(&self, css: &str, value: &str) {
        let started = Instant::now();
        loop {
            let element = self.wait_enabled(css).await;
            match element.select_by_value(value).await {
                Ok(()) => return,
                Err(err) if started.elapsed() > Duration::from_secs(10) => {
                    self.fail(format!("choosing {value} in {css}: {err}")).await
                }
                Err(_) => tokio::time::sleep(POLL_EVERY).await,
            }
        }
    }

    /// Picks the option whose visible label is `label` in the select `css`.
    pub async fn choose_label(&self, css: &str, label: &str) {
        let element = self.wait_enabled(css).await;
        if let Err(err) = element.select_by_label(label).await {
            self.fail(format!("choosing {label} in {css}: {err}")).await;
        }
    }

    /// The value of a form field (`value` property) right now.
    pub async fn value(&self, css: &str) -> String {
        let element = self.find(css).await;
        match element.prop("value").await {
            Ok(value) => value.unwrap_or_default(),
            Err(err) => {
                self.fail(format!("reading the value of {css}: {err}"))
                    .await
            }
        }
    }

    /// Runs an asynchronous script in the page: it ends by calling `arguments[0]` with its
    /// result (for calling the app's own commands, which answer with promises).
    pub async fn script_async(&self, script: &str) -> serde_json::Value {
        match self.client.execute_async(script, Vec::new()).await {
            Ok(value) => value,
            Err(err) => {
                self.fail(format!("running a script in the page: {err}"))
                    .await
            }
        }
    }

    /// Runs a script in the page (for reading several figures at the same instant).
    pub async fn script(&self, script: &str) -> serde_json::Value {
        match self.client.execute(script, Vec::new()).await {
            Ok(value) => value,
            Err(err) => {
                self.fail(format!("running a script in the page: {err}"))
                    .await
            }
        }
    }
}

/// A real notification server on the test's D-Bus session: dunst, drawing on the test's
/// display, with a rule that records every notification it shows (app name, summary, body)
/// in a file, so a test can assert what the user saw.
///
/// It must own `org.freedesktop.Notifications` before the app sends anything: otherwise D-Bus
/// would start a server of its own choosing. `cargo xtask e2e` runs the tests in a private
/// D-Bus session, where nobody else owns the name.
pub struct NotificationServer {
    child: Child,
    dir: tempfile::TempDir,
}

/// One notification as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub app_name: String,
    pub summary: String,
    pub body: String,
}

const NOTIFICATIONS: &str = "org.freedesktop.Notifications";

impl NotificationServer {
    pub fn start() -> NotificationServer {
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "no D-Bus session for the notification server: run `cargo xtask e2e`"
        );
        assert!(
            !name_has_owner(NOTIFICATIONS),
            "another notification server already answers on this D-Bus session; \
             run the tests in a private session (`cargo xtask e2e`)"
        );
        let dir = tempfile::Builder::new()
            .prefix("domain-desk-e2e-notifications-")
            .tempdir()
            .expect("a temporary folder for the notification server");
        let script = dir.path().join("record.sh");
        // dunst runs the rule's script with the app name, summary and body as arguments.
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$3\" >> '{}'\n",
                dir.path().join("shown.tsv").display()
            ),
        )
        .expect("the recording script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .expect("make the recording script executable");
        }
        let config = dir.path().join("dunstrc");
        std::fs::write(
            &config,
            format!(
                "[global]\n    follow = none\n[record]\n    appname = \"*\"\n    script = {}\n",
                script.display()
            ),
        )
        .expect("the notification server's configuration");
        let log = std::fs::File::create(dir.path().join("dunst.log")).expect("its log file");
        let mut command = Command::new("dunst");
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .arg("-config")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("dunst starts (apt-get install dunst)");
        let mut server = NotificationServer { child, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !name_has_owner(NOTIFICATIONS) {
            let exited = server.child.try_wait().ok().flatten();
            if exited.is_some() || Instant::now() >= deadline {
                panic!(
                    "dunst did not take {NOTIFICATIONS} ({exited:?}): {}",
                    server.log()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Every notification shown so far, oldest first.
    pub fn shown(&self) -> Vec<Shown> {
        let text = std::fs::read_to_string(self.dir.path().join("shown.tsv")).unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let mut fields = line.splitn(3, '\t');
                Some(Shown {
                    app_name: fields.next()?.to_owned(),
                    summary: fields.next()?.to_owned(),
                    body: fields.next()?.to_owned(),
                })
            })
            .collect()
    }

    /// Waits until a notification with `summary` has been shown, and returns it.
    pub async fn wait_for(&self, app: &App, summary: &str) -> Shown {
        let deadline = Deadline::after(WAIT);
        loop {
            if let Some(shown) = self.shown().into_iter().find(|s| s.summary == summary) {
                return shown;
            }
            if deadline.passed() {
                app.fail(format!(
                    "a desktop notification “{summary}” should have been shown within {WAIT:?}; \
                     the server showed {:?} ({})",
                    self.shown(),
                    self.log()
                ))
                .await;
            }
            Deadline::next_look().await;
        }
    }

    /// Saves the whole screen (the window and the notification over it) as
    /// `target/e2e/<name>.png`; WebDriver's screenshots show the page only.
    pub fn screenshot(&self, name: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
        std::fs::create_dir_all(&dir).expect("target/e2e");
        let status = Command::new("import")
            .args(["-window", "root"])
            .arg(dir.join(format!("{name}.png")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "a screenshot of the screen (apt-get install imagemagick)"
        );
    }

    /// What dunst said, in printable characters.
    fn log(&self) -> String {
        let text = std::fs::read_to_string(self.dir.path().join("dunst.log")).unwrap_or_default();
        text.chars()
            .filter(|c| *c == '\n' || *c == '\t' || (' '..='~').contains(c))
            .collect()
    }
}

impl Drop for NotificationServer {
    fn drop(&mut self) {
        // `--` before the negative group id, as for the driver.
        #[cfg(unix)]
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether someone owns `name` on the session bus (asking never starts a service).
pub fn name_has_owner(name: &str) -> bool {
    Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
        ])
        .arg(format!("string:{name}"))
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("boolean true"))
}
